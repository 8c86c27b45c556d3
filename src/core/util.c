/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Format into |dst| (|cap| bytes, may be 0); when the result does not fit,
 * into a new allocation of its size, returned in |*ret_big|. Returns the
 * length, or -1. One formatting pass for what fits. */
__attribute__((format(printf, 4, 0))) static int format_into(char *dst, size_t cap, char **ret_big, const char *fmt,
                                                            va_list ap)
{
        va_list again;
        va_copy(again, ap);
        int n = vsnprintf(dst, cap, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): every caller starts it
        *ret_big = NULL;
        if (n >= 0 && (size_t)n >= cap) {
                *ret_big = malloc((size_t)n + 1);
                if (!*ret_big || vsnprintf(*ret_big, (size_t)n + 1, fmt, again) != n) {
                        free(*ret_big);
                        *ret_big = NULL;
                        n = -1;
                }
        }
        va_end(again);
        return n;
}

char *xvasprintf(const char *fmt, va_list ap)
{
        char small[256], *big;
        int n = format_into(small, sizeof(small), &big, fmt, ap);
        if (n < 0 || big)
                return big;
        char *s = malloc((size_t)n + 1);
        if (s)
                memcpy(s, small, (size_t)n + 1);
        return s;
}

char *xasprintf(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *s = xvasprintf(fmt, ap);
        va_end(ap);
        return s;
}

char *strnconcat(size_t n, const char *const *parts, const size_t *lens)
{
        size_t total = 0, len[8];
        if (n > ARRAY_SIZE(len))
                return NULL;
        for (size_t i = 0; i < n; i++) {
                len[i] = lens && lens[i] != (size_t)-1 ? lens[i] : strlen(parts[i]);
                total += len[i];
        }
        char *s = malloc(total + 1), *o = s;
        for (size_t i = 0; s && i < n; i++) {
                memcpy(o, parts[i], len[i]);
                o += len[i];
        }
        if (s)
                *o = '\0';
        return s;
}

char *strjoin2(const char *a, const char *b) { return strnconcat(2, (const char *const[]){a, b}, NULL); }
char *strjoin3(const char *a, const char *b, const char *c)
{
        return strnconcat(3, (const char *const[]){a, b, c}, NULL);
}

char *xstrdup(const char *s) { return s ? strdup(s) : NULL; }

size_t strv_len(char *const *v)
{
        size_t n = 0;
        while (v && v[n])
                n++;
        return n;
}

int strv_consume(char ***v, char *s)
{
        if (!s)
                return -ENOMEM;
        size_t n = strv_len(*v);
        char **nv = realloc(*v, (n + 2) * sizeof(char *));
        if (!nv) {
                free(s);
                return -ENOMEM;
        }
        nv[n] = s;
        nv[n + 1] = NULL;
        *v = nv;
        return 0;
}

int strv_push(char ***v, const char *s) { return strv_consume(v, strdup(s)); }

char **strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
        return NULL;
}

char **strv_copy(const char *const *v)
{
        char **r = calloc(1, sizeof(char *));
        for (size_t i = 0; r && v && v[i]; i++)
                if (strv_push(&r, v[i]) < 0)
                        return strv_free(r);
        return r;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void strv_sort(char **v) { qsort(v, strv_len(v), sizeof(char *), cmp_str); }

bool strv_contains(char *const *v, const char *s)
{
        for (size_t i = 0; v && v[i]; i++)
                if (streq(v[i], s))
                        return true;
        return false;
}

char *strv_join(char *const *v, const char *sep)
{
        buf b = {0};
        for (size_t i = 0; v && v[i]; i++)
                buf_printf(&b, "%s%s", i ? sep : "", v[i]);
        return buf_steal(&b);
}

/* Room for |n| more bytes and the NUL; false (and oom) when there is none. */
static bool buf_reserve(buf *b, size_t n)
{
        if (b->oom)
                return false;
        if (b->len + n + 1 <= b->cap)
                return true;
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
                cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
                b->oom = true;
                return false;
        }
        b->data = d;
        b->cap = cap;
        return true;
}

void buf_put(buf *b, const char *s, size_t n)
{
        if (!buf_reserve(b, n))
                return;
        memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = '\0';
}

/* Formats straight into the buffer's free space. */
void buf_printf(buf *b, const char *fmt, ...)
{
        if (!buf_reserve(b, 127)) /* room for most, without a second pass */
                return;
        va_list ap;
        va_start(ap, fmt);
        char *big;
        int n = format_into(b->data + b->len, b->cap - b->len, &big, fmt, ap);
        va_end(ap);
        if (n < 0)
                b->oom = true;
        else if (big)
                buf_put(b, big, (size_t)n);
        else
                b->len += (size_t)n;
        free(big);
}

char *buf_steal(buf *b)
{
        if (b->oom) {
                free(b->data);
                *b = (buf){0};
                return NULL;
        }
        char *s = b->data ? b->data : strdup("");
        *b = (buf){0};
        return s;
}

/* Is the sequence of |n| bytes at |s| a control a terminal acts on, or
 * one that reorders what is shown (U+202A..U+202E, U+2066..U+2069)? */
static bool is_control(const unsigned char *s, size_t n, bool keep_newlines)
{
        if (n == 1)
                return (s[0] < 0x20 && !(keep_newlines && s[0] == '\n')) || s[0] == 0x7f;
        if (n == 2)
                return s[0] == 0xc2 && s[1] < 0xa0; /* C1: U+0080..U+009F */
        return n == 3 && s[0] == 0xe2 &&
               ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) || (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

/* Copy |s| into |b| (when given), escaping; true when anything needed it. */
static bool escape_scan(const char *s, bool keep_newlines, buf *b)
{
        const unsigned char *u = (const unsigned char *)s;
        bool any = false;
        for (size_t i = 0; u[i];) {
                size_t n = utf8_sequence_len(u + i);
                if (n > 0 && !is_control(u + i, n, keep_newlines)) {
                        if (b)
                                buf_put(b, s + i, n);
                        i += n;
                        continue;
                }
                any = true;
                for (size_t k = 0; k < (n ? n : 1); k++)
                        if (b)
                                buf_printf(b, "\\x%02x", u[i + k]);
                i += n ? n : 1;
        }
        return any;
}

void buf_put_escaped(buf *b, const char *s, bool keep_newlines) { (void)escape_scan(s ? s : "", keep_newlines, b); }

bool str_needs_escape(const char *s, bool keep_newlines) { return escape_scan(s ? s : "", keep_newlines, NULL); }

char *str_escape(const char *s, bool keep_newlines)
{
        buf b = {0};
        buf_put_escaped(&b, s, keep_newlines);
        return buf_steal(&b);
}

/* The drive of a Windows path ("C:" before a separator): its length, 0
 * elsewhere. The one place that knows the platform's path syntax. */
static size_t path_drive_len(const char *p)
{
#ifdef _WIN32
        return isalpha((unsigned char)p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/') ? 2 : 0;
#else
        (void)p;
        return 0;
#endif
}

bool path_is_absolute(const char *path)
{
#ifdef _WIN32
        return path && path_drive_len(path) > 0;
#else
        return path && path[0] == '/';
#endif
}

bool path_is_root(const char *path)
{
        size_t d = path ? path_drive_len(path) : 0;
        return path && (d ? path[d + 1] == '\0' : streq(path, "/"));
}

static int normalize_posix(const char *path, bool allow_dotdot, char **ret);

/* "C:/a\\.\\b" -> "C:\\a\\b": the part after the drive normalised as a
 * POSIX path, with Windows' separator. */
static int normalize_drive(const char *path, size_t drive, bool allow_dotdot, char **ret)
{
        _cleanup_free_ char *rest = strdup(path + drive), *n = NULL;
        if (!rest)
                return -ENOMEM;
        for (char *c = rest; *c; c++)
                if (*c == '\\')
                        *c = '/';
        int r = normalize_posix(rest, allow_dotdot, &n);
        if (r < 0)
                return r;
        for (char *c = n; *c; c++)
                if (*c == '/')
                        *c = '\\';
        *ret = xasprintf("%c:%s", toupper((unsigned char)path[0]), n);
        return *ret ? 0 : -ENOMEM;
}

int path_normalize(const char *path, bool allow_dotdot, char **ret)
{
        size_t drive = path ? path_drive_len(path) : 0;
        return drive ? normalize_drive(path, drive, allow_dotdot, ret) : normalize_posix(path, allow_dotdot, ret);
}

static int normalize_posix(const char *path, bool allow_dotdot, char **ret)
{
        if (!path || path[0] != '/')
                return -EINVAL;
        size_t n = strlen(path);
        char *out = malloc(n + 2);
        if (!out)
                return -ENOMEM;
        size_t o = 0;
        const char *p = path;
        while (*p) {
                while (*p == '/')
                        p++;
                const char *e = p + strcspn(p, "/");
                size_t len = (size_t)(e - p);
                if (len == 0 || (len == 1 && p[0] == '.')) {
                        p = e;
                        continue;
                }
                if (len == 2 && p[0] == '.' && p[1] == '.' && !allow_dotdot) {
                        free(out);
                        return -EINVAL;
                }
                if (len == 2 && p[0] == '.' && p[1] == '.') {
                        while (o > 0 && out[o - 1] != '/')
                                o--;
                        if (o > 0)
                                o--;
                        p = e;
                        continue;
                }
                out[o++] = '/';
                memcpy(out + o, p, len);
                o += len;
                p = e;
        }
        if (o == 0)
                out[o++] = '/';
        out[o] = '\0';
        *ret = out;
        return 0;
}

const char *path_skip_prefix(const char *path, const char *prefix)
{
        if (streq(prefix, "/"))
                return path[0] == '/' ? path + 1 : NULL;
        size_t n = strlen(prefix);
        if (strncmp(path, prefix, n) != 0)
                return NULL;
        if (path[n] == '\0')
                return path + n;
        if (path[n] == '/')
                return path + n + 1;
        return NULL;
}

bool path_startswith(const char *path, const char *prefix) { return path_skip_prefix(path, prefix) != NULL; }

char *path_join(const char *a, const char *b)
{
        while (*b == '/')
                b++;
        size_t la = strlen(a);
        while (la > 0 && a[la - 1] == '/')
                la--;
        if (*b == '\0')
                return la ? strndup(a, la) : strdup("/");
        return strnconcat(3, (const char *const[]){a, "/", b}, (const size_t[]){la, 1, (size_t)-1});
}

char *path_dirname(const char *path)
{
        const char *slash = strrchr(path, '/');
        if (!slash || slash == path)
                return strdup("/");
        return strndup(path, (size_t)(slash - path));
}

int path_compare(const char *a, const char *b)
{
        for (;; a++, b++) {
                unsigned char ca = (unsigned char)*a, cb = (unsigned char)*b;
                if (ca == cb) {
                        if (!ca)
                                return 0;
                        continue;
                }
                /* '/' sorts before every other byte, so a parent's children
                 * come right after it. */
                if (ca == '/')
                        ca = 1;
                if (cb == '/')
                        cb = 1;
                return ca < cb ? -1 : 1;
        }
}

int parse_uint64(const char *s, uint64_t *ret)
{
        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        char *end = NULL;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_size(const char *s, uint64_t *ret)
{
        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        char *end = NULL;
        double v = strtod(s, &end);
        if (errno || end == s || !isfinite(v) || v < 0)
                return -EINVAL;
        uint64_t mul = 1;
        switch (*end) {
        case 'k': case 'K': mul = 1ULL << 10; end++; break;
        case 'm': case 'M': mul = 1ULL << 20; end++; break;
        case 'g': case 'G': mul = 1ULL << 30; end++; break;
        case 't': case 'T': mul = 1ULL << 40; end++; break;
        default: break;
        }
        if (mul > 1 && *end == 'i')
                end++;
        if (*end == 'B' || *end == 'b')
                end++;
        if (*end)
                return -EINVAL;
        double bytes = v * (double)mul;
        if (bytes >= 18446744073709551615.0 || bytes != floor(bytes))
                return -EINVAL;
        *ret = (uint64_t)bytes;
        return 0;
}

int parse_seconds(const char *s, double *ret)
{
        if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
                return -EINVAL;
        errno = 0;
        char *end = NULL;
        double v = strtod(s, &end);
        if (errno || end == s || *end || !isfinite(v) || v < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

void format_size(uint64_t bytes, char out[32])
{
        static const char units[] = "KMGT";
        int u = -1;
        uint64_t v = bytes;
        while (v >= 1024 && v % 1024 == 0 && u < 3) {
                v /= 1024;
                u++;
        }
        if (u < 0)
                snprintf(out, 32, "%llu", (unsigned long long)bytes);
        else
                snprintf(out, 32, "%llu%c", (unsigned long long)v, units[u]);
}

size_t utf8_sequence_len(const unsigned char *s)
{
        unsigned char c = s[0];
        size_t n = c < 0x80                 ? 1
                   : c >= 0xC2 && c <= 0xDF ? 2
                   : c >= 0xE0 && c <= 0xEF ? 3
                   : c >= 0xF0 && c <= 0xF4 ? 4
                                            : 0;
        for (size_t i = 1; i < n; i++)
                if ((s[i] & 0xC0) != 0x80)
                        return 0;
        /* overlong forms, UTF-16 surrogates and what lies above U+10FFFF */
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
            (c == 0xF4 && s[1] > 0x8F))
                return 0;
        return n;
}

json_t *json_text(const char *s)
{
        if (!s)
                return json_null();
        const unsigned char *u = (const unsigned char *)s;
        size_t i = 0, n;
        while (u[i] && (n = utf8_sequence_len(u + i)) > 0)
                i += n;
        if (!u[i])
                return json_string(s);
        buf b = {0};
        for (i = 0; u[i]; i += n ? n : 1) {
                n = utf8_sequence_len(u + i);
                if (n)
                        buf_put(&b, s + i, n);
                else
                        buf_printf(&b, "\\x%02X", u[i]);
        }
        _cleanup_free_ char *text = buf_steal(&b);
        return text ? json_string(text) : NULL;
}

bool json_put(json_t *o, const char *key, json_t *v)
{
        if (!o || !v) {
                json_decref(v);
                return false;
        }
        return (key ? json_object_set_new(o, key, v) : json_array_append_new(o, v)) == 0;
}

bool env_name_valid(const char *name) { return name && *name && !strchr(name, '='); }

#if !CORDON_LINUX_BACKEND
/* One component at a time, each opened below the last without following
 * a link. */
int open_nofollow(const char *path, int flags)
{
        if (path[0] != '/') {
                errno = EINVAL;
                return -1;
        }
        int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *p = path;
        while (dfd >= 0) {
                while (*p == '/')
                        p++;
                size_t len = strcspn(p, "/");
                const char *next = p + len;
                while (*next == '/')
                        next++;
                char comp[NAME_MAX + 1];
                if (len > NAME_MAX) {
                        close(dfd);
                        errno = ENAMETOOLONG;
                        return -1;
                }
                memcpy(comp, len ? p : ".", len ? len : 1);
                comp[len ? len : 1] = '\0';
                bool last = *next == '\0';
                int fd = openat(dfd, comp, (last ? flags : O_RDONLY | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC, 0);
                int e = errno;
                close(dfd);
                errno = e;
                if (last)
                        return fd;
                dfd = fd;
                p = next;
        }
        return -1;
}
#endif

bool str_contains_casefold(const char *s, const char *needle)
{
        size_t n = strlen(needle);
        for (; *s; s++)
                if (strncasecmp(s, needle, n) == 0)
                        return true;
        return n == 0;
}

#ifdef FNM_CASEFOLD
int fnmatch_casefold(const char *pattern, const char *s) { return fnmatch(pattern, s, FNM_CASEFOLD); }
#else
static char *lower(const char *s)
{
        char *c = strdup(s);
        for (char *p = c; p && *p; p++)
                *p = (char)tolower((unsigned char)*p);
        return c;
}

int fnmatch_casefold(const char *pattern, const char *s)
{
        _cleanup_free_ char *lp = lower(pattern), *ls = lower(s);
        return lp && ls ? fnmatch(lp, ls, 0) : FNM_NOMATCH;
}
#endif
