/* SPDX-License-Identifier: MIT */
/* The linux backend (src/core/backend.h) for the linux, landlock and none
 * plans: linux_backend_ops and the process it starts (through launch.c),
 * waits for, kills and frees. */
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cgroup.h"
#include "config.h"
#include "denied.h"
#include "env.h"
#include "error.h"
#include "gitcheck.h"
#include "host.h"
#include "instance.h"
#include "net/proxy.h"
#include "process.h"
#include "protect.h"
#include "sandbox-user.h"
#include "supervise.h"
#include "terminal.h"
#include "undo.h"

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The phases after the command (CORDON_DEBUG=timing). */
enum { AFTER_END, AFTER_STOP, AFTER_PLACEHOLDERS, AFTER_GIT, AFTER_CGROUP, AFTER__MAX };

static double ts_s(const struct timespec *ts) { return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9; }

/* ---- prepare ---------------------------------------------------------------------- */

/* The steps a seccomp profile from outside (a container runtime's) refuses
 * and the run goes without: none a security property (plan_degraded). */
static int note_degraded(cordon_plan *p)
{
        if (!host_seccomp_filtered())
                return 0;
        int r = 0;
        int e = p->backend == BACKEND_LINUX ? host_probe_hostname() : 0;
        if (e) {
                free(p->hostname);
                p->hostname = NULL; /* the init leaves it */
                r = plan_add_degraded(p, "hostname",
                                      xasprintf("the sandbox keeps the host's hostname, in a UTS namespace of its "
                                                "own: sethostname is refused here (%s), as a container's seccomp "
                                                "profile does (the fix: %s)",
                                                strerror(e), host_engine_flag("hostname")));
        }
        /* ENOSYS: the kernel lacks it, and prepare_launch refuses the run */
        e = p->backend == BACKEND_LANDLOCK ? host_probe_pidfd_getfd() : 0;
        if (r == 0 && e && e != ENOSYS)
                r = plan_add_degraded(p, "connect",
                                      xasprintf("the command's connect() and listen() fail (EPERM), on every "
                                                "network: the call supervisor takes the command's socket with "
                                                "pidfd_getfd, which is refused here (%s), as Docker's default "
                                                "seccomp profile does without CAP_SYS_PTRACE (the fix: %s)",
                                                strerror(e), host_engine_flag("pidfd_getfd")));
        return r;
}

static int prepare(cordon_plan *p, cordon_error **ret_error)
{
        if (note_degraded(p) < 0)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (p->limits[CORDON_LIMIT_PIDS] > 0) {
                /* what would enforce the process limit, for `cordon plan` */
                _cleanup_free_ char *text = NULL;
                int by = host_pids_mechanism(p->backend == BACKEND_LINUX, p->sandbox_user, &text);
                p->pids_by = by > 0 ? (pids_by)by : PIDS_BY_UNKNOWN;
        }
        return 0;
}

static cordon_process *process_new(const cordon_plan *p)
{
        cordon_process *proc = calloc(1, sizeof(*proc));
        if (!proc)
                return NULL;
        process_head_init(&proc->head, &linux_backend_ops);
        denied_list_set_home(proc->head.denied, p->caller_home);
        proc->backend = p->backend;
        proc->status_fd = -1;
        proc->view_lock = -1;
        proc->broadcast_signal = SIGRTMIN;
        proc->command_signal = SIGRTMIN + 2;
        proc->wall_limit = p->limits[CORDON_LIMIT_WALL_TIME_S];
        proc->kill_after = p->limits[CORDON_LIMIT_KILL_AFTER_S];
        proc->cpu_limit = p->limits[CORDON_LIMIT_CPU_TIME_S];
        for (int i = 0; i < 3; i++)
                proc->terminals[i].fd = -1;
        proc->debug_timing = p->debug_timing;
        proc->log_fn = p->log_fn;
        proc->log_userdata = p->log_userdata;
        if (p->n_degraded && !(proc->degraded = plan_degraded_json(p))) {
                process_head_close(&proc->head);
                free(proc);
                return NULL;
        }
        return proc;
}

/* How many things this run may make on the host (undo.h): a cgroup
 * directory per hierarchy, the placeholders. */
static size_t undo_notes_needed(const cordon_plan *p)
{
        size_t n = 0;
        if (p->limits[CORDON_LIMIT_MEMORY_BYTES] > 0 || p->limits[CORDON_LIMIT_PIDS] > 0 ||
            p->limits[CORDON_LIMIT_CPU_QUOTA] > 0)
                n += 3;
        size_t missing = 0;
        for (size_t i = 0; p->backend == BACKEND_LINUX && i < p->n_mounts; i++)
                missing += p->mounts[i].missing;
        return n + missing + (missing > 0); /* and their journal */
}

/* Does the run have a git check (gitcheck.h): a linux or landlock
 * backend with a writable mount outside the instance root? */
static bool checks_git(const cordon_plan *p)
{
        for (size_t i = 0; (p->backend == BACKEND_LINUX || p->backend == BACKEND_LANDLOCK) && i < p->n_mounts; i++)
                if (p->mounts[i].type == MOUNT_BIND && p->mounts[i].writable && p->mounts[i].origin != ORIGIN_INSTANCE &&
                    p->mounts[i].origin != ORIGIN_PROTECT)
                        return true;
        return false;
}

/* protect.c makes the placeholders; each is noted in the undo log first,
 * by its parent directory reached without following a symlink, so that a
 * launcher killed meanwhile leaves none behind. */
static int make_placeholders(const cordon_plan *p, cordon_process *proc, protect_lock *lock,
                             cordon_error **ret_error)
{
        size_t n = 0;
        for (size_t i = 0; proc->undo && p->backend == BACKEND_LINUX && i < p->n_mounts; i++)
                n += p->mounts[i].missing;
        _cleanup_free_ int *notes = n ? calloc(n, sizeof(int)) : NULL;
        _cleanup_free_ int *dirs = n ? calloc(n, sizeof(int)) : NULL;
        if (n && (!notes || !dirs))
                return error_set(ret_error, ENOMEM, "out of memory");
        for (size_t i = 0, k = 0; k < n; i++) {
                const plan_mount *m = &p->mounts[i];
                if (!m->missing)
                        continue;
                notes[k] = undo_note_path(proc->undo, m->source, &dirs[k]);
                undo_expect_size(proc->undo, notes[k], m->content ? (off_t)strlen(m->content) : 0);
                k++;
        }
        int r = protect_placeholders_create(p, proc->undo, notes, dirs, lock, &proc->placeholders, ret_error);
        for (size_t k = 0; k < n; k++) {
                undo_made(proc->undo, notes[k], false, dirs[k]); /* not attempted (a failure before it) */
                if (dirs[k] >= 0)
                        close(dirs[k]);
        }
        return r;
}

/* The placeholders and the git check's start, made while the sandbox's
 * init mounts the view (it waits for them, launch.h placeholders_fd): by
 * a thread of ours, as the init shares this thread's errno. Neither logs
 * (the caller's log callback is called on its own thread only), and the
 * thread is joined before cordon_start returns. */
typedef struct git_prep {
        const cordon_plan *p;
        cordon_process *proc;
        protect_lock lock;
        int logs, done_fd; /* borrowed; ours: "p" or "x" goes there */
        int r;
        cordon_error *error;
        bool threaded;
        pthread_t thread;
} git_prep;

static int git_prep_run(git_prep *g)
{
        g->r = make_placeholders(g->p, g->proc, &g->lock, &g->error);
        protect_lock_release(&g->lock); /* what was not taken over (a failure on the way) */
        if (g->r == 0 && git_check_begin(g->p, g->logs, &g->proc->git) < 0)
                g->r = error_set(&g->error, ENOMEM, "out of memory");
        if (g->r == 0) /* should we die, the helper checks from its journal */
                undo_set_git_check(g->proc->undo, git_check_journal_name(g->proc->git));
        if (g->done_fd >= 0) {
                (void)!write(g->done_fd, g->r == 0 ? "p" : "x", 1);
                close(g->done_fd);
                g->done_fd = -1;
        }
        return g->r;
}

static void *git_prep_main(void *g)
{
        git_prep_run(g);
        return NULL;
}

/* On a thread when the init waits for it (|done_fd|), else at once; the
 * thread has every signal blocked. */
static void git_prep_start(git_prep *g, int done_fd)
{
        g->done_fd = done_fd;
        if (done_fd >= 0) {
                sigset_t all, old;
                sigfillset(&all);
                pthread_sigmask(SIG_SETMASK, &all, &old);
                g->threaded = pthread_create(&g->thread, NULL, git_prep_main, g) == 0;
                pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        if (!g->threaded)
                git_prep_run(g);
}

/* Its result: its error (the more precise) before the launch's |r|. */
static int git_prep_finish(git_prep *g, int r, cordon_error **ret_error)
{
        if (g->threaded)
                pthread_join(g->thread, NULL);
        g->threaded = false;
        if (g->r == 0) {
                cordon_error_free(g->error);
                return r;
        }
        if (ret_error) {
                cordon_error_free(*ret_error);
                *ret_error = g->error;
        } else {
                cordon_error_free(g->error);
        }
        return g->r;
}

/* The sandbox user's setresuid, in the command's process that shares our
 * memory until execve, makes the kernel mark this whole process not
 * dumpable: what it was before the clone is put back once the command
 * executed (a thread of ours as the sandbox user, the call supervisor's,
 * puts it back too: supervise.c). -1: nothing to put back. */
static int dumpable_before(const cordon_plan *p)
{
        return p->sandbox_user ? prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) : -1;
}

static void dumpable_restore(int before)
{
        if (before == 1)
                (void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static void free_sandbox(cordon_process *p);

static int start(const cordon_plan *p, cordon_process **ret_proc, cordon_error **ret_error)
{
        double lm[LMARK__MAX] = {now_s()};
        int r = 0;
        _cleanup_close_ int logs = -1; /* checked once, for the journals */
        if (p->backend != BACKEND_NONE)
                r = instance_create(p->instance_root, p->workspace, &logs, ret_error);
        if (r == 0 && p->sandbox_user)
                r = sandbox_user_grant(p, ret_error);
        lm[LMARK_INSTANCE] = now_s();
        if (r < 0)
                return r;
        cordon_process *proc = process_new(p);
        if (!proc)
                return error_set(ret_error, ENOMEM, "out of memory");
        /* Before anything is made on the host: the helper that undoes it
         * should we die first. */
        git_prep prep = {.p = p, .proc = proc, .logs = logs, .done_fd = -1};
        protect_lock_take(p, logs, &prep.lock);
        size_t notes = undo_notes_needed(p);
        /* and the git check, should we die first: in cordon's helper program */
        _cleanup_close_ int helper = logs >= 0 && checks_git(p) ? open(p->helper_exe, O_PATH | O_CLOEXEC) : -1;
        undo_checker checker = {helper, logs};
        if (notes || helper >= 0)
                r = undo_start_checked(notes, prep.lock.fd, !p->debug_fork_init, &checker, &proc->undo, ret_error);
        bool nproc = false;
        lm[LMARK_GIT] = now_s();
        if (r == 0)
                r = cgroup_prepare(p, proc->undo, &proc->cg, &nproc, ret_error);
        lm[LMARK_CGROUP] = now_s();
        launch_storage s;
        launch_storage_init(&s);
        if (r == 0)
                r = prepare_launch(p, nproc, &s, ret_error);
        bool prepping = r == 0;
        if (prepping) {
                git_prep_start(&prep, TAKE_FD(s.placeholders_pipe[1]));
                if (!prep.threaded)
                        r = prep.r; /* done at once */
        } else {
                protect_lock_release(&prep.lock);
        }
        if (r == 0 && p->log_plan)
                log_plan(p, &s);
        if (r == 0 && p->backend != BACKEND_NONE && !(proc->protections = protections_json(p, &s, proc->cg != NULL)))
                r = error_set(ret_error, ENOMEM, "out of memory");
        if (r == 0 && (s.proxy_pair[0] >= 0 || s.proxy_listener >= 0))
                r = proxy_start((const char *const *)p->network_allow, s.fwd,
                                p->backend == BACKEND_LINUX ? s.n_fwd : 0, TAKE_FD(s.proxy_listener),
                                TAKE_FD(s.proxy_pair[0]), p->log_fn, p->log_userdata, &proc->proxy, ret_error);
        proc->head.proxy = proc->proxy;
        /* a terminal the command gets as it is (no terminal of its own)
         * is put back as it was when the sandbox ends */
        if (r == 0 && p->backend != BACKEND_NONE)
                terminals_save(s.l.stdio, proc->terminals);
        lm[LMARK_CLONE] = now_s();
        int dumpable = dumpable_before(p);
        if (r == 0)
                r = clone_sandbox(p, &s, proc, ret_error);
        dumpable_restore(dumpable);
        if (prepping)
                r = git_prep_finish(&prep, r, ret_error);
        if (r == 0 && p->debug_timing)
                report_timing(p, &s, lm, now_s());
        launch_storage_free(&s);
        if (r < 0) {
                free_sandbox(proc);
                return r;
        }
        *ret_proc = proc;
        return 0;
}

/* ---- signals -------------------------------------------------------------------------- */

static int signal_command(cordon_process *p, int sig)
{
        if (p->finished)
                return -ESRCH;
        /* The init forwards these to the command, the landlock backend's
         * supervisor any signal it is asked to (a signal of its own would
         * stop or kill it). Async-signal-safe. */
        if (p->backend == BACKEND_LANDLOCK) {
                union sigval v = {.sival_int = sig};
                return sigqueue(p->head.pid, p->command_signal, v) < 0 ? -errno : 0;
        }
        return kill(p->head.pid, sig) < 0 ? -errno : 0;
}

static int kill_sandbox(cordon_process *p, int sig)
{
        if (p->finished)
                return -ESRCH;
        if (sig == SIGKILL && p->backend == BACKEND_LINUX) {
                /* pid 1 dying takes the whole pid namespace with it */
                p->killed = true;
                return kill(p->head.pid, SIGKILL) < 0 ? -errno : 0;
        }
        /* the init, or the landlock backend's supervisor, signals every
         * process of the sandbox (SIGKILL too: the supervisor must outlive
         * the tree it kills) */
        if (p->backend != BACKEND_NONE) {
                union sigval v = {.sival_int = sig};
                return sigqueue(p->head.pid, p->broadcast_signal, v) < 0 ? -errno : 0;
        }
        if (p->cg && cgroup_signal(p->cg, sig) == 0)
                return 0;
        /* isolation disabled: the command's process group */
        return kill(-p->head.pid, sig) < 0 && kill(p->head.pid, sig) < 0 ? -errno : 0;
}

/* ---- waiting ---------------------------------------------------------------------------- */

static void fill_result(cordon_process *p, int ws, const struct rusage *ru, int64_t max_rss_kb)
{
        cordon_result *res = &p->result;
        struct timespec end;
        clock_gettime(CLOCK_MONOTONIC, &end);
        res->wall_s = ts_s(&end) - ts_s(&p->started);
        res->user_s = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6;
        res->sys_s = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
        res->max_rss_bytes = (uint64_t)(max_rss_kb > 0 ? max_rss_kb : 0) * 1024;
        if (p->cg)
                cgroup_collect(p->cg, res);
        result_set_end(res, WEXITSTATUS(ws), WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, p->cpu_limit);
}

/* Reap the sandbox's first process; unless the init already reported, its
 * exit status and usage are the result. */
static int reap(cordon_process *p)
{
        int ws = 0;
        struct rusage ru = {0};
        pid_t r;
        while ((r = wait4(p->head.pid, &ws, __WALL, &ru)) < 0 && errno == EINTR)
                ;
        if (r < 0)
                return -errno;
        p->reaped = true;
        if (p->finished)
                return 0;
        p->finished = true;
        /* an init (linux) or supervisor (landlock) that exited without a
         * report failed itself; sandbox-exec's status is the command's */
        if ((p->backend == BACKEND_LINUX || p->backend == BACKEND_LANDLOCK) && WIFEXITED(ws))
                ws = 125 << 8;
        fill_result(p, ws, &ru, ru.ru_maxrss);
        return 0;
}

/* The init's report (linux backend): the command ended and everything else
 * in the sandbox is dead. Returns 1 when it arrived, 0 on EOF. */
static int read_report(cordon_process *p)
{
        init_status st;
        ssize_t n;
        while ((n = read(p->status_fd, &st, sizeof(st))) < 0 && errno == EINTR)
                ;
        if (n != (ssize_t)sizeof(st)) {
                /* EOF: the init died without reporting; its exit status says why */
                close(p->status_fd);
                p->status_fd = -1;
                return 0;
        }
        struct rusage ru = {
                .ru_utime = {st.user_us / 1000000, st.user_us % 1000000},
                .ru_stime = {st.sys_us / 1000000, st.sys_us % 1000000},
        };
        p->finished = true;
        fill_result(p, st.wait_status, &ru, st.max_rss_kb);
        return 1;
}

static int poll_ms(double until)
{
        double d = until - now_s();
        if (d <= 0)
                return 0;
        return d > 3600 ? 3600000 : (int)ceil(d * 1000);
}

/* Enforce wall_time_s: SIGTERM to the whole sandbox, SIGKILL after the grace. */
static void enforce_wall_time(cordon_process *p)
{
        double t = now_s();
        if (p->wall_limit > 0 && !p->term_sent && t >= ts_s(&p->started) + p->wall_limit) {
                p->result.timed_out = true;
                p->term_sent = true;
                clock_gettime(CLOCK_MONOTONIC, &p->term_at);
                kill_sandbox(p, SIGTERM);
        }
        if (p->term_sent && !p->killed && t >= ts_s(&p->term_at) + p->kill_after) {
                p->killed = true;
                kill_sandbox(p, SIGKILL);
        }
}

static double next_deadline(const cordon_process *p, double user_deadline)
{
        double d = user_deadline;
        if (p->wall_limit > 0 && !p->term_sent)
                d = fmin(d, ts_s(&p->started) + p->wall_limit);
        if (p->term_sent && !p->killed)
                d = fmin(d, ts_s(&p->term_at) + p->kill_after);
        return d;
}

/* CORDON_DEBUG=timing, after the command: the clean-up the caller waits
 * for, each figure the milliseconds since the one before it. */
static void report_after(const cordon_process *p, const double *t)
{
        static const char *const NAMES[AFTER__MAX] = {NULL, "stop", "placeholders", "gitcheck", "cleanup"};
        buf b = {0};
        buf_printf(&b, "timing after the command (ms):");
        for (int i = 1; i < AFTER__MAX; i++)
                buf_printf(&b, "%s %s %.3f", i > 1 ? "," : "", NAMES[i], (t[i] - t[i - 1]) * 1e3);
        buf_printf(&b, "; total %.3f\n", (t[AFTER__MAX - 1] - t[0]) * 1e3);
        _cleanup_free_ char *text = buf_steal(&b);
        if (text)
                log_message(p->log_fn, p->log_userdata, CORDON_LOG_INFO, "cordon: %s", text);
}

static int wait_sandbox(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error)
{
        double user_deadline = timeout_ms < 0 ? INFINITY : now_s() + timeout_ms / 1000.0;
        while (!p->finished) {
                enforce_wall_time(p);
                double until = next_deadline(p, user_deadline);
                /* the init's report, or its death */
                struct pollfd pfd[2] = {{.fd = p->head.pidfd, .events = POLLIN}, {.fd = p->status_fd, .events = POLLIN}};
                int ms = isinf(until) ? -1 : poll_ms(until);
                int n;
                if (p->status_fd >= 0 && poll(&pfd[1], 1, 0) > 0 && read_report(p))
                        break;
                if (p->head.pidfd >= 0) {
                        n = poll(pfd, p->status_fd >= 0 ? 2 : 1, ms);
                        if (n > 0 && (pfd[1].revents & (POLLIN | POLLHUP)) && read_report(p))
                                break;
                        if (n > 0 && !(pfd[0].revents & POLLIN))
                                continue; /* the report pipe closed: wait for the init's exit */
                } else { /* no pidfd: poll waitid every 10 ms */
                        siginfo_t si = {0};
                        n = waitid(P_PID, (id_t)p->head.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid ? 1 : 0;
                        if (!n)
                                usleep(ms < 0 || ms > 10 ? 10000 : (useconds_t)ms * 1000);
                }
                if (n < 0 && errno != EINTR)
                        return error_set(ret_error, errno, "waiting for the sandbox: %s", strerror(errno));
                if (n > 0) {
                        int r = reap(p);
                        if (r < 0)
                                return error_set(ret_error, -r, "waiting for the sandbox: %s", strerror(-r));
                        break;
                }
                if (now_s() >= user_deadline && !p->finished)
                        return -ETIMEDOUT;
        }
        double t[AFTER__MAX] = {now_s()};
        proxy_stop(p->proxy); /* the sandbox is gone: so are its connections */
        supervise_stop(p->calls);
        terminals_restore(p->terminals);
        t[AFTER_STOP] = now_s();
        p->placeholders = protect_placeholders_remove(p->placeholders);
        t[AFTER_PLACEHOLDERS] = now_s();
        git_check_finish(p->git); /* the sandbox is gone: nothing races it but other runs */
        t[AFTER_GIT] = now_s();
        if (p->cg)
                p->cg = cgroup_free(p->cg);
        undo_done(p->undo); /* the helper exits; reaped by free_sandbox */
        t[AFTER_CGROUP] = now_s();
        if (p->debug_timing)
                report_after(p, t);
        if (ret_result)
                *ret_result = p->result;
        return 0;
}

static void free_sandbox(cordon_process *p)
{
        if (p->head.pid > 0 && !p->reaped) {
                if (!p->finished) {
                        kill_sandbox(p, SIGKILL);
                        if (p->backend == BACKEND_NONE)
                                kill(p->head.pid, SIGKILL);
                }
                reap(p); /* a finished init is only tearing down its namespaces */
        }
        terminals_restore(p->terminals);
        p->placeholders = protect_placeholders_remove(p->placeholders);
        if (p->head.pid > 0) /* the command may have run (the sandbox is reaped now) */
                git_check_finish(p->git);
        p->git = git_check_free(p->git);
        if (p->cg)
                cgroup_free(p->cg);
        p->undo = undo_free(p->undo);
        p->proxy = proxy_free(p->proxy);
        p->calls = supervise_free(p->calls);
        if (p->stacks) /* the init is reaped: it ran there until its end */
                munmap(p->stacks, STACKS_SIZE);
        if (p->status_fd >= 0)
                close(p->status_fd);
        if (p->view_lock >= 0)
                close(p->view_lock);
        process_head_close(&p->head);
        json_decref(p->degraded);
        json_decref(p->protections);
        free(p);
}

int linux_trial_start(const cordon_plan *p, child_report *ret_report, cordon_error **ret_error)
{
        *ret_report = (child_report){.step = STEP_NONE};
        cordon_process *proc = process_new(p);
        if (!proc)
                return error_set(ret_error, ENOMEM, "out of memory");
        launch_storage s;
        launch_storage_init(&s);
        int r = prepare_launch(p, false, &s, ret_error);
        int dumpable = dumpable_before(p);
        if (r == 0)
                r = clone_sandbox(p, &s, proc, ret_error);
        dumpable_restore(dumpable);
        *ret_report = s.report;
        launch_storage_free(&s);
        free_sandbox(proc); /* kills what may run, reaps */
        return r;
}

static json_t *git_check_report(const cordon_process *p) { return p->git ? git_check_json(p->git) : json_null(); }

static void log_stderr(cordon_log_level level, const char *message, void *userdata)
{
        (void)userdata;
        fprintf(stderr, "cordon: %s%s\n", level == CORDON_LOG_WARNING ? "warning: " : "", message);
}

/* `cordon --cordon-helper git-check FD JOURNAL`: the git check of a run
 * whose launcher died (undo.h), started by its clean-up helper. */
static int helper_main(int argc, char **argv)
{
        /* the helper had every signal blocked, and its parent death signal
         * set: each thread of the dead launcher that exits sends it again
         * (prctl(2)), and none of them is for this check */
        (void)prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
        sigset_t term, none;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        while (sigtimedwait(&term, NULL, &(struct timespec){0, 0}) > 0)
                ;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        uint64_t fd = 0;
        if (argc != 5 || !streq(argv[2], "git-check") || parse_uint64(argv[3], &fd) < 0 || fd > INT32_MAX) {
                fprintf(stderr, "cordon: %s is for cordon's own clean-up helper\n", CORDON_HELPER_ARG);
                return 125;
        }
        int r = git_check_recover((int)fd, argv[4], log_stderr, NULL);
        return r == 0 || r == -ENOENT || r == -EBUSY ? 0 : 125;
}
static json_t *degraded_report(const cordon_process *p) { return p->degraded ? json_incref(p->degraded) : NULL; }
static json_t *protections_report(const cordon_process *p)
{
        return p->protections ? json_incref(p->protections) : NULL;
}

static int recover(const cordon_config *c, const host_info *h, cordon_error **ret_error)
{
        _cleanup_free_ char *root = NULL;
        int r = instance_resolve_root(c->home, h->environ ? env_get(h->environ, "CORDON_HOME") : NULL, h->home, &root,
                                      NULL);
        /* no instance yet (or one cordon_prepare will refuse): nothing to check */
        _cleanup_close_ int logs = r == 0 && access(root, F_OK) == 0 ? instance_open_logs(root, NULL) : -1;
        if (logs < 0)
                return 0;
        r = git_check_recover_dead(logs, c->log_fn, c->log_userdata);
        return r < 0 ? error_set(ret_error, -r,
                                 "git: a killed run left what the host's git would run in its workspace, and it could "
                                 "not be set aside (see the warnings above); remove it before you run git there")
                     : 0;
}

const backend_ops linux_backend_ops = {
        .name = "linux",
        .prepare = prepare,
        .start = start,
        .wait = wait_sandbox,
        .kill = kill_sandbox,
        .signal_command = signal_command,
        .free = free_sandbox,
        .net = &backend_proxy_net,
        .git_check = git_check_report,
        .helper_main = helper_main,
        .recover = recover,
        .degraded = degraded_report,
        .protections = protections_report,
};
