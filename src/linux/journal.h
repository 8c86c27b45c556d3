/* SPDX-License-Identifier: MIT */
/* The journals runs leave in <instance>/logs/ while they live, each under
 * an flock: a journal whose lock is free belongs to a run that is gone
 * (protect.c's placeholders, gitcheck.c's starts). */
#pragma once

#include <stdbool.h>

#include "util.h"

typedef void (*journal_fn)(int fd, const char *name, void *userdata);

/* Journals whose names start with |prefix|: flock(|lock| | LOCK_NB) is
 * tried on each, and |fn| called as journal_each says. */
typedef struct journal_kind {
        const char *prefix;
        int lock;
        journal_fn fn;
} journal_kind;

/* In one listing of the directory |logs|, for each file whose name starts
 * with the prefix of one of the |n| |kinds| (the first that matches), but
 * for |skip| (NULL: none): opened with |oflags| (O_NOFOLLOW and O_CLOEXEC
 * added), then the kind's lock tried on it; its |fn| is called when that
 * succeeded and |when_free|, or failed and not |when_free|. The lock taken
 * is held for the call. Unreadable |logs|: nothing is called. */
void journal_each(int logs, const journal_kind *kinds, size_t n, const char *skip, int oflags, bool when_free,
                  void *userdata) HIDDEN;
