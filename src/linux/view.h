/* SPDX-License-Identifier: MIT */
/* The system view's /etc prepared once: the host's files of the view
 * copied, and the generated passwd and group, in one directory bound at
 * /etc in one mount (view.c). */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>

#include "plan.h"

/* The prepared /etc of plan |p|: the path of its directory, without a
 * symlink, and its identity in |ret_st| (built or brought up to date
 * first); NULL when it cannot be used for this plan (then every file is
 * bound on its own, as planned). |covered| (one
 * entry a mount of the plan) is set for the mounts the directory holds;
 * the others below /etc (directories, files that are not regular) have
 * their mount point in it and are mounted on top. |ret_lock| gets a
 * descriptor to keep open while the sandbox runs (no other run removes the
 * directory then), or -1. */
char *view_etc_open(const cordon_plan *p, bool *covered, int *ret_lock, struct stat *ret_st) HIDDEN;
