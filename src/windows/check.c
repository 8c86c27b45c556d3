/* SPDX-License-Identifier: MIT */
/* `cordon check` on Windows: what the windows backend applies and what
 * this host cannot give it. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <windows.h>

#include "check.h"
#include "config.h"
#include "util.h"

/* NULL when |backend| can run here, else why not (caller frees). */
static char *cannot_run(const char *backend)
{
        if (!streq(backend, "windows") && !streq(backend, "auto"))
                return xasprintf("the \"%s\" backend does not run on Windows: use \"windows\"", backend);
        return NULL;
}

int cordon_host_check(const cordon_config *c, bool json, char **ret_report)
{
        const char *backend = c ? c->backend : "auto";
        _cleanup_free_ char *why = cannot_run(backend);
        buf b = {0};
        json_t *o = json ? json_object() : NULL;
        if (json) {
                json_object_set_new(o, "backend", json_text("windows"));
                json_object_set_new(o, "backend_ok", json_boolean(!why));
                json_object_set_new(o, "network_confined", json_false());
        } else {
                buf_printf(&b, "backend windows: %s\n", why ? "cannot run" : "can run");
                buf_printf(&b, "  a write-restricted token with the instance's SID, low integrity, a job object\n");
                buf_printf(&b, "  network: not confined (needs administrator rights): only --network full runs\n");
        }
        return check_report_end(json, o, &b, why, ret_report);
}
