/* SPDX-License-Identifier: MIT */
/* --expose SRC[:TARGET][:ro|rw] parsing (sources that exist: / and /tmp). */
#include <stdio.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *spec = fuzz_string(data, size);
        cordon_config *c = cordon_config_new();
        if (spec && c) {
                cordon_error *err = NULL;
                int r = cordon_config_add_expose_spec(c, spec, &err);
                FUZZ_ASSERT((r == 0) == (err == NULL) || r == -ENOMEM);
                if (r == 0) {
                        FUZZ_ASSERT(c->n_expose == 1);
                        FUZZ_ASSERT(c->expose[0].target[0] == '/' && strcmp(c->expose[0].target, "/") != 0);
                }
                cordon_error_free(err);
        }
        cordon_config_free(c);
        free(spec);
        return 0;
}
