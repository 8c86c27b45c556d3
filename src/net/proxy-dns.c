/* SPDX-License-Identifier: MIT */
/* The sandbox's resolver (linux backend, network "proxy"): a UDP socket on
 * 127.0.0.1:53 of the sandbox's namespace (its /etc/resolv.conf names it),
 * served on the proxy's thread. It never asks a real resolver: a name the
 * allowlist names gets an address of its own (198.18.0.0/15, net/resolved.c)
 * that stands for that name when a client connects to it (an intercepted
 * port, proxy-intercept.c), where the proxy resolves the name on the host
 * and checks every address as for any request; for a name an entry names
 * (not a wildcard's), that lookup starts as soon as the address is given
 * (proxy-prefetch.c). "localhost" is the
 * sandbox's loopback. Any other name is NXDOMAIN, recorded as a refused
 * lookup (port 0 in the denials: kind "resolve" in the record). AAAA and
 * the other types of an allowed name have no data: clients use the IPv4
 * address. Called by the loop (proxy.c) when a query waits. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/dns.h"
#include "net/proxy-internal.h"

#define DNS_TTL 60
#define DNS_MSG_MAX 1500

static bool is_localhost(const char *name)
{
        size_t n = strlen(name);
        return streq(name, "localhost") || (n > 10 && streq(name + n - 10, ".localhost"));
}

/* The answer to an allowed name, |q|; |*given|: it has an address now. */
static ssize_t answer_allowed(proxy *p, const dns_query *q, const uint8_t *msg, uint8_t *out, size_t cap,
                              bool *given)
{
        struct in_addr a;
        if (q->qtype != DNS_TYPE_A)
                return dns_build_answer(q, msg, NULL, NULL, DNS_TTL, out, cap); /* no data */
        int r = resolved_address(p->names, q->name, &a);
        if (r < 0) /* every address given: no new name in this run */
                return dns_build_error(q->id, q->flags, msg + DNS_HEADER_LEN, q->question_end - DNS_HEADER_LEN,
                                       DNS_RCODE_SERVFAIL, out, cap);
        *given = true;
        return dns_build_answer(q, msg, &a, NULL, DNS_TTL, out, cap);
}

/* The answer to |msg|; |name|: the name an entry names that it gave an
 * address (to look up on the host now), or "". */
static ssize_t answer(proxy *p, const uint8_t *msg, size_t len, uint8_t *out, size_t cap, char *name,
                      size_t name_cap)
{
        name[0] = '\0';
        dns_query q;
        uint16_t id, flags;
        int r = dns_parse_query(msg, len, &q);
        if (r == -EINVAL) /* a question for no host name: none has it */
                return dns_build_error(q.id, q.flags, msg + DNS_HEADER_LEN, q.question_end - DNS_HEADER_LEN,
                                       DNS_RCODE_NXDOMAIN, out, cap);
        if (r < 0)
                return dns_query_header_only(msg, len, &id, &flags)
                               ? dns_build_error(id, flags, NULL, 0,
                                                 r == -ENOTSUP ? DNS_RCODE_NOTIMP : DNS_RCODE_FORMERR, out, cap)
                               : -1;
        const uint8_t *question = msg + DNS_HEADER_LEN;
        size_t qlen = q.question_end - DNS_HEADER_LEN;
        if (q.qclass != DNS_CLASS_IN)
                return dns_build_error(q.id, q.flags, question, qlen, DNS_RCODE_REFUSED, out, cap);
        if (is_localhost(q.name)) {
                struct in_addr lo4 = {htonl(INADDR_LOOPBACK)};
                return dns_build_answer(&q, msg, &lo4, &in6addr_loopback, DNS_TTL, out, cap);
        }
        pthread_mutex_lock(&p->policy_lock);
        bool listed = net_policy_has_name(&p->policy, q.name);
        bool exact = listed && net_policy_names_exactly(&p->policy, q.name);
        pthread_mutex_unlock(&p->policy_lock);
        if (!listed) {
                denial_note(p, q.name, 0,
                            "the allowlist names no such host (the sandbox's resolver answers only its names)",
                            denial_suggestable(q.name, q.name) ? q.name : NULL);
                return dns_build_error(q.id, q.flags, question, qlen, DNS_RCODE_NXDOMAIN, out, cap);
        }
        bool given = false;
        ssize_t m = answer_allowed(p, &q, msg, out, cap, &given);
        if (given && exact) /* a wildcard's subdomain is looked up once a client connects */
                snprintf(name, name_cap, "%s", q.name);
        return m;
}

void dns_serve(proxy *p)
{
        for (int i = 0; i < 64; i++) {
                uint8_t msg[DNS_MSG_MAX], out[DNS_MSG_MAX];
                struct sockaddr_storage from;
                socklen_t from_len = sizeof(from);
                ssize_t n = recvfrom(p->dns_w.fd, msg, sizeof(msg), MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from,
                                     &from_len);
                if (n < 0)
                        return;
                char name[NET_HOST_MAX + 3];
                ssize_t m = (size_t)n <= sizeof(msg) ? answer(p, msg, (size_t)n, out, sizeof(out), name, sizeof(name))
                                                     : -1;
                if (m > 0)
                        (void)!sendto(p->dns_w.fd, out, (size_t)m, MSG_DONTWAIT | MSG_NOSIGNAL,
                                      (struct sockaddr *)&from, from_len);
                if (m > 0 && name[0]) /* answered first: the client waits for nothing but that */
                        prefetch_name(p, name);
        }
}
