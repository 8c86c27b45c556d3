/* SPDX-License-Identifier: MIT */
/* Files of cordon's own directories (the instance's logs/view) written
 * whole or not at all, and never left behind by a launcher killed while
 * it writes: the file has no name until it is complete (O_TMPFILE, then
 * linked in). Where the filesystem has no unnamed files (overlayfs before
 * Linux 6.6), a temporary name and a rename, which a later run removes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct whole_file {
        int fd;
        int dfd;
        char tmp[64]; /* "" for an unnamed file */
} whole_file;

/* "tmp-<pid>-<random><suffix>": a name no other launcher picks (another
 * pid namespace may share the instance root, and the same pid). */
void whole_temp_name(char *out, size_t size, const char *suffix) HIDDEN;
/* Open a new file (mode 0600) to be named later in the directory |dfd|.
 * False with errno. */
bool whole_file_begin(whole_file *f, int dfd) HIDDEN;
/* Name it |name| when |ok| (replacing a file of that name when |replace|,
 * keeping it otherwise), or drop it; closes it either way. True when
 * |name| then holds a whole file, ours or one written meanwhile. */
bool whole_file_end(whole_file *f, const char *name, bool replace, bool ok) HIDDEN;
