/* SPDX-License-Identifier: MIT */
/* The Windows build's fnmatch (src/windows/fnmatch.c) against glibc's, on
 * a table of patterns; and in bounded time on the patterns that made the
 * recursive version before it exponential. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "fnmatch-windows.h"
#include "tap.h"

typedef struct {
        const char *pattern, *string;
        int flags; /* glibc's FNM_NOESCAPE and FNM_CASEFOLD */
        bool match;
} match_case;

static const match_case CASES[] = {
        {"", "", 0, true},
        {"", "a", 0, false},
        {"abc", "abc", 0, true},
        {"abc", "abd", 0, false},
        {"abc", "ab", 0, false},
        {"ab", "abc", 0, false},
        {"?", "a", 0, true},
        {"?", "", 0, false},
        {"a?c", "abc", 0, true},
        {"a?c", "ac", 0, false},
        {"*", "", 0, true},
        {"*", "anything/at all", 0, true},
        {"a*", "a", 0, true},
        {"a*", "abc", 0, true},
        {"*c", "abc", 0, true},
        {"*c", "abd", 0, false},
        {"a*c", "ac", 0, true},
        {"a*c", "abbbbc", 0, true},
        {"a*c", "abbbbd", 0, false},
        {"a**c", "abc", 0, true},
        {"*a*b*", "xxaxxbxx", 0, true},
        {"*a*b*", "xxbxxaxx", 0, false},
        {"*a*a*a*b", "aaaaaaab", 0, true},
        {"*a*a*a*b", "aab", 0, false},
        {"*ab", "aab", 0, true},
        {"*aab", "aaab", 0, true},
        {"a*b*c", "abcbc", 0, true},
        {"a*b*c", "abcbd", 0, false},
        {"AWS_*", "AWS_SECRET_ACCESS_KEY", 0, true},
        {"AWS_*", "XAWS_", 0, false},
        {"*_TOKEN", "GITHUB_TOKEN", 0, true},
        {"*_TOKEN", "GITHUB_TOKENS", 0, false},
        {"*KEY*", "MY_KEY_FILE", 0, true},
        {"[abc]", "b", 0, true},
        {"[abc]", "d", 0, false},
        {"[a-c]x", "bx", 0, true},
        {"[a-c]x", "dx", 0, false},
        {"[!a-c]", "d", 0, true},
        {"[!a-c]", "b", 0, false},
        {"[^a-c]", "d", 0, true},
        {"[]]", "]", 0, true},
        {"[]a]", "a", 0, true},
        {"[!]]", "]", 0, false},
        {"[!]]", "a", 0, true},
        {"[a-]", "-", 0, true},
        {"[-a]", "-", 0, true},
        {"[[]", "[", 0, true},
        {"[", "[", 0, true},
        {"[a", "[a", 0, true},
        {"[a", "a", 0, false},
        {"*[0-9]", "file7", 0, true},
        {"*[0-9]", "file", 0, false},
        {"[[:digit:]]*", "7up", 0, true},
        {"[[:digit:]]*", "up", 0, false},
        {"[[:alpha:]_][[:alnum:]_]*", "_Name9", 0, true},
        {"[[:alpha:]_][[:alnum:]_]*", "9Name", 0, false},
        {"[![:space:]]", " ", 0, false},
        {"[![:space:]]", "x", 0, true},
        {"[[:upper:][:digit:]]", "Q", 0, true},
        {"[[:upper:][:digit:]]", "q", 0, false},
        {"[[:xdigit:]][[:xdigit:]]", "fA", 0, true},
        {"[[:punct:]]", "!", 0, true},
        {"\\*", "*", 0, true},
        {"\\*", "a", 0, false},
        {"\\?", "?", 0, true},
        {"\\?", "a", 0, false},
        {"\\[a]", "[a]", 0, true},
        {"a\\bc", "abc", 0, true},
        {"[\\]]", "]", 0, true},
        {"[a\\-c]", "-", 0, true},
        {"[a\\-c]", "b", 0, false},
        {"\\*", "\\*", FNM_NOESCAPE, true},
        {"\\*", "*", FNM_NOESCAPE, false},
        {"\\*", "\\x", FNM_NOESCAPE, true},
        {"a\\b", "a\\b", FNM_NOESCAPE, true},
        {"abc", "ABC", FNM_CASEFOLD, true},
        {"abc", "ABC", 0, false},
        {"A*Z", "abcz", FNM_CASEFOLD, true},
        {"[a-c]", "B", FNM_CASEFOLD, true},
        {"[A-C]", "b", FNM_CASEFOLD, true},
        {"[!a-c]", "B", FNM_CASEFOLD, false},
        {"path_*", "PATH_EXT", FNM_CASEFOLD, true},
        {"[[:upper:]]", "a", FNM_CASEFOLD, false}, /* classes test the character as it is */
        {"[[:lower:]]", "A", FNM_CASEFOLD, false},
        {"[[:upper:]]", "A", FNM_CASEFOLD, true},
        {"[[:bogus:]]", "b", 0, false},
        {"a\\", "a\\", 0, false}, /* a lone '\\' at the end matches nothing */
        {"a\\", "a\\", FNM_NOESCAPE, true},
        {"*/*", "a/b", 0, true},
        {"*", ".hidden", 0, true},
        {"a/*/c", "a/b/x/c", 0, true},
};

static int windows_flags(int glibc_flags)
{
        return ((glibc_flags & FNM_NOESCAPE) ? WINDOWS_FNM_NOESCAPE : 0) |
               ((glibc_flags & FNM_CASEFOLD) ? WINDOWS_FNM_CASEFOLD : 0);
}

static void test_table(void)
{
        for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
                const match_case *t = &CASES[i];
                int glibc = fnmatch(t->pattern, t->string, t->flags);
                int ours = windows_fnmatch(t->pattern, t->string, windows_flags(t->flags));
                /* the table itself is checked against glibc: a wrong row fails too */
                if ((glibc == 0) != t->match || (ours == 0) != t->match)
                        printf("# \"%s\" ~ \"%s\" (flags %d): glibc %d, windows %d, expected %s\n", t->pattern,
                               t->string, t->flags, glibc, ours, t->match ? "match" : "no match");
                CHECK((glibc == 0) == t->match);
                CHECK((ours == 0) == t->match);
                CHECK(ours == 0 || ours == WINDOWS_FNM_NOMATCH);
        }
}

/* The patterns on which the recursive version took exponential time
 * ("*a*a*a*...b" against a long run of 'a's: each '*' tried every split).
 * These finish here in O(pattern * string) steps; the old one would take
 * longer than the test suite's timeout on the first. */
static void test_backtracking(void)
{
        size_t n = 100000;
        char *s = malloc(n + 2);
        memset(s, 'a', n);
        s[n] = '\0';
        CHECK(windows_fnmatch("*a*a*a*b", s, 0) == WINDOWS_FNM_NOMATCH);
        CHECK(windows_fnmatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", s, 0) == WINDOWS_FNM_NOMATCH);
        CHECK(windows_fnmatch("*a*a*a*a", s, 0) == 0);
        CHECK(windows_fnmatch("*?*?*?*[b]", s, 0) == WINDOWS_FNM_NOMATCH);
        s[n] = 'b';
        s[n + 1] = '\0';
        CHECK(windows_fnmatch("*a*a*a*b", s, 0) == 0);
        CHECK(windows_fnmatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", s, 0) == 0);
        /* the control: glibc agrees on a short one */
        CHECK(fnmatch("*a*a*a*b", "aaaaaaaaab", 0) == 0 && windows_fnmatch("*a*a*a*b", "aaaaaaaaab", 0) == 0);
        free(s);
}

int main(void)
{
        tap_run("fnmatch: the Windows build's against glibc's, table", test_table);
        tap_run("fnmatch: no exponential backtracking (*a*a*a*b)", test_backtracking);
        return TAP_DONE();
}
