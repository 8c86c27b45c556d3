/* SPDX-License-Identifier: MIT */
/* SOCKS5 on the proxy: the greeting (no authentication, or no method),
 * the request (parsed by net/request.c) and the replies. Called by the
 * connections (proxy-conn.c) while the head is read, and by
 * proxy-upstream.c for the reply once connected. */
#include <stdio.h>

#include "net/proxy-internal.h"

void socks_reply(conn *c, uint8_t rep, bool last)
{
        const uint8_t r[10] = {SOCKS_VERSION, rep, 0, 1, 0, 0, 0, 0, 0, 0};
        if (last)
                conn_finish_with(c, r, sizeof(r));
        else
                conn_to_client(c, r, sizeof(r));
}

void socks_head(proxy *p, conn *c)
{
        if (c->st == ST_HEAD) {
                bool no_auth = false;
                int r = socks_parse_greeting(c->up.b, c->up.len, &no_auth);
                if (r == 0)
                        return;
                if (r < 0 || !no_auth) {
                        static const uint8_t NO_METHOD[2] = {SOCKS_VERSION, 0xff};
                        conn_finish_with(c, NO_METHOD, r < 0 ? 0 : sizeof(NO_METHOD));
                        return;
                }
                static const uint8_t NO_AUTH[2] = {SOCKS_VERSION, 0x00};
                conn_to_client(c, NO_AUTH, sizeof(NO_AUTH));
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
        upstream_request(p, c);
}
