/* SPDX-License-Identifier: MIT */
/* The cgroup filesystem's files for the other cgroup files: read and
 * written whole (one value per write, as cgroupfs takes them), every path
 * under cgroup_env.root so that the unit tests use a fixture tree, and
 * whether the caller may write one (ownership and mode bits, as the kernel
 * decides for a delegated cgroup). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup-internal.h"

int cg_fail_why(char **why, int r, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        free(*why);
        *why = xvasprintf(fmt, ap);
        va_end(ap);
        return r;
}

/* The next pid of a cgroup.procs text, advancing |*p|; 0 at the end. */
pid_t cg_next_pid(const char **p)
{
        while (*p && **p) {
                char *end = NULL;
                long v = strtol(*p, &end, 10);
                const char *nl = strchr(*p, '\n');
                *p = nl ? nl + 1 : NULL;
                if (end && v > 0)
                        return (pid_t)v;
        }
        return 0;
}

bool cg_is_fixture(const cgroup_env *env)
{
        return env->root && env->root[0];
}

/* |root| + |path|. */
char *cg_at_root(const cgroup_env *env, const char *path)
{
        return xasprintf("%s%s", env->root ? env->root : "", path);
}

/* The whole of a small file, NUL-terminated; NULL with errno set. */
char *cg_read_text(const char *path)
{
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        buf b = {0};
        char chunk[4096];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof(chunk))) > 0 && b.len < (1 << 20))
                buf_put(&b, chunk, (size_t)n);
        int e = n < 0 ? errno : 0;
        close(fd);
        char *s = buf_steal(&b);
        if (e || !s) {
                free(s);
                errno = e ? e : ENOMEM;
                return NULL;
        }
        return s;
}

char *cg_read_file2(const char *dir, const char *name)
{
        _cleanup_free_ char *p = path_join(dir, name);
        return p ? cg_read_text(p) : NULL;
}

/* Write |text| in one write(2): cgroup files take one value per write. In
 * a fixture the file is created (the kernel would have). Returns 0 or
 * -errno. */
static int write_text(bool fixture, const char *path, const char *text)
{
        int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC | (fixture ? O_CREAT | O_TRUNC : 0), 0644);
        if (fd < 0)
                return -errno;
        size_t len = strlen(text);
        ssize_t n = write(fd, text, len);
        int e = n < 0 ? errno : 0;
        close(fd);
        if (e)
                return -e;
        return n == (ssize_t)len ? 0 : -EIO;
}

int cg_write_file2(bool fixture, const char *dir, const char *name, const char *text)
{
        _cleanup_free_ char *p = path_join(dir, name);
        return p ? write_text(fixture, p, text) : -ENOMEM;
}

/* The number after "|key| " in a "key value" file (memory.events,
 * memory.oom_control, pids.events). */
static bool kv_get(const char *text, const char *key, uint64_t *ret)
{
        size_t klen = strlen(key);
        for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                if (strncmp(l, key, klen) == 0 && l[klen] == ' ') {
                        char num[32];
                        size_t n = strcspn(l + klen + 1, "\n");
                        if (n == 0 || n >= sizeof(num))
                                return false;
                        memcpy(num, l + klen + 1, n);
                        num[n] = '\0';
                        return parse_uint64(num, ret) == 0;
                }
        }
        return false;
}

bool cg_read_u64(const char *dir, const char *name, uint64_t *ret)
{
        _cleanup_free_ char *t = cg_read_file2(dir, name);
        if (!t)
                return false;
        t[strcspn(t, "\n")] = '\0';
        return parse_uint64(t, ret) == 0;
}

bool cg_read_kv(const char *dir, const char *name, const char *key, uint64_t *ret)
{
        _cleanup_free_ char *t = cg_read_file2(dir, name);
        return t && kv_get(t, key, ret);
}

/* Is |word| one of the separator-separated words of |list|? */
bool cg_has_word(const char *list, const char *word, const char *seps)
{
        size_t wl = strlen(word);
        for (const char *p = list; p && *p;) {
                p += strspn(p, seps);
                size_t n = strcspn(p, seps);
                if (n == wl && strncmp(p, word, n) == 0)
                        return true;
                p += n;
        }
        return false;
}

/* May |env|'s user create entries in (directory) or write (file) |path|?
 * Decided from ownership and mode bits, as the kernel does for cgroupfs
 * (delegation is by chown); the real operation has the last word. */
bool cg_may_write(const cgroup_env *env, const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0)
                return false;
        if (env->uid == 0)
                return true;
        if (st.st_uid == env->uid)
                return st.st_mode & S_IWUSR;
        if (st.st_gid == env->gid)
                return st.st_mode & S_IWGRP;
        return st.st_mode & S_IWOTH;
}

bool cg_may_write2(const cgroup_env *env, const char *dir, const char *name)
{
        _cleanup_free_ char *p = path_join(dir, name);
        return p && cg_may_write(env, p);
}
