/* SPDX-License-Identifier: MIT */
/* What the core uses of POSIX and glibc that mingw-w64 lacks, for the
 * Windows build only: force-included there (-include windows/compat.h), so
 * the core needs no #ifdef. Each behaves as its glibc namesake. */
#pragma once
#ifdef _WIN32

#include <stddef.h>
#include <string.h>

char *strchrnul(const char *s, int c);
char *strndup(const char *s, size_t n);

#endif
