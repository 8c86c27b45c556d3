/* SPDX-License-Identifier: MIT */
/* A tiny TAP producer for the unit tests. */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed_in_case, tap_any_failed;
static const char *tap_case;

#define CHECK(cond)                                                                          \
        do {                                                                                 \
                if (!(cond)) {                                                               \
                        printf("# %s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, tap_case, \
                               #cond);                                                       \
                        tap_failed_in_case = 1;                                              \
                }                                                                            \
        } while (0)

#define CHECK_STREQ(a, b)                                                                      \
        do {                                                                                   \
                const char *a_ = (a), *b_ = (b);                                               \
                if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                       \
                        printf("# %s:%d: %s: expected\n#   \"%s\"\n# got\n#   \"%s\"\n", __FILE__, \
                               __LINE__, tap_case, b_ ? b_ : "(null)", a_ ? a_ : "(null)");     \
                        tap_failed_in_case = 1;                                                \
                }                                                                              \
        } while (0)

#define CHECK_INTEQ(a, b)                                                                          \
        do {                                                                                       \
                long long a_ = (long long)(a), b_ = (long long)(b);                                \
                if (a_ != b_) {                                                                    \
                        printf("# %s:%d: %s: %s == %lld, expected %lld\n", __FILE__, __LINE__, tap_case, \
                               #a, a_, b_);                                                        \
                        tap_failed_in_case = 1;                                                    \
                }                                                                                  \
        } while (0)

static inline void tap_run(const char *name, void (*fn)(void))
{
        tap_case = name;
        tap_failed_in_case = 0;
        fflush(stdout);
        fn();
        printf("%sok %d - %s\n", tap_failed_in_case ? "not " : "", ++tap_n, name);
        fflush(stdout);
        tap_any_failed |= tap_failed_in_case;
}

static inline void tap_skip(const char *name, const char *why)
{
        printf("ok %d - %s # SKIP %s\n", ++tap_n, name, why);
}

/* A whole file as a string (caller frees), or NULL. */
static inline char *tap_read_file(const char *path)
{
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        size_t len = 0, cap = 4096;
        char *s = malloc(cap + 1);
        size_t n;
        while (s && (n = fread(s + len, 1, cap - len, f)) > 0) {
                len += n;
                if (len == cap) {
                        char *t = realloc(s, (cap *= 2) + 1);
                        if (!t) {
                                free(s);
                                s = NULL;
                        } else
                                s = t;
                }
        }
        fclose(f);
        if (s)
                s[len] = '\0';
        return s;
}

#define RUN(fn) tap_run(#fn, fn)
#define TAP_DONE() (printf("1..%d\n", tap_n), tap_any_failed)
