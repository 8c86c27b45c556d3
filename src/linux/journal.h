/* SPDX-License-Identifier: MIT */
/* The journals runs leave in <instance>/logs/ while they live, each under
 * an flock: a journal whose lock is free belongs to a run that is gone
 * (protect.c's placeholders, gitcheck.c's starts). */
#pragma once

#include <stdbool.h>

#include "util.h"

typedef void (*journal_fn)(int fd, const char *name, void *userdata);

/* Calls |fn| for each file of the directory |logs| whose name starts with
 * |prefix|, but for |skip| (NULL: none): opened with |oflags| (O_NOFOLLOW
 * and O_CLOEXEC added), then flock(|lock| | LOCK_NB) tried on it; |fn| is
 * called when that succeeded and |when_free|, or failed and not
 * |when_free|. The lock taken is held for the call. Unreadable |logs|:
 * nothing is called. */
void journal_each(int logs, const char *prefix, const char *skip, int oflags, int lock, bool when_free,
                  journal_fn fn, void *userdata) HIDDEN;
