/* SPDX-License-Identifier: MIT */
/* The neutral plan rendered for the windows backend (render.c). Pure. */
#pragma once

#include "plan.h"
#include "windows/win.h"

/* The access rules of |p|: grants for the workspace, the instance's
 * writable directories (runtime-user-env, cache, state) and rw exposures;
 * reads for the rest it names (the planning host's system paths are left
 * out). Returns 0, -EINVAL with |*ret_reason| (a remapped path; caller
 * frees) or -ENOMEM. */
int win_plan_rules(const cordon_plan *p, win_rules *ret, char **ret_reason) HIDDEN;
/* What of |p| Windows cannot enforce, one sentence each with the fix
 * (empty when nothing). strv_free; NULL on ENOMEM. */
char **win_plan_refusals(const cordon_plan *p) HIDDEN;
/* "windows isolation access rules" and what is refused. NULL on ENOMEM. */
char *win_plan_text(const cordon_plan *p) HIDDEN;
