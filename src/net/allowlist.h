/* SPDX-License-Identifier: MIT */
/* The network allowlist: entries (HOST[:PORT]) parsed and matched, and the
 * addresses a name may not resolve to. Pure: no system calls. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util.h"

#define NET_HOST_MAX 253

typedef enum net_kind {
        NET_NAME,     /* registry.example.org */
        NET_WILDCARD, /* *.example.org: its subdomains, not itself */
        NET_CIDR,     /* 192.0.2.7, 10.0.0.0/8, 2001:db8::/32 (an IP literal is a /32 or /128) */
} net_kind;

/* An address in one form for both families: IPv4 as ::ffff:a.b.c.d. */
typedef struct net_addr {
        uint8_t b[16];
} net_addr;

typedef struct net_entry {
        net_kind kind;
        char name[NET_HOST_MAX + 1]; /* lower case, no trailing dot, without the "*." */
        net_addr addr;               /* NET_CIDR */
        unsigned prefix;             /* NET_CIDR, of the 128 bits */
        uint16_t port;               /* 0: 80 and 443 */
} net_entry;

/* Parse one entry ("HOST", "HOST:PORT", "*.HOST", "10.0.0.0/8:5432",
 * "[2001:db8::1]:443", a bare IPv6 literal or CIDR). Returns 0, or -EINVAL
 * with a static reason in |*ret_why|. */
int net_entry_parse(const char *spec, net_entry *ret, const char **ret_why) HIDDEN;
/* The entry in its canonical form ("*.example.org:443"). Caller frees. */
char *net_entry_format(const net_entry *e) HIDDEN;

/* Parse an IP literal (IPv4, IPv6 without brackets). */
bool net_addr_parse(const char *s, net_addr *ret) HIDDEN;
void net_addr_from_sockaddr(const struct sockaddr *sa, net_addr *ret) HIDDEN;
/* Is |a| an IPv4 address (mapped)? Then its four bytes into |out|. */
bool net_addr_v4(const net_addr *a, struct in_addr *out) HIDDEN;
/* Text of |a| (IPv4 dotted for mapped addresses) into |out|. */
void net_addr_format(const net_addr *a, char out[INET6_ADDRSTRLEN]) HIDDEN;
/* What kind of special address |a| is ("loopback", "private", ...), or NULL
 * for a public one. */
const char *net_addr_special(const net_addr *a) HIDDEN;

/* Is |host| (normalised) the loopback name "localhost"? An entry
 * "localhost[:PORT]" means the host's 127.0.0.1 and ::1 on those ports,
 * whatever a resolver says (the proxy never resolves it). */
bool net_is_localhost(const char *host) HIDDEN;
/* The address of an entry that allows |a| on |port| (written into |out|,
 * as --allow-net takes it: "10.0.0.7:5432", "[::1]:8080"). */
void net_addr_entry(const net_addr *a, uint16_t port, char *out, size_t n) HIDDEN;

/* A host loopback service the allowlist names: a single loopback address
 * (127.x.y.z, ::1) or "localhost", each port it allows. The linux backend
 * listens on |addr|:|port| of the sandbox's own lo and hands each
 * connection to the proxy, which connects to |host| (the address as text,
 * or "localhost": 127.0.0.1, then ::1) on the host, policy checked again:
 * a client that skips the proxy (NO_PROXY) reaches exactly the listed
 * services. */
typedef struct net_forward {
        net_addr addr;
        uint16_t port;
        char host[INET6_ADDRSTRLEN];
} net_forward;
#define NET_FORWARDS_MAX 32
/* The forwards of |allow| (canonical entries), each address and port
 * once, into |out| (|max| of them). Returns how many there are, which may
 * be more than |max| (then only |max| were written). */
size_t net_loopback_forwards(const char *const *allow, net_forward *out, size_t max) HIDDEN;

/* Normalise a requested host in place (lower case, no trailing dot, IPv6
 * brackets removed). False when it is no valid name nor IP literal. */
bool net_host_normalize(char *host) HIDDEN;

typedef struct net_policy {
        net_entry *e;
        size_t n;
        net_addr *own; /* the host's own addresses, refused for names */
        size_t n_own;
} net_policy;

/* Can (|host|, |port|) be requested at all? NULL when yes (a name must then
 * pass net_policy_check_addr for every address it resolves to), else the
 * reason (written into |why|, size |n|). |host| is normalised. Sets
 * |*is_ip| when |host| is an IP literal (allowed only by an IP/CIDR entry). */
const char *net_policy_check_host(const net_policy *p, const char *host, uint16_t port, bool *is_ip,
                                  char *why, size_t n) HIDDEN;
/* May a name connect to |a| on |port|? NULL, or the reason in |why|. */
const char *net_policy_check_addr(const net_policy *p, const net_addr *a, uint16_t port, char *why,
                                  size_t n) HIDDEN;

/* Does an entry name |host| (normalised), on any port? The sandbox's
 * resolver answers such a name (an address of its own), and no other. */
bool net_policy_has_name(const net_policy *p, const char *host) HIDDEN;
/* Does an entry name |host| itself, not by a wildcard? */
bool net_policy_names_exactly(const net_policy *p, const char *host) HIDDEN;

/* The TCP ports the linux backend intercepts (a listener on every address
 * of the sandbox's own network): 80, 443 and each port of an entry of
 * |allow| that is not a loopback service, never |proxy_port|; each once,
 * into |out| (|max| of them). Returns how many there are (may be more than
 * |max|: then only |max| were written). */
#define NET_INTERCEPTED_MAX 64
/* The addresses the linux backend routes to the sandbox's lo (then its
 * intercepted ports take them): each IP or CIDR entry of |allow| but
 * loopback ones, once (|prefix| of the 128 bits, IPv4 mapped), into |out|
 * (|max|); how many there are. Its resolver's addresses are routed too. */
typedef struct net_route {
        bool v4;         /* then the address is b[12..16), |prefix| of 32 bits */
        uint8_t b[16];   /* the network's address, the host bits 0 */
        unsigned prefix; /* of the family's bits */
} net_route;
#define NET_ROUTES_MAX 64
size_t net_intercepted_routes(const char *const *allow, net_route *out, size_t max) HIDDEN;
size_t net_intercepted_ports(const char *const *allow, uint16_t proxy_port, uint16_t *out, size_t max) HIDDEN;
