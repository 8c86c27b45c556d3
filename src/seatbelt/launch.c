/* SPDX-License-Identifier: MIT */
/* sandbox-exec -p PROFILE -D NAME=PATH ... -- EXE ARGS...: sandbox-exec
 * applies the profile to its own process and then executes the command,
 * which and whose children stay under it. It is run by its absolute path,
 * never looked up in PATH. The launcher forks a child that only makes
 * system calls on what was prepared before the fork (the launcher may be
 * multi-threaded): sessions, descriptors, rlimits, cwd, execve. */
#include "seatbelt/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seatbelt/render.h"

#ifndef NSIG
#define NSIG 65
#endif
#define MAX_CLOSE_FD 65536 /* descriptors the child closes (all cordon's own are close-on-exec) */

#ifdef __APPLE__
/* libsystem_sandbox (in no public header): nonzero when |pid| is sandboxed. */
int sandbox_check(pid_t pid, const char *operation, int type, ...);
#endif

typedef enum spawn_step { SPAWN_SESSION, SPAWN_STDIO, SPAWN_RLIMIT, SPAWN_CHDIR, SPAWN_EXEC } spawn_step;

typedef struct spawn_report {
        int step, err;
} spawn_report;

typedef struct spawn_data {
        char **argv;      /* sandbox-exec's; points into the plan and the profile */
        char *const *envp;
        const char *cwd;
        int stdio[3];     /* descriptors >= 3 to install as 0, 1, 2 (-1: leave closed) */
        int report_fd;
        int rlimit_resource[3];
        struct rlimit rlimit[3];
        size_t n_rlimits;
        int max_fd;
} spawn_data;

static void say(const cordon_plan *p, const char *message)
{
        if (p->log_fn)
                p->log_fn(CORDON_LOG_WARNING, message, p->log_userdata);
}

/* Limits with nothing on macOS to enforce them fail closed, as on Linux:
 * an error, or with limits_best_effort a warning. */
static int check_limits(const cordon_plan *p, cordon_error **ret_error)
{
        static const struct {
                cordon_limit which;
                const char *name, *why;
        } CANNOT[] = {
                {CORDON_LIMIT_MEMORY_BYTES, "memory_bytes", "macOS enforces neither RLIMIT_AS nor RLIMIT_DATA"},
                {CORDON_LIMIT_PIDS, "pids", "RLIMIT_NPROC counts every process of the user there"},
                {CORDON_LIMIT_TMP_SIZE_BYTES, "tmp_size_bytes", "the sandbox has no /tmp of its own there"},
                {CORDON_LIMIT_CPU_QUOTA, "cpu_quota", "macOS has no CPU bandwidth control"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(CANNOT); i++) {
                if (p->limits[CANNOT[i].which] <= 0)
                        continue;
                if (!p->limits_best_effort)
                        return error_set(ret_error, EOPNOTSUPP,
                                         "the seatbelt backend cannot enforce the %s limit (%s): remove it, or "
                                         "pass --limits-best-effort to run without it",
                                         CANNOT[i].name, CANNOT[i].why);
                _cleanup_free_ char *m = xasprintf("the seatbelt backend does not enforce the %s limit (%s)",
                                                   CANNOT[i].name, CANNOT[i].why);
                say(p, m ? m : "the seatbelt backend does not enforce a limit");
        }
        return 0;
}

static int check_host(const cordon_plan *p, cordon_error **ret_error)
{
        bool nested = p->nested_seatbelt;
#ifdef __APPLE__
        nested = nested || sandbox_check(getpid(), NULL, 0) > 0;
#endif
        if (nested)
                return error_set(ret_error, EPERM,
                                 "cordon runs inside a seatbelt sandbox already (CORDON_SANDBOX=seatbelt, or "
                                 "sandbox_check), and macOS applies no profile inside another: run cordon outside "
                                 "it (the command here is sandboxed already)");
        if (access(CORDON_SANDBOX_EXEC, X_OK) < 0)
                return error_set(ret_error, errno,
                                 "the seatbelt backend needs %s: %s (it is part of macOS; cordon never looks it up "
                                 "in PATH)",
                                 CORDON_SANDBOX_EXEC, strerror(errno));
#ifdef CORDON_SEATBELT_STANDIN
        say(p, "this cordon was built with -Dseatbelt_standin=true: a test stand-in replaces sandbox-exec and "
               "does NOT isolate the command");
#endif
        return 0;
}

static void add_rlimit(spawn_data *d, int resource, double v, double extra)
{
        if (v <= 0)
                return;
        d->rlimit_resource[d->n_rlimits] = resource;
        d->rlimit[d->n_rlimits].rlim_cur = (rlim_t)v;
        d->rlimit[d->n_rlimits].rlim_max = (rlim_t)(v + extra);
        d->n_rlimits++;
}

/* sandbox-exec -p PROFILE -D P1 -D P2 ... -- EXE ARG1 ... (pointers into
 * |p| and |sp|). NULL on ENOMEM. */
static char **build_argv(const cordon_plan *p, const seatbelt_profile *sp)
{
        size_t np = strv_len(sp->params), na = strv_len(p->argv), k = 0;
        char **v = calloc(3 + 2 * np + 2 + na + 1, sizeof(char *));
        if (!v)
                return NULL;
        v[k++] = (char *)CORDON_SANDBOX_EXEC;
        v[k++] = (char *)"-p";
        v[k++] = sp->text;
        for (size_t i = 0; i < np; i++) {
                v[k++] = (char *)"-D";
                v[k++] = sp->params[i];
        }
        v[k++] = (char *)"--";
        v[k++] = p->exe;
        for (size_t i = 1; i < na; i++)
                v[k++] = p->argv[i];
        return v;
}

static int cloexec_pipe(int fds[2])
{
        if (pipe(fds) < 0)
                return -errno;
        if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0) {
                int e = errno;
                close(fds[0]);
                close(fds[1]);
                return -e;
        }
        return 0;
}

/* The child's 0, 1, 2 as close-on-exec copies above 2 (so that installing
 * one never overwrites another), and the caller's ends of pipes. */
static int prepare_stdio(const cordon_plan *p, spawn_data *d, int parent[3], cordon_error **ret_error)
{
        for (int i = 0; i < 3; i++) {
                int want = p->stdio[i], made = -1, src = want >= 0 ? want : i;
                if (want == CORDON_STDIO_NULL) {
                        made = src = open("/dev/null", (i == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
                } else if (want == CORDON_STDIO_PIPE) {
                        int fds[2];
                        int r = cloexec_pipe(fds);
                        if (r < 0)
                                return error_set(ret_error, -r, "cannot create a pipe: %s", strerror(-r));
                        made = src = i == 0 ? fds[0] : fds[1];
                        parent[i] = i == 0 ? fds[1] : fds[0];
                }
                d->stdio[i] = src < 0 ? -1 : fcntl(src, F_DUPFD_CLOEXEC, 3);
                int e = errno;
                if (made >= 0)
                        close(made);
                if (d->stdio[i] < 0 && !(want == CORDON_STDIO_INHERIT && e == EBADF)) /* a closed one stays closed */
                        return error_set(ret_error, e, "cannot set up the command's fd %d: %s", i, strerror(e));
        }
        return 0;
}

/* After fork(): system calls only. Never returns. */
static _Noreturn void child_main(const spawn_data *d)
{
        spawn_report rep = {SPAWN_SESSION, 0};
        sigset_t none;
        for (int sig = 1; sig < NSIG; sig++)
                signal(sig, SIG_DFL); /* an ignored SIGPIPE would be inherited through execve */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* A session of its own: cordon_kill signals the process group, and
         * without a controlling terminal no TIOCSTI can type into the caller's */
        if (setsid() < 0)
                goto fail;
        rep.step = SPAWN_STDIO;
        for (int i = 0; i < 3; i++)
                if (d->stdio[i] >= 0 ? dup2(d->stdio[i], i) < 0 : close(i) < 0 && errno != EBADF)
                        goto fail;
        rep.step = SPAWN_RLIMIT;
        for (size_t i = 0; i < d->n_rlimits; i++)
                if (setrlimit(d->rlimit_resource[i], &d->rlimit[i]) < 0)
                        goto fail;
        rep.step = SPAWN_CHDIR;
        if (d->cwd && chdir(d->cwd) < 0)
                goto fail;
        for (int fd = 3; fd <= d->max_fd; fd++)
                if (fd != d->report_fd)
                        close(fd);
        rep.step = SPAWN_EXEC;
        execve(d->argv[0], d->argv, d->envp);
fail:
        rep.err = errno;
        (void)!write(d->report_fd, &rep, sizeof(rep));
        _exit(127);
}

static int report_error(const spawn_report *rep, cordon_error **ret_error)
{
        static const char *const WHAT[] = {"start a session", "set up its stdio", "set its limits",
                                           "enter the working directory", "execute"};
        int step = rep->step >= 0 && rep->step <= SPAWN_EXEC ? rep->step : SPAWN_EXEC;
        return error_set(ret_error, rep->err, "cannot start the command: cannot %s%s: %s", WHAT[step],
                         step == SPAWN_EXEC ? " " CORDON_SANDBOX_EXEC : "", strerror(rep->err));
}

/* Fork, and wait until the child executed sandbox-exec (EOF on the report
 * pipe) or reported why it could not. */
static int fork_child(spawn_data *d, int report_read, pid_t *ret_pid, cordon_error **ret_error)
{
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* no caller's handler runs in the child */
        pid_t pid = fork();
        int e = errno;
        if (pid == 0)
                child_main(d);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        close(d->report_fd);
        d->report_fd = -1;
        if (pid < 0)
                return error_set(ret_error, e, "cannot start the command: %s", strerror(e));
        spawn_report rep;
        ssize_t n;
        while ((n = read(report_read, &rep, sizeof(rep))) < 0 && errno == EINTR)
                ;
        if (n == 0) {
                *ret_pid = pid;
                return 0;
        }
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        if (n != (ssize_t)sizeof(rep))
                rep = (spawn_report){SPAWN_EXEC, n < 0 ? errno : EIO};
        return report_error(&rep, ret_error);
}

static int spawn(const cordon_plan *p, const seatbelt_profile *sp, char *const *envp, int parent[3], pid_t *ret_pid,
                 cordon_error **ret_error)
{
        spawn_data d = {.envp = envp ? envp : p->env, .cwd = p->host_cwd, .stdio = {-1, -1, -1}, .report_fd = -1};
        int report[2] = {-1, -1};
        long max = sysconf(_SC_OPEN_MAX);
        d.max_fd = max < 0 || max > MAX_CLOSE_FD ? MAX_CLOSE_FD : (int)max;
        add_rlimit(&d, RLIMIT_CPU, p->limits[CORDON_LIMIT_CPU_TIME_S], 1); /* SIGKILL 1 s after SIGXCPU */
        add_rlimit(&d, RLIMIT_NOFILE, p->limits[CORDON_LIMIT_OPEN_FILES], 0);
        add_rlimit(&d, RLIMIT_FSIZE, p->limits[CORDON_LIMIT_FILE_SIZE_BYTES], 0);
        d.argv = build_argv(p, sp);
        int r = d.argv ? prepare_stdio(p, &d, parent, ret_error) : error_set(ret_error, ENOMEM, "out of memory");
        if (r == 0 && (r = cloexec_pipe(report)) < 0)
                r = error_set(ret_error, -r, "cannot create a pipe: %s", strerror(-r));
        if (r == 0) {
                d.report_fd = report[1];
                r = fork_child(&d, report[0], ret_pid, ret_error);
        }
        for (int i = 0; i < 3; i++)
                if (d.stdio[i] >= 0)
                        close(d.stdio[i]);
        if (report[0] >= 0)
                close(report[0]);
        if (d.report_fd >= 0)
                close(d.report_fd);
        free(d.argv);
        return r;
}

int seatbelt_spawn(const cordon_plan *p, const seatbelt_options *o, char *const *envp, int ret_stdio[3],
                   pid_t *ret_pid, cordon_error **ret_error)
{
        int parent[3] = {-1, -1, -1};
        seatbelt_profile sp = {0};
        int r = check_host(p, ret_error);
        if (r == 0)
                r = check_limits(p, ret_error);
        if (r == 0 && p->network == CORDON_NETWORK_PROXY && (!o || o->proxy_port <= 0))
                r = error_set(ret_error, EINVAL, "the proxy network needs the proxy's port (internal error)");
        if (r == 0 && seatbelt_render(p, o, &sp) < 0)
                r = error_set(ret_error, ENOMEM, "out of memory");
        if (r == 0)
                r = spawn(p, &sp, envp, parent, ret_pid, ret_error);
        seatbelt_profile_clear(&sp);
        for (int i = 0; i < 3; i++) {
                if (r < 0 && parent[i] >= 0)
                        close(parent[i]);
                ret_stdio[i] = r < 0 ? -1 : parent[i];
        }
        return r;
}
