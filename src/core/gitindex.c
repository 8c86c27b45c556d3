/* SPDX-License-Identifier: MIT */
/* Git's index format: Documentation/gitformat-index.txt. A header "DIRC",
 * the version and the entry count (32-bit big-endian each), then the
 * entries, sorted by path: ctime, mtime (8 bytes each), dev, ino, mode,
 * uid, gid, size (4 each), the object name, 16 bits of flags (the low 12
 * the path's length, 0xfff for "longer"; 0x4000 "extended": 16 more bits,
 * version 3 and later), then the path: NUL-terminated and padded with NULs
 * to a multiple of 8 bytes (versions 2 and 3), or, in version 4, a varint
 * of how many bytes of the previous path to drop and the NUL-terminated
 * rest, unpadded. */
#include "gitindex.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GITLINK_MODE 0160000u
#define MODE_TYPE    0170000u
#define PATH_LIMIT   4096 /* longer paths: not an index we read */

static uint32_t be32(const unsigned char *p)
{
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Git's offset varint (varint.c); 0 when it does not fit in |end - *p|. */
static int read_varint(const unsigned char **p, const unsigned char *end, size_t *ret)
{
        const unsigned char *c = *p;
        if (c >= end)
                return 0;
        size_t v = *c & 0x7f;
        while (*c++ & 0x80) {
                if (c >= end || v > (SIZE_MAX >> 7) - 1)
                        return 0;
                v = ((v + 1) << 7) | (*c & 0x7f);
        }
        *p = c;
        *ret = v;
        return 1;
}

int git_index_gitlinks(const unsigned char *data, size_t len, size_t hash_len, size_t max,
                       void (*fn)(const char *path, void *userdata), void *userdata)
{
        if (len < 12 || memcmp(data, "DIRC", 4) != 0)
                return -EINVAL;
        uint32_t version = be32(data + 4), count = be32(data + 8);
        if (version < 2 || version > 4)
                return -EINVAL;
        const size_t fixed = 40 + hash_len + 2; /* up to and with the flags */
        const unsigned char *p = data + 12, *end = data + len;
        char path[PATH_LIMIT + 1];
        size_t path_len = 0;
        int calls = 0;
        for (uint32_t i = 0; i < count; i++) {
                if ((size_t)(end - p) < fixed)
                        return -EINVAL;
                const unsigned char *entry = p;
                uint32_t mode = be32(p + 24);
                unsigned flags = (unsigned)p[fixed - 2] << 8 | p[fixed - 1];
                p += fixed;
                if (flags & 0x4000) {
                        if (version < 3 || end - p < 2)
                                return -EINVAL;
                        p += 2;
                }
                size_t keep = 0;
                if (version == 4) {
                        size_t drop = 0;
                        if (!read_varint(&p, end, &drop) || drop > path_len)
                                return -EINVAL;
                        keep = path_len - drop;
                }
                const unsigned char *nul = memchr(p, '\0', (size_t)(end - p));
                if (!nul || keep + (size_t)(nul - p) > PATH_LIMIT)
                        return -EINVAL;
                memcpy(path + keep, p, (size_t)(nul - p));
                path_len = keep + (size_t)(nul - p);
                path[path_len] = '\0';
                p = nul + 1;
                if (version < 4) { /* padded: the entry's length is a multiple of 8 */
                        size_t used = (size_t)(p - entry), padded = (used + 7) & ~(size_t)7;
                        if (padded > (size_t)(end - entry))
                                return -EINVAL;
                        p = entry + padded;
                }
                if ((mode & MODE_TYPE) == GITLINK_MODE && path_len > 0) {
                        if ((size_t)calls >= max)
                                break;
                        fn(path, userdata);
                        calls++;
                }
        }
        return calls;
}
