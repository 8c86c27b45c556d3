/* SPDX-License-Identifier: MIT */
/* The sandbox user's grants (sandbox-user.c). */
#pragma once

#include "plan.h"

/* Before a run of |p| as the sandbox user: its ACL entries on the plan's
 * writable paths, skills/ and the directories above every path of the
 * plan. 0 or -errno with the error filled. */
int sandbox_user_grant(const cordon_plan *p, cordon_error **ret_error) HIDDEN;
