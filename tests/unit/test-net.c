/* SPDX-License-Identifier: MIT */
/* The network allowlist (net/allowlist.c): entries, matching, and the
 * addresses names may not resolve to. Table-driven. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon.h"

#include "net/allowlist.h"
#include "net/proxy.h"
#include "net/request.h"
#include "tap.h"

static void test_entry_parse(void)
{
        static const struct {
                const char *spec, *canonical, *why;
        } T[] = {
                {"example.org", "example.org", NULL},
                {"Example.ORG.", "example.org", NULL},
                {"example.org:8443", "example.org:8443", NULL},
                {"*.example.org", "*.example.org", NULL},
                {"*.Example.org:443", "*.example.org:443", NULL},
                {"registry_1.example-x.org", "registry_1.example-x.org", NULL},
                {"192.0.2.7", "192.0.2.7", NULL},
                {"192.0.2.7:80", "192.0.2.7:80", NULL},
                {"10.0.0.0/8", "10.0.0.0/8", NULL},
                {"10.0.0.0/8:5432", "10.0.0.0/8:5432", NULL},
                {"0.0.0.0/0", "0.0.0.0/0", NULL},
                {"2001:db8::1", "2001:db8::1", NULL},
                {"2001:db8::/32", "2001:db8::/32", NULL},
                {"[2001:db8::1]:443", "[2001:db8::1]:443", NULL},
                {"[2001:DB8::/32]:443", "[2001:db8::/32]:443", NULL},
                {"[2001:db8::1]", "2001:db8::1", NULL},
                {"", NULL, "must not be empty"},
                {"exa mple.org", NULL, "not a valid host name, IP address or CIDR"},
                {"example..org", NULL, "not a valid host name, IP address or CIDR"},
                {"127.1", NULL, "not a valid host name, IP address or CIDR"},
                {"*", NULL, "a wildcard must be a leading \"*.\" (\"*.example.org\"); for any host use network \"full\""},
                {"ex*.org", NULL, "a wildcard must be a leading \"*.\" (\"*.example.org\"); for any host use network \"full\""},
                {"*.*.org", NULL, "a wildcard must be a leading \"*.\" (\"*.example.org\"); for any host use network \"full\""},
                {"example.org:0", NULL, "the port must be a number from 1 to 65535"},
                {"example.org:65536", NULL, "the port must be a number from 1 to 65535"},
                {"example.org:", NULL, "the port must be a number from 1 to 65535"},
                {"example.org:+80", NULL, "the port must be a number from 1 to 65535"},
                {"10.0.0.1/8", NULL, "the address has bits set beyond the prefix length"},
                {"10.0.0.0/33", NULL, "the prefix length must be from 0 to 32"},
                {"10.0.0.0/", NULL, "the prefix length must be from 0 to 32"},
                {"2001:db8::/129", NULL, "the prefix length must be from 0 to 128"},
                {"300.1.2.3/8", NULL, "not a valid IP address"},
                {"[example.org]:80", NULL, "brackets are for IPv6 addresses"},
                {"[2001:db8::1]x", NULL, "an IPv6 address in brackets must be \"[ADDR]\" or \"[ADDR]:PORT\""},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                net_entry e;
                const char *why = NULL;
                int r = net_entry_parse(T[i].spec, &e, &why);
                if (T[i].canonical) {
                        CHECK_INTEQ(r, 0);
                        char *text = r == 0 ? net_entry_format(&e) : NULL;
                        CHECK_STREQ(text, T[i].canonical);
                        free(text);
                } else {
                        CHECK_INTEQ(r, -EINVAL);
                        CHECK_STREQ(r < 0 ? why : "(accepted)", T[i].why);
                }
        }
}

static const char *special(const char *addr)
{
        net_addr a;
        return net_addr_parse(addr, &a) ? net_addr_special(&a) : "(unparsable)";
}

static void test_special_addresses(void)
{
        static const struct {
                const char *addr, *what;
        } T[] = {
                {"127.0.0.1", "loopback"},     {"127.255.0.9", "loopback"},       {"::1", "loopback"},
                {"10.1.2.3", "private"},       {"172.16.0.1", "private"},         {"172.31.255.255", "private"},
                {"192.168.1.1", "private"},    {"100.64.0.1", "private (CGNAT)"}, {"fd12::1", "private (ULA)"},
                {"169.254.169.254", "cloud metadata"}, {"fd00:ec2::254", "cloud metadata"},
                {"100.100.100.200", "cloud metadata"}, {"169.254.1.1", "link-local"}, {"fe80::1", "link-local"},
                {"224.0.0.1", "multicast"},    {"ff02::1", "multicast"},          {"0.0.0.0", "unspecified"},
                {"::", "unspecified"},         {"255.255.255.255", "reserved"},   {"240.0.0.1", "reserved"},
                {"::ffff:127.0.0.1", "loopback"}, {"::ffff:10.0.0.1", "private"},
                {"64:ff9b::a00:1", "private"},    {"2002:7f00:1::", "loopback"},  /* NAT64, 6to4 */
                {"8.8.8.8", NULL},             {"172.32.0.1", NULL},              {"100.128.0.1", NULL},
                {"2001:4860:4860::8888", NULL}, {"93.184.216.34", NULL},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                const char *got = special(T[i].addr);
                if (!T[i].what && got)
                        printf("# %s: %s\n", T[i].addr, got);
                CHECK(T[i].what ? got && streq(got, T[i].what) : got == NULL);
        }
}

static net_policy *policy(const char *const *specs, net_policy *p, net_entry *storage)
{
        *p = (net_policy){.e = storage};
        for (size_t i = 0; specs[i]; i++) {
                const char *why;
                if (net_entry_parse(specs[i], &storage[p->n], &why) == 0)
                        p->n++;
        }
        return p;
}

static void test_policy_hosts(void)
{
        static const char *const LIST[] = {"example.org", "*.pkg.dev:443", "192.0.2.0/24:8080", "[2001:db8::5]:443",
                                           "api.test:9000", NULL};
        net_entry storage[8];
        net_policy p;
        policy(LIST, &p, storage);
        static const struct {
                const char *host;
                unsigned port;
                const char *why; /* NULL: allowed */
        } T[] = {
                {"example.org", 80, NULL},
                {"example.org", 443, NULL},
                {"example.org", 22, "port 22 is not in the allowlist for this host"},
                {"www.example.org", 443, "not in the allowlist"},
                {"a.pkg.dev", 443, NULL},
                {"a.b.pkg.dev", 443, NULL},
                {"pkg.dev", 443, "not in the allowlist"},
                {"xpkg.dev", 443, "not in the allowlist"},
                {"a.pkg.dev", 80, "port 80 is not in the allowlist for this host"},
                {"192.0.2.99", 8080, NULL},
                {"192.0.2.99", 80, "port 80 is not in the allowlist for this host"},
                {"192.0.3.1", 8080, "the IP address is not in the allowlist (names are not matched to addresses)"},
                {"2001:db8::5", 443, NULL},
                {"::ffff:192.0.2.1", 8080, NULL},
                {"api.test", 9000, NULL},
                {"api.test", 443, "port 443 is not in the allowlist for this host"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char why[256];
                bool ip;
                const char *r = net_policy_check_host(&p, T[i].host, (uint16_t)T[i].port, &ip, why, sizeof(why));
                if (T[i].why)
                        CHECK_STREQ(r, T[i].why);
                else if (r)
                        printf("# %s:%u: %s\n", T[i].host, T[i].port, r);
                CHECK(T[i].why || !r);
        }
}

/* A name's addresses: special ones refused unless the list names them;
 * the host's own refused. */
static void test_policy_addresses(void)
{
        static const char *const LIST[] = {"intranet.test", "10.20.0.0/16:443", NULL};
        net_entry storage[4];
        net_policy p;
        policy(LIST, &p, storage);
        net_addr own;
        net_addr_parse("198.51.100.4", &own);
        p.own = &own;
        p.n_own = 1;
        static const struct {
                const char *addr;
                unsigned port;
                const char *why;
        } T[] = {
                {"93.184.216.34", 443, NULL},
                {"10.20.1.1", 443, NULL},
                {"10.20.1.1", 80,
                 "resolves to 10.20.1.1 (private address; allowed only when the list names that address)"},
                {"10.21.1.1", 443,
                 "resolves to 10.21.1.1 (private address; allowed only when the list names that address)"},
                {"127.0.0.1", 80,
                 "resolves to 127.0.0.1 (loopback address; allowed only when the list names that address)"},
                {"169.254.169.254", 80,
                 "resolves to 169.254.169.254 (cloud metadata address; allowed only when the list names that "
                 "address)"},
                {"198.51.100.4", 443,
                 "resolves to 198.51.100.4 (this host's own address; allowed only when the list names that "
                 "address)"},
                {"::ffff:127.0.0.1", 80,
                 "resolves to 127.0.0.1 (loopback address; allowed only when the list names that address)"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                net_addr a;
                char why[256];
                CHECK(net_addr_parse(T[i].addr, &a));
                const char *r = net_policy_check_addr(&p, &a, (uint16_t)T[i].port, why, sizeof(why));
                if (T[i].why)
                        CHECK_STREQ(r, T[i].why);
                else
                        CHECK(r == NULL);
        }
}

/* The host's loopback services: "localhost:PORT" names 127.0.0.1 and ::1
 * on PORT (as a request by name or by address), never another loopback
 * address nor port; an address entry names only itself. */
static void test_policy_localhost(void)
{
        static const char *const LIST[] = {"localhost:8765", "127.0.0.5:9000", NULL};
        net_entry storage[4];
        net_policy p;
        policy(LIST, &p, storage);
        static const struct {
                const char *host;
                unsigned port;
                bool ok;
        } T[] = {
                {"localhost", 8765, true},   {"127.0.0.1", 8765, true},  {"::1", 8765, true},
                {"::ffff:127.0.0.1", 8765, true}, {"localhost", 8766, false}, {"127.0.0.1", 8766, false},
                {"127.0.0.2", 8765, false},  {"127.0.0.5", 9000, true},  {"127.0.0.5", 8765, false},
                {"localhost", 9000, false},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char why[256];
                bool ip;
                const char *r = net_policy_check_host(&p, T[i].host, (uint16_t)T[i].port, &ip, why, sizeof(why));
                net_addr a;
                if (r == NULL && ip && net_addr_parse(T[i].host, &a))
                        r = net_policy_check_addr(&p, &a, (uint16_t)T[i].port, why, sizeof(why));
                if ((r == NULL) != T[i].ok)
                        printf("# %s:%u: %s\n", T[i].host, T[i].port, r ? r : "allowed");
                CHECK((r == NULL) == T[i].ok);
        }
        net_addr one;
        char why[256], entry[64];
        CHECK(net_addr_parse("127.0.0.1", &one));
        CHECK(net_policy_check_addr(&p, &one, 8765, why, sizeof(why)) == NULL);
        CHECK(net_policy_check_addr(&p, &one, 80, why, sizeof(why)) != NULL);
        net_addr_entry(&one, 80, entry, sizeof(entry));
        CHECK_STREQ(entry, "127.0.0.1:80");
        CHECK(net_addr_parse("::1", &one));
        net_addr_entry(&one, 8080, entry, sizeof(entry));
        CHECK_STREQ(entry, "[::1]:8080");
}

/* What the linux backend listens on inside for the loopback services:
 * single loopback addresses and localhost (both families), each port (80
 * and 443 without one), each address and port once; nothing for names,
 * ranges or other addresses. */
static void test_loopback_forwards(void)
{
        static const char *const LIST[] = {"127.0.0.1:8765", "localhost:8765", "[::1]:5432", "127.0.0.9",
                                           "example.org:22", "127.0.0.0/8:9", "10.0.0.1:80", "localhost:11434",
                                           NULL};
        net_forward f[NET_FORWARDS_MAX];
        size_t n = net_loopback_forwards(LIST, f, NET_FORWARDS_MAX);
        static const char *const WANT[] = {"127.0.0.1:8765 127.0.0.1", "[::1]:8765 localhost", "[::1]:5432 ::1",
                                           "127.0.0.9:80 127.0.0.9", "127.0.0.9:443 127.0.0.9",
                                           "127.0.0.1:11434 localhost", "[::1]:11434 localhost"};
        CHECK_INTEQ((int)n, (int)ARRAY_SIZE(WANT));
        for (size_t i = 0; i < n && i < ARRAY_SIZE(WANT); i++) {
                char entry[64], got[128];
                net_addr_entry(&f[i].addr, f[i].port, entry, sizeof(entry));
                snprintf(got, sizeof(got), "%s %s", entry, f[i].host);
                CHECK_STREQ(got, WANT[i]);
        }
        CHECK_INTEQ((int)net_loopback_forwards(LIST, f, 2), (int)ARRAY_SIZE(WANT)); /* the count, past max */
}

/* The ports the linux backend intercepts: 80 and 443 always, each port
 * an entry names once, never a loopback service's (forwarded) nor the
 * proxy's own; the count past |max|. The names the resolver answers: an
 * entry's name, a wildcard's subdomains (not the name itself), whatever
 * the port; never an address entry's. */
static void test_intercepted_ports(void)
{
        static const char *const LIST[] = {"example.org:22", "*.example.net:8443", "10.0.0.0/8:5432",
                                           "example.org:22", "127.0.0.1:8765", "localhost:9000",
                                           "[::1]:9001", "x.org:3128", "y.org:443", "z.org", NULL};
        uint16_t ports[NET_INTERCEPTED_MAX];
        size_t n = net_intercepted_ports(LIST, 3128, ports, NET_INTERCEPTED_MAX);
        static const uint16_t WANT[] = {80, 443, 22, 8443, 5432};
        CHECK_INTEQ((int)n, (int)ARRAY_SIZE(WANT));
        for (size_t i = 0; i < n && i < ARRAY_SIZE(WANT); i++)
                CHECK_INTEQ(ports[i], WANT[i]);
        CHECK_INTEQ((int)net_intercepted_ports(LIST, 3128, ports, 2), (int)ARRAY_SIZE(WANT));
        CHECK_INTEQ(ports[0], 80);
        CHECK_INTEQ(ports[1], 443);

        /* the addresses routed to lo: IP and CIDR entries but loopback, each once */
        static const char *const ROUTED[] = {"10.0.0.0/8:5432", "10.0.0.0/8", "192.0.2.7", "127.0.0.1:80",
                                             "[2001:db8::/32]:443", "[::1]:8080", "example.org", NULL};
        net_route rt[NET_ROUTES_MAX];
        CHECK_INTEQ((int)net_intercepted_routes(ROUTED, rt, NET_ROUTES_MAX), 3);
        static const uint8_t NET10[16] = {10}, NET192[16] = {192, 0, 2, 7}, NET2001[16] = {0x20, 0x01, 0x0d, 0xb8};
        CHECK(rt[0].v4 && rt[0].prefix == 8 && memcmp(rt[0].b, NET10, 16) == 0);
        CHECK(rt[1].v4 && rt[1].prefix == 32 && memcmp(rt[1].b, NET192, 16) == 0);
        CHECK(!rt[2].v4 && rt[2].prefix == 32 && memcmp(rt[2].b, NET2001, 16) == 0);
        CHECK_INTEQ((int)net_intercepted_routes(ROUTED, rt, 1), 3);

        net_entry e[3];
        const char *why = NULL;
        CHECK(net_entry_parse("example.org:22", &e[0], &why) == 0);
        CHECK(net_entry_parse("*.example.net", &e[1], &why) == 0);
        CHECK(net_entry_parse("192.0.2.1", &e[2], &why) == 0);
        net_policy pol = {.e = e, .n = 3};
        CHECK(net_policy_has_name(&pol, "example.org"));
        CHECK(net_policy_has_name(&pol, "a.example.net"));
        CHECK(!net_policy_has_name(&pol, "example.net"));
        CHECK(!net_policy_has_name(&pol, "a.example.org"));
        CHECK(!net_policy_has_name(&pol, "192.0.2.1"));
        CHECK(!net_policy_has_name(&pol, "evil.org"));
        CHECK(net_policy_names_exactly(&pol, "example.org"));
        CHECK(!net_policy_names_exactly(&pol, "a.example.net")); /* by its wildcard only */
        CHECK(!net_policy_names_exactly(&pol, "evil.org"));
}

static void test_host_normalize(void)
{
        static const struct {
                const char *in, *out;
                bool ok;
        } T[] = {
                {"Example.ORG.", "example.org", true}, {"[2001:db8::1]", "2001:db8::1", true},
                {"192.0.2.1", "192.0.2.1", true},      {"[example.org]", "example.org", false},
                {"a b", "a b", false},                 {"", "", false},
                {"127.1", "127.1", false},             {"x\\x01.org", "x\\x01.org", false},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char h[300];
                snprintf(h, sizeof(h), "%s", T[i].in);
                bool ok = net_host_normalize(h);
                CHECK_INTEQ(ok, T[i].ok);
                if (ok)
                        CHECK_STREQ(h, T[i].out);
        }
}

/* The head forwarded for a request, or its (negative) status. The ways a
 * client could make the upstream read another request than the one the
 * proxy checked: a Host header of its own (one, several, another port, in
 * origin form), hop-by-hop headers, and ambiguous framing (RFC 9112 6.3,
 * 11.2): Content-Length with Transfer-Encoding, either twice, a coding
 * other than chunked, obs-fold, bare CR, NUL and controls in values. */
static void test_http_head(void)
{
        static const struct {
                const char *in;
                int r;
                const char *out;
        } T[] = {
                {"GET http://allowed.test/ HTTP/1.1\r\nHost: other-tenant.example\r\n\r\n", 1,
                 "GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n"},
                {"GET http://Allowed.TEST.:8080/a?b HTTP/1.1\r\nHost: x\r\nhost: y\r\nHOST: allowed.test:9\r\n"
                 "Accept: */*\r\n\r\n",
                 1, "GET /a?b HTTP/1.1\r\nHost: allowed.test:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"},
                {"GET http://[2001:DB8::1]:81 HTTP/1.0\n\n", 1,
                 "GET / HTTP/1.0\r\nHost: [2001:db8::1]:81\r\nConnection: close\r\n\r\n"},
                {"GET http://a.test/ HTTP/1.1\r\nProxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\n"
                 "Connection: keep-alive, X-Secret\r\nX-Secret: 1\r\nKeep-Alive: 5\r\nTE: trailers\r\nUpgrade: h2c\r\n"
                 "X-Kept: 2\r\n\r\n",
                 1, "GET / HTTP/1.1\r\nHost: a.test\r\nX-Kept: 2\r\nConnection: close\r\n\r\n"},
                {"POST http://a.test/ HTTP/1.1\r\ncontent-length: 0005\r\n\r\n", 1,
                 "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"},
                {"POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding:  Chunked \r\n\r\n", 1,
                 "POST / HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"},
                {"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", -400, NULL},
                {"GET * HTTP/1.1\r\nHost: allowed.test\r\n\r\n", -400, NULL},
                {"GET http://user@a.test/ HTTP/1.1\r\n\r\n", -400, NULL},
                {"GET https://a.test/ HTTP/1.1\r\n\r\n", -501, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nContent-Length: +5\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                 -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n", -400, NULL},
                {"POST http://a.test/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", -400, NULL},
                {"GET http://a.test/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", -400, NULL},
                {"GET http://a.test/ HTTP/1.1\r\nX: a\rHost: other\r\n\r\n", -400, NULL},
                {"GET http://a.test/ HTTP/1.1\r\nX: a\x01\r\n\r\n", -400, NULL},
                {"GET http://a.test/ HTTP/1.1\r\nX: a\x7f\r\n\r\n", -400, NULL},
                {"GET http://a.test/ HTTP/1.1\r\nHost : other\r\n\r\n", -400, NULL},
                {"GET http://a.test/ HTTP/1.1\r\nConnection: a b\r\n\r\n", -400, NULL},
                {"GET http://a.test/ HTTP/1.1\r\nX: caf\xc3\xa9\r\n\r\n", 1,
                 "GET / HTTP/1.1\r\nHost: a.test\r\nX: caf\xc3\xa9\r\nConnection: close\r\n\r\n"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                http_request req;
                char out[HTTP_OUT_MAX];
                size_t out_len = 0;
                int r = http_parse_head(T[i].in, strlen(T[i].in), &req, out, sizeof(out), &out_len);
                if (r != T[i].r)
                        printf("# %zu: %s\n", i, T[i].in);
                CHECK_INTEQ(r, T[i].r);
                if (r == 1 && T[i].out) {
                        out[out_len] = '\0';
                        CHECK_STREQ(out, T[i].out);
                }
        }
        /* a NUL in a value (strlen would stop at it) */
        static const char NUL[] = "GET http://a.test/ HTTP/1.1\r\nX: a\0b\r\n\r\n";
        http_request req;
        char out[HTTP_OUT_MAX];
        size_t out_len = 0;
        CHECK_INTEQ(http_parse_head(NUL, sizeof(NUL) - 1, &req, out, sizeof(out), &out_len), -400);
        /* the body's framing */
        static const char CL[] = "POST http://a.test/ HTTP/1.1\r\nContent-Length: 7\r\n\r\n";
        CHECK_INTEQ(http_parse_head(CL, sizeof(CL) - 1, &req, out, sizeof(out), &out_len), 1);
        CHECK_INTEQ(req.body.state, BODY_LENGTH);
        CHECK_INTEQ(req.body.left, 7);
        static const char NONE[] = "GET http://a.test/ HTTP/1.1\r\n\r\nGET http://other.test/ HTTP/1.1\r\n\r\n";
        CHECK_INTEQ(http_parse_head(NONE, sizeof(NONE) - 1, &req, out, sizeof(out), &out_len), 1);
        CHECK_INTEQ(req.body.state, BODY_DONE);
        CHECK_INTEQ(req.head_len, 31);
}

/* Where a body ends: what follows it is another request, never part of
 * this one; invalid chunked framing is refused rather than guessed. */
static void test_http_body(void)
{
        static const struct {
                bool chunked;
                uint64_t length;
                const char *in;
                long r; /* bytes of the body, or -1 */
                bool done;
        } T[] = {
                {false, 5, "helloGET / HTTP/1.1\r\n", 5, true},
                {false, 5, "hel", 3, false},
                {true, 0, "5\r\nhello\r\n0\r\n\r\nGET /smuggled", 15, true},
                {true, 0, "5;ext=\"v\"\r\nhello\r\n0\r\nX-T: 1\r\n\r\nrest", 31, true},
                {true, 0, "A\r\n0123456789\r\n", 15, false},
                {true, 0, "5\nhello\r\n0\r\n\r\n", -1, false},
                {true, 0, "5\r\nhello\n0\r\n\r\n", -1, false},
                {true, 0, "5\r\nhelloXX0\r\n\r\n", -1, false},
                {true, 0, " 5\r\nhello\r\n", -1, false},
                {true, 0, "0x5\r\nhello\r\n", -1, false},
                {true, 0, "-1\r\n", -1, false},
                {true, 0, "1234567890123456\r\n", -1, false},
                {true, 0, "5;a\x01\r\n", -1, false},
                {true, 0, "0\r\nX: a\rb\r\n\r\n", -1, false},
                {true, 0, "0\r\nX: a\r\n b\r\n\r\n", -1, false},
                {true, 0, "0\r\n\n", -1, false},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                http_body b = T[i].chunked ? (http_body){.state = BODY_CHUNK_SIZE}
                                           : (http_body){.state = BODY_LENGTH, .left = T[i].length};
                long r = http_body_scan(&b, (const uint8_t *)T[i].in, strlen(T[i].in));
                if (r != T[i].r)
                        printf("# %zu: %s\n", i, T[i].in);
                CHECK_INTEQ(r, T[i].r);
                if (r >= 0)
                        CHECK_INTEQ(b.state == BODY_DONE, T[i].done);
        }
        /* byte by byte, the same as all at once */
        static const char BODY[] = "3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: x\r\n\r\nNEXT";
        http_body b = {.state = BODY_CHUNK_SIZE};
        size_t taken = 0;
        for (size_t i = 0; i < sizeof(BODY) - 1; i++)
                taken += (size_t)http_body_scan(&b, (const uint8_t *)BODY + i, 1);
        CHECK_INTEQ(taken, sizeof(BODY) - 1 - 4);
        CHECK_INTEQ(b.state, BODY_DONE);
}

/* Entries of /proc/self/DIR (threads, descriptors), without . and .. */
static int count_entries(const char *dir)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/%s", dir);
        DIR *d = opendir(path);
        int n = 0;
        for (struct dirent *e; d && (e = readdir(d));)
                n += e->d_name[0] != '.';
        if (d)
                closedir(d);
        return d ? n - (streq(dir, "fd") ? 1 : 0) : -1; /* not the directory's own */
}

/* The threads of this process once a thread joined just now is gone:
 * pthread_join returns when the kernel clears its tid, a little before
 * it drops the task from /proc/self/task (longer on a loaded machine).
 * Up to 2 s for the count to reach |want|; the last count. */
static int tasks_settled(int want)
{
        int n = count_entries("task");
        for (int i = 0; i < 2000 && n != want; i++) {
                usleep(1000);
                n = count_entries("task");
        }
        return n;
}

/* A TCP socket listening on 127.0.0.1, on a port the kernel picks. */
static int listen_loopback(uint16_t *ret_port)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(sa);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0 ||
            getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
                if (fd >= 0)
                        close(fd);
                return -1;
        }
        *ret_port = ntohs(sa.sin_port);
        return fd;
}

static int connect_loopback(uint16_t port)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct timeval tv = {5, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                close(fd);
                return -1;
        }
        return fd;
}

/* A tunnel through the proxy to |target|, its reply read (to its end,
 * not into what the upstream sends next). */
static int open_tunnel(uint16_t px_port, const char *target)
{
        static const char OK[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        int fd = connect_loopback(px_port);
        char req[128], reply[sizeof(OK)] = "";
        int n = snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\n\r\n", target);
        if (fd < 0 || write(fd, req, (size_t)n) != n || recv(fd, reply, sizeof(OK) - 1, MSG_WAITALL) <= 0 ||
            !streq(reply, OK))
                printf("# no tunnel to %s\n", target);
        return fd;
}

/* The proxy of a library caller: stopped, it leaves no thread and no
 * descriptor behind, and every connection it had is closed (a head half
 * sent, tunnels, one to a name that was resolved). The control: while it
 * runs, its thread and descriptors are there. */
/* Live grants: an entry added, one removed (given at start or granted),
 * each change recorded in order, and the errors: not an entry, removing
 * one the list does not hold, any change once the proxy stopped. */
static void test_live_grants(void)
{
        uint16_t port = 0;
        int lfd = listen_loopback(&port);
        CHECK(lfd >= 0);
        const char *allow[] = {"example.org", NULL};
        proxy *px = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(proxy_start(allow, NULL, 0, lfd, -1, NULL, NULL, &px, &err), 0);
        char *entry = NULL;
        CHECK_INTEQ(proxy_grant(px, "PyPI.org.", true, &entry, &err), 0);
        CHECK_STREQ(entry, "pypi.org");
        free(entry);
        CHECK_INTEQ(proxy_grant(px, "pypi.org", true, NULL, &err), 0); /* twice: once in the list */
        CHECK_INTEQ(proxy_grant(px, "example.org", false, NULL, &err), 0);
        CHECK_INTEQ(proxy_grant(px, "example.org", false, NULL, &err), -ENOENT);
        CHECK_STREQ(cordon_error_message(err), "network allowlist: example.org is not in it");
        err = cordon_error_free(err);
        CHECK_INTEQ(proxy_grant(px, "bad host", true, NULL, &err), -EINVAL);
        CHECK_STREQ(cordon_error_message(err), "network allowlist: bad host: not a valid host name, IP address or CIDR");
        err = cordon_error_free(err);
        json_t *g = proxy_grants_json(px);
        char *text = g ? json_dumps(g, JSON_COMPACT) : NULL;
        CHECK_STREQ(text, "[{\"op\":\"allow\",\"entry\":\"pypi.org\"},{\"op\":\"allow\",\"entry\":\"pypi.org\"},"
                          "{\"op\":\"remove\",\"entry\":\"example.org\"}]");
        free(text);
        json_decref(g);
        proxy_stop(px);
        CHECK_INTEQ(proxy_grant(px, "other.org", true, NULL, &err), -ESRCH);
        err = cordon_error_free(err);
        proxy_free(px);
}

static void test_proxy_stops_clean(void)
{
        int tasks = count_entries("task"), fds = count_entries("fd");
        uint16_t up_port = 0, px_port = 0;
        int up = listen_loopback(&up_port), lfd = listen_loopback(&px_port);
        CHECK(up >= 0 && lfd >= 0);
        char ip_entry[32], ip6_entry[32], name_entry[32];
        snprintf(ip_entry, sizeof(ip_entry), "127.0.0.1:%u", up_port);
        snprintf(ip6_entry, sizeof(ip6_entry), "[::1]:%u", up_port); /* localhost may name it too */
        snprintf(name_entry, sizeof(name_entry), "localhost:%u", up_port);
        const char *allow[] = {ip_entry, ip6_entry, name_entry, NULL};
        proxy *px = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(proxy_start(allow, NULL, 0, lfd, -1, NULL, NULL, &px, &err), 0);
        int clients[4] = {connect_loopback(px_port), open_tunnel(px_port, ip_entry), open_tunnel(px_port, ip_entry),
                          open_tunnel(px_port, name_entry)};
        CHECK(clients[0] >= 0 && write(clients[0], "GET http://", 11) == 11);
        int upstreams[3];
        for (int i = 0; i < 3; i++)
                upstreams[i] = accept4(up, NULL, NULL, SOCK_CLOEXEC);
        CHECK(write(clients[1], "ping", 4) == 4);
        char b[8] = "";
        CHECK(recv(upstreams[0], b, sizeof(b), 0) == 4 || recv(upstreams[1], b, sizeof(b), 0) == 4);
        CHECK(count_entries("task") >= tasks + 1); /* control: the proxy's thread (and a resolver ending) */
        CHECK(count_entries("fd") >= fds + 2 + 4 + 3 + 8); /* control: its sockets and pipes */
        px = proxy_free(px);
        for (int i = 0; i < 4; i++) {
                CHECK(clients[i] >= 0 && recv(clients[i], b, sizeof(b), 0) == 0); /* closed by the proxy */
                if (clients[i] >= 0)
                        close(clients[i]);
        }
        for (int i = 0; i < 3; i++)
                if (upstreams[i] >= 0)
                        close(upstreams[i]);
        close(up);
        CHECK_INTEQ(tasks_settled(tasks), tasks);
        CHECK_INTEQ(count_entries("fd"), fds);
        cordon_error_free(err);
}

#define BULK_TUNNELS 20
#define BULK_BYTES ((size_t)2 * 1024 * 1024)

static uint8_t bulk_byte(size_t j, int k) { return (uint8_t)(j * 7 + (size_t)k); }

/* The upstream of test_bulk_tunnels, a child process: BULK_BYTES to each
 * connection in the order they come, then it waits for each to end. */
static void bulk_upstream(int up)
{
        int conns[BULK_TUNNELS];
        static uint8_t b[65536];
        for (int k = 0; k < BULK_TUNNELS; k++) {
                conns[k] = accept(up, NULL, NULL);
                for (size_t j = 0; conns[k] >= 0 && j < BULK_BYTES;) {
                        size_t n = BULK_BYTES - j < sizeof(b) ? BULK_BYTES - j : sizeof(b);
                        for (size_t i = 0; i < n; i++)
                                b[i] = bulk_byte(j + i, k);
                        ssize_t w = write(conns[k], b, n);
                        if (w <= 0)
                                _exit(1);
                        j += (size_t)w;
                }
        }
        for (int k = 0; k < BULK_TUNNELS; k++)
                while (conns[k] >= 0 && read(conns[k], b, sizeof(b)) > 0) {
                }
        _exit(0);
}

/* Whether tunnel |fd| delivers BULK_BYTES of tunnel |k|'s bytes, whole
 * and in order. */
static bool bulk_arrives(int fd, int k)
{
        static uint8_t b[65536];
        size_t got = 0;
        bool same = true;
        for (ssize_t n; got < BULK_BYTES && (n = recv(fd, b, sizeof(b), 0)) > 0; got += (size_t)n)
                for (ssize_t i = 0; i < n; i++)
                        same &= b[i] == bulk_byte(got + (size_t)i, k);
        if (!same || got != BULK_BYTES)
                printf("# tunnel %d: %zu bytes%s\n", k, got, same ? "" : ", not the same");
        return same && got == BULK_BYTES;
}

/* Descriptors of this process that are pipes of |size| bytes. */
static int pipe_ends_of(int size)
{
        int n = 0;
        for (int fd = 0; fd < 4096; fd++)
                n += fcntl(fd, F_GETPIPE_SZ) == size;
        return n;
}

/* Bulk tunnels, one after the other, all kept open: each one's bytes
 * arrive whole and in order; a bulk tunnel's pipe grows (the control), but
 * never more than 16 of them (they count against the user's pipe quota,
 * which the command's own pipes share). */
static void test_bulk_tunnels(void)
{
        uint16_t up_port = 0, px_port = 0;
        int up = listen_loopback(&up_port), lfd = listen_loopback(&px_port);
        CHECK(up >= 0 && lfd >= 0);
        pid_t child = fork();
        if (child == 0)
                bulk_upstream(up);
        char entry[32];
        snprintf(entry, sizeof(entry), "127.0.0.1:%u", up_port);
        const char *allow[] = {entry, NULL};
        proxy *px = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(proxy_start(allow, NULL, 0, lfd, -1, NULL, NULL, &px, &err), 0);
        int clients[BULK_TUNNELS], whole = 0;
        for (int k = 0; k < BULK_TUNNELS; k++) {
                clients[k] = open_tunnel(px_port, entry);
                whole += clients[k] >= 0 && bulk_arrives(clients[k], k);
        }
        CHECK_INTEQ(whole, BULK_TUNNELS);
#ifdef F_GETPIPE_SZ
        int grown = pipe_ends_of(1024 * 1024) / 2;
        printf("# %d pipes grew\n", grown);
        CHECK(grown >= 1 || !CORDON_LINUX_BACKEND); /* control: without splice, no pipes */
        CHECK(grown <= 16);
#endif
        px = proxy_free(px);
        for (int k = 0; k < BULK_TUNNELS; k++)
                if (clients[k] >= 0)
                        close(clients[k]);
        int status = -1;
        CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(up);
        cordon_error_free(err);
}

/* The command inside: a tunnel through the proxy (where HTTP_PROXY names
 * it: 3128 in a namespace of its own, else a port chosen at start) to the
 * caller's port, a head half sent on a second connection; it waits for
 * its stdin to end. */
static const char TUNNEL_PY[] =
        "import os, socket, sys\n"
        "px = ('127.0.0.1', int(os.environ['HTTP_PROXY'].rsplit(':', 1)[1]))\n"
        "t = socket.create_connection(px, 5)\n"
        "t.sendall(b'CONNECT 127.0.0.1:' + sys.argv[1].encode() + b' HTTP/1.1\\r\\n\\r\\n')\n"
        "print(t.recv(100).split(b'\\r\\n')[0].decode(), flush=True)\n"
        "h = socket.create_connection(px, 5); h.sendall(b'GET http://')\n"
        "sys.stdin.read()\n";

/* A library caller's sandbox with --allow-net: once it has ended and is
 * freed, no thread and no descriptor of the proxy is left in the caller
 * (the linux backend, or the seatbelt backend in a build without it).
 * The control: while the command holds its connections, they are there. */
static void test_library_caller_keeps_nothing(void)
{
        char home[] = "/tmp/cordon-net.XXXXXX";
        CHECK(mkdtemp(home) != NULL);
        int tasks = count_entries("task"), fds = count_entries("fd");
        uint16_t up_port = 0;
        int up = listen_loopback(&up_port), in[2] = {-1, -1}, out[2] = {-1, -1};
        CHECK(up >= 0 && pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
        char entry[32], port[8];
        snprintf(entry, sizeof(entry), "127.0.0.1:%u", up_port);
        snprintf(port, sizeof(port), "%u", up_port);
        const char *argv[] = {"/usr/bin/python3", "-c", TUNNEL_PY, port, NULL};
        cordon_config *c = cordon_config_new();
        cordon_command *cmd = cordon_command_new(argv);
        cordon_plan *plan = NULL;
        cordon_process *p = NULL;
        CHECK(cordon_config_set_home(c, home, NULL) == 0 && cordon_config_add_network_allow(c, entry, NULL) == 0);
#if !CORDON_LINUX_BACKEND /* the seatbelt backend (its stand-in: make check-seatbelt): the proxy's poll(2) loop */
        CHECK(cordon_config_set_backend(c, "seatbelt", NULL) == 0);
#endif
        cordon_command_set_stdio(cmd, 0, in[0]);
        cordon_command_set_stdio(cmd, 1, out[1]);
        CHECK(cordon_prepare(c, cmd, &plan, NULL) == 0 && cordon_start(plan, &p, NULL) == 0);
        close(in[0]);
        close(out[1]);
        char line[64] = "";
        ssize_t n = read(out[0], line, sizeof(line) - 1);
        line[n > 0 ? n : 0] = '\0';
        CHECK_STREQ(line, "HTTP/1.1 200 Connection established\n");
        CHECK(count_entries("task") > tasks);     /* control: the proxy's thread */
        CHECK(count_entries("fd") >= fds + 3 + 5); /* control: its sockets */
        close(in[1]);
        cordon_result res = {0};
        CHECK(p && cordon_wait(p, 10000, &res, NULL) == 0 && res.status == 0);
        cordon_process_free(p);
        cordon_plan_free(plan);
        cordon_command_free(cmd);
        cordon_config_free(c);
        close(out[0]);
        close(up);
        CHECK_INTEQ(tasks_settled(tasks), tasks);
        CHECK_INTEQ(count_entries("fd"), fds);
        char rm[64];
        snprintf(rm, sizeof(rm), "rm -rf '%s'", home);
        CHECK(system(rm) == 0);
}

int main(void)
{
        RUN(test_entry_parse);
        RUN(test_special_addresses);
        RUN(test_policy_hosts);
        RUN(test_policy_addresses);
        RUN(test_policy_localhost);
        RUN(test_loopback_forwards);
        RUN(test_intercepted_ports);
        RUN(test_host_normalize);
        RUN(test_http_head);
        RUN(test_http_body);
        RUN(test_live_grants);
        RUN(test_proxy_stops_clean);
        RUN(test_bulk_tunnels);
        RUN(test_library_caller_keeps_nothing);
        return TAP_DONE();
}
