/* SPDX-License-Identifier: MIT */
/* fnmatch for the Windows build (mingw has none; compat/fnmatch.h). Plain
 * C, so tests/unit/test-fnmatch.c compiles it on Linux too and compares it
 * with glibc's.
 *
 * Iterative: a '*' remembers where it stood, and a mismatch later resumes
 * from there with the '*' taking one more character. Only the last '*'
 * needs remembering (whatever an earlier one could take, the later one can
 * too, as no flag here makes '*' stop at '/'), so a match costs at most
 * O(pattern * string) steps; the recursive version before it was
 * exponential on "*a*a*a*b" against a long run of 'a's. */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "compat/fnmatch.h"

static int fold(int c, int flags)
{
        return (flags & FNM_CASEFOLD) && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether |c| is in the class "[:NAME:]" at |p| (after its "[:"); sets
 * |*end| past the ":]", or NULL when |p| names no class. */
static bool in_class(const char *p, int c, const char **end)
{
        static const struct {
                const char *name;
                int (*is)(int);
        } CLASSES[] = {
                {"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank}, {"cntrl", iscntrl},
                {"digit", isdigit}, {"graph", isgraph}, {"lower", islower}, {"print", isprint},
                {"punct", ispunct}, {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
        };
        for (size_t i = 0; i < sizeof(CLASSES) / sizeof(CLASSES[0]); i++) {
                size_t n = strlen(CLASSES[i].name);
                if (strncmp(p, CLASSES[i].name, n) == 0 && p[n] == ':' && p[n + 1] == ']') {
                        *end = p + n + 2;
                        return CLASSES[i].is(c) != 0;
                }
        }
        *end = NULL;
        return false;
}

/* One bracket expression at |p| (after '['), against |c|: sets |*end| past
 * the ']' and returns whether it matched; *end = NULL when unterminated. */
static bool bracket(const char *p, int c, int flags, const char **end)
{
        bool neg = *p == '!' || *p == '^', hit = false;
        if (neg)
                p++;
        for (bool first = true; *p && (first || *p != ']'); first = false) {
                const char *after = NULL;
                if (p[0] == '[' && p[1] == ':') {
                        bool in = in_class(p + 2, c, &after); /* as glibc: not folded */
                        if (after) {
                                hit = hit || in;
                                p = after;
                                continue;
                        }
                }
                int lo = (unsigned char)*p++;
                if (lo == '\\' && !(flags & FNM_NOESCAPE) && *p)
                        lo = (unsigned char)*p++;
                int hi = lo;
                if (p[0] == '-' && p[1] && p[1] != ']') {
                        hi = (unsigned char)p[1];
                        p += 2;
                        if (hi == '\\' && !(flags & FNM_NOESCAPE) && *p)
                                hi = (unsigned char)*p++;
                }
                if (fold(c, flags) >= fold(lo, flags) && fold(c, flags) <= fold(hi, flags))
                        hit = true;
        }
        *end = *p == ']' ? p + 1 : NULL;
        return hit != neg;
}

/* Whether the one-character element at |p| ('?', a bracket expression, an
 * escaped or a plain character; not '*' nor the end) matches |c|; sets
 * |*next| past it. */
static bool element(const char *p, int c, int flags, const char **next)
{
        if (*p == '?') {
                *next = p + 1;
                return true;
        }
        if (*p == '[') {
                const char *end = NULL;
                bool hit = bracket(p + 1, c, flags, &end);
                if (end) {
                        *next = end;
                        return hit;
                }
                /* unterminated: a plain '[' */
        }
        if (*p == '\\' && !(flags & FNM_NOESCAPE)) {
                if (!p[1])
                        return false; /* a lone '\\' at the end matches nothing, as in glibc */
                p++;
        }
        *next = p + 1;
        return fold((unsigned char)*p, flags) == fold(c, flags);
}

int fnmatch(const char *pattern, const char *string, int flags)
{
        const char *p = pattern, *s = string;
        const char *star_p = NULL, *star_s = NULL; /* after the last '*', and where it stopped taking */
        for (;;) {
                if (*p == '*') {
                        while (*p == '*')
                                p++;
                        if (!*p)
                                return 0; /* a trailing '*' takes the rest */
                        star_p = p;
                        star_s = s;
                        continue;
                }
                const char *next = NULL;
                if (*s && *p && element(p, (unsigned char)*s, flags, &next)) {
                        p = next;
                        s++;
                        continue;
                }
                if (!*s && !*p)
                        return 0;
                if (!star_p || !*star_s)
                        return FNM_NOMATCH;
                /* the last '*' takes one more character; retry after it */
                p = star_p;
                s = ++star_s;
        }
}
