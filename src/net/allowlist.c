/* SPDX-License-Identifier: MIT */
/* The network allowlist: parsing entries, matching requests, and the
 * addresses a name must not lead to (the proxy's policy, net/proxy.c). */
#include "net/allowlist.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const uint8_t V4_MAPPED[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static bool is_v4(const net_addr *a) { return memcmp(a->b, V4_MAPPED, 12) == 0; }

bool net_addr_parse(const char *s, net_addr *ret)
{
        struct in_addr v4;
        if (inet_pton(AF_INET, s, &v4) == 1) {
                memcpy(ret->b, V4_MAPPED, 12);
                memcpy(ret->b + 12, &v4, 4);
                return true;
        }
        return inet_pton(AF_INET6, s, ret->b) == 1;
}

bool net_addr_v4(const net_addr *a, struct in_addr *out)
{
        if (!is_v4(a))
                return false;
        memcpy(out, a->b + 12, 4);
        return true;
}

void net_addr_from_sockaddr(const struct sockaddr *sa, net_addr *ret)
{
        memset(ret, 0, sizeof(*ret));
        if (sa->sa_family == AF_INET) {
                memcpy(ret->b, V4_MAPPED, 12);
                memcpy(ret->b + 12, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        } else if (sa->sa_family == AF_INET6) {
                memcpy(ret->b, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
        }
}

void net_addr_format(const net_addr *a, char out[INET6_ADDRSTRLEN])
{
        if (!inet_ntop(is_v4(a) ? AF_INET : AF_INET6, is_v4(a) ? a->b + 12 : a->b, out, INET6_ADDRSTRLEN))
                snprintf(out, INET6_ADDRSTRLEN, "?");
}

/* Do the first |bits| bits of |a| and |b| agree? */
static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned bits)
{
        unsigned whole = bits / 8, rest = bits % 8;
        if (memcmp(a, b, whole) != 0)
                return false;
        if (rest == 0)
                return true;
        uint8_t mask = (uint8_t)(0xff << (8 - rest));
        return (a[whole] & mask) == (b[whole] & mask);
}

typedef struct special_range {
        const char *prefix; /* an address */
        unsigned bits;      /* of the 128 */
        const char *what;
} special_range;

/* Most specific first: the first match names the address. */
static const special_range SPECIAL[] = {
        {"169.254.169.254", 128, "cloud metadata"},
        {"fd00:ec2::254", 128, "cloud metadata"},
        {"100.100.100.200", 128, "cloud metadata"},
        {"0.0.0.0", 96 + 8, "unspecified"},
        {"10.0.0.0", 96 + 8, "private"},
        {"100.64.0.0", 96 + 10, "private (CGNAT)"},
        {"127.0.0.0", 96 + 8, "loopback"},
        {"169.254.0.0", 96 + 16, "link-local"},
        {"172.16.0.0", 96 + 12, "private"},
        {"192.0.0.0", 96 + 24, "reserved"},
        {"192.168.0.0", 96 + 16, "private"},
        {"198.18.0.0", 96 + 15, "reserved"},
        {"224.0.0.0", 96 + 4, "multicast"},
        {"240.0.0.0", 96 + 4, "reserved"},
        {"::", 128, "unspecified"},
        {"::1", 128, "loopback"},
        {"fe80::", 10, "link-local"},
        {"fec0::", 10, "private (site-local)"},
        {"fc00::", 7, "private (ULA)"},
        {"ff00::", 8, "multicast"},
        {"::", 96, "reserved"}, /* IPv4-compatible */
};

const char *net_addr_special(const net_addr *a)
{
        net_addr x = *a;
        /* NAT64 (64:ff9b::/96) and 6to4 lead to the IPv4 address inside */
        static const uint8_t NAT64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
        if (memcmp(x.b, NAT64, 12) == 0)
                memcpy(x.b, V4_MAPPED, 12);
        else if (x.b[0] == 0x20 && x.b[1] == 0x02) {
                uint8_t v4[4];
                memcpy(v4, x.b + 2, 4);
                memcpy(x.b, V4_MAPPED, 12);
                memcpy(x.b + 12, v4, 4);
        }
        for (size_t i = 0; i < ARRAY_SIZE(SPECIAL); i++) {
                net_addr p;
                if (net_addr_parse(SPECIAL[i].prefix, &p) && prefix_match(x.b, p.b, SPECIAL[i].bits)) {
                        /* "::" /96 is not the mapped range */
                        if (SPECIAL[i].bits == 96 && is_v4(&x))
                                continue;
                        return SPECIAL[i].what;
                }
        }
        if (is_v4(&x) && memcmp(x.b + 12, "\xff\xff\xff\xff", 4) == 0)
                return "broadcast";
        return NULL;
}

/* A DNS name: labels of [a-z0-9_-] (1..63), at most 253 in all, not all
 * digits in the last label (that would be an IPv4 address in some other
 * notation, as getaddrinfo reads "127.1"). Lower case already. */
static bool name_valid(const char *s)
{
        size_t len = strlen(s), label = 0;
        bool digits_only = true;
        if (len == 0 || len > NET_HOST_MAX)
                return false;
        for (size_t i = 0; i <= len; i++) {
                char c = s[i];
                if (c == '.' || c == '\0') {
                        if (label == 0 || label > 63)
                                return false;
                        if (c == '\0' && digits_only)
                                return false;
                        label = 0;
                        digits_only = true;
                        continue;
                }
                if (!(islower((unsigned char)c) || isdigit((unsigned char)c) || c == '-' || c == '_'))
                        return false;
                if (!isdigit((unsigned char)c))
                        digits_only = false;
                label++;
        }
        return true;
}

static void lower(char *s)
{
        for (; *s; s++)
                *s = (char)tolower((unsigned char)*s);
}

bool net_host_normalize(char *host)
{
        size_t len = strlen(host);
        if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
                memmove(host, host + 1, len - 2);
                host[len - 2] = '\0';
                net_addr a;
                return net_addr_parse(host, &a);
        }
        lower(host);
        len = strlen(host);
        if (len > 1 && host[len - 1] == '.')
                host[len - 1] = '\0';
        net_addr a;
        return net_addr_parse(host, &a) || name_valid(host);
}

static int parse_port(const char *s, uint16_t *ret)
{
        unsigned long v = 0;
        if (!*s || strlen(s) > 5)
                return -EINVAL;
        for (const char *c = s; *c; c++) {
                if (!isdigit((unsigned char)*c))
                        return -EINVAL;
                v = v * 10 + (unsigned long)(*c - '0');
        }
        if (v < 1 || v > 65535)
                return -EINVAL;
        *ret = (uint16_t)v;
        return 0;
}

/* "ADDR" or "ADDR/BITS" into |e|. */
static int parse_cidr(char *s, net_entry *e, const char **why)
{
        char *slash = strchr(s, '/');
        if (slash)
                *slash = '\0';
        if (!net_addr_parse(s, &e->addr)) {
                *why = "not a valid IP address";
                return -EINVAL;
        }
        unsigned max = is_v4(&e->addr) && strchr(s, ':') == NULL ? 32 : 128;
        unsigned bits = max;
        if (slash) {
                char *end = NULL;
                unsigned long v = strtoul(slash + 1, &end, 10);
                if (!isdigit((unsigned char)slash[1]) || *end || v > max) {
                        *why = max == 32 ? "the prefix length must be from 0 to 32"
                                         : "the prefix length must be from 0 to 128";
                        return -EINVAL;
                }
                bits = (unsigned)v;
        }
        e->kind = NET_CIDR;
        e->prefix = bits + (max == 32 ? 96 : 0);
        net_addr masked = {{0}};
        memcpy(masked.b, e->addr.b, 16);
        for (unsigned i = e->prefix; i < 128; i++)
                masked.b[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
        if (memcmp(masked.b, e->addr.b, 16) != 0) {
                *why = "the address has bits set beyond the prefix length";
                return -EINVAL;
        }
        return 0;
}

static int parse_host(char *host, net_entry *e, const char **why)
{
        net_addr a;
        if (strchr(host, '/') || net_addr_parse(host, &a))
                return parse_cidr(host, e, why);
        lower(host);
        size_t len = strlen(host);
        if (len > 1 && host[len - 1] == '.')
                host[--len] = '\0';
        bool wild = strncmp(host, "*.", 2) == 0;
        const char *name = wild ? host + 2 : host;
        if (strchr(name, '*')) {
                *why = "a wildcard must be a leading \"*.\" (\"*.example.org\"); for any host use network \"full\"";
                return -EINVAL;
        }
        if (!name_valid(name)) {
                *why = "not a valid host name, IP address or CIDR";
                return -EINVAL;
        }
        e->kind = wild ? NET_WILDCARD : NET_NAME;
        snprintf(e->name, sizeof(e->name), "%s", name);
        return 0;
}

int net_entry_parse(const char *spec, net_entry *ret, const char **ret_why)
{
        char s[NET_HOST_MAX + 16];
        const char *why = NULL;
        net_entry e = {0};
        if (!spec || !*spec) {
                *ret_why = "must not be empty";
                return -EINVAL;
        }
        if (strlen(spec) >= sizeof(s)) {
                *ret_why = "is too long";
                return -EINVAL;
        }
        if (strstr(spec, "://")) {
                /* "http://example.org": a URL, whose scheme would be read as
                 * the host and the rest as a port */
                *ret_why = "is a URL, not a host: give the host name alone (example.org), with :PORT if not 80 or 443";
                return -EINVAL;
        }
        snprintf(s, sizeof(s), "%s", spec);
        char *host = s, *port = NULL;
        if (s[0] == '[') {
                char *close = strchr(s, ']');
                if (!close || (close[1] && close[1] != ':')) {
                        *ret_why = "an IPv6 address in brackets must be \"[ADDR]\" or \"[ADDR]:PORT\"";
                        return -EINVAL;
                }
                *close = '\0';
                host = s + 1;
                port = close[1] ? close + 2 : NULL;
        } else {
                char *first = strchr(s, ':'), *last = strrchr(s, ':');
                if (first && first == last) { /* two or more: a bare IPv6 address */
                        *first = '\0';
                        port = first + 1;
                }
        }
        if (port && parse_port(port, &e.port) < 0) {
                *ret_why = "the port must be a number from 1 to 65535";
                return -EINVAL;
        }
        if (parse_host(host, &e, &why) < 0) {
                *ret_why = why;
                return -EINVAL;
        }
        if (s[0] == '[' && e.kind != NET_CIDR) {
                *ret_why = "brackets are for IPv6 addresses";
                return -EINVAL;
        }
        *ret = e;
        return 0;
}

char *net_entry_format(const net_entry *e)
{
        char port[8] = "";
        if (e->port)
                snprintf(port, sizeof(port), ":%u", (unsigned)e->port);
        if (e->kind != NET_CIDR)
                return xasprintf("%s%s%s", e->kind == NET_WILDCARD ? "*." : "", e->name, port);
        char a[INET6_ADDRSTRLEN];
        net_addr_format(&e->addr, a);
        bool v4 = is_v4(&e->addr);
        unsigned bits = v4 ? e->prefix - 96 : e->prefix;
        char pfx[8] = "";
        if (bits != (v4 ? 32U : 128U))
                snprintf(pfx, sizeof(pfx), "/%u", bits);
        if (!v4 && e->port)
                return xasprintf("[%s%s]%s", a, pfx, port);
        return xasprintf("%s%s%s", a, pfx, port);
}

static bool port_matches(const net_entry *e, uint16_t port)
{
        return e->port ? e->port == port : port == 80 || port == 443;
}

static bool name_matches(const net_entry *e, const char *host)
{
        if (e->kind == NET_NAME)
                return streq(e->name, host);
        if (e->kind != NET_WILDCARD)
                return false;
        size_t h = strlen(host), n = strlen(e->name);
        return h > n + 1 && host[h - n - 1] == '.' && streq(host + h - n, e->name);
}

bool net_is_localhost(const char *host) { return streq(host, "localhost"); }

static bool is_loopback_v4(const net_addr *a) { return is_v4(a) && a->b[12] == 127; }

static bool is_loopback_v6(const net_addr *a)
{
        static const uint8_t ONE[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        return memcmp(a->b, ONE, 16) == 0;
}

/* Does |e| name |a|: its CIDR holds it, or it is "localhost" and |a| is
 * 127.0.0.1 or ::1? */
static bool cidr_contains(const net_entry *e, const net_addr *a)
{
        if (e->kind == NET_NAME && net_is_localhost(e->name)) {
                net_addr one;
                return is_loopback_v6(a) || (net_addr_parse("127.0.0.1", &one) && memcmp(one.b, a->b, 16) == 0);
        }
        return e->kind == NET_CIDR && prefix_match(e->addr.b, a->b, e->prefix);
}

void net_addr_entry(const net_addr *a, uint16_t port, char *out, size_t n)
{
        char text[INET6_ADDRSTRLEN];
        net_addr_format(a, text);
        snprintf(out, n, is_v4(a) ? "%s:%u" : "[%s]:%u", text, (unsigned)port);
}

static size_t forward_add(net_forward *out, size_t n, size_t max, const net_addr *a, uint16_t port,
                          const char *host)
{
        for (size_t i = 0; i < n && i < max; i++)
                if (out[i].port == port && memcmp(out[i].addr.b, a->b, 16) == 0)
                        return n; /* the first entry naming it wins */
        if (n < max) {
                out[n].addr = *a;
                out[n].port = port;
                snprintf(out[n].host, sizeof(out[n].host), "%s", host);
        }
        return n + 1;
}

size_t net_loopback_forwards(const char *const *allow, net_forward *out, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; allow && allow[i]; i++) {
                net_entry e;
                const char *why = NULL;
                if (net_entry_parse(allow[i], &e, &why) < 0)
                        continue;
                bool local = e.kind == NET_NAME && net_is_localhost(e.name);
                bool single = e.kind == NET_CIDR && e.prefix == 128 && (is_loopback_v4(&e.addr) || is_loopback_v6(&e.addr));
                if (!local && !single)
                        continue;
                const uint16_t ports[2] = {e.port ? e.port : 80, e.port ? 0 : 443};
                for (size_t k = 0; k < 2 && ports[k]; k++) {
                        net_addr a4, a6;
                        char text[INET6_ADDRSTRLEN];
                        net_addr_format(&e.addr, text);
                        if (!local) {
                                n = forward_add(out, n, max, &e.addr, ports[k], text);
                        } else if (net_addr_parse("127.0.0.1", &a4) && net_addr_parse("::1", &a6)) {
                                n = forward_add(out, n, max, &a4, ports[k], "localhost");
                                n = forward_add(out, n, max, &a6, ports[k], "localhost");
                        }
                }
        }
        return n;
}

const char *net_policy_check_host(const net_policy *p, const char *host, uint16_t port, bool *is_ip, char *why,
                                  size_t n)
{
        net_addr a;
        *is_ip = net_addr_parse(host, &a);
        bool host_listed = false;
        for (size_t i = 0; i < p->n; i++) {
                bool m = *is_ip ? cidr_contains(&p->e[i], &a) : name_matches(&p->e[i], host);
                if (m && port_matches(&p->e[i], port))
                        return NULL;
                host_listed |= m;
        }
        if (host_listed)
                snprintf(why, n, "port %u is not in the allowlist for this host", (unsigned)port);
        else if (*is_ip)
                snprintf(why, n, "the IP address is not in the allowlist (names are not matched to addresses)");
        else
                snprintf(why, n, "not in the allowlist");
        return why;
}

const char *net_policy_check_addr(const net_policy *p, const net_addr *a, uint16_t port, char *why, size_t n)
{
        for (size_t i = 0; i < p->n; i++)
                if (cidr_contains(&p->e[i], a) && port_matches(&p->e[i], port))
                        return NULL; /* named by the list itself */
        char text[INET6_ADDRSTRLEN];
        net_addr_format(a, text);
        const char *what = net_addr_special(a);
        for (size_t i = 0; !what && i < p->n_own; i++)
                if (memcmp(p->own[i].b, a->b, 16) == 0)
                        what = "this host's own";
        if (!what)
                return NULL;
        snprintf(why, n, "resolves to %s (%s address; allowed only when the list names that address)", text, what);
        return why;
}

bool net_policy_has_name(const net_policy *p, const char *host)
{
        for (size_t i = 0; i < p->n; i++)
                if (name_matches(&p->e[i], host))
                        return true;
        return false;
}

bool net_policy_names_exactly(const net_policy *p, const char *host)
{
        for (size_t i = 0; i < p->n; i++)
                if (p->e[i].kind == NET_NAME && streq(p->e[i].name, host))
                        return true;
        return false;
}

/* |port| into |out| once (|seen|: a bit per port), counting past |max|. */
static size_t port_add(uint16_t *out, size_t n, size_t max, uint8_t *seen, uint16_t port)
{
        if (seen[port / 8] & (1u << (port % 8)))
                return n;
        seen[port / 8] |= (uint8_t)(1u << (port % 8));
        if (n < max)
                out[n] = port;
        return n + 1;
}

size_t net_intercepted_ports(const char *const *allow, uint16_t proxy_port, uint16_t *out, size_t max)
{
        uint8_t seen[65536 / 8] = {0};
        size_t n = port_add(out, port_add(out, 0, max, seen, 80), max, seen, 443);
        for (size_t i = 0; allow && allow[i]; i++) {
                net_entry e;
                const char *why = NULL;
                if (net_entry_parse(allow[i], &e, &why) < 0 || e.port == 0 || e.port == proxy_port)
                        continue;
                bool local = (e.kind == NET_NAME && net_is_localhost(e.name)) ||
                             (e.kind == NET_CIDR && (is_loopback_v4(&e.addr) || is_loopback_v6(&e.addr)));
                if (!local)
                        n = port_add(out, n, max, seen, e.port);
        }
        return n;
}

size_t net_intercepted_routes(const char *const *allow, net_route *out, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; allow && allow[i]; i++) {
                net_entry e;
                const char *why = NULL;
                if (net_entry_parse(allow[i], &e, &why) < 0 || e.kind != NET_CIDR || is_loopback_v4(&e.addr) ||
                    is_loopback_v6(&e.addr))
                        continue;
                net_route rt = {.v4 = is_v4(&e.addr), .prefix = is_v4(&e.addr) ? e.prefix - 96 : e.prefix};
                for (unsigned bit = 0; bit < 128; bit++) /* the host bits cleared */
                        if (bit < e.prefix)
                                rt.b[bit / 8] |= e.addr.b[bit / 8] & (uint8_t)(0x80u >> (bit % 8));
                if (rt.v4) {
                        memmove(rt.b, rt.b + 12, 4);
                        memset(rt.b + 4, 0, 12);
                }
                bool seen = false;
                for (size_t k = 0; k < n && k < max && !seen; k++)
                        seen = out[k].v4 == rt.v4 && out[k].prefix == rt.prefix && memcmp(out[k].b, rt.b, 16) == 0;
                if (seen)
                        continue;
                if (n < max)
                        out[n] = rt;
                n++;
        }
        return n;
}
