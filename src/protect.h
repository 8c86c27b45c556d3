/* SPDX-License-Identifier: MIT */
/* Placeholders for protected paths that do not exist yet (see protect.c). */
#pragma once

#include "plan.h"
#include "undo.h"

typedef struct placeholders placeholders;

/* Create the placeholders the plan marks missing (relative to parent
 * directories opened without following links), after repairing what killed
 * runs of the same instance left behind. Journals them in the instance's
 * logs/ (the journal noted in |undo|, or NULL). *ret may be set on failure too: remove it. */
int protect_placeholders_create(const cordon_plan *p, undo_log *undo, placeholders **ret,
                                cordon_error **ret_error) HIDDEN;
/* Did this run make (or take over) the placeholder at |path|? */
bool protect_placeholder_made(const placeholders *list, const char *path) HIDDEN;
/* Remove the placeholders that are still the inodes created and unchanged,
 * unless another live run protects them too; free the list. Returns NULL. */
placeholders *protect_placeholders_remove(placeholders *list) HIDDEN;
