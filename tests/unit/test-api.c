/* SPDX-License-Identifier: MIT */
/* The public API as a C caller sees it (only cordon.h): every failure path
 * returns the error object (message, errno, exit status, config location),
 * ret_* parameters stay untouched on failure, destructors accept NULL, and
 * the process handle (pid, pidfd, pipes, wait with a timeout, kill) works.
 * Run under ASan+LSan (build-asan), it also checks that nothing leaks on any
 * of these paths. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cordon.h"
#include "tap.h"

static char home[64] = "/tmp/cordon-api.XXXXXX";
static char workspace[128];

/* A sentinel that must survive a failing call in a ret_* parameter. */
static int sentinel_storage;
#define SENTINEL ((void *)&sentinel_storage)

static cordon_config *new_config(void)
{
        cordon_config *c = cordon_config_new();
        if (c && cordon_config_set_home(c, home, NULL) < 0)
                c = cordon_config_free(c);
        return c;
}

static cordon_command *new_command(const char *const *argv)
{
        cordon_command *cmd = cordon_command_new(argv);
        if (cmd && cordon_command_set_cwd(cmd, workspace) < 0)
                cmd = cordon_command_free(cmd);
        return cmd;
}

/* Prepare |argv| under |c| (a fresh default config when NULL). */
static cordon_plan *plan_for(cordon_config *c, const char *const *argv, const int stdio[3])
{
        cordon_config *own = c ? NULL : new_config();
        cordon_command *cmd = new_command(argv);
        cordon_plan *plan = NULL;
        cordon_error *err = NULL;
        for (int i = 0; cmd && stdio && i < 3; i++)
                cordon_command_set_stdio(cmd, i, stdio[i]);
        if (cmd && cordon_prepare(c ? c : own, cmd, &plan, &err) < 0)
                printf("# prepare: %s\n", cordon_error_message(err));
        cordon_error_free(err);
        cordon_command_free(cmd);
        cordon_config_free(own);
        return plan;
}

static bool has_prefix(const char *s, const char *prefix) { return s && strncmp(s, prefix, strlen(prefix)) == 0; }
static bool contains(const char *s, const char *needle) { return s && strstr(s, needle); }

static const char *env_get(const char *const *env, const char *name)
{
        size_t n = strlen(name);
        for (; env && *env; env++)
                if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
                        return *env + n + 1;
        return NULL;
}

/* Read |fd| to EOF; returns a NUL-terminated string the caller frees. */
static char *slurp(int fd)
{
        size_t cap = 4096, n = 0;
        char *b = malloc(cap);
        for (;;) {
                if (n + 1 >= cap)
                        b = realloc(b, cap *= 2);
                ssize_t k = read(fd, b + n, cap - 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                n += (size_t)k;
        }
        b[n] = '\0';
        return b;
}

/* Processes on the host running exactly "sleep MARKER" (from /proc). */
static int count_marker(const char *marker)
{
        char want[128];
        int wlen = snprintf(want, sizeof(want), "sleep%c%s", '\0', marker) + 1;
        DIR *d = opendir("/proc");
        int n = 0;
        struct dirent *de;
        while (d && (de = readdir(d))) {
                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                char path[300], cmdline[128];
                snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                ssize_t k = fd >= 0 ? read(fd, cmdline, sizeof(cmdline)) : -1;
                if (fd >= 0)
                        close(fd);
                if (k == wlen && memcmp(cmdline, want, (size_t)wlen) == 0)
                        n++;
        }
        if (d)
                closedir(d);
        return n;
}

static bool marker_gone(const char *marker)
{
        for (int i = 0; i < 40; i++) {
                if (count_marker(marker) == 0)
                        return true;
                usleep(50000);
        }
        return false;
}

/* ---- errors and destructors ------------------------------------------------------ */

/* Plan and start |argv| with |stdio| (default config); NULL (a failed
 * check) when it did not start. */
static cordon_process *start_for(const char *const *argv, const int *stdio)
{
        cordon_plan *plan = plan_for(NULL, argv, stdio);
        cordon_process *p = NULL;
        CHECK_INTEQ(cordon_start(plan, &p, NULL), 0);
        cordon_plan_free(plan);
        return p;
}

static void test_destructors_accept_null(void)
{
        CHECK(cordon_error_free(NULL) == NULL);
        CHECK(cordon_config_free(NULL) == NULL);
        CHECK(cordon_command_free(NULL) == NULL);
        CHECK(cordon_plan_free(NULL) == NULL);
        CHECK(cordon_process_free(NULL) == NULL);
        /* and return NULL for p = free(p) */
        cordon_config *c = cordon_config_new();
        CHECK(c != NULL);
        c = cordon_config_free(c);
        CHECK(c == NULL);
}

static void test_error_accessors_on_null(void)
{
        CHECK_STREQ(cordon_error_message(NULL), "unknown error");
        CHECK_INTEQ(cordon_error_errno(NULL), 0);
        CHECK(cordon_error_file(NULL) == NULL);
        CHECK_INTEQ(cordon_error_line(NULL), 0);
        CHECK_INTEQ(cordon_error_column(NULL), 0);
        CHECK(cordon_error_key(NULL) == NULL);
        CHECK_INTEQ(cordon_error_exit_status(NULL), 125);
}

static void test_version(void)
{
        CHECK_STREQ(cordon_version(), CORDON_VERSION);
}

/* ---- config failures -------------------------------------------------------------- */

static void test_config_json_error_location(void)
{
        cordon_config *c = new_config();
        cordon_error *err = NULL;
        const char *json = "{\n  \"isolation\": {\n    \"network\": \"wifi\"\n  }\n}\n";
        int r = cordon_config_load_string(c, json, "agent.json", &err);
        CHECK_INTEQ(r, -EINVAL);
        CHECK(err != NULL);
        CHECK_INTEQ(cordon_error_errno(err), EINVAL);
        CHECK_STREQ(cordon_error_file(err), "agent.json");
        CHECK_INTEQ(cordon_error_line(err), 3);
        CHECK(cordon_error_column(err) > 0);
        CHECK_STREQ(cordon_error_key(err), "isolation.network");
        CHECK_INTEQ(cordon_error_exit_status(err), 125);
        CHECK(has_prefix(cordon_error_message(err), "agent.json:3:"));
        CHECK(contains(cordon_error_message(err), "isolation.network"));
        CHECK(contains(cordon_error_message(err), "wifi"));
        cordon_error_free(err);
        cordon_config_free(c);
}

static void test_config_invalid_json(void)
{
        cordon_config *c = new_config();
        cordon_error *err = NULL;
        CHECK(cordon_config_load_string(c, "{\"isolation\": {", NULL, &err) < 0);
        CHECK_STREQ(cordon_error_file(err), "<string>");
        CHECK(cordon_error_line(err) >= 1);
        CHECK(cordon_error_key(err) == NULL);
        CHECK(contains(cordon_error_message(err), "invalid JSON"));
        cordon_error_free(err);
        err = NULL;
        CHECK(cordon_config_load_string(c, "[1, 2]", "list.json", &err) < 0);
        CHECK(contains(cordon_error_message(err), "must be a JSON object"));
        cordon_error_free(err);
        err = NULL;
        CHECK(cordon_config_load_string(c, "{\"isolation\": {\"bogus\": 1}}", "u.json", &err) < 0);
        CHECK(contains(cordon_error_key(err), "bogus"));
        cordon_error_free(err);
        cordon_config_free(c);
}

static void test_config_missing_file(void)
{
        cordon_config *c = new_config();
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_config_load_file(c, "/nonexistent/cordon.json", &err), -ENOENT);
        CHECK_INTEQ(cordon_error_errno(err), ENOENT);
        CHECK(contains(cordon_error_message(err), "/nonexistent/cordon.json"));
        CHECK_INTEQ(cordon_error_exit_status(err), 125);
        CHECK(cordon_error_file(err) == NULL); /* not a config location */
        CHECK_INTEQ(cordon_error_line(err), 0);
        cordon_error_free(err);
        /* a NULL ret_error is allowed: only the return value then */
        CHECK_INTEQ(cordon_config_load_file(c, "/nonexistent/cordon.json", NULL), -ENOENT);
        cordon_config_free(c);
}

static void test_config_unchanged_on_failure(void)
{
        cordon_config *c = new_config();
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"network\": \"loopback\"}}", "a", NULL), 0);
        /* the second layer is valid up to a bad key: nothing of it applies */
        CHECK(cordon_config_load_string(c, "{\"isolation\": {\"network\": \"full\", \"backend\": \"nope\"}}", "b",
                                        NULL) < 0);
        const char *argv[] = {"true", NULL};
        cordon_plan *plan = plan_for(c, argv, NULL);
        char *json = plan ? cordon_plan_to_json(plan) : NULL;
        CHECK(contains(json, "\"network\": \"loopback\""));
        free(json);
        cordon_plan_free(plan);
        cordon_config_free(c);
}

static void test_config_file_layers(void)
{
        char path[160]; /* beside the instance root: a config inside it is refused */
        snprintf(path, sizeof(path), "%s.layer.json", home);
        FILE *f = fopen(path, "we");
        CHECK(f != NULL);
        if (!f)
                return;
        fputs("{\"agent_setting\": 1, \"isolation\": {\"network\": \"loopback\"},\n"
              " \"shell_environment_policy\": {\"set\": {\"FROM_FILE\": \"1\"}}}\n",
              f);
        fclose(f);
        cordon_config *c = new_config();
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_config_load_file(c, path, &err), 0);
        CHECK(err == NULL);
        const char *argv[] = {"true", NULL};
        cordon_plan *plan = plan_for(c, argv, NULL);
        CHECK(plan != NULL);
        if (plan) {
                CHECK_STREQ(env_get(cordon_plan_env(plan), "FROM_FILE"), "1");
                char *json = cordon_plan_to_json(plan);
                CHECK(contains(json, "\"network\": \"loopback\""));
                free(json);
        }
        cordon_plan_free(plan);
        cordon_config_free(c);
        unlink(path);
}

typedef int (*setter_fn)(cordon_config *c, cordon_error **err);

static int bad_home(cordon_config *c, cordon_error **e) { return cordon_config_set_home(c, "relative/dir", e); }
static int bad_workspace(cordon_config *c, cordon_error **e) { return cordon_config_set_workspace(c, NULL, e); }
static int bad_backend(cordon_config *c, cordon_error **e) { return cordon_config_set_backend(c, "docker", e); }
static int bad_network(cordon_config *c, cordon_error **e) { return cordon_config_set_network_name(c, "wifi", e); }
static int bad_expose_missing(cordon_config *c, cordon_error **e)
{
        return cordon_config_add_expose(c, "/nonexistent/cordon-src", NULL, false, e);
}
static int bad_expose_relative(cordon_config *c, cordon_error **e)
{
        return cordon_config_add_expose(c, "usr", NULL, false, e);
}
static int bad_expose_target(cordon_config *c, cordon_error **e) { return cordon_config_add_expose(c, "/usr", "/", true, e); }
static int bad_expose_spec(cordon_config *c, cordon_error **e) { return cordon_config_add_expose_spec(c, "/usr:rwx", e); }
static int bad_protect(cordon_config *c, cordon_error **e) { return cordon_config_add_protect(c, "x/y", e); }
static int bad_limit(cordon_config *c, cordon_error **e)
{
        return cordon_config_set_limit(c, CORDON_LIMIT_MEMORY_BYTES, -1, e);
}
static int bad_limit_fraction(cordon_config *c, cordon_error **e)
{
        return cordon_config_set_limit(c, CORDON_LIMIT_PIDS, 1.5, e);
}
static int bad_limit_which(cordon_config *c, cordon_error **e)
{
        return cordon_config_set_limit(c, CORDON_LIMIT__MAX, 1, e);
}
static int bad_limit_text(cordon_config *c, cordon_error **e)
{
        return cordon_config_set_limit_text(c, CORDON_LIMIT_MEMORY_BYTES, "lots", e);
}
static int bad_landlock(cordon_config *c, cordon_error **e) { return cordon_config_set_landlock(c, "maybe", e); }
static int bad_inherit(cordon_config *c, cordon_error **e) { return cordon_config_set_inherit_name(c, "some", e); }
static int bad_env_name(cordon_config *c, cordon_error **e) { return cordon_config_env_set(c, "A=B", "1", e); }
static int bad_env_value(cordon_config *c, cordon_error **e) { return cordon_config_env_set(c, "A", NULL, e); }
static int bad_exclude(cordon_config *c, cordon_error **e) { return cordon_config_env_exclude(c, "", e); }
static int bad_include(cordon_config *c, cordon_error **e) { return cordon_config_env_include_only(c, NULL, e); }

static void test_setter_failures(void)
{
        static const struct {
                const char *name;
                setter_fn fn;
                int err;
                const char *needle; /* in the message */
        } T[] = {
                {"home", bad_home, EINVAL, "relative/dir"},
                {"workspace", bad_workspace, EINVAL, "absolute"},
                {"backend", bad_backend, EINVAL, "docker"},
                {"network", bad_network, EINVAL, "wifi"},
                {"expose missing", bad_expose_missing, ENOENT, "/nonexistent/cordon-src"},
                {"expose relative", bad_expose_relative, EINVAL, "usr"},
                {"expose target /", bad_expose_target, EINVAL, "target"},
                {"expose spec", bad_expose_spec, EINVAL, "rwx"},
                {"protect", bad_protect, EINVAL, "x/y"},
                {"limit negative", bad_limit, EINVAL, "memory_bytes"},
                {"limit fraction", bad_limit_fraction, EINVAL, "pids"},
                {"limit unknown", bad_limit_which, EINVAL, "limit"},
                {"limit text", bad_limit_text, EINVAL, "lots"},
                {"landlock", bad_landlock, EINVAL, "maybe"},
                {"inherit", bad_inherit, EINVAL, "some"},
                {"env name", bad_env_name, EINVAL, "A=B"},
                {"env value", bad_env_value, EINVAL, "\"A\""},
                {"exclude", bad_exclude, EINVAL, "exclude"},
                {"include_only", bad_include, EINVAL, "include_only"},
        };
        for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
                cordon_config *c = new_config();
                cordon_error *err = NULL;
                int r = T[i].fn(c, &err);
                if (r != -T[i].err || !err || cordon_error_errno(err) != T[i].err ||
                    cordon_error_exit_status(err) != 125 || !contains(cordon_error_message(err), T[i].needle)) {
                        printf("# %s: r=%d errno=%d status=%d message \"%s\"\n", T[i].name, r,
                               cordon_error_errno(err), cordon_error_exit_status(err), cordon_error_message(err));
                        tap_failed_in_case = 1;
                }
                cordon_error_free(err);
                /* without an error object: the same return value, nothing leaks */
                CHECK_INTEQ(T[i].fn(c, NULL), -T[i].err);
                cordon_config_free(c);
        }
}

static void test_enum_setters_reject_out_of_range(void)
{
        cordon_config *c = new_config();
        CHECK_INTEQ(cordon_config_set_network(c, (cordon_network)7), -EINVAL);
        CHECK_INTEQ(cordon_config_set_inherit(c, (cordon_inherit)-1), -EINVAL);
        CHECK_INTEQ(cordon_config_set_auto_expose(c, (cordon_auto_expose)9, CORDON_EXPOSE_RO), -EINVAL);
        CHECK_INTEQ(cordon_config_set_auto_expose(c, CORDON_AUTO_EXPOSE_CWD, (cordon_expose_mode)9), -EINVAL);
        CHECK_INTEQ(cordon_config_set_network(c, CORDON_NETWORK_LOOPBACK), 0);
        cordon_config_free(c);
}

static void test_error_is_replaced_not_leaked(void)
{
        cordon_config *c = new_config();
        cordon_error *err = NULL;
        CHECK(cordon_config_set_network_name(c, "one", &err) < 0);
        CHECK(cordon_config_set_network_name(c, "two", &err) < 0);
        CHECK(contains(cordon_error_message(err), "two"));
        cordon_error_free(err);
        cordon_config_free(c);
}

/* ---- the command -------------------------------------------------------------- */

static void test_command_failures(void)
{
        CHECK(cordon_command_new(NULL) == NULL);
        const char *empty[] = {NULL};
        CHECK(cordon_command_new(empty) == NULL);
        const char *argv[] = {"true", NULL};
        cordon_command *cmd = cordon_command_new(argv);
        CHECK_INTEQ(cordon_command_set_stdio(cmd, 3, 1), -EINVAL);
        CHECK_INTEQ(cordon_command_set_stdio(cmd, -1, 1), -EINVAL);
        CHECK_INTEQ(cordon_command_set_stdio(cmd, 0, -9), -EINVAL);
        CHECK_INTEQ(cordon_command_setenv(cmd, "", "x"), -EINVAL);
        CHECK_INTEQ(cordon_command_setenv(cmd, "A=B", "x"), -EINVAL);
        CHECK_INTEQ(cordon_command_setenv(cmd, "A", NULL), -EINVAL);
        CHECK_INTEQ(cordon_command_setenv(cmd, "A", "1"), 0);
        CHECK_INTEQ(cordon_command_setenv(cmd, "A", "2"), 0); /* replaces */
        CHECK_INTEQ(cordon_command_set_cwd(cmd, "/tmp"), 0);
        CHECK_INTEQ(cordon_command_set_cwd(cmd, NULL), 0);
        cordon_command_free(cmd);
}

/* A terminal of the command's own: CORDON_PTY_ON puts it on the usable
 * descriptors when none is a terminal; the master reads what the command
 * wrote there, then EIO. |backend|: the linux backend's is its devpts'
 * first, the landlock backend's a new one of the host's. */
static void check_pty_on(const char *backend)
{
        const char *argv[] = {"sh", "-c", "readlink /proc/self/fd/1; test -t 0 || echo stdin-is-no-tty", NULL};
        cordon_command *cmd = new_command(argv);
        CHECK_INTEQ(cordon_command_set_pty(cmd, CORDON_PTY_ON), 0);
        int pfd[2];
        CHECK_INTEQ(pipe(pfd), 0);
        cordon_command_set_stdio(cmd, 0, CORDON_STDIO_NULL);
        cordon_command_set_stdio(cmd, 1, pfd[1]);
        cordon_command_set_stdio(cmd, 2, CORDON_STDIO_NULL);
        cordon_config *c = new_config();
        CHECK_INTEQ(cordon_config_set_backend(c, backend, NULL), 0);
        cordon_plan *plan = NULL;
        cordon_process *p = NULL;
        CHECK_INTEQ(cordon_prepare(c, cmd, &plan, NULL), 0);
        CHECK_INTEQ(cordon_start(plan, &p, NULL), 0);
        close(pfd[1]);
        int master = cordon_process_pty(p);
        CHECK(master >= 0);
        cordon_result r;
        CHECK_INTEQ(cordon_wait(p, -1, &r, NULL), 0);
        CHECK_INTEQ(r.status, 0);
        char *out = master >= 0 ? slurp(master) : NULL;
        if (strcmp(backend, "linux") == 0)
                CHECK_STREQ(out, "/dev/pts/0\r\nstdin-is-no-tty\r\n");
        else
                CHECK(out && strncmp(out, "/dev/pts/", 9) == 0 && contains(out, "\r\nstdin-is-no-tty\r\n"));
        free(out);
        char *piped = slurp(pfd[0]);
        CHECK_STREQ(piped, ""); /* fd 1 was the terminal, not the pipe */
        free(piped);
        close(pfd[0]);
        cordon_process_free(p);
        cordon_plan_free(plan);
        cordon_config_free(c);
        cordon_command_free(cmd);
}

/* Without isolation there is no terminal of its own: ON is refused, AUTO
 * falls back. */
static void test_pty(void)
{
        const char *argv[] = {"true", NULL};
        cordon_command *cmd = new_command(argv);
        CHECK_INTEQ(cordon_command_set_pty(cmd, (cordon_pty)7), -EINVAL);
        check_pty_on("linux");
        check_pty_on("landlock");
        cordon_config *c = new_config();
        cordon_plan *plan = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_config_set_enabled(c, false), 0);
        CHECK_INTEQ(cordon_command_set_pty(cmd, CORDON_PTY_ON), 0);
        CHECK_INTEQ(cordon_prepare(c, cmd, &plan, &err), -ENOTSUP);
        CHECK(contains(cordon_error_message(err), "needs the linux or landlock backend"));
        cordon_error_free(err);
        CHECK_INTEQ(cordon_command_set_pty(cmd, CORDON_PTY_AUTO), 0);
        CHECK_INTEQ(cordon_prepare(c, cmd, &plan, NULL), 0);
        cordon_plan_free(plan);
        cordon_config_free(c);
        cordon_command_free(cmd);
}

/* ---- prepare ------------------------------------------------------------------ */

static void test_prepare_not_found(void)
{
        cordon_config *c = new_config();
        const char *argv[] = {"cordon-no-such-command", NULL};
        cordon_command *cmd = new_command(argv);
        cordon_plan *plan = SENTINEL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_prepare(c, cmd, &plan, &err), -ENOENT);
        CHECK(plan == SENTINEL);
        CHECK_INTEQ(cordon_error_errno(err), ENOENT);
        CHECK_INTEQ(cordon_error_exit_status(err), 127);
        CHECK(contains(cordon_error_message(err), "cordon-no-such-command"));
        CHECK(cordon_error_file(err) == NULL);
        cordon_error_free(err);
        cordon_command_free(cmd);
        cordon_config_free(c);
}

/* |text| into the workspace file |name| (mode |mode|); its path in |path|. */
static void write_workspace_file(char *path, size_t size, const char *name, const char *text, mode_t mode)
{
        snprintf(path, size, "%s/%s", workspace, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
        if (fd >= 0)
                close(fd);
}

static void test_prepare_not_executable(void)
{
        char path[160];
        write_workspace_file(path, sizeof(path), "not-exec", "data\n", 0644);
        cordon_config *c = new_config();
        const char *argv[] = {path, NULL};
        cordon_command *cmd = new_command(argv);
        cordon_plan *plan = SENTINEL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_prepare(c, cmd, &plan, &err), -EACCES);
        CHECK(plan == SENTINEL);
        CHECK_INTEQ(cordon_error_exit_status(err), 126);
        CHECK(contains(cordon_error_message(err), "not-exec"));
        cordon_error_free(err);
        cordon_command_free(cmd);
        cordon_config_free(c);
        unlink(path);
}

static void test_prepare_bad_cwd(void)
{
        cordon_config *c = new_config();
        const char *argv[] = {"true", NULL};
        cordon_command *cmd = cordon_command_new(argv);
        cordon_command_set_cwd(cmd, "/nonexistent/cordon-cwd");
        cordon_plan *plan = SENTINEL;
        cordon_error *err = NULL;
        CHECK(cordon_prepare(c, cmd, &plan, &err) < 0);
        CHECK(plan == SENTINEL);
        CHECK(err != NULL && cordon_error_errno(err) != 0);
        CHECK_INTEQ(cordon_error_exit_status(err), 125);
        CHECK(contains(cordon_error_message(err), "/nonexistent/cordon-cwd"));
        cordon_error_free(err);
        cordon_command_free(cmd);
        cordon_config_free(c);
}

static void test_env_only_plan(void)
{
        cordon_config *c = new_config();
        cordon_plan *plan = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_prepare(c, NULL, &plan, &err), 0);
        CHECK(plan != NULL);
        if (!plan) {
                cordon_error_free(err);
                cordon_config_free(c);
                return;
        }
        const char *const *env = cordon_plan_env(plan);
        CHECK_STREQ(env_get(env, "CORDON_SANDBOX"), "linux");
        CHECK_STREQ(env_get(env, "CORDON_SANDBOX_NETWORK_DISABLED"), "1");
        char want[256];
        snprintf(want, sizeof(want), "%s/runtime-user-env/home", home);
        CHECK_STREQ(env_get(env, "HOME"), want);
        snprintf(want, sizeof(want), "%s/runtime-user-env/config", home);
        CHECK_STREQ(env_get(env, "XDG_CONFIG_HOME"), want);
        /* sorted by name */
        for (size_t i = 1; env && env[i]; i++)
                CHECK(strcmp(env[i - 1], env[i]) < 0);
        char *json = cordon_plan_to_json(plan);
        json_t *o = json ? json_loads(json, 0, NULL) : NULL;
        CHECK(o && json_is_null(json_object_get(o, "argv")));
        json_decref(o);
        free(json);
        /* nothing to start */
        cordon_process *proc = SENTINEL;
        CHECK_INTEQ(cordon_start(plan, &proc, &err), -EINVAL);
        CHECK(proc == SENTINEL);
        CHECK(contains(cordon_error_message(err), "environment only"));
        cordon_error_free(err);
        cordon_plan_free(plan);
        cordon_config_free(c);
}

static void test_env_policy_on_base_env(void)
{
        const char *base[] = {"PATH=/usr/bin:/bin", "HOME=/root", "OPENAI_API_KEY=sk-test", "GITHUB_TOKEN=t",
                              "AWS_REGION=x", NULL};
        const char *argv[] = {"true", NULL};
        cordon_config *c = new_config();
        cordon_command *cmd = new_command(argv);
        cordon_command_set_base_env(cmd, base);
        cordon_command_setenv(cmd, "EXTRA", "from-command");
        cordon_plan *plan = NULL;
        CHECK_INTEQ(cordon_prepare(c, cmd, &plan, NULL), 0);
        const char *const *env = plan ? cordon_plan_env(plan) : NULL;
        CHECK(env_get(env, "OPENAI_API_KEY") == NULL);
        CHECK(env_get(env, "GITHUB_TOKEN") == NULL);
        CHECK(env_get(env, "AWS_REGION") == NULL); /* inherit core */
        CHECK_STREQ(env_get(env, "EXTRA"), "from-command");
        CHECK_STREQ(env_get(env, "PATH"), "/usr/bin:/bin");
        plan = cordon_plan_free(plan);
        /* inherit all + include_only lets the key through, by name */
        cordon_config_set_inherit(c, CORDON_INHERIT_ALL);
        cordon_config_set_ignore_default_excludes(c, true);
        cordon_config_env_include_only(c, "OPENAI_*", NULL);
        cordon_config_env_include_only(c, "PATH", NULL);
        CHECK_INTEQ(cordon_prepare(c, cmd, &plan, NULL), 0);
        env = plan ? cordon_plan_env(plan) : NULL;
        CHECK_STREQ(env_get(env, "OPENAI_API_KEY"), "sk-test");
        CHECK(env_get(env, "GITHUB_TOKEN") == NULL);
        CHECK(env_get(env, "EXTRA") == NULL); /* include_only is the last step */
        cordon_plan_free(plan);
        cordon_command_free(cmd);
        cordon_config_free(c);
}

/* isolation.die_with_parent: the key, the setter and the plan's accessor;
 * the parent watch of a launcher process. */
static void test_die_with_parent(void)
{
        const char *argv[] = {"true", NULL};
        cordon_config *c = new_config();
        cordon_plan *plan = plan_for(c, argv, NULL);
        CHECK(plan && !cordon_plan_die_with_parent(plan)); /* off by default */
        cordon_plan_free(plan);
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"die_with_parent\": true}}", "on.json", &err), 0);
        plan = plan_for(c, argv, NULL);
        CHECK(plan && cordon_plan_die_with_parent(plan));
        cordon_plan_free(plan);
        CHECK_INTEQ(cordon_config_set_die_with_parent(c, false), 0);
        plan = plan_for(c, argv, NULL);
        CHECK(plan && !cordon_plan_die_with_parent(plan));
        cordon_plan_free(plan);
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"die_with_parent\": \"yes\"}}", "bad.json", &err),
                    -EINVAL);
        CHECK_STREQ(cordon_error_key(err), "isolation.die_with_parent");
        CHECK_STREQ(cordon_error_message(err), "bad.json:1:35: isolation.die_with_parent: must be a boolean, got string");
        err = cordon_error_free(err);
        cordon_config_free(c);
        CHECK(!cordon_plan_die_with_parent(NULL));

        /* the watch: our parent is alive; another pid is a parent gone */
        CHECK_INTEQ(cordon_parent_watch(getppid(), SIGUSR2), 0);
        CHECK(!cordon_parent_gone(getppid()));
        CHECK(cordon_parent_gone(getppid() + 1));
        CHECK(cordon_parent_gone(0));
        CHECK_INTEQ(cordon_parent_watch(getppid() + 1, SIGUSR2), -ESRCH);
        CHECK_INTEQ(cordon_parent_watch(getppid(), SIGKILL), -EINVAL);
        CHECK_INTEQ(cordon_parent_watch(getppid(), 0), -EINVAL);
        prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0); /* as it was */
}

static void test_plan_json(void)
{
        cordon_config *c = new_config();
        cordon_config_set_limit(c, CORDON_LIMIT_WALL_TIME_S, 2.5, NULL);
        cordon_config_add_expose(c, "/usr/share", "/opt/share", false, NULL);
        const char *argv[] = {"sh", "-c", "echo hi", NULL};
        cordon_plan *plan = plan_for(c, argv, NULL);
        CHECK(plan != NULL);
        if (!plan) {
                cordon_config_free(c);
                return;
        }
        CHECK_STREQ(cordon_plan_backend(plan), "linux");
        char *text = cordon_plan_to_text(plan);
        CHECK(has_prefix(text, "linux isolation mount plan\n"));
        free(text);
        char *s = cordon_plan_to_json(plan);
        json_error_t jerr;
        json_t *o = s ? json_loads(s, 0, &jerr) : NULL;
        CHECK(o != NULL);
        if (o) {
                CHECK_STREQ(json_string_value(json_object_get(o, "backend")), "linux");
                CHECK(json_is_true(json_object_get(o, "enabled")));
                CHECK_STREQ(json_string_value(json_object_get(o, "network")), "none");
                json_t *a = json_object_get(o, "argv");
                CHECK_INTEQ(json_array_size(a), 3);
                CHECK_STREQ(json_string_value(json_array_get(a, 2)), "echo hi");
                const char *exe = json_string_value(json_object_get(o, "exe"));
                CHECK(exe && exe[0] == '/' && contains(exe, "sh"));
                CHECK_STREQ(json_string_value(json_object_get(o, "cwd")), workspace);
                CHECK_STREQ(json_string_value(json_object_get(json_object_get(o, "env"), "CORDON_SANDBOX")), "linux");
                CHECK(json_real_value(json_object_get(json_object_get(o, "limits"), "wall_time_s")) == 2.5);
                CHECK_STREQ(json_string_value(json_object_get(o, "instance_root")), home);
                bool user_ns = false, net_ns = false;
                size_t i;
                json_t *v;
                json_array_foreach(json_object_get(o, "namespaces"), i, v)
                {
                        user_ns |= strcmp(json_string_value(v), "user") == 0;
                        net_ns |= strcmp(json_string_value(v), "net") == 0;
                }
                CHECK(user_ns && net_ns);
                CHECK_STREQ(json_string_value(json_object_get(o, "workspace")), workspace);
                /* the workspace is inside the instance root: one rw mount covers both */
                bool ws_rw = false, expose = false;
                json_array_foreach(json_object_get(o, "mounts"), i, v)
                {
                        const char *target = json_string_value(json_object_get(v, "target"));
                        const char *mode = json_string_value(json_object_get(v, "mode"));
                        const char *origin = json_string_value(json_object_get(v, "origin"));
                        const char *src = json_string_value(json_object_get(v, "source"));
                        if (target && strcmp(target, home) == 0 && src && strcmp(src, home) == 0 &&
                            strcmp(mode, "rw") == 0 && strcmp(origin, "instance") == 0)
                                ws_rw = true;
                        if (target && strcmp(target, "/opt/share") == 0 && src && strcmp(src, "/usr/share") == 0 &&
                            strcmp(mode, "ro") == 0 && strcmp(origin, "expose") == 0)
                                expose = true;
                }
                CHECK(ws_rw);
                CHECK(expose);
        } else {
                printf("# %s\n", jerr.text);
        }
        json_decref(o);
        free(s);
        cordon_plan_free(plan);
        cordon_config_free(c);
}

typedef struct log_capture {
        int calls;
        cordon_log_level level;
        char last[512];
} log_capture;

static void capture_log(cordon_log_level level, const char *message, void *userdata)
{
        log_capture *lc = userdata;
        lc->calls++;
        lc->level = level;
        snprintf(lc->last, sizeof(lc->last), "%s", message);
}

/* Isolation disabled by a layer: the plan says so, and cordon_start warns
 * through the log callback naming the file, not on stderr. */
static void test_disabled_isolation_warns_through_the_log(void)
{
        log_capture lc = {0};
        cordon_config *c = new_config();
        cordon_config_set_log(c, capture_log, &lc);
        CHECK_INTEQ(cordon_config_load_string(c, "{\"isolation\": {\"enabled\": false}}", "off.json", NULL), 0);
        const char *argv[] = {"sh", "-c", "echo $CORDON_SANDBOX; exit 6", NULL};
        int stdio[3] = {CORDON_STDIO_NULL, CORDON_STDIO_PIPE, CORDON_STDIO_INHERIT};
        cordon_plan *plan = plan_for(c, argv, stdio);
        CHECK_STREQ(plan ? cordon_plan_backend(plan) : NULL, "none");
        cordon_process *p = NULL;
        CHECK_INTEQ(cordon_start(plan, &p, NULL), 0);
        CHECK_INTEQ(lc.calls, 1);
        CHECK_INTEQ(lc.level, CORDON_LOG_WARNING);
        CHECK(contains(lc.last, "isolation is disabled"));
        CHECK(contains(lc.last, "off.json"));
        if (p) {
                char *out = slurp(cordon_process_stdio(p, 1));
                CHECK_STREQ(out, "\n"); /* no sandbox marker: it really ran unisolated */
                free(out);
                cordon_result res = {0};
                CHECK_INTEQ(cordon_wait(p, -1, &res, NULL), 0);
                CHECK_INTEQ(res.status, 6);
        }
        cordon_process_free(p);
        cordon_plan_free(plan);
        cordon_config_free(c);
}

/* The library never prints: failing calls leave stdout and stderr empty. */
static void test_library_never_prints(void)
{
        char path[160];
        snprintf(path, sizeof(path), "%s/printed", home);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        fflush(stdout);
        int saved1 = dup(1), saved2 = dup(2);
        dup2(fd, 1);
        dup2(fd, 2);
        cordon_config *c = new_config();
        cordon_error *err = NULL;
        cordon_config_load_string(c, "{\"isolation\": {\"network\": 1}}", "x.json", &err);
        err = cordon_error_free(err);
        cordon_config_load_file(c, "/nonexistent/x.json", &err);
        err = cordon_error_free(err);
        cordon_config_add_expose(c, "/nonexistent/src", NULL, true, &err);
        err = cordon_error_free(err);
        const char *argv[] = {"cordon-no-such-command", NULL};
        cordon_command *cmd = new_command(argv);
        cordon_plan *plan = NULL;
        cordon_prepare(c, cmd, &plan, &err);
        err = cordon_error_free(err);
        cordon_command_free(cmd);
        const char *argv2[] = {"true", NULL};
        plan = plan_for(c, argv2, NULL);
        cordon_run(plan, NULL, &err); /* a NULL result is allowed */
        err = cordon_error_free(err);
        cordon_plan_free(plan);
        cordon_config_free(c);
        fflush(stdout);
        dup2(saved1, 1);
        dup2(saved2, 2);
        close(saved1);
        close(saved2);
        lseek(fd, 0, SEEK_SET);
        char *s = slurp(fd);
        CHECK_STREQ(s, "");
        free(s);
        close(fd);
        unlink(path);
}

/* ---- running ------------------------------------------------------------------ */

static void test_run_exit_status(void)
{
        const char *argv[] = {"sh", "-c", "exit 3", NULL};
        cordon_plan *plan = plan_for(NULL, argv, NULL);
        cordon_result res;
        memset(&res, 0xff, sizeof(res));
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_run(plan, &res, &err), 0);
        CHECK(err == NULL);
        CHECK_INTEQ(res.status, 3);
        CHECK_INTEQ(res.exit_code, 3);
        CHECK_INTEQ(res.signal, 0);
        CHECK(!res.timed_out && !res.oom_killed && !res.cpu_limited);
        CHECK(res.wall_s > 0 && res.wall_s < 30);
        char *json = cordon_result_to_json(&res);
        json_t *o = json ? json_loads(json, 0, NULL) : NULL;
        CHECK(o && json_integer_value(json_object_get(o, "status")) == 3);
        json_decref(o);
        free(json);
        /* a plan can be started again: a new sandbox each time */
        cordon_result again = {0};
        CHECK_INTEQ(cordon_run(plan, &again, NULL), 0);
        CHECK_INTEQ(again.status, 3);
        cordon_plan_free(plan);
}

/* The record of a refused run: the error with its location, no exit_code. */
static void test_error_stats_json(void)
{
        cordon_config *c = cordon_config_new();
        cordon_error *e = NULL;
        CHECK_INTEQ(cordon_config_load_string(c, "{\n \"isolation\": {\"network\": 3}}", "x.json", &e), -EINVAL);
        char *s = cordon_error_stats_json(e, NULL);
        json_t *o = s ? json_loads(s, 0, NULL) : NULL;
        json_t *er = json_object_get(o, "error");
        CHECK(o && !json_object_get(o, "exit_code") && json_integer_value(json_object_get(o, "status")) == 125);
        CHECK_STREQ(json_string_value(json_object_get(er, "file")), "x.json");
        CHECK_INTEQ(json_integer_value(json_object_get(er, "line")), 2);
        CHECK_INTEQ(json_integer_value(json_object_get(er, "column")), 27);
        CHECK_STREQ(json_string_value(json_object_get(er, "key")), "isolation.network");
        CHECK(json_object_get(er, "flag") == NULL);
        CHECK(s && strchr(s, '\n') == s + strlen(s) - 1); /* one line */
        json_decref(o);
        free(s);
        cordon_error_free(e);
        cordon_config_free(c);

        e = cordon_error_new("--set x: expected NAME=VALUE");
        s = cordon_error_stats_json(e, "--set");
        o = s ? json_loads(s, 0, NULL) : NULL;
        er = json_object_get(o, "error");
        CHECK_STREQ(json_string_value(json_object_get(er, "flag")), "--set");
        CHECK_STREQ(json_string_value(json_object_get(er, "message")), "--set x: expected NAME=VALUE");
        CHECK_INTEQ(json_integer_value(json_object_get(er, "code")), 125);
        CHECK(json_object_get(er, "file") == NULL && json_object_get(er, "line") == NULL);
        json_decref(o);
        free(s);
        cordon_error_free(e);
}

static void test_run_signal_status(void)
{
        const char *argv[] = {"sh", "-c", "kill -9 $$", NULL};
        cordon_plan *plan = plan_for(NULL, argv, NULL);
        cordon_result res = {0};
        CHECK_INTEQ(cordon_run(plan, &res, NULL), 0);
        CHECK_INTEQ(res.status, 137);
        CHECK_INTEQ(res.signal, SIGKILL);
        CHECK_INTEQ(res.exit_code, -1);
        cordon_plan_free(plan);
}

static void test_pipes(void)
{
        const char *argv[] = {"sh", "-c", "cat; echo to-stderr >&2; exit 4", NULL};
        int stdio[3] = {CORDON_STDIO_PIPE, CORDON_STDIO_PIPE, CORDON_STDIO_PIPE};
        cordon_plan *plan = plan_for(NULL, argv, stdio);
        cordon_process *p = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cordon_start(plan, &p, &err), 0);
        cordon_plan_free(plan); /* the process does not need the plan any more */
        if (!p) {
                printf("# %s\n", cordon_error_message(err));
                cordon_error_free(err);
                return;
        }
        int in = cordon_process_stdio(p, 0), out = cordon_process_stdio(p, 1), errfd = cordon_process_stdio(p, 2);
        CHECK(in >= 0 && out >= 0 && errfd >= 0);
        CHECK_INTEQ(cordon_process_stdio(p, 3), -1);
        CHECK_INTEQ(cordon_process_stdio(p, -1), -1);
        /* every caller end is close-on-exec: another child must not hold them */
        CHECK(fcntl(in, F_GETFD) & FD_CLOEXEC);
        CHECK(fcntl(out, F_GETFD) & FD_CLOEXEC);
        const char msg[] = "hello through the pipe\n";
        CHECK(write(in, msg, strlen(msg)) == (ssize_t)strlen(msg));
        cordon_process_close_stdio(p, 0);
        CHECK_INTEQ(cordon_process_stdio(p, 0), -1);
        cordon_process_close_stdio(p, 0); /* twice is harmless */
        char *o = slurp(out), *e = slurp(errfd);
        CHECK_STREQ(o, msg);
        CHECK_STREQ(e, "to-stderr\n");
        free(o);
        free(e);
        cordon_result res = {0};
        CHECK_INTEQ(cordon_wait(p, -1, &res, &err), 0);
        CHECK_INTEQ(res.status, 4);
        cordon_process_free(p);
}

static void test_stdio_null_and_fd(void)
{
        char path[160];
        snprintf(path, sizeof(path), "%s/out.txt", home);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        const char *argv[] = {"sh", "-c", "cat; echo done", NULL};
        int stdio[3] = {CORDON_STDIO_NULL, fd, CORDON_STDIO_INHERIT};
        cordon_plan *plan = plan_for(NULL, argv, stdio);
        cordon_result res = {0};
        CHECK_INTEQ(cordon_run(plan, &res, NULL), 0); /* cat sees EOF at once */
        CHECK_INTEQ(res.status, 0);
        CHECK(fcntl(fd, F_GETFD) >= 0); /* the caller keeps its descriptor */
        close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        char *s = slurp(fd);
        CHECK_STREQ(s, "done\n");
        free(s);
        close(fd);
        unlink(path);
        cordon_plan_free(plan);
}

static void test_wait_timeout_then_success(void)
{
        const char *argv[] = {"sh", "-c", "read line; exit 5", NULL};
        int stdio[3] = {CORDON_STDIO_PIPE, CORDON_STDIO_INHERIT, CORDON_STDIO_INHERIT};
        cordon_process *p = start_for(argv, stdio);
        if (!p)
                return;
        cordon_result res;
        memset(&res, 0x5a, sizeof(res));
        cordon_result untouched = res;
        cordon_error *err = NULL;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INTEQ(cordon_wait(p, 200, &res, &err), -ETIMEDOUT);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        CHECK(took >= 0.19 && took < 5);
        CHECK(err == NULL); /* a timeout is not an error */
        CHECK(memcmp(&res, &untouched, sizeof(res)) == 0);
        CHECK_INTEQ(cordon_wait(p, 0, &res, NULL), -ETIMEDOUT); /* a poll */
        CHECK_INTEQ(kill(cordon_process_pid(p), 0), 0); /* still runs */
        CHECK(write(cordon_process_stdio(p, 0), "go\n", 3) == 3);
        CHECK_INTEQ(cordon_wait(p, 10000, &res, &err), 0);
        CHECK_INTEQ(res.status, 5);
        CHECK(!res.timed_out);
        /* waiting again returns the same result */
        cordon_result again = {0};
        CHECK_INTEQ(cordon_wait(p, 0, &again, NULL), 0);
        CHECK_INTEQ(again.status, 5);
        cordon_error_free(err);
        cordon_process_free(p);
}

static void test_pid_and_pidfd(void)
{
        const char *argv[] = {"sh", "-c", "read line", NULL};
        int stdio[3] = {CORDON_STDIO_PIPE, CORDON_STDIO_INHERIT, CORDON_STDIO_INHERIT};
        cordon_process *p = start_for(argv, stdio);
        if (!p)
                return;
        pid_t pid = cordon_process_pid(p);
        int pidfd = cordon_process_pidfd(p);
        CHECK(pid > 0);
        CHECK(pidfd >= 0);
        CHECK(fcntl(pidfd, F_GETFD) & FD_CLOEXEC);
        struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
        CHECK_INTEQ(poll(&pfd, 1, 100), 0); /* running */
        char comm[64] = "", path[64];
        snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0 && read(fd, comm, sizeof(comm) - 1) > 0);
        close(fd);
        CHECK_STREQ(comm, "cordon-init\n"); /* the pid is the sandbox's init */
        cordon_process_close_stdio(p, 0); /* EOF: read returns, sh exits */
        CHECK_INTEQ(poll(&pfd, 1, 10000), 1); /* readable once the sandbox ended */
        cordon_result res = {0};
        CHECK_INTEQ(cordon_wait(p, 0, &res, NULL), 0);
        CHECK_INTEQ(res.status, 1); /* read at EOF fails */
        cordon_process_free(p);
}

/* The raw bytes of /proc/self/cmdline (argv with its NULs). */
static ssize_t read_cmdline(char *buf, size_t size)
{
        int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, size) : -1;
        if (fd >= 0)
                close(fd);
        return n;
}

/* The init may share the caller's memory: it must leave the caller's
 * argv, environment and dumpable flag as they were. */
static void test_caller_untouched(void)
{
        char before[4096], after[4096];
        ssize_t n = read_cmdline(before, sizeof(before));
        CHECK(n > 0);
        const char *path = getenv("PATH"); /* in the environment block the process started with */
        char *path_before = strdup(path ? path : "");
        const char *argv[] = {"true", NULL};
        cordon_process *p = start_for(argv, NULL);
        if (!p)
                return;
        cordon_result res = {0};
        CHECK_INTEQ(cordon_wait(p, -1, &res, NULL), 0);
        CHECK_INTEQ(res.status, 0);
        cordon_process_free(p);
        CHECK_INTEQ((int)read_cmdline(after, sizeof(after)), (int)n);
        CHECK(memcmp(before, after, (size_t)n) == 0);
        CHECK_STREQ(path ? path : "", path_before);
        CHECK_INTEQ(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
        free(path_before);
}

static void test_kill_whole_sandbox(void)
{
        char marker[64], script[256];
        snprintf(marker, sizeof(marker), "1%d.%d", (int)getpid(), (int)time(NULL) % 100000);
        /* the command, a background child of it, and a grandchild */
        snprintf(script, sizeof(script), "sleep %s & sh -c 'sleep %s' & exec sleep %s", marker, marker, marker);
        const char *argv[] = {"sh", "-c", script, NULL};
        cordon_process *p = start_for(argv, NULL);
        if (!p)
                return;
        int seen = 0;
        for (int i = 0; i < 40 && (seen = count_marker(marker)) < 3; i++)
                usleep(50000);
        CHECK_INTEQ(seen, 3); /* the control: all three run */
        CHECK_INTEQ(cordon_kill(p, SIGKILL), 0);
        cordon_result res = {0};
        CHECK_INTEQ(cordon_wait(p, 10000, &res, NULL), 0);
        CHECK_INTEQ(res.status, 128 + SIGKILL);
        CHECK(marker_gone(marker));
        CHECK_INTEQ(cordon_kill(p, SIGKILL), -ESRCH); /* already reaped */
        CHECK_INTEQ(cordon_signal_command(p, SIGTERM), -ESRCH);
        cordon_process_free(p);
}

static void test_kill_term_reaches_every_process(void)
{
        char marker[64], script[512];
        snprintf(marker, sizeof(marker), "2%d.%d", (int)getpid(), (int)time(NULL) % 100000);
        /* The background shell is not the command: only a signal to the
         * whole sandbox reaches it; it writes a file when SIGTERM arrives.
         * The command's own trap waits for it, then exits 9 (without that
         * wait, the init would kill the background shell as soon as the
         * command died, perhaps before its trap ran). */
        snprintf(script, sizeof(script),
                 "trap 'wait; exit 9' TERM; sh -c 'trap \"echo got >%s/bg-term; exit 0\" TERM; sleep %s & wait' & "
                 "sleep %s & wait",
                 workspace, marker, marker);
        const char *argv[] = {"sh", "-c", script, NULL};
        cordon_process *p = start_for(argv, NULL);
        if (!p)
                return;
        for (int i = 0; i < 40 && count_marker(marker) < 2; i++)
                usleep(50000);
        CHECK_INTEQ(cordon_kill(p, SIGTERM), 0);
        cordon_result res = {0};
        CHECK_INTEQ(cordon_wait(p, 10000, &res, NULL), 0);
        CHECK_INTEQ(res.status, 9); /* the command got it */
        char path[192];
        snprintf(path, sizeof(path), "%s/bg-term", workspace);
        CHECK(access(path, F_OK) == 0);
        unlink(path);
        CHECK(marker_gone(marker));
        cordon_process_free(p);
}

static void test_free_kills_a_running_sandbox(void)
{
        char marker[64], script[256];
        snprintf(marker, sizeof(marker), "3%d.%d", (int)getpid(), (int)time(NULL) % 100000);
        snprintf(script, sizeof(script), "sleep %s & exec sleep %s", marker, marker);
        const char *argv[] = {"sh", "-c", script, NULL};
        cordon_plan *plan = plan_for(NULL, argv, NULL);
        cordon_process *p = NULL;
        CHECK_INTEQ(cordon_start(plan, &p, NULL), 0);
        cordon_plan_free(plan);
        for (int i = 0; i < 40 && count_marker(marker) < 2; i++)
                usleep(50000);
        CHECK_INTEQ(count_marker(marker), 2);
        p = cordon_process_free(p);
        CHECK(marker_gone(marker));
}

static void test_wall_time_limit(void)
{
        cordon_config *c = new_config();
        cordon_config_set_limit(c, CORDON_LIMIT_WALL_TIME_S, 0.3, NULL);
        cordon_config_set_limit(c, CORDON_LIMIT_KILL_AFTER_S, 0.5, NULL);
        const char *argv[] = {"sleep", "30", NULL};
        cordon_plan *plan = plan_for(c, argv, NULL);
        cordon_result res = {0};
        CHECK_INTEQ(cordon_run(plan, &res, NULL), 0);
        CHECK(res.timed_out);
        CHECK_INTEQ(res.status, 124);
        CHECK(res.wall_s >= 0.3 && res.wall_s < 5);
        cordon_plan_free(plan);
        cordon_config_free(c);
}

/* An exec failure after the plan was made: the file went away in between.
 * cordon_start reports it as not found (127) and the command never ran. */
static void test_start_exec_failure(void)
{
        char path[160];
        write_workspace_file(path, sizeof(path), "vanishing", "#!/bin/sh\nexit 0\n", 0755);
        const char *argv[] = {path, NULL};
        cordon_plan *plan = plan_for(NULL, argv, NULL);
        CHECK(plan != NULL);
        unlink(path);
        cordon_process *p = SENTINEL;
        cordon_error *err = NULL;
        int r = cordon_start(plan, &p, &err);
        CHECK_INTEQ(r, -ENOENT);
        CHECK(p == SENTINEL);
        CHECK_INTEQ(cordon_error_exit_status(err), 127);
        CHECK(contains(cordon_error_message(err), "vanishing"));
        cordon_error_free(err);
        cordon_plan_free(plan);
}

/* A setup failure in the child (an exposed directory removed after the
 * plan was made): an error naming the step and the path, status 125, and
 * the command never ran. */
static void test_start_setup_failure(void)
{
        char dir[160], marker[192];
        snprintf(dir, sizeof(dir), "%s/vanishing-dir", home);
        snprintf(marker, sizeof(marker), "%s/ran", workspace);
        mkdir(dir, 0755);
        cordon_config *c = new_config();
        CHECK_INTEQ(cordon_config_add_expose(c, dir, "/opt/vanishing", false, NULL), 0);
        char script[256];
        snprintf(script, sizeof(script), "touch %s", marker);
        const char *argv[] = {"sh", "-c", script, NULL};
        cordon_plan *plan = plan_for(c, argv, NULL);
        CHECK(plan != NULL);
        rmdir(dir);
        cordon_process *p = SENTINEL;
        cordon_error *err = NULL;
        int r = cordon_start(plan, &p, &err);
        CHECK(r < 0);
        CHECK(p == SENTINEL);
        CHECK(err && cordon_error_errno(err) == -r);
        CHECK_INTEQ(cordon_error_exit_status(err), 125);
        CHECK(contains(cordon_error_message(err), "vanishing-dir"));
        if (!contains(cordon_error_message(err), "vanishing-dir"))
                printf("# %d %s\n", r, cordon_error_message(err));
        CHECK(access(marker, F_OK) < 0); /* never ran */
        cordon_error_free(err);
        cordon_plan_free(plan);
        cordon_config_free(c);
}

static void test_host_check(void)
{
        char *report = NULL;
        CHECK_INTEQ(cordon_host_check(NULL, true, &report), 1);
        json_t *o = report ? json_loads(report, 0, NULL) : NULL;
        CHECK(o && json_is_true(json_object_get(o, "backend_ok")));
        json_decref(o);
        free(report);
}

int main(void)
{
        if (!mkdtemp(home)) {
                printf("not ok 1 - mkdtemp\n1..1\n");
                return 1;
        }
        snprintf(workspace, sizeof(workspace), "%s/workspace", home);
        mkdir(workspace, 0700);
        RUN(test_destructors_accept_null);
        RUN(test_error_accessors_on_null);
        RUN(test_version);
        RUN(test_config_json_error_location);
        RUN(test_config_invalid_json);
        RUN(test_config_missing_file);
        RUN(test_config_unchanged_on_failure);
        RUN(test_config_file_layers);
        RUN(test_setter_failures);
        RUN(test_enum_setters_reject_out_of_range);
        RUN(test_error_is_replaced_not_leaked);
        RUN(test_command_failures);
        RUN(test_pty);
        RUN(test_prepare_not_found);
        RUN(test_prepare_not_executable);
        RUN(test_prepare_bad_cwd);
        RUN(test_env_only_plan);
        RUN(test_env_policy_on_base_env);
        RUN(test_die_with_parent);
        RUN(test_plan_json);
        RUN(test_disabled_isolation_warns_through_the_log);
        RUN(test_library_never_prints);
        RUN(test_run_exit_status);
        RUN(test_error_stats_json);
        RUN(test_run_signal_status);
        RUN(test_pipes);
        RUN(test_stdio_null_and_fd);
        RUN(test_wait_timeout_then_success);
        RUN(test_pid_and_pidfd);
        RUN(test_caller_untouched);
        RUN(test_kill_whole_sandbox);
        RUN(test_kill_term_reaches_every_process);
        RUN(test_free_kills_a_running_sandbox);
        RUN(test_wall_time_limit);
        RUN(test_start_exec_failure);
        RUN(test_start_setup_failure);
        RUN(test_host_check);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", home);
        return TAP_DONE();
}
