/* SPDX-License-Identifier: MIT */
/* What `cordon plan --backend windows` shows after the neutral plan: the
 * access rules (render.c) and what Windows cannot enforce, as text and as
 * JSON. Pure, so it shows on any host. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "windows/render.h"

/* The windows backend's access rules and refusals, after the plan. */
static void text_windows(buf *b, const cordon_plan *p)
{
        char *s = win_plan_text(p);
        if (!s) {
                b->oom = true;
                return;
        }
        buf_put(b, s, strlen(s));
        free(s);
}

static json_t *json_windows(const cordon_plan *p)
{
        json_t *o = json_object(), *rules = json_array(), *refused = json_array();
        win_rules r = {0};
        char *why = NULL;
        if (win_plan_rules(p, &r, &why) == 0) {
                json_object_set_new(o, "sid", json_text(r.sid));
                for (size_t i = 0; i < r.n_rules; i++) {
                        const win_rule *w = &r.rules[i];
                        json_t *j = json_object();
                        json_object_set_new(j, "path", json_text(w->path));
                        json_object_set_new(j, "access", json_text(w->kind == WIN_RULE_GRANT ? "write" : "read"));
                        json_object_set_new(j, "origin", json_text(w->origin));
                        json_object_set_new(j, "sddl", w->sddl ? json_text(w->sddl) : json_null());
                        json_array_append_new(rules, j);
                }
                win_rules_clear(&r);
        } else if (why) {
                json_array_append_new(refused, json_text(why));
                free(why);
        }
        char **v = win_plan_refusals(p);
        for (size_t i = 0; v && v[i]; i++)
                json_array_append_new(refused, json_text(v[i]));
        strv_free(v);
        json_object_set_new(o, "integrity", json_text(WIN_SID_LOW_INTEGRITY));
        json_object_set_new(o, "rules", rules);
        json_object_set_new(o, "refused", refused);
        return o;
}

const backend_render windows_render_ops = {
        .name = "windows",
        .text = text_windows,
        .json = json_windows,
};
