/* SPDX-License-Identifier: MIT */
/* Helpers: pure (no system calls except memory allocation), but for
 * open_nofollow. */
#pragma once

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef _WIN32 /* PE exports only what is marked dllexport: nothing to hide */
#define HIDDEN
#else
#define HIDDEN __attribute__((visibility("hidden")))
#endif
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define STR_(x) #x
#define STR(x) STR_(x)

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(const int *fd)
{
        if (*fd >= 0)
                close(*fd);
}
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_strv_ _cleanup_(strv_freep)

/* Hand over ownership: returns the pointer and NULLs the variable. */
#define TAKE_PTR(p)                           \
        ({                                    \
                __typeof__(p) _p_ = (p);      \
                (p) = NULL;                   \
                _p_;                          \
        })
#define TAKE_FD(fd)                           \
        ({                                    \
                int _fd_ = (fd);              \
                (fd) = -1;                    \
                _fd_;                         \
        })

static inline bool streq(const char *a, const char *b) { return a && b && __builtin_strcmp(a, b) == 0; }
static inline bool streq_ptr(const char *a, const char *b) { return (!a && !b) || streq(a, b); }

/* JSON output (jansson), for every JSON cordon writes. json_text: a JSON
 * string of |s| (NULL: null) that keeps valid UTF-8 as it is and writes
 * each byte that is not part of valid UTF-8 as the four characters \xNN
 * (jansson refuses such strings); NULL on ENOMEM. json_put: adds |v| to
 * object |o| (or array |o| when |key| is NULL), taking |v|; false when |v|
 * is NULL or on ENOMEM. */
typedef struct json_t json_t;
json_t *json_text(const char *s) HIDDEN;
bool json_put(json_t *o, const char *key, json_t *v) HIDDEN;
/* Length of the valid UTF-8 sequence at |s| (1..4), or 0. */
size_t utf8_sequence_len(const unsigned char *s) HIDDEN;

/* printf into a new string; NULL on ENOMEM. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2))) HIDDEN;
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0))) HIDDEN;
/* Concatenate |n| strings (the first |len| bytes of each, or all of it when
 * len is (size_t)-1) without printf; NULL on ENOMEM. For hot paths. */
char *strnconcat(size_t n, const char *const *parts, const size_t *lens) HIDDEN;
/* a + b, a + sep + b */
char *strjoin2(const char *a, const char *b) HIDDEN;
char *strjoin3(const char *a, const char *b, const char *c) HIDDEN;
/* strdup that accepts NULL. */
char *xstrdup(const char *s) HIDDEN;

/* NULL-terminated string vectors. */
size_t strv_len(char *const *v) HIDDEN;
/* Appends a copy of |s|; -ENOMEM on failure. */
int strv_push(char ***v, const char *s) HIDDEN;
/* Appends |s| itself (takes ownership, also on failure). */
int strv_consume(char ***v, char *s) HIDDEN;
char **strv_free(char **v) HIDDEN;
char **strv_copy(const char *const *v) HIDDEN;
void strv_sort(char **v) HIDDEN;
bool strv_contains(char *const *v, const char *s) HIDDEN;
/* The strings joined by |sep| (caller frees), or NULL. */
char *strv_join(char *const *v, const char *sep) HIDDEN;
static inline void strv_freep(char ***v) { strv_free(*v); }

#ifndef _GNU_SOURCE
extern char **environ; /* <unistd.h> declares it only for _GNU_SOURCE */
#endif

/* strcasestr: |needle| in |s|, ignoring ASCII case. */
bool str_contains_casefold(const char *s, const char *needle) HIDDEN;
/* fnmatch(|pattern|, |s|, FNM_CASEFOLD), also where that flag is not
 * POSIX's (0: a match). */
int fnmatch_casefold(const char *pattern, const char *s) HIDDEN;

/* Open flags for a directory fd only to work below (openat, mkdirat):
 * O_PATH on Linux, else POSIX's O_SEARCH, else O_RDONLY. */
#if defined(O_PATH)
#define O_DIRFD O_PATH
#elif defined(O_SEARCH)
#define O_DIRFD O_SEARCH
#else
#define O_DIRFD O_RDONLY
#endif

/* open() refusing a symlink anywhere on the way (|path| absolute): the
 * linux backend's sys_open_nofollow, else a walk of O_NOFOLLOW opens. */
int open_nofollow(const char *path, int flags) HIDDEN;

/* A growable byte buffer for building text. */
typedef struct buf {
        char *data;
        size_t len, cap;
        bool oom;
} buf;
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3))) HIDDEN;
void buf_put(buf *b, const char *s, size_t n) HIDDEN;
/* Returns the string (caller frees) or NULL after an allocation failure. */
char *buf_steal(buf *b) HIDDEN;

/* Paths. All take and return absolute paths without trailing slashes. */
/* Normalise an absolute path: collapse "//" and "/./", drop a trailing "/".
 * Fails (-EINVAL) on a relative path and, unless |allow_dotdot|, on a ".."
 * component. */
int path_normalize(const char *path, bool allow_dotdot, char **ret) HIDDEN;
/* Absolute on this platform: "/..." (on Windows: "C:\\..." or "C:/...",
 * whose path_normalize is "C:\\..."). */
bool path_is_absolute(const char *path) HIDDEN;
/* "/" (on Windows also "C:\\"), once normalised. */
bool path_is_root(const char *path) HIDDEN;
/* True when |path| is |prefix| or below it (component-wise). */
bool path_startswith(const char *path, const char *prefix) HIDDEN;
/* The part of |path| below |prefix| ("" when equal), or NULL. */
const char *path_skip_prefix(const char *path, const char *prefix) HIDDEN;
/* |a| + "/" + |b|, with no doubled slash. */
char *path_join(const char *a, const char *b) HIDDEN;
/* Parent directory of an absolute path ("/" for "/x"). */
char *path_dirname(const char *path) HIDDEN;
/* Order parents before children: "/a" < "/a/b" < "/a-b". */
int path_compare(const char *a, const char *b) HIDDEN;

/* "512M" -> 536870912. Suffixes K M G T (x1024), optional "B"/"iB". */
int parse_size(const char *s, uint64_t *ret) HIDDEN;
/* "1.5" -> 1.5 seconds; non-negative, finite. */
int parse_seconds(const char *s, double *ret) HIDDEN;
/* Non-negative integer in base 10. */
int parse_uint64(const char *s, uint64_t *ret) HIDDEN;
/* 536870912 -> "512M" (exact binary multiples only, else bytes). */
void format_size(uint64_t bytes, char out[32]) HIDDEN;

/* Is |name| a valid environment variable name (non-empty, no '=')? */
bool env_name_valid(const char *name) HIDDEN;
