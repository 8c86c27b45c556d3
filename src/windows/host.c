/* SPDX-License-Identifier: MIT */
#include "windows/host.h"

#include "cordon.h"

#include <windows.h>
#include <shellapi.h>
#include <string.h>
#include <wchar.h>

char *win_narrow(const wchar_t *w)
{
        int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL, NULL);
        char *s = n > 0 ? malloc((size_t)n) : NULL;
        if (s && WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n, NULL, NULL) != n) {
                free(s);
                return NULL;
        }
        return s;
}

char **win_host_argv(int *ret_argc)
{
        int argc = 0;
        wchar_t **wv = CommandLineToArgvW(GetCommandLineW(), &argc);
        if (!wv)
                return NULL;
        char **v = calloc((size_t)argc + 1, sizeof(*v));
        for (int i = 0; v && i < argc; i++)
                if (!(v[i] = win_narrow(wv[i])))
                        v = strv_free(v);
        LocalFree(wv);
        if (v)
                *ret_argc = argc;
        return v;
}

char **win_host_environ(void)
{
        wchar_t *block = GetEnvironmentStringsW();
        if (!block)
                return NULL;
        char **v = calloc(1, sizeof(*v));
        for (const wchar_t *p = block; v && *p; p += wcslen(p) + 1) {
                if (*p == L'=') /* the per-drive current directories */
                        continue;
                char *s = win_narrow(p);
                if (!s || strv_consume(&v, s) < 0)
                        v = strv_free(v);
        }
        FreeEnvironmentStringsW(block);
        return v;
}

const char *cordon_version(void) { return CORDON_VERSION; }
