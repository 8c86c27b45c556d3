/* SPDX-License-Identifier: MIT */
/* The child side of the backends: the init and its reaping loop, and the
 * order of the steps. Entered by launch.c after clone() (child_linux_main,
 * child_exec_main), in a possibly multi-threaded launcher's memory (shared
 * with it, or a copy): only system calls on memory prepared before the
 * clone (struct launch); no malloc, no stdio, no locks. Any failure is sent
 * to the launcher as a child_report (child-report.c) and the command never
 * runs.
 *
 * Both backends first arm the parent death signal, close every inherited
 * fd they do not use, check that the launcher did not die before that, and
 * wait for its "go" (see wait_for_launcher).
 *
 * linux backend, in order (minijail_enter's order):
 *   wait for the launcher (uid/gid maps written, cgroup joined) -> (a copy
 *   of the memory only:) scrub the launcher's argv/env, non-dumpable ->
 *   cgroup namespace -> "/" private -> new root on tmpfs, pivot_root -> the plan's
 *   mounts, parents first, Landlock rules as they go -> detach the old root
 *   -> root read-only (child-mounts.c) -> loopback (netns.c) -> fork the
 *   command; the init stays as pid 1, reaps and forwards signals.
 * landlock backend: the supervisor of the command's tree (child-tree.c)
 *   forks the command, reaps and forwards signals as the init does.
 * the command: from the fork to execve in child-exec.c (its terminal in
 *   child-pty.c). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "launch.h"
#include "netns.h"
#include "sys.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* Remove the launcher's arguments and environment from our copy of its
 * memory: /proc/1/cmdline and /proc/1/environ read them from here. */
static void scrub_launcher_memory(const launch *l)
{
        if (l->arg_end > l->arg_start) {
                memset((void *)l->arg_start, 0, l->arg_end - l->arg_start);
                if (l->arg_end - l->arg_start > sizeof("cordon-init"))
                        memcpy((void *)l->arg_start, "cordon-init", sizeof("cordon-init"));
        }
        if (l->env_end > l->env_start)
                memset((void *)l->env_start, 0, l->env_end - l->env_start);
}

/* Close every inherited fd but the ones in l->keep_fds (and 0..2). Raw
 * calls: the launcher is running meanwhile, and may share our errno. */
static void close_inherited(const launch *l)
{
        unsigned from = 3;
        for (size_t i = 0; i < ARRAY_SIZE(l->keep_fds) && l->keep_fds[i] >= 0; i++) {
                unsigned k = (unsigned)l->keep_fds[i];
                if (k > from)
                        INIT_CALL(SYS_close_range, from, k - 1, 0, 0);
                if (k + 1 > from)
                        from = k + 1;
        }
        if (INIT_CALL(SYS_close_range, from, ~0U, 0, 0) < 0)
                for (unsigned fd = from; fd < 65536; fd++)
                        INIT_CALL(SYS_close, fd, 0, 0, 0);
}

/* Nothing may outlive the launcher, whenever it dies (a SIGKILL at any
 * instant included). Three things together close every gap:
 *  - the parent death signal, armed first: from here on the death of the
 *    launcher's thread (the one that cloned us; the library documents that
 *    the sandbox dies with it) kills us;
 *  - the go pipe: we keep only its read end, so a launcher process that
 *    dies before "go" is an EOF here, not a wait forever;
 *  - a look at the launcher's thread, through a descriptor of its /proc
 *    directory opened before the clone, for a death before the signal was
 *    armed (the launcher may even have sent "go" and died before we ran;
 *    in a new pid namespace getppid() cannot tell). The kernel marks a
 *    thread exiting before it hands its children to a new parent, and
 *    sends the signal when it does, so one of the two always sees it.
 * Raw system calls: the launcher's thread is running meanwhile. */
static void wait_for_launcher(const launch *l)
{
        INIT_CALL(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
        close_inherited(l);
        if (l->launcher_fd >= 0) {
                bool gone = sys_task_gone(l->launcher_fd);
                INIT_CALL(SYS_close, l->launcher_fd, 0, 0, 0);
                if (gone)
                        INIT_CALL(SYS_exit_group, 125, 0, 0, 0);
        }
        char go = 0;
        long n;
        do
                n = INIT_CALL(SYS_read, l->go_fd, &go, 1, 0);
        while (n == -EINTR);
        if (n != 1)
                INIT_CALL(SYS_exit_group, 125, 0, 0, 0); /* the launcher is gone */
        INIT_CALL(SYS_close, l->go_fd, 0, 0, 0);
}

/* What the init still needs once the launcher knows the command started:
 * from then on the launch struct may be gone (it lives in the launcher). */
typedef struct init_state {
        sigset_t signals; /* to forward, plus SIGCHLD and the broadcast one */
        int broadcast_signal;
        int status_fd;
        pid_t cmd;
        /* the landlock backend's supervisor (not a pid 1): its own pid, and
         * its real-time signals for the launcher's death and for "send
         * ssi_int to the command"; 0 in the linux backend's init */
        pid_t self;
        int death_signal, command_signal;
} init_state;

/* Every process of the sandbox. */
static void signal_sandbox(const init_state *s, int sig)
{
        if (s->self)
                signal_descendants(s->self, sig);
        else
                INIT_CALL(SYS_kill, -1, sig, 0, 0);
}

/* Reap everything; when the command ends, kill what is left and report. */
_Noreturn static void init_loop(const init_state *s)
{
        /* the kernel's signal set is the first _NSIG / 8 bytes of sigset_t */
        int sfd = (int)INIT_CALL(SYS_signalfd4, -1, &s->signals, _NSIG / 8, SFD_CLOEXEC);
        init_status st = {0};
        bool done = false;
        long last = 0; /* wait4's last result */
        while (!done) {
                struct signalfd_siginfo si = {0};
                long n = sfd >= 0 ? INIT_CALL(SYS_read, sfd, &si, sizeof(si), 0) : -1;
                if (n != (long)sizeof(si)) {
                        if (n == -EINTR)
                                continue;
                        si.ssi_signo = SIGCHLD; /* no signalfd: just reap */
                }
                if ((int)si.ssi_signo == s->broadcast_signal) {
                        signal_sandbox(s, si.ssi_int);
                        continue;
                }
                if (s->self && (int)si.ssi_signo == s->death_signal) {
                        kill_descendants(s->self); /* the launcher died: so does the sandbox */
                        for (;;)
                                INIT_CALL(SYS_exit_group, 125, 0, 0, 0);
                }
                if (s->self && (int)si.ssi_signo == s->command_signal) {
                        INIT_CALL(SYS_kill, s->cmd, si.ssi_int, 0, 0);
                        continue;
                }
                if (si.ssi_signo != SIGCHLD) {
                        INIT_CALL(SYS_kill, s->cmd, si.ssi_signo, 0, 0);
                        continue;
                }
                int status = 0; /* written by the kernel */
                while ((last = INIT_CALL(SYS_wait4, -1, &status, sfd >= 0 ? WNOHANG : 0, NULL)) > 0)
                        if (last == s->cmd) {
                                st.wait_status = status;
                                done = true;
                        }
        }
        /* The command is gone: nothing else may outlive it. Every process
         * of the sandbox is our descendant, so with no child left (ECHILD)
         * there is none to kill (kill(-1) walks all of the host's; it is
         * the pid namespace's only for the init). */
        if (last != -ECHILD && s->self)
                kill_descendants(s->self);
        else if (last != -ECHILD) {
                INIT_CALL(SYS_kill, -1, SIGKILL, 0, 0);
                while ((last = INIT_CALL(SYS_wait4, -1, NULL, 0, NULL)) > 0 || last == -EINTR)
                        ;
        }
        struct rusage ru = {0};
        if (INIT_CALL(SYS_getrusage, RUSAGE_CHILDREN, &ru, 0, 0) == 0) {
                st.max_rss_kb = ru.ru_maxrss;
                st.user_us = ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec;
                st.sys_us = ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec;
        }
        /* The launcher learns the result from this record; our own exit
         * (tearing down the namespaces) overlaps with its work. */
        INIT_CALL(SYS_write, s->status_fd, &st, sizeof(st), 0);
        for (;;)
                INIT_CALL(SYS_exit_group, 0, 0, 0, 0);
}

/* The init's own identity and namespaces, then the view, sealed. */
static void init_prepare(const launch *l)
{
        /* A copy of the launcher's memory (not shared with it): no trace of
         * its arguments and environment, non-dumpable. A shared one is the
         * launcher's own; either way the command cannot ptrace us, nor see
         * /proc/1 (we keep capabilities it has not: hidepid), so neither
         * /proc/1/mem, /proc/1/environ nor /proc/1/exe (CVE-2019-5736). */
        if (!l->shared_memory) {
                scrub_launcher_memory(l);
                prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        }
        prctl(PR_SET_NAME, "cordon-init", 0, 0, 0);
        /* The raw system call: glibc's setgroups() in a multi-threaded
         * process signals every other thread (__nptl_setxid) and waits for
         * them under a lock; they are not ours (in a copy of the launcher
         * they do not even exist, and the lock may have been held at clone
         * time: a deadlock). */
        if (l->drop_groups)
                CHECK(l, (int)syscall(SYS_setgroups, 0, NULL), STEP_IDENTITY, NULL);
        netns_job netns;
        bool netns_helped = l->new_netns && netns_start(l, &netns);
        if (l->new_netns && !netns_helped)
                CHECK(l, unshare(CLONE_NEWNET), STEP_NETNS, NULL);
        /* After the launcher placed us in our cgroup: that becomes our root. */
        CHECK(l, unshare(CLONE_NEWCGROUP), STEP_IDENTITY, "cgroup namespace");
        /* NULL where sethostname is refused from outside (the plan says so) */
        if (l->hostname)
                CHECK(l, sethostname(l->hostname, strlen(l->hostname)), STEP_HOSTNAME, l->hostname);
        stamp(l, MARK_UNSHARED);
        enter_new_root(l);
        stamp(l, MARK_ROOT);
        apply_ops(l);
        stamp(l, MARK_MOUNTS);
        finish_root(l);
        if (netns_helped)
                netns_join(l, &netns);
        else if (l->loopback)
                init_loopback_up(l);
        if (l->proxy_fd >= 0)
                send_proxy_listener(l);
        stamp(l, MARK_SEALED);
}

static int command_main(void *arg)
{
        const launch *l = arg;
        stamp(l, MARK_FORKED);
        exec_command(l);
}

/* The command shares the init's memory until execve (CLONE_VM |
 * CLONE_VFORK, as posix_spawn does), on a stack prepared by the launcher:
 * no page tables to copy, and it only makes system calls on prepared data.
 * The init waits until the command executed (going on at once is slower:
 * both then share one CPU). */
static pid_t start_command(const launch *l)
{
#ifndef __SANITIZE_ADDRESS__
        pid_t cmd = clone(command_main, l->command_stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)l);
#else
        /* AddressSanitizer cannot follow code onto a stack it did not make:
         * sanitized builds fork the command instead. */
        pid_t cmd = sys_clone(SIGCHLD, NULL);
        if (cmd == 0)
                command_main((void *)l);
#endif
        if (cmd < 0)
                fail(l, STEP_FORK, errno, NULL);
        return cmd;
}

/* Start the command, let go of everything of the launcher's, and reap
 * until the command ends. |self| is the supervisor's pid (landlock
 * backend), 0 for the init. */
_Noreturn static void run_init(const launch *l, pid_t self)
{
        pid_t cmd = start_command(l);
        /* The init keeps none of the command's descriptors: the caller sees
         * EOF on its pipes when the sandbox ends. */
        for (int i = 0; i < 3; i++) {
                INIT_CALL(SYS_close, i, 0, 0, 0);
                if (l->stdio[i] > 2)
                        INIT_CALL(SYS_close, l->stdio[i], 0, 0, 0);
        }
        if (l->landlock_fd >= 0)
                INIT_CALL(SYS_close, l->landlock_fd, 0, 0, 0);
        init_state s = {.signals = l->forward, .broadcast_signal = l->broadcast_signal,
                        .status_fd = l->status_fd, .cmd = cmd, .self = self,
                        .death_signal = l->death_signal, .command_signal = l->command_signal};
        sigaddset(&s.signals, SIGCHLD);
        sigaddset(&s.signals, l->broadcast_signal);
        if (self) {
                sigaddset(&s.signals, l->death_signal);
                sigaddset(&s.signals, l->command_signal);
        }
        /* The last use of |l|: on EOF here the launcher goes on. */
        INIT_CALL(SYS_close, l->report_fd, 0, 0, 0);
        init_loop(&s);
}

_Noreturn void child_linux_main(const launch *l)
{
        /* Every signal stays blocked in the init (it reads them from a
         * signalfd), so none of the launcher's handlers can run here; the
         * command resets dispositions before exec. */
        stamp(l, MARK_CLONED);
        wait_for_launcher(l);
        stamp(l, MARK_GO);
        init_prepare(l);
        run_init(l, 0);
}

_Noreturn void child_exec_main(const launch *l)
{
        stamp(l, MARK_CLONED);
        wait_for_launcher(l);
        stamp(l, MARK_GO);
        if (l->backend == BACKEND_LANDLOCK)
                run_init(l, become_tree_supervisor(l));
        exec_command(l);
}
