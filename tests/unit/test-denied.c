/* SPDX-License-Identifier: MIT */
/* The record's "denied" (src/core/denied.c): the suggestions, the secrets
 * no suggestion names, the bound, the dedup and the lines for people. */
#include <jansson.h>

#include "denied.h"
#include "tap.h"
#include "util.h"

static void test_path_suggestion(void)
{
        static const struct {
                const char *path;
                bool rw;
                const char *want;
        } T[] = {
                {"/home/me/.npmrc", false, "--expose /home/me/.npmrc"},
                {"/home/me/project-b", true, "--expose /home/me/project-b:rw"},
                {"/home/me/.local/bin", false, "--expose /home/me/.local/bin"},
                {"/usr/x", false, "--expose /usr/x"},
                {"/usr/x", true, DENIED_NOT_ALLOWABLE},    /* a system directory: never writable */
                {"/etc/x", true, DENIED_NOT_ALLOWABLE},
                {"/proc/1/root", false, DENIED_NOT_ALLOWABLE},
                {"/", false, DENIED_NOT_ALLOWABLE},
                {"/home/me", false, DENIED_NOT_ALLOWABLE}, /* the whole home */
                {"/home", false, DENIED_NOT_ALLOWABLE},    /* above it */
                {"/home/me/.ssh/config", false, DENIED_NOT_ALLOWABLE},
                {"/home/me/.ssh", false, DENIED_NOT_ALLOWABLE},
                {"/srv/keys/id_ed25519", false, DENIED_NOT_ALLOWABLE},
                {"/srv/tls/server.pem", false, DENIED_NOT_ALLOWABLE},
                {"/home/me/.aws/credentials", false, DENIED_NOT_ALLOWABLE},
                {"/etc/shadow", false, DENIED_NOT_ALLOWABLE},
                {"/etc/gshadow-", false, DENIED_NOT_ALLOWABLE},
                {"/etc/sudoers.d/me", false, DENIED_NOT_ALLOWABLE},
                {"/etc/ssh/ssh_host_rsa_key", false, DENIED_NOT_ALLOWABLE},
                {"/etc", false, DENIED_NOT_ALLOWABLE},         /* holds /etc/shadow */
                {"/home/me/.config", false, DENIED_NOT_ALLOWABLE}, /* holds ~/.config/gcloud */
                {"/home/me/.config/mybuild", false, "--expose /home/me/.config/mybuild"},
                {"/etc/pip.conf", false, "--expose /etc/pip.conf"},
                {"/srv/a:b", false, DENIED_NOT_ALLOWABLE}, /* the flag's value would split */
                {"relative", false, DENIED_NOT_ALLOWABLE},
                {"/srv/../etc/shadow", false, DENIED_NOT_ALLOWABLE},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char *s = denied_path_suggestion(T[i].path, T[i].rw, "/home/me");
                CHECK_STREQ(s, T[i].want);
                free(s);
        }
}

static void test_net_suggestion(void)
{
        static const struct {
                const char *host;
                unsigned port;
                const char *want;
        } T[] = {
                {"example.org", 443, "--allow-net example.org:443"},
                {"10.0.0.1", 80, "--allow-net 10.0.0.1:80"},
                {"::1", 8080, "--allow-net [::1]:8080"},
                {"EXAMPLE.org", 443, DENIED_NOT_ALLOWABLE}, /* not as the policy wrote it */
                {"a b", 443, DENIED_NOT_ALLOWABLE},
                {"", 443, DENIED_NOT_ALLOWABLE},
                {"x\x1b]0;t\x07", 443, DENIED_NOT_ALLOWABLE},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char *s = denied_net_suggestion(T[i].host, T[i].port);
                CHECK_STREQ(s, T[i].want);
                free(s);
        }
}

static void test_list(void)
{
        denied_list *l = denied_list_new();
        denied_list_set_home(l, "/home/me");
        denied_note_path(l, DENIED_READ, "/home/me/.npmrc", "hidden", HOST_HAS_YES, false, "explain");
        denied_note_path(l, DENIED_READ, "/home/me/.npmrc", "hidden again", HOST_HAS_YES, false, "explain");
        denied_note_path(l, DENIED_WRITE, "/home/me/.npmrc", "read-only", HOST_HAS_YES, true, "explain");
        denied_note(l, DENIED_EXEC, "/home/me/.local/bin", "PATH", HOST_HAS_YES, "--expose /home/me/.local/bin",
                    "exit-status", 127);
        CHECK_INTEQ(denied_count(l, -1), 3);
        CHECK_INTEQ(denied_count(l, 1), 2); /* the exec counts on 127 only */
        CHECK_INTEQ(denied_count(l, 127), 3);
        size_t omitted = 9;
        json_t *a = denied_json(l, 1, NULL, &omitted);
        CHECK_INTEQ(json_array_size(a), 2);
        CHECK_INTEQ(omitted, 0);
        char *s = json_dumps(a, JSON_PRESERVE_ORDER);
        CHECK_STREQ(s, "[{\"kind\": \"read\", \"target\": \"/home/me/.npmrc\", \"rule\": \"hidden\", \"host_has\": true, "
                       "\"suggestion\": \"--expose /home/me/.npmrc\", \"seen_by\": \"explain\"}, {\"kind\": \"write\", "
                       "\"target\": \"/home/me/.npmrc\", \"rule\": \"read-only\", \"host_has\": true, \"suggestion\": "
                       "\"--expose /home/me/.npmrc:rw\", \"seen_by\": \"explain\"}]");
        free(s);
        char *text = denied_summary(a, 0, 1);
        CHECK_STREQ(text, "refused read /home/me/.npmrc (hidden; the host has it): allow it with --expose "
                          "/home/me/.npmrc\nand 1 more refusals (the --stats record lists them)\n");
        free(text);
        json_decref(a);
        /* the bound: in count, and in size */
        char big[2000];
        memset(big, 'a', sizeof(big));
        big[0] = '/';
        big[sizeof(big) - 1] = '\0';
        denied_note(l, DENIED_READ, big, "r", HOST_HAS_NO, NULL, "explain", -1);
        for (int i = 0; i < 100; i++) {
                char p[32];
                snprintf(p, sizeof(p), "/srv/f%d", i);
                denied_note_path(l, DENIED_READ, p, "hidden", HOST_HAS_NO, false, "explain");
        }
        a = denied_json(l, -1, NULL, &omitted);
        CHECK_INTEQ(json_array_size(a), DENIED_MAX);
        CHECK_INTEQ(omitted, 3 + 1 + 100 - DENIED_MAX);
        const char *t = json_string_value(json_object_get(json_array_get(a, 3), "target"));
        CHECK(t && strlen(t) == DENIED_TEXT_MAX + 3 && strcmp(t + DENIED_TEXT_MAX, "...") == 0);
        CHECK_STREQ(json_string_value(json_object_get(json_array_get(a, 3), "suggestion")), DENIED_NOT_ALLOWABLE);
        json_decref(a);
        denied_list_free(l);
        /* a NULL list: nothing noted, an empty array */
        denied_note(NULL, DENIED_READ, "/x", "r", HOST_HAS_NO, NULL, "explain", -1);
        a = denied_json(NULL, -1, NULL, NULL);
        CHECK(a && json_array_size(a) == 0);
        json_decref(a);
}

static void test_summary_escapes(void)
{
        json_t *a = json_array();
        json_array_append_new(a, denied_entry_json(DENIED_CONNECT, "evil\x1b]52;c;AAAA\x07:443", "not in the allowlist",
                                                   HOST_HAS_UNKNOWN, DENIED_NOT_ALLOWABLE, "proxy"));
        char *text = denied_summary(a, 0, 5);
        CHECK(text && !strchr(text, '\x1b') && !strchr(text, '\x07'));
        CHECK(text && strstr(text, "(not in the allowlist): cannot be allowed\n"));
        free(text);
        json_decref(a);
        text = denied_summary(NULL, 0, 5);
        CHECK_STREQ(text, "");
        free(text);
}

int main(void)
{
        RUN(test_path_suggestion);
        RUN(test_net_suggestion);
        RUN(test_list);
        RUN(test_summary_escapes);
        return TAP_DONE();
}
