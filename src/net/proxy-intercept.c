/* SPDX-License-Identifier: MIT */
/* A connection accepted on an intercepted port (the linux backend routes
 * every address of the sandbox's namespace to lo, and listens on each such
 * port of the wildcard address: netns.c). Its target is the address the
 * client connected to (getsockname):
 *
 *   - a loopback one: the allowlist's service on it (a forward), else the
 *     policy refuses it as it would a request for 127.0.0.1:PORT;
 *   - one of the sandbox's resolver (proxy-dns.c): the name it gave it;
 *     on 443 the TLS ClientHello's server name must be that name (or
 *     absent), on 80 the request's Host, and the request is then forwarded
 *     as a proxy request for http://NAME (one per connection, proxy-http.c);
 *   - any other: the address itself, allowed only when the list names it.
 *
 * Then upstream as any request (proxy-upstream.c): the policy, the checked
 * addresses, the tunnel; what was read is passed on first. Called by the
 * accept loop (proxy.c) and for the client's first bytes (proxy-conn.c). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "net/proxy-internal.h"

static bool addr_is_loopback(const net_addr *a)
{
        const char *what = net_addr_special(a);
        return what && streq(what, "loopback");
}

static const net_forward *forward_of(const proxy *p, const net_addr *a, uint16_t port)
{
        for (size_t i = 0; i < p->n_fwd; i++)
                if (p->fwd[i].port == port && memcmp(p->fwd[i].addr.b, a->b, 16) == 0)
                        return &p->fwd[i];
        return NULL;
}

/* The name the sandbox's resolver gave |a|, or NULL (not one of its). */
static const char *resolved_name_of(const proxy *p, const net_addr *a, bool *in_pool)
{
        struct in_addr in;
        *in_pool = net_addr_v4(a, &in) && resolved_in_pool(p->names, in);
        return *in_pool ? resolved_name(p->names, in) : NULL;
}

void intercept_start(proxy *p, conn *c)
{
        c->proto = P_INTERCEPT;
        union {
                struct sockaddr sa;
                struct sockaddr_in in;
                struct sockaddr_in6 in6;
        } u;
        memset(&u, 0, sizeof(u));
        socklen_t len = sizeof(u);
        net_addr a;
        if (getsockname(c->cw.fd, &u.sa, &len) < 0) {
                conn_free(p, c);
                return;
        }
        net_addr_from_sockaddr(&u.sa, &a);
        in_port_t port_be = u.sa.sa_family == AF_INET ? u.in.sin_port : u.in6.sin6_port;
        c->port = ntohs(port_be);
        const net_forward *f = addr_is_loopback(&a) ? forward_of(p, &a, c->port) : NULL;
        if (f) {
                forward_start(p, c, f);
                return;
        }
        bool in_pool;
        const char *name = resolved_name_of(p, &a, &in_pool);
        c->pooled = name != NULL;
        if (name)
                snprintf(c->host, sizeof(c->host), "%s", name);
        else
                net_addr_format(&a, c->host);
        if (in_pool && !name)
                conn_deny(p, c, "an address the sandbox's resolver did not give", "");
        else if (name && (c->port == 443 || c->port == 80))
                watch_set(&p->loop, &c->cw, EV_IN); /* its first bytes name the host */
        else
                upstream_request(p, c);
        if (!conn_update(p, c))
                conn_free(p, c);
}

/* ---- the name in the first bytes ---------------------------------------------------- */

static void sniff_tls(proxy *p, conn *c)
{
        char sni[NET_HOST_MAX + 1];
        int r = tls_client_hello_sni(c->up.b, c->up.len, sni, sizeof(sni));
        if (r == SNI_NEED_MORE && c->up.len < TLS_RECORD_MAX)
                return;
        if (r == SNI_FOUND && !streq(sni, c->host))
                conn_deny(p, c, "the TLS server name (SNI) is not the name this address was resolved for", "");
        else if (r == SNI_FOUND || r == SNI_NONE)
                upstream_request(p, c);
        else
                conn_deny(p, c, "not a TLS ClientHello of at most one record", "");
}

/* The value of the head's one Host field, without a port, into |out|:
 * false when there is none, more than one, or it does not fit. */
static bool host_field(const char *head, size_t len, char *out, size_t cap)
{
        int found = 0;
        for (const char *l = memchr(head, '\n', len); l && (size_t)(l + 1 - head) < len;
             l = memchr(l + 1, '\n', len - (size_t)(l + 1 - head))) {
                const char *v = l + 1;
                size_t left = len - (size_t)(v - head);
                if (left < 5 || strncasecmp(v, "host:", 5) != 0)
                        continue;
                v += 5;
                while (*v == ' ' || *v == '\t')
                        v++;
                size_t n = strcspn(v, " \t\r\n");
                const char *colon = *v == '[' ? NULL : memchr(v, ':', n);
                if (colon)
                        n = (size_t)(colon - v);
                if (++found > 1 || n == 0 || n >= cap)
                        return false;
                memcpy(out, v, n);
                out[n] = '\0';
        }
        return found == 1;
}

/* An origin-form request ("GET /x HTTP/1.1") made a proxy request for
 * http://NAME/x in place; false when it is of another form. */
static bool absolute_form(conn *c)
{
        const uint8_t *sp = memchr(c->up.b, ' ', c->up.len);
        size_t at = sp ? (size_t)(sp - c->up.b) + 1 : 0;
        if (!sp || at >= c->up.len || c->up.b[at] != '/')
                return false;
        char authority[NET_HOST_MAX + 16];
        int n = snprintf(authority, sizeof(authority), "http://%s", c->host);
        if (n < 0 || c->up.len + (size_t)n > BUF_CAP)
                return false;
        memmove(c->up.b + at + n, c->up.b + at, c->up.len - at);
        memcpy(c->up.b + at, authority, (size_t)n);
        c->up.len += (size_t)n;
        return true;
}

/* Where the head's blank line starts, or NULL. */
static const char *head_end(const char *b, size_t len)
{
        for (size_t i = 0; i + 4 <= len; i++)
                if (memcmp(b + i, "\r\n\r\n", 4) == 0)
                        return b + i;
        return NULL;
}

static void sniff_http(proxy *p, conn *c)
{
        const char *head = (const char *)c->up.b;
        const char *end = head_end(head, c->up.len);
        if (!end && c->up.len < HTTP_HEAD_MAX)
                return;
        char host[NET_HOST_MAX + 3];
        c->proto = P_HTTP; /* a refusal is answered 403, as the proxy's */
        if (!end || !host_field(head, (size_t)(end - head) + 2, host, sizeof(host)))
                conn_deny(p, c, "an HTTP request without one Host field", "");
        else if (!net_host_normalize(host) || !streq(host, c->host))
                conn_deny(p, c, "the request's Host is not the name this address was resolved for", "");
        else if (!absolute_form(c))
                conn_deny(p, c, "an HTTP request not in origin form (GET /PATH)", "");
        else
                http_head(p, c); /* forwarded as a proxy request: one per connection */
}

void intercept_head(proxy *p, conn *c)
{
        if (c->port == 443)
                sniff_tls(p, c);
        else
                sniff_http(p, c);
}
