/* SPDX-License-Identifier: MIT */
/* The proxy's event loop, the platform layer under its protocol
 * (net/proxy.c): watches on descriptors, one round of waiting and
 * dispatching, non-blocking sockets, and the pipes a tunnel splices
 * through. Built one of two ways: net/loop-epoll.c on Linux
 * (CORDON_PROXY_EPOLL: epoll, an eventfd to stop, splice(2) through pipes),
 * else net/loop-poll.c with POSIX only (macOS, and the build without the
 * linux backend: poll(2) over every watched descriptor, a self-pipe to
 * stop, no pipes: tunnels copy through their buffers). Both speak the
 * EV_* events. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef CORDON_PROXY_EPOLL
#include <sys/epoll.h>
#define EV_IN EPOLLIN
#define EV_OUT EPOLLOUT
#define EV_ERR EPOLLERR
#define EV_HUP EPOLLHUP
#else
#include <poll.h>
#define EV_IN ((uint32_t)POLLIN)
#define EV_OUT ((uint32_t)POLLOUT)
#define EV_ERR ((uint32_t)POLLERR)
#define EV_HUP ((uint32_t)POLLHUP)
#endif
#ifndef MSG_NOSIGNAL /* older macOS: SO_NOSIGPIPE on each socket instead (loop-poll.c) */
#define MSG_NOSIGNAL 0
#endif

#include "util.h"

/* What a watch is for: the loop's own, then the protocol's. */
typedef enum watch_kind {
        W_LISTEN,
        W_FORWARD,
        W_INTERCEPT,
        W_DNS,
        W_CHANNEL,
        W_STOP,
        W_CLIENT,
        W_UPSTREAM,
        W_RESOLVER,
        W_ORPHAN,
        W_PREFETCH
} watch_kind;

struct conn;
typedef struct watch {
        watch_kind kind;
        int fd;
        uint32_t events; /* registered, or 0 (and ~0U before the first) */
        struct conn *c;
} watch;

typedef struct loop {
#ifdef CORDON_PROXY_EPOLL
        int epfd;
#else
        int stop_write_fd;  /* the self-pipe's other end */
        struct pollfd *pfd; /* the descriptors of a round ... */
        watch **pw;         /* ... and their watches */
        size_t pcap, n;
#endif
        watch stop_w; /* ready once loop_stop was called */
} loop;

/* What a round calls back: |dispatch| for each ready watch (false: stop
 * the loop); |each_watch| (poll(2) only, which makes each round's set of
 * the watches) calls loop_offer for every watch the caller has. */
typedef struct loop_handler {
        bool (*dispatch)(void *ctx, watch *w, uint32_t events);
        void (*each_watch)(void *ctx, loop *l);
        void *ctx;
} loop_handler;

static inline watch watch_new(watch_kind kind, int fd, struct conn *c) { return (watch){kind, fd, ~0U, c}; }

static inline void watch_close(watch *w)
{
        if (w->fd >= 0)
                close(w->fd); /* leaves the epoll set with its last descriptor; poll(2) sets are made per round */
        w->fd = -1;
        w->events = ~0U;
}

/* Close-on-exec and non-blocking (where accept4 or SOCK_CLOEXEC are
 * missing: a fork of another thread in between may leak |fd| to a child
 * until that child's exec; sandbox-exec's child closes every descriptor
 * anyway, run.c). |fd|, or -1 with errno kept. */
static inline int fd_nonblock_cloexec(int fd)
{
        if (fd < 0 || (fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0))
                return fd;
        int e = errno;
        close(fd);
        errno = e;
        return -1;
}

/* Wait for |events| on |w| (0: for nothing, so that no hang-up is
 * reported that would spin). */
void watch_set(loop *l, watch *w, uint32_t events) HIDDEN;
/* |w| took over another watch's descriptor (and its registration): its
 * events now name |w|. */
void watch_moved(loop *l, watch *w, uint32_t events) HIDDEN;

/* 0, or -1 with errno set (loop_close then). */
int loop_open(loop *l) HIDDEN;
/* From any thread: the next round returns false. */
void loop_stop(loop *l) HIDDEN;
void loop_close(loop *l) HIDDEN;
/* Wait up to a second, then dispatch what is ready. False: stop. A watch
 * closed by an earlier event of the round has fd -1 (dispatch skips it);
 * its memory must live until the round ends. */
bool loop_round(loop *l, const loop_handler *h) HIDDEN;
/* Within each_watch: |w| is in this round's set when it waits for
 * something. */
void loop_offer(loop *l, watch *w) HIDDEN;

/* Non-blocking, close-on-exec, no SIGPIPE: a descriptor, or -1 (errno). */
int accept_nonblock(int listen_fd) HIDDEN;
int socket_nonblock(int family) HIDDEN;
/* The resolver's channel: |sv[0]| the loop's end, |sv[1]| the thread's;
 * one datagram (read once the loop reports it). 0 or -1 (errno). */
int resolver_pair(int sv[2]) HIDDEN;
/* A pipe for a tunnel's direction, of PIPE_CAP bytes where the user's
 * pipe quota allows: its size, or 0 (no pipes: the buffer copies then). */
size_t tunnel_pipe(int fds[2]) HIDDEN;
#define PIPE_CAP ((size_t)256 * 1024)
/* Grow the pipe whose write end is |wfd| to |size| bytes: its new size, or
 * 0 (no pipes, or the quota said no). */
size_t tunnel_pipe_grow(int wfd, size_t size) HIDDEN;
/* splice(2) without blocking: bytes moved, or -1 (errno; ENOSYS without
 * pipes). */
ssize_t splice_move(int from, int to, size_t n) HIDDEN;
