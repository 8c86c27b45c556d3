/* SPDX-License-Identifier: MIT */
/* What backend.h declares for every backend: which backend runs a plan and
 * which renders its rules, the process head, the end of a result. */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "denied.h"
#include "util.h"

const backend_ops *backend_ops_for(backend_kind kind)
{
#if CORDON_WINDOWS_BACKEND
        /* the Windows build has one backend; a disabled isolation still
         * runs in a job of its own */
        return kind == BACKEND_NONE || kind == BACKEND_WINDOWS ? &windows_backend_ops : NULL;
#else
        switch (kind) {
        case BACKEND_NONE:
        case BACKEND_LINUX:
        case BACKEND_LANDLOCK:
#if CORDON_LINUX_BACKEND
                return &linux_backend_ops;
#else
                return NULL;
#endif
        case BACKEND_SEATBELT:
                return &seatbelt_backend_ops;
        default:
                return NULL;
        }
#endif
}

const backend_render *backend_render_for(backend_kind kind)
{
        switch (kind) {
        case BACKEND_SEATBELT: return &seatbelt_render_ops;
        case BACKEND_WINDOWS: return &windows_render_ops;
        default: return NULL;
        }
}

void process_head_init(process_head *h, const backend_ops *ops)
{
        *h = (process_head){.ops = ops, .pid = -1, .pidfd = -1, .pty = -1, .stdio = {-1, -1, -1}};
        h->denied = denied_list_new();
}

void process_head_close(process_head *h)
{
        int *fds[] = {&h->pidfd, &h->stdio[0], &h->stdio[1], &h->stdio[2], &h->pty};
        for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
                if (*fds[i] >= 0) {
                        close(*fds[i]);
                        *fds[i] = -1;
                }
        h->denied = denied_list_free(h->denied);
}

double monotonic_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#ifdef SIGXCPU
#define CORDON_SIGXCPU SIGXCPU
#define CORDON_SIGKILL SIGKILL
#else /* Windows: no signal ends a process */
#define CORDON_SIGXCPU (-1)
#define CORDON_SIGKILL (-1)
#endif

void result_set_end(cordon_result *res, int exit_code, int sig, double cpu_limit)
{
        res->signal = sig;
        res->exit_code = sig ? -1 : exit_code;
        res->status = sig ? 128 + sig : exit_code;
        if (cpu_limit > 0 && !res->timed_out && !res->oom_killed &&
            (sig == CORDON_SIGXCPU || (sig == CORDON_SIGKILL && res->user_s + res->sys_s >= cpu_limit)))
                res->cpu_limited = true;
        if (res->timed_out)
                res->status = 124;
}
