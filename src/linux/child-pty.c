/* SPDX-License-Identifier: MIT */
/* The command's own terminal, made on its side just before execve: a new
 * pair from /dev/ptmx, its controlling terminal, the master sent to the
 * launcher (which relays it to the caller's terminal). Called by the
 * command's setup (child-exec.c): system calls only. */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "child.h"
#include "landlock.h"
#include "launch.h"

/* The command's own terminal, from the sandbox's devpts (the landlock
 * backend's: the host's, a new pair): its controlling terminal on the fds
 * marked in l->pty, its master sent to the launcher, which relays; |ws|:
 * the caller's window size, or NULL. The command never holds the caller's
 * terminal, so it cannot change its settings nor size for good, and a
 * TIOCSTI on it reaches only this terminal. */
void open_terminal(const launch *l, const struct winsize *ws)
{
        int master = openat(AT_FDCWD, "/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0)
                fail(l, STEP_PTY, errno, "/dev/ptmx");
        int unlock = 0;
        CHECK(l, ioctl(master, TIOCSPTLCK, &unlock), STEP_PTY, "/dev/ptmx");
        int slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (slave < 0)
                fail(l, STEP_PTY, errno, "/dev/ptmx");
        CHECK(l, ioctl(slave, TIOCSCTTY, 0), STEP_PTY, NULL);
        /* the landlock backend: its own terminal also by name (/dev/pts/N,
         * which ttyname gives), no other */
        if (l->backend == BACKEND_LANDLOCK && l->landlock_fd >= 0) {
                int r = landlock_allow_fd(l->landlock_fd, slave, l->access_pty, false);
                if (r < 0)
                        fail(l, STEP_PTY, -r, "Landlock rule for the terminal");
        }
        if (ws)
                ioctl(slave, TIOCSWINSZ, ws);
        /* the sandbox user's own terminal, to reopen by name (ttyname) */
        if (l->switch_user)
                CHECK(l, fchown(slave, l->run_uid, (gid_t)-1), STEP_PTY, "the terminal for the sandbox user");
        for (int i = 0; i < 3; i++)
                if (l->pty[i] && dup2(slave, i) < 0)
                        fail(l, STEP_PTY, errno, NULL);
        if (slave > 2)
                close(slave);
        fd_message fm;
        fd_message_init(&fm, master);
        if (sendmsg(l->pty_fd, &fm.m, MSG_NOSIGNAL) < 0)
                fail(l, STEP_PTY, errno, NULL);
        close(master);
        close(l->pty_fd);
}
