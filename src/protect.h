/* SPDX-License-Identifier: MIT */
/* Protected paths inside writable mounts (.git/hooks, .git/config, protect). */
#pragma once

#include "plan.h"

/* Create empty placeholders for protected paths the plan marks absent, so
 * that they can be mounted read-only; stores what was created. */
int protect_placeholders_create(const cordon_plan *p, char ***ret, cordon_error **ret_error) HIDDEN;
/* Remove the placeholders that are still empty, free the list. */
void protect_placeholders_remove(char ***list) HIDDEN;
