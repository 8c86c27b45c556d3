/* SPDX-License-Identifier: MIT */
/* What `cordon plan --backend seatbelt` shows after the neutral plan: the
 * profile (render.c) and its -D parameters, as text and as JSON. Pure, so
 * it shows on any host. */
#include <jansson.h>
#include <string.h>

#include "backend.h"
#include "seatbelt/render.h"

/* The seatbelt backend's profile and its -D parameters, after the plan. */
static void text_seatbelt(buf *b, const cordon_plan *p)
{
        seatbelt_profile sp = {0};
        if (seatbelt_render(p, NULL, &sp) < 0) {
                b->oom = true;
                return;
        }
        buf_printf(b, "seatbelt parameters (sandbox-exec -D):\n");
        for (size_t i = 0; sp.params && sp.params[i]; i++)
                buf_printf(b, "  %s\n", sp.params[i]);
        buf_printf(b, "seatbelt profile (sandbox-exec -p):\n%s", sp.text);
        seatbelt_profile_clear(&sp);
}

static json_t *json_seatbelt(const cordon_plan *p)
{
        seatbelt_profile sp = {0};
        if (seatbelt_render(p, NULL, &sp) < 0)
                return json_null();
        json_t *o = json_object(), *params = json_object();
        for (size_t i = 0; sp.params && sp.params[i]; i++) {
                char *eq = strchr(sp.params[i], '=');
                if (!eq)
                        continue;
                *eq = '\0'; /* names never hold '=' */
                json_object_set_new(params, sp.params[i], json_text(eq + 1));
        }
        json_object_set_new(o, "profile", json_text(sp.text));
        json_object_set_new(o, "parameters", params);
        seatbelt_profile_clear(&sp);
        return o;
}

const backend_render seatbelt_render_ops = {
        .name = "seatbelt",
        .text = text_seatbelt,
        .json = json_seatbelt,
};
