/* SPDX-License-Identifier: MIT */
/* tests/unit/fnmatch-windows.c: the Windows build's fnmatch on Linux. */
#pragma once

int windows_fnmatch(const char *pattern, const char *string, int flags);
extern const int WINDOWS_FNM_NOMATCH, WINDOWS_FNM_NOESCAPE, WINDOWS_FNM_CASEFOLD;
