/* SPDX-License-Identifier: MIT */
/* What the proxy's files share (net/proxy*.c): a connection and its two
 * flows, the proxy object, and each file's functions the others call.
 * Everything here runs on the proxy's thread, but proxy_start, proxy_stop
 * and the denials' readers. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "net/allowlist.h"
#include "net/loop.h"
#include "net/proxy.h"
#include "net/request.h"
#include "net/resolved.h"
#include "net/sni.h"

#define CONN_MAX 512
#define BUF_CAP ((size_t)64 * 1024)
#define DENIALS_MAX 256
#define ADDRS_MAX 8

typedef enum conn_state { ST_HEAD, ST_SOCKS_REQUEST, ST_RESOLVE, ST_CONNECT, ST_TUNNEL, ST_FLUSH } conn_state;
/* P_FORWARD: a connection to a loopback service of the allowlist, accepted
 * on the sandbox's own lo (net_forward): no protocol, bytes both ways.
 * P_INTERCEPT: one to any address on an intercepted port (the linux
 * backend's namespace routes every address to lo): its target is the
 * address the client connected to, or the name the sandbox's resolver
 * gave that address; the first bytes (a TLS ClientHello, an HTTP head) are
 * read to check the name, then passed on. */
typedef enum conn_proto { P_UNKNOWN, P_HTTP, P_CONNECT, P_SOCKS, P_FORWARD, P_INTERCEPT } conn_proto;

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
        bool pooled;   /* made to an address the sandbox's resolver gave (proxy-intercept.c) */
        bool awaiting; /* RESOLVE: waits for the prefetch of its host (proxy-prefetch.c) */
        struct proxy *owner;
} conn;

/* A change of the allowlist while the proxy runs (proxy-grants.c). */
typedef struct proxy_grant_note {
        bool add;
        char *entry; /* canonical */
} proxy_grant_note;

/* What the host's lookup of a name gave (proxy-resolver.c). */
typedef struct resolve_result {
        int err; /* getaddrinfo's */
        size_t n;
        net_addr a[ADDRS_MAX];
} resolve_result;

/* The host's answer for a name the sandbox's resolver just gave an
 * address (proxy-prefetch.c): in flight while |w| is open. */
#define PREFETCH_MAX 16
typedef struct prefetch {
        watch w; /* first: the event's pointer is the prefetch's */
        pthread_t thread;
        char host[NET_HOST_MAX + 3]; /* "": a free slot */
        double done_at;              /* 0 while in flight */
        resolve_result res;
} prefetch;

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
        watch fwd_w[NET_FORWARDS_MAX]; /* the forwards' listeners, as fwd[] */
        net_forward fwd[NET_FORWARDS_MAX];
        size_t n_fwd;
        watch intercept_w[NET_INTERCEPTED_MAX]; /* the intercepted ports' listeners */
        watch dns_w;                              /* the sandbox's resolver, 127.0.0.1:53 (UDP) */
        struct resolved *names;                   /* the names it answered, by the address it gave */
        bool accept_paused;
        conn *conns;
        conn *dead;   /* closed during this round of events, freed after it */
        orphan *orphans;
        prefetch prefetch[PREFETCH_MAX];
        size_t n_conns;
        size_t pipe_fds; /* descriptors the tunnels' pipes use */
        size_t pipes_grown; /* pipes of PIPE_BIG bytes, at most PIPES_GROWN_MAX */
        size_t fds_max; /* the most the sockets and pipes may use before tunnels copy */
        proxy_timeouts t;
        bool stopping; /* resolvers are joined, no longer orphaned */
        net_policy policy;         /* under policy_lock: live grants change it */
        pthread_mutex_t policy_lock; /* the policy, the grants, |stopped| for them */
        proxy_grant_note *grants;
        size_t n_grants, grants_cap;
        cordon_log_fn log_fn;
        void *log_userdata;
        pthread_mutex_t lock; /* the denials */
        proxy_denial denials[DENIALS_MAX];
        size_t n_denials;
        bool denials_past_max; /* one denial was past DENIALS_MAX: told once */
};

static inline double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Drop the first |n| bytes the client sent (a head or greeting read). */
static inline void consume_up(conn *c, size_t n)
{
        memmove(c->up.b, c->up.b + n, c->up.len - n);
        c->up.len -= n;
}

/* proxy-conn.c: a connection's life. */
/* An event on one of |w|'s connection's watches: read, decide, forward;
 * the connection is closed when it is done or failed. */
void conn_event(proxy *p, watch *w, uint32_t ev) HIDDEN;
/* Set the events each side of |c| waits for; false when |c| is done. */
bool conn_update(proxy *p, conn *c) HIDDEN;
/* Close |c|; freed by conn_reap_dead after this round of events. */
void conn_free(proxy *p, conn *c) HIDDEN;
void conn_reap_dead(proxy *p) HIDDEN;
/* Join the orphaned resolver |dead| (it answered). */
void conn_orphan_reap(proxy *p, orphan *dead) HIDDEN;
/* Queue |n| bytes for the client (cut to what fits: replies are small). */
void conn_to_client(conn *c, const void *data, size_t n) HIDDEN;
/* The same, then only flush them and close. */
void conn_finish_with(conn *c, const void *data, size_t n) HIDDEN;
/* A failure that is not a denial: |status| for HTTP, |rep| for SOCKS. */
void conn_fail(conn *c, int status, uint8_t rep, const char *why) HIDDEN;
/* Refuse |c|'s request for |reason|, recorded as a denial; |allow|: the
 * --allow-net entry that would allow it, NULL for the request's own host
 * and port (when that is a valid entry), or "" for none. */
void conn_deny(proxy *p, conn *c, const char *reason, const char *allow) HIDDEN;

/* proxy.c: stop accepting on every listener (0), or start again (EV_IN). */
void proxy_accepting(proxy *p, uint32_t events) HIDDEN;
/* A connection to the forwarded loopback service |f|. */
void forward_start(proxy *p, conn *c, const net_forward *f) HIDDEN;

/* proxy-intercept.c: a connection accepted on an intercepted port. */
/* Its target from the address it was made to: then upstream, or its first
 * bytes read (intercept_head). */
void intercept_start(proxy *p, conn *c) HIDDEN;
/* The client's bytes so far, for the name the target has. */
void intercept_head(proxy *p, conn *c) HIDDEN;

/* proxy-dns.c: the sandbox's resolver. */
/* Answer each query waiting on p->dns_w. */
void dns_serve(proxy *p) HIDDEN;

/* proxy-denials.c */
/* Record (host, port) once and tell the log, with the entry |allow| that
 * would allow it (NULL: none to suggest). */
void denial_note(proxy *p, const char *host, unsigned port, const char *reason, const char *allow) HIDDEN;
/* "HOST:PORT", an IPv6 address in brackets. */
void denial_host_port(const char *host, unsigned port, char *out, size_t n) HIDDEN;
/* May a denial of |host| suggest "--allow-net |hp|"? */
bool denial_suggestable(const char *host, const char *hp) HIDDEN;

/* proxy-resolver.c: the host's lookup of |host| on a thread of its own:
 * the socket its answer arrives on, or -errno. */
int resolver_spawn(const char *host, pthread_t *ret_thread) HIDDEN;
/* The answer on |fd| (a failed one when it is short), |thread| joined. */
bool resolver_take(int fd, pthread_t thread, resolve_result *res) HIDDEN;

/* proxy-prefetch.c: the host's lookups of names the sandbox's resolver
 * gave an address. */
/* Look |name| up on the host now, unless its answer is fresh or coming. */
void prefetch_name(proxy *p, const char *name) HIDDEN;
/* A fresh answer for c->host given to |c| (upstream_answer), or |c| made
 * to wait for the one in flight: false when there is neither, or |c| was
 * not made to an address the resolver gave. */
bool prefetch_take(proxy *p, conn *c) HIDDEN;
/* The lookup of |f| answered: kept, and given to the connections waiting. */
void prefetch_answered(proxy *p, prefetch *f) HIDDEN;
/* Offer the watches of the lookups in flight to the loop. */
void prefetch_offer(proxy *p, loop *l) HIDDEN;
/* Join the lookups in flight (the proxy stops). */
void prefetch_stop(proxy *p) HIDDEN;

/* proxy-upstream.c: RESOLVE and CONNECT. */
/* The request is known (c->host, c->port): check it, then resolve or
 * connect, or answer the client. */
void upstream_request(proxy *p, conn *c) HIDDEN;
/* Connect to the next checked address; false when none is left. */
bool upstream_connect_next(proxy *p, conn *c) HIDDEN;
/* The resolver answered. */
void upstream_resolved(proxy *p, conn *c) HIDDEN;
/* The answer for c->host: every address checked, then connect. */
void upstream_answer(proxy *p, conn *c, const resolve_result *res) HIDDEN;
/* |c| waits in RESOLVE, with its deadline. */
void upstream_await(conn *c) HIDDEN;
/* The upstream socket is writable: connected (then tunnel) or failed. */
void upstream_connected(proxy *p, conn *c) HIDDEN;

/* proxy-http.c */
/* The client's bytes so far as an HTTP head (CONNECT or a request to
 * forward): nothing until it is whole, then the request or an error. */
void http_head(proxy *p, conn *c) HIDDEN;
/* Answer |status| with a one-line |body|, then close; |denied|: the
 * X-Cordon-Denied header, or NULL. */
void http_error(conn *c, int status, const char *denied, const char *body) HIDDEN;
/* Keep of the bytes just read into |f| only the forwarded request's body. */
bool http_frame_new(flow *f, size_t had) HIDDEN;

/* proxy-socks.c */
/* The client's bytes so far as a SOCKS5 greeting, then its request. */
void socks_head(proxy *p, conn *c) HIDDEN;
/* A SOCKS5 reply |rep|; |last|: then close. */
void socks_reply(conn *c, uint8_t rep, bool last) HIDDEN;

/* proxy-tunnel.c: moving bytes. */
bool flow_fill(int fd, flow *f, size_t cap, bool *moved) HIDDEN;
bool flow_drain(int fd, flow *f, bool *moved) HIDDEN;
void flow_close_pipe(proxy *p, flow *f) HIDDEN;
size_t flow_pending(const flow *f) HIDDEN;
uint32_t flow_source_events(const flow *f) HIDDEN;
/* Both sides are up: their pipes, then bytes both ways. */
void tunnel_start(proxy *p, conn *c) HIDDEN;
/* Move bytes both ways; false when the tunnel failed. */
bool tunnel_pump(conn *c, uint32_t ev) HIDDEN;

/* proxy-timeouts.c */
/* Time out every connection past its deadline. */
void conn_sweep(proxy *p) HIDDEN;
/* PROXY_TIMEOUTS_ENV when it is valid, else the defaults. */
proxy_timeouts proxy_read_timeouts(void) HIDDEN;
