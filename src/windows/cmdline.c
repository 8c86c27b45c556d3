/* SPDX-License-Identifier: MIT */
/* argv -> command line. Windows passes a process one string; the program's C
 * runtime (or CommandLineToArgvW) splits it again. The rules, as Microsoft
 * documents them ("Parsing C command-line arguments"):
 *  - the program name (argv[0]) runs to the next blank, or between two '"'
 *    with no escapes at all;
 *  - other arguments are separated by blanks (space, tab) outside quotes;
 *  - 2n backslashes then '"': n backslashes, and the '"' opens/closes a
 *    quoted part; 2n+1 backslashes then '"': n backslashes and a literal '"';
 *  - backslashes not followed by '"' are literal.
 * cmd.exe, which runs .bat/.cmd files, knows none of this: see
 * win_cmdline_batch. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "windows/win.h"

static bool needs_quotes(const char *a)
{
        return !*a || strpbrk(a, " \t\n\v\"") != NULL;
}

static void put_program(buf *b, const char *a)
{
        bool q = needs_quotes(a);
        if (q)
                buf_put(b, "\"", 1);
        buf_put(b, a, strlen(a));
        if (q)
                buf_put(b, "\"", 1);
}

/* One argument after argv[0]: quoted when needed, backslashes doubled only
 * where a '"' (literal, or the closing one) follows them. */
static void put_arg(buf *b, const char *a)
{
        if (!needs_quotes(a)) {
                buf_put(b, a, strlen(a));
                return;
        }
        buf_put(b, "\"", 1);
        for (const char *p = a;; p++) {
                size_t n = 0;
                while (*p == '\\') {
                        p++;
                        n++;
                }
                if (!*p || *p == '"') {
                        /* the backslashes precede a quote: double them */
                        for (size_t i = 0; i < 2 * n; i++)
                                buf_put(b, "\\", 1);
                        if (!*p)
                                break;
                        buf_put(b, "\\\"", 2);
                } else {
                        for (size_t i = 0; i < n; i++)
                                buf_put(b, "\\", 1);
                        buf_put(b, p, 1);
                }
        }
        buf_put(b, "\"", 1);
}

int win_cmdline(char *const *argv, char **ret, const char **ret_reason)
{
        if (!argv || !argv[0]) {
                *ret_reason = "no command";
                return -EINVAL;
        }
        if (strchr(argv[0], '"')) {
                *ret_reason = "the program name contains '\"', which Windows cannot pass in argv[0]";
                return -EINVAL;
        }
        buf b = {0};
        put_program(&b, argv[0]);
        for (size_t i = 1; argv[i]; i++) {
                buf_put(&b, " ", 1);
                put_arg(&b, argv[i]);
        }
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

bool win_is_batch(const char *path)
{
        size_t n = strlen(path);
        while (n > 0 && (path[n - 1] == '.' || path[n - 1] == ' '))
                n--;
        if (n < 4)
                return false;
        const char *ext = path + n - 4;
        return ext[0] == '.' && ((strncasecmp(ext + 1, "bat", 3) == 0) || strncasecmp(ext + 1, "cmd", 3) == 0);
}

/* Why cmd.exe would read |a| (inside "...") as more than text, or NULL. */
static const char *batch_unsafe(const char *a, bool is_script)
{
        if (strchr(a, '"'))
                return "contains '\"', which ends cmd.exe's quoting and lets the rest run as commands";
        if (strchr(a, '%'))
                return "contains '%', which cmd.exe expands as a variable even inside quotes";
        if (strpbrk(a, "\r\n"))
                return "contains a line break, which ends the command in cmd.exe";
        if (!is_script && *a && a[strlen(a) - 1] == '\\')
                return "ends in '\\', which a program the script passes it to reads as escaping the closing '\"'";
        return NULL;
}

int win_cmdline_batch(const char *cmd_exe, const char *script, char *const *argv, char **ret,
                      const char **ret_reason)
{
        if ((*ret_reason = batch_unsafe(script, true)))
                return -EINVAL;
        for (size_t i = 1; argv && argv[i]; i++)
                if ((*ret_reason = batch_unsafe(argv[i], false)))
                        return -EINVAL;
        if (strchr(cmd_exe, '"')) {
                *ret_reason = "the path of cmd.exe contains '\"'";
                return -EINVAL;
        }
        /* /d: no AutoRun commands from the registry; /e:on, /v:off: the
         * extensions every script expects, no delayed '!' expansion; /s /c:
         * strip exactly the outer pair of quotes, then run the rest. Inside
         * quotes, & | < > ( ) ^ are plain text. */
        buf b = {0};
        buf_printf(&b, "\"%s\" /d /e:on /v:off /s /c \"\"%s\"", cmd_exe, script);
        for (size_t i = 1; argv && argv[i]; i++)
                buf_printf(&b, " \"%s\"", argv[i]);
        buf_put(&b, "\"", 1);
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

/* The next code point of UTF-8 |s| (|n| bytes left), its length in
 * |*len|; -1 when invalid. */
static int32_t utf8_next(const unsigned char *s, size_t n, size_t *len)
{
        static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
        size_t k = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
        if (!k || k > n)
                return -1;
        uint32_t c = k == 1 ? s[0] : s[0] & (0x7f >> k);
        for (size_t i = 1; i < k; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return -1;
                c = (c << 6) | (s[i] & 0x3f);
        }
        if (c < min[k] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return -1;
        *len = k;
        return (int32_t)c;
}

int win_utf16(const char *s, size_t n, uint16_t **ret, size_t *ret_units)
{
        uint16_t *w = malloc((n + 1) * sizeof(*w)); /* never more units than bytes */
        if (!w)
                return -ENOMEM;
        size_t u = 0;
        for (size_t i = 0; i < n;) {
                size_t len = 0;
                int32_t c = utf8_next((const unsigned char *)s + i, n - i, &len);
                if (c < 0) {
                        free(w);
                        return -EILSEQ;
                }
                if (c >= 0x10000) {
                        w[u++] = (uint16_t)(0xd800 + ((c - 0x10000) >> 10));
                        w[u++] = (uint16_t)(0xdc00 + ((c - 0x10000) & 0x3ff));
                } else
                        w[u++] = (uint16_t)c;
                i += len;
        }
        w[u] = 0;
        *ret = w;
        *ret_units = u;
        return 0;
}
