/* SPDX-License-Identifier: MIT */
/* The backend interface: what each backend (src/linux/, src/seatbelt/,
 * src/windows/, one folder each) implements; src/core/process.c turns the
 * public API into calls of the plan's backend, src/core/backend.c holds
 * what this header declares for all of them. A backend defines its own struct
 * cordon_process (opaque in cordon.h), whose first member is a
 * process_head: the core reads that and nothing else. */
#pragma once

#include <sys/types.h>

#include "plan.h"

typedef struct backend_ops backend_ops;

/* The first member of every backend's struct cordon_process. */
typedef struct process_head {
        const backend_ops *ops;
        pid_t pid;    /* cordon_process_pid: the sandbox's first process, or -1 */
        int pidfd;    /* cordon_process_pidfd, or -1 */
        int pty;      /* cordon_process_pty: the terminal's master, or -1 */
        int stdio[3]; /* the caller's ends of CORDON_STDIO_PIPE streams, or -1 */
        /* The allowlist proxy of a "proxy" network (the backend owns it), or
         * NULL: what backend_proxy_net reads. */
        struct proxy *proxy; /* non-const: live grants change its policy */
        /* What the boundary refused that the run's observers saw (denied.h;
         * NULL on ENOMEM: nothing is noted); the proxy's are read from it. */
        struct denied_list *denied;
} process_head;

struct backend_ops {
        const char *name;
        /* What the backend adds to a plan that plan_build made from the
         * neutral inputs (NULL: nothing). Runs in cordon_prepare. */
        int (*prepare)(cordon_plan *p, cordon_error **ret_error);
        /* cordon_start: the plan has a command; *ret_proc's head is set. */
        int (*start)(const cordon_plan *p, cordon_process **ret_proc, cordon_error **ret_error);
        /* cordon_wait, cordon_kill and cordon_signal_command. */
        int (*wait)(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error);
        int (*kill)(cordon_process *p, int sig);
        int (*signal_command)(cordon_process *p, int sig);
        /* cordon_process_free: kill what still runs, reap, close, free. */
        void (*free)(cordon_process *p);
        /* The allowlist proxy's side of a run: backend_proxy_net where the
         * head holds the proxy (NULL: this backend has none). */
        const struct backend_net_ops *net;
        /* What the post-run git check did, a JSON object (NULL: none ran). */
        json_t *(*git_check)(const cordon_process *p);
        /* cordon_helper_main's work (NULL: none in this backend). */
        int (*helper_main)(int argc, char **argv);
        /* cordon_recover: the checks of the runs whose launcher (and its
         * helper) died, from the journals in the instance |c| and |h| name
         * (NULL: none). */
        int (*recover)(const cordon_config *c, const host_info *h, cordon_error **ret_error);
        /* The steps the run went without (plan_degraded), a JSON array, or
         * NULL (also the NULL op): none. */
        json_t *(*degraded)(const cordon_process *p);
        /* What protected this run (Landlock, seccomp, the call supervisor,
         * ...), a JSON object, or NULL (also the NULL op): not said. */
        json_t *(*protections)(const cordon_process *p);
};

/* What `cordon plan` shows of a backend's own rules after the neutral plan
 * (plan-output.c). Pure: every build has every backend's, so any backend's
 * plan renders on any host. */
typedef struct backend_render {
        const char *name; /* the plan JSON's member for them */
        /* The rules as text, appended to |b| (b->oom on ENOMEM). */
        void (*text)(buf *b, const cordon_plan *p);
        /* The rules as a JSON value (NULL or json_null() on ENOMEM). */
        json_t *(*json)(const cordon_plan *p);
} backend_render;

extern const backend_render seatbelt_render_ops HIDDEN; /* src/seatbelt/plan-output.c */
extern const backend_render windows_render_ops HIDDEN;  /* src/windows/plan-output.c */

/* The renderer of plans of |kind|, or NULL: the plan is all there is to
 * show (the linux backends apply the plan's mounts as they are). */
const backend_render *backend_render_for(backend_kind kind) HIDDEN;

/* The backends of this build (meson: -Dlinux_backend). */
extern const backend_ops linux_backend_ops HIDDEN;    /* BACKEND_LINUX, BACKEND_LANDLOCK, BACKEND_NONE */
extern const backend_ops seatbelt_backend_ops HIDDEN; /* BACKEND_SEATBELT */
extern const backend_ops windows_backend_ops HIDDEN;  /* BACKEND_WINDOWS, and NONE on Windows */

/* The backend that runs plans of |kind|, or NULL when this build has none. */
const backend_ops *backend_ops_for(backend_kind kind) HIDDEN;

static inline process_head *process_head_of(cordon_process *p) { return (process_head *)(void *)p; }
static inline const process_head *process_head_const(const cordon_process *p)
{
        return (const process_head *)(const void *)p;
}

/* What the core asks of a run's allowlist proxy. */
typedef struct backend_net_ops {
        /* The hosts the proxy refused, a JSON array (NULL on ENOMEM). */
        json_t *(*denied)(const cordon_process *p);
        /* cordon_process_allow_net (|add|) and _remove_net: the proxy's
         * allowlist changed while it runs. */
        int (*grant)(cordon_process *p, const char *entry, bool add, cordon_error **ret_error);
        /* The changes made so far, a JSON array (NULL on ENOMEM). */
        json_t *(*grants)(const cordon_process *p);
} backend_net_ops;

/* The ops of a backend that runs the allowlist proxy and names it in the
 * head (backend-proxy.c; the Windows build has no proxy). */
extern const backend_net_ops backend_proxy_net HIDDEN;

/* Sets |h| to "no process yet" with |ops|. */
void process_head_init(process_head *h, const backend_ops *ops) HIDDEN;
/* Closes the descriptors |h| holds (pidfd, stdio, pty), frees its denials. */
void process_head_close(process_head *h) HIDDEN;
/* The end of the command into |res| (its usage already there): |sig| is
 * the signal that killed it (0: it exited with |exit_code|); then the
 * status cordon reports, 124 after a timeout, and whether |cpu_limit| (0:
 * none) ended it (RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the
 * hard one, soft + 1 s, when SIGXCPU is caught or ignored). */
void result_set_end(cordon_result *res, int exit_code, int sig, double cpu_limit) HIDDEN;
/* Seconds on CLOCK_MONOTONIC. */
double monotonic_s(void) HIDDEN;
