/* SPDX-License-Identifier: MIT */
/* The gitlinks of a git index the sandboxed command wrote: any bytes,
 * both object name lengths, never a read past the end (ASan) nor a path
 * that is not a NUL-terminated string of the index. */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "gitindex.h"

static void on_link(const char *path, void *userdata)
{
        size_t *n = userdata;
        FUZZ_ASSERT(path[0] != '\0' && strlen(path) <= 4096);
        (*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        for (size_t hash = 20; hash <= 32; hash += 12) {
                size_t n = 0;
                int r = git_index_gitlinks(data, size, hash, 64, on_link, &n);
                FUZZ_ASSERT(r < 0 || (size_t)r == n);
                FUZZ_ASSERT(n <= 64);
        }
        return 0;
}
