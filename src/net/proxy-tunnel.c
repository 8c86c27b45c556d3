/* SPDX-License-Identifier: MIT */
/* The tunnel: bytes both ways between the client and upstream once
 * connected, spliced through a pipe per direction (the bytes never reach
 * user space) or copied through the flow's buffer when no pipe could be
 * had, half-closes passed on once what came before is sent; and the
 * buffered reads and writes the head and the replies also use. Called by
 * the connections (proxy-conn.c) and proxy-upstream.c (tunnel_start). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "net/proxy-internal.h"

#define PUMP_MAX ((size_t)4 * 1024 * 1024) /* per direction and wakeup: the others get a turn */
/* A bulk transfer's pipe grows to PIPE_BIG: fewer splices and wake-ups
 * per byte. The grown pipes stay within PIPES_GROWN_MAX of them: they
 * count against the user's pipe quota, which the command's own pipes
 * share (loop-epoll.c). */
#define PIPE_BIG ((size_t)1024 * 1024)
#define PIPES_GROWN_MAX 16

/* Read from |fd| into |f|'s buffer; false on an error (EOF sets f->eof). */
bool flow_fill(int fd, flow *f, size_t cap, bool *moved)
{
        if (f->off > 0 && f->len == cap) {
                memmove(f->b, f->b + f->off, f->len - f->off);
                f->len -= f->off;
                f->off = 0;
        }
        if (f->len >= cap)
                return true;
        ssize_t n = recv(fd, f->b + f->len, cap - f->len, 0);
        if (n > 0) {
                f->len += (size_t)n;
                *moved = true;
                return true;
        }
        if (n == 0) {
                f->eof = true;
                return true;
        }
        return errno == EAGAIN || errno == EINTR;
}

/* Send what |f|'s buffer holds to |fd|; false on an error. */
bool flow_drain(int fd, flow *f, bool *moved)
{
        if (f->off >= f->len)
                return true;
        ssize_t n = send(fd, f->b + f->off, f->len - f->off, MSG_NOSIGNAL);
        if (n < 0)
                return errno == EAGAIN || errno == EINTR;
        f->off += (size_t)n;
        *moved = true;
        if (f->off == f->len)
                f->off = f->len = 0;
        return true;
}

void flow_close_pipe(proxy *p, flow *f)
{
        if (f->pipe[0] < 0)
                return;
        close(f->pipe[0]);
        close(f->pipe[1]);
        f->pipe[0] = f->pipe[1] = -1;
        p->pipe_fds -= 2;
        p->pipes_grown -= f->grown;
        f->grown = false;
}

/* A pipe for |f|, while descriptors are left for one (else the buffer). */
static void flow_open_pipe(proxy *p, flow *f)
{
        f->pipe_cap = f->frame || 2 * p->n_conns + p->pipe_fds + 2 > p->fds_max ? 0 : tunnel_pipe(f->pipe);
        if (f->pipe_cap == 0) {
                f->pipe[0] = f->pipe[1] = -1;
                return;
        }
        p->pipe_fds += 2;
}

/* Once a splice (half) filled |f|'s pipe, it grows to PIPE_BIG (once) while
 * fewer than PIPES_GROWN_MAX have. */
static void flow_grow(proxy *p, flow *f)
{
        if (!f->filled || f->grow_tried || p->pipes_grown >= PIPES_GROWN_MAX)
                return;
        f->grow_tried = true;
        size_t cap = tunnel_pipe_grow(f->pipe[1], PIPE_BIG);
        if (cap <= f->pipe_cap)
                return;
        f->pipe_cap = cap;
        f->grown = true;
        p->pipes_grown++;
}

static bool splice_ok(ssize_t n) { return n >= 0 || errno == EAGAIN || errno == EINTR; }

/* Move what |from| sends to |to| until one of them would block (or
 * PUMP_MAX moved): first what the buffer holds, then through the pipe (or
 * the buffer again). False on an error of either side. */
static bool pump(int from, int to, flow *f, bool *moved)
{
        if (to < 0)
                return true;
        size_t total = 0;
        bool any = false, eof_before = f->eof;
        for (bool progress = true; progress && total < PUMP_MAX; any |= progress) {
                progress = false;
                size_t before = f->len - f->off;
                if (!flow_drain(to, f, &progress))
                        return false;
                if (f->off < f->len) /* |to| would block */
                        break;
                total += before;
                if (f->pipe[0] >= 0 && f->piped > 0) {
                        ssize_t n = splice_move(f->pipe[0], to, f->piped);
                        if (!splice_ok(n))
                                return false;
                        f->piped -= n > 0 ? (size_t)n : 0;
                        total += n > 0 ? (size_t)n : 0;
                        progress |= n > 0;
                }
                if (f->eof || from < 0)
                        continue;
                if (f->pipe[0] < 0) {
                        size_t had = f->len - f->off; /* kept by fill's compaction */
                        if (!flow_fill(from, f, BUF_CAP, &progress) || (f->frame && !http_frame_new(f, had)))
                                return false;
                        continue;
                }
                ssize_t n = splice_move(from, f->pipe[1], f->pipe_cap);
                if (!splice_ok(n))
                        return false;
                f->filled |= n > 0 && (size_t)n >= f->pipe_cap / 2; /* its slots may fill first */
                f->eof = n == 0;
                f->piped += n > 0 ? (size_t)n : 0;
                progress |= n > 0;
        }
        *moved |= any || f->eof != eof_before;
        return true;
}

/* Bytes of |f| not yet sent on. */
size_t flow_pending(const flow *f) { return f->len - f->off + f->piped; }

/* What the source of |f| is waiting for: more only once the pipe (or the
 * buffer) has room; a slot-full pipe with bytes in it would spin. */
uint32_t flow_source_events(const flow *f)
{
        bool room = f->pipe[0] >= 0 ? f->piped == 0 && f->off >= f->len : f->len < BUF_CAP;
        return !f->eof && room ? EV_IN : 0;
}

void tunnel_start(proxy *p, conn *c)
{
        int one = 1;
        setsockopt(c->cw.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        setsockopt(c->uw.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        flow_open_pipe(p, &c->up);
        flow_open_pipe(p, &c->down);
        c->st = ST_TUNNEL;
        c->deadline = now_s() + c->owner->t.idle_s;
}

/* Bytes both ways; half-closes passed on once what came before is sent. */
bool tunnel_pump(conn *c, uint32_t ev)
{
        if (ev & EV_ERR) /* a reset: what is in flight is lost anyway */
                return false;
        bool moved = false;
        if (!pump(c->cw.fd, c->uw.fd, &c->up, &moved) || !pump(c->uw.fd, c->cw.fd, &c->down, &moved))
                return false;
        flow_grow(c->owner, &c->up);
        flow_grow(c->owner, &c->down);
        if (moved)
                c->deadline = now_s() + (c->up.eof || c->down.eof ? c->owner->t.half_open_s : c->owner->t.idle_s);
        return true;
}
