/* SPDX-License-Identifier: MIT */
/* The config layer: every invalid fixture with its exact message, layering
 * across three files, and the programmatic setters. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"

#ifndef TEST_DATA
#error "TEST_DATA must name tests/data (set in tests/meson.build)"
#endif

#define INVALID_DIR TEST_DATA "/config/invalid"
#define LAYERS_DIR  TEST_DATA "/config/layers"
#define PROFILES_DIR TEST_DATA "/config/profiles"
#define SHIPPED_DIR TEST_DATA "/../../profiles"

/* One fixture per file in tests/data/config/invalid, loaded by its bare name
 * from that directory, so the message starts with the name as given. */
static const struct {
        const char *file, *message, *key;
        int line, column;
} INVALID[] = {
        /* unknown keys: located at the key */
        {"unknown-key-isolation.json", "unknown-key-isolation.json:4:5: isolation.expose_path: unknown key",
         "isolation.expose_path", 4, 5},
        {"unknown-key-auto-expose.json", "unknown-key-auto-expose.json:3:34: isolation.auto_expose.argv: unknown key",
         "isolation.auto_expose.argv", 3, 34},
        {"unknown-key-expose-entry.json",
         "unknown-key-expose-entry.json:4:26: isolation.expose_paths[0].readonly: unknown key (expected \"source\", "
         "\"target\", \"mode\", \"optional\" or \"comment\")",
         "isolation.expose_paths[0].readonly", 4, 26},
        {"unknown-key-limits.json", "unknown-key-limits.json:5:7: isolation.limits.memory: unknown key",
         "isolation.limits.memory", 5, 7},
        {"unknown-key-env-policy.json",
         "unknown-key-env-policy.json:4:5: shell_environment_policy.includes: unknown key",
         "shell_environment_policy.includes", 4, 5},
        /* wrong types: located at the value */
        {"type-enabled-string.json", "type-enabled-string.json:3:16: isolation.enabled: must be a boolean, got string",
         "isolation.enabled", 3, 16},
        {"type-network-number.json", "type-network-number.json:3:16: isolation.network: must be a string, got number",
         "isolation.network", 3, 16},
        {"network-allow-type.json",
         "network-allow-type.json:3:22: isolation.network_allow: must be an array of strings, got string",
         "isolation.network_allow", 3, 22},
        {"network-allow-port.json",
         "network-allow-port.json:5:7: isolation.network_allow[1]: \"pypi.org:0\": the port must be a number from 1 "
         "to 65535",
         "isolation.network_allow[1]", 5, 7},
        {"network-allow-wildcard.json",
         "network-allow-wildcard.json:3:40: isolation.network_allow[1]: \"ex*mple.org\": a wildcard must be a "
         "leading \"*.\" (\"*.example.org\"); for any host use network \"full\"",
         "isolation.network_allow[1]", 3, 40},
        {"type-expose-paths-object.json",
         "type-expose-paths-object.json:3:21: isolation.expose_paths: must be an array, got object",
         "isolation.expose_paths", 3, 21},
        {"type-auto-expose-array.json",
         "type-auto-expose-array.json:3:20: isolation.auto_expose: must be an object, got array",
         "isolation.auto_expose", 3, 20},
        {"type-exclude-string.json",
         "type-exclude-string.json:3:16: shell_environment_policy.exclude: must be an array of strings, got string",
         "shell_environment_policy.exclude", 3, 16},
        {"type-limit-boolean.json",
         "type-limit-boolean.json:3:24: isolation.limits.pids: must be a number, got boolean", "isolation.limits.pids",
         3, 24},
        {"type-isolation-array.json", "type-isolation-array.json:2:16: isolation: must be an object, got array",
         "isolation", 2, 16},
        {"type-ignore-default-excludes-number.json",
         "type-ignore-default-excludes-number.json:2:59: shell_environment_policy.ignore_default_excludes: must be "
         "a boolean, got number",
         "shell_environment_policy.ignore_default_excludes", 2, 59},
        {"type-expose-entry-string.json",
         "type-expose-entry-string.json:3:22: isolation.expose_paths[0]: must be an object, got string",
         "isolation.expose_paths[0]", 3, 22},
        /* invalid enums */
        {"enum-network.json",
         "enum-network.json:3:16: isolation.network: must be one of \"none\", \"loopback\", \"full\" or \"proxy\", got "
         "\"host\"",
         "isolation.network", 3, 16},
        {"enum-backend.json",
         "enum-backend.json:3:16: isolation.backend: must be one of \"auto\", \"linux\", \"landlock\", "
         "\"seatbelt\" or \"windows\", got \"docker\"",
         "isolation.backend", 3, 16},
        {"enum-inherit.json",
         "enum-inherit.json:3:16: shell_environment_policy.inherit: must be one of \"core\", \"all\" or \"none\", "
         "got \"some\"",
         "shell_environment_policy.inherit", 3, 16},
        {"enum-auto-expose-mode.json",
         "enum-auto-expose-mode.json:3:41: isolation.auto_expose.cwd: must be one of \"off\", \"ro\" or \"rw\", got "
         "\"yes\"",
         "isolation.auto_expose.cwd", 3, 41},
        {"enum-landlock.json",
         "enum-landlock.json:3:17: isolation.landlock: must be one of \"best_effort\", \"required\" or \"off\", got "
         "\"maybe\"",
         "isolation.landlock", 3, 17},
        /* expose_paths */
        {"source-relative.json",
         "source-relative.json:4:18: isolation.expose_paths[0].source: must be an absolute path (or start with ~/), "
         "got \"usr/share\"",
         "isolation.expose_paths[0].source", 4, 18},
        {"target-relative.json",
         "target-relative.json:4:42: isolation.expose_paths[0].target: must be an absolute path (or start with ~/ or "
         "$NAME/), got \"opt/share\"",
         "isolation.expose_paths[0].target", 4, 42},
        {"target-dotdot.json",
         "target-dotdot.json:4:42: isolation.expose_paths[0].target: must not contain \"..\", got \"/opt/../etc\"",
         "isolation.expose_paths[0].target", 4, 42},
        {"target-root.json", "target-root.json:4:42: isolation.expose_paths[0].target: must not be \"/\", got \"/\"",
         "isolation.expose_paths[0].target", 4, 42},
        {"target-proc.json",
         "target-proc.json:4:42: isolation.expose_paths[0].target: must not be under /proc (the sandbox has its "
         "own), got \"/proc/sys/kernel\"",
         "isolation.expose_paths[0].target", 4, 42},
        {"source-missing.json",
         "source-missing.json:5:18: isolation.expose_paths[1].source: does not exist: "
         "/nonexistent/cordon-test/missing (mark it \"optional\": true if it may be missing)",
         "isolation.expose_paths[1].source", 5, 18},
        {"source-key-missing.json", "source-key-missing.json:4:7: isolation.expose_paths[0]: \"source\" is required",
         "isolation.expose_paths[0]", 4, 7},
        {"mode-rwx.json", "mode-rwx.json:7:15: isolation.expose_paths[1].mode: must be \"ro\" or \"rw\", got \"rwx\"",
         "isolation.expose_paths[1].mode", 7, 15},
        /* duplicate keys: located at the second occurrence of the key */
        {"duplicate-key-isolation.json", "duplicate-key-isolation.json:5:5: isolation.network: duplicate key",
         "isolation.network", 5, 5},
        {"duplicate-key-nested.json", "duplicate-key-nested.json:6:7: isolation.limits.pids: duplicate key",
         "isolation.limits.pids", 6, 7},
        {"duplicate-section.json", "duplicate-section.json:4:3: isolation: duplicate key", "isolation", 4, 3},
        {"expose-duplicate-field.json",
         "expose-duplicate-field.json:4:40: isolation.expose_paths[0].mode: duplicate key",
         "isolation.expose_paths[0].mode", 4, 40},
        /* limits */
        {"limit-negative.json", "limit-negative.json:3:31: isolation.limits.wall_time_s: must not be negative, got -1",
         "isolation.limits.wall_time_s", 3, 31},
        {"limit-fractional.json", "limit-fractional.json:3:24: isolation.limits.pids: must be a whole number, got 2.5",
         "isolation.limits.pids", 3, 24},
        {"limit-too-large.json",
         "limit-too-large.json:3:32: isolation.limits.memory_bytes: must be at most 9007199254740992, got 1e+30",
         "isolation.limits.memory_bytes", 3, 32},
        {"limit-bad-size.json",
         "limit-bad-size.json:3:32: isolation.limits.memory_bytes: must be a size such as 512M, got \"512Q\"",
         "isolation.limits.memory_bytes", 3, 32},
        /* shell_environment_policy */
        {"pass-name-with-equals.json",
         "pass-name-with-equals.json:3:22: shell_environment_policy.pass[1]: \"GITHUB_TOKEN=ghp_x\" takes a variable "
         "name, whose value comes from cordon's environment (to give a variable a value, use set: --set NAME=VALUE)",
         "shell_environment_policy.pass[1]", 3, 22},
        {"pass-name-glob.json",
         "pass-name-glob.json:3:26: shell_environment_policy.pass[1]: \"AWS_*\" takes exact variable names, not globs "
         "(a secret passes only by its name: list each one, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)",
         "shell_environment_policy.pass[1]", 3, 26},
        {"pass-name-empty.json",
         "pass-name-empty.json:3:14: shell_environment_policy.pass[0]: \"\" must be a variable name, not empty",
         "shell_environment_policy.pass[0]", 3, 14},
        {"pass-name-nul.json",
         "pass-name-nul.json:3:23: invalid JSON: \\u0000 is not allowed without JSON_ALLOW_NUL near '\"A\\u0000B\"'",
         NULL, 3, 23},
        {"pass-string.json",
         "pass-string.json:3:13: shell_environment_policy.pass: must be an array of variable names, got string",
         "shell_environment_policy.pass", 3, 13},
        {"set-name-with-equals.json",
         "set-name-with-equals.json:3:26: shell_environment_policy.set.BAD=NAME: not a valid variable name",
         "shell_environment_policy.set.BAD=NAME", 3, 26},
        {"set-name-empty.json", "set-name-empty.json:3:13: shell_environment_policy.set.: not a valid variable name",
         "shell_environment_policy.set.", 3, 13},
        {"set-value-number.json",
         "set-value-number.json:3:24: shell_environment_policy.set.RETRIES: must be a string, got number",
         "shell_environment_policy.set.RETRIES", 3, 24},
        {"exclude-empty-glob.json",
         "exclude-empty-glob.json:3:26: shell_environment_policy.exclude[1]: must not be empty",
         "shell_environment_policy.exclude[1]", 3, 26},
        {"include-only-empty-glob.json",
         "include-only-empty-glob.json:3:22: shell_environment_policy.include_only[0]: must not be empty",
         "shell_environment_policy.include_only[0]", 3, 22},
        /* other paths */
        {"home-relative.json", "home-relative.json:3:13: isolation.home: must be an absolute path, got \"cordon-home\"",
         "isolation.home", 3, 13},
        {"workspace-dotdot.json",
         "workspace-dotdot.json:3:18: isolation.workspace: must not contain \"..\", got \"/srv/work/../other\"",
         "isolation.workspace", 3, 18},
        /* what the command must never see or write (the same checks as the flags and setters) */
        {"workspace-proc.json",
         "workspace-proc.json:3:18: isolation.workspace: must not be under /proc, /sys or /dev (the host's kernel "
         "interfaces; the sandbox has its own), got \"/proc\"",
         "isolation.workspace", 3, 18},
        {"workspace-system.json",
         "workspace-system.json:3:18: isolation.workspace: must not be a system directory (/etc, /usr, /bin, /sbin, "
         "/lib*, /boot; the sandbox shows them read-only), got \"/etc/app\"",
         "isolation.workspace", 3, 18},
        {"home-root.json", "home-root.json:3:13: isolation.home: must not be \"/\" (the whole host), got \"/\"",
         "isolation.home", 3, 13},
        {"source-proc.json",
         "source-proc.json:4:18: isolation.expose_paths[0].source: must not be under /proc (the host's processes, and "
         "through /proc/PID/root their files; the sandbox has its own), got \"/proc\"",
         "isolation.expose_paths[0].source", 4, 18},
        {"source-rw-kernel.json",
         "source-rw-kernel.json:4:18: isolation.expose_paths[0].source: read-write: must not be under /proc, /sys or "
         "/dev (the host's kernel interfaces; the sandbox has its own), got \"/sys\"",
         "isolation.expose_paths[0].source", 4, 18},
        {"network-allow-url.json",
         "network-allow-url.json:3:23: isolation.network_allow[0]: \"http://example.org\": is a URL, not a host: give "
         "the host name alone (example.org), with :PORT if not 80 or 443",
         "isolation.network_allow[0]", 3, 23},
        {"protect-relative.json",
         "protect-relative.json:3:37: isolation.protect[1]: must be an absolute path, got \".env\"",
         "isolation.protect[1]", 3, 37},
        /* columns count characters, not bytes ("é" is one column) */
        {"utf8-column.json",
         "utf8-column.json:3:46: isolation.network: must be one of \"none\", \"loopback\", \"full\" or \"proxy\", got "
         "\"wifi\"",
         "isolation.network", 3, 46},
        /* not a config at all: no key */
        {"syntax-trailing-comma.json", "syntax-trailing-comma.json:4:3: invalid JSON: string or '}' expected near '}'",
         NULL, 4, 3},
        {"syntax-truncated.json", "syntax-truncated.json:4:1: invalid JSON: '}' expected near end of file", NULL, 4, 1},
        {"top-level-array.json", "top-level-array.json:1:1: the config must be a JSON object", NULL, 1, 1},
};

/* The fields of a config that layers can change, as text, so that "left
 * unchanged" and "merged" can be compared in one go. */
static char *config_dump(const cordon_config *c)
{
        buf b = {0};
        buf_printf(&b, "enabled=%d disabled_by=%s backend=%s network=%s home=%s workspace=%s\n", c->enabled,
                   c->disabled_by ? c->disabled_by : "-", c->backend, network_name(c->network), c->home ? c->home : "-",
                   c->workspace ? c->workspace : "-");
        buf_printf(&b, "auto_expose exe=%s cwd=%s args=%s\n", expose_mode_name(c->auto_expose[0]),
                   expose_mode_name(c->auto_expose[1]), expose_mode_name(c->auto_expose[2]));
        for (size_t i = 0; i < c->n_expose; i++)
                buf_printf(&b, "expose %s -> %s %s\n", c->expose[i].source, c->expose[i].target,
                           c->expose[i].writable ? "rw" : "ro");
        for (size_t i = 0; c->protect && c->protect[i]; i++)
                buf_printf(&b, "protect %s\n", c->protect[i]);
        buf_printf(&b, "limits");
        for (int i = 0; i < CORDON_LIMIT__MAX; i++)
                buf_printf(&b, " %.17g", c->limits[i]);
        buf_printf(&b, "\nlimits_best_effort=%d log_plan=%d landlock=%d\n", c->limits_best_effort, c->log_plan,
                   (int)c->landlock);
        buf_printf(&b, "inherit=%d ignore_default_excludes=%d\n", (int)c->inherit, c->ignore_default_excludes);
        for (size_t i = 0; c->exclude && c->exclude[i]; i++)
                buf_printf(&b, "exclude %s\n", c->exclude[i]);
        for (size_t i = 0; c->include_only && c->include_only[i]; i++)
                buf_printf(&b, "include_only %s\n", c->include_only[i]);
        for (size_t i = 0; i < c->n_set; i++)
                buf_printf(&b, "set %s=%s\n", c->set[i].name, c->set[i].value);
        for (size_t i = 0; c->pass && c->pass[i]; i++)
                buf_printf(&b, "pass %s\n", c->pass[i]);
        return buf_steal(&b);
}

static void test_invalid_fixtures(void)
{
        char here[PATH_MAX];
        CHECK(getcwd(here, sizeof(here)) != NULL);
        if (chdir(INVALID_DIR) < 0) {
                CHECK(!"cannot enter " INVALID_DIR);
                return;
        }
        CHECK(ARRAY_SIZE(INVALID) >= 25);
        for (size_t i = 0; i < ARRAY_SIZE(INVALID); i++) {
                cordon_config *c = cordon_config_new();
                _cleanup_free_ char *before = config_dump(c);
                cordon_error *e = NULL;
                int r = cordon_config_load_file(c, INVALID[i].file, &e);
                CHECK_INTEQ(r, -EINVAL);
                CHECK_STREQ(cordon_error_message(e), INVALID[i].message);
                CHECK_INTEQ(cordon_error_errno(e), EINVAL);
                CHECK_STREQ(cordon_error_file(e), INVALID[i].file);
                CHECK_INTEQ(cordon_error_line(e), INVALID[i].line);
                CHECK_INTEQ(cordon_error_column(e), INVALID[i].column);
                if (INVALID[i].key)
                        CHECK_STREQ(cordon_error_key(e), INVALID[i].key);
                else
                        CHECK(cordon_error_key(e) == NULL);
                CHECK_INTEQ(cordon_error_exit_status(e), 125);
                _cleanup_free_ char *after = config_dump(c);
                CHECK_STREQ(after, before);
                cordon_error_free(e);

                /* the same text through cordon_config_load_string, same message */
                _cleanup_free_ char *text = tap_read_file(INVALID[i].file);
                CHECK(text != NULL);
                e = NULL;
                r = text ? cordon_config_load_string(c, text, INVALID[i].file, &e) : -1;
                CHECK_INTEQ(r, -EINVAL);
                CHECK_STREQ(cordon_error_message(e), INVALID[i].message);
                cordon_error_free(e);

                /* without an error object: the same return code */
                CHECK_INTEQ(cordon_config_load_file(c, INVALID[i].file, NULL), -EINVAL);
                cordon_config_free(c);
        }
        CHECK(chdir(here) == 0);
}

/* Every file in the fixture directory has a row, and every row a file. */
static void test_invalid_fixtures_complete(void)
{
        _cleanup_free_ char *cmd = xasprintf("ls %s", INVALID_DIR);
        FILE *p = popen(cmd, "re");
        CHECK(p != NULL);
        char line[256];
        size_t files = 0;
        while (p && fgets(line, sizeof(line), p)) {
                line[strcspn(line, "\n")] = '\0';
                bool found = false;
                for (size_t i = 0; i < ARRAY_SIZE(INVALID); i++)
                        found = found || streq(INVALID[i].file, line);
                if (!found)
                        printf("# %s has no expected message\n", line);
                CHECK(found);
                files++;
        }
        if (p)
                pclose(p);
        CHECK_INTEQ(files, ARRAY_SIZE(INVALID));
}

/* The file name appears as given, with its directories. */
static void test_error_names_file_as_given(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        const char *path = INVALID_DIR "/../invalid/mode-rwx.json";
        CHECK_INTEQ(cordon_config_load_file(c, path, &e), -EINVAL);
        _cleanup_free_ char *want =
                xasprintf("%s:7:15: isolation.expose_paths[1].mode: must be \"ro\" or \"rw\", got \"rwx\"", path);
        CHECK_STREQ(cordon_error_message(e), want);
        CHECK_STREQ(cordon_error_file(e), path);
        cordon_error_free(e);
        cordon_config_free(c);
}

static void test_load_file_errors(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_load_file(c, "/nonexistent/cordon.json", &e), -ENOENT);
        CHECK_STREQ(cordon_error_message(e), "/nonexistent/cordon.json: cannot read config: No such file or directory");
        CHECK_INTEQ(cordon_error_errno(e), ENOENT);
        CHECK(cordon_error_file(e) == NULL);
        CHECK_INTEQ(cordon_error_line(e), 0);
        e = cordon_error_free(e);

        char tmpl[] = "/tmp/cordon-test-config.XXXXXX";
        int fd = mkstemp(tmpl);
        CHECK(fd >= 0);
        CHECK(write(fd, "{\"isolation\": {}}\0{}", 20) == 20);
        close(fd);
        CHECK_INTEQ(cordon_config_load_file(c, tmpl, &e), -EINVAL);
        _cleanup_free_ char *want = xasprintf("%s: contains a NUL byte", tmpl);
        CHECK_STREQ(cordon_error_message(e), want);
        e = cordon_error_free(e);
        unlink(tmpl);

        /* a directory is not a config */
        CHECK(cordon_config_load_file(c, "/", &e) < 0);
        CHECK(e != NULL && strstr(cordon_error_message(e), "/: cannot read config: ") == cordon_error_message(e));
        cordon_error_free(e);
        cordon_config_free(c);
}

static void test_load_string(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"network\": \"loopback\"}}", NULL, &e), 0);
        CHECK(e == NULL);
        CHECK_INTEQ(c->network, CORDON_NETWORK_LOOPBACK);

        /* NULL name: "<string>" */
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"network\": 1}}", NULL, &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "<string>:1:27: isolation.network: must be a string, got number");
        CHECK_STREQ(cordon_error_file(e), "<string>");
        e = cordon_error_free(e);

        CHECK_INTEQ(cordon_config_load_string(c, "", "empty", &e), -EINVAL);
        CHECK(e && strncmp(cordon_error_message(e), "empty:1:", 8) == 0);
        CHECK(e && strstr(cordon_error_message(e), "invalid JSON: ") != NULL);
        e = cordon_error_free(e);

        CHECK_INTEQ(cordon_config_load_string(c, "\"isolation\"", "str", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "str:1:11: invalid JSON: '[' or '{' expected near '\"isolation\"'");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_load_string(c, "[]", "arr", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "arr:1:1: the config must be a JSON object");
        e = cordon_error_free(e);

        /* an empty object and empty sections change nothing */
        _cleanup_free_ char *before = config_dump(c);
        CHECK_INTEQ(cordon_config_load_string(c, "{}", "x", &e), 0);
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {}, \"shell_environment_policy\": {}}", "x", &e), 0);
        _cleanup_free_ char *after = config_dump(c);
        CHECK_STREQ(after, before);
        CHECK(e == NULL);
        cordon_config_free(c);
}

/* Only "isolation" and "shell_environment_policy" are read: an agent's whole
 * config can be passed, even with its own odd keys and duplicates. */
static void test_other_top_level_keys_ignored(void)
{
        static const char *const json =
                "{\n"
                "  \"model\": \"gpt-5\",\n"
                "  \"model\": \"a duplicate outside the sections\",\n"
                "  \"mcp_servers\": {\"fs\": {\"isolation\": \"not ours\", \"x\": 1, \"x\": 2}},\n"
                "  \"sandbox\": [1, 2, {\"enabled\": \"no\"}],\n"
                "  \"isolation\": {\"network\": \"full\"},\n"
                "  \"shell_environment_policy\": {\"inherit\": \"none\"},\n"
                "  \"isolation_extra\": {\"unknown\": true}\n"
                "}\n";
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_load_string(c, json, "agent.json", &e), 0);
        if (e)
                printf("# %s\n", cordon_error_message(e));
        CHECK(e == NULL);
        CHECK_INTEQ(c->network, CORDON_NETWORK_FULL);
        CHECK_INTEQ(c->inherit, CORDON_INHERIT_NONE);
        CHECK(c->enabled);
        cordon_error_free(e);
        cordon_config_free(c);
}

static void test_defaults(void)
{
        cordon_config *c = cordon_config_new();
        CHECK(c->enabled);
        CHECK(c->disabled_by == NULL);
        CHECK_STREQ(c->backend, "auto");
        CHECK_INTEQ(c->network, CORDON_NETWORK_NONE);
        CHECK_INTEQ(c->auto_expose[CORDON_AUTO_EXPOSE_EXE], CORDON_EXPOSE_RO);
        CHECK_INTEQ(c->auto_expose[CORDON_AUTO_EXPOSE_CWD], CORDON_EXPOSE_RO);
        CHECK_INTEQ(c->auto_expose[CORDON_AUTO_EXPOSE_ARGS], CORDON_EXPOSE_OFF);
        CHECK_INTEQ(c->n_expose, 0);
        for (int i = 0; i < CORDON_LIMIT__MAX; i++)
                CHECK(c->limits[i] == (i == CORDON_LIMIT_KILL_AFTER_S ? 2 : 0));
        CHECK_INTEQ(c->landlock, LANDLOCK_BEST_EFFORT);
        CHECK_INTEQ(c->inherit, CORDON_INHERIT_CORE);
        CHECK(!c->ignore_default_excludes);
        CHECK(c->exclude == NULL && c->include_only == NULL && c->n_set == 0);
        cordon_config_free(c);
}

/* A layer that fails half-way leaves no trace, even of the keys before the
 * bad one. */
static void test_failing_layer_leaves_config_unchanged(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_load_file(c, LAYERS_DIR "/1-base.json", &e), 0);
        _cleanup_free_ char *before = config_dump(c);
        static const char *const bad =
                "{\"isolation\": {\"enabled\": false, \"network\": \"full\", \"home\": \"/srv/h\",\n"
                " \"expose_paths\": [{\"source\": \"/var/cache\", \"target\": \"/opt/share\", \"mode\": \"rw\"},\n"
                "                  {\"source\": \"/usr\", \"mode\": \"rwx\"}],\n"
                " \"limits\": {\"pids\": 1}},\n"
                " \"shell_environment_policy\": {\"set\": {\"A\": \"changed\", \"Z\": \"new\"}, \"exclude\": []}}\n";
        CHECK_INTEQ(cordon_config_load_string(c, bad, "bad.json", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "bad.json:3:46: isolation.expose_paths[1].mode: must be \"ro\" or "
                                             "\"rw\", got \"rwx\"");
        e = cordon_error_free(e);
        _cleanup_free_ char *after = config_dump(c);
        CHECK_STREQ(after, before);

        /* the same for an error in the second section, after the first applied */
        CHECK_INTEQ(cordon_config_load_string(c,
                                              "{\"isolation\": {\"network\": \"full\"}, \"shell_environment_policy\": "
                                              "{\"inherit\": \"everything\"}}",
                                              "bad2.json", &e),
                    -EINVAL);
        cordon_error_free(e);
        _cleanup_free_ char *after2 = config_dump(c);
        CHECK_STREQ(after2, before);
        cordon_config_free(c);
}

static void test_layering_three_files(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_load_file(c, LAYERS_DIR "/1-base.json", &e), 0);
        CHECK_INTEQ(cordon_config_load_file(c, LAYERS_DIR "/2-team.json", &e), 0);
        CHECK_INTEQ(cordon_config_load_file(c, LAYERS_DIR "/3-user.json", &e), 0);
        CHECK(e == NULL);
        _cleanup_free_ char *got = config_dump(c);
        /* enabled=false from file 2 at its value; backend (1) kept; network
         * from 3; auto_expose merged key by key (exe, cwd from 1, args from
         * 2); /opt/share replaced in place by 2, /usr/lib by 3, /usr/bin
         * added by 2; protect replaced by 2; limits merged (pids from 2,
         * memory from 1, wall time from 3); exclude replaced by 2;
         * include_only emptied by 3; set merged key by key. */
        _cleanup_free_ char *want =
                xasprintf("enabled=0 disabled_by=%s/2-team.json:3:16 backend=linux network=full home=- workspace=-\n"
                          "auto_expose exe=ro cwd=rw args=ro\n"
                          "expose /var/cache -> /opt/share rw\n"
                          "expose /var/lib -> /usr/lib rw\n"
                          "expose /usr/bin -> /usr/bin ro\n"
                          "protect /srv/b\n"
                          "protect /srv/c\n"
                          "limits 1.5 0 536870912 128 0 0 0 0 2\n"
                          "limits_best_effort=0 log_plan=1 landlock=0\n"
                          "inherit=1 ignore_default_excludes=1\n"
                          "exclude GH_*\n"
                          "set A=1\n"
                          "set B=2\n"
                          "set C=2\n",
                          LAYERS_DIR);
        CHECK_STREQ(got, want);
        CHECK(c->include_only != NULL && c->include_only[0] == NULL);

        /* a later layer that enables isolation again forgets who disabled it */
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"enabled\": true}}", "4.json", &e), 0);
        CHECK(c->enabled);
        CHECK(c->disabled_by == NULL);
        /* and one that disables it names itself */
        CHECK_INTEQ(cordon_config_load_string(c, "{\n\n  \"isolation\": {\"enabled\":false}}", "5.json", &e), 0);
        CHECK_STREQ(c->disabled_by, "5.json:3:27");
        /* the command line as the last layer */
        CHECK_INTEQ(cordon_config_set_enabled(c, true), 0);
        CHECK(c->disabled_by == NULL);
        CHECK_INTEQ(cordon_config_set_enabled(c, false), 0);
        CHECK_STREQ(c->disabled_by, "command line");
        cordon_error_free(e);
        cordon_config_free(c);
}

/* Within one layer a later expose rule for the same target replaces the
 * earlier one; target defaults to source and both are normalised. */
static void test_expose_merge_in_one_layer(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        static const char *const json = "{\"isolation\": {\"expose_paths\": [\n"
                                        "  {\"source\": \"/usr//share/\", \"target\": \"/opt/x/\"},\n"
                                        "  {\"source\": \"/usr/lib\", \"target\": null},\n"
                                        "  {\"source\": \"/var/./cache\", \"target\": \"/opt/x\", \"mode\": \"rw\"}\n"
                                        "]}}";
        CHECK_INTEQ(cordon_config_load_string(c, json, "m.json", &e), 0);
        CHECK(e == NULL);
        CHECK_INTEQ(c->n_expose, 2);
        if (c->n_expose == 2) {
                CHECK_STREQ(c->expose[0].source, "/var/cache");
                CHECK_STREQ(c->expose[0].target, "/opt/x");
                CHECK(c->expose[0].writable);
                CHECK_STREQ(c->expose[1].source, "/usr/lib");
                CHECK_STREQ(c->expose[1].target, "/usr/lib");
                CHECK(!c->expose[1].writable);
        }
        cordon_error_free(e);
        cordon_config_free(c);
}

static void test_limits_json(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        static const char *const json =
                "{\"isolation\": {\"limits\": {\"wall_time_s\": 2.5, \"cpu_time_s\": 3, \"memory_bytes\": \"1G\",\n"
                " \"pids\": 100, \"open_files\": 64, \"file_size_bytes\": 1048576, \"tmp_size_bytes\": \"64M\",\n"
                " \"cpu_quota\": 1.5, \"kill_after_s\": 0.5}, \"limits_best_effort\": true}}";
        CHECK_INTEQ(cordon_config_load_string(c, json, "l.json", &e), 0);
        CHECK(e == NULL);
        CHECK(c->limits[CORDON_LIMIT_WALL_TIME_S] == 2.5);
        CHECK(c->limits[CORDON_LIMIT_CPU_TIME_S] == 3);
        CHECK(c->limits[CORDON_LIMIT_MEMORY_BYTES] == 1073741824.0);
        CHECK(c->limits[CORDON_LIMIT_PIDS] == 100);
        CHECK(c->limits[CORDON_LIMIT_OPEN_FILES] == 64);
        CHECK(c->limits[CORDON_LIMIT_FILE_SIZE_BYTES] == 1048576);
        CHECK(c->limits[CORDON_LIMIT_TMP_SIZE_BYTES] == 67108864.0);
        CHECK(c->limits[CORDON_LIMIT_CPU_QUOTA] == 1.5);
        CHECK(c->limits[CORDON_LIMIT_KILL_AFTER_S] == 0.5);
        CHECK(c->limits_best_effort);
        /* sizes as strings only where the limit is a size */
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"limits\": {\"pids\": \"10\"}}}", "p.json", &e),
                    -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "p.json:1:35: isolation.limits.pids: must be a number, got string");
        e = cordon_error_free(e);
        CHECK_INTEQ(
                cordon_config_load_string(c, "{\"isolation\": {\"limits\": {\"memory_bytes\": null}}}", "m.json", &e),
                -EINVAL);
        CHECK_STREQ(cordon_error_message(e),
                    "m.json:1:43: isolation.limits.memory_bytes: must be a number or a size string, got null");
        e = cordon_error_free(e);
        /* fractions where they make sense, not in byte counts */
        CHECK_INTEQ(
                cordon_config_load_string(c, "{\"isolation\": {\"limits\": {\"memory_bytes\": 0.5}}}", "f.json", &e),
                -EINVAL);
        CHECK_STREQ(cordon_error_message(e),
                    "f.json:1:43: isolation.limits.memory_bytes: must be a whole number, got 0.5");
        cordon_error_free(e);
        cordon_config_free(c);
}

static void test_setters_expose_spec(void)
{
        static const struct {
                const char *spec, *source, *target;
                bool writable;
        } OK[] = {
                {"/usr/share", "/usr/share", "/usr/share", false},
                {"/var/tmp:rw", "/var/tmp", "/var/tmp", true},
                {"/usr/share:ro", "/usr/share", "/usr/share", false},
                {"/usr/share:/opt/share", "/usr/share", "/opt/share", false},
                {"/var/tmp:/opt/share:rw", "/var/tmp", "/opt/share", true},
                {"/usr//share/:/opt/./s/", "/usr/share", "/opt/s", false},
        };
        for (size_t i = 0; i < ARRAY_SIZE(OK); i++) {
                cordon_config *c = cordon_config_new();
                cordon_error *e = NULL;
                CHECK_INTEQ(cordon_config_add_expose_spec(c, OK[i].spec, &e), 0);
                CHECK(e == NULL);
                CHECK_INTEQ(c->n_expose, 1);
                if (c->n_expose == 1) {
                        CHECK_STREQ(c->expose[0].source, OK[i].source);
                        CHECK_STREQ(c->expose[0].target, OK[i].target);
                        CHECK(c->expose[0].writable == OK[i].writable);
                }
                cordon_error_free(e);
                cordon_config_free(c);
        }
        static const struct {
                const char *spec, *message;
                int err;
        } BAD[] = {
                {"/usr/share:rwx",
                 "isolation.expose_paths \"/usr/share:rwx\": mode must be \"ro\" or \"rw\", got \"rwx\"", EINVAL},
                {"/usr/share:", "isolation.expose_paths \"/usr/share:\": mode must be \"ro\" or \"rw\", got \"\"",
                 EINVAL},
                {"usr/share",
                 "isolation.expose_paths \"usr/share\": source must be an absolute path (or start with ~/), got "
                 "\"usr/share\"",
                 EINVAL},
                {"/usr/../etc",
                 "isolation.expose_paths \"/usr/../etc\": source must not contain \"..\", got \"/usr/../etc\"", EINVAL},
                {"/usr/share:/", "isolation.expose_paths \"/usr/share:/\": target must not be \"/\", got \"/\"",
                 EINVAL},
                {"/usr/share:opt:rw",
                 "isolation.expose_paths \"/usr/share:opt:rw\": target must be an absolute path (or start with ~/ or "
                 "$NAME/), got \"opt\"",
                 EINVAL},
                {"/usr/share:/proc/x",
                 "isolation.expose_paths \"/usr/share:/proc/x\": target must not be under /proc (the sandbox has "
                 "its own), got \"/proc/x\"",
                 EINVAL},
                {"/usr/share:/a/../b",
                 "isolation.expose_paths \"/usr/share:/a/../b\": target must not contain \"..\", got \"/a/../b\"",
                 EINVAL},
                {"/nonexistent/cordon",
                 "isolation.expose_paths \"/nonexistent/cordon\": source does not exist: /nonexistent/cordon", ENOENT},
                {"/nonexistent/cordon:/x:rw",
                 "isolation.expose_paths \"/nonexistent/cordon:/x:rw\": source does not exist: /nonexistent/cordon",
                 ENOENT},
        };
        for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
                cordon_config *c = cordon_config_new();
                cordon_error *e = NULL;
                CHECK_INTEQ(cordon_config_add_expose_spec(c, BAD[i].spec, &e), -BAD[i].err);
                CHECK_STREQ(cordon_error_message(e), BAD[i].message);
                CHECK_INTEQ(cordon_error_errno(e), BAD[i].err);
                CHECK(cordon_error_file(e) == NULL);
                CHECK_INTEQ(c->n_expose, 0);
                cordon_error_free(e);
                cordon_config_free(c);
        }
}

/* Paths with colons and backslashes: "\:" and "\\" in a spec. The
 * directories are made in a scratch directory (the source must exist). */
static void test_setters_expose_spec_escapes(void)
{
        char dir[] = "/tmp/cordon-test-config.XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        static const char *const NAMES[] = {"x:rw", "b\\", "c\\d", "p:q:r"};
        for (size_t i = 0; i < ARRAY_SIZE(NAMES); i++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", dir, NAMES[i]);
                CHECK(p && mkdir(p, 0755) == 0);
        }
        static const struct {
                const char *spec, *source, *target; /* after "DIR/" ("/" alone: DIR itself) */
                bool writable;
        } OK[] = {
                {"x\\:rw", "x:rw", NULL, false},
                {"x\\:rw:ro", "x:rw", NULL, false},
                {"x\\:rw:rw", "x:rw", NULL, true},
                {"x\\:rw:/opt/x\\:y:rw", "x:rw", "/opt/x:y", true},
                {"p\\:q\\:r", "p:q:r", NULL, false},
                {"b\\\\", "b\\", NULL, false},        /* "\\" is one backslash */
                {"b\\\\:rw", "b\\", NULL, true},      /* ... so the colon after it separates */
                {"c\\d", "c\\d", NULL, false},          /* any other backslash is itself */
                {"x\\:rw:/t:/u", "x:rw", "/t:/u", false}, /* colons in a target, as before escapes */
        };
        for (size_t i = 0; i < ARRAY_SIZE(OK); i++) {
                _cleanup_free_ char *spec = xasprintf("%s/%s", dir, OK[i].spec);
                _cleanup_free_ char *source = xasprintf("%s/%s", dir, OK[i].source);
                cordon_config *c = cordon_config_new();
                cordon_error *e = NULL;
                int r = cordon_config_add_expose_spec(c, spec, &e);
                if (r < 0)
                        printf("# %s: %s\n", spec, cordon_error_message(e));
                CHECK_INTEQ(r, 0);
                CHECK_INTEQ(c->n_expose, 1);
                if (c->n_expose == 1) {
                        CHECK_STREQ(c->expose[0].source, source);
                        CHECK_STREQ(c->expose[0].target, OK[i].target ? OK[i].target : source);
                        CHECK(c->expose[0].writable == OK[i].writable);
                }
                cordon_error_free(e);
                cordon_config_free(c);
        }
        /* control: unescaped, the colon separates (DIR/x does not exist) */
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        _cleanup_free_ char *spec = xasprintf("%s/x:rw", dir);
        _cleanup_free_ char *want = xasprintf("isolation.expose_paths \"%s\": source does not exist: %s/x", spec, dir);
        CHECK_INTEQ(cordon_config_add_expose_spec(c, spec, &e), -ENOENT);
        CHECK_STREQ(cordon_error_message(e), want);
        e = cordon_error_free(e);
        /* a mode is still checked after an escaped colon */
        _cleanup_free_ char *bad = xasprintf("%s/x\\:rw:rwx", dir);
        _cleanup_free_ char *bad_want =
                xasprintf("isolation.expose_paths \"%s\": mode must be \"ro\" or \"rw\", got \"rwx\"", bad);
        CHECK_INTEQ(cordon_config_add_expose_spec(c, bad, &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), bad_want);
        e = cordon_error_free(e);
        /* cordon_config_add_expose (--expose-ro/--expose-rw) takes the path whole */
        _cleanup_free_ char *whole = xasprintf("%s/x:rw", dir);
        CHECK_INTEQ(cordon_config_add_expose(c, whole, NULL, false, &e), 0);
        CHECK(c->n_expose == 1 && streq(c->expose[0].source, whole) && streq(c->expose[0].target, whole) &&
              !c->expose[0].writable);
        cordon_error_free(e);
        cordon_config_free(c);
        for (size_t i = 0; i < ARRAY_SIZE(NAMES); i++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", dir, NAMES[i]);
                CHECK(p && rmdir(p) == 0);
        }
        CHECK(rmdir(dir) == 0);
}

static void test_setters_expose(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_add_expose(c, "/usr/share", NULL, false, &e), 0);
        CHECK_INTEQ(cordon_config_add_expose(c, "/var/lib", "/usr/share", true, &e), 0); /* same target: replaces */
        CHECK_INTEQ(c->n_expose, 1);
        CHECK(c->n_expose == 1 && streq(c->expose[0].source, "/var/lib") && c->expose[0].writable);
        CHECK_INTEQ(cordon_config_add_expose(c, NULL, "/x", false, &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "isolation.expose_paths \"\": a source is required");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_add_expose(c, "/nonexistent/x", NULL, false, &e), -ENOENT);
        CHECK_STREQ(cordon_error_message(e),
                    "isolation.expose_paths \"/nonexistent/x\": source does not exist: /nonexistent/x");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_add_expose(c, "/usr/share", "/proc", false, &e), -EINVAL);
        CHECK_STREQ(
                cordon_error_message(e),
                "isolation.expose_paths \"/usr/share\": target must not be under /proc (the sandbox has its own), got "
                "\"/proc\"");
        e = cordon_error_free(e);
        /* "/procfs" is not under /proc */
        CHECK_INTEQ(cordon_config_add_expose(c, "/usr/share", "/procfs", false, &e), 0);
        CHECK_INTEQ(c->n_expose, 2);
        cordon_error_free(e);
        cordon_config_free(c);
}

/* The setters refuse what the config keys refuse, with the same reason,
 * named by the caller's origin (a flag as typed) or by KEY "VALUE". */
static void test_setters_same_checks(void)
{
        static const struct {
                int (*set)(cordon_config *, const char *, cordon_error **);
                const char *value, *origin, *message;
        } BAD[] = {
                {cordon_config_set_workspace, "/proc", NULL,
                 "isolation.workspace \"/proc\": must not be under /proc, /sys or /dev (the host's kernel interfaces; "
                 "the sandbox has its own)"},
                {cordon_config_set_workspace, "/sys/x", "--workspace /sys/x",
                 "--workspace /sys/x: must not be under /proc, /sys or /dev (the host's kernel interfaces; the sandbox "
                 "has its own)"},
                {cordon_config_set_workspace, "/", "--workspace /",
                 "--workspace /: must not be \"/\" (the whole host)"},
                {cordon_config_set_home, "/usr/x", "--home /usr/x",
                 "--home /usr/x: must not be a system directory (/etc, /usr, /bin, /sbin, /lib*, /boot; the sandbox "
                 "shows them read-only)"},
                {cordon_config_add_expose_spec, "/proc:/x", "--expose /proc:/x",
                 "--expose /proc:/x: source must not be under /proc (the host's processes, and through /proc/PID/root "
                 "their files; the sandbox has its own), got \"/proc\""},
                {cordon_config_add_expose_spec, "/dev:/x:rw", NULL,
                 "isolation.expose_paths \"/dev:/x:rw\": read-write source must not be under /proc, /sys or /dev (the "
                 "host's kernel interfaces; the sandbox has its own), got \"/dev\""},
                {cordon_config_add_expose_spec, "/etc:rw", "--expose /etc:rw",
                 "--expose /etc:rw: read-write source must not be a system directory (/etc, /usr, /bin, /sbin, /lib*, "
                 "/boot; the sandbox shows them read-only), got \"/etc\""},
                {cordon_config_add_network_allow, "http://example.org", "--allow-net http://example.org",
                 "--allow-net http://example.org: is a URL, not a host: give the host name alone (example.org), with "
                 ":PORT if not 80 or 443"},
                {cordon_config_set_network_name, "wifi", "--network wifi",
                 "--network wifi: must be one of \"none\", \"loopback\", \"full\" or \"proxy\""},
        };
        for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
                cordon_config *c = cordon_config_new();
                cordon_error *e = NULL;
                _cleanup_free_ char *before = config_dump(c);
                CHECK_INTEQ(cordon_config_set_origin(c, BAD[i].origin), 0);
                CHECK_INTEQ(BAD[i].set(c, BAD[i].value, &e), -EINVAL);
                CHECK_STREQ(cordon_error_message(e), BAD[i].message);
                _cleanup_free_ char *after = config_dump(c);
                CHECK_STREQ(after, before);
                cordon_error_free(e);
                cordon_config_free(c);
        }
        /* "~/x" and "$HOME/x" as in expose_paths: looked for when planning */
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_add_expose_spec(c, "~/x:$HOME/x", &e), 0);
        CHECK(c->n_expose == 1 && streq(c->expose[0].source, "~/x") && streq(c->expose[0].target, "$HOME/x"));
        CHECK(e == NULL);
        cordon_config_free(c);
}

static void test_setters_limits(void)
{
        static const struct {
                cordon_limit which;
                const char *text;
                double value;
        } OK[] = {
                {CORDON_LIMIT_MEMORY_BYTES, "512M", 536870912.0},
                {CORDON_LIMIT_MEMORY_BYTES, "2G", 2147483648.0},
                {CORDON_LIMIT_MEMORY_BYTES, "1024", 1024},
                {CORDON_LIMIT_FILE_SIZE_BYTES, "1.5K", 1536},
                {CORDON_LIMIT_TMP_SIZE_BYTES, "64MiB", 67108864.0},
                {CORDON_LIMIT_WALL_TIME_S, "1.5", 1.5},
                {CORDON_LIMIT_WALL_TIME_S, "0", 0},
                {CORDON_LIMIT_CPU_QUOTA, "0.5", 0.5},
                {CORDON_LIMIT_KILL_AFTER_S, "10", 10},
                {CORDON_LIMIT_PIDS, "64", 64},
                {CORDON_LIMIT_OPEN_FILES, "1024", 1024},
                {CORDON_LIMIT_CPU_TIME_S, "30", 30},
        };
        for (size_t i = 0; i < ARRAY_SIZE(OK); i++) {
                cordon_config *c = cordon_config_new();
                cordon_error *e = NULL;
                CHECK_INTEQ(cordon_config_set_limit_text(c, OK[i].which, OK[i].text, &e), 0);
                CHECK(e == NULL);
                if (c->limits[OK[i].which] != OK[i].value)
                        printf("# %s: got %g, want %g\n", OK[i].text, c->limits[OK[i].which], OK[i].value);
                CHECK(c->limits[OK[i].which] == OK[i].value);
                cordon_error_free(e);
                cordon_config_free(c);
        }
        static const struct {
                cordon_limit which;
                const char *text, *message;
        } BAD[] = {
                {CORDON_LIMIT_MEMORY_BYTES, "512Q",
                 "isolation.limits.memory_bytes \"512Q\": must be a size such as 512M"},
                {CORDON_LIMIT_MEMORY_BYTES, "-1", "isolation.limits.memory_bytes \"-1\": must be a size such as 512M"},
                {CORDON_LIMIT_MEMORY_BYTES, "", "isolation.limits.memory_bytes \"\": must be a size such as 512M"},
                {CORDON_LIMIT_WALL_TIME_S, "-1", "isolation.limits.wall_time_s \"-1\": must be a non-negative number"},
                {CORDON_LIMIT_WALL_TIME_S, "1m", "isolation.limits.wall_time_s \"1m\": must be a non-negative number"},
                {CORDON_LIMIT_WALL_TIME_S, "nan",
                 "isolation.limits.wall_time_s \"nan\": must be a non-negative number"},
                {CORDON_LIMIT_PIDS, "2.5", "isolation.limits.pids \"2.5\": must be a non-negative whole number"},
                {CORDON_LIMIT_PIDS, "ten", "isolation.limits.pids \"ten\": must be a non-negative whole number"},
                {CORDON_LIMIT_OPEN_FILES, "-5",
                 "isolation.limits.open_files \"-5\": must be a non-negative whole number"},
                {CORDON_LIMIT_CPU_QUOTA, "x", "isolation.limits.cpu_quota \"x\": must be a non-negative number"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
                cordon_config *c = cordon_config_new();
                cordon_error *e = NULL;
                CHECK_INTEQ(cordon_config_set_limit_text(c, BAD[i].which, BAD[i].text, &e), -EINVAL);
                CHECK_STREQ(cordon_error_message(e), BAD[i].message);
                CHECK(c->limits[BAD[i].which] == (BAD[i].which == CORDON_LIMIT_KILL_AFTER_S ? 2 : 0));
                cordon_error_free(e);
                cordon_config_free(c);
        }
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_set_limit(c, CORDON_LIMIT_CPU_TIME_S, 1.5, &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "isolation.limits.cpu_time_s \"1.5\": must be a whole number");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_set_limit(c, CORDON_LIMIT_PIDS, -1, &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "isolation.limits.pids \"-1\": must not be negative");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_set_limit(c, CORDON_LIMIT__MAX, 1, &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "unknown limit 9");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_set_limit(c, CORDON_LIMIT_WALL_TIME_S, 0.25, &e), 0);
        CHECK(c->limits[CORDON_LIMIT_WALL_TIME_S] == 0.25);
        cordon_error_free(e);
        cordon_config_free(c);
}

/* network_allow: merged across layers (canonical, once each), the mode it
 * selects, and the setter's comma lists; a failing setter changes nothing. */
static void test_network_allow(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(config_effective_network(c), CORDON_NETWORK_NONE);
        CHECK_INTEQ(cordon_config_load_string(
                            c, "{\"isolation\": {\"network_allow\": [\"Registry.NPMjs.org.\", \"10.1.0.0/16:5432\"]}}",
                            "a.json", &e),
                    0);
        CHECK_INTEQ(cordon_config_load_string(
                            c, "{\"isolation\": {\"network_allow\": [\"registry.npmjs.org\", \"[2001:db8::1]:8443\"]}}",
                            "b.json", &e),
                    0);
        CHECK_INTEQ(strv_len(c->network_allow), 3);
        CHECK_STREQ(c->network_allow[0], "registry.npmjs.org");
        CHECK_STREQ(c->network_allow[1], "10.1.0.0/16:5432");
        CHECK_STREQ(c->network_allow[2], "[2001:db8::1]:8443");
        CHECK_INTEQ(config_effective_network(c), CORDON_NETWORK_PROXY);
        /* the setters are a later layer than the files: a network set there
         * wins over the files' allowlist, which it drops */
        CHECK_INTEQ(cordon_config_set_network(c, CORDON_NETWORK_LOOPBACK), 0);
        CHECK_INTEQ(config_effective_network(c), CORDON_NETWORK_LOOPBACK);
        CHECK_INTEQ(strv_len(c->network_allow), 0);
        CHECK_INTEQ(cordon_config_set_network(c, CORDON_NETWORK_FULL), 0);
        CHECK_INTEQ(config_effective_network(c), CORDON_NETWORK_FULL);

        /* ... within one layer (these setters) both stay, for the planner's conflict */
        CHECK_INTEQ(cordon_config_add_network_allow(c, "*.crates.io:443,192.0.2.7", &e), 0);
        CHECK_INTEQ(strv_len(c->network_allow), 2);
        CHECK_STREQ(c->network_allow[0], "*.crates.io:443");
        CHECK_STREQ(c->network_allow[1], "192.0.2.7");
        CHECK_INTEQ(c->network, CORDON_NETWORK_FULL);
        CHECK_INTEQ(cordon_config_add_network_allow(c, "ok.org,bad host", &e), -EINVAL);
        CHECK_STREQ(
                cordon_error_message(e),
                "isolation.network_allow \"ok.org,bad host\": \"bad host\": not a valid host name, IP address or CIDR");
        e = cordon_error_free(e);
        CHECK_INTEQ(strv_len(c->network_allow), 2);
        CHECK_INTEQ(c->network, CORDON_NETWORK_FULL); /* a failing setter changes nothing */
        CHECK_INTEQ(cordon_config_add_network_allow(c, "", &e), -EINVAL);
        e = cordon_error_free(e);
        /* a bad layer adds nothing either */
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"network_allow\": [\"x.org\", 3]}}", NULL, &e),
                    -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "<string>:1:43: isolation.network_allow[1]: must be a string, got number");
        e = cordon_error_free(e);
        CHECK_INTEQ(strv_len(c->network_allow), 2);

        CHECK_INTEQ(cordon_config_set_network_name(c, "proxy", &e), 0);
        CHECK_INTEQ(c->network, CORDON_NETWORK_PROXY);
        cordon_config_free(c);
        c = cordon_config_new();
        CHECK_INTEQ(cordon_config_set_network_name(c, "proxy", &e), 0);
        CHECK_INTEQ(config_effective_network(c), CORDON_NETWORK_PROXY); /* an empty list: nothing allowed */
        cordon_config_free(c);
}

static void test_setters_enums(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_set_network_name(c, "loopback", &e), 0);
        CHECK_INTEQ(c->network, CORDON_NETWORK_LOOPBACK);
        CHECK_INTEQ(cordon_config_set_network_name(c, "host", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e),
                    "isolation.network \"host\": must be one of \"none\", \"loopback\", \"full\" or \"proxy\"");
        e = cordon_error_free(e);
        CHECK_INTEQ(c->network, CORDON_NETWORK_LOOPBACK);
        CHECK_INTEQ(cordon_config_set_network(c, (cordon_network)7), -EINVAL);

        CHECK_INTEQ(cordon_config_set_backend(c, "landlock", &e), 0);
        CHECK_STREQ(c->backend, "landlock");
        CHECK_INTEQ(cordon_config_set_backend(c, "docker", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "isolation.backend \"docker\": must be one of \"auto\", \"linux\", "
                                             "\"landlock\", \"seatbelt\" or \"windows\"");
        e = cordon_error_free(e);
        CHECK_STREQ(c->backend, "landlock");

        CHECK_INTEQ(cordon_config_set_inherit_name(c, "all", &e), 0);
        CHECK_INTEQ(c->inherit, CORDON_INHERIT_ALL);
        CHECK_INTEQ(cordon_config_set_inherit_name(c, "most", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e),
                    "shell_environment_policy.inherit \"most\": must be one of \"core\", \"all\" or \"none\"");
        e = cordon_error_free(e);

        CHECK_INTEQ(cordon_config_set_landlock(c, "required", &e), 0);
        CHECK_INTEQ(c->landlock, LANDLOCK_REQUIRED);
        CHECK_INTEQ(cordon_config_set_landlock(c, "yes", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e),
                    "isolation.landlock \"yes\": must be one of \"best_effort\", \"required\" or \"off\"");
        e = cordon_error_free(e);

        CHECK_INTEQ(cordon_config_set_auto_expose(c, CORDON_AUTO_EXPOSE_ARGS, CORDON_EXPOSE_RW), 0);
        CHECK_INTEQ(c->auto_expose[CORDON_AUTO_EXPOSE_ARGS], CORDON_EXPOSE_RW);
        CHECK_INTEQ(cordon_config_set_auto_expose(c, (cordon_auto_expose)3, CORDON_EXPOSE_RW), -EINVAL);
        CHECK_INTEQ(cordon_config_set_auto_expose(c, CORDON_AUTO_EXPOSE_EXE, (cordon_expose_mode)3), -EINVAL);

        CHECK_INTEQ(cordon_config_set_home(c, "/srv//home/", &e), 0);
        CHECK_STREQ(c->home, "/srv/home");
        CHECK_INTEQ(cordon_config_set_home(c, "rel", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "isolation.home \"rel\": must be an absolute path");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_set_workspace(c, "/a/../b", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "isolation.workspace \"/a/../b\": must not contain \"..\"");
        e = cordon_error_free(e);

        CHECK_INTEQ(cordon_config_add_protect(c, "/w/.env", &e), 0);
        CHECK_INTEQ(cordon_config_add_protect(c, ".env", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "isolation.protect \".env\": must be an absolute path");
        e = cordon_error_free(e);
        CHECK_INTEQ(strv_len(c->protect), 1);
        cordon_config_free(c);
}

static void test_setters_env(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_env_set(c, "A", "1", &e), 0);
        CHECK_INTEQ(cordon_config_env_set(c, "A", "2", &e), 0); /* replaces */
        CHECK_INTEQ(cordon_config_env_set(c, "B", "", &e), 0);
        CHECK_INTEQ(c->n_set, 2);
        CHECK(c->n_set == 2 && streq(c->set[0].value, "2") && streq(c->set[1].value, ""));
        CHECK_INTEQ(cordon_config_env_set(c, "A=B", "1", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "shell_environment_policy.set \"A=B\": is not a valid variable name");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_env_set(c, "", "1", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "shell_environment_policy.set \"\": is not a valid variable name");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_env_exclude(c, "AWS_*", &e), 0);
        CHECK_INTEQ(cordon_config_env_exclude(c, "", &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e), "shell_environment_policy.exclude \"\": the pattern must not be empty");
        e = cordon_error_free(e);
        CHECK_INTEQ(cordon_config_env_include_only(c, NULL, &e), -EINVAL);
        CHECK_STREQ(cordon_error_message(e),
                    "shell_environment_policy.include_only \"\": the pattern must not be empty");
        e = cordon_error_free(e);
        /* command-line lists add to the files' lists */
        CHECK_INTEQ(cordon_config_load_string(c, "{\"shell_environment_policy\": {\"exclude\": [\"GH_*\"]}}", "x", &e),
                    0);
        CHECK_INTEQ(cordon_config_env_exclude(c, "NPM_*", &e), 0);
        CHECK_INTEQ(strv_len(c->exclude), 2);
        CHECK(strv_len(c->exclude) == 2 && streq(c->exclude[0], "GH_*") && streq(c->exclude[1], "NPM_*"));
        cordon_config_free(c);
}

/* json_locate directly: keys and values, arrays, escapes. */
/* A config that finds profiles in |dir| only. */
static cordon_config *profile_config(const char *dir)
{
        cordon_config *c = cordon_config_new();
        const char *const dirs[] = {dir, NULL};
        if (c)
                c->profile_dirs = strv_copy(dirs);
        return c;
}

static void check_profile_error(const char *name, const char *message, const char *key, int line, int column)
{
        cordon_config *c = profile_config(PROFILES_DIR);
        _cleanup_free_ char *before = config_dump(c);
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_add_profile(c, name, &e), -EINVAL);
        printf("# %s\n", cordon_error_message(e));
        CHECK_STREQ(cordon_error_message(e), message);
        CHECK(key ? cordon_error_key(e) && streq(cordon_error_key(e), key) : !cordon_error_key(e));
        CHECK_INTEQ(cordon_error_line(e), line);
        CHECK_INTEQ(cordon_error_column(e), column);
        _cleanup_free_ char *after = config_dump(c);
        CHECK_STREQ(after, before); /* a bad profile changes nothing */
        cordon_error_free(e);
        cordon_config_free(c);
}

/* Profiles are config layers: "~/" and "$NAME/" paths kept for the plan,
 * optional sources not checked, errors located in the profile's file. */
static void test_profiles(void)
{
        cordon_config *c = profile_config(PROFILES_DIR);
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_add_profile(c, "tools", &e), 0);
        CHECK(e == NULL);
        CHECK_INTEQ(c->network, CORDON_NETWORK_LOOPBACK);
        CHECK_INTEQ(c->n_expose, 3);
        if (c->n_expose == 3) {
                CHECK_STREQ(c->expose[0].source, "~/.cargo/bin");
                CHECK_STREQ(c->expose[0].target, "~/.cargo/bin");
                CHECK(c->expose[0].optional && !c->expose[0].writable);
                CHECK_STREQ(c->expose[1].target, "$HOME/.gitconfig");
                CHECK(!c->expose[1].optional); /* a home path is checked when planning */
                CHECK_STREQ(c->expose[2].source, "/nonexistent/toolchain");
        }
        CHECK_INTEQ(c->n_set, 2);
        cordon_config_free(c);

        /* named by a layer: applied before it, so the layer wins */
        c = profile_config(PROFILES_DIR);
        CHECK_INTEQ(cordon_config_add_profile(c, "nested", &e), 0);
        CHECK_INTEQ(c->network, CORDON_NETWORK_NONE);
        CHECK_INTEQ(c->n_expose, 3);
        cordon_config_free(c);

        check_profile_error("bad", PROFILES_DIR "/bad.json:4:37: isolation.expose_paths[0].optional: must be a "
                                   "boolean, got string",
                            "isolation.expose_paths[0].optional", 4, 37);
        check_profile_error("dotdot", PROFILES_DIR "/dotdot.json:1:44: isolation.expose_paths[0].source: must name a "
                                      "path below ~ without \"..\", got \"~/../etc\"",
                            "isolation.expose_paths[0].source", 1, 44);
        check_profile_error("bad-target", PROFILES_DIR "/bad-target.json:1:62: isolation.expose_paths[0].target: must "
                                          "be an absolute path (or start with ~/ or $NAME/), got \"$HOME\"",
                            "isolation.expose_paths[0].target", 1, 62);
        check_profile_error("names-bad", PROFILES_DIR "/names-bad.json:1:38: isolation.profiles[1]: not a profile "
                                         "name: \"../etc/passwd\" (letters, digits, \".\", \"_\" and \"-\")",
                            "isolation.profiles[1]", 1, 38);
        check_profile_error("loop-a", PROFILES_DIR "/loop-b.json:1:29: isolation.profiles[0]: profile \"loop-a\": "
                                      "profiles nest more than 8 deep (a cycle?)",
                            "isolation.profiles[0]", 1, 29);
        check_profile_error("missing",
                            "isolation.profiles \"missing\": no profile \"missing\" (looked in " PROFILES_DIR
                            "; `cordon profiles` lists them)",
                            NULL, 0, 0);
        check_profile_error(
                "../x",
                "isolation.profiles \"../x\": not a profile name: \"../x\" (letters, digits, \".\", \"_\" and \"-\")",
                NULL, 0, 0);
}

/* The shipped profiles load, and keep the rule: toolchains read-only, in
 * the home and optional; nothing writable (a cache the host executes from
 * is never shared). */
static void test_shipped_profiles(void)
{
        static const char *const NAMES[] = {"git", "rust", "node", "python", "go"};
        for (size_t i = 0; i < ARRAY_SIZE(NAMES); i++) {
                cordon_config *c = profile_config(SHIPPED_DIR);
                cordon_error *e = NULL;
                CHECK_INTEQ(cordon_config_add_profile(c, NAMES[i], &e), 0);
                if (e)
                        printf("# %s: %s\n", NAMES[i], cordon_error_message(e));
                cordon_error_free(e);
                CHECK(c->n_expose > 0);
                for (size_t k = 0; k < c->n_expose; k++)
                        CHECK(!c->expose[k].writable && c->expose[k].optional && c->expose[k].source[0] == '~');
                for (size_t k = 0; k < c->n_set; k++) /* caches point into the instance or at a ro toolchain */
                        CHECK(c->set[k].value[0] == '$' || c->set[k].value[0] == '~');
                cordon_config_free(c);
        }
        cordon_config *c = profile_config(SHIPPED_DIR);
        _cleanup_free_ char *text = NULL;
        CHECK_INTEQ(cordon_profiles_describe(c, &text), 0);
        CHECK(text && strstr(text, "rust (" SHIPPED_DIR "/rust.json)\n"));
        CHECK(text && strstr(text, "  expose ~/.cargo/bin ro (optional)\n"));
        CHECK(text && strstr(text, "  set CARGO_HOME=$HOME/.cargo\n"));
        cordon_config_free(c);
}

static void test_json_locate(void)
{
        static const char *const text = "{\"a\": {\"b\\u0020c\": [1, {\"d\": true}]},\n \"e\": \"x\"}";
        const char *p1[] = {"a", "b c", "[1]", "d"};
        int line = 0, col = 0;
        CHECK(json_locate(text, p1, 4, false, &line, &col));
        CHECK(line == 1 && col == 30);
        CHECK(json_locate(text, p1, 4, true, &line, &col));
        CHECK(line == 1 && col == 25);
        const char *p2[] = {"e"};
        CHECK(json_locate(text, p2, 1, false, &line, &col));
        CHECK(line == 2 && col == 7);
        const char *p3[] = {"a", "zz"};
        CHECK(!json_locate(text, p3, 2, false, &line, &col));
}

/* expose_paths[].comment (cordon learn writes one): a string, ignored;
 * isolation.explain and explain_on_failure: booleans. */
static void test_comment_and_explain(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"explain\": true, \"explain_on_failure\": true, "
                                                 "\"expose_paths\": [{\"source\": \"/usr\", \"comment\": \"why\"}]}}",
                                              "ok.json", &e),
                    0);
        CHECK(c->explain && c->explain_on_failure && c->n_expose == 1);
        e = cordon_error_free(e);
        CHECK(cordon_config_load_string(c, "{\"isolation\": {\"expose_paths\": [{\"source\": \"/usr\", \"comment\": 1}]}}",
                                        "bad.json", &e) < 0);
        CHECK_STREQ(cordon_error_message(e), "bad.json:1:63: isolation.expose_paths[0].comment: must be a string, got number");
        e = cordon_error_free(e);
        CHECK(cordon_config_load_string(c, "{\"isolation\": {\"explain\": \"yes\"}}", "bad.json", &e) < 0);
        CHECK_STREQ(cordon_error_key(e), "isolation.explain");
        cordon_error_free(e);
        cordon_config_free(c);
}

int main(void)
{
        RUN(test_comment_and_explain);
        RUN(test_invalid_fixtures);
        RUN(test_invalid_fixtures_complete);
        RUN(test_error_names_file_as_given);
        RUN(test_load_file_errors);
        RUN(test_load_string);
        RUN(test_other_top_level_keys_ignored);
        RUN(test_defaults);
        RUN(test_failing_layer_leaves_config_unchanged);
        RUN(test_layering_three_files);
        RUN(test_expose_merge_in_one_layer);
        RUN(test_limits_json);
        RUN(test_setters_expose_spec);
        RUN(test_setters_expose_spec_escapes);
        RUN(test_setters_expose);
        RUN(test_setters_same_checks);
        RUN(test_setters_limits);
        RUN(test_setters_enums);
        RUN(test_network_allow);
        RUN(test_setters_env);
        RUN(test_profiles);
        RUN(test_shipped_profiles);
        RUN(test_json_locate);
        return TAP_DONE();
}
