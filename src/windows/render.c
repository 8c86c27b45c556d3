/* SPDX-License-Identifier: MIT */
/* The neutral plan -> the windows backend's rules, and what of the plan
 * Windows cannot enforce. Pure: `cordon plan --backend windows` shows it on
 * any host. */
#include <errno.h>
#include <string.h>

#include "windows/render.h"

/* The instance's directories the command writes (not logs/, cordon's
 * audit trail, nor skills/, read-only as everywhere). */
static const char *const INSTANCE_WRITABLE[] = {"runtime-user-env", "cache", "state", NULL};

static bool is_remap(const plan_mount *m)
{
        return m->type == MOUNT_BIND && m->source && !streq(m->source, m->target);
}

/* The plan's paths as the rules see them: system mounts are the planning
 * host's (Windows has its own system), the instance's root becomes its
 * writable subdirectories. */
static int collect(const cordon_plan *p, win_path **ret, size_t *ret_n, char ***storage)
{
        size_t cap = p->n_mounts + ARRAY_SIZE(INSTANCE_WRITABLE) + 2, n = 0;
        win_path *v = calloc(cap, sizeof(*v));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->type != MOUNT_BIND || m->origin == ORIGIN_SYSTEM || m->origin == ORIGIN_GENERATED ||
                    m->origin == ORIGIN_PROTECT)
                        continue;
                const char *origin = mount_origin_name(m->origin);
                if (m->origin == ORIGIN_INSTANCE && m->writable && p->instance_root &&
                    streq(m->source, p->instance_root)) {
                        for (size_t k = 0; INSTANCE_WRITABLE[k]; k++) {
                                char *d = win_path_join(p->instance_root, INSTANCE_WRITABLE[k]);
                                if (!d || strv_consume(storage, d) < 0) {
                                        free(v);
                                        return -ENOMEM;
                                }
                                v[n++] = (win_path){d, NULL, true, origin};
                        }
                        continue;
                }
                if (m->origin == ORIGIN_INSTANCE && !m->writable)
                        continue; /* skills/: read as the user's, like the rest */
                v[n++] = (win_path){m->source, is_remap(m) ? m->target : NULL, m->writable, origin};
        }
        /* the default workspace lies in the instance root, whose own grant
         * covers only its writable subdirectories */
        if (p->workspace)
                v[n++] = (win_path){p->workspace, NULL, true, "workspace"};
        *ret = v;
        *ret_n = n;
        return 0;
}

int win_plan_rules(const cordon_plan *p, win_rules *ret, char **ret_reason)
{
        _cleanup_strv_ char **storage = NULL;
        _cleanup_free_ win_path *paths = NULL;
        size_t n = 0;
        if (!p->instance_root)
                return -EINVAL;
        int r = collect(p, &paths, &n, &storage);
        if (r < 0)
                return r;
        /* the rules copy the paths they keep */
        return win_rules_build(p->instance_root, paths, n, ret, ret_reason);
}

char **win_plan_refusals(const cordon_plan *p)
{
        static const struct {
                cordon_limit limit;
                const char *flag;
        } NONE[] = {
                {CORDON_LIMIT_OPEN_FILES, "--nofile"},
                {CORDON_LIMIT_FILE_SIZE_BYTES, "--fsize"},
                {CORDON_LIMIT_TMP_SIZE_BYTES, "--tmp-size"},
                {CORDON_LIMIT_CPU_QUOTA, "--cpus"},
        };
        char **v = calloc(1, sizeof(*v));
        if (!v)
                return NULL;
        if (p->backend != BACKEND_NONE && p->network != CORDON_NETWORK_FULL &&
            strv_consume(&v, xasprintf("network \"%s\": confining one process's network on Windows needs "
                                       "administrator rights (a firewall or WFP filter), which cordon does not "
                                       "take; use --network full",
                                       network_name(p->network))) < 0)
                return strv_free(v);
        for (size_t i = 0; i < ARRAY_SIZE(NONE); i++)
                if (p->limits[NONE[i].limit] > 0 && !p->limits_best_effort &&
                    strv_consume(&v, xasprintf("%s: Windows has no such limit for a job; drop it, or add "
                                               "--limits-best-effort to run without it",
                                               NONE[i].flag)) < 0)
                        return strv_free(v);
        return v;
}

char *win_plan_text(const cordon_plan *p)
{
        win_rules r = {0};
        char *why = NULL;
        int e = win_plan_rules(p, &r, &why);
        if (e == -EINVAL) {
                char *s = xasprintf("windows isolation access rules\n  refused: %s\n", why ? why : "no instance root");
                free(why);
                return s;
        }
        if (e < 0)
                return NULL;
        _cleanup_free_ char *rules = win_rules_text(&r);
        _cleanup_strv_ char **refused = win_plan_refusals(p);
        win_rules_clear(&r);
        if (!rules || !refused)
                return NULL;
        buf b = {0};
        buf_put(&b, rules, strlen(rules));
        for (size_t i = 0; refused[i]; i++)
                buf_printf(&b, "  refused: %s\n", refused[i]);
        return buf_steal(&b);
}
