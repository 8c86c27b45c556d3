/* SPDX-License-Identifier: MIT */
/* git_index_gitlinks on indexes built here byte by byte (the layout of
 * Documentation/gitformat-index.txt), and on broken and hostile ones. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gitindex.h"
#include "tap.h"

typedef struct index_buf {
        unsigned char b[4096];
        size_t n;
        unsigned version;
        char prev[256];
} index_buf;

static void put32(index_buf *x, uint32_t v)
{
        for (int i = 3; i >= 0; i--)
                x->b[x->n++] = (unsigned char)(v >> (8 * i));
}

static void header(index_buf *x, unsigned version, uint32_t count)
{
        memset(x, 0, sizeof(*x));
        memcpy(x->b, "DIRC", 4);
        x->n = 4;
        x->version = version;
        put32(x, version);
        put32(x, count);
}

/* One entry of |mode| at |path| (SHA-1 names), |extended| flags too. */
static void entry(index_buf *x, uint32_t mode, const char *path, bool extended)
{
        size_t start = x->n, len = strlen(path);
        x->n += 24; /* ctime mtime dev ino */
        put32(x, mode);
        x->n += 12 + 20; /* uid gid size, object name */
        unsigned flags = (unsigned)(len < 0xfff ? len : 0xfff) | (extended ? 0x4000 : 0);
        x->b[x->n++] = (unsigned char)(flags >> 8);
        x->b[x->n++] = (unsigned char)flags;
        if (extended)
                x->n += 2;
        if (x->version == 4) {
                size_t common = 0;
                while (x->prev[common] && x->prev[common] == path[common])
                        common++;
                x->b[x->n++] = (unsigned char)(strlen(x->prev) - common); /* < 128: one byte */
                memcpy(x->b + x->n, path + common, len - common + 1);
                x->n += len - common + 1;
        } else {
                memcpy(x->b + x->n, path, len + 1);
                x->n = start + ((x->n - start + len + 1 + 7) & ~(size_t)7);
        }
        snprintf(x->prev, sizeof(x->prev), "%s", path);
}

static char found[8][64];
static int n_found;
static void collect(const char *path, void *userdata)
{
        (void)userdata;
        if (n_found < 8)
                snprintf(found[n_found++], sizeof(found[0]), "%s", path);
}

static int links(const index_buf *x, size_t len, size_t max)
{
        n_found = 0;
        return git_index_gitlinks(x->b, len, 20, max, collect, NULL);
}

static void test_versions(void)
{
        for (unsigned v = 2; v <= 4; v++) {
                index_buf x;
                header(&x, v, 4);
                entry(&x, 0100644, "a.txt", false);
                entry(&x, 0160000, "lib/sub", v == 3);
                entry(&x, 0120000, "lib/link", false);
                entry(&x, 0160000, "lib/sub2", false);
                CHECK_INTEQ(links(&x, x.n, 16), 2);
                CHECK_STREQ(found[0], "lib/sub");
                CHECK_STREQ(found[1], "lib/sub2");
                CHECK_INTEQ(links(&x, x.n, 1), 1); /* bounded */
        }
}

static void test_broken(void)
{
        index_buf x;
        header(&x, 2, 2);
        entry(&x, 0160000, "sub", false);
        entry(&x, 0160000, "other", false);
        size_t whole = x.n;
        CHECK_INTEQ(links(&x, whole, 16), 2);
        for (size_t cut = 0; cut < whole; cut++) /* truncated anywhere: never a read past the end */
                CHECK(links(&x, cut, 16) < 2);
        CHECK_INTEQ(links(&x, 11, 16), -EINVAL);
        memcpy(x.b, "DIRX", 4);
        CHECK_INTEQ(links(&x, whole, 16), -EINVAL);
        header(&x, 5, 0);
        CHECK_INTEQ(links(&x, x.n, 16), -EINVAL);
        header(&x, 2, 1); /* extended flags in version 2 */
        entry(&x, 0160000, "sub", true);
        CHECK_INTEQ(links(&x, x.n, 16), -EINVAL);
        header(&x, 4, 2); /* version 4 dropping more than the previous path */
        entry(&x, 0160000, "ab", false);
        entry(&x, 0160000, "ac", false);
        x.b[x.n - 3] = 9;
        CHECK_INTEQ(links(&x, x.n, 16), -EINVAL);
        CHECK_STREQ(found[0], "ab");
        header(&x, 2, 0xffffffffu); /* a count the data does not hold */
        entry(&x, 0160000, "sub", false);
        CHECK_INTEQ(links(&x, x.n, 16), -EINVAL);
        CHECK_INTEQ(n_found, 1);
}

/* Indexes git 2.39 wrote (tests/data/gitindex: a, d/b, the gitlinks d/sub
 * and sub2; version 2, and the same converted to version 4). */
static void test_git_made(void)
{
        static const char *const FILES[] = {"v2-gitlinks", "v4-gitlinks"};
        for (size_t i = 0; i < ARRAY_SIZE(FILES); i++) {
                char path[512];
                snprintf(path, sizeof(path), "%s/gitindex/%s", TEST_DATA, FILES[i]);
                FILE *f = fopen(path, "rb");
                static unsigned char data[4096];
                size_t n = f ? fread(data, 1, sizeof(data), f) : 0;
                if (f)
                        fclose(f);
                n_found = 0;
                CHECK_INTEQ(git_index_gitlinks(data, n, 20, 16, collect, NULL), 2);
                CHECK_STREQ(found[0], "d/sub");
                CHECK_STREQ(found[1], "sub2");
        }
}

int main(void)
{
        RUN(test_versions);
        RUN(test_git_made);
        RUN(test_broken);
        return TAP_DONE();
}
