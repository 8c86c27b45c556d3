/* SPDX-License-Identifier: MIT */
/* The landlock backend's supervisor and the process tree it keeps without
 * a pid namespace: becoming a child subreaper in a session of its own
 * (become_tree_supervisor, for child_exec_main), and signalling or killing
 * every descendant (signal_descendants, kill_descendants, for the init's
 * loop in child.c). After clone(): raw system calls only.
 *
 * The supervisor is a child subreaper: every process the command starts
 * stays its descendant, whatever it does (double fork, setsid), as
 * orphans are handed to it. So "the sandbox" is the processes whose chain
 * of parents leads to it, read from /proc; kill(-1) would be every process
 * of the user on the host. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "child.h"
#include "launch.h"

/* The landlock backend's supervisor. A child subreaper, so that nothing
 * the command starts leaves its tree; its parent death signal becomes one
 * it reads (still blocked, like every signal here), so that the launcher's
 * death makes it kill the tree before it exits. Until this prctl the
 * SIGKILL armed by wait_for_launcher covers that death: no command runs
 * yet. The command cannot signal nor ptrace it: Landlock scopes signals to
 * the command's domain (ABI >= 6; below, the call supervisor serves the
 * signal calls for our descendants only, supervise-signal.c) and refuses
 * ptrace outside it.
 * A session of its own first: a SIGKILL to the launcher's process group
 * or session (a terminal's job control, a supervisor killing a job) must
 * not reach the supervisor too, which would leave the tree running; only
 * the launcher dies, and its death signal makes us kill the tree. (The
 * linux backend's init may share the group: its death ends its pid
 * namespace.) Before the command exists, so a group kill until here
 * leaves nothing. */
pid_t become_tree_supervisor(const launch *l)
{
        INIT_CALL(SYS_prctl, PR_SET_NAME, "cordon-tree", 0, 0);
        long r = INIT_CALL(SYS_setsid, 0, 0, 0, 0);
        if (r >= 0)
                r = INIT_CALL(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0);
        if (r == 0)
                r = INIT_CALL(SYS_prctl, PR_SET_PDEATHSIG, l->death_signal, 0, 0);
        if (r < 0)
                fail(l, STEP_SUBREAPER, (int)-r, NULL);
        return (pid_t)INIT_CALL(SYS_getpid, 0, 0, 0, 0);
}

/* The parent of |pid| from /proc/PID/stat, or -1. */
static pid_t read_ppid(int procfd, pid_t pid)
{
        char path[24], st[512];
        char digits[12];
        int n = 0;
        unsigned v = (unsigned)pid;
        do
                digits[n++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        size_t o = 0;
        while (n > 0)
                path[o++] = digits[--n];
        memcpy(path + o, "/stat", sizeof("/stat"));
        long fd = INIT_CALL(SYS_openat, procfd, path, O_RDONLY | O_CLOEXEC, 0);
        if (fd < 0)
                return -1;
        long len = INIT_CALL(SYS_read, fd, st, sizeof(st) - 1, 0);
        INIT_CALL(SYS_close, fd, 0, 0, 0);
        if (len <= 0)
                return -1;
        st[len] = '\0';
        /* "pid (comm) S ppid ...": the comm may hold anything */
        const char *p = strrchr(st, ')');
        if (!p || !p[1] || !p[2] || !p[3])
                return -1;
        long ppid = 0;
        for (p += 4; *p >= '0' && *p <= '9'; p++)
                ppid = ppid * 10 + (*p - '0');
        return (pid_t)ppid;
}

static bool is_descendant(int procfd, pid_t pid, pid_t self)
{
        for (int depth = 0; depth < 4096 && pid > 1 && pid != self; depth++) {
                pid_t ppid = read_ppid(procfd, pid);
                if (ppid == self)
                        return true;
                pid = ppid;
        }
        return false;
}

/* Send |sig| to every descendant of |self|. Each is pinned by a pidfd
 * before its ancestry is checked: a number reused meanwhile is another
 * process, which the pidfd does not name. Returns how many it signalled. */
int signal_descendants(pid_t self, int sig)
{
        long procfd = INIT_CALL(SYS_openat, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        if (procfd < 0)
                return 0;
        char dents[4096] __attribute__((aligned(8))) = {0}; /* filled by the kernel */
        long n;
        int count = 0;
        while ((n = INIT_CALL(SYS_getdents64, procfd, dents, sizeof(dents), 0)) > 0)
                for (long off = 0; off < n;) {
                        struct {
                                uint64_t ino;
                                int64_t off;
                                unsigned short reclen;
                                unsigned char type;
                                char name[];
                        } *d = (void *)(dents + off);
                        if (d->reclen == 0)
                                break;
                        off += d->reclen;
                        pid_t pid = 0;
                        const char *c = d->name;
                        for (; *c >= '0' && *c <= '9'; c++)
                                pid = pid * 10 + (*c - '0');
                        if (*c || pid <= 1 || pid == self)
                                continue;
                        long pidfd = INIT_CALL(SYS_pidfd_open, pid, 0, 0, 0);
                        if (is_descendant((int)procfd, pid, self)) {
                                if (pidfd >= 0)
                                        INIT_CALL(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
                                else if (pidfd == -ENOSYS) /* Linux < 5.3 */
                                        INIT_CALL(SYS_kill, pid, sig, 0, 0);
                                count++;
                        }
                        if (pidfd >= 0)
                                INIT_CALL(SYS_close, pidfd, 0, 0, 0);
                }
        INIT_CALL(SYS_close, procfd, 0, 0, 0);
        return count;
}

/* Kill every descendant and reap them all: SIGKILL to what the walk
 * finds, until no child is left (a process forked during one walk is
 * found by the next, its parent being dead or dying). */
void kill_descendants(pid_t self)
{
        for (;;) {
                signal_descendants(self, SIGKILL);
                long r;
                while ((r = INIT_CALL(SYS_wait4, -1, NULL, 0, NULL)) == -EINTR)
                        ;
                while (r > 0)
                        r = INIT_CALL(SYS_wait4, -1, NULL, WNOHANG, NULL);
                if (r == -ECHILD)
                        return;
        }
}
