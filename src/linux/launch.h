/* SPDX-License-Identifier: MIT */
/* What the child needs, prepared before clone(), and the child's side of the
 * backends. After clone() the child of a multi-threaded launcher may not
 * allocate, use stdio or take locks: everything here is plain memory and
 * file descriptors, and the child only makes system calls on it. */
#pragma once

#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>

#include "net/allowlist.h"
#include "plan.h"
#include "seccomp-filter.h"

#define OLDROOT_NAME ".cordon-oldroot"
#define OLDROOT "/" OLDROOT_NAME

typedef enum op_kind {
        OP_BIND,
        OP_TMPFS,
        OP_PROC,
        OP_DEV,
        OP_SYMLINK,
        OP_FILE,
} op_kind;

/* What a mount op is part of, for the time the child spends on each. */
typedef enum view_group {
        GROUP_SYSTEM,    /* /usr, /etc files, generated passwd and group */
        GROUP_DEV,
        GROUP_PROC,
        GROUP_WORKSPACE, /* workspace, exposures, the executable, cwd, arguments */
        GROUP_INSTANCE,
        GROUP_GIT,       /* protected paths */
        GROUP_TMP,
        GROUP__MAX,
} view_group;

typedef struct mount_op {
        op_kind kind;
        const char *source;   /* bind: absolute host path (under OLDROOT once pivoted) */
        const char *target;   /* absolute path in the sandbox */
        const char *data;     /* symlink text, file content, tmpfs options */
        size_t data_len;
        bool writable, is_dir;
        bool host_mkdir_ok;
        bool untrusted;       /* bind: source inside a writable mount; dev/ino as planned when ino != 0 */
        dev_t dev;
        ino_t ino;   /* bind of cordon's own dirs: mount points may be created in it */
        int parent;           /* index of the nearest op whose target contains ours, or -1 */
        uint64_t access;      /* Landlock rights beneath it (0: none) */
        view_group group;
        bool placeholder;     /* bind: of a placeholder the launcher makes meanwhile */
} mount_op;

/* Steps the child reports failures for; the parent turns them into text. */
typedef enum child_step {
        STEP_NONE,
        STEP_SYNC,
        STEP_IDENTITY,
        STEP_HOSTNAME,
        STEP_PRIVATE,
        STEP_ROOT,
        STEP_PIVOT,
        STEP_MOUNTPOINT,
        STEP_OPEN_SOURCE,
        STEP_SOURCE_CHANGED,
        STEP_BIND,
        STEP_READONLY,
        STEP_TMPFS,
        STEP_PROC,
        STEP_PROC_HARDEN,
        STEP_DEV,
        STEP_SYMLINK,
        STEP_FILE,
        STEP_DETACH_OLDROOT,
        STEP_NETNS,
        STEP_LOOPBACK,
        STEP_PROXY,
        STEP_FORK,
        STEP_STDIO,
        STEP_PTY,
        STEP_CHDIR,
        STEP_RLIMIT,
        STEP_KEYRING,
        STEP_CAPS,
        STEP_NO_NEW_PRIVS,
        STEP_LANDLOCK,
        STEP_SECCOMP,
        STEP_EXEC,
        STEP_EXE_CHANGED,
        STEP_MOUNTPOINT_CHANGED,
        STEP_CGROUP,
        STEP_SUBREAPER,
        STEP_SUPERVISE,
        STEP_PLACEHOLDERS,
        /* the launcher's, around the clone: where it reports them too */
        STEP_CLONE,
        STEP_ID_MAPS,
} child_step;

/* One failure report, written in one write() (< PIPE_BUF). */
typedef struct child_report {
        int step;
        int err;
        char path[1024];
} child_report;

/* The command's fate, written by the sandbox's init before it exits. */
typedef struct init_status {
        int wait_status;         /* as from waitpid() */
        int64_t max_rss_kb;      /* of the command's process tree */
        int64_t user_us, sys_us; /* CPU time of everything the init reaped */
} init_status;

typedef struct child_rlimit {
        int resource;
        struct rlimit limit;
} child_rlimit;

/* Checkpoints the child stamps (CLOCK_MONOTONIC seconds) into a page shared
 * with the launcher when CORDON_DEBUG=timing, in this order. */
typedef enum mark {
        MARK_CLONED,   /* the child runs: the kernel made its namespaces */
        MARK_GO,       /* released by the launcher (id maps, cgroup written) */
        MARK_UNSHARED, /* network, cgroup namespaces and host name */
        MARK_ROOT,     /* new root pivoted to */
        MARK_MOUNTS,   /* the plan's mounts done */
        MARK_SEALED,   /* old root detached, root read-only, loopback up */
        MARK_FORKED,   /* the command's process started */
        MARK_CAPS,     /* signals, stdio, limits, keyring, capabilities dropped */
        MARK_LANDLOCK, /* the Landlock domain entered */
        MARK_SECCOMP,  /* the seccomp filter installed */
        MARK_EXEC,     /* right before execve */
        MARK__MAX,
} mark;

/* The shared page of CORDON_DEBUG=timing. */
typedef struct timing_page {
        double mark[MARK__MAX];   /* 0: not reached */
        double group[GROUP__MAX]; /* seconds spent on each group's mounts */
} timing_page;

/* A loopback service of the allowlist: its listener on the sandbox's own
 * lo (net_loopback_forwards), made by the init and sent to the proxy. */
typedef struct launch_forward {
        union {
                struct sockaddr_in in;
                struct sockaddr_in6 in6;
        } sa;
        socklen_t len;
        char text[64]; /* "127.0.0.1:8080", "[::1]:8080": for a failure */
} launch_forward;

typedef struct launch {
        backend_kind backend;
        /* identity */
        uid_t uid;
        gid_t gid;
        bool drop_groups;       /* root launcher: clear supplementary groups */
        /* the landlock backend as root: the command becomes the sandbox
         * user (plan-user.c), no supplementary groups */
        bool switch_user;
        uid_t run_uid;
        gid_t run_gid;
        /* descriptors */
        int stdio[3];           /* fds to install as 0, 1, 2 */
        int report_fd;          /* child -> parent failures (close-on-exec) */
        int go_fd;              /* parent -> child: "go" once the parent's setup is done */
        int placeholders_fd;    /* parent -> child: "p" once the placeholders are made, or -1 */
        int status_fd;          /* init -> parent: init_status */
        int landlock_fd;        /* ruleset, or -1 */
        int launcher_fd;        /* the launcher thread's /proc/thread-self (O_PATH), or -1 */
        int pty_fd;             /* the command sends its terminal's master here, or -1 */
        bool pty[3];            /* which of 0..2 get that terminal (stdio[i] is then -1) */
        int pty_size_fd;        /* the caller's terminal, whose window size it gets, or -1 */
        uint64_t access_pty;    /* landlock backend: Landlock rights on that terminal (reopened by name) */
        int keep_fds[16];       /* every fd above that the child keeps (sorted, -1 terminated) */
        /* the view */
        mount_op *ops;
        size_t n_ops;
        bool classic_mounts;    /* no new mount API: use mount(2) */
        bool have_open_tree_attr; /* open_tree and mount_setattr in one call (Linux 6.15) */
        const char *base_dir;   /* where the new root is first attached */
        const char *tmpfs_opts; /* for the root tmpfs */
        const char *tmp_opts;   /* for /tmp and /dev/shm (mode and --tmp-size) */
        uint64_t access_root, access_proc, access_dev; /* Landlock rights */
        const char *hostname;
        bool new_netns;         /* the init creates the network namespace (not the clone) */
        bool loopback;
        int proxy_fd;           /* network "proxy": the launcher's unix socket for the listener, or -1 */
        const launch_forward *fwd; /* ... and the loopback services forwarded (listened on inside) */
        size_t n_fwd;
        /* ... and the TCP ports intercepted on the addresses routed to lo
         * (a listener each, net_intercepted_ports), with the resolver on
         * 127.0.0.1:53 */
        const uint16_t *tports;
        size_t n_tports;
        const net_route *routes; /* the addresses routed to lo (but the resolver's, always) */
        size_t n_routes;
        /* the command */
        const char *exe;
        /* exe lies in a writable mount: run only this inode (execveat on a
         * descriptor, unless it is a script, which the kernel reopens by name) */
        bool exe_check, exe_by_fd;
        dev_t exe_dev;
        ino_t exe_ino;
        char *const *argv;
        char *const *envp;
        const char *cwd;
        child_rlimit rlimits[6];
        size_t n_rlimits;
        int cap_last;
        seccomp_prog seccomp;
        seccomp_prog supervise;  /* landlock backend: the calls handed to the launcher (supervise.h) */
        int supervise_fd;        /* ... whose listener the command sends here, or -1 */
        bool new_keyring;
        /* the child was cloned with CLONE_VM: it shares the launcher's
         * memory (and its thread's errno) and runs on its own stack */
        bool shared_memory;
        /* the launcher's argv/env area, scrubbed in an init that has a copy */
        uintptr_t arg_start, arg_end, env_start, env_end;
        sigset_t forward;       /* signals the init forwards to the command */
        int broadcast_signal;   /* real-time signal: "send ssi_int to the whole sandbox" */
        int death_signal;       /* landlock supervisor: its parent death signal */
        int command_signal;     /* landlock supervisor: "send ssi_int to the command" */
        timing_page *marks;     /* shared page, or NULL */
        void *command_stack_top; /* the command's stack until execve (linux backend) */
} launch;

/* The sandbox's init (pid 1 of the linux backend): builds the view, starts
 * the command, reaps, forwards signals. Never returns. */
_Noreturn void child_linux_main(const launch *l) HIDDEN;
/* The child of the landlock backend: the supervisor of the command's
 * process tree (a child subreaper that reaps, forwards signals, and kills
 * the tree when the command ends or the launcher dies). Of a disabled
 * isolation: the command itself. Never returns. */
_Noreturn void child_exec_main(const launch *l) HIDDEN;
/* Human text for a step. */
const char *child_step_name(child_step s) HIDDEN;
