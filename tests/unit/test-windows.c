/* SPDX-License-Identifier: MIT */
/* The windows backend's pure parts, natively on Linux: the command line
 * against the documented parsing rules, the environment block, the access
 * rules, SID and label strings. */
#include <errno.h>

#include "tap.h"
#include "env.h"
#include "windows/render.h"
#include "windows/win.h"

/* ---- an independent parser of Microsoft's documented rules ("Parsing C
 * command-line arguments", CommandLineToArgvW), to round-trip through ---- */

static void emit(char **out, size_t *n, char c)
{
        (*out)[(*n)++] = c;
        (*out)[*n] = '\0';
}

static const char *parse_program(const char *p, char **argv0)
{
        size_t n = 0;
        *argv0 = calloc(1, strlen(p) + 1);
        if (*p == '"') {
                for (p++; *p && *p != '"'; p++)
                        emit(argv0, &n, *p);
                return *p ? p + 1 : p;
        }
        for (; *p && *p != ' ' && *p != '\t'; p++)
                emit(argv0, &n, *p);
        return p;
}

static const char *parse_arg(const char *p, char **arg)
{
        size_t n = 0;
        bool quoted = false;
        *arg = calloc(1, strlen(p) + 1);
        while (*p && (quoted || (*p != ' ' && *p != '\t'))) {
                if (*p == '\\') {
                        size_t k = 0;
                        for (; *p == '\\'; p++)
                                k++;
                        if (*p != '"') {
                                while (k--)
                                        emit(arg, &n, '\\');
                                continue;
                        }
                        for (size_t i = 0; i < k / 2; i++)
                                emit(arg, &n, '\\');
                        if (k % 2) {
                                emit(arg, &n, '"');
                                p++;
                        }
                        continue;
                }
                if (*p == '"') {
                        if (quoted && p[1] == '"') { /* "" inside quotes: a literal '"' */
                                emit(arg, &n, '"');
                                p += 2;
                                continue;
                        }
                        quoted = !quoted;
                        p++;
                        continue;
                }
                emit(arg, &n, *p++);
        }
        return p;
}

static char **parse_cmdline(const char *line)
{
        char **v = calloc(strlen(line) + 2, sizeof(*v));
        size_t n = 0;
        const char *p = parse_program(line, &v[n++]);
        for (;;) {
                while (*p == ' ' || *p == '\t')
                        p++;
                if (!*p)
                        break;
                p = parse_arg(p, &v[n++]);
        }
        return v;
}

static bool roundtrips(char *const *argv, char **ret_line)
{
        const char *why = NULL;
        char *line = NULL;
        if (win_cmdline(argv, &line, &why) < 0)
                return false;
        char **back = parse_cmdline(line);
        bool same = strv_len(back) == strv_len(argv);
        for (size_t i = 0; same && argv[i]; i++)
                same = streq(back[i], argv[i]);
        if (!same)
                printf("# %s does not round-trip\n", line);
        strv_free(back);
        if (ret_line)
                *ret_line = line;
        else
                free(line);
        return same;
}

static void test_cmdline_table(void)
{
        static const struct {
                const char *arg, *quoted;
        } T[] = {
                {"plain", "plain"},
                {"", "\"\""},
                {"two words", "\"two words\""},
                {"tab\there", "\"tab\there\""},
                {"a\"b", "\"a\\\"b\""},
                {"\"", "\"\\\"\""},
                {"C:\\dir\\", "C:\\dir\\"},               /* no quote follows: literal */
                {"C:\\my dir\\", "\"C:\\my dir\\\\\""},   /* doubled before the closing quote */
                {"a\\\\b", "a\\\\b"},
                {"\\\"", "\"\\\\\\\"\""},                 /* backslash, quote */
                {"\\\\\"x", "\"\\\\\\\\\\\"x\""},
                {"trail\\\\", "trail\\\\"},
                {"sp \\\\", "\"sp \\\\\\\\\""},
                {"new\nline", "\"new\nline\""},
                {"v\vt", "\"v\vt\""},
                {"&|<>^%!", "&|<>^%!"},                   /* not special to CommandLineToArgvW */
                {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char *argv[] = {"prog", (char *)T[i].arg, NULL};
                char *line = NULL;
                CHECK(roundtrips(argv, &line));
                char *want = xasprintf("prog %s", T[i].quoted);
                CHECK_STREQ(line, want);
                free(want);
                free(line);
        }
}

static void test_cmdline_program(void)
{
        const char *why = NULL;
        char *line = NULL;
        char *a1[] = {"C:\\Program Files\\x.exe", "a b", NULL};
        CHECK_INTEQ(win_cmdline(a1, &line, &why), 0);
        CHECK_STREQ(line, "\"C:\\Program Files\\x.exe\" \"a b\"");
        free(line);
        /* the program name has no escapes: a trailing backslash stays as is */
        char *a2[] = {"C:\\odd dir\\", "x", NULL};
        CHECK(roundtrips(a2, NULL));
        char *a3[] = {"bad\"name", NULL};
        CHECK_INTEQ(win_cmdline(a3, &line, &why), -EINVAL);
        CHECK(why && strstr(why, "program name"));
        char *a4[] = {NULL};
        CHECK_INTEQ(win_cmdline(a4, &line, &why), -EINVAL);
}

/* Every string of up to 6 characters from the ones that matter, at random:
 * the parser gets back what went in. */
static void test_cmdline_random(void)
{
        static const char alphabet[] = "a \t\\\"";
        unsigned seed = 12345;
        int bad = 0;
        for (int round = 0; round < 20000; round++) {
                char args[3][8];
                char *argv[5] = {"p.exe", args[0], args[1], args[2], NULL};
                for (int k = 0; k < 3; k++) {
                        seed = seed * 1103515245u + 12345u;
                        int len = (int)((seed >> 16) % 7);
                        for (int j = 0; j < len; j++) {
                                seed = seed * 1103515245u + 12345u;
                                args[k][j] = alphabet[(seed >> 16) % 5];
                        }
                        args[k][len] = '\0';
                }
                if (!roundtrips(argv, NULL) && ++bad > 5)
                        break;
        }
        CHECK_INTEQ(bad, 0);
}

static void test_batch(void)
{
        CHECK(win_is_batch("C:\\x\\run.bat"));
        CHECK(win_is_batch("RUN.CMD"));
        CHECK(win_is_batch("run.Bat. . "));   /* Windows drops trailing dots and spaces */
        CHECK(!win_is_batch("run.bat.exe"));
        CHECK(!win_is_batch("bat"));
        CHECK(!win_is_batch("x.cmdx"));

        const char *why = NULL;
        char *line = NULL;
        char *ok[] = {"run.bat", "a b", "x&calc", "(^|)", "", NULL};
        CHECK_INTEQ(win_cmdline_batch("C:\\Windows\\System32\\cmd.exe", "C:\\s\\run.bat", ok, &line, &why), 0);
        CHECK_STREQ(line, "\"C:\\Windows\\System32\\cmd.exe\" /d /e:on /v:off /s /c "
                          "\"\"C:\\s\\run.bat\" \"a b\" \"x&calc\" \"(^|)\" \"\"\"");
        free(line);
        /* each of these would let the argument out of its quotes or expand */
        static const char *const refused[] = {"\"&calc", "%PATH%", "a\nb", "a\rb", "C:\\dir\\", "x\"y"};
        for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
                char *bad[] = {"run.bat", (char *)refused[i], NULL};
                why = NULL;
                CHECK_INTEQ(win_cmdline_batch("cmd.exe", "run.bat", bad, &line, &why), -EINVAL);
                CHECK(why != NULL);
        }
        char *none[] = {"run.bat", NULL};
        CHECK_INTEQ(win_cmdline_batch("cmd.exe", "C:\\100%\\run.bat", none, &line, &why), -EINVAL);
        CHECK(why && strstr(why, "'%'"));
}

static void test_utf16(void)
{
        uint16_t *w = NULL;
        size_t n = 0;
        CHECK_INTEQ(win_utf16("a\xc3\xa9\xf0\x9f\x98\x80", 7, &w, &n), 0);
        CHECK_INTEQ(n, 4);
        CHECK(w[0] == 'a' && w[1] == 0xe9 && w[2] == 0xd83d && w[3] == 0xde00 && w[4] == 0);
        free(w);
        CHECK_INTEQ(win_utf16("a\0b", 3, &w, &n), 0); /* the env block's NULs pass */
        CHECK(n == 3 && w[1] == 0 && w[2] == 'b');
        free(w);
        static const char *const invalid[] = {"\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc3", "\x80"};
        for (size_t i = 0; i < ARRAY_SIZE(invalid); i++)
                CHECK_INTEQ(win_utf16(invalid[i], strlen(invalid[i]), &w, &n), -EILSEQ);
}

static void test_env(void)
{
        char *in[] = {"Path=C:\\bin", "zeta=1", "USERPROFILE=C:\\Users\\me", "Temp=C:\\Users\\me\\tmp",
                      "ALPHA=a", "alpha=b", "A_B=2", NULL};
        win_env_input wi = {.instance_root = "C:\\Users\\me\\.cordon\\", .network_disabled = true,
                            .markers = true};
        char **out = NULL;
        CHECK_INTEQ(win_env_build(in, &wi, &out), 0);
        static const char *const want[] = {
                "alpha=b", /* the later of two names that differ in case */
                "APPDATA=C:\\Users\\me\\.cordon\\runtime-user-env\\AppData\\Roaming",
                "A_B=2",
                "CORDON_SANDBOX=windows",
                "CORDON_SANDBOX_NETWORK_DISABLED=1",
                "HOME=C:\\Users\\me\\.cordon\\runtime-user-env",
                "LOCALAPPDATA=C:\\Users\\me\\.cordon\\runtime-user-env\\AppData\\Local",
                "Path=C:\\bin",
                "TEMP=C:\\Users\\me\\.cordon\\runtime-user-env\\tmp",
                "TMP=C:\\Users\\me\\.cordon\\runtime-user-env\\tmp",
                "USERPROFILE=C:\\Users\\me\\.cordon\\runtime-user-env",
                "zeta=1",
        };
        CHECK_INTEQ(strv_len(out), ARRAY_SIZE(want));
        for (size_t i = 0; i < ARRAY_SIZE(want) && out && out[i]; i++)
                CHECK_STREQ(out[i], want[i]);
        size_t len = 0;
        char *block = win_env_block(out, &len);
        CHECK(block && len > 2 && block[len - 1] == '\0' && block[len - 2] == '\0' && block[len - 3] == '1');
        CHECK_STREQ(block, "alpha=b");
        free(block);
        strv_free(out);

        /* no redirection, no markers: the policy's result, sorted */
        char *few[] = {"b=1", "A=2", NULL};
        CHECK_INTEQ(win_env_build(few, NULL, &out), 0);
        CHECK(strv_len(out) == 2 && streq(out[0], "A=2") && streq(out[1], "b=1"));
        strv_free(out);
        char *bad[] = {"=x", NULL};
        CHECK_INTEQ(win_env_build(bad, NULL, &out), -EINVAL);
        char *empty[] = {NULL};
        CHECK_INTEQ(win_env_build(empty, NULL, &out), 0);
        block = win_env_block(out, &len);
        CHECK(block && len == 2 && block[0] == 0 && block[1] == 0);
        free(block);
        strv_free(out);

        /* planned on a POSIX host: the root's own separator */
        char *p = win_path_join("/root/.cordon", "runtime-user-env/AppData/Local");
        CHECK_STREQ(p, "/root/.cordon/runtime-user-env/AppData/Local");
        free(p);
        p = win_path_join("D:\\", "tmp");
        CHECK_STREQ(p, "D:\\tmp");
        free(p);
}

static void test_sid(void)
{
        char *a = win_instance_sid("C:\\Users\\me\\.cordon");
        char *b = win_instance_sid("c:/users/ME/.cordon/"); /* the same directory */
        char *c = win_instance_sid("C:\\Users\\me\\.cordon2");
        CHECK_STREQ(a, b);
        CHECK(!streq(a, c));
        unsigned x[4];
        char tail;
        CHECK(a && strncmp(a, "S-1-9-", 6) == 0);
        CHECK(a && sscanf(a, "S-1-9-%u-%u-%u-%u%c", &x[0], &x[1], &x[2], &x[3], &tail) == 4);
        char *ace = win_grant_ace(a);
        char *want = xasprintf("(A;OICI;0x1301bf;;;%s)", a);
        CHECK_STREQ(ace, want);
        CHECK_STREQ(WIN_LABEL_LOW, "S:(ML;OICI;NW;;;LW)");
        CHECK_STREQ(WIN_SID_LOW_INTEGRITY, "S-1-16-4096");
        free(ace);
        free(want);
        free(a);
        free(b);
        free(c);
}

static void test_rules(void)
{
        const win_path paths[] = {
                {"C:\\i\\runtime-user-env", NULL, true, "instance"},
                {"C:\\work", "C:\\work", true, "workspace"},
                {"C:\\tools", NULL, false, "expose"},
                {"C:\\work", NULL, false, "cwd"},   /* already writable: stays a grant */
                {"C:\\data", NULL, false, "exe"},
                {"C:\\data", NULL, true, "expose"}, /* a later rw wins over a read */
        };
        win_rules r = {0};
        char *why = NULL;
        CHECK_INTEQ(win_rules_build("C:\\i", paths, ARRAY_SIZE(paths), &r, &why), 0);
        CHECK_INTEQ(r.n_rules, 4);
        char *sid = win_instance_sid("C:\\i");
        CHECK_STREQ(r.sid, sid);
        char *sddl = xasprintf("D:(A;OICI;0x1301bf;;;%s)S:(ML;OICI;NW;;;LW)", sid);
        if (r.n_rules == 4) {
                CHECK(r.rules[0].kind == WIN_RULE_GRANT && streq(r.rules[0].sddl, sddl));
                CHECK(r.rules[1].kind == WIN_RULE_GRANT && streq(r.rules[1].origin, "workspace"));
                CHECK(r.rules[2].kind == WIN_RULE_READ && !r.rules[2].sddl);
                CHECK(r.rules[3].kind == WIN_RULE_GRANT && streq(r.rules[3].path, "C:\\data"));
        }
        char *text = win_rules_text(&r);
        CHECK(text && strstr(text, "windows isolation access rules\n"));
        CHECK(text && strstr(text, "  write  C:\\work  (workspace)  D:(A;OICI;0x1301bf;;;"));
        CHECK(text && strstr(text, "  read   C:\\tools  (expose)  no grant"));
        free(text);
        free(sddl);
        free(sid);
        win_rules_clear(&r);

        const win_path remap[] = {{"C:\\src", "C:\\elsewhere", false, "expose"}};
        CHECK_INTEQ(win_rules_build("C:\\i", remap, 1, &r, &why), -EINVAL);
        CHECK(why && strstr(why, "C:\\src -> C:\\elsewhere (expose): the windows backend cannot remap"));
        free(why);
}

static void test_plan_render(void)
{
        plan_mount m[] = {
                {.type = MOUNT_BIND, .source = "/usr", .target = "/usr", .origin = ORIGIN_SYSTEM},
                {.type = MOUNT_BIND, .source = "/h/.cordon", .target = "/h/.cordon", .writable = true,
                 .origin = ORIGIN_INSTANCE},
                {.type = MOUNT_TMPFS, .target = "/h/.cordon/logs", .origin = ORIGIN_INSTANCE},
                {.type = MOUNT_BIND, .source = "/h/.cordon/skills", .target = "/h/.cordon/skills",
                 .origin = ORIGIN_INSTANCE},
                {.type = MOUNT_BIND, .source = "/p", .target = "/p", .writable = true, .origin = ORIGIN_WORKSPACE},
                {.type = MOUNT_BIND, .source = "/opt/go", .target = "/opt/go", .origin = ORIGIN_EXPOSE},
        };
        cordon_plan p = {.backend = BACKEND_LINUX, .network = CORDON_NETWORK_FULL, .mounts = m,
                         .n_mounts = ARRAY_SIZE(m), .instance_root = "/h/.cordon", .workspace = "/p"};
        win_rules r = {0};
        char *why = NULL;
        CHECK_INTEQ(win_plan_rules(&p, &r, &why), 0);
        static const char *const want[] = {"/h/.cordon/runtime-user-env", "/h/.cordon/cache", "/h/.cordon/state",
                                           "/p", "/opt/go"};
        CHECK_INTEQ(r.n_rules, ARRAY_SIZE(want));
        for (size_t i = 0; i < r.n_rules && i < ARRAY_SIZE(want); i++) {
                CHECK_STREQ(r.rules[i].path, want[i]);
                CHECK(r.rules[i].kind == (i < 4 ? WIN_RULE_GRANT : WIN_RULE_READ));
        }
        win_rules_clear(&r);
        char **refused = win_plan_refusals(&p);
        CHECK(refused && !refused[0]); /* network full, no limits: nothing */
        strv_free(refused);

        p.network = CORDON_NETWORK_NONE;
        p.limits[CORDON_LIMIT_OPEN_FILES] = 64;
        p.limits[CORDON_LIMIT_PIDS] = 10; /* the job's active-process limit: fine */
        refused = win_plan_refusals(&p);
        CHECK(refused && strv_len(refused) == 2);
        CHECK(refused && refused[0] && strstr(refused[0], "network \"none\": ") &&
              strstr(refused[0], "administrator rights"));
        CHECK(refused && refused[0] && refused[1] && strstr(refused[1], "--nofile: Windows has no such limit"));
        strv_free(refused);
        p.limits_best_effort = true;
        p.network = CORDON_NETWORK_FULL;
        refused = win_plan_refusals(&p);
        CHECK(refused && !refused[0]);
        strv_free(refused);

        char *text = win_plan_text(&p);
        CHECK(text && strstr(text, "  write  /p  (workspace)  D:(A;OICI;0x1301bf;;;S-1-9-"));
        CHECK(text && !strstr(text, "logs") && !strstr(text, "/usr"));
        free(text);

        m[5].target = "/toolchain"; /* source -> target */
        CHECK_INTEQ(win_plan_rules(&p, &r, &why), -EINVAL);
        CHECK(why && strstr(why, "/opt/go -> /toolchain (expose): the windows backend cannot remap"));
        free(why);
        text = win_plan_text(&p);
        CHECK(text && strstr(text, "  refused: /opt/go -> /toolchain"));
        free(text);
}

/* The "core" template on Windows: names without case, the system's
 * variables kept. */
static void test_env_core(void)
{
        const char *base[] = {"Path=C:\\bin", "SystemRoot=C:\\Windows", "comspec=C:\\cmd.exe", "Foo=1", NULL};
        cordon_config *c = cordon_config_new();
        env_input in = {.base = base, .core_extra = WIN_ENV_CORE, .names_casefold = true};
        char **env = NULL;
        CHECK_INTEQ(env_build(c, &in, &env), 0);
        CHECK_STREQ(env_get(env, "Path"), "C:\\bin");
        CHECK_STREQ(env_get(env, "SystemRoot"), "C:\\Windows");
        CHECK_STREQ(env_get(env, "comspec"), "C:\\cmd.exe");
        CHECK(!env_get(env, "Foo"));
        strv_free(env);
        /* the control: as on Linux, "Path" is not "PATH" and the rest is dropped */
        env_input posix = {.base = base};
        CHECK_INTEQ(env_build(c, &posix, &env), 0);
        CHECK(!env_get(env, "Path") && !env_get(env, "SystemRoot"));
        strv_free(env);
        cordon_config_free(c);
}

int main(void)
{
        tap_run("command line: table of tricky arguments", test_cmdline_table);
        tap_run("command line: the program name", test_cmdline_program);
        tap_run("command line: random arguments round-trip", test_cmdline_random);
        tap_run("command line: batch files (CVE-2024-24576)", test_batch);
        tap_run("UTF-8 to UTF-16", test_utf16);
        tap_run("environment block", test_env);
        tap_run("instance SID, grant, label", test_sid);
        tap_run("access rules", test_rules);
        tap_run("the neutral plan rendered for windows", test_plan_render);
        tap_run("the environment policy's core on Windows", test_env_core);
        printf("1..%d\n", tap_n);
        return tap_any_failed;
}
