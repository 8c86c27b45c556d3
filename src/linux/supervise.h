/* SPDX-License-Identifier: MIT */
/* The landlock backend's call supervisor, for the calls Landlock has no right for:
 * metadata (mode, owner, times, extended attributes), connect() and
 * listen(). A seccomp filter hands them to a thread of the launcher
 * (seccomp user notification), which performs each call itself when its
 * target lies beneath a writable path of the plan (connect: a unix socket
 * there or beneath an explicit exposure, cordon's network proxy, or with
 * the network "full" any address but a unix socket; listen: a unix socket
 * bound to a path, and with the network "full" any but an abstract one)
 * and refuses the rest; where Landlock does not scope signals, the signal
 * calls too (served for the sandbox's own processes only). It acts on what it resolved
 * and pinned itself, never on what the command could change after the
 * check: the path string is copied out of the command's memory once, the
 * file is opened (O_PATH) and acted on through that descriptor, and a
 * socket is connected by the launcher on the command's own descriptor. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "net/allowlist.h"
#include "seccomp-filter.h"
#include "sys.h"

/* A writable path of the plan, as the inode Landlock grants writes to;
 * or, |connect_only|, an explicitly exposed read-only one, whose unix
 * sockets may be connected to (as on the linux backend) but nothing
 * changed. */
typedef struct supervise_root {
        dev_t dev;
        ino_t ino;
        bool is_dir;
        bool connect_only;
} supervise_root;

/* --explain: the view the observer predicts refusals in (owned by the
 * supervisor once started). */
typedef struct explain_mount {
        char *source; /* a bind's host path, or NULL (tmpfs, proc, a file ...) */
        char *target;
        bool writable;
} explain_mount;
typedef struct explain_view {
        explain_mount *m;
        size_t n;
        bool namespaced;   /* the linux backend: a view of its own (else the host's, Landlock's rules) */
        int root_fd;       /* the command's root (O_PATH), or -1 */
        char *home_inside; /* the command's HOME, or NULL */
        char *home_host;   /* the caller's, or NULL */
        char **path_hidden; /* the PATH entries of the host's the view hides, or NULL */
} explain_view;
explain_view *explain_view_free(explain_view *v) HIDDEN;
/* The calls the observer is handed (into |out|, at most |max|): how many. */
size_t observed_calls(long *out, size_t max) HIDDEN;

typedef struct supervise_options {
        /* the network "full": connect() and listen() on any address but
         * unix sockets outside the paths and abstract ones; TCP Fast Open */
        bool full_network;
        unsigned proxy_port; /* else: TCP to 127.0.0.1:proxy_port only (0: none) */
        /* ... and to the allowlist's loopback services on the host's own
         * loopback (net_loopback_forwards: address and port) */
        net_forward loopback[NET_FORWARDS_MAX];
        size_t n_loopback;
        /* where Landlock does not scope signals (ABI < 6): kill, tkill,
         * tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal,
         * pidfd_open and fcntl(F_SETOWN) supervised, served only for the
         * processes of the sandbox (supervise-signal.c) */
        bool signals;
        /* where Landlock has no truncate right (ABI < 3): truncate(2) by
         * path, served beneath the writable paths only (supervise-meta.c) */
        bool truncate;
        pid_t tree; /* the tree's supervisor (cordon-tree): the sandbox is its descendants */
        /* each refusal of a path outside the writable paths, once (from
         * the supervisor's thread; NULL: none) */
        cordon_log_fn log_fn;
        void *log_userdata;
        /* and noted there (denied.h; the process's, NULL: none) */
        struct denied_list *denied;
        /* --explain: the calls that take a path, observed in this view
         * (NULL: not observed); |observe_only|: nothing else is handed
         * over (the linux backend) */
        explain_view *explain;
        bool observe_only;
        /* --explain: the main filter as every run has it, whose refusals of
         * the native calls this filter hands over, answered with the same
         * errno (seccomp_split_refusals; empty: none) */
        seccomp_prog refusals;
        /* the command runs as the sandbox user (plan-user.c): the calls are
         * made as that user, with CAP_FOWNER alone (the target is checked
         * to lie beneath a writable path first, as for every call), so
         * that the modes and times of the user's own files there change
         * as they did for root's command */
        bool sandbox_user;
        uid_t uid;
        gid_t gid;
} supervise_options;

/* The filter that hands those calls over (the native architecture; the
 * other architectures' forms of them are denied). 0 or -errno. */
int supervise_filter(const supervise_options *o, seccomp_prog *ret) HIDDEN;
/* Install it on the calling thread: the listener fd, or -errno.
 * Async-signal-safe. */
int supervise_install(const seccomp_prog *p) HIDDEN;
/* Whether this kernel can supervise (user notification, pidfd_getfd). */
int supervise_available(void) HIDDEN;

typedef struct call_supervisor call_supervisor;
/* Serve |listener| (taken) on a thread of its own until supervise_stop. */
int supervise_start(int listener, const supervise_options *o, const supervise_root *roots, size_t n_roots,
                    call_supervisor **ret, cordon_error **ret_error) HIDDEN;
void supervise_stop(call_supervisor *s) HIDDEN;
call_supervisor *supervise_free(call_supervisor *s) HIDDEN;
