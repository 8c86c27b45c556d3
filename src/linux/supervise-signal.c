/* SPDX-License-Identifier: MIT */
/* The signal calls, where Landlock does not scope signals (ABI < 6, or
 * Landlock off): kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo,
 * pidfd_send_signal, pidfd_open and fcntl(F_SETOWN), served only for the
 * processes of the sandbox, the descendants of the tree's supervisor
 * (child-tree.c: a subreaper, so every process the command starts stays
 * one). Called by the supervisor's loop (supervise.c).
 *
 * No number is trusted across a check: the target is pinned by a pidfd
 * before its ancestry is read, every step of the walk is checked to still
 * be the same process after it was read, and the signal is sent through
 * that pidfd, so a number reused meanwhile is never signalled. The calls
 * on the caller's own process (raise, pthread_kill, Go's preemption) go on
 * in the kernel unchanged (the caller waits in the call, so its process
 * cannot be reaped); the kernel checks there that a thread is the
 * caller's. A signal to another process's thread needs pidfds of threads
 * (Linux 6.9); before, one to its main thread goes to the process (the
 * kernel may then deliver it to another of its threads, as for kill),
 * one to its other threads is refused. What the command sees differs in
 * one more thing: a signal the supervisor sends names the launcher as its
 * sender (si_pid).
 *
 * Also prlimit64 setting another process's limits, on every kernel (no
 * Landlock ABI governs it, and RLIMIT_CPU 0 kills a process): the
 * caller's own process only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervise-internal.h"
#include "util.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#define SECCOMP_IOCTL_NOTIF_ADDFD SECCOMP_IOW(3, struct seccomp_notif_addfd)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif

#define WALK_MAX 4096

static int pidfd_open(pid_t pid, unsigned flags) { return (int)syscall(SYS_pidfd_open, pid, flags); }

static int pidfd_signal(int fd, int sig, siginfo_t *info, unsigned flags)
{
        return syscall(SYS_pidfd_send_signal, fd, sig, info, flags) < 0 ? -errno : 0;
}

/* Whether the process |fd| names is not reaped yet (a zombie counts: its
 * number is still its own). EPERM: it exists, of another user. */
static bool pinned_alive(int fd) { return pidfd_signal(fd, 0, NULL, 0) != -ESRCH; }

/* A field of /proc/PID/stat after the command name: 1 the state, 2 the
 * parent, 3 the process group. -1 when it cannot be read. */
static long stat_field(pid_t pid, int field)
{
        char path[32], st[512];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        ssize_t n = read(fd, st, sizeof(st) - 1);
        close(fd);
        if (n <= 0)
                return -1;
        st[n] = '\0';
        const char *p = strrchr(st, ')'); /* the command name may hold anything */
        for (int i = 0; p && i < field; i++)
                p = strchr(p + 1, ' ');
        return p ? strtol(p + 1, NULL, 10) : -1;
}

/* The thread group of |tid| from /proc/TID/status, or -1. */
static pid_t tgid_of(pid_t tid)
{
        char path[32], line[128];
        snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
        FILE *f = fopen(path, "re");
        pid_t r = -1;
        while (f && r < 0 && fgets(line, sizeof(line), f))
                if (strncmp(line, "Tgid:", 5) == 0)
                        r = (pid_t)strtol(line + 5, NULL, 10);
        if (f)
                fclose(f);
        return r;
}

/* Whether |pid|, pinned by |fd|, descends from the tree's supervisor. Each
 * parent is pinned before its child is read again: the child still alive
 * and still its child then means the pinned process is its parent (one
 * made after the child cannot become its parent). */
static bool in_sandbox(const call_supervisor *s, int fd, pid_t pid)
{
        int cur = fd;
        bool member = false;
        for (int depth = 0; depth < WALK_MAX && pid > 1 && pid != s->opt.tree; depth++) {
                pid_t ppid = (pid_t)stat_field(pid, 2);
                if (ppid <= 0 || !pinned_alive(cur))
                        break;
                if (ppid == s->opt.tree) {
                        member = true; /* our child, not reaped while we serve: its number is its own */
                        break;
                }
                int up = pidfd_open(ppid, 0);
                bool same = up >= 0 && stat_field(pid, 2) == ppid && pinned_alive(cur);
                if (cur != fd)
                        close(cur);
                cur = up;
                if (!same)
                        break;
                pid = ppid;
        }
        if (cur >= 0 && cur != fd)
                close(cur);
        return member && s->tree_fd >= 0 && pinned_alive(s->tree_fd);
}

/* Say once that |what| to |pid| (< -1: the process group -pid; 0: none
 * named) was refused. */
static void report(call_supervisor *s, const char *what, long pid, const char *why)
{
        _cleanup_free_ char *key = xasprintf("%s %ld", what, pid);
        if (!key || !s->opt.log_fn || !supervise_note_refusal(s, key))
                return;
        char whom[48] = "";
        if (pid != 0)
                snprintf(whom, sizeof(whom), " of process %s%ld", pid < -1 ? "group " : "", pid < -1 ? -pid : pid);
        _cleanup_free_ char *m = xasprintf("refused %s%s: %s", what, whom, why);
        if (m)
                s->opt.log_fn(CORDON_LOG_DENIED, m, s->opt.log_userdata);
}

#define OUTSIDE "not a process of the sandbox (Landlock does not scope signals here, ABI < 6: the call " \
                "supervisor refuses them)"

/* The caller's process (thread group), checked to be the caller's after it
 * was read. */
static pid_t caller_tgid(const call *c)
{
        pid_t g = tgid_of(c->tid);
        return g > 0 && call_still_valid(c) ? g : -ESRCH;
}

/* A pidfd of the process |pid| names (a thread's number names its
 * process, as kill takes it), or -errno. */
static int process_pidfd(pid_t pid, pid_t *ret_tgid)
{
        int fd = pidfd_open(pid, 0);
        *ret_tgid = pid;
        if (fd >= 0 || errno != EINVAL)
                return fd >= 0 ? fd : -errno;
        pid_t g = tgid_of(pid); /* a thread, not the leader */
        if (g <= 0)
                return -ESRCH;
        fd = pidfd_open(g, 0);
        if (fd < 0)
                return -errno;
        if (tgid_of(pid) != g) {
                close(fd);
                return -ESRCH;
        }
        *ret_tgid = g;
        return fd;
}

/* |sig| (with |info|, or NULL: as kill sends it) to process |pid|, when it
 * is of the sandbox. */
static int signal_process(call_supervisor *s, const char *what, pid_t pid, int sig, siginfo_t *info)
{
        pid_t g;
        int fd = process_pidfd(pid, &g);
        if (fd < 0)
                return fd;
        int r = in_sandbox(s, fd, g) ? pidfd_signal(fd, sig, info, 0) : -EPERM;
        close(fd);
        if (r == -EPERM)
                report(s, what, pid, OUTSIDE);
        return r;
}

/* |sig| to thread |tid| of another process (|tgid|, or 0: any), when it is
 * of the sandbox: a pidfd of the thread (Linux 6.9); else to its process
 * when it is the main thread, refused when not. */
static int signal_thread(call_supervisor *s, const char *what, pid_t tgid, pid_t tid, int sig, siginfo_t *info)
{
        int fd = pidfd_open(tid, PIDFD_THREAD);
        if (fd < 0 && errno == EINVAL && (tgid == 0 || tgid == tid) && tgid_of(tid) == tid)
                return signal_process(s, what, tid, sig, info);
        if (fd < 0 && errno == EINVAL) {
                report(s, what, tid, "a thread (not the main one) of another process: refused where pidfds of "
                                     "threads are missing (Linux < 6.9) and Landlock does not scope signals (ABI < 6)");
                return -EPERM;
        }
        if (fd < 0)
                return -errno;
        pid_t g = tgid_of(tid);
        int r = g <= 0 || (tgid && g != tgid) || !pinned_alive(fd) ? -ESRCH : in_sandbox(s, fd, g) ? 0 : -EPERM;
        if (r == 0)
                r = pidfd_signal(fd, sig, info, 0); /* a thread's pidfd: to that thread */
        close(fd);
        if (r == -EPERM)
                report(s, what, tid, OUTSIDE);
        return r;
}

/* kill(-1) (every process of the sandbox but the caller's) or kill(-pgrp)
 * (those of the group), each found in /proc and pinned. ESRCH if none. */
static int signal_many(call_supervisor *s, pid_t self, pid_t pgrp, int sig)
{
        DIR *d = opendir("/proc");
        if (!d)
                return -errno;
        int r = -ESRCH;
        for (struct dirent *e; (e = readdir(d));) {
                char *end;
                long pid = strtol(e->d_name, &end, 10);
                if (*end || pid <= 1 || pid == self || pid == s->opt.tree)
                        continue;
                if (pgrp > 0 && stat_field((pid_t)pid, 3) != pgrp)
                        continue;
                int fd = pidfd_open((pid_t)pid, 0);
                if (fd < 0)
                        continue;
                if (in_sandbox(s, fd, (pid_t)pid) && (pgrp <= 0 || stat_field((pid_t)pid, 3) == pgrp)) {
                        int one = pidfd_signal(fd, sig, NULL, 0);
                        r = r == 0 ? 0 : one;
                }
                close(fd);
        }
        closedir(d);
        if (r == -ESRCH && pgrp > 0)
                report(s, "kill", -(long)pgrp, "no process of the sandbox is in that group");
        return r;
}

static int read_info(const call *c, uint64_t addr, siginfo_t *info)
{
        return call_read_mem(c, addr, info, sizeof(*info));
}

static int serve_kill(const call *c, pid_t self)
{
        pid_t pid = (pid_t)c->req->data.args[0];
        int sig = (int)c->req->data.args[1];
        if (pid == self || pid == 0) /* itself, its own group (a session of the sandbox's) */
                return CALL_CONTINUE;
        if (pid == -1)
                return signal_many(c->s, self, 0, sig);
        if (pid < -1)
                return pid == INT32_MIN ? -ESRCH : signal_many(c->s, self, -pid, sig);
        return signal_process(c->s, "kill", pid, sig, NULL);
}

/* pidfd_send_signal on the caller's pidfd: through our copy of it (the
 * caller cannot swap the descriptor after the check). */
static int serve_pidfd_send_signal(const call *c)
{
        const __u64 *a = c->req->data.args;
        siginfo_t info, *pinfo = NULL;
        int r = a[2] ? read_info(c, a[2], &info) : 0;
        if (r < 0)
                return r;
        pinfo = a[2] ? &info : NULL;
        int fd = supervise_command_fd(c, (int)a[0]);
        if (fd < 0)
                return fd;
        char path[64], line[128];
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
        FILE *f = fopen(path, "re");
        long pid = 0;
        bool found = false;
        while (f && !found && fgets(line, sizeof(line), f))
                if (strncmp(line, "Pid:", 4) == 0) {
                        pid = strtol(line + 4, NULL, 10);
                        found = true;
                }
        if (f)
                fclose(f);
        pid_t g = found && pid > 0 ? tgid_of((pid_t)pid) : -1;
        if (!found) /* a /proc/PID directory: refused */
                r = -EPERM;
        else if (pid <= 0 || g <= 0 || !pinned_alive(fd))
                r = -ESRCH;
        else
                r = in_sandbox(c->s, fd, g) ? 0 : -EPERM;
        if (r == 0)
                r = syscall(SYS_pidfd_send_signal, fd, (int)a[1], pinfo, (unsigned)a[3]) < 0 ? -errno : 0;
        close(fd);
        if (r == -EPERM)
                report(c->s, "pidfd_send_signal", found ? pid : 0,
                       found ? OUTSIDE : "not a pidfd (a /proc directory)");
        return r;
}

/* pidfd_open of a process of the sandbox: our pidfd, checked, placed in
 * the caller's table (the answer is the number). */
static int serve_pidfd_open(const call *c, pid_t self)
{
        pid_t pid = (pid_t)c->req->data.args[0];
        unsigned flags = (unsigned)c->req->data.args[1];
        if (pid == self)
                return CALL_CONTINUE;
        int fd = pidfd_open(pid, flags);
        if (fd < 0)
                return -errno;
        pid_t g = tgid_of(pid);
        int r = g > 0 && pinned_alive(fd) ? in_sandbox(c->s, fd, g) ? 0 : -EPERM : -ESRCH;
        if (r == 0) {
                struct seccomp_notif_addfd add = {.id = c->req->id, .flags = SECCOMP_ADDFD_FLAG_SEND,
                                                  .srcfd = (__u32)fd, .newfd_flags = O_CLOEXEC};
                r = ioctl(c->s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 ? -errno : CALL_ANSWERED;
        }
        close(fd);
        if (r == -EPERM)
                report(c->s, "pidfd_open", pid, OUTSIDE);
        return r;
}

int serve_signal(const call *c)
{
        const __u64 *a = c->req->data.args;
        pid_t self = caller_tgid(c);
        if (self < 0)
                return self;
        siginfo_t info;
        int r;
        switch (c->req->data.nr) {
        case SYS_kill:
                return serve_kill(c, self);
        case SYS_tkill:
                if ((pid_t)a[0] == c->tid)
                        return CALL_CONTINUE;
                /* another thread of its own: named with its process, which the
                 * kernel checks it is in */
                if (tgid_of((pid_t)a[0]) == self)
                        return syscall(SYS_tgkill, self, (pid_t)a[0], (int)a[1]) < 0 ? -errno : 0;
                return signal_thread(c->s, "tkill", 0, (pid_t)a[0], (int)a[1], NULL);
        case SYS_tgkill:
                return (pid_t)a[0] == self ? CALL_CONTINUE
                                           : signal_thread(c->s, "tgkill", (pid_t)a[0], (pid_t)a[1], (int)a[2], NULL);
        case SYS_rt_sigqueueinfo:
                if ((pid_t)a[0] == self)
                        return CALL_CONTINUE;
                r = read_info(c, a[2], &info);
                return r < 0 ? r : signal_process(c->s, "rt_sigqueueinfo", (pid_t)a[0], (int)a[1], &info);
        case SYS_rt_tgsigqueueinfo:
                if ((pid_t)a[0] == self)
                        return CALL_CONTINUE;
                r = read_info(c, a[3], &info);
                return r < 0 ? r
                             : signal_thread(c->s, "rt_tgsigqueueinfo", (pid_t)a[0], (pid_t)a[1], (int)a[2], &info);
        case SYS_pidfd_send_signal:
                return serve_pidfd_send_signal(c);
        case SYS_pidfd_open:
                return serve_pidfd_open(c, self);
        default: /* fcntl(F_SETOWN): the caller itself, or none */
                if ((pid_t)a[2] == 0 || (pid_t)a[2] == self)
                        return CALL_CONTINUE;
                report(c->s, "fcntl(F_SETOWN)", (long)(int)a[2],
                       "another process than the caller's own (Landlock does not scope SIGIO here, ABI < 6)");
                return -EPERM;
        }
}

int serve_prlimit(const call *c)
{
        pid_t pid = (pid_t)c->req->data.args[0];
        pid_t self = caller_tgid(c);
        if (self < 0)
                return self;
        /* its own process (the caller waits in the call: not reaped) */
        if (pid == self || pid == c->tid)
                return CALL_CONTINUE;
        report(c->s, "prlimit", (long)pid,
               "the limits of another process than the caller's own (Landlock does not govern prlimit)");
        return -EPERM;
}
