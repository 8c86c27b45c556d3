/* SPDX-License-Identifier: MIT */
/* The public prepare / start / wait API: the neutral steps, then the plan's
 * backend (backend.h, backend.c) for what depends on the platform. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "config.h"
#include "denied.h"
#include "env.h"
#include "error.h"
#include "util.h"

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

/* Is |text| said for the first time in this instance? A marker in its
 * logs/ (cordon's own, checked at every run, hidden from commands), named
 * by the text's hash, is made the first time. Without an instance root,
 * or where the marker cannot be made, it is said. */
static bool first_said(const cordon_plan *p, const char *text)
{
        if (!p->instance_root)
                return true;
        uint64_t h = 14695981039346656037ULL; /* FNV-1a */
        for (const unsigned char *c = (const unsigned char *)text; *c; c++)
                h = (h ^ *c) * 1099511628211ULL;
        char name[40];
        snprintf(name, sizeof(name), "logs/said-%016" PRIx64, h);
        _cleanup_free_ char *path = path_join(p->instance_root, name);
#ifdef O_NOFOLLOW
        int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
#else
        int fd = path ? open(path, O_WRONLY | O_CREAT | O_EXCL, 0600) : -1;
#endif
        if (fd >= 0)
                close(fd);
        return fd >= 0 || errno != EEXIST;
}

static void say_warnings(const cordon_plan *p)
{
        if (p->backend == BACKEND_NONE)
                log_message(p->log_fn, p->log_userdata, CORDON_LOG_WARNING,
                            "isolation is disabled%s%s: the command runs unisolated", p->disabled_by ? " by " : "",
                            p->disabled_by ? p->disabled_by : "");
        for (size_t i = 0; p->warnings && p->warnings[i]; i++)
                log_message(p->log_fn, p->log_userdata, CORDON_LOG_WARNING, "%s", p->warnings[i]);
        for (size_t i = 0; p->notices && p->notices[i]; i++)
                if (first_said(p, p->notices[i]))
                        log_message(p->log_fn, p->log_userdata, CORDON_LOG_NOTICE, "%s", p->notices[i]);
}

/* What the plan foresees: a command not found (exit 127) may have been in
 * a PATH entry the sandbox hides. */
static void note_hidden_path(const cordon_plan *p, denied_list *l)
{
        for (size_t i = 0; p->path_hidden && p->path_hidden[i]; i++) {
                _cleanup_free_ char *s = denied_path_suggestion(p->path_hidden[i], false, p->caller_home);
                denied_note(l, DENIED_EXEC, p->path_hidden[i], "a PATH entry of the host's that the sandbox does not show",
                            HOST_HAS_YES, s, "exit-status", 127);
        }
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
        int r = ops->start(p, ret_proc, ret_error);
        if (r == 0)
                note_hidden_path(p, process_head_of(*ret_proc)->denied);
        return r;
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

/* The paths of the record's git_check.not_set_aside, joined, or NULL. */
static char *not_set_aside(const cordon_process *p)
{
        const backend_ops *ops = process_head_const(p)->ops;
        json_t *git = ops->git_check ? ops->git_check(p) : NULL;
        json_t *list = git ? json_object_get(git, "not_set_aside") : NULL;
        buf b = {0};
        size_t i;
        json_t *v;
        json_array_foreach(list, i, v) {
                buf_printf(&b, "%s%s", i ? ", " : "", json_string_value(v));
        }
        json_decref(git);
        return b.len || b.oom ? buf_steal(&b) : NULL;
}

int cordon_process_check_error(const cordon_process *p, cordon_error **ret_error)
{
        _cleanup_free_ char *paths = p ? not_set_aside(p) : NULL;
        if (!paths)
                return 0;
        return error_set(ret_error, EIO,
                         "git: the command left what the host's git would run, and it could not be set aside: %s; "
                         "remove it before you run git there",
                         paths);
}

int cordon_helper_main(int argc, char **argv)
{
        const backend_ops *ops = backend_ops_for(BACKEND_LINUX);
        if (!ops || !ops->helper_main) {
                fprintf(stderr, "cordon: this build has no helper\n");
                return 125;
        }
        return ops->helper_main(argc, argv);
}

int cordon_recover(const cordon_config *c, cordon_error **ret_error)
{
        const backend_ops *ops = backend_ops_for(BACKEND_LINUX);
        if (!c || !ops || !ops->recover)
                return 0;
        host_info h;
        host_storage s;
        int r = host_info_read(&h, &s, environ, ret_error);
        if (r == 0)
                r = ops->recover(c, &h, ret_error);
        host_info_free(&s);
        return r;
}

/* ---- live grants ------------------------------------------------------------------ */

static int network_change(cordon_process *p, const char *entry, bool add, cordon_error **ret_error)
{
        const backend_ops *ops = p ? process_head_of(p)->ops : NULL;
        if (!p || !entry)
                return error_set(ret_error, EINVAL, "a process and an entry are required");
        if (!ops || !ops->net)
                return error_set(ret_error, ENOTSUP, "this backend has no network proxy: its allowlist cannot change");
        return ops->net->grant(p, entry, add, ret_error);
}

int cordon_process_allow_net(cordon_process *p, const char *entry, cordon_error **ret_error)
{
        return network_change(p, entry, true, ret_error);
}

int cordon_process_remove_net(cordon_process *p, const char *entry, cordon_error **ret_error)
{
        return network_change(p, entry, false, ret_error);
}
