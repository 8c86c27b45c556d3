/* SPDX-License-Identifier: MIT */
/* The deadlines: every state has one (head, resolve and connect:
 * setup_s each; a tunnel: idle_s without traffic, half_open_s once one
 * side closed), checked once a second by the loop (conn_sweep, for
 * proxy.c); a connect that times out tries the next address. The test
 * override PROXY_TIMEOUTS_ENV is read when the proxy starts. */
#include <errno.h>
#include <stdlib.h>

#include "net/proxy-internal.h"

static void on_timeout(proxy *p, conn *c)
{
        if (c->st == ST_RESOLVE || c->st == ST_CONNECT) {
                c->last_err = ETIMEDOUT;
                if (c->st == ST_CONNECT && upstream_connect_next(p, c))
                        return;
                conn_fail(c, 504, SOCKS_REP_TTL, "timed out");
                if (conn_update(p, c))
                        return;
        }
        conn_free(p, c);
}

void conn_sweep(proxy *p)
{
        double t = now_s();
        for (conn *c = p->conns, *next; c; c = next) {
                next = c->next;
                if (t >= c->deadline)
                        on_timeout(p, c);
        }
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
proxy_timeouts proxy_read_timeouts(void)
{
        const char *s = getenv(PROXY_TIMEOUTS_ENV);
        unsigned long v[3];
        if (!s || !parse_three_seconds(s, v))
                return PROXY_TIMEOUTS_DEFAULT;
        return (proxy_timeouts){(double)v[0], (double)v[1], (double)v[2]};
}
