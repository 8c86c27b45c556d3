/* SPDX-License-Identifier: MIT */
/* The Windows build's fnmatch (src/windows/fnmatch.c), compiled on Linux
 * under another name, with its flags, for tests/unit/test-fnmatch.c (which
 * calls glibc's beside it, whose flags differ). */
#include "fnmatch-windows.h"

#define fnmatch windows_fnmatch
#include "../../src/windows/fnmatch.c"
#undef fnmatch

const int WINDOWS_FNM_NOMATCH = FNM_NOMATCH, WINDOWS_FNM_NOESCAPE = FNM_NOESCAPE,
          WINDOWS_FNM_CASEFOLD = FNM_CASEFOLD;
