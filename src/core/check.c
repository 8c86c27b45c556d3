/* SPDX-License-Identifier: MIT */
/* The end of a `cordon check` report, the same for every backend. */
#include "check.h"

#include <errno.h>
#include <stdlib.h>

int check_report_end(bool json, json_t *o, buf *b, const char *why, char **ret_report)
{
        if (json) {
                if (why)
                        json_object_set_new(o, "fix", json_text(why));
                char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
                buf_printf(b, "%s\n", s ? s : "{}");
                free(s);
        } else if (why) {
                buf_printf(b, "  fix: %s\n", why);
        }
        json_decref(o);
        char *s = buf_steal(b);
        if (!s)
                return -ENOMEM;
        *ret_report = s;
        return why ? 0 : 1;
}
