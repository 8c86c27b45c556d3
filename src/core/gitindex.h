/* SPDX-License-Identifier: MIT */
/* The gitlinks (submodule entries) of a git index file, read from bytes
 * the sandboxed command may have written: bounded, never trusting a
 * length, pure. */
#pragma once

#include <stddef.h>

#include "util.h"

/* Calls |fn| with the path of every gitlink (mode 160000) entry of the
 * index |data| (versions 2 to 4; |hash_len| 20 for SHA-1, 32 for SHA-256),
 * at most |max| times. Returns the number of calls, or -EINVAL when |data|
 * is not such an index (the calls made before stay made). */
int git_index_gitlinks(const unsigned char *data, size_t len, size_t hash_len, size_t max,
                       void (*fn)(const char *path, void *userdata), void *userdata) HIDDEN;
