/* SPDX-License-Identifier: MIT */
/* The post-run git check (see gitcheck.c). */
#pragma once

#include <jansson.h>

#include "plan.h"

typedef struct git_check git_check;

/* Before the sandbox starts: note the time and the known git directories
 * of the plan (linux and landlock backends; *ret NULL otherwise; on landlock
 * it searches the writable mounts for them); its journal goes in |logs|,
 * the instance's checked logs/ (or -1: none). Returns 0 or -ENOMEM. */
int git_check_begin(const cordon_plan *p, int logs, git_check **ret) HIDDEN;
/* The name of its journal in logs/ ("" when it has none), for the
 * clean-up helper (undo.h): should the launcher die, it runs the check. */
const char *git_check_journal_name(const git_check *gc) HIDDEN;
/* After the sandbox is gone: make inert what the run planted for the
 * host's git, and warn through the plan's log callback. Once; NULL is a
 * no-op. */
void git_check_finish(git_check *gc) HIDDEN;
/* What it did, a JSON object: "set_aside", the host paths renamed;
 * "not_set_aside", those it could not make inert; "searched_all", false
 * when the walk stopped at its bound (caller frees; NULL on allocation
 * failure). */
json_t *git_check_json(const git_check *gc) HIDDEN;
/* The host paths it could not make inert (NULL: none). */
char *const *git_check_not_set_aside(const git_check *gc) HIDDEN;
/* Returns NULL. Without git_check_finish: the command never ran. */
git_check *git_check_free(git_check *gc) HIDDEN;

/* The check of a run whose launcher died, from its journal |name| in
 * |logs| (the instance's logs/), by the clean-up helper's process (or any
 * later one): warnings through |log_fn|. Returns 0, -ENOENT (no such
 * journal: checked already), -EBUSY (its run, or another check, holds
 * it), -errno. */
int git_check_recover(int logs, const char *name, cordon_log_fn log_fn, void *log_userdata) HIDDEN;
/* git_check_recover for every journal in |logs| whose run is gone (its
 * lock free). Returns 0, or -EIO when one left something live. */
int git_check_recover_dead(int logs, cordon_log_fn log_fn, void *log_userdata) HIDDEN;
