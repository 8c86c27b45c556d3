/* SPDX-License-Identifier: MIT */
/* A connection's state: what its events do in each state (HEAD, then the
 * protocol's files; RESOLVE and CONNECT, proxy-upstream.c; TUNNEL,
 * proxy-tunnel.c; FLUSH), the events each side waits for, the replies
 * that end it (a failure, a denial) and its closing. Called by the loop
 * (proxy.c) for each event, by the timeouts (proxy-timeouts.c), and by the
 * protocols' files for their replies. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/proxy-internal.h"

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

void conn_orphan_reap(proxy *p, orphan *dead)
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
void conn_free(proxy *p, conn *c)
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
        if (p->accept_paused)
                proxy_accepting(p, EV_IN);
}

void conn_reap_dead(proxy *p)
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
void conn_to_client(conn *c, const void *data, size_t n)
{
        if (c->down.len + n > BUF_CAP)
                n = BUF_CAP - c->down.len;
        memcpy(c->down.b + c->down.len, data, n);
        c->down.len += n;
}

void conn_finish_with(conn *c, const void *data, size_t n)
{
        conn_to_client(c, data, n);
        c->st = ST_FLUSH;
        c->deadline = now_s() + c->owner->t.setup_s;
        watch_close(&c->uw);
        resolver_drop(c->owner, c);
}

/* A failure that is not a denial: |status| for HTTP, |rep| for SOCKS. */
void conn_fail(conn *c, int status, uint8_t rep, const char *why)
{
        char body[512];
        char hp[NET_HOST_MAX + 16];
        denial_host_port(c->host, c->port, hp, sizeof(hp));
        snprintf(body, sizeof(body), "cordon: %s: %s", hp, why);
        if (c->proto == P_FORWARD || c->proto == P_INTERCEPT)
                conn_finish_with(c, "", 0); /* the client sees its connection end */
        else if (c->proto == P_SOCKS)
                socks_reply(c, rep, true);
        else
                http_error(c, status, NULL, body);
}

void conn_deny(proxy *p, conn *c, const char *reason, const char *allow)
{
        char hp[NET_HOST_MAX + 16], body[1024];
        denial_host_port(c->host, c->port, hp, sizeof(hp));
        if (allow && !*allow) /* no entry would allow it */
                allow = NULL;
        else if (!allow && denial_suggestable(c->host, hp))
                allow = hp;
        denial_note(p, c->host, c->port, reason, allow);
        if (c->proto == P_FORWARD || c->proto == P_INTERCEPT) {
                conn_finish_with(c, "", 0);
                return;
        }
        if (c->proto == P_SOCKS) {
                socks_reply(c, SOCKS_REP_NOT_ALLOWED, true);
                return;
        }
        if (allow)
                snprintf(body, sizeof(body), "cordon: denied %s: %s (allow it with --allow-net %s)", hp, reason, allow);
        else
                snprintf(body, sizeof(body), "cordon: denied %s: %s", hp, reason);
        http_error(c, 403, reason, body);
}

static void on_head_bytes(proxy *p, conn *c)
{
        if (c->up.len == 0)
                return;
        if (c->proto == P_INTERCEPT) {
                intercept_head(p, c);
        } else if (c->up.b[0] == SOCKS_VERSION) {
                c->proto = P_SOCKS;
                socks_head(p, c);
        } else {
                http_head(p, c);
        }
}

/* Which events each side waits for, and whether the connection is done. */
bool conn_update(proxy *p, conn *c)
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
                size_t cap = !head ? BUF_CAP : c->proto == P_INTERCEPT ? TLS_RECORD_MAX : HTTP_HEAD_MAX;
                if (c->st == ST_FLUSH) /* what a refused client still sends is dropped */
                        c->up.len = c->up.off = 0;
                ok = flow_fill(c->cw.fd, &c->up, cap, &moved);
                if (head && (c->up.eof || !ok))
                        return false;
                if (head && moved)
                        on_head_bytes(p, c);
        }
        if (ok && (ev & EV_OUT))
                ok = flow_drain(c->cw.fd, &c->down, &moved);
        return ok;
}

static bool on_upstream(proxy *p, conn *c, uint32_t ev)
{
        if (c->st == ST_CONNECT) {
                upstream_connected(p, c);
                return true;
        }
        return tunnel_pump(c, ev);
}

void conn_event(proxy *p, watch *w, uint32_t ev)
{
        conn *c = w->c;
        bool ok = true;
        if (w->kind == W_CLIENT)
                ok = on_client(p, c, ev);
        else if (w->kind == W_UPSTREAM)
                ok = on_upstream(p, c, ev);
        else
                upstream_resolved(p, c);
        if (!ok || !conn_update(p, c))
                conn_free(p, c);
}
