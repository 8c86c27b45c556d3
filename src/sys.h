/* SPDX-License-Identifier: MIT */
/* Raw system call wrappers for what glibc 2.36 lacks. All are async-signal-
 * safe: they may be used in the child after clone(). They return what the
 * kernel returns, with errno set on failure. */
#pragma once

#include <linux/openat2.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

/* fork-like clone3: no new stack, |flags| CLONE_* plus an exit signal.
 * Returns the child's pid (0 in the child); stores a pidfd when
 * |ret_pidfd| is not NULL. Falls back to clone(2) where clone3 is missing. */
pid_t sys_clone(unsigned long flags, int *ret_pidfd) HIDDEN;
int sys_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve) HIDDEN;
int sys_pivot_root(const char *new_root, const char *put_old) HIDDEN;
int sys_close_range(unsigned first, unsigned last, unsigned flags) HIDDEN;
int sys_landlock_create_ruleset(const void *attr, size_t size, uint32_t flags) HIDDEN;
int sys_landlock_add_rule(int ruleset, int type, const void *attr, uint32_t flags) HIDDEN;
int sys_landlock_restrict_self(int ruleset, uint32_t flags) HIDDEN;
int sys_pidfd_send_signal(int pidfd, int sig, void *info, unsigned flags) HIDDEN;

/* Async-signal-safe string helpers for the child. */
size_t sys_strlcpy(char *dst, const char *src, size_t size) HIDDEN;
