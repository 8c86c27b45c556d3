/* SPDX-License-Identifier: MIT */
/* The fake addresses the sandbox-internal resolver answers with: each name
 * asked for gets its own address of a pool (198.18.0.0/15, RFC 2544's
 * benchmarking range, routed nowhere), so that a connection to it tells the
 * proxy which name the client meant. Pure: memory allocation only.
 *
 *   r = resolved_new(0xc6120000, 15, 4096);   198.18.0.0/15
 *   resolved_address(r, "example.org", &a);   its address, the same each time
 *   resolved_name(r, a)                       "example.org"
 *   resolved_free(r);
 *
 * Not thread-safe: one event loop (the proxy's) owns it. Addresses are
 * never given back: a name keeps its address for the pool's lifetime, and
 * when every address is taken new names get -ENOSPC. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define RESOLVED_BASE 0xc6120000u /* 198.18.0.0 */
#define RESOLVED_PREFIX 15

typedef struct resolved resolved;

/* A pool of the addresses of |base| (host byte order) / |prefix| but the
 * first and the last (the network and broadcast addresses), at most |max|
 * of them used. Returns NULL with errno EINVAL (|prefix| not 1..30,
 * |base| with host bits set, |max| 0) or ENOMEM. Free with resolved_free. */
resolved *resolved_new(uint32_t base_host_order, unsigned prefix, size_t max) HIDDEN;
/* Frees |r| and the names it holds (NULL is fine). Returns NULL. */
resolved *resolved_free(resolved *r) HIDDEN;

/* The address of |name| (a host name as dns_name_valid has it: lower case)
 * into |*out| (network byte order): the one it got before, else the next
 * free one. Copies |name|. Returns 0, -EINVAL for an invalid name, -ENOSPC
 * when the pool is full, -ENOMEM. |*out| is set only on success. */
int resolved_address(resolved *r, const char *name, struct in_addr *out) HIDDEN;

/* The name that got |a|, or NULL when none did. Owned by |r|. */
const char *resolved_name(const resolved *r, struct in_addr a) HIDDEN;

/* Is |a| in the pool's range (given to a name or not: the proxy refuses
 * connections to the ones no name has)? */
bool resolved_in_pool(const resolved *r, struct in_addr a) HIDDEN;
