/* SPDX-License-Identifier: MIT */
/* <fnmatch.h> for the Windows build (mingw has none): windows/compat.c. */
#pragma once

#define FNM_NOMATCH  1
#define FNM_NOESCAPE 0x01
#define FNM_CASEFOLD 0x10

/* POSIX fnmatch: '*', '?', '[...]' (ranges, '!' or '^' negates), '\'
 * escapes unless FNM_NOESCAPE; FNM_CASEFOLD ignores ASCII case. Returns 0
 * or FNM_NOMATCH. */
int fnmatch(const char *pattern, const char *string, int flags);
