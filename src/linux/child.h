/* SPDX-License-Identifier: MIT */
/* What the child's files (child*.c, netns.c) share: failing, raw system
 * calls, a descriptor passed over a socket, and the steps each file gives
 * the init. All async-signal-safe. */
#pragma once

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "launch.h"
#include "sys.h"

/* Report |step| failed with |err| on |path| (may be NULL) to the launcher,
 * and _exit(125). */
_Noreturn void fail(const launch *l, child_step step, int err, const char *path) HIDDEN;

#define CHECK(l, expr, step, path)                                     \
        do {                                                           \
                if ((expr) < 0)                                        \
                        fail((l), (step), errno, (path));              \
        } while (0)

/* System calls that leave errno alone: an init that shares the launcher's
 * memory (CLONE_VM) also shares its thread's errno and TLS while the
 * launcher goes on, and so does the init's helper thread. */
#if SYS_RAW_AVAILABLE
#define INIT_CALL(nr, a, b, c, d) sys_raw((nr), (long)(a), (long)(b), (long)(c), (long)(d))
#else
/* Where sys_raw is missing: syscall(), returning -errno on failure. */
long init_call(long nr, long a, long b, long c, long d) HIDDEN;
#define INIT_CALL(nr, a, b, c, d) init_call((nr), (long)(a), (long)(b), (long)(c), (long)(d))
#endif

/* One byte carrying one descriptor (SCM_RIGHTS), built without malloc. */
typedef struct fd_message {
        char byte;
        struct iovec iov;
        struct msghdr m;
        /* last: glibc's cmsghdr ends in a flexible array (clang refuses it elsewhere) */
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u;
} fd_message;

/* |fm| carrying |fd|, ready for sendmsg(). */
void fd_message_init(fd_message *fm, int fd) HIDDEN;

/* What the child's files give the init (child.c). */

/* The monotonic clock in seconds, 0 when it cannot be read. */
static inline double clock_s(void)
{
        struct timespec ts;
        return clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 : 0;
}

/* Note the time of |m| in the launcher's timing page, if it asked. */
static inline void stamp(const launch *l, mark m)
{
        if (l->marks)
                l->marks->mark[m] = clock_s();
}

/* child-report.c: |step| failed with |err| on |path| (may be NULL), to
 * the launcher; fail() is the same, then _exit(125). */
void report_step(const launch *l, child_step step, int err, const char *path) HIDDEN;

/* child-mounts.c, the view in this order; each fails the child (never
 * returns) on error. Make "/" private, mount the new root's tmpfs on
 * l->base_dir and pivot_root to it, the old root kept at OLDROOT. */
void enter_new_root(const launch *l) HIDDEN;
/* The plan's mounts, in its order, each with its Landlock rule; waits for
 * the launcher's placeholders before the first that needs them. */
void apply_ops(const launch *l) HIDDEN;
/* Detach the old root, then make "/" and /dev read-only. */
void finish_root(const launch *l) HIDDEN;

/* child-exec.c: the command's setup and execve, in the command's process
 * (after the init's fork, or the landlock backend's child itself). */
_Noreturn void exec_command(const launch *l) HIDDEN;
/* child-pty.c: the command's own terminal, its controlling terminal on the
 * fds marked in l->pty, the master sent to the launcher; |ws|: the
 * caller's window size, or NULL. Fails the child on error. */
void open_terminal(const launch *l, const struct winsize *ws) HIDDEN;

/* child-tree.c, the landlock backend's supervisor. Become it: a session of
 * its own, a child subreaper, its parent death signal l->death_signal.
 * Returns its pid; fails the child on error. */
pid_t become_tree_supervisor(const launch *l) HIDDEN;
/* Send |sig| to every descendant of |self|; returns how many. */
int signal_descendants(pid_t self, int sig) HIDDEN;
/* Kill every descendant of |self| and reap them all. */
void kill_descendants(pid_t self) HIDDEN;
