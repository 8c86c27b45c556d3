/* SPDX-License-Identifier: MIT */
/* What the child's files (child.c, netns.c) share: failing, raw system
 * calls, a descriptor passed over a socket. All async-signal-safe. */
#pragma once

#include <errno.h>
#include <sys/socket.h>
#include <sys/uio.h>

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
