/* SPDX-License-Identifier: MIT */
/* --control-fd N: the caller changes the running command's allowlist (live
 * grants), one JSON line per change on descriptor N, each answered with
 * one JSON line on it. */
#pragma once

#include "cordon.h"

/* Before the sandbox starts: |fd| is open, and made close-on-exec. 0 or -errno. */
int control_prepare(int fd);
/* Serve |fd| for |p| in a thread until EOF or control_finish. 0 or -errno. */
int control_start(int fd, cordon_process *p);
/* Stop serving (before |p| is freed): join the thread. Idempotent. */
void control_finish(void);
