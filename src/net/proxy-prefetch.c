/* SPDX-License-Identifier: MIT */
/* The host's lookup of a name an entry names (not a wildcard's subdomain,
 * which the command may invent) that the sandbox's resolver has just
 * given an address (proxy-dns.c), started when it answers: the client,
 * which connects to that address next, then finds the host's answer made
 * (or waits for the one in flight) and no longer waits for a lookup of
 * its own after its connection arrived. An answer (a failure too) serves
 * the connections to that name's address for PREFETCH_FRESH_S seconds; a
 * client that asked no resolver (one of the proxy variables') looks the
 * name up itself. Each address is checked by the policy when a request
 * uses it, as any lookup's (upstream_answer), and the request's host and
 * port were checked before. At most PREFETCH_MAX names are kept or looked
 * up at once, each at most once in PREFETCH_FRESH_S: a query past that
 * starts none (its connection looks the name up itself). Called by
 * proxy-dns.c, by the requests' way upstream (proxy-upstream.c), and by
 * the loop (proxy.c). */
#include <stdio.h>
#include <string.h>

#include "net/proxy-internal.h"

#define PREFETCH_FRESH_S 2.0

static bool in_flight(const prefetch *f)
{
        return f->host[0] && f->done_at == 0;
}

static bool fresh(const prefetch *f, double now)
{
        return f->host[0] && f->done_at > 0 && now - f->done_at < PREFETCH_FRESH_S;
}

static prefetch *find(proxy *p, const char *host)
{
        for (size_t i = 0; i < PREFETCH_MAX; i++)
                if (p->prefetch[i].host[0] && streq(p->prefetch[i].host, host))
                        return &p->prefetch[i];
        return NULL;
}

/* The slot for a new lookup: free, or the oldest answer; NULL when every
 * slot's lookup is in flight. */
static prefetch *slot(proxy *p)
{
        prefetch *best = NULL;
        for (size_t i = 0; i < PREFETCH_MAX; i++) {
                prefetch *f = &p->prefetch[i];
                if (!f->host[0])
                        return f;
                if (!in_flight(f) && (!best || f->done_at < best->done_at))
                        best = f;
        }
        return best;
}

void prefetch_name(proxy *p, const char *name)
{
        if (p->stopping)
                return;
        prefetch *f = find(p, name);
        if (f && (in_flight(f) || fresh(f, now_s())))
                return;
        if (!f && !(f = slot(p)))
                return;
        *f = (prefetch){0};
        int fd = resolver_spawn(name, &f->thread);
        if (fd < 0)
                return; /* the connection will look it up */
        snprintf(f->host, sizeof(f->host), "%s", name);
        f->w = watch_new(W_PREFETCH, fd, NULL);
        watch_set(&p->loop, &f->w, EV_IN);
}

bool prefetch_take(proxy *p, conn *c)
{
        prefetch *f = c->pooled ? find(p, c->host) : NULL;
        if (f && in_flight(f)) {
                c->awaiting = true;
                upstream_await(c);
                return true;
        }
        if (!f || !fresh(f, now_s()))
                return false;
        upstream_answer(p, c, &f->res);
        return true;
}

void prefetch_answered(proxy *p, prefetch *f)
{
        (void)resolver_take(f->w.fd, f->thread, &f->res);
        watch_close(&f->w);
        f->done_at = now_s();
        for (conn *c = p->conns, *next; c; c = next) {
                next = c->next;
                if (!c->awaiting || c->st != ST_RESOLVE || !streq(c->host, f->host))
                        continue;
                c->awaiting = false;
                upstream_answer(p, c, &f->res);
                if (!conn_update(p, c))
                        conn_free(p, c);
        }
}

void prefetch_offer(proxy *p, loop *l)
{
        for (size_t i = 0; i < PREFETCH_MAX; i++)
                if (in_flight(&p->prefetch[i]))
                        loop_offer(l, &p->prefetch[i].w);
}

void prefetch_stop(proxy *p)
{
        for (size_t i = 0; i < PREFETCH_MAX; i++) {
                prefetch *f = &p->prefetch[i];
                if (in_flight(f)) {
                        resolve_result ignored;
                        (void)resolver_take(f->w.fd, f->thread, &ignored);
                        watch_close(&f->w);
                }
                f->host[0] = '\0';
        }
}
