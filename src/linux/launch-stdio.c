/* SPDX-License-Identifier: MIT */
/* The command's stdio, prepared by the launcher: each of 0..2 inherited,
 * /dev/null or a pipe whose other end the caller gets, and the command's
 * own terminal (a socket pair over which its master comes back) on those
 * that are a terminal. Called by prepare_launch (launch.c). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "error.h"
#include "launch-internal.h"

/* Whether the host's /dev/ptmx makes terminals (a master answers TIOCGPTN). */
static bool host_has_ptys(void)
{
        unsigned n;
        int fd = openat(AT_FDCWD, "/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        bool ok = fd >= 0 && ioctl(fd, TIOCGPTN, &n) == 0;
        if (fd >= 0)
                close(fd);
        return ok;
}

/* Which of 0..2 get the command's own terminal: those that are a
 * terminal, or (CORDON_PTY_ON) all that are not a pipe or /dev/null when
 * none is. Without stdin on a terminal, CORDON_PTY_AUTO gives none. */
static void pick_pty_fds(const cordon_plan *p, bool pty[3])
{
        bool any = false, usable[3];
        for (int i = 0; i < 3; i++) {
                int fd = p->stdio[i] == CORDON_STDIO_INHERIT ? i : p->stdio[i];
                usable[i] = fd >= 0;
                pty[i] = usable[i] && isatty(fd);
                any |= pty[i];
        }
        if (p->pty == CORDON_PTY_AUTO && !pty[0])
                pty[1] = pty[2] = false;
        else if (p->pty == CORDON_PTY_ON && !any)
                for (int i = 0; i < 3; i++)
                        pty[i] = usable[i];
}

static int setup_pty(const cordon_plan *p, launch_storage *s, cordon_error **ret_error)
{
        if (p->pty == CORDON_PTY_OFF || (p->backend != BACKEND_LINUX && p->backend != BACKEND_LANDLOCK))
                return 0;
        /* the landlock backend's comes from the host's /dev/ptmx: a host
         * without a usable one runs with the caller's terminal (put back at
         * the end: terminal.h) unless a terminal was asked for */
        if (p->backend == BACKEND_LANDLOCK && p->pty == CORDON_PTY_AUTO && !host_has_ptys())
                return 0;
        pick_pty_fds(p, s->l.pty);
        if (!s->l.pty[0] && !s->l.pty[1] && !s->l.pty[2])
                return 0;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->pty_pair) < 0)
                return error_set(ret_error, errno, "cannot create a socket pair: %s", strerror(errno));
        s->l.pty_fd = s->pty_pair[1];
        for (int i = 0; i < 3; i++) {
                if (s->l.pty[i] && s->l.pty_size_fd < 0 && isatty(s->l.stdio[i]))
                        s->l.pty_size_fd = s->l.stdio[i];
                if (s->l.pty[i])
                        s->l.stdio[i] = -1;
        }
        return 0;
}

int launch_setup_stdio(const cordon_plan *p, launch_storage *s, cordon_error **ret_error)
{
        for (int i = 0; i < 3; i++) {
                int want = p->stdio[i];
                if (want >= 0 || want == CORDON_STDIO_INHERIT) {
                        s->l.stdio[i] = want >= 0 ? want : i;
                        continue;
                }
                if (want == CORDON_STDIO_NULL) {
                        s->stdio_child[i] = openat(AT_FDCWD, "/dev/null", (i == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
                        if (s->stdio_child[i] < 0)
                                return error_set(ret_error, errno, "cannot open /dev/null: %s", strerror(errno));
                } else {
                        int fds[2];
                        if (pipe2(fds, O_CLOEXEC) < 0)
                                return error_set(ret_error, errno, "cannot create a pipe: %s", strerror(errno));
                        s->stdio_child[i] = i == 0 ? fds[0] : fds[1];
                        s->stdio_parent[i] = i == 0 ? fds[1] : fds[0];
                }
                s->l.stdio[i] = s->stdio_child[i];
        }
        return setup_pty(p, s, ret_error);
}
