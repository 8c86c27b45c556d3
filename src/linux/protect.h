/* SPDX-License-Identifier: MIT */
/* Placeholders for protected paths that do not exist yet (see protect.c). */
#pragma once

#include "plan.h"
#include "undo.h"

typedef struct placeholders placeholders;

/* logs/placeholders-lock, held shared by every live run that protects
 * paths; |exclusive|: taken exclusively (no other such run alive). */
typedef struct protect_lock {
        int fd;
        int logs; /* <instance>/logs, checked (instance_open_logs), or -1 */
        bool exclusive;
} protect_lock;

/* Take the lock for a plan that protects paths (fd -1 otherwise, or when
 * |logs|, the instance's checked logs/ or -1, is not there). Before
 * undo_start, so that the undo helper shares it. Returns 0. */
int protect_lock_take(const cordon_plan *p, int logs, protect_lock *ret) HIDDEN;
/* Close what protect_placeholders_create did not take over. */
void protect_lock_release(protect_lock *lock) HIDDEN;

/* Create the placeholders the plan marks missing (relative to parent
 * directories opened without following links), after repairing what killed
 * runs of the same instance left behind. Journals them in the instance's
 * logs/ (the journal noted in |undo|, or NULL). |notes| (or NULL): the
 * undo note of each missing mount, in plan order, noted in the parent
 * directory |dirs| (undo_note_path); each is settled (undo_made) right after
 * its attempt and set to -1. Takes |lock|'s descriptors
 * (or NULL: none); repairs only when it was exclusive, then shares it. *ret may be set on failure too: remove it. */
int protect_placeholders_create(const cordon_plan *p, undo_log *undo, int *notes, const int *dirs,
                                protect_lock *lock, placeholders **ret, cordon_error **ret_error) HIDDEN;
/* Remove the placeholders that are still the inodes created and unchanged,
 * unless another live run protects them too; free the list. Returns NULL. */
placeholders *protect_placeholders_remove(placeholders *list) HIDDEN;
