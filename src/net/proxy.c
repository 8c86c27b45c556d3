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
 * This file is the protocol: what each connection reads, decides and
 * forwards. The event loop under it, and whether tunnels splice or copy,
 * is the platform's (net/loop.h: net/loop-epoll.c on Linux, else
 * net/loop-poll.c). */
#include "net/proxy.h"

#include <ifaddrs.h>
#include <jansson.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "error.h"
#include "net/allowlist.h"
#include "net/loop.h"
#include "net/request.h"

#define CONN_MAX 512
#define BUF_CAP ((size_t)64 * 1024)
#define PUMP_MAX ((size_t)4 * 1024 * 1024) /* per direction and wakeup: the others get a turn */
/* A bulk transfer's pipe grows to PIPE_BIG: fewer splices and wake-ups
 * per byte. The grown pipes stay within PIPES_GROWN_MAX of them: they
 * count against the user's pipe quota, which the command's own pipes
 * share (loop-epoll.c). */
#define PIPE_BIG ((size_t)1024 * 1024)
#define PIPES_GROWN_MAX 16
#define DENIALS_MAX 256
#define ADDRS_MAX 8
#define REASON_MAX 256

typedef enum conn_state { ST_HEAD, ST_SOCKS_REQUEST, ST_RESOLVE, ST_CONNECT, ST_TUNNEL, ST_FLUSH } conn_state;
typedef enum conn_proto { P_UNKNOWN, P_HTTP, P_CONNECT, P_SOCKS } conn_proto;

/* One direction: client -> upstream (up) or back (down). Its buffer holds
 * the head and the replies; a tunnel's bytes are spliced through its pipe,
 * or copied through the buffer when no pipe could be had. */
typedef struct flow {
        uint8_t *b;
        size_t off, len; /* bytes b[off..len) wait to be sent */
        int pipe[2];     /* or -1 */
        size_t piped;    /* bytes in the pipe */
        size_t pipe_cap; /* its size */
        bool filled;     /* one splice (half) filled it: a bulk transfer */
        bool grow_tried, grown; /* to PIPE_BIG (grown: counted in pipes_grown) */
        bool eof;        /* the source sent EOF */
        bool shut;       /* the destination was shut down for writing */
        http_body *frame; /* a forwarded request's: where its body ends (copied, never spliced), or NULL */
        bool after;       /* the client sent more after that body */
} flow;

typedef struct conn {
        struct conn *prev, *next;
        watch cw, uw, rw; /* client, upstream, resolver */
        conn_state st;
        conn_proto proto;
        flow up, down; /* client -> upstream, upstream -> client */
        http_body body; /* P_HTTP: the request's body */
        double deadline;
        char host[NET_HOST_MAX + 3];
        uint16_t port;
        net_addr addrs[ADDRS_MAX];
        size_t n_addrs, next_addr;
        int last_err;
        pthread_t resolver; /* while resolving: joined once it answered */
        bool resolving;
        struct proxy *owner;
} conn;

/* A resolver whose connection is gone: joined once it answers. */
typedef struct orphan {
        watch w; /* first: the event's pointer is the orphan's */
        pthread_t thread;
        struct orphan *next;
} orphan;

struct proxy {
        pthread_t thread;
        bool started, stopped;
        loop loop;
        watch listen_w, channel_w;
        bool accept_paused;
        conn *conns;
        conn *dead;   /* closed during this round of events, freed after it */
        orphan *orphans;
        size_t n_conns;
        size_t pipe_fds; /* descriptors the tunnels' pipes use */
        size_t pipes_grown; /* pipes of PIPE_BIG bytes, at most PIPES_GROWN_MAX */
        size_t fds_max; /* the most the sockets and pipes may use before tunnels copy */
        proxy_timeouts t;
        bool stopping; /* resolvers are joined, no longer orphaned */
        net_policy policy;
        cordon_log_fn log_fn;
        void *log_userdata;
        pthread_mutex_t lock; /* the denials */
        proxy_denial denials[DENIALS_MAX];
        size_t n_denials;
};

/* What a resolver thread sends back, in one datagram. */
typedef struct resolve_result {
        int err; /* getaddrinfo's */
        size_t n;
        net_addr a[ADDRS_MAX];
} resolve_result;

typedef struct resolve_job {
        int fd;
        char host[NET_HOST_MAX + 3];
} resolve_job;

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- denials ---------------------------------------------------------------------- */

static void host_port(const char *host, unsigned port, char *out, size_t n)
{
        snprintf(out, n, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
}

/* May a denial of |host| (|hp|: with its port) suggest "--allow-net
 * |hp|"? Only when it is a valid name or IP literal, as the policy
 * checked it, and an entry as it is written. */
static bool suggestable(const char *host, const char *hp)
{
        char name[NET_HOST_MAX + 3];
        snprintf(name, sizeof(name), "%s", host);
        net_entry e;
        const char *why = NULL;
        return net_host_normalize(name) && streq(name, host) && net_entry_parse(hp, &e, &why) == 0;
}

/* Record (host, port) once and tell the log. */
static void note_denial(proxy *p, const char *host, unsigned port, const char *reason)
{
        bool fresh = true;
        pthread_mutex_lock(&p->lock);
        for (size_t i = 0; i < p->n_denials && fresh; i++)
                fresh = !(p->denials[i].port == port && streq(p->denials[i].host, host));
        if (fresh && p->n_denials < DENIALS_MAX) {
                proxy_denial *d = &p->denials[p->n_denials];
                d->host = strdup(host);
                d->reason = strdup(reason);
                d->port = port;
                if (d->host && d->reason)
                        p->n_denials++;
                else {
                        free(d->host);
                        free(d->reason);
                }
        }
        pthread_mutex_unlock(&p->lock);
        if (!fresh || !p->log_fn)
                return;
        char hp[NET_HOST_MAX + 16];
        host_port(host, port, hp, sizeof(hp));
        /* the name is the command's choice: escaped for the terminal, and
         * offered as an entry only when it is one */
        bool entry = suggestable(host, hp);
        _cleanup_free_ char *shown = str_escape(hp, false);
        _cleanup_free_ char *m = !shown ? NULL
                                 : entry ? xasprintf("network: denied %s: %s (allow it with --allow-net %s)", shown,
                                                     reason, shown)
                                         : xasprintf("network: denied %s: %s", shown, reason);
        if (m)
                p->log_fn(CORDON_LOG_DENIED, m, p->log_userdata);
}

/* ---- connections ------------------------------------------------------------------ */

static void flow_close_pipe(proxy *p, flow *f)
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

/* Stop waiting for |c|'s resolver. A running one is joined once it
 * answers (or when the proxy stops): no thread outlives the proxy. */
static void resolver_drop(proxy *p, conn *c)
{
        orphan *o = c->resolving && !p->stopping ? calloc(1, sizeof(*o)) : NULL;
        if (c->resolving && !o) {
                pthread_join(c->resolver, NULL); /* stopping, or out of memory: wait for it */
                c->resolving = false;
        }
        if (!c->resolving) {
                watch_close(&c->rw);
                return;
        }
        *o = (orphan){.thread = c->resolver, .next = p->orphans};
        o->w = watch_new(W_ORPHAN, c->rw.fd, NULL);
        o->w.events = c->rw.events;
        c->rw = watch_new(W_RESOLVER, -1, c);
        c->resolving = false;
        p->orphans = o;
        watch_moved(&p->loop, &o->w, EV_IN);
}

static void orphan_reap(proxy *p, orphan *dead)
{
        for (orphan **o = &p->orphans; *o; o = &(*o)->next) {
                if (*o != dead)
                        continue;
                *o = dead->next;
                pthread_join(dead->thread, NULL);
                watch_close(&dead->w);
                free(dead);
                return;
        }
}

/* Close |c|; its memory lives until reap_dead (later events of the same
 * round may still name its watches, whose fd is then -1). */
static void conn_free(proxy *p, conn *c)
{
        watch_close(&c->cw);
        watch_close(&c->uw);
        resolver_drop(p, c);
        flow_close_pipe(p, &c->up);
        flow_close_pipe(p, &c->down);
        if (c->prev)
                c->prev->next = c->next;
        else
                p->conns = c->next;
        if (c->next)
                c->next->prev = c->prev;
        c->prev = NULL;
        c->next = p->dead;
        p->dead = c;
        p->n_conns--;
        if (p->accept_paused) {
                p->accept_paused = false;
                watch_set(&p->loop, &p->listen_w, EV_IN);
        }
}

static void reap_dead(proxy *p)
{
        while (p->dead) {
                conn *c = p->dead;
                p->dead = c->next;
                free(c->up.b);
                free(c->down.b);
                free(c);
        }
}

/* Queue |n| bytes for the client (they fit: replies are small). */
static void to_client(conn *c, const void *data, size_t n)
{
        if (c->down.len + n > BUF_CAP)
                n = BUF_CAP - c->down.len;
        memcpy(c->down.b + c->down.len, data, n);
        c->down.len += n;
}

static void finish_with(conn *c, const void *data, size_t n)
{
        to_client(c, data, n);
        c->st = ST_FLUSH;
        c->deadline = now_s() + c->owner->t.setup_s;
        watch_close(&c->uw);
        resolver_drop(c->owner, c);
}

static void socks_reply(conn *c, uint8_t rep, bool last)
{
        const uint8_t r[10] = {SOCKS_VERSION, rep, 0, 1, 0, 0, 0, 0, 0, 0};
        if (last)
                finish_with(c, r, sizeof(r));
        else
                to_client(c, r, sizeof(r));
}

static const char *status_text(int status)
{
        switch (status) {
        case 400: return "Bad Request";
        case 403: return "Forbidden";
        case 405: return "Method Not Allowed";
        case 414: return "URI Too Long";
        case 431: return "Request Header Fields Too Large";
        case 501: return "Not Implemented";
        case 502: return "Bad Gateway";
        case 504: return "Gateway Timeout";
        default: return "Error";
        }
}

/* An HTTP error with a one-line body; |denied|: the X-Cordon-Denied header. */
static void http_error(conn *c, int status, const char *denied, const char *body)
{
        char msg[1024];
        int n = snprintf(msg, sizeof(msg),
                         "HTTP/1.1 %d %s\r\n%s%s%sContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                         "Connection: close\r\n\r\n%s\n",
                         status, status_text(status), denied ? "X-Cordon-Denied: " : "", denied ? denied : "",
                         denied ? "\r\n" : "", strlen(body) + 1, body);
        finish_with(c, msg, n < 0 ? 0 : (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

/* A failure that is not a denial: |status| for HTTP, |rep| for SOCKS. */
static void fail_request(conn *c, int status, uint8_t rep, const char *why)
{
        char body[512];
        char hp[NET_HOST_MAX + 16];
        host_port(c->host, c->port, hp, sizeof(hp));
        snprintf(body, sizeof(body), "cordon: %s: %s", hp, why);
        if (c->proto == P_SOCKS)
                socks_reply(c, rep, true);
        else
                http_error(c, status, NULL, body);
}

static void deny(proxy *p, conn *c, const char *reason)
{
        note_denial(p, c->host, c->port, reason);
        if (c->proto == P_SOCKS) {
                socks_reply(c, SOCKS_REP_NOT_ALLOWED, true);
                return;
        }
        char hp[NET_HOST_MAX + 16], body[1024];
        host_port(c->host, c->port, hp, sizeof(hp));
        if (suggestable(c->host, hp))
                snprintf(body, sizeof(body), "cordon: denied %s: %s (allow it with --allow-net %s)", hp, reason, hp);
        else
                snprintf(body, sizeof(body), "cordon: denied %s: %s", hp, reason);
        http_error(c, 403, reason, body);
}

/* ---- resolving and connecting ----------------------------------------------------- */

static void *resolver_main(void *arg)
{
        resolve_job *j = arg;
        resolve_result res = {0};
        /* no AI_ADDRCONFIG: on a host with only loopback it hides every
         * IPv4 address; an address without a route fails to connect, and
         * the next one is tried */
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
        struct addrinfo *ai = NULL;
        res.err = getaddrinfo(j->host, NULL, &hints, &ai);
        for (struct addrinfo *a = res.err ? NULL : ai; a && res.n < ADDRS_MAX; a = a->ai_next)
                if (a->ai_family == AF_INET || a->ai_family == AF_INET6)
                        net_addr_from_sockaddr(a->ai_addr, &res.a[res.n++]);
        if (ai)
                freeaddrinfo(ai);
        (void)!send(j->fd, &res, sizeof(res), MSG_NOSIGNAL);
        close(j->fd);
        free(j);
        return NULL;
}

/* getaddrinfo blocks: a thread does it, and its answer arrives on a
 * socket the loop watches (then the thread is joined). 0 or -errno. */
static int resolve_start(proxy *p, conn *c)
{
        int sv[2];
        if (resolver_pair(sv) < 0)
                return -errno;
        resolve_job *j = malloc(sizeof(*j));
        if (!j) {
                close(sv[0]);
                close(sv[1]);
                return -ENOMEM;
        }
        j->fd = sv[1];
        snprintf(j->host, sizeof(j->host), "%s", c->host);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, (size_t)256 * 1024);
        int e = pthread_create(&c->resolver, &attr, resolver_main, j);
        pthread_attr_destroy(&attr);
        if (e) {
                free(j);
                close(sv[0]);
                close(sv[1]);
                return -e;
        }
        c->resolving = true;
        c->rw = watch_new(W_RESOLVER, sv[0], c);
        watch_set(&p->loop, &c->rw, EV_IN);
        c->st = ST_RESOLVE;
        c->deadline = now_s() + c->owner->t.setup_s;
        return 0;
}

static socklen_t to_sockaddr(const net_addr *a, uint16_t port, struct sockaddr_storage *ss)
{
        static const uint8_t MAPPED[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        memset(ss, 0, sizeof(*ss));
        if (memcmp(a->b, MAPPED, 12) == 0) {
                struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
                s4->sin_family = AF_INET;
                s4->sin_port = htons(port);
                memcpy(&s4->sin_addr, a->b + 12, 4);
                return sizeof(*s4);
        }
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(port);
        memcpy(&s6->sin6_addr, a->b, 16);
        return sizeof(*s6);
}

/* Connect to the next checked address; false when none is left. */
static bool connect_next(proxy *p, conn *c)
{
        watch_close(&c->uw);
        while (c->next_addr < c->n_addrs) {
                struct sockaddr_storage ss;
                socklen_t len = to_sockaddr(&c->addrs[c->next_addr++], c->port, &ss);
                int fd = socket_nonblock(ss.ss_family);
                if (fd < 0) {
                        c->last_err = errno;
                        continue;
                }
                if (connect(fd, (struct sockaddr *)&ss, len) == 0 || errno == EINPROGRESS) {
                        c->uw = watch_new(W_UPSTREAM, fd, c);
                        watch_set(&p->loop, &c->uw, EV_OUT);
                        c->st = ST_CONNECT;
                        c->deadline = now_s() + c->owner->t.setup_s;
                        return true;
                }
                c->last_err = errno;
                close(fd);
        }
        return false;
}

static void connect_failed(proxy *p, conn *c)
{
        (void)p;
        char why[128];
        snprintf(why, sizeof(why), "cannot connect: %s", strerror(c->last_err ? c->last_err : ECONNREFUSED));
        uint8_t rep = c->last_err == ENETUNREACH ? SOCKS_REP_NET_UNREACHABLE
                      : c->last_err == ETIMEDOUT ? SOCKS_REP_TTL
                      : c->last_err == EHOSTUNREACH ? SOCKS_REP_HOST_UNREACHABLE
                                                    : SOCKS_REP_REFUSED;
        fail_request(c, 502, rep, why);
}

static void start_connect(proxy *p, conn *c)
{
        if (!connect_next(p, c))
                connect_failed(p, c);
}

/* The answer of the resolver: every address must pass the policy. */
static void on_resolved(proxy *p, conn *c)
{
        resolve_result res;
        ssize_t n = recv(c->rw.fd, &res, sizeof(res), 0);
        watch_close(&c->rw);
        pthread_join(c->resolver, NULL); /* it answered (or failed to): it is ending */
        c->resolving = false;
        if (n != (ssize_t)sizeof(res) || res.err || res.n == 0) {
                char why[160];
                snprintf(why, sizeof(why), "cannot resolve the name: %s",
                         n == (ssize_t)sizeof(res) && res.err ? gai_strerror(res.err) : "no address");
                fail_request(c, 502, SOCKS_REP_HOST_UNREACHABLE, why);
                return;
        }
        for (size_t i = 0; i < res.n; i++) {
                char why[REASON_MAX];
                const char *r = net_policy_check_addr(&p->policy, &res.a[i], c->port, why, sizeof(why));
                if (r) {
                        deny(p, c, r);
                        return;
                }
        }
        memcpy(c->addrs, res.a, res.n * sizeof(net_addr));
        c->n_addrs = res.n;
        c->next_addr = 0;
        start_connect(p, c);
}

/* The request is known (host, port): check it, then resolve or connect. */
static void start_request(proxy *p, conn *c)
{
        char why[REASON_MAX];
        bool is_ip = false;
        char name[sizeof(c->host)];
        snprintf(name, sizeof(name), "%s", c->host);
        if (!net_host_normalize(name)) { /* named as the client wrote it */
                deny(p, c, "not a valid host name or IP address");
                return;
        }
        snprintf(c->host, sizeof(c->host), "%s", name);
        const char *r = net_policy_check_host(&p->policy, c->host, c->port, &is_ip, why, sizeof(why));
        if (r) {
                deny(p, c, r);
                return;
        }
        if (is_ip) {
                net_addr_parse(c->host, &c->addrs[0]);
                c->n_addrs = 1;
                c->next_addr = 0;
                start_connect(p, c);
                return;
        }
        int e = resolve_start(p, c);
        if (e < 0)
                fail_request(c, 502, SOCKS_REP_FAILURE, strerror(-e));
}

static void tunnel_start(proxy *p, conn *c);

/* The upstream connection is up: answer the client, then tunnel. */
static void on_connected(proxy *p, conn *c)
{
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(c->uw.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                err = errno;
        if (err) {
                c->last_err = err;
                start_connect(p, c);
                return;
        }
        static const char ESTABLISHED[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        if (c->proto == P_CONNECT)
                to_client(c, ESTABLISHED, sizeof(ESTABLISHED) - 1);
        else if (c->proto == P_SOCKS)
                socks_reply(c, SOCKS_REP_OK, false);
        tunnel_start(p, c);
}

/* ---- the client's request --------------------------------------------------------- */

static void consume_up(conn *c, size_t n)
{
        memmove(c->up.b, c->up.b + n, c->up.len - n);
        c->up.len -= n;
}

static void parse_socks(proxy *p, conn *c)
{
        if (c->st == ST_HEAD) {
                bool no_auth = false;
                int r = socks_parse_greeting(c->up.b, c->up.len, &no_auth);
                if (r == 0)
                        return;
                if (r < 0 || !no_auth) {
                        static const uint8_t NO_METHOD[2] = {SOCKS_VERSION, 0xff};
                        finish_with(c, NO_METHOD, r < 0 ? 0 : sizeof(NO_METHOD));
                        return;
                }
                static const uint8_t NO_AUTH[2] = {SOCKS_VERSION, 0x00};
                to_client(c, NO_AUTH, sizeof(NO_AUTH));
                consume_up(c, (size_t)r);
                c->st = ST_SOCKS_REQUEST;
        }
        socks_request req;
        uint8_t rep = SOCKS_REP_FAILURE;
        int r = socks_parse_request(c->up.b, c->up.len, &req, &rep);
        if (r == 0)
                return;
        if (r < 0) {
                socks_reply(c, rep, true);
                return;
        }
        consume_up(c, (size_t)r);
        snprintf(c->host, sizeof(c->host), "%s", req.host);
        c->port = req.port;
        start_request(p, c);
}

static void parse_http(proxy *p, conn *c)
{
        http_request req;
        char out[HTTP_OUT_MAX];
        size_t out_len = 0;
        int r = http_parse_head((const char *)c->up.b, c->up.len, &req, out, sizeof(out), &out_len);
        if (r == 0)
                return;
        c->proto = r > 0 && req.connect ? P_CONNECT : P_HTTP;
        if (r < 0) {
                const uint8_t *sp = memchr(c->up.b, ' ', c->up.len);
                bool origin_form = sp && (size_t)(sp - c->up.b) + 1 < c->up.len && sp[1] == '/';
                const char *why = -r == 501 ? "cordon: only http:// URIs are forwarded; use CONNECT (HTTPS_PROXY) "
                                              "for https"
                                  : origin_form ? "cordon: a request to the proxy names its target in full (GET "
                                                  "http://HOST/PATH)"
                                                : "cordon: the proxy could not read this request";
                http_error(c, -r, NULL, why);
                return;
        }
        snprintf(c->host, sizeof(c->host), "%s", req.host);
        c->port = req.port;
        size_t rest = c->up.len - req.head_len;
        if (c->proto == P_CONNECT) {
                consume_up(c, req.head_len);
        } else { /* the head in origin form, then what followed it of the body */
                c->body = req.body;
                c->up.frame = &c->body;
                long body = http_body_scan(&c->body, c->up.b + req.head_len, rest);
                if (body < 0) {
                        http_error(c, 400, NULL, "cordon: the proxy could not read this request's chunked body");
                        return;
                }
                c->up.after = (size_t)body < rest;
                memmove(c->up.b + out_len, c->up.b + req.head_len, (size_t)body);
                memcpy(c->up.b, out, out_len);
                c->up.len = out_len + (size_t)body;
        }
        start_request(p, c);
}

static void on_head_bytes(proxy *p, conn *c)
{
        if (c->up.len == 0)
                return;
        if (c->up.b[0] == SOCKS_VERSION) {
                c->proto = P_SOCKS;
                parse_socks(p, c);
        } else {
                parse_http(p, c);
        }
}

/* ---- moving bytes ----------------------------------------------------------------- */

/* Read from |fd| into |f|'s buffer; false on an error (EOF sets f->eof). */
static bool fill(int fd, flow *f, size_t cap, bool *moved)
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
static bool drain(int fd, flow *f, bool *moved)
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

/* ---- the tunnel ------------------------------------------------------------------- */

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

/* Keep of the bytes fill() just added to |f| (beyond |had| pending ones)
 * only those of the request's body: what the client sends after it (a
 * second request, smuggled or pipelined) is dropped, never forwarded to
 * this upstream; the client asks again on a new connection, checked
 * again. False when the framing is invalid. */
static bool frame_new(flow *f, size_t had)
{
        size_t got = f->len - f->off - had;
        long body = http_body_scan(f->frame, f->b + f->len - got, got);
        if (body < 0)
                return false;
        f->after |= (size_t)body < got;
        f->len -= got - (size_t)body;
        if (f->off == f->len)
                f->off = f->len = 0;
        return true;
}

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
                if (!drain(to, f, &progress))
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
                        if (!fill(from, f, BUF_CAP, &progress) || (f->frame && !frame_new(f, had)))
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
static size_t flow_pending(const flow *f) { return f->len - f->off + f->piped; }

/* What the source of |f| is waiting for: more only once the pipe (or the
 * buffer) has room; a slot-full pipe with bytes in it would spin. */
static uint32_t flow_source_events(const flow *f)
{
        bool room = f->pipe[0] >= 0 ? f->piped == 0 && f->off >= f->len : f->len < BUF_CAP;
        return !f->eof && room ? EV_IN : 0;
}

static void tunnel_start(proxy *p, conn *c)
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
static bool tunnel_pump(conn *c, uint32_t ev)
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

/* Which events each side waits for, and whether the connection is done. */
static bool update(proxy *p, conn *c)
{
        uint32_t ce = 0, ue = 0;
        bool head = c->st == ST_HEAD || c->st == ST_SOCKS_REQUEST;
        if (c->st == ST_FLUSH) {
                if (c->down.off >= c->down.len)
                        return false;
                ce = EV_OUT;
        } else if (head) {
                ce = EV_IN | (c->down.len > c->down.off ? EV_OUT : 0);
        } else if (c->st == ST_TUNNEL) {
                /* a client that goes on after its request (it reuses the
                 * connection, the upstream having ignored "Connection:
                 * close"): the upstream is told that nothing more comes, so
                 * that it closes once it answered; the client then asks
                 * again on a new connection */
                if (c->up.after && flow_pending(&c->up) == 0 && !c->up.shut) {
                        shutdown(c->uw.fd, SHUT_WR);
                        c->up.shut = true;
                }
                if (c->up.eof && flow_pending(&c->up) == 0 && !c->up.shut) {
                        shutdown(c->uw.fd, SHUT_WR);
                        c->up.shut = true;
                }
                if (c->down.eof && flow_pending(&c->down) == 0 && !c->down.shut) {
                        shutdown(c->cw.fd, SHUT_WR);
                        c->down.shut = true;
                }
                if (c->down.shut && c->up.shut)
                        return false;
                /* a forwarded request answered: nothing more comes of it */
                if (c->down.shut && c->up.frame && c->up.frame->state == BODY_DONE && flow_pending(&c->up) == 0)
                        return false;
                /* a side done both ways is closed (the other still drains) */
                if (c->up.eof && c->down.shut)
                        watch_close(&c->cw);
                if (c->down.eof && c->up.shut)
                        watch_close(&c->uw);
                ce = flow_source_events(&c->up) | (flow_pending(&c->down) ? EV_OUT : 0);
                ue = flow_source_events(&c->down) | (flow_pending(&c->up) ? EV_OUT : 0);
        } else if (c->st == ST_CONNECT) {
                ue = EV_OUT;
        }
        watch_set(&p->loop, &c->cw, ce);
        watch_set(&p->loop, &c->uw, ue);
        return true;
}

static bool on_client(proxy *p, conn *c, uint32_t ev)
{
        if (c->st == ST_TUNNEL)
                return tunnel_pump(c, ev);
        bool moved = false, ok = true;
        if ((ev & EV_ERR) || ((ev & EV_HUP) && c->st != ST_HEAD && c->st != ST_SOCKS_REQUEST))
                return false;
        if (ev & (EV_IN | EV_HUP)) {
                bool head = c->st == ST_HEAD || c->st == ST_SOCKS_REQUEST;
                size_t cap = head ? HTTP_HEAD_MAX : BUF_CAP;
                if (c->st == ST_FLUSH) /* what a refused client still sends is dropped */
                        c->up.len = c->up.off = 0;
                ok = fill(c->cw.fd, &c->up, cap, &moved);
                if (head && (c->up.eof || !ok))
                        return false;
                if (head && moved)
                        on_head_bytes(p, c);
        }
        if (ok && (ev & EV_OUT))
                ok = drain(c->cw.fd, &c->down, &moved);
        return ok;
}

static bool on_upstream(proxy *p, conn *c, uint32_t ev)
{
        if (c->st == ST_CONNECT) {
                on_connected(p, c);
                return true;
        }
        return tunnel_pump(c, ev);
}

static void on_timeout(proxy *p, conn *c)
{
        if (c->st == ST_RESOLVE || c->st == ST_CONNECT) {
                c->last_err = ETIMEDOUT;
                if (c->st == ST_CONNECT && connect_next(p, c))
                        return;
                fail_request(c, 504, SOCKS_REP_TTL, "timed out");
                if (update(p, c))
                        return;
        }
        conn_free(p, c);
}

/* ---- the loop ----------------------------------------------------------------------- */

static void accept_all(proxy *p)
{
        for (int i = 0; i < 64; i++) {
                int fd = accept_nonblock(p->listen_w.fd);
                if (fd < 0) {
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                                /* until a connection closes */
                                p->accept_paused = true;
                                watch_set(&p->loop, &p->listen_w, 0);
                        }
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
                watch_set(&p->loop, &c->cw, EV_IN);
        }
}

/* The listening socket, sent by the sandbox's init. */
static void receive_listener(proxy *p)
{
        char data[1];
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
                p->listen_w = watch_new(W_LISTEN, fd, NULL);
                watch_set(&p->loop, &p->listen_w, EV_IN);
        }
        watch_close(&p->channel_w); /* one descriptor, or EOF: the init died */
}

static void on_conn_event(proxy *p, watch *w, uint32_t ev)
{
        conn *c = w->c;
        bool ok = true;
        if (w->kind == W_CLIENT)
                ok = on_client(p, c, ev);
        else if (w->kind == W_UPSTREAM)
                ok = on_upstream(p, c, ev);
        else
                on_resolved(p, c);
        if (!ok || !update(p, c))
                conn_free(p, c);
}

static void sweep(proxy *p)
{
        double t = now_s();
        for (conn *c = p->conns, *next; c; c = next) {
                next = c->next;
                if (t >= c->deadline)
                        on_timeout(p, c);
        }
}

/* What one round of the loop does with a ready watch. */
static bool dispatch(void *ctx, watch *w, uint32_t events)
{
        proxy *p = ctx;
        if (w->kind == W_LISTEN)
                accept_all(p);
        else if (w->kind == W_CHANNEL)
                receive_listener(p);
        else if (w->kind == W_ORPHAN)
                orphan_reap(p, (orphan *)w);
        else if (w->fd >= 0) /* not closed by an earlier event of this round */
                on_conn_event(p, w, events);
        return true;
}

/* Every watch of the proxy, for a loop that makes each round's set. */
static void each_watch(void *ctx, loop *l)
{
        proxy *p = ctx;
        loop_offer(l, &p->listen_w);
        loop_offer(l, &p->channel_w);
        for (conn *c = p->conns; c; c = c->next) {
                loop_offer(l, &c->cw);
                loop_offer(l, &c->uw);
                loop_offer(l, &c->rw);
        }
        for (orphan *o = p->orphans; o; o = o->next)
                loop_offer(l, &o->w);
}

static void *proxy_main(void *arg)
{
        proxy *p = arg;
        const loop_handler h = {dispatch, each_watch, p};
        double last_sweep = now_s();
        while (loop_round(&p->loop, &h)) {
                reap_dead(p);
                if (now_s() - last_sweep >= 1.0) {
                        sweep(p);
                        reap_dead(p);
                        last_sweep = now_s();
                }
        }
        return NULL;
}

/* ---- setup ---------------------------------------------------------------------------- */

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

/* "A,B,C": three whole seconds from 1 to 3600. */
static bool parse_three_seconds(const char *s, unsigned long v[3])
{
        for (int i = 0; i < 3; i++) {
                char *end = NULL;
                if (*s < '0' || *s > '9')
                        return false;
                errno = 0;
                v[i] = strtoul(s, &end, 10);
                if (errno || v[i] < 1 || v[i] > 3600 || *end != (i == 2 ? '\0' : ','))
                        return false;
                s = end + 1;
        }
        return true;
}

/* PROXY_TIMEOUTS_ENV when it is valid, else the defaults. */
static proxy_timeouts read_timeouts(void)
{
        const char *s = getenv(PROXY_TIMEOUTS_ENV);
        unsigned long v[3];
        if (!s || !parse_three_seconds(s, v))
                return PROXY_TIMEOUTS_DEFAULT;
        return (proxy_timeouts){(double)v[0], (double)v[1], (double)v[2]};
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

int proxy_start(const char *const *allow, int listen_fd, int channel_fd, cordon_log_fn log_fn, void *userdata,
                proxy **ret, cordon_error **ret_error)
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
        p->log_fn = log_fn;
        p->log_userdata = userdata;
        p->t = read_timeouts();
        p->fds_max = fds_max();
        p->listen_w = watch_new(W_LISTEN, listen_fd, NULL);
        p->channel_w = watch_new(W_CHANNEL, channel_fd, NULL);
        int loop_err = loop_open(&p->loop) < 0 ? errno : 0;
        int r = parse_policy(allow, &p->policy, ret_error);
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
        if (!p || p->stopped)
                return;
        p->stopped = true;
        if (p->started) {
                loop_stop(&p->loop);
                pthread_join(p->thread, NULL);
        }
        p->stopping = true; /* a lookup in flight is waited for */
        while (p->conns)
                conn_free(p, p->conns);
        while (p->orphans)
                orphan_reap(p, p->orphans);
        reap_dead(p);
        watch_close(&p->listen_w);
        watch_close(&p->channel_w);
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
        }
        free(p->policy.e);
        free(p->policy.own);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
}

const proxy_denial *proxy_denials(const proxy *p, size_t *ret_n)
{
        *ret_n = p ? p->n_denials : 0;
        return p ? p->denials : NULL;
}

/* Host names and reasons are the command's text: json_text keeps UTF-8
 * as it is and escapes the rest. */
static json_t *denial_json(const proxy_denial *d)
{
        json_t *o = json_object();
        bool ok = json_put(o, "host", json_text(d->host)) && json_put(o, "port", json_integer(d->port)) &&
                  json_put(o, "reason", json_text(d->reason));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

json_t *proxy_denials_json(const proxy *p)
{
        json_t *a = json_array();
        bool ok = a != NULL;
        if (p)
                pthread_mutex_lock((pthread_mutex_t *)&p->lock);
        for (size_t i = 0; ok && p && i < p->n_denials; i++)
                ok = json_put(a, NULL, denial_json(&p->denials[i]));
        if (p)
                pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
        if (!ok)
                json_decref(a);
        return ok ? a : NULL;
}
