/* SPDX-License-Identifier: MIT */
/* A request's way upstream: its host checked against the policy, a name
 * resolved on the host (RESOLVE: its own lookup, proxy-resolver.c, or the
 * one made when the sandbox's resolver gave the name an address,
 * proxy-prefetch.c) and every address it gives checked, then a connection
 * to one of the checked addresses, never a new lookup (CONNECT), and the
 * client told the tunnel is up.
 * Called by the protocols' files once a request is known (proxy-http.c,
 * proxy-socks.c) and by the connections' events (proxy-conn.c). */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "net/proxy-internal.h"

#define REASON_MAX 256

/* The host's lookup of c->host (proxy-resolver.c), answered on c->rw. */
static int resolve_start(proxy *p, conn *c)
{
        int fd = resolver_spawn(c->host, &c->resolver);
        if (fd < 0)
                return fd;
        c->resolving = true;
        c->rw = watch_new(W_RESOLVER, fd, c);
        watch_set(&p->loop, &c->rw, EV_IN);
        upstream_await(c);
        return 0;
}

void upstream_await(conn *c)
{
        c->st = ST_RESOLVE;
        c->deadline = now_s() + c->owner->t.setup_s;
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
bool upstream_connect_next(proxy *p, conn *c)
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
        conn_fail(c, 502, rep, why);
}

static void start_connect(proxy *p, conn *c)
{
        if (!upstream_connect_next(p, c))
                connect_failed(p, c);
}

void upstream_resolved(proxy *p, conn *c)
{
        resolve_result res;
        (void)resolver_take(c->rw.fd, c->resolver, &res);
        watch_close(&c->rw);
        c->resolving = false;
        upstream_answer(p, c, &res);
}

/* Every address of the answer must pass the policy. */
void upstream_answer(proxy *p, conn *c, const resolve_result *res)
{
        if (res->err || res->n == 0) {
                char why[160];
                snprintf(why, sizeof(why), "cannot resolve the name: %s",
                         res->err ? gai_strerror(res->err) : "no address");
                conn_fail(c, 502, SOCKS_REP_HOST_UNREACHABLE, why);
                return;
        }
        for (size_t i = 0; i < res->n; i++) {
                char why[REASON_MAX];
                pthread_mutex_lock(&p->policy_lock);
                const char *r = net_policy_check_addr(&p->policy, &res->a[i], c->port, why, sizeof(why));
                pthread_mutex_unlock(&p->policy_lock);
                if (r) {
                        /* the list names the address to allow, not the name it has */
                        char entry[INET6_ADDRSTRLEN + 10];
                        net_addr_entry(&res->a[i], c->port, entry, sizeof(entry));
                        conn_deny(p, c, r, entry);
                        return;
                }
        }
        memcpy(c->addrs, res->a, res->n * sizeof(net_addr));
        c->n_addrs = res->n;
        c->next_addr = 0;
        start_connect(p, c);
}

/* The request is known (host, port): check it, then resolve or connect. */
void upstream_request(proxy *p, conn *c)
{
        char why[REASON_MAX];
        bool is_ip = false;
        char name[sizeof(c->host)];
        snprintf(name, sizeof(name), "%s", c->host);
        if (!net_host_normalize(name)) { /* named as the client wrote it */
                conn_deny(p, c, "not a valid host name or IP address", NULL);
                return;
        }
        snprintf(c->host, sizeof(c->host), "%s", name);
        pthread_mutex_lock(&p->policy_lock);
        const char *r = net_policy_check_host(&p->policy, c->host, c->port, &is_ip, why, sizeof(why));
        pthread_mutex_unlock(&p->policy_lock);
        if (r) {
                conn_deny(p, c, r, NULL);
                return;
        }
        if (net_is_localhost(c->host)) { /* the host's loopback, never a resolver's answer */
                net_addr_parse("127.0.0.1", &c->addrs[0]);
                net_addr_parse("::1", &c->addrs[1]);
                c->n_addrs = 2;
                c->next_addr = 0;
                start_connect(p, c);
                return;
        }
        if (is_ip) {
                net_addr_parse(c->host, &c->addrs[0]);
                c->n_addrs = 1;
                c->next_addr = 0;
                start_connect(p, c);
                return;
        }
        if (prefetch_take(p, c)) /* the sandbox's resolver gave this name an address just now */
                return;
        int e = resolve_start(p, c);
        if (e < 0)
                conn_fail(c, 502, SOCKS_REP_FAILURE, strerror(-e));
}

/* The upstream connection is up: answer the client, then tunnel. */
void upstream_connected(proxy *p, conn *c)
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
                conn_to_client(c, ESTABLISHED, sizeof(ESTABLISHED) - 1);
        else if (c->proto == P_SOCKS)
                socks_reply(c, SOCKS_REP_OK, false);
        tunnel_start(p, c);
}
