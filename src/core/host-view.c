/* SPDX-License-Identifier: MIT */
/* Reading the host filesystem through the injectable host root, for the
 * planner: lstat and readlink (cached while one plan is built), symlink
 * resolution that never follows a link inside a writable mount. Changes
 * nothing. */
#include "plan-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *host_path(const host_info *h, const char *path) { return strjoin2(h->root, path); }

/* host_path into |out| (PATH_MAX bytes), without an allocation: false
 * when it would not fit. */
static bool host_path_in(const host_info *h, const char *path, char out[PATH_MAX])
{
        int n = snprintf(out, PATH_MAX, "%s%s", h->root, path);
        return n >= 0 && n < PATH_MAX;
}

/* lstat() results while one plan is built: the same paths are looked at
 * again and again (resolving, checking visibility, mount points), and on
 * some virtual machines each system call costs microseconds. The entries
 * in one array, found through a hash table of their indices (open
 * addressing, at most half full; 4 bytes a slot, so that a large table
 * touches few pages): the repository search looks at thousands of paths
 * in a large workspace, and a list searched from the start made planning
 * quadratic in them. */
typedef struct stat_entry {
        char *path;
        struct stat st;
        int err;
} stat_entry;


void stat_cache_clear(struct stat_cache *c)
{
        for (size_t i = 0; i < c->n; i++)
                free(c->e[i].path);
        free(c->e);
        free(c->slots);
        *c = (struct stat_cache){0};
}

static size_t path_hash(const char *path)
{
        uint64_t h = 14695981039346656037ULL; /* FNV-1a */
        for (const unsigned char *p = (const unsigned char *)path; *p; p++)
                h = (h ^ *p) * 1099511628211ULL;
        return (size_t)h;
}

/* The slot of |path|: the one holding it, or the free one where it would
 * go. */
static uint32_t *stat_cache_slot(const struct stat_cache *c, const char *path)
{
        size_t i = path_hash(path) & (c->n_slots - 1);
        while (c->slots[i] && !streq(c->e[c->slots[i] - 1].path, path))
                i = (i + 1) & (c->n_slots - 1);
        return &c->slots[i];
}

static const stat_entry *stat_cache_find(const struct stat_cache *c, const char *path)
{
        if (!c || c->n_slots == 0)
                return NULL;
        uint32_t i = *stat_cache_slot(c, path);
        return i ? &c->e[i - 1] : NULL;
}

static bool stat_cache_rehash(struct stat_cache *c)
{
        size_t n_slots = c->n_slots ? c->n_slots * 2 : 256;
        uint32_t *slots = calloc(n_slots, sizeof(*slots));
        if (!slots || n_slots > UINT32_MAX) {
                free(slots);
                return false;
        }
        free(c->slots);
        c->slots = slots;
        c->n_slots = n_slots;
        for (size_t i = 0; c->e && i < c->n; i++)
                *stat_cache_slot(c, c->e[i].path) = (uint32_t)(i + 1);
        return true;
}

static void stat_cache_put(struct stat_cache *c, const char *path, const struct stat *st, int err)
{
        if ((c->n + 1) * 2 > c->n_slots && !stat_cache_rehash(c))
                return; /* uncached is fine */
        if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 64;
                stat_entry *e = realloc(c->e, cap * sizeof(*e));
                if (!e)
                        return;
                memset(e + c->cap, 0, (cap - c->cap) * sizeof(*e));
                c->e = e;
                c->cap = cap;
        }
        uint32_t *slot = stat_cache_slot(c, path);
        stat_entry *entry = c->e ? &c->e[c->n] : NULL;
        if (!entry || *slot || !(entry->path = strdup(path)))
                return;
        entry->st = *st;
        entry->err = err;
        *slot = (uint32_t)++c->n;
}

int host_lstat(const host_info *h, const char *path, struct stat *st)
{
        const stat_entry *hit = stat_cache_find(h->cache, path);
        if (hit) {
                *st = hit->st;
                return hit->err;
        }
        char hp[PATH_MAX];
        if (!host_path_in(h, path, hp))
                return -ENAMETOOLONG;
        int r = lstat(hp, st) < 0 ? -errno : 0;
        if (h->cache)
                stat_cache_put(h->cache, path, st, r);
        return r;
}

char *host_readlink(const host_info *h, const char *path)
{
        char hp[PATH_MAX], target[PATH_MAX];
        if (!host_path_in(h, path, hp)) {
                errno = ENAMETOOLONG;
                return NULL;
        }
        ssize_t n = readlink(hp, target, sizeof(target) - 1);
        if (n < 0)
                return NULL;
        target[n] = '\0';
        return strdup(target);
}


/* The writable root at or above |path|, or NULL. */
const char *writable_root_of(const host_info *h, const char *path)
{
        for (size_t i = 0; h->writable && h->writable->roots && h->writable->roots[i]; i++)
                if (path_startswith(path, h->writable->roots[i]))
                        return h->writable->roots[i];
        return NULL;
}

/* A symlink at |link| inside a writable root: remember it, refuse. */
int refuse_link(const host_info *h, const char *link)
{
        free(h->writable->refused);
        h->writable->refused = strdup(link);
        return h->writable->refused ? -ELOOP : -ENOMEM;
}

/* Resolving a path one component at a time, each component looked at by
 * |step| (through the host root, or the sandbox's view). What is resolved
 * grows in one buffer: no allocation for a component but a symlink's. */
int walk_path(const char *path, walk_step step, void *ctx, char **ret)
{
        char done[PATH_MAX], todo[PATH_MAX];
        size_t dlen = 0;
        done[0] = '\0';
        size_t plen = strlen(path);
        if (plen >= sizeof(todo))
                return -ENAMETOOLONG;
        memcpy(todo, path, plen + 1);
        int links = 0;
        const char *rest = todo;
        for (;;) {
                while (*rest == '/')
                        rest++;
                if (!*rest)
                        break;
                const char *end = rest + strcspn(rest, "/");
                size_t len = (size_t)(end - rest);
                if ((len == 1 && rest[0] == '.') || (len == 2 && rest[0] == '.' && rest[1] == '.')) {
                        while (len == 2 && dlen > 0 && done[--dlen] != '/')
                                ;
                        done[dlen] = '\0';
                        rest = end;
                        continue;
                }
                size_t before = dlen, rest_len = strlen(rest);
                if (before + 1 + rest_len >= sizeof(done))
                        return -ENAMETOOLONG;
                done[before] = '/';
                memcpy(done + before + 1, rest, len);
                dlen = before + 1 + len;
                done[dlen] = '\0';
                char *link = NULL;
                int r = step(ctx, done, *end != '\0', &link);
                if (r == 1) { /* the rest as it is */
                        memcpy(done + before + 1, rest, rest_len + 1);
                        dlen = before + 1 + rest_len;
                        break;
                }
                if (r < 0)
                        return r;
                if (!link) {
                        rest = end;
                        continue;
                }
                dlen = link[0] == '/' ? 0 : before;
                done[dlen] = '\0';
                char next[PATH_MAX];
                int n = ++links > MAX_SYMLINKS ? -1 : snprintf(next, sizeof(next), "%s/%s", link, end);
                free(link);
                if (n < 0 || n >= (int)sizeof(next))
                        return links > MAX_SYMLINKS ? -ELOOP : -ENAMETOOLONG;
                memcpy(todo, next, (size_t)n + 1);
                rest = todo;
        }
        *ret = strdup(dlen ? done : "/");
        return *ret ? 0 : -ENOMEM;
}

typedef struct host_walk {
        const host_info *h;
        bool allow_missing;
} host_walk;

static int host_step(void *ctx, const char *cand, bool more, char **ret_link)
{
        const host_walk *w = ctx;
        struct stat st;
        (void)more;
        int r = host_lstat(w->h, cand, &st);
        if (r == -ENOENT && w->allow_missing)
                return 1;
        if (r < 0 || !S_ISLNK(st.st_mode))
                return r;
        if (writable_root_of(w->h, cand))
                return refuse_link(w->h, cand);
        *ret_link = host_readlink(w->h, cand);
        return *ret_link ? 0 : (-errno ? -errno : -ENOMEM);
}

/* Canonical form of |path| on the host: every symlink resolved, relative to
 * the host root, except that a symlink inside a writable root fails with
 * -ELOOP (h->writable->refused names it). With |allow_missing|, a missing
 * tail is appended as is. */
int host_resolve(const host_info *h, const char *path, bool allow_missing, char **ret)
{
        _cleanup_free_ char *done = NULL;
        host_walk w = {h, allow_missing};
        int r = walk_path(path, host_step, &w, &done);
        return r < 0 ? r : path_normalize(done, true, ret);
}

/* stat() through the host root: follows symlinks inside it. */
int host_stat(const host_info *h, const char *path, struct stat *st)
{
        _cleanup_free_ char *r = NULL;
        int e = host_resolve(h, path, false, &r);
        return e < 0 ? e : host_lstat(h, r, st);
}
