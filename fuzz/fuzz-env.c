/* SPDX-License-Identifier: MIT */
/* The environment policy: the first line is a shell_environment_policy
 * JSON object, the rest the parent environment (one NAME=VALUE a line). */
#include <fnmatch.h>
#include <stdio.h>
#include <strings.h>

#include "env.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_string(data, size);
        cordon_config *c = cordon_config_new();
        char **base = NULL, **env = NULL;
        if (!text || !c)
                goto out;
        char *nl = strchr(text, '\n');
        if (nl)
                *nl = '\0';
        char *json = NULL;
        if (asprintf(&json, "{\"shell_environment_policy\": %s}", text) < 0)
                goto out;
        cordon_config_load_string(c, json, "fuzz", NULL);
        free(json);
        for (char *line = nl ? nl + 1 : NULL, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (strv_push(&base, line) < 0)
                        goto out;
        }
        env_input in = {.base = (const char *const *)base, .instance_root = "/i", .backend = "linux"};
        if (env_build(c, &in, &env) < 0)
                goto out;
        for (size_t i = 0; env[i]; i++) {
                const char *eq = strchr(env[i], '=');
                FUZZ_ASSERT(eq && eq != env[i]);
                char name[256];
                size_t len = (size_t)(eq - env[i]);
                if (len >= sizeof(name))
                        continue;
                memcpy(name, env[i], len);
                name[len] = '\0';
                /* sorted by name, each name once */
                if (env[i + 1])
                        FUZZ_ASSERT(strncmp(env[i], env[i + 1], len) != 0 || env[i + 1][len] != '=');
                bool from_set = false;
                for (size_t k = 0; k < c->n_set; k++)
                        from_set = from_set || strcmp(c->set[k].name, name) == 0;
                bool marker = !strncmp(name, "CORDON_SANDBOX", 14) || !strcmp(name, "HOME") ||
                              !strcmp(name, "TMPDIR") || !strncmp(name, "XDG_", 4);
                if (!c->ignore_default_excludes && !from_set && !marker)
                        FUZZ_ASSERT(!strcasestr(name, "KEY") && !strcasestr(name, "SECRET") &&
                                    !strcasestr(name, "TOKEN"));
                bool kept = !c->include_only || !c->include_only[0] || marker;
                for (size_t k = 0; !kept && c->include_only[k]; k++)
                        kept = fnmatch(c->include_only[k], name, FNM_CASEFOLD) == 0;
                FUZZ_ASSERT(kept);
        }
        FUZZ_ASSERT(env_get(env, "CORDON_SANDBOX") && !strcmp(env_get(env, "CORDON_SANDBOX"), "linux"));
out:
        strv_free(env);
        strv_free(base);
        cordon_config_free(c);
        free(text);
        return 0;
}
