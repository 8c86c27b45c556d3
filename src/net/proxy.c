/* SPDX-License-Identifier: MIT */
/* SPDX-License-Identifier: MIT */
/* The allowlist proxy: one thread of the launcher, one event loop, every
 * connection a small state machine:
 *
 *   HEAD (HTTP head, or SOCKS5 greeting then request)
 *     -> policy (net/allowlist.c) -> RESOLVE (a name: getaddrinfo in a
 *        short-lived thread, on the host) -> every address checked
 *     -> CONNECT (to an address that was checked, never a new lookup)
 *     -> TUNNEL (bytes both ways; TLS passes through untouched)
 *   or FLUSH: a denial or an error is written, then the connection closes.
 *
 * Memory is bounded: two BUF_CAP buffers per connection (the head, the
 * replies, and a tunnel's bytes when no pipe is left), two PIPE_CAP pipes
 * per tunnel (splice(2): the bytes never reach user space; a bulk one's
 * grows to PIPE_BIG while fewer than PIPES_GROWN_MAX have), CONN_MAX
 * connections. Every state has a deadline (head, resolve and connect:
 * setup_s; a tunnel: idle_s without traffic, half_open_s once one side
 * closed; PROXY_TIMEOUTS_ENV shortens them for tests). The thread runs
 * outside the sandbox, in the launcher's network namespace; the command
 * reaches it only through the listening socket.
 *
 * This file is the proxy's thread: its start and end, the descriptor
 * budget and policy it starts with, and each round of its loop (accepting,
 * the listener from the sandbox's init, handing the events to the
 * connections: proxy-conn.c). The protocols are proxy-http.c and
 * proxy-socks.c, the way upstream proxy-upstream.c, the tunnel
 * proxy-tunnel.c, the deadlines proxy-timeouts.c, the denials
 * proxy-denials.c (proxy-internal.h: what they share). The event loop
 * under them, and whether tunnels splice or copy, is the platform's
 * (net/loop.h: net/loop-epoll.c on Linux, else net/loop-poll.c). Called
 * by the backends that run the proxy (core/backend-proxy.c). */
#include "net/proxy.h"

#include <ifaddrs.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "error.h"
#include "net/proxy-internal.h"

/* Stop accepting on every listener (0), or start again (EV_IN). */
void proxy_accepting(proxy *p, uint32_t events)
{
        p->accept_paused = events == 0;
        watch_set(&p->loop, &p->listen_w, events);
        for (size_t i = 0; i < p->n_fwd; i++)
                watch_set(&p->loop, &p->fwd_w[i], events);
        for (size_t j = 0; j < NET_INTERCEPTED_MAX; j++)
                watch_set(&p->loop, &p->intercept_w[j], events);
}

/* A connection to a forwarded loopback service: no protocol of its own,
 * its target the forward's (checked again: the policy is the list's). */
void forward_start(proxy *p, conn *c, const net_forward *f)
{
        c->proto = P_FORWARD;
        snprintf(c->host, sizeof(c->host), "%s", f->host);
        c->port = f->port;
        upstream_request(p, c);
        if (!conn_update(p, c))
                conn_free(p, c);
}

/* Accept what waits on |lw|: the proxy's listener, a forward's, or an
 * intercepted port's. */
static void accept_all(proxy *p, watch *lw)
{
        const net_forward *f = lw->kind == W_FORWARD ? &p->fwd[lw - p->fwd_w] : NULL;
        for (int i = 0; i < 64; i++) {
                int fd = accept_nonblock(lw->fd);
                if (fd < 0) {
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                                proxy_accepting(p, 0); /* until a connection closes */
                        return;
                }
                conn *c = p->n_conns < CONN_MAX ? calloc(1, sizeof(*c)) : NULL;
                if (c) {
                        c->up.b = malloc(BUF_CAP);
                        c->down.b = malloc(BUF_CAP);
                }
                if (!c || !c->up.b || !c->down.b) {
                        if (c) {
                                free(c->up.b);
                                free(c->down.b);
                                free(c);
                        }
                        close(fd);
                        continue;
                }
                c->cw = watch_new(W_CLIENT, fd, c);
                c->uw = watch_new(W_UPSTREAM, -1, c);
                c->rw = watch_new(W_RESOLVER, -1, c);
                c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
                c->owner = p;
                c->st = ST_HEAD;
                c->deadline = now_s() + c->owner->t.setup_s;
                c->next = p->conns;
                if (p->conns)
                        p->conns->prev = c;
                p->conns = c;
                p->n_conns++;
                if (f)
                        forward_start(p, c, f);
                else if (lw->kind == W_INTERCEPT)
                        intercept_start(p, c);
                else
                        watch_set(&p->loop, &c->cw, EV_IN);
        }
}

/* Where the listener with data byte |i| goes (PROXY_INDEX_*), or NULL. */
static watch *listener_watch(proxy *p, size_t i, watch_kind *kind)
{
        watch *w = NULL;
        *kind = W_LISTEN;
        if (i == PROXY_INDEX_PROXY) {
                w = &p->listen_w;
        } else if (i >= PROXY_INDEX_FORWARD && i < PROXY_INDEX_FORWARD + p->n_fwd) {
                w = &p->fwd_w[i - PROXY_INDEX_FORWARD];
                *kind = W_FORWARD;
        } else if (i >= PROXY_INDEX_INTERCEPTED && i < PROXY_INDEX_INTERCEPTED + NET_INTERCEPTED_MAX) {
                w = &p->intercept_w[i - PROXY_INDEX_INTERCEPTED];
                *kind = W_INTERCEPT;
        } else if (i == PROXY_INDEX_DNS) {
                w = &p->dns_w;
                *kind = W_DNS;
        }
        return w && w->fd < 0 ? w : NULL;
}

/* The listening sockets, sent by the sandbox's init, each with its index
 * (PROXY_INDEX_*); then EOF. */
static void receive_listener(proxy *p)
{
        unsigned char data[1];
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u;
        struct iovec iov = {data, sizeof(data)};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
#ifdef MSG_CMSG_CLOEXEC
        ssize_t n = recvmsg(p->channel_w.fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
#else /* only the linux backend sends a listener this way */
        ssize_t n = recvmsg(p->channel_w.fd, &m, 0);
#endif
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return;
        struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
        if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS && h->cmsg_len == CMSG_LEN(sizeof(int))) {
                int fd;
                memcpy(&fd, CMSG_DATA(h), sizeof(fd));
                fd = fd_nonblock_cloexec(fd);
                watch_kind kind;
                watch *w = listener_watch(p, data[0], &kind);
                if (w) {
                        *w = watch_new(kind, fd, NULL);
                        watch_set(&p->loop, w, p->accept_paused && kind != W_DNS ? 0 : EV_IN);
                } else if (fd >= 0) {
                        close(fd);
                }
                return;
        }
        watch_close(&p->channel_w); /* EOF: the init sent them all (or died) */
}

/* What one round of the loop does with a ready watch. */
static bool dispatch(void *ctx, watch *w, uint32_t events)
{
        proxy *p = ctx;
        if (w->kind == W_LISTEN || w->kind == W_FORWARD || w->kind == W_INTERCEPT)
                accept_all(p, w);
        else if (w->kind == W_DNS)
                dns_serve(p);
        else if (w->kind == W_CHANNEL)
                receive_listener(p);
        else if (w->kind == W_ORPHAN)
                conn_orphan_reap(p, (orphan *)w);
        else if (w->kind == W_PREFETCH)
                prefetch_answered(p, (prefetch *)w);
        else if (w->fd >= 0) /* not closed by an earlier event of this round */
                conn_event(p, w, events);
        return true;
}

/* Every watch of the proxy, for a loop that makes each round's set. */
static void each_watch(void *ctx, loop *l)
{
        proxy *p = ctx;
        loop_offer(l, &p->listen_w);
        loop_offer(l, &p->channel_w);
        for (size_t i = 0; i < p->n_fwd; i++)
                loop_offer(l, &p->fwd_w[i]);
        for (size_t j = 0; j < NET_INTERCEPTED_MAX; j++)
                loop_offer(l, &p->intercept_w[j]);
        loop_offer(l, &p->dns_w);
        for (conn *c = p->conns; c; c = c->next) {
                loop_offer(l, &c->cw);
                loop_offer(l, &c->uw);
                loop_offer(l, &c->rw);
        }
        for (orphan *o = p->orphans; o; o = o->next)
                loop_offer(l, &o->w);
        prefetch_offer(p, l);
}

static void *proxy_main(void *arg)
{
        proxy *p = arg;
        const loop_handler h = {dispatch, each_watch, p};
        double last_sweep = now_s();
        while (loop_round(&p->loop, &h)) {
                conn_reap_dead(p);
                if (now_s() - last_sweep >= 1.0) {
                        conn_sweep(p);
                        conn_reap_dead(p);
                        last_sweep = now_s();
                }
        }
        return NULL;
}

/* The host's own addresses: a name that resolves to one is refused. */
static int read_own_addresses(net_policy *pol)
{
        struct ifaddrs *ifa = NULL;
        if (getifaddrs(&ifa) < 0)
                return 0; /* loopback and private ranges are refused anyway */
        size_t n = 0;
        for (struct ifaddrs *i = ifa; i; i = i->ifa_next)
                n += i->ifa_addr && (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6);
        pol->own = n ? calloc(n, sizeof(net_addr)) : NULL;
        for (struct ifaddrs *i = ifa; pol->own && i; i = i->ifa_next)
                if (i->ifa_addr && (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6))
                        net_addr_from_sockaddr(i->ifa_addr, &pol->own[pol->n_own++]);
        freeifaddrs(ifa);
        return n && !pol->own ? -ENOMEM : 0;
}

/* A tunnel gets its pipes (four descriptors) while the proxy's sockets
 * and pipes stay within half the descriptors the process may open: pipes
 * never take what the sockets of the connections need. Beyond: copies. */
static size_t fds_max(void)
{
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
                return (size_t)6 * CONN_MAX;
        size_t half = (size_t)rl.rlim_cur / 2;
        return half < (size_t)6 * CONN_MAX ? half : (size_t)6 * CONN_MAX;
}

static int parse_policy(const char *const *allow, net_policy *pol, cordon_error **ret_error)
{
        size_t n = 0;
        while (allow && allow[n])
                n++;
        pol->e = calloc(n ? n : 1, sizeof(net_entry));
        if (!pol->e)
                return error_set(ret_error, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                const char *why = NULL;
                if (net_entry_parse(allow[i], &pol->e[pol->n], &why) < 0)
                        return error_set(ret_error, EINVAL, "network allowlist: %s: %s", allow[i], why);
                pol->n++;
        }
        int r = read_own_addresses(pol);
        return r < 0 ? error_set(ret_error, -r, "out of memory") : 0;
}

int proxy_start(const char *const *allow, const net_forward *fwd, size_t n_fwd, int listen_fd, int channel_fd,
                cordon_log_fn log_fn, void *userdata, proxy **ret, cordon_error **ret_error)
{
        proxy *p = calloc(1, sizeof(*p));
        if (!p) {
                if (listen_fd >= 0)
                        close(listen_fd);
                if (channel_fd >= 0)
                        close(channel_fd);
                return error_set(ret_error, ENOMEM, "out of memory");
        }
        pthread_mutex_init(&p->lock, NULL);
        pthread_mutex_init(&p->policy_lock, NULL);
        p->log_fn = log_fn;
        p->log_userdata = userdata;
        p->t = proxy_read_timeouts();
        p->fds_max = fds_max();
        p->listen_w = watch_new(W_LISTEN, listen_fd, NULL);
        p->channel_w = watch_new(W_CHANNEL, channel_fd, NULL);
        p->n_fwd = n_fwd < NET_FORWARDS_MAX ? n_fwd : NET_FORWARDS_MAX;
        for (size_t i = 0; i < p->n_fwd; i++) {
                p->fwd[i] = fwd[i];
                p->fwd_w[i] = watch_new(W_FORWARD, -1, NULL);
        }
        for (size_t j = 0; j < NET_INTERCEPTED_MAX; j++)
                p->intercept_w[j] = watch_new(W_INTERCEPT, -1, NULL);
        p->dns_w = watch_new(W_DNS, -1, NULL);
        /* the sandbox resolver's addresses (proxy-dns.c), one a name */
        p->names = resolved_new(RESOLVED_BASE, RESOLVED_PREFIX, 16384);
        int loop_err = loop_open(&p->loop) < 0 ? errno : 0;
        int r = p->names ? parse_policy(allow, &p->policy, ret_error) : error_set(ret_error, ENOMEM, "out of memory");
        if (r == 0 && loop_err)
                r = error_set(ret_error, loop_err, "cannot start the network proxy: %s", strerror(loop_err));
        if (r == 0) {
                if (listen_fd >= 0)
                        fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
                watch_set(&p->loop, &p->listen_w, EV_IN);
                watch_set(&p->loop, &p->channel_w, EV_IN);
                watch_set(&p->loop, &p->loop.stop_w, EV_IN);
                /* no signal of the caller's is handled on this thread */
                sigset_t all, old;
                sigfillset(&all);
                pthread_sigmask(SIG_SETMASK, &all, &old);
                int e = pthread_create(&p->thread, NULL, proxy_main, p);
                pthread_sigmask(SIG_SETMASK, &old, NULL);
                if (e)
                        r = error_set(ret_error, e, "cannot start the network proxy's thread: %s", strerror(e));
                p->started = e == 0;
        }
        if (r < 0) {
                proxy_free(p);
                return r;
        }
        *ret = p;
        return 0;
}

void proxy_stop(proxy *p)
{
        if (!p)
                return;
        pthread_mutex_lock(&p->policy_lock);
        bool was = p->stopped;
        p->stopped = true; /* no grant after this */
        pthread_mutex_unlock(&p->policy_lock);
        if (was)
                return;
        if (p->started) {
                loop_stop(&p->loop);
                pthread_join(p->thread, NULL);
        }
        p->stopping = true; /* a lookup in flight is waited for */
        while (p->conns)
                conn_free(p, p->conns);
        while (p->orphans)
                conn_orphan_reap(p, p->orphans);
        prefetch_stop(p);
        conn_reap_dead(p);
        watch_close(&p->listen_w);
        watch_close(&p->channel_w);
        for (size_t i = 0; i < p->n_fwd; i++)
                watch_close(&p->fwd_w[i]);
        for (size_t j = 0; j < NET_INTERCEPTED_MAX; j++)
                watch_close(&p->intercept_w[j]);
        watch_close(&p->dns_w);
}

proxy *proxy_free(proxy *p)
{
        if (!p)
                return NULL;
        proxy_stop(p);
        loop_close(&p->loop);
        for (size_t i = 0; i < p->n_denials; i++) {
                free(p->denials[i].host);
                free(p->denials[i].reason);
                free(p->denials[i].allow);
        }
        free(p->policy.e);
        resolved_free(p->names);
        for (size_t i = 0; i < p->n_grants; i++)
                free(p->grants[i].entry);
        free(p->grants);
        pthread_mutex_destroy(&p->policy_lock);
        free(p->policy.own);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
}
