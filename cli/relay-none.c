/* SPDX-License-Identifier: MIT */
/* No terminal relay (a build without pseudo-terminals: Windows): --pty is
 * refused when the plan is made, so nothing ever starts one. */
#include <errno.h>

#include "relay.h"

int relay_start(int master_fd)
{
        (void)master_fd;
        return -ENOTSUP;
}

void relay_finish(void) {}

bool relay_resize(void) { return false; }
