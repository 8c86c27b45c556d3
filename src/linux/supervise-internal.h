/* SPDX-License-Identifier: MIT */
/* What the supervisor's files share (supervise*.c but the filter's): the
 * supervisor, one call being served, the object a call acts on, and each
 * file's functions the others call. Everything here runs on the
 * supervisor's thread. */
#pragma once

#include <limits.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "supervise.h"

#define REFUSALS_MAX 32
#define PENDING_MAX 64
#define CALL_PENDING 1  /* a call answered later (a connect that waits) */
#define CALL_CONTINUE 2 /* the kernel performs the call as the command asked (also a call observed by --explain) */
#define CALL_ANSWERED 3 /* answered already (a descriptor placed by SECCOMP_ADDFD_FLAG_SEND) */

/* A connect() of the command's on a blocking socket that could not complete
 * at once (a unix listener's backlog is full, a TCP handshake runs): the
 * command waits in it while this thread serves the other calls. */
typedef struct pending_connect {
        uint64_t id;
        int sock; /* ours, on the command's open file */
        int pin;  /* unix: the socket file's O_PATH descriptor (in addr) */
        struct sockaddr_storage addr;
        socklen_t len;
        bool handshake; /* TCP: wait until it is writable */
        double give_up; /* monotonic_s() of its SO_SNDTIMEO (0: never) */
} pending_connect;

struct call_supervisor {
        int listener, stop_fd;
        int tree_fd; /* a pidfd of opt.tree (signals supervised), or -1 */
        char *refused[REFUSALS_MAX]; /* reported already ("chmod /etc/x") */
        size_t n_refused;
        pending_connect pending[PENDING_MAX];
        size_t n_pending;
        supervise_options opt;
        supervise_root *roots;
        size_t n_roots;
        struct seccomp_notif_sizes sizes;
        struct seccomp_notif_resp *resp;
        pthread_t thread;
        bool started;
};

/* One notification being served. */
typedef struct call {
        call_supervisor *s;
        const struct seccomp_notif *req;
        pid_t tid;
} call;

/* The object a call acts on: an O_PATH descriptor, and for a non-directory
 * the directory it was found in (-1 when it came from the command's fd). */
typedef struct target {
        int obj, parent;
        char name[NAME_MAX + 1];
        struct stat st;
} target;

static inline void fd_path(char out[40], int fd) { snprintf(out, 40, "/proc/thread-self/fd/%d", fd); }

/* supervise.c: answer the notification |id| with |r| (0 or -errno). */
void supervise_respond(call_supervisor *s, uint64_t id, int r) HIDDEN;

/* supervise-target.c: what a call names, resolved as the kernel would for
 * the command, and whether it lies beneath a root. */
/* Whether the notification |id| still waits (its caller is alive and in
 * the call). */
bool notif_id_valid(const call_supervisor *s, uint64_t id) HIDDEN;
bool call_still_valid(const call *c) HIDDEN;
/* |len| bytes of the caller's memory at |addr|: 0 or -errno. */
int call_read_mem(const call *c, uint64_t addr, void *out, size_t len) HIDDEN;
/* A NUL-terminated string of at most |cap| - 1 bytes; -|too_long| past it. */
int call_read_string(const call *c, uint64_t addr, char *out, size_t cap, int too_long) HIDDEN;
/* What |path| names for the command, from its |dirfd|. 0 or -errno. */
int call_target_of_path(const call *c, int dirfd, const char *path, bool follow, bool empty_ok, target *t) HIDDEN;
/* What a metadata call names: |dirfd| and the path at |path_addr| (0: the
 * call is on |dirfd| itself). 0 or -errno. */
int call_target_of(const call *c, int dirfd, uint64_t path_addr, bool follow, bool empty_ok, target *t) HIDDEN;
void target_close(target *t) HIDDEN;
/* Whether |t| lies beneath a writable root (|connect|: or a connect-only one). */
bool target_beneath_root(const call_supervisor *s, const target *t, bool connect) HIDDEN;
/* Say once that |what| of |t| was refused, naming the path. */
void supervise_report_refusal(call_supervisor *s, const char *what, const target *t) HIDDEN;
/* Whether the refusal |key| is new (then noted: each is said once). */
bool supervise_note_refusal(call_supervisor *s, const char *key) HIDDEN;
/* The caller's descriptor |fd| (the same open file), checked to be the
 * caller's: ours, or -errno. */
int supervise_command_fd(const call *c, int fd) HIDDEN;

/* supervise-meta.c: chmod, chown, utimes, setxattr, removexattr. */
int serve_meta(const call *c) HIDDEN;

/* supervise-refused.c: a call the main filter refuses (--explain), answered
 * with its errno and noted: true; false for another call. */
bool serve_refused(const call *c) HIDDEN;

/* supervise-observe.c: a call that takes a path, observed (--explain):
 * CALL_CONTINUE. */
int serve_observe(const call *c) HIDDEN;
bool is_observed_call(long nr) HIDDEN;

/* supervise-signal.c: the signal calls, fcntl(F_SETOWN). */
int serve_signal(const call *c) HIDDEN;
/* prlimit64 setting another process's limits: the caller's own only. */
int serve_prlimit(const call *c) HIDDEN;

/* supervise-connect.c: connect and listen, and the connects that wait. */
int serve_connect(const call *c) HIDDEN;
int serve_listen(const call *c) HIDDEN;
/* The descriptors to poll for the pending connects, into |pfd|; how many. */
size_t pending_pollfds(const call_supervisor *s, struct pollfd *pfd) HIDDEN;
/* Answer each pending connect that completed, failed or gave up. */
void serve_pending(call_supervisor *s, const struct pollfd *pfd) HIDDEN;
/* Forget pending connect |i| (its caller is gone, or the supervisor stops). */
void pending_drop(call_supervisor *s, size_t i) HIDDEN;
