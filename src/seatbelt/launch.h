/* SPDX-License-Identifier: MIT */
/* Running a plan under /usr/bin/sandbox-exec (macOS; on Linux only in a
 * build with -Dseatbelt_standin=true, where a test stand-in takes its
 * place). Only POSIX here. */
#pragma once

#include <sys/types.h>

#include "error.h"
#include "plan.h"
#include "seatbelt/render.h"

#ifndef CORDON_SANDBOX_EXEC
#define CORDON_SANDBOX_EXEC "/usr/bin/sandbox-exec"
#endif

/* Start the command of |p| under sandbox-exec with the profile and
 * parameters seatbelt_render makes of it and |o| (the proxy's port: the
 * proxy network refused without one), in |envp| (NULL: the plan's; the
 * proxy's port in the proxy variables). Refuses a nested sandbox, a
 * missing sandbox-exec and limits macOS cannot enforce (unless best
 * effort). Sets |*ret_pid| (the command: sandbox-exec executes it in its
 * own process, which leads a session of its own) and, for
 * CORDON_STDIO_PIPE streams, |ret_stdio| to the caller's ends (else -1).
 * Returns 0 once the command was executed, or -errno with |*ret_error|. */
int seatbelt_spawn(const cordon_plan *p, const seatbelt_options *o, char *const *envp, int ret_stdio[3],
                   pid_t *ret_pid, cordon_error **ret_error) HIDDEN;
