/* SPDX-License-Identifier: MIT */
/* Protected paths: placeholders for protected paths that do not exist yet. */
#include "protect.h"

int protect_placeholders_create(const cordon_plan *p, char ***ret, cordon_error **ret_error)
{
        (void)p;
        (void)ret_error;
        *ret = NULL;
        return 0;
}

void protect_placeholders_remove(char ***list)
{
        *list = strv_free(*list);
}
