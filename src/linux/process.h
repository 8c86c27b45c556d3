/* SPDX-License-Identifier: MIT */
/* The linux backends' process (backend.c) and the launcher's half that
 * starts it (launch.c): what the one hands the other. */
#pragma once

#include <sys/stat.h>
#include <time.h>

#include "backend.h"
#include "cgroup.h"
#include "gitcheck.h"
#include "landlock.h"
#include "launch.h"
#include "net/proxy.h"
#include "protect.h"
#include "supervise.h"
#include "terminal.h"
#include "undo.h"

struct cordon_process {
        process_head head;       /* pid, pidfd, pty, the caller's ends of CORDON_STDIO_PIPE */
        backend_kind backend;
        int status_fd;
        int broadcast_signal;
        int command_signal;      /* landlock backend: to its supervisor, "signal the command" */
        struct timespec started;
        double wall_limit, kill_after, cpu_limit;
        bool reaped, term_sent, killed;
        bool finished;           /* the init reported the command's end; it may still be exiting */
        struct timespec term_at;
        cordon_result result;
        cgroup *cg;
        placeholders *placeholders; /* protect placeholders to remove afterwards */
        git_check *git;          /* the post-run git check */
        undo_log *undo;          /* what we made on the host, for a helper should we die first */
        int view_lock;           /* the prepared /etc's manifest, read-locked while it is in use, or -1 */
        void *stacks;            /* the init's and the command's (see stacks_map) */
        proxy *proxy;            /* network "proxy": lives as long as the sandbox */
        call_supervisor *calls;  /* landlock backend: performs the command's metadata and connect calls */
        saved_terminal terminals[3]; /* the caller's, given to the command as they are */
        bool debug_timing;       /* CORDON_DEBUG=timing: the line after the command too */
        cordon_log_fn log_fn;
        void *log_userdata;
        json_t *degraded;        /* the plan's degraded steps, for the --stats record, or NULL */
        json_t *protections;     /* what this run has (protections_json), for the record, or NULL */
};

/* The command's stack between clone and execve (a few frames, no big
 * buffers on that path). */
#define COMMAND_STACK_SIZE ((size_t)256 * 1024)
/* The init's stack when it shares the launcher's memory. */
#define INIT_STACK_SIZE ((size_t)256 * 1024)
#define STACK_GUARD ((size_t)4096)
#define STACKS_SIZE (STACK_GUARD + COMMAND_STACK_SIZE + STACK_GUARD + INIT_STACK_SIZE)

typedef struct launch_storage {
        launch l;
        mount_op *ops;
        char *view_path;        /* the prepared /etc (view.h), or NULL */
        struct stat view_st;    /* ... its identity */
        int view_lock;          /* ... its lock, or -1 */
        char *tmpfs_opts, *tmp_opts, *logs_opts;
        int pipes[3][2];        /* report, go, status */
        int placeholders_pipe[2]; /* "p": the placeholders are made (launch.placeholders_fd), or -1 */
        int proxy_pair[2];      /* network "proxy": the listener comes over it (proxy's end, init's end) */
        int proxy_listener;     /* ... or, on the landlock backend, is made here on the host's loopback */
        unsigned proxy_port;    /* the port the command reaches the proxy on */
        net_forward fwd[NET_FORWARDS_MAX]; /* the allowlist's loopback services (net_loopback_forwards) */
        size_t n_fwd;
        launch_forward lfwd[NET_FORWARDS_MAX]; /* linux backend: their listeners inside (launch.fwd) */
        uint16_t tports[NET_INTERCEPTED_MAX]; /* linux backend: the ports intercepted inside (launch.tports) */
        net_route routes[NET_ROUTES_MAX];     /* ... and the addresses routed to lo (launch.routes) */
        char **envp;            /* the plan's env with that port, when it is not PROXY_PORT */
        int pty_pair[2];        /* the terminal's master comes over it (ours, the command's) */
        int supervise_pair[2];  /* landlock backend: the supervised calls' listener comes over it */
        int supervise_listener; /* ... and is here once the command was executed */
        supervise_root *roots;  /* ... the writable paths it may change */
        size_t n_roots;
        supervise_options supervise_opt;
        int launcher_fd;        /* this thread's /proc directory, for the child */
        int stdio_child[3];     /* fds we opened for the child */
        int stdio_parent[3];    /* the caller's ends */
        void *stacks;           /* stacks_map(), until the process owns it */
        landlock_rights ll;     /* what Landlock handles for this run */
        int abi;                /* Landlock ABI, or -errno */
        int etc_fds[2];         /* landlock backend: the fds /etc's rules were made on (first, last), or -1 */
        child_report report;    /* the step the start failed at (clone_sandbox), STEP_NONE before it */
} launch_storage;

/* The launcher's checkpoints before the clone (CORDON_DEBUG=timing). */
typedef enum launcher_mark {
        LMARK_START,
        LMARK_INSTANCE, /* the instance root checked */
        LMARK_GIT,      /* the placeholders' lock, the undo helper */
        LMARK_CGROUP,
        LMARK_CLONE,    /* descriptors, Landlock ruleset, seccomp filter, proxy: cloning */
        LMARK__MAX,
} launcher_mark;

void launch_storage_init(launch_storage *s) HIDDEN;
void launch_storage_free(launch_storage *s) HIDDEN;
/* Everything the child needs, before clone(): 0 or -errno (filled error). */
int prepare_launch(const cordon_plan *p, bool nproc, launch_storage *s, cordon_error **ret_error) HIDDEN;
/* The plan and what Landlock and seccomp enforce, to the log and to the
 * instance's logs/cordon.log. */
void log_plan(const cordon_plan *p, const launch_storage *s) HIDDEN;
/* The protections this run has (Landlock ABI, rights, scopes, seccomp
 * filters, the call supervisor's calls, what keeps signals and abstract
 * unix sockets in, a cgroup), for the --stats record; NULL on ENOMEM. */
json_t *protections_json(const cordon_plan *p, const launch_storage *s, bool has_cgroup) HIDDEN;
/* CORDON_DEBUG=timing: the launcher's checkpoints |lm| and the child's. */
void report_timing(const cordon_plan *p, const launch_storage *s, const double *lm, double t_done) HIDDEN;
/* clone() into the sandbox and wait until the command was executed: 0 or
 * -errno (filled error). */
int clone_sandbox(const cordon_plan *p, launch_storage *s, cordon_process *proc, cordon_error **ret_error) HIDDEN;
/* `cordon check`'s run (check-run.c): |p| started as a run starts (backend.c),
 * for a plan whose executable does not exist and that makes nothing on the
 * host; the step the start stopped at in *ret_report (STEP_EXEC: every step
 * before the execve passed; STEP_NONE: before the clone, see the error). */
int linux_trial_start(const cordon_plan *p, child_report *ret_report, cordon_error **ret_error) HIDDEN;
