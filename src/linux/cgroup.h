/* SPDX-License-Identifier: MIT */
/* cgroup limits (memory, pids, CPU share) for one sandbox.
 *
 * Each sandbox gets its own cgroup, "cordon-<pid>-<n>", created before the
 * command starts. The launcher moves the sandbox's init into it before
 * letting it go, so everything the command forks is inside; afterwards what
 * is left is killed and the cgroup removed.
 *
 * cgroup v1 (one directory per hierarchy: memory, pids, cpu) where the host
 * mounts those controllers as v1, cgroup v2 otherwise. Where it goes:
 *   v1: under the caller's cgroup of each hierarchy (so the caller's own
 *       limits still apply), or under "<hierarchy>/cordon" when the caller
 *       is in the root cgroup.
 *   v2: under "/cordon" when the caller is in the root cgroup; else under
 *       the caller's cgroup when it already delegates the controllers; else
 *       beside it, in its parent, when that is writable (a delegated
 *       subtree: systemd's user@UID.service, or a scope started with
 *       `systemd-run --user --scope -p Delegate=yes`). v2 forbids processes
 *       in a cgroup that hands controllers to children, and cordon never
 *       moves the calling process, so the caller's own cgroup (which holds
 *       the caller) cannot be the parent.
 *
 * Every path read or written goes through cgroup_env.root, so that the unit
 * tests run the detection and the writes against a fixture tree. In a
 * fixture (root != "") files are created as the kernel would create them
 * and no signal is ever sent. */
#pragma once

#include "plan.h"
#include "undo.h"

typedef struct cgroup cgroup;

/* Where and as whom. */
typedef struct cgroup_env {
        const char *root; /* prefixed to every path ("" for the real host) */
        uid_t uid;        /* whose write access counts (the effective uid) */
        gid_t gid;
        pid_t pid; /* names the cgroup: cordon-<pid>-<n> */
} cgroup_env;

/* What to enforce; 0 = no limit. */
typedef struct cgroup_request {
        double memory_bytes;
        double pids;
        double cpu_quota;      /* CPUs (1.5) */
        double tmp_size_bytes; /* checked only: it needs the private /tmp of the linux backend */
        bool private_tmp;      /* the backend mounts its own /tmp */
        bool count_init;       /* the sandbox has an init of cordon's: pids.max gets one more */
        bool best_effort;      /* warn (once) instead of failing */
        /* RLIMIT_NPROC can enforce |pids| where the pids controller cannot
         * be had (cgroup_nproc_rlimit): then that is no failure, and
         * *ret_pids_by_rlimit is set. Else |pids_rlimit_why| (or NULL) says
         * why not, in the failure. */
        bool pids_rlimit_ok;
        const char *pids_rlimit_why;
        bool *ret_pids_by_rlimit;
        undo_log *undo;        /* each cgroup directory is noted there before it is made (or NULL) */
        cordon_log_fn log_fn;
        void *log_userdata;
} cgroup_request;

/* The environment of the real host for the calling process. */
cgroup_env cgroup_env_host(void) HIDDEN;

/* Create the sandbox's cgroup for |req| (*ret = NULL when nothing needs
 * one). A limit this host cannot enforce is an error naming the limit, what
 * is missing and how to get it (-EPERM, -ENOTSUP, or the errno of the step
 * that failed), unless |req->best_effort|: then one warning goes to
 * |req->log_fn| and the limits that can be enforced are. */
int cgroup_create(const cgroup_env *env, const cgroup_request *req, cgroup **ret, cordon_error **ret_error) HIDDEN;
/* The same for a plan, on the real host, noting each directory in |undo|
 * (or NULL) before it is made; *ret_pids_by_rlimit says whether the process
 * limit falls to RLIMIT_NPROC (the launcher then sets it on the command:
 * the pids limit + 1, for the init counts too). */
int cgroup_prepare(const cordon_plan *p, undo_log *undo, cgroup **ret, bool *ret_pids_by_rlimit,
                   cordon_error **ret_error) HIDDEN;
/* Move |pid| into it (before the command starts). Returns 0 or -errno. */
int cgroup_attach(cgroup *cg, pid_t pid, cordon_error **ret_error) HIDDEN;
/* Signal every process in it (cgroup.kill for SIGKILL on v2, else each pid
 * of cgroup.procs). Returns 0, or -ENOTSUP when it has no hierarchy. */
int cgroup_signal(cgroup *cg, int sig) HIDDEN;
/* Fill oom_killed, pids_limited, pids_peak and max_rss_bytes (the larger of
 * the current value and the memory cgroup's peak) from its counters. */
void cgroup_collect(cgroup *cg, cordon_result *res) HIDDEN;
/* Kill what is left in it, remove it and free. Accepts NULL; returns NULL. */
cgroup *cgroup_free(cgroup *cg) HIDDEN;
/* The directory of the hierarchy holding |controller| ("memory", "pids",
 * "cpu"), or NULL. For tests and messages. */
const char *cgroup_dir(const cgroup *cg, const char *controller) HIDDEN;

/* Can RLIMIT_NPROC cap the tasks of a sandbox that has a user namespace
 * of its own? Since Linux 5.14 the kernel counts it per user namespace
 * (ucounts): inside the sandbox's namespace, where the caller's uid maps to
 * itself, it counts the sandbox's processes and threads (its init among
 * them), and fork() and clone() fail with EAGAIN beyond it. Before 5.14 it
 * counts every process of the user on the host, and the host's root is
 * exempt from it. False with the reason in *ret_why (caller frees). */
bool cgroup_nproc_rlimit(const cgroup_env *env, char **ret_why) HIDDEN;

/* How a process limit (--pids) would be enforced on |env|'s host, for a
 * sandbox with a user namespace of its own when |own_userns|, of a
 * sandbox user (plan-user.c) when |sandbox_user|: a pids_by
 * (plan.h) other than PIDS_BY_UNKNOWN, with a line for people in *ret_text
 * (caller frees), or -ENOMEM. */
int cgroup_pids_mechanism(const cgroup_env *env, bool own_userns, bool sandbox_user, char **ret_text) HIDDEN;

/* One line on what |env|'s host offers, for `cordon check`, e.g.
 * "v1 (memory pids cpu), usable" or "memory pids cpu: v1, not writable by
 * uid 1000 ...". Caller frees; NULL on ENOMEM. */
char *cgroup_summary(const cgroup_env *env) HIDDEN;
