/* SPDX-License-Identifier: MIT */
/* Path normalisation and comparison, size and time parsing. */
#include <stdio.h>

#include "fuzz.h"
#include "util.h"

static void check_normal(const char *p)
{
        FUZZ_ASSERT(p[0] == '/');
        FUZZ_ASSERT(strstr(p, "//") == NULL);
        FUZZ_ASSERT(strcmp(p, "/") == 0 || p[strlen(p) - 1] != '/');
        FUZZ_ASSERT(strstr(p, "/./") == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *s = fuzz_string(data, size);
        if (!s)
                return 0;
        for (int dotdot = 0; dotdot < 2; dotdot++) {
                char *n = NULL, *n2 = NULL;
                if (path_normalize(s, dotdot, &n) == 0) {
                        check_normal(n);
                        FUZZ_ASSERT(dotdot || strstr(n, "/../") == NULL);
                        /* idempotent */
                        FUZZ_ASSERT(path_normalize(n, dotdot, &n2) == 0 && strcmp(n, n2) == 0);
                        FUZZ_ASSERT(path_startswith(n, "/") && path_startswith(n, n));
                        FUZZ_ASSERT(path_compare(n, n) == 0);
                        char *d = path_dirname(n), *j = path_join(n, "x");
                        FUZZ_ASSERT(d && path_startswith(n, d));
                        FUZZ_ASSERT(j && path_startswith(j, n) && path_compare(n, j) < 0);
                        free(d);
                        free(j);
                }
                free(n);
                free(n2);
        }
        uint64_t v;
        double d;
        if (parse_size(s, &v) == 0) {
                char out[32];
                format_size(v, out);
                uint64_t back = 0;
                FUZZ_ASSERT(parse_size(out, &back) == 0 && back == v);
        }
        if (parse_seconds(s, &d) == 0)
                FUZZ_ASSERT(d >= 0);
        free(s);
        return 0;
}
