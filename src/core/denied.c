/* SPDX-License-Identifier: MIT */
/* The run's refusals as data (denied.h): the bounded list the observers
 * note into, the suggestion that would allow each, and the record's
 * "denied" array (stats.c, cordon_process_denied_json). Pure but for the
 * list's lock. */
#include "denied.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-validate.h"
#include "config.h"
#include "net/allowlist.h"

typedef struct denied_entry {
        denied_kind kind;
        char *target, *rule, *suggestion, *seen_by;
        host_has has;
        int only_status;
} denied_entry;

struct denied_list {
        pthread_mutex_t lock;
        denied_entry e[DENIED_MAX];
        size_t n;
        char *home;
        size_t omitted[256 + 1]; /* per only_status (+1: -1 first), left out by the bound */
};

static const char *const KIND[DENIED__KIND_MAX] = {"read", "write", "exec", "connect", "resolve", "syscall"};

const char *denied_kind_name(denied_kind k) { return (unsigned)k < DENIED__KIND_MAX ? KIND[k] : "?"; }

denied_list *denied_list_new(void)
{
        denied_list *l = calloc(1, sizeof(*l));
        if (l && pthread_mutex_init(&l->lock, NULL) != 0) {
                free(l);
                return NULL;
        }
        return l;
}

denied_list *denied_list_free(denied_list *l)
{
        if (!l)
                return NULL;
        for (size_t i = 0; i < l->n; i++) {
                free(l->e[i].target);
                free(l->e[i].rule);
                free(l->e[i].suggestion);
                free(l->e[i].seen_by);
        }
        pthread_mutex_destroy(&l->lock);
        free(l->home);
        free(l);
        return NULL;
}

/* |s| cut at DENIED_TEXT_MAX bytes (at a character's start), "..." after. */
static char *bounded(const char *s)
{
        size_t n = strlen(s);
        if (n <= DENIED_TEXT_MAX)
                return strdup(s);
        size_t cut = DENIED_TEXT_MAX;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
                cut--;
        const char *parts[] = {s, "..."};
        const size_t lens[] = {cut, 3};
        return strnconcat(2, parts, lens);
}

static bool entry_fill(denied_entry *d, denied_kind kind, const char *target, const char *rule, host_has has,
                       const char *suggestion, const char *seen_by, int only_status)
{
        *d = (denied_entry){.kind = kind, .has = has, .only_status = only_status};
        d->target = bounded(target ? target : "");
        d->rule = bounded(rule ? rule : "");
        d->suggestion = bounded(suggestion ? suggestion : DENIED_NOT_ALLOWABLE);
        d->seen_by = strdup(seen_by ? seen_by : "");
        if (d->target && d->rule && d->suggestion && d->seen_by)
                return true;
        free(d->target);
        free(d->rule);
        free(d->suggestion);
        free(d->seen_by);
        return false;
}

void denied_note(denied_list *l, denied_kind kind, const char *target, const char *rule, host_has has,
                 const char *suggestion, const char *seen_by, int only_status)
{
        if (!l || (unsigned)kind >= DENIED__KIND_MAX || only_status < -1 || only_status > 255)
                return;
        _cleanup_free_ char *key = bounded(target ? target : "");
        if (!key)
                return;
        pthread_mutex_lock(&l->lock);
        bool fresh = true;
        for (size_t i = 0; i < l->n && fresh; i++)
                fresh = !(l->e[i].kind == kind && streq(l->e[i].target, key));
        if (fresh && l->n == DENIED_MAX)
                l->omitted[only_status + 1]++;
        else if (fresh && entry_fill(&l->e[l->n], kind, target, rule, has, suggestion, seen_by, only_status))
                l->n++;
        pthread_mutex_unlock(&l->lock);
}

void denied_list_set_home(denied_list *l, const char *home)
{
        if (!l)
                return;
        free(l->home);
        l->home = xstrdup(home);
}

const char *denied_list_home(const denied_list *l) { return l ? l->home : NULL; }

void denied_note_path(denied_list *l, denied_kind kind, const char *path, const char *rule, host_has has,
                      bool writable, const char *seen_by)
{
        if (!l)
                return;
        _cleanup_free_ char *s = denied_path_suggestion(path, writable, l->home);
        if (s)
                denied_note(l, kind, path, rule, has, s, seen_by, -1);
}

static bool counts(const denied_entry *d, int status) { return status < 0 || d->only_status < 0 || d->only_status == status; }

size_t denied_count(const denied_list *l, int status)
{
        if (!l)
                return 0;
        pthread_mutex_lock((pthread_mutex_t *)&l->lock);
        size_t n = 0;
        for (size_t i = 0; i < l->n; i++)
                n += counts(&l->e[i], status);
        pthread_mutex_unlock((pthread_mutex_t *)&l->lock);
        return n;
}

/* Files no suggestion names, by their name anywhere: private keys and the
 * stores of credentials that hold nothing a build reads. */
static const char *const SECRET_NAMES[] = {
        "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "*.pem", "*.key", "*.p12",
        "*.pfx", "*.keystore", "*.jks", "*.kdbx", ".netrc", ".pgpass", "shadow", "shadow-", "gshadow", "gshadow-",
        "sudoers", "ssh_host_*_key", NULL,
};
/* Directories of the home whose whole content is secret. */
static const char *const SECRET_HOME_DIRS[] = {
        ".ssh", ".gnupg", ".aws", ".azure", ".gcloud", ".config/gcloud", ".kube", ".docker", ".password-store",
        ".local/share/keyrings", ".mozilla", ".config/google-chrome", ".config/chromium", ".cordon", NULL,
};
/* System paths that are secret as a whole. */
static const char *const SECRET_SYSTEM[] = {"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d",
                                            "/etc/ssh", "/root", "/etc/ssl/private", NULL};

bool denied_path_is_secret(const char *path, const char *home)
{
        if (!path || path[0] != '/' || path_is_root(path))
                return true;
        const char *base = strrchr(path, '/') + 1;
        for (size_t i = 0; SECRET_NAMES[i]; i++)
                if (fnmatch_casefold(SECRET_NAMES[i], base) == 0)
                        return true;
        /* a secret, or a directory that holds one */
        for (size_t i = 0; SECRET_SYSTEM[i]; i++)
                if (path_startswith(path, SECRET_SYSTEM[i]) || path_startswith(SECRET_SYSTEM[i], path))
                        return true;
        if (!home || home[0] != '/')
                return false;
        if (path_startswith(home, path)) /* the home, or above it */
                return true;
        for (size_t i = 0; SECRET_HOME_DIRS[i]; i++) {
                _cleanup_free_ char *d = path_join(home, SECRET_HOME_DIRS[i]);
                if (!d || path_startswith(path, d) || path_startswith(d, path))
                        return true;
        }
        return false;
}

char *denied_path_suggestion(const char *path, bool writable, const char *home)
{
        _cleanup_free_ char *norm = NULL;
        if (!path || path_normalize(path, false, &norm) < 0 || denied_path_is_secret(norm, home) ||
            source_problem(norm) || expose_source_problem(norm, writable) || target_problem(norm) ||
            strchr(norm, ':'))
                return strdup(DENIED_NOT_ALLOWABLE); /* a ':' would split the flag's value */
        return xasprintf("--expose %s%s", norm, writable ? ":rw" : "");
}

/* As the proxy decides whether its log line offers the entry
 * (proxy-denials.c: denial_suggestable): a valid name or IP literal as the
 * policy checked it, and an entry as it is written. */
char *denied_net_suggestion(const char *host, unsigned port)
{
        char name[NET_HOST_MAX + 3], hp[NET_HOST_MAX + 16];
        snprintf(name, sizeof(name), "%s", host ? host : "");
        if (port == 0) /* a refused lookup: the name on the ports an entry has by default */
                snprintf(hp, sizeof(hp), "%s", name);
        else
                snprintf(hp, sizeof(hp), strchr(name, ':') ? "[%s]:%u" : "%s:%u", name, port);
        net_entry e;
        const char *why = NULL;
        bool ok = host && net_host_normalize(name) && streq(name, host) && net_entry_parse(hp, &e, &why) == 0;
        return ok ? strjoin2("--allow-net ", hp) : strdup(DENIED_NOT_ALLOWABLE);
}

json_t *denied_entry_json(denied_kind kind, const char *target, const char *rule, host_has has,
                          const char *suggestion, const char *seen_by)
{
        json_t *o = json_object();
        bool ok = json_put(o, "kind", json_string(denied_kind_name(kind))) && json_put(o, "target", json_text(target)) &&
                  json_put(o, "rule", json_text(rule)) &&
                  json_put(o, "host_has", has == HOST_HAS_UNKNOWN ? json_null() : json_boolean(has == HOST_HAS_YES)) &&
                  json_put(o, "suggestion", json_text(suggestion)) && json_put(o, "seen_by", json_string(seen_by));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

char *denied_summary(const json_t *denied, size_t omitted, size_t max)
{
        buf b = {0};
        buf_put(&b, "", 0);
        size_t n = json_array_size(denied);
        for (size_t i = 0; i < n && i < max; i++) {
                const json_t *e = json_array_get(denied, i);
                const json_t *has = json_object_get(e, "host_has");
                _cleanup_free_ char *target = str_escape(json_string_value(json_object_get(e, "target")), false);
                _cleanup_free_ char *rule = str_escape(json_string_value(json_object_get(e, "rule")), false);
                _cleanup_free_ char *sug = str_escape(json_string_value(json_object_get(e, "suggestion")), false);
                if (!target || !rule || !sug) {
                        free(buf_steal(&b));
                        return NULL;
                }
                buf_printf(&b, "refused %s %s (%s%s): %s%s\n", json_string_value(json_object_get(e, "kind")), target,
                           rule,
                           json_is_true(has)    ? "; the host has it"
                           : json_is_false(has) ? "; the host has no such path either"
                                                : "",
                           streq(sug, DENIED_NOT_ALLOWABLE) ? "" : "allow it with ", sug);
        }
        if (n + omitted > max)
                buf_printf(&b, "and %zu more refusals (the --stats record lists them)\n", n + omitted - max);
        return buf_steal(&b);
}

json_t *denied_json(const denied_list *l, int status, json_t *extra, size_t *ret_omitted)
{
        json_t *a = extra ? extra : json_array();
        bool ok = a != NULL;
        size_t omitted = 0;
        if (l)
                pthread_mutex_lock((pthread_mutex_t *)&l->lock);
        for (size_t i = 0; ok && l && i < l->n; i++) {
                const denied_entry *d = &l->e[i];
                if (counts(d, status))
                        ok = json_put(a, NULL,
                                      denied_entry_json(d->kind, d->target, d->rule, d->has, d->suggestion, d->seen_by));
        }
        for (int s = -1; l && s <= 255; s++)
                if (status < 0 || s < 0 || s == status)
                        omitted += l->omitted[s + 1];
        if (l)
                pthread_mutex_unlock((pthread_mutex_t *)&l->lock);
        /* the bound holds for the whole array, the proxy's entries too */
        while (ok && json_array_size(a) > DENIED_MAX) {
                json_array_remove(a, json_array_size(a) - 1);
                omitted++;
        }
        if (!ok) {
                json_decref(a);
                return NULL;
        }
        if (ret_omitted)
                *ret_omitted = omitted;
        return a;
}
