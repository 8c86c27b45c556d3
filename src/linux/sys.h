/* SPDX-License-Identifier: MIT */
/* Raw system call wrappers for what glibc 2.36 lacks. All are async-signal-
 * safe: they may be used in the child after clone(). They return what the
 * kernel returns, with errno set on failure. */
#pragma once

#include <linux/openat2.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "util.h"

/* the pidfd calls' numbers where the libc's headers are older (x86_64's) */
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif

/* fork-like clone3: no new stack, |flags| CLONE_* plus an exit signal.
 * Returns the child's pid (0 in the child); stores a pidfd when
 * |ret_pidfd| is not NULL. Falls back to clone(2) where clone3 is missing. */
pid_t sys_clone(unsigned long flags, int *ret_pidfd) HIDDEN;
int sys_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve) HIDDEN;
/* open() refusing a symlink anywhere on the way (RESOLVE_NO_SYMLINKS; a
 * component walk with O_NOFOLLOW before Linux 5.6). Host side only. */
int sys_open_nofollow(const char *path, int flags) HIDDEN;
/* Walk |path| from the directory |start| one component at a time with
 * O_NOFOLLOW, creating missing directories when |create|. Returns an
 * O_PATH fd of the parent directory (|start| stays open) and points
 * |*last| at the final component. Async-signal-safe. */
int sys_walk_parent(int start, const char *path, bool create, const char **last) HIDDEN;
int sys_pivot_root(const char *new_root, const char *put_old) HIDDEN;
int sys_close_range(unsigned first, unsigned last, unsigned flags) HIDDEN;
/* fcntl(F_DUPFD_CLOEXEC) in one system call (musl's adds an F_SETFD, for
 * kernels before 2.6.24). Async-signal-safe. */
int sys_dup_cloexec(int fd, int min) HIDDEN;
int sys_landlock_create_ruleset(const void *attr, size_t size, uint32_t flags) HIDDEN;
int sys_landlock_add_rule(int ruleset, int type, const void *attr, uint32_t flags) HIDDEN;
int sys_landlock_restrict_self(int ruleset, uint32_t flags) HIDDEN;
int sys_pidfd_send_signal(int pidfd, int sig, void *info, unsigned flags) HIDDEN;
/* Are keyctl, add_key and request_key all refused with EPERM from outside
 * (a container runtime's seccomp profile, e.g. Docker's default)? Probed
 * with calls that succeed or fail otherwise where they are allowed. Then
 * nothing cordon starts can reach a keyring either. Async-signal-safe. */
bool sys_keyrings_refused(void) HIDDEN;

/* A system call that never touches errno (or anything else in the calling
 * thread's TLS): returns the kernel's result, -errno on failure. Used by an
 * init that shares the launcher's memory, and so its thread's errno.
 * SYS_RAW_AVAILABLE is 0 where it is not implemented. */
#if defined(__x86_64__)
#define SYS_RAW_AVAILABLE 1
static inline long sys_raw(long nr, long a, long b, long c, long d)
{
        register long r10 __asm__("r10") = d;
        long ret;
        __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
        return ret;
}
static inline long sys_raw5(long nr, long a, long b, long c, long d, long e)
{
        register long r10 __asm__("r10") = d;
        register long r8 __asm__("r8") = e;
        long ret;
        __asm__ volatile("syscall"
                         : "=a"(ret)
                         : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                         : "rcx", "r11", "memory");
        return ret;
}
#elif defined(__aarch64__)
#define SYS_RAW_AVAILABLE 1
static inline long sys_raw(long nr, long a, long b, long c, long d)
{
        register long x8 __asm__("x8") = nr;
        register long x0 __asm__("x0") = a;
        register long x1 __asm__("x1") = b;
        register long x2 __asm__("x2") = c;
        register long x3 __asm__("x3") = d;
        __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory", "cc");
        return x0;
}
static inline long sys_raw5(long nr, long a, long b, long c, long d, long e)
{
        register long x8 __asm__("x8") = nr;
        register long x0 __asm__("x0") = a;
        register long x1 __asm__("x1") = b;
        register long x2 __asm__("x2") = c;
        register long x3 __asm__("x3") = d;
        register long x4 __asm__("x4") = e;
        __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory", "cc");
        return x0;
}
#else
#define SYS_RAW_AVAILABLE 0
#endif

/* Is the thread whose /proc directory |task_dirfd| is (an O_PATH fd of
 * /proc/thread-self, opened by that thread) gone or exiting? Exiting means
 * Linux's PF_EXITING, which do_exit() sets before it hands the thread's
 * children to a new parent (and sends them their parent death signal); the
 * descriptor names that very thread even if its number is reused. False
 * when it cannot tell (the read is refused). Touches no errno (raw system
 * calls where available): a shared-memory child calls it. */
bool sys_task_gone(int task_dirfd) HIDDEN;

/* Writes all |len| bytes of |data| to |fd| (EINTR retried): true, or
 * false with errno (EIO for a write of nothing). */
bool sys_write_all(int fd, const void *data, size_t len) HIDDEN;
/* Calls |fn| for each entry but "." and ".." of the directory |dfd|, from
 * its current offset, with the type getdents64 gives (DT_UNKNOWN where the
 * filesystem does not say), until |fn| returns false. Read straight from
 * the descriptor into |records| (|size| bytes, 8-aligned, at least 512): four
 * system calls a directory where opendir takes up to nine. Returns 0, or
 * -errno of a read. */
int sys_dir_each(int dfd, void *records, size_t size, bool (*fn)(void *ctx, const char *name, unsigned char type),
                 void *ctx) HIDDEN;

/* Async-signal-safe string helpers for the child. */
size_t sys_strlcpy(char *dst, const char *src, size_t size) HIDDEN;
