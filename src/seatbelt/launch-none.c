/* SPDX-License-Identifier: MIT */
/* The seatbelt backend where there is no sandbox-exec: plans only. */
#include <errno.h>

#include "seatbelt/launch.h"

int seatbelt_spawn(const cordon_plan *p, const seatbelt_options *o, char *const *envp, int ret_stdio[3],
                   pid_t *ret_pid, cordon_error **ret_error)
{
        (void)p, (void)o, (void)envp;
        for (int i = 0; i < 3; i++)
                ret_stdio[i] = -1;
        *ret_pid = -1;
        return error_set(ret_error, ENOTSUP,
                         "the seatbelt backend runs only on macOS; `cordon plan --backend seatbelt` shows its "
                         "profile");
}
