/* SPDX-License-Identifier: MIT */
/* The child's channel back to the launcher: the failed step, its errno and
 * path, written to the report pipe (report_step, fail; EOF on the pipe
 * means execve succeeded), the steps' names the launcher prints
 * (child_step_name, for launch.c), and a descriptor sent over a socket
 * (the pty's master, the supervisor's listener, the proxy's socket).
 * Called by the child's files (child*.c, netns.c) after clone(): system
 * calls only. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "child.h"
#include "launch.h"
#include "sys.h"

const char *child_step_name(child_step s)
{
        static const char *const N[] = {
                [STEP_NONE] = "setup",
                [STEP_SYNC] = "waiting for the launcher",
                [STEP_IDENTITY] = "setting the user identity",
                [STEP_HOSTNAME] = "setting the hostname",
                [STEP_PRIVATE] = "making the mount tree private",
                [STEP_ROOT] = "creating the root tmpfs",
                [STEP_PIVOT] = "pivot_root",
                [STEP_MOUNTPOINT] = "creating the mount point",
                [STEP_OPEN_SOURCE] = "opening the mount source",
                [STEP_SOURCE_CHANGED] = "checking the mount source (it changed since planning)",
                [STEP_BIND] = "bind-mounting",
                [STEP_READONLY] = "making a mount read-only",
                [STEP_TMPFS] = "mounting a tmpfs",
                [STEP_PROC] = "mounting /proc",
                [STEP_PROC_HARDEN] = "hardening /proc",
                [STEP_DEV] = "building /dev",
                [STEP_SYMLINK] = "creating a symlink",
                [STEP_FILE] = "writing a generated file",
                [STEP_DETACH_OLDROOT] = "detaching the old root",
                [STEP_NETNS] = "creating the network namespace",
                [STEP_PROXY] = "making the network proxy's listening socket",
                [STEP_LOOPBACK] = "bringing up the loopback interface",
                [STEP_FORK] = "starting the command process",
                [STEP_STDIO] = "setting up stdio",
                [STEP_PTY] = "making the sandbox's terminal (/dev/ptmx)",
                [STEP_CHDIR] = "changing to the working directory",
                [STEP_RLIMIT] = "setting a resource limit",
                [STEP_KEYRING] = "creating a session keyring",
                [STEP_CAPS] = "dropping capabilities",
                [STEP_NO_NEW_PRIVS] = "setting no_new_privs",
                [STEP_LANDLOCK] = "applying Landlock",
                [STEP_SECCOMP] = "installing the seccomp filter",
                [STEP_EXEC] = "executing the command",
                [STEP_EXE_CHANGED] = "checking the executable (it changed since planning)",
                [STEP_MOUNTPOINT_CHANGED] = "checking the mount point (it changed since planning)",
                [STEP_CGROUP] = "joining the cgroup",
                [STEP_SUBREAPER] = "becoming the supervisor of the process tree (a session of its own)",
                [STEP_SUPERVISE] = "handing the command's metadata and connect calls to the launcher",
                [STEP_PLACEHOLDERS] = "waiting for the placeholders of protected paths",
                [STEP_CLONE] = "creating the namespaces",
                [STEP_ID_MAPS] = "writing the uid/gid maps",
        };
        return (size_t)s < ARRAY_SIZE(N) && N[s] ? N[s] : "setup";
}

void report_step(const launch *l, child_step step, int err, const char *path)
{
        child_report r = {.step = step, .err = err};
        if (path)
                sys_strlcpy(r.path, path, sizeof(r.path));
        (void)!write(l->report_fd, &r, sizeof(r));
}

_Noreturn void fail(const launch *l, child_step step, int err, const char *path)
{
        report_step(l, step, err, path);
        _exit(125);
}

#if !SYS_RAW_AVAILABLE
long init_call(long nr, long a, long b, long c, long d)
{
        long r = syscall(nr, a, b, c, d);
        return r < 0 ? -errno : r;
}
#endif

void fd_message_init(fd_message *fm, int fd)
{
        memset(fm, 0, sizeof(*fm));
        fm->byte = 'F';
        fm->iov = (struct iovec){&fm->byte, 1};
        fm->m = (struct msghdr){.msg_iov = &fm->iov, .msg_iovlen = 1, .msg_control = fm->u.buf,
                                .msg_controllen = sizeof(fm->u.buf)};
        struct cmsghdr *h = CMSG_FIRSTHDR(&fm->m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof(fd));
}
