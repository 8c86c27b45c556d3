/* SPDX-License-Identifier: MIT */
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

pid_t sys_clone(unsigned long flags, int *ret_pidfd)
{
        int pidfd = -1;
        unsigned long cflags = flags & ~0xffUL;
        struct clone_args args = {
                .flags = cflags | (ret_pidfd ? CLONE_PIDFD : 0),
                .pidfd = (uint64_t)(uintptr_t)&pidfd,
                .exit_signal = flags & 0xff,
        };
        long r = syscall(SYS_clone3, &args, sizeof(args));
        if (r < 0 && errno == ENOSYS) {
                /* clone(2): the pidfd pointer is the parent_tid argument,
                 * third on every architecture. A NULL stack means fork. */
                r = syscall(SYS_clone, flags | (ret_pidfd ? CLONE_PIDFD : 0), NULL, &pidfd, NULL, 0);
        }
        if (r > 0 && ret_pidfd)
                *ret_pidfd = pidfd;
        return (pid_t)r;
}

int sys_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
        struct open_how how = {.flags = flags, .resolve = resolve};
        return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

int sys_pivot_root(const char *new_root, const char *put_old)
{
        return (int)syscall(SYS_pivot_root, new_root, put_old);
}

int sys_close_range(unsigned first, unsigned last, unsigned flags)
{
        return (int)syscall(SYS_close_range, first, last, flags);
}

int sys_dup_cloexec(int fd, int min)
{
        return (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, min);
}

int sys_landlock_create_ruleset(const void *attr, size_t size, uint32_t flags)
{
        return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

int sys_landlock_add_rule(int ruleset, int type, const void *attr, uint32_t flags)
{
        return (int)syscall(SYS_landlock_add_rule, ruleset, type, attr, flags);
}

int sys_landlock_restrict_self(int ruleset, uint32_t flags)
{
        return (int)syscall(SYS_landlock_restrict_self, ruleset, flags);
}

int sys_pidfd_send_signal(int pidfd, int sig, void *info, unsigned flags)
{
        return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags);
}

/* A system call that leaves errno alone where that can be had. */
static long call_noerrno(long nr, long a, long b, long c, long d)
{
#if SYS_RAW_AVAILABLE
        return sys_raw(nr, a, b, c, d);
#else
        int saved = errno;
        long r = syscall(nr, a, b, c, d);
        if (r < 0)
                r = -errno;
        errno = saved;
        return r;
#endif
}

/* PF_EXITING of include/linux/sched.h (the value has not changed since
 * Linux 2.6). */
#define TASK_PF_EXITING 0x00000004UL

bool sys_task_gone(int task_dirfd)
{
        char st[1024];
        long fd = call_noerrno(SYS_openat, task_dirfd, (long)"stat", O_RDONLY | O_CLOEXEC, 0);
        if (fd == -ENOENT) {
                /* Released: nothing resolves below its directory any more.
                 * Unless /proc hides it from us (hidepid=invisible: then
                 * the directory itself cannot be stat'ed while it lives). */
                struct stat dir;
                return call_noerrno(SYS_newfstatat, task_dirfd, (long)"", (long)&dir, AT_EMPTY_PATH) == 0;
        }
        if (fd < 0)
                return fd == -ESRCH;
        long n = call_noerrno(SYS_read, fd, (long)st, sizeof(st) - 1, 0);
        call_noerrno(SYS_close, fd, 0, 0, 0);
        if (n <= 0)
                return n == -ESRCH || n == 0;
        st[n] = '\0';
        /* "pid (comm) S ppid pgrp session tty_nr tpgid flags ...": the
         * comm may hold anything, so start after the last ')' */
        const char *p = strrchr(st, ')');
        if (!p)
                return false;
        p++;
        while (*p == ' ')
                p++;
        if (*p == 'Z' || *p == 'X' || *p == 'x')
                return true;
        for (int field = 0; field < 6; field++) {
                while (*p && *p != ' ')
                        p++;
                while (*p == ' ')
                        p++;
        }
        unsigned long flags = 0;
        for (; *p >= '0' && *p <= '9'; p++)
                flags = flags * 10 + (unsigned long)(*p - '0');
        return (flags & TASK_PF_EXITING) != 0;
}

size_t sys_strlcpy(char *dst, const char *src, size_t size)
{
        size_t n = strlen(src);
        if (size) {
                size_t k = n < size - 1 ? n : size - 1;
                memcpy(dst, src, k);
                dst[k] = '\0';
        }
        return n;
}

/* Walk |path| from the directory |start| one component at a time with
 * O_NOFOLLOW, creating missing directories when |create|. Returns an O_PATH
 * fd of the parent directory (the caller's; |start| stays open) and points
 * |*last| at the final component. */
int sys_walk_parent(int start, const char *path, bool create, const char **last)
{
        int dfd = start;
        const char *p = path;
        while (dfd >= 0) {
                while (*p == '/')
                        p++;
                const char *end = strchrnul(p, '/');
                const char *next = end;
                while (*next == '/')
                        next++;
                if (*next == '\0') {
                        *last = p;
                        return dfd == start ? sys_dup_cloexec(start, 3) : dfd;
                }
                char comp[NAME_MAX + 1];
                size_t len = (size_t)(end - p);
                int nfd = -1, e = ENAMETOOLONG;
                if (len <= NAME_MAX) {
                        memcpy(comp, p, len);
                        comp[len] = '\0';
                        if (create && mkdirat(dfd, comp, 0755) < 0 && errno != EEXIST)
                                e = errno;
                        else {
                                nfd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                                e = errno;
                        }
                }
                if (dfd != start)
                        close(dfd);
                errno = e;
                dfd = nfd;
                p = next;
        }
        return -1;
}

int sys_open_nofollow(const char *path, int flags)
{
        int fd = sys_openat2(AT_FDCWD, path, (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
                             RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        if (fd >= 0 || errno != ENOSYS)
                return fd;
        /* before Linux 5.6: one component at a time */
        if (path[0] != '/') {
                errno = EINVAL;
                return -1;
        }
        int root = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        const char *last = NULL;
        int dfd = root < 0 ? -1 : sys_walk_parent(root, path, false, &last);
        if (root >= 0)
                close(root);
        if (dfd < 0)
                return -1;
        fd = openat(dfd, *last ? last : ".", flags | O_NOFOLLOW | O_CLOEXEC, 0);
        int e = errno;
        close(dfd);
        errno = e;
        return fd;
}

int open_nofollow(const char *path, int flags) { return sys_open_nofollow(path, flags); }

bool sys_keyrings_refused(void)
{
        /* the session keyring's id: allowed, it succeeds (or ENOKEY) */
        if (syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) >= 0 || errno != EPERM)
                return false;
        /* no type: allowed, both fail with EFAULT */
        if (syscall(SYS_add_key, NULL, NULL, NULL, 0, KEY_SPEC_SESSION_KEYRING) >= 0 || errno != EPERM)
                return false;
        return syscall(SYS_request_key, NULL, NULL, NULL, 0) < 0 && errno == EPERM;
}

bool sys_write_all(int fd, const void *data, size_t len)
{
        const char *p = data;
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        if (n == 0)
                                errno = EIO;
                        return false;
                }
                p += n;
                len -= (size_t)n;
        }
        return true;
}

/* getdents64(2)'s record */
struct dirent64_record {
        uint64_t ino;
        int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[];
};

int sys_dir_each(int dfd, void *records, size_t size, bool (*fn)(void *ctx, const char *name, unsigned char type),
                 void *ctx)
{
        for (;;) {
                long n = syscall(SYS_getdents64, dfd, records, size);
                if (n <= 0)
                        return n < 0 ? -errno : 0;
                for (long at = 0; at < n;) {
                        const struct dirent64_record *e = (const void *)((const char *)records + at);
                        at += e->reclen;
                        if (streq(e->name, ".") || streq(e->name, ".."))
                                continue;
                        if (!fn(ctx, e->name, e->type))
                                return 0;
                }
        }
}
