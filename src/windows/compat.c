/* SPDX-License-Identifier: MIT */
#include "windows/compat.h"

#include <stdlib.h>

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
