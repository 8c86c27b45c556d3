/* SPDX-License-Identifier: MIT */
/* Shared by the fuzz targets. Each target defines LLVMFuzzerTestOneInput;
 * with libFuzzer it is a fuzzer, with replay.c a regression test. */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A NUL-terminated copy of the input (caller frees). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
        char *s = malloc(size + 1);
        if (s) {
                memcpy(s, data, size);
                s[size] = '\0';
        }
        return s;
}

/* Invariant check: abort (a crash libFuzzer reports) when false. */
#define FUZZ_ASSERT(cond)                                                                             \
        do {                                                                                          \
                if (!(cond)) {                                                                        \
                        fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                                      \
                }                                                                                     \
        } while (0)
