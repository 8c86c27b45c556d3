/* SPDX-License-Identifier: MIT */
#include "windows/compat.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#undef fopen

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
