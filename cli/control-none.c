/* SPDX-License-Identifier: MIT */
/* --control-fd where the backend has no network proxy (the Windows build):
 * refused at start. */
#include <errno.h>

#include "control.h"

int control_prepare(int fd)
{
        (void)fd;
        return -ENOTSUP;
}

int control_start(int fd, cordon_process *p)
{
        (void)fd;
        (void)p;
        return -ENOTSUP;
}

void control_finish(void) {}
