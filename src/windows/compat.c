/* SPDX-License-Identifier: MIT */
#include "windows/compat.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#undef fopen

#include "fnmatch.h"

char *strchrnul(const char *s, int c)
{
        while (*s && *s != (char)c)
                s++;
        return (char *)s;
}

char *strndup(const char *s, size_t n)
{
        size_t len = strnlen(s, n);
        char *d = malloc(len + 1);
        if (d) {
                memcpy(d, s, len);
                d[len] = '\0';
        }
        return d;
}

static int fold(int c, int flags)
{
        return (flags & FNM_CASEFOLD) && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* One bracket expression at |p| (after '['), against |c|: sets |*end| past
 * the ']' and returns whether it matched; *end = NULL when unterminated. */
static bool bracket(const char *p, int c, int flags, const char **end)
{
        bool neg = *p == '!' || *p == '^', hit = false;
        if (neg)
                p++;
        for (bool first = true; *p && (first || *p != ']'); first = false) {
                int lo = (unsigned char)*p++;
                if (lo == '\\' && !(flags & FNM_NOESCAPE) && *p)
                        lo = (unsigned char)*p++;
                int hi = lo;
                if (p[0] == '-' && p[1] && p[1] != ']') {
                        hi = (unsigned char)p[1];
                        p += 2;
                }
                if (fold(c, flags) >= fold(lo, flags) && fold(c, flags) <= fold(hi, flags))
                        hit = true;
        }
        *end = *p == ']' ? p + 1 : NULL;
        return hit != neg;
}

int fnmatch(const char *pattern, const char *string, int flags)
{
        const char *p = pattern, *s = string;
        for (; *p; p++, s++) {
                if (*p == '*') {
                        while (p[1] == '*')
                                p++;
                        for (const char *t = s;; t++) {
                                if (fnmatch(p + 1, t, flags) == 0)
                                        return 0;
                                if (!*t)
                                        return FNM_NOMATCH;
                        }
                }
                if (!*s)
                        return FNM_NOMATCH;
                if (*p == '?')
                        continue;
                if (*p == '[') {
                        const char *end = NULL;
                        bool hit = bracket(p + 1, (unsigned char)*s, flags, &end);
                        if (end) {
                                if (!hit)
                                        return FNM_NOMATCH;
                                p = end - 1;
                                continue;
                        }
                }
                if (*p == '\\' && !(flags & FNM_NOESCAPE) && p[1])
                        p++;
                if (fold((unsigned char)*p, flags) != fold((unsigned char)*s, flags))
                        return FNM_NOMATCH;
        }
        return *s ? FNM_NOMATCH : 0;
}

char **environ;

/* The C runtime's environment (ANSI) for the core's few readers; the
 * launcher itself reads the UTF-16 original (host.c). */
__attribute__((constructor)) static void init_environ(void)
{
        environ = _environ;
}

FILE *compat_fopen(const char *path, const char *mode)
{
        char m[16];
        size_t n = 0;
        for (; *mode && n + 2 < sizeof(m); mode++)
                if (*mode != 'e')
                        m[n++] = *mode;
        m[n++] = 'N';
        m[n] = '\0';
        return fopen(path, m);
}

int openat(int dirfd, const char *path, int flags, ...)
{
        (void)dirfd;
        (void)path;
        (void)flags;
        errno = ENOSYS;
        return -1;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
        void (*prev)(int) = act ? signal(sig, act->sa_handler) : SIG_DFL;
        if (prev == SIG_ERR) {
                errno = EINVAL;
                return -1;
        }
        if (old)
                *old = (struct sigaction){.sa_handler = prev};
        return 0;
}

int sigemptyset(sigset_t *set)
{
        *set = 0;
        return 0;
}

int getpgrp(void) { return 0; }

int tcgetpgrp(int fd)
{
        (void)fd;
        errno = ENOTTY;
        return -1;
}
