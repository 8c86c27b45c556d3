/* SPDX-License-Identifier: MIT */
/* The public prepare / start / wait API: the neutral steps, then the plan's
 * backend (backend.h) for what depends on the platform. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "config.h"
#include "error.h"
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

void process_head_init(process_head *h, const backend_ops *ops)
{
        *h = (process_head){.ops = ops, .pid = -1, .pidfd = -1, .pty = -1, .stdio = {-1, -1, -1}};
}

void process_head_close(process_head *h)
{
        int *fds[] = {&h->pidfd, &h->stdio[0], &h->stdio[1], &h->stdio[2], &h->pty};
        for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
                if (*fds[i] >= 0) {
                        close(*fds[i]);
                        *fds[i] = -1;
                }
}

double monotonic_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- prepare ---------------------------------------------------------------------- */

int cordon_prepare(const cordon_config *c, const cordon_command *cmd, cordon_plan **ret_plan, cordon_error **ret_error)
{
        host_info h;
        host_storage s;
        double t0 = monotonic_s();
        /* The one place the process environment is read. */
        int r = host_info_read(&h, &s, environ, ret_error);
        if (r < 0)
                return r;
        r = plan_build(c, cmd, &h, ret_plan, ret_error);
        host_info_free(&s);
        const backend_ops *ops = r == 0 ? backend_ops_for((*ret_plan)->backend) : NULL;
        if (ops && ops->prepare && (r = ops->prepare(*ret_plan, ret_error)) < 0)
                *ret_plan = cordon_plan_free(*ret_plan);
        if (r == 0)
                (*ret_plan)->prepare_s = monotonic_s() - t0;
        return r;
}

double cordon_plan_limit(const cordon_plan *plan, cordon_limit which)
{
        return (unsigned)which < CORDON_LIMIT__MAX ? plan->limits[which] : NAN;
}

/* ---- start ------------------------------------------------------------------------- */

static void warn(const cordon_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(const cordon_plan *p, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        log_message_v(p->log_fn, p->log_userdata, CORDON_LOG_WARNING, fmt, ap);
        va_end(ap);
}

static void say_warnings(const cordon_plan *p)
{
        if (p->backend == BACKEND_NONE)
                warn(p, "isolation is disabled%s%s: the command runs unisolated", p->disabled_by ? " by " : "",
                     p->disabled_by ? p->disabled_by : "");
        for (size_t i = 0; p->warnings && p->warnings[i]; i++)
                warn(p, "%s", p->warnings[i]);
}

static int start(const cordon_plan *p, cordon_process **ret_proc, cordon_error **ret_error)
{
        if (!p->argv)
                return error_set(ret_error, EINVAL, "the plan has no command (it was prepared for the environment only)");
        const backend_ops *ops = backend_ops_for(p->backend);
        if (!ops && p->backend == BACKEND_WINDOWS)
                return error_set(ret_error, ENOTSUP,
                                 "the windows backend runs on Windows only (make windows builds cordon.exe); "
                                 "here, cordon plan --backend windows shows the rules it would apply");
        if (!ops)
                return error_set(ret_error, ENOTSUP,
                                 "this cordon was built without the linux backend (-Dlinux_backend=false): "
                                 "use --backend seatbelt");
        say_warnings(p);
        return ops->start(p, ret_proc, ret_error);
}

/* Not a cancellation point: a thread cancelled half-way would leave what
 * it made to the helpers, and its memory and descriptors to no one. */
int cordon_start(const cordon_plan *p, cordon_process **ret_proc, cordon_error **ret_error)
{
        int old;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        int r = start(p, ret_proc, ret_error);
        pthread_setcancelstate(old, NULL);
        return r;
}

/* ---- the process ------------------------------------------------------------------- */

pid_t cordon_process_pid(const cordon_process *p) { return p ? process_head_const(p)->pid : -1; }
int cordon_process_pidfd(const cordon_process *p) { return p ? process_head_const(p)->pidfd : -1; }
int cordon_process_pty(const cordon_process *p) { return p ? process_head_const(p)->pty : -1; }
int cordon_process_stdio(const cordon_process *p, int which)
{
        return p && which >= 0 && which < 3 ? process_head_const(p)->stdio[which] : -1;
}

void cordon_process_close_stdio(cordon_process *p, int which)
{
        process_head *h = p ? process_head_of(p) : NULL;
        if (h && which >= 0 && which < 3 && h->stdio[which] >= 0) {
                close(h->stdio[which]);
                h->stdio[which] = -1;
        }
}

/* Async-signal-safe (the backends only call kill(2) or sigqueue(2)). */
int cordon_signal_command(cordon_process *p, int sig)
{
        return p ? process_head_of(p)->ops->signal_command(p, sig) : -EINVAL;
}

int cordon_kill(cordon_process *p, int sig) { return p ? process_head_of(p)->ops->kill(p, sig) : -EINVAL; }

int cordon_wait(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error)
{
        if (!p)
                return error_set(ret_error, EINVAL, "cordon_wait: no process");
        return process_head_of(p)->ops->wait(p, timeout_ms, ret_result, ret_error);
}

cordon_process *cordon_process_free(cordon_process *p)
{
        if (p)
                process_head_of(p)->ops->free(p);
        return NULL;
}

int cordon_run(const cordon_plan *plan, cordon_result *ret_result, cordon_error **ret_error)
{
        cordon_process *p = NULL;
        int r = cordon_start(plan, &p, ret_error);
        if (r < 0)
                return r;
        r = cordon_wait(p, -1, ret_result, ret_error);
        cordon_process_free(p);
        return r;
}

/* ---- results ----------------------------------------------------------------------- */

/* Seconds to the microsecond, as a JSON number. */
static json_t *json_seconds(double s) { return json_real(round(s * 1e6) / 1e6); }

static json_t *result_object(const cordon_result *r)
{
        json_t *o = json_object();
        bool ok = json_put(o, "exit_code", json_integer(r->exit_code)) &&
                  json_put(o, "signal", json_integer(r->signal)) && json_put(o, "status", json_integer(r->status)) &&
                  json_put(o, "timed_out", json_boolean(r->timed_out)) &&
                  json_put(o, "oom_killed", json_boolean(r->oom_killed)) &&
                  json_put(o, "pids_limited", json_boolean(r->pids_limited)) &&
                  json_put(o, "cpu_limited", json_boolean(r->cpu_limited)) &&
                  json_put(o, "wall_s", json_seconds(r->wall_s)) && json_put(o, "user_s", json_seconds(r->user_s)) &&
                  json_put(o, "sys_s", json_seconds(r->sys_s)) &&
                  json_put(o, "max_rss_bytes", json_integer((json_int_t)r->max_rss_bytes)) &&
                  json_put(o, "pids_peak", json_integer((json_int_t)r->pids_peak));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

/* One line of JSON and a newline; takes |o|. NULL on ENOMEM. */
static char *record_text(json_t *o)
{
        _cleanup_free_ char *s = o ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
        json_decref(o);
        return s ? strjoin2(s, "\n") : NULL;
}

char *cordon_process_stats_json(const cordon_process *p, const cordon_result *r)
{
        const backend_ops *ops = p ? process_head_const(p)->ops : NULL;
        json_t *o = result_object(r);
        json_t *denied = ops && ops->network_denied ? ops->network_denied(p) : json_array();
        json_t *git = ops && ops->git_check ? ops->git_check(p) : json_null();
        if (!json_put(o, "network_denied", denied) || !json_put(o, "git_check", git)) {
                json_decref(o);
                return NULL;
        }
        return record_text(o);
}

char *cordon_result_to_json(const cordon_result *r) { return record_text(result_object(r)); }

static json_t *error_object(const cordon_error *e, const char *flag)
{
        json_t *o = json_object();
        bool ok = json_put(o, "message", json_text(cordon_error_message(e))) &&
                  json_put(o, "code", json_integer(cordon_error_exit_status(e)));
        if (ok && flag)
                ok = json_put(o, "flag", json_text(flag));
        if (ok && e && e->file)
                ok = json_put(o, "file", json_text(e->file));
        if (ok && e && e->line > 0)
                ok = json_put(o, "line", json_integer(e->line)) && json_put(o, "column", json_integer(e->column));
        if (ok && e && e->key)
                ok = json_put(o, "key", json_text(e->key));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

char *cordon_error_stats_json(const cordon_error *e, const char *flag)
{
        json_t *o = json_object();
        if (!json_put(o, "error", error_object(e, flag)) ||
            !json_put(o, "status", json_integer(cordon_error_exit_status(e)))) {
                json_decref(o);
                return NULL;
        }
        return record_text(o);
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
