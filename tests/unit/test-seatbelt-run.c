/* SPDX-License-Identifier: MIT */
/* The seatbelt backend's run path on Linux: this binary links its own copy
 * of src/seatbelt/launch.c with the stand-in (tests/helpers/
 * sandbox-exec-standin.c) in place of /usr/bin/sandbox-exec, so
 * cordon_start goes through the very code macOS runs: the argv, -D
 * parameters, the redirected environment, stdio, limits and the refusals.
 * The stand-in isolates nothing: what the profile denies is not tested
 * here (no Mac in CI). Built a second time with a sandbox-exec that does
 * not exist (SEATBELT_MISSING) for that error. */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "plan.h"
#include "seatbelt/render.h"
#include "tap.h"

static char *base, *home, *ws, *rec;

static cordon_config *config(void)
{
        cordon_config *c = cordon_config_new();
        CHECK(c && cordon_config_set_backend(c, "seatbelt", NULL) == 0);
        CHECK(cordon_config_set_home(c, home, NULL) == 0 && cordon_config_set_workspace(c, ws, NULL) == 0);
        CHECK(cordon_config_env_set(c, "CORDON_STANDIN_RECORD", rec, NULL) == 0);
        return c;
}

static cordon_plan *prepare(cordon_config *c, const char *script, int out_fd)
{
        const char *argv[] = {"sh", "-c", script, NULL};
        cordon_command *cmd = cordon_command_new(argv);
        cordon_command_set_cwd(cmd, ws);
        cordon_command_set_stdio(cmd, 1, out_fd);
        cordon_plan *p = NULL;
        cordon_error *e = NULL;
        if (cordon_prepare(c, cmd, &p, &e) < 0)
                printf("# prepare: %s\n", cordon_error_message(e));
        cordon_error_free(e);
        cordon_command_free(cmd);
        return p;
}

/* Start |p|; on failure NULL and |*ret_message| the error. */
static cordon_process *start(cordon_plan *p, char **ret_message)
{
        cordon_process *proc = NULL;
        cordon_error *e = NULL;
        if (cordon_start(p, &proc, &e) < 0) {
                *ret_message = strdup(cordon_error_message(e));
                CHECK_INTEQ(cordon_error_exit_status(e), 125);
        }
        cordon_error_free(e);
        return proc;
}

static __attribute__((unused)) char *read_all(int fd)
{
        buf b = {0};
        char chunk[512];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof(chunk))) > 0)
                buf_put(&b, chunk, (size_t)n);
        return b.len ? buf_steal(&b) : strdup("");
}

static __attribute__((unused)) char *record(const char *suffix)
{
        _cleanup_free_ char *path = strjoin2(rec, suffix);
        return tap_read_file(path);
}

#ifndef SEATBELT_MISSING
/* The command runs through the stand-in with the rendered profile, its
 * parameters and the plan's environment, and its status comes back. */
static void test_run_through_standin(void)
{
        cordon_config *c = config();
        cordon_plan *p = prepare(c, "printf '%s %s %s' \"$CORDON_SANDBOX\" \"$HOME\" \"$TMPDIR\"; pwd; exit 7",
                                 CORDON_STDIO_PIPE);
        CHECK(p != NULL);
        _cleanup_free_ char *msg = NULL;
        cordon_process *proc = p ? start(p, &msg) : NULL;
        if (msg)
                printf("# start: %s\n", msg);
        CHECK(proc != NULL);
        _cleanup_free_ char *out = proc ? read_all(cordon_process_stdio(proc, 1)) : NULL;
        cordon_result res = {0};
        CHECK(proc && cordon_wait(proc, 10000, &res, NULL) == 0);
        CHECK_INTEQ(res.status, 7);
        _cleanup_free_ char *want = xasprintf("seatbelt %s/runtime-user-env/home %s/runtime-user-env/tmp%s\n", home,
                                              home, ws);
        CHECK_STREQ(out, want);
        /* what sandbox-exec got: this plan's profile and parameters, then
         * the command by its resolved path */
        seatbelt_profile sp = {0};
        CHECK(p && seatbelt_render(p, NULL, &sp) == 0);
        _cleanup_free_ char *profile = record(".profile"), *params = record(".params"), *argv = record(".argv");
        CHECK_STREQ(profile, sp.text);
        buf b = {0};
        for (size_t i = 0; sp.params && sp.params[i]; i++)
                buf_printf(&b, "%s\n", sp.params[i]);
        _cleanup_free_ char *want_params = buf_steal(&b);
        CHECK_STREQ(params, want_params);
        CHECK(params && strstr(params, "WORKSPACE=/private") && strstr(params, ws)); /* /tmp -> /private/tmp */
        _cleanup_free_ char *want_argv = xasprintf("%s\n-c\n", p ? p->exe : "?");
        CHECK(argv && want_argv && strncmp(argv, want_argv, strlen(want_argv)) == 0);
        seatbelt_profile_clear(&sp);
        cordon_process_free(proc);
        cordon_plan_free(p);
        cordon_config_free(c);
}

/* cordon inside a seatbelt sandbox of its own refuses to nest one; the
 * control is the run above, without the marker. */
static void test_nested_refused(void)
{
        cordon_config *c = config();
        setenv("CORDON_SANDBOX", "seatbelt", 1);
        cordon_plan *p = prepare(c, "exit 0", CORDON_STDIO_INHERIT);
        unsetenv("CORDON_SANDBOX");
        _cleanup_free_ char *msg = NULL;
        cordon_process *proc = p ? start(p, &msg) : NULL;
        CHECK(proc == NULL);
        CHECK(msg && strstr(msg, "inside a seatbelt sandbox already"));
        cordon_process_free(proc);
        cordon_plan_free(p);
        cordon_config_free(c);
}

static int warnings;
static void on_log(cordon_log_level level, const char *message, void *userdata)
{
        (void)userdata;
        if (level == CORDON_LOG_WARNING && strstr(message, "does not enforce the memory_bytes limit"))
                warnings++;
}

/* A limit macOS cannot enforce fails closed; best effort runs and warns. */
static void test_limits_fail_closed(void)
{
        cordon_config *c = config();
        cordon_config_set_log(c, on_log, NULL);
        CHECK(cordon_config_set_limit_text(c, CORDON_LIMIT_MEMORY_BYTES, "100M", NULL) == 0);
        cordon_plan *p = prepare(c, "exit 0", CORDON_STDIO_INHERIT);
        _cleanup_free_ char *msg = NULL;
        cordon_process *proc = p ? start(p, &msg) : NULL;
        CHECK(proc == NULL && msg && strstr(msg, "cannot enforce the memory_bytes limit"));
        cordon_plan_free(p);
        cordon_config_set_limits_best_effort(c, true);
        p = prepare(c, "exit 0", CORDON_STDIO_INHERIT);
        proc = p ? start(p, &msg) : NULL;
        cordon_result res = {0};
        CHECK(proc && cordon_wait(proc, 10000, &res, NULL) == 0 && res.status == 0);
        CHECK_INTEQ(warnings, 1);
        cordon_process_free(proc);
        cordon_plan_free(p);
        cordon_config_free(c);
}

/* The limits it can enforce: RLIMIT_FSIZE set in the child (the control:
 * the same write succeeds without it), and the wall time from outside. */
static void test_limits_enforced(void)
{
        for (int limited = 0; limited < 2; limited++) {
                cordon_config *c = config();
                if (limited)
                        CHECK(cordon_config_set_limit_text(c, CORDON_LIMIT_FILE_SIZE_BYTES, "4K", NULL) == 0);
                cordon_plan *p = prepare(c, "head -c 65536 /dev/zero > big", CORDON_STDIO_INHERIT);
                _cleanup_free_ char *msg = NULL;
                cordon_process *proc = p ? start(p, &msg) : NULL;
                cordon_result res = {0};
                CHECK(proc && cordon_wait(proc, 10000, &res, NULL) == 0);
                CHECK_INTEQ(res.status != 0, limited);
                cordon_process_free(proc);
                cordon_plan_free(p);
                cordon_config_free(c);
        }
        cordon_config *c = config();
        CHECK(cordon_config_set_limit_text(c, CORDON_LIMIT_WALL_TIME_S, "0.3", NULL) == 0);
        cordon_plan *p = prepare(c, "sleep 20", CORDON_STDIO_INHERIT);
        _cleanup_free_ char *msg = NULL;
        cordon_process *proc = p ? start(p, &msg) : NULL;
        cordon_result res = {0};
        CHECK(proc && cordon_wait(proc, 10000, &res, NULL) == 0);
        CHECK(res.timed_out && res.status == 124);
        cordon_process_free(proc);
        cordon_plan_free(p);
        cordon_config_free(c);
}
#else
static void test_missing_sandbox_exec(void)
{
        cordon_config *c = config();
        cordon_plan *p = prepare(c, "exit 0", CORDON_STDIO_INHERIT);
        _cleanup_free_ char *msg = NULL;
        cordon_process *proc = p ? start(p, &msg) : NULL;
        CHECK(proc == NULL);
        CHECK(msg && strstr(msg, "the seatbelt backend needs /nonexistent/sandbox-exec"));
        cordon_plan_free(p);
        cordon_config_free(c);
}
#endif

int main(void)
{
        char tmpl[] = "/tmp/cordon-seatbelt-XXXXXX";
        base = mkdtemp(tmpl);
        if (!base)
                return 1;
        home = strjoin2(base, "/home");
        ws = strjoin2(base, "/ws");
        rec = strjoin2(base, "/record");
        if (mkdir(ws, 0700) < 0)
                return 1;
#ifndef SEATBELT_MISSING
        RUN(test_run_through_standin);
        RUN(test_nested_refused);
        RUN(test_limits_fail_closed);
        RUN(test_limits_enforced);
#else
        RUN(test_missing_sandbox_exec);
#endif
        _cleanup_free_ char *rm = xasprintf("rm -rf '%s'", base);
        if (system(rm) != 0)
                printf("# cannot remove %s\n", base);
        free(home);
        free(ws);
        free(rec);
        return TAP_DONE();
}
