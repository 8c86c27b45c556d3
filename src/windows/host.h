/* SPDX-License-Identifier: MIT */
/* What a Windows program reads from its process in UTF-8: the arguments
 * and the environment as Windows keeps them (UTF-16), never the ANSI code
 * page's lossy copies. Win32; built only for Windows. */
#pragma once

#include "util.h"

/* The command line split by CommandLineToArgvW, as UTF-8 (NULL terminated;
 * strv_free). NULL on failure. */
char **win_host_argv(int *ret_argc) HIDDEN;
/* The process environment as "NAME=VALUE" UTF-8 strings, without the
 * hidden "=C:=C:\dir" entries (strv_free). NULL on failure. */
char **win_host_environ(void) HIDDEN;
/* UTF-16 -> UTF-8 (caller frees), or NULL. */
char *win_narrow(const wchar_t *w) HIDDEN;
