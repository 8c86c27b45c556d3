/* SPDX-License-Identifier: MIT */
/* Config parsing, validation and layering: the input is up to three JSON
 * layers separated by a line "---". */
#include <stdio.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_string(data, size);
        cordon_config *c = cordon_config_new();
        if (!text || !c)
                goto out;
        char *layer = text;
        for (int i = 0; i < 3 && layer; i++) {
                char *sep = strstr(layer, "\n---\n");
                if (sep)
                        *sep = '\0';
                cordon_error *err = NULL;
                char name[16];
                snprintf(name, sizeof(name), "layer%d.json", i);
                int r = cordon_config_load_string(c, layer, name, &err);
                /* a failure always comes with a message naming the layer */
                FUZZ_ASSERT(r == 0 || (err && strstr(cordon_error_message(err), name)) || r == -ENOMEM);
                FUZZ_ASSERT(r < 0 || !err);
                cordon_error_free(err);
                layer = sep ? sep + 5 : NULL;
        }
        /* what validated holds the documented invariants */
        for (size_t i = 0; i < c->n_expose; i++) {
                /* absolute, "~/" (the caller's home), a whole "$NAME" (an agent's socket) and,
                 * in a target, "$NAME/" (profiles) */
                const char *src = c->expose[i].source, *tg = c->expose[i].target;
                FUZZ_ASSERT(src[0] == '/' || strncmp(src, "~/", 2) == 0 || whole_variable(src));
                FUZZ_ASSERT(tg[0] == '/' || strncmp(tg, "~/", 2) == 0 || tg[0] == '$');
                FUZZ_ASSERT(strcmp(c->expose[i].target, "/") != 0);
                FUZZ_ASSERT(strstr(c->expose[i].target, "/../") == NULL);
                for (size_t k = i + 1; k < c->n_expose; k++)
                        FUZZ_ASSERT(strcmp(c->expose[i].target, c->expose[k].target) != 0);
        }
        FUZZ_ASSERT(c->network >= CORDON_NETWORK_NONE && c->network <= CORDON_NETWORK_PROXY);
        for (int i = 0; i < CORDON_LIMIT__MAX; i++)
                FUZZ_ASSERT(c->limits[i] >= 0);
out:
        cordon_config_free(c);
        free(text);
        return 0;
}
