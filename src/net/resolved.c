/* SPDX-License-Identifier: MIT */
/* The pool: names by index (index i has address base + 1 + i), and an
 * open-addressing hash table of indices by name. Both grow by doubling up
 * to the pool's size, so a pool that is never used costs nothing.
 *
 * The hash is not keyed: names a client picks to collide make its lookups
 * linear in the number of names, bounded by |max| (the caller's choice). */
#include "net/resolved.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net/dns.h"

struct resolved {
        uint32_t base, hostmask; /* host byte order */
        size_t cap;              /* the addresses that may be given */
        size_t n, alloc;         /* names given, room in |names| */
        char **names;
        uint32_t *slots; /* index + 1, 0: empty; |nslots| a power of 2 > 2 |alloc| */
        size_t nslots;
};

resolved *resolved_new(uint32_t base_host_order, unsigned prefix, size_t max)
{
        if (prefix < 1 || prefix > 30 || max == 0) {
                errno = EINVAL;
                return NULL;
        }
        uint32_t hostmask = (uint32_t)((1ull << (32 - prefix)) - 1);
        if (base_host_order & hostmask) {
                errno = EINVAL;
                return NULL;
        }
        resolved *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->base = base_host_order;
        r->hostmask = hostmask;
        r->cap = (size_t)hostmask - 1 < max ? (size_t)hostmask - 1 : max;
        return r;
}

resolved *resolved_free(resolved *r)
{
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n; i++)
                free(r->names[i]);
        free(r->names);
        free(r->slots);
        free(r);
        return NULL;
}

static uint32_t hash(const char *s)
{
        uint32_t h = 2166136261u; /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (uint8_t)*s) * 16777619u;
        return h;
}

/* The slot that holds |name|, or the empty one where it would go. */
static size_t find_slot(const resolved *r, const char *name)
{
        size_t i = hash(name) & (r->nslots - 1);
        while (r->slots[i] && strcmp(r->names[r->slots[i] - 1], name) != 0)
                i = (i + 1) & (r->nslots - 1);
        return i;
}

/* Room for one more name (r->n < r->cap). */
static int grow(resolved *r)
{
        size_t alloc = r->alloc ? r->alloc * 2 : 16;
        if (alloc > r->cap)
                alloc = r->cap;
        size_t nslots = 64;
        while (nslots <= 2 * alloc)
                nslots *= 2;
        char **names = realloc(r->names, alloc * sizeof(*names));
        if (!names)
                return -ENOMEM;
        r->names = names;
        uint32_t *slots = calloc(nslots, sizeof(*slots));
        if (!slots)
                return -ENOMEM;
        free(r->slots);
        r->slots = slots;
        r->nslots = nslots;
        r->alloc = alloc;
        for (size_t i = 0; i < r->n; i++)
                r->slots[find_slot(r, r->names[i])] = (uint32_t)(i + 1);
        return 0;
}

static struct in_addr address_of(const resolved *r, size_t index)
{
        return (struct in_addr){.s_addr = htonl(r->base + 1 + (uint32_t)index)};
}

int resolved_address(resolved *r, const char *name, struct in_addr *out)
{
        if (!dns_name_valid(name))
                return -EINVAL;
        if (r->nslots) {
                size_t s = find_slot(r, name);
                if (r->slots[s]) {
                        *out = address_of(r, r->slots[s] - 1);
                        return 0;
                }
        }
        if (r->n == r->cap)
                return -ENOSPC;
        int e;
        if (r->n == r->alloc && (e = grow(r)) < 0)
                return e;
        char *copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        r->names[r->n] = copy;
        r->slots[find_slot(r, name)] = (uint32_t)(r->n + 1);
        *out = address_of(r, r->n++);
        return 0;
}

bool resolved_in_pool(const resolved *r, struct in_addr a)
{
        return (ntohl(a.s_addr) & ~r->hostmask) == r->base;
}

const char *resolved_name(const resolved *r, struct in_addr a)
{
        if (!resolved_in_pool(r, a))
                return NULL;
        uint32_t host = ntohl(a.s_addr) & r->hostmask;
        if (host == 0 || host > r->n)
                return NULL;
        return r->names[host - 1];
}
