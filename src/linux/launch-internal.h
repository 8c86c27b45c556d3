/* SPDX-License-Identifier: MIT */
/* What the launcher's preparation (launch.c, prepare_launch) and its steps
 * in their own files share: each fills part of the launch_storage, and
 * returns 0 or -errno with the error filled (launch_build_ops: -ENOMEM). */
#pragma once

#include <stdbool.h>

#include "landlock.h"
#include "process.h"

/* launch-ops.c: the plan's mounts as the init's mount ops (s->l.ops), the
 * prepared /etc in place of the files it holds. 0 or -ENOMEM. */
int launch_build_ops(const cordon_plan *p, launch_storage *s, const landlock_rights *ll) HIDDEN;

/* launch-stdio.c: the command's stdin, stdout and stderr as the plan asks
 * (inherited, /dev/null, pipes), and its own terminal where it gets one. */
int launch_setup_stdio(const cordon_plan *p, launch_storage *s, cordon_error **ret_error) HIDDEN;

/* launch-confine.c: the command's rlimits (|nproc|: the process limit by
 * RLIMIT_NPROC); the Landlock ruleset and its rights (*ll, *ret_abi: the
 * ABI or -errno); the landlock backend's supervisor filter. */
int launch_set_rlimits(const cordon_plan *p, bool nproc, launch *l, cordon_error **ret_error) HIDDEN;
int launch_setup_landlock(const cordon_plan *p, unsigned proxy_port, const net_forward *fwd, size_t n_fwd,
                          landlock_rights *ll, int *ret_abi, launch *l, cordon_error **ret_error) HIDDEN;
int launch_prepare_supervisor(const cordon_plan *p, launch_storage *s, cordon_error **ret_error) HIDDEN;

/* launch-explain.c: --explain. The view the observer predicts refusals in
 * (NULL on ENOMEM); the linux backend's observe-only filter and its
 * listener's socket pair; the command's root, once it runs (|pid|: the
 * sandbox's first process). */
explain_view *launch_explain_view(const cordon_plan *p) HIDDEN;
int launch_prepare_observer(const cordon_plan *p, launch_storage *s, cordon_error **ret_error) HIDDEN;
void launch_explain_root(explain_view *v, pid_t pid) HIDDEN;
/* The main filter's refusals of the native calls, handed to the filter
 * with the listener (supervise_opt.refusals, before supervise_filter). */
int launch_explain_refusals(launch_storage *s, cordon_error **ret_error) HIDDEN;
