/* SPDX-License-Identifier: MIT */
/* cgroup limits (memory, pids, CPU share) for one sandbox. */
#pragma once

#include "plan.h"

typedef struct cgroup cgroup;

/* Create the sandbox's cgroup when the plan has cgroup limits (else
 * *ret = NULL). A limit this host cannot enforce is an error, unless
 * limits_best_effort (then one warning). */
int cgroup_prepare(const cordon_plan *p, cgroup **ret, cordon_error **ret_error) HIDDEN;
/* Move |pid| into it (before the command starts). */
int cgroup_attach(cgroup *cg, pid_t pid, cordon_error **ret_error) HIDDEN;
/* Signal every process in it; -ENOTSUP when that needs cgroup v2's kill. */
int cgroup_signal(cgroup *cg, int sig) HIDDEN;
/* Fill oom_killed, pids_peak, pids_limited, max_rss from its counters. */
void cgroup_collect(cgroup *cg, cordon_result *res) HIDDEN;
/* Remove the cgroup (killing what is left in it) and free. Returns NULL. */
cgroup *cgroup_free(cgroup *cg) HIDDEN;
