/* SPDX-License-Identifier: MIT */
/* <fnmatch.h> for the Windows build (mingw has none): windows/fnmatch.c. */
#pragma once

#define FNM_NOMATCH  1
#define FNM_NOESCAPE 0x01
#define FNM_CASEFOLD 0x10

/* POSIX fnmatch: '*', '?', '[...]' (ranges, classes such as [:digit:], '!'
 * or '^' negates), '\' escapes unless FNM_NOESCAPE; FNM_CASEFOLD ignores
 * ASCII case. No FNM_PATHNAME nor FNM_PERIOD: '*' takes '/' and a leading
 * '.'. Returns 0 or FNM_NOMATCH, in O(pattern * string) steps. */
int fnmatch(const char *pattern, const char *string, int flags);
