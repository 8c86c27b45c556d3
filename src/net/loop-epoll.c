/* SPDX-License-Identifier: MIT */
/* The proxy's event loop on Linux (net/loop.h): epoll, an eventfd to
 * stop, and tunnels spliced through pipes. */
#include "net/loop.h"

#include <sys/eventfd.h>

/* A descriptor waiting for nothing leaves the set: epoll reports hang-ups
 * and errors even then, which would spin. */
void watch_set(loop *l, watch *w, uint32_t events)
{
        if (w->fd < 0 || w->events == events || (events == 0 && w->events == ~0U))
                return;
        if (events == 0) {
                epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
                w->events = ~0U;
                return;
        }
        struct epoll_event ev = {.events = events, .data.ptr = w};
        int op = w->events == ~0U ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
        if (epoll_ctl(l->epfd, op, w->fd, &ev) == 0)
                w->events = events;
}

void watch_moved(loop *l, watch *w, uint32_t events)
{
        struct epoll_event ev = {.events = events, .data.ptr = w};
        epoll_ctl(l->epfd, w->events == ~0U ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, w->fd, &ev);
        w->events = events;
}

int loop_open(loop *l)
{
        l->stop_w = watch_new(W_STOP, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), NULL);
        l->epfd = epoll_create1(EPOLL_CLOEXEC);
        return l->epfd < 0 || l->stop_w.fd < 0 ? -1 : 0;
}

void loop_stop(loop *l)
{
        uint64_t one = 1;
        (void)!write(l->stop_w.fd, &one, sizeof(one));
}

void loop_close(loop *l)
{
        watch_close(&l->stop_w);
        if (l->epfd >= 0)
                close(l->epfd);
        l->epfd = -1;
}

bool loop_round(loop *l, const loop_handler *h)
{
        struct epoll_event ev[64];
        int n = epoll_wait(l->epfd, ev, 64, 1000);
        if (n < 0 && errno != EINTR)
                return false;
        for (int i = 0; i < n; i++) {
                watch *w = ev[i].data.ptr;
                if (w->kind == W_STOP || !h->dispatch(h->ctx, w, ev[i].events))
                        return false;
        }
        return true;
}

void loop_offer(loop *l, watch *w) { (void)l, (void)w; } /* the epoll set is kept by watch_set */

int accept_nonblock(int listen_fd) { return accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int socket_nonblock(int family) { return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0); }

/* A SOCK_SEQPACKET pair: EOF when the thread died. */
int resolver_pair(int sv[2]) { return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv); }

/* Pipes of an unprivileged user count against fs.pipe-user-pages-soft (64
 * MiB by default), beyond which every new pipe of theirs gets two pages. */
size_t tunnel_pipe(int fds[2])
{
        if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0)
                return 0;
        (void)fcntl(fds[1], F_SETPIPE_SZ, (int)PIPE_CAP); /* else the default, 64 KiB */
        int size = fcntl(fds[1], F_GETPIPE_SZ);
        return size > 0 ? (size_t)size : 4096;
}

size_t tunnel_pipe_grow(int wfd, size_t size)
{
        int r = fcntl(wfd, F_SETPIPE_SZ, (int)size);
        return r > 0 ? (size_t)r : 0;
}

ssize_t splice_move(int from, int to, size_t n)
{
        return splice(from, NULL, to, NULL, n, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
}
