/* SPDX-License-Identifier: MIT */
/* The proxy's event loop with POSIX only (net/loop.h): poll(2) over every
 * watched descriptor, a self-pipe to stop; no splice(2): tunnels copy
 * through their buffers. */
#include "net/loop.h"

#include <stdlib.h>

/* Where MSG_NOSIGNAL is missing (older macOS), a socket that never raises
 * SIGPIPE. */
static int sock_nosigpipe(int fd)
{
#ifdef SO_NOSIGPIPE
        int one = 1;
        if (fd >= 0)
                (void)setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
        return fd;
}

/* The next round's set is made of the watches. */
void watch_set(loop *l, watch *w, uint32_t events)
{
        (void)l;
        if (w->fd >= 0)
                w->events = events ? events : ~0U;
}

void watch_moved(loop *l, watch *w, uint32_t events) { watch_set(l, w, events); }

int loop_open(loop *l)
{
        int fds[2] = {-1, -1};
        l->stop_w = watch_new(W_STOP, -1, NULL);
        l->stop_write_fd = -1;
        if (pipe(fds) < 0)
                return -1;
        l->stop_w = watch_new(W_STOP, fd_nonblock_cloexec(fds[0]), NULL);
        l->stop_write_fd = fd_nonblock_cloexec(fds[1]);
        return l->stop_w.fd < 0 || l->stop_write_fd < 0 ? -1 : 0;
}

void loop_stop(loop *l) { (void)!write(l->stop_write_fd, "", 1); }

void loop_close(loop *l)
{
        watch_close(&l->stop_w);
        if (l->stop_write_fd >= 0)
                close(l->stop_write_fd);
        l->stop_write_fd = -1;
        free(l->pfd);
        free(l->pw);
        l->pfd = NULL;
        l->pw = NULL;
}

void loop_offer(loop *l, watch *w)
{
        if (w->fd < 0 || w->events == ~0U)
                return;
        if (l->n == l->pcap) {
                size_t cap = l->pcap ? 2 * l->pcap : 64;
                struct pollfd *f = realloc(l->pfd, cap * sizeof(*f));
                if (f)
                        l->pfd = f;
                watch **ws = f ? realloc(l->pw, cap * sizeof(watch *)) : NULL;
                if (!ws)
                        return; /* out of memory: this one waits a round */
                l->pw = ws;
                l->pcap = cap;
        }
        l->pfd[l->n] = (struct pollfd){.fd = w->fd, .events = (short)w->events};
        l->pw[l->n++] = w;
}

/* The stop watch first: it is never crowded out. */
bool loop_round(loop *l, const loop_handler *h)
{
        l->n = 0;
        loop_offer(l, &l->stop_w);
        h->each_watch(h->ctx, l);
        size_t n = l->n;
        int r = poll(l->pfd, (nfds_t)n, 1000);
        if (r < 0 && errno != EINTR)
                return false;
        for (size_t i = 0; r > 0 && i < n; i++) {
                uint32_t ev = (uint16_t)l->pfd[i].revents;
                if (ev & (uint32_t)POLLNVAL)
                        ev |= EV_ERR;
                watch *w = l->pw[i];
                if (ev && w->fd == l->pfd[i].fd && (w->kind == W_STOP || !h->dispatch(h->ctx, w, ev)))
                        return false;
        }
        return true;
}

int accept_nonblock(int listen_fd) { return sock_nosigpipe(fd_nonblock_cloexec(accept(listen_fd, NULL, NULL))); }

int socket_nonblock(int family) { return sock_nosigpipe(fd_nonblock_cloexec(socket(family, SOCK_STREAM, 0))); }

/* One datagram (macOS has no SOCK_SEQPACKET for unix sockets; a resolver
 * that never answers times out, setup_s). */
int resolver_pair(int sv[2])
{
        if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
                return -1;
        if (fd_nonblock_cloexec(sv[0]) < 0) {
                close(sv[1]);
                return -1;
        }
        if (fcntl(sv[1], F_SETFD, FD_CLOEXEC) < 0) {
                close(sv[0]);
                close(sv[1]);
                return -1;
        }
        sock_nosigpipe(sv[1]);
        return 0;
}

/* No splice(2): tunnels copy through their buffers. */
size_t tunnel_pipe(int fds[2])
{
        fds[0] = fds[1] = -1;
        return 0;
}

size_t tunnel_pipe_grow(int wfd, size_t size)
{
        (void)wfd, (void)size;
        return 0;
}

ssize_t splice_move(int from, int to, size_t n)
{
        (void)from, (void)to, (void)n;
        errno = ENOSYS;
        return -1;
}