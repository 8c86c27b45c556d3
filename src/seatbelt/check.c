/* SPDX-License-Identifier: MIT */
/* `cordon check` in a build without the linux backend (-Dlinux_backend=false):
 * whether the seatbelt backend can run here. Only POSIX. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "seatbelt/launch.h"
#include "util.h"

/* NULL when |backend| can run here, else why not (caller frees). */
static char *cannot_run(const char *backend)
{
        if (!streq(backend, "seatbelt"))
                return xasprintf("this cordon was built without the linux backend (-Dlinux_backend=false): the "
                                 "\"%s\" backend is not in it; use \"seatbelt\"",
                                 backend);
        if (access(CORDON_SANDBOX_EXEC, X_OK) < 0)
                return xasprintf("the seatbelt backend needs %s: %s (it is part of macOS)", CORDON_SANDBOX_EXEC,
                                 strerror(errno));
        return NULL;
}

int cordon_host_check(const cordon_config *c, bool json, char **ret_report)
{
        const char *backend = c && !streq(c->backend, "auto") ? c->backend : "seatbelt";
        _cleanup_free_ char *why = cannot_run(backend);
        buf b = {0};
        json_t *o = json ? json_object() : NULL;
        if (json) {
                json_object_set_new(o, "linux_backend", json_false());
                json_object_set_new(o, "sandbox_exec", json_text(CORDON_SANDBOX_EXEC));
                json_object_set_new(o, "backend", json_text(backend));
                json_object_set_new(o, "backend_ok", json_boolean(!why));
        } else {
                buf_printf(&b, "linux backend: not in this build (-Dlinux_backend=false)\n");
                buf_printf(&b, "sandbox-exec: %s\n", CORDON_SANDBOX_EXEC);
                buf_printf(&b, "backend %s: %s\n", backend, why ? "cannot run" : "can run");
        }
        return check_report_end(json, o, &b, why, ret_report);
}
