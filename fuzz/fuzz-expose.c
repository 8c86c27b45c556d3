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
                        /* absolute, or "~/..." / "$NAME/..." expanded by the plan */
                        const char *t = c->expose[0].target;
                        FUZZ_ASSERT((t[0] == '/' || t[0] == '~' || t[0] == '$') && strcmp(t, "/") != 0);
                }
                cordon_error_free(err);
        }
        cordon_config_free(c);
        free(spec);
        return 0;
}
