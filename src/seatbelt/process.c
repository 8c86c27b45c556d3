/* SPDX-License-Identifier: MIT */
/* The seatbelt backend (src/core/backend.h): sandbox-exec applies the
 * profile and executes the command (run.c); here the launcher waits for
 * it, enforces wall_time_s and kills its process group. Only POSIX. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"
#include "instance.h"
#include "seatbelt/run.h"

struct cordon_process {
        process_head head;
        double started, term_at;
        double wall_limit, kill_after, cpu_limit;
        bool reaped, term_sent, killed;
        struct rusage before; /* RUSAGE_CHILDREN at the start */
        cordon_result result;
};

static int start(const cordon_plan *p, cordon_process **ret_proc, cordon_error **ret_error)
{
#ifndef CORDON_HAVE_PROXY
        if (p->network == CORDON_NETWORK_PROXY)
                return error_set(ret_error, ENOTSUP,
                                 "this cordon was built without the network proxy (it needs Linux): use the "
                                 "network none, loopback or full");
#endif
        int r = instance_create(p->instance_root, p->workspace, ret_error);
        if (r < 0)
                return r;
        cordon_process *proc = calloc(1, sizeof(*proc));
        if (!proc)
                return error_set(ret_error, ENOMEM, "out of memory");
        process_head_init(&proc->head, &seatbelt_backend_ops);
        proc->wall_limit = p->limits[CORDON_LIMIT_WALL_TIME_S];
        proc->kill_after = p->limits[CORDON_LIMIT_KILL_AFTER_S];
        proc->cpu_limit = p->limits[CORDON_LIMIT_CPU_TIME_S];
        getrusage(RUSAGE_CHILDREN, &proc->before);
        proc->started = monotonic_s();
        r = seatbelt_spawn(p, proc->head.stdio, &proc->head.pid, ret_error);
        if (r < 0) {
                free(proc);
                return r;
        }
        *ret_proc = proc;
        return 0;
}

static int signal_command(cordon_process *p, int sig)
{
        if (p->reaped)
                return -ESRCH;
        return kill(p->head.pid, sig) < 0 ? -errno : 0;
}

/* The command leads a process group of its own (run.c: setsid). */
static int kill_group(cordon_process *p, int sig)
{
        if (p->reaped)
                return -ESRCH;
        return kill(-p->head.pid, sig) < 0 && kill(p->head.pid, sig) < 0 ? -errno : 0;
}

static double tv_s(const struct timeval *tv) { return (double)tv->tv_sec + (double)tv->tv_usec / 1e6; }

/* The usage of the children reaped since the start (the command's, unless
 * the caller reaps others meanwhile). */
static void fill_result(cordon_process *p, int ws)
{
        cordon_result *res = &p->result;
        struct rusage now;
        getrusage(RUSAGE_CHILDREN, &now);
        res->wall_s = monotonic_s() - p->started;
        res->user_s = tv_s(&now.ru_utime) - tv_s(&p->before.ru_utime);
        res->sys_s = tv_s(&now.ru_stime) - tv_s(&p->before.ru_stime);
#ifdef __APPLE__
        res->max_rss_bytes = (uint64_t)(now.ru_maxrss > 0 ? now.ru_maxrss : 0); /* bytes there */
#else
        res->max_rss_bytes = (uint64_t)(now.ru_maxrss > 0 ? now.ru_maxrss : 0) * 1024;
#endif
        result_set_end(res, WEXITSTATUS(ws), WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, p->cpu_limit);
}

/* 1 once reaped, 0 while it runs, -errno. */
static int try_reap(cordon_process *p)
{
        int ws = 0;
        pid_t r;
        while ((r = waitpid(p->head.pid, &ws, WNOHANG)) < 0 && errno == EINTR)
                ;
        if (r < 0)
                return -errno;
        if (r == 0)
                return 0;
        p->reaped = true;
        fill_result(p, ws);
        return 1;
}

/* wall_time_s: SIGTERM to the process group, SIGKILL after the grace. */
static void enforce_wall_time(cordon_process *p, double t)
{
        if (p->wall_limit > 0 && !p->term_sent && t >= p->started + p->wall_limit) {
                p->result.timed_out = p->term_sent = true;
                p->term_at = t;
                kill_group(p, SIGTERM);
        }
        if (p->term_sent && !p->killed && t >= p->term_at + p->kill_after) {
                p->killed = true;
                kill_group(p, SIGKILL);
        }
}

/* POSIX has no descriptor for a child's exit: poll every 10 ms. */
static int wait_command(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error)
{
        double deadline = timeout_ms < 0 ? INFINITY : monotonic_s() + timeout_ms / 1000.0;
        for (;;) {
                int r = p->reaped ? 1 : try_reap(p);
                if (r < 0)
                        return error_set(ret_error, -r, "waiting for the command: %s", strerror(-r));
                if (r > 0)
                        break;
                double t = monotonic_s();
                enforce_wall_time(p, t);
                if (t >= deadline)
                        return -ETIMEDOUT;
                struct timespec ts = {0, 10000000L};
                nanosleep(&ts, NULL);
        }
        if (ret_result)
                *ret_result = p->result;
        return 0;
}

static void free_process(cordon_process *p)
{
        if (p->head.pid > 0 && !p->reaped) {
                kill_group(p, SIGKILL);
                while (waitpid(p->head.pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        for (int i = 0; i < 3; i++)
                if (p->head.stdio[i] >= 0)
                        close(p->head.stdio[i]);
        free(p);
}

const backend_ops seatbelt_backend_ops = {
        .name = "seatbelt",
        .start = start,
        .wait = wait_command,
        .kill = kill_group,
        .signal_command = signal_command,
        .free = free_process,
};
