/* SPDX-License-Identifier: MIT */
/* The command's side, from the init's fork (or the landlock backend's
 * child) to execve, in minijail_enter's order: new session -> stdio ->
 * the pty -> fds closed on exec -> cwd -> rlimits -> fresh session
 * keyring -> drop capabilities (the sandbox user taken on the way) ->
 * no_new_privs -> Landlock -> signal mask
 * -> seccomp (last: it cuts off the calls above) -> the supervisor's
 * filter -> execve. Called by child.c (exec_command) on memory shared
 * with the init or the launcher: system calls only. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/keyctl.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"
#include "launch.h"
#include "supervise.h"
#include "sys.h"

/* The hexadecimal mask after |key| in /proc/self/status, or ~0 when it
 * cannot be read (then every signal is reset). */
static uint64_t status_mask(const char *status, const char *key)
{
        const char *p = strstr(status, key);
        if (!p)
                return ~0ULL;
        uint64_t v = 0;
        for (p += strlen(key); *p == '\t' || *p == ' '; p++)
                ;
        for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
                v = v * 16 + (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
        return v;
}

/* Default dispositions for every signal the launcher caught or ignored:
 * ignored ones survive execve, and a caught one must not run the
 * launcher's handler here once the mask is cleared. Reading the masks
 * saves some sixty sigaction calls. */
static void reset_signals(void)
{
        char status[4096];
        uint64_t mask = ~0ULL;
        int fd = openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, status, sizeof(status) - 1) : -1;
        if (fd >= 0)
                close(fd);
        if (n > 0) {
                status[n] = '\0';
                mask = status_mask(status, "SigIgn:") | status_mask(status, "SigCgt:");
        }
        /* the raw call: glibc's sigaction() refuses its own internal
         * signals (32, 33), which a launcher may have left ignored */
        struct {
                void (*handler)(int);
                unsigned long flags;
                void (*restorer)(void);
                uint64_t mask;
        } dfl = {.handler = SIG_DFL};
        for (int s = 1; s < _NSIG; s++)
                if (s != SIGKILL && s != SIGSTOP && (mask & (1ULL << (s - 1))))
                        syscall(SYS_rt_sigaction, s, &dfl, NULL, sizeof(dfl.mask));
}

static void install_stdio(const launch *l)
{
        int tmp[3];
        /* Move the sources out of the way first: they may be 0..2 in any order. */
        for (int i = 0; i < 3; i++) {
                tmp[i] = l->stdio[i] < 0 ? -1 : sys_dup_cloexec(l->stdio[i], 10);
                if (l->stdio[i] >= 0 && tmp[i] < 0)
                        fail(l, STEP_STDIO, errno, NULL);
        }
        for (int i = 0; i < 3; i++)
                if (tmp[i] >= 0 && dup2(tmp[i], i) < 0)
                        fail(l, STEP_STDIO, errno, NULL);
        for (int i = 0; i < 3; i++)
                if (tmp[i] >= 0)
                        close(tmp[i]);
}

/* Every fd above 2 is closed on exec (the report pipe must live until exec). */
static void close_on_exec_above_2(const launch *l)
{
        if (sys_close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
                return;
        for (int fd = 3; fd < 65536; fd++)
                if (fd != l->report_fd)
                        close(fd);
}

static void drop_capabilities(const launch *l)
{
        bool privileged = l->backend == BACKEND_LINUX || l->uid == 0;
        /* capabilities are numbered densely: EINVAL marks the end */
        for (int c = 0; c <= l->cap_last; c++)
                if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
                        if (errno == EINVAL)
                                break;
                        if (privileged)
                                fail(l, STEP_CAPS, errno, "bounding set");
                }
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                fail(l, STEP_CAPS, errno, "ambient set");
        /* uid 0 must not regain capabilities on execve */
        if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                             SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
                  0, 0, 0) < 0 &&
            privileged)
                fail(l, STEP_CAPS, errno, "securebits");
        /* The sandbox user, while CAP_SETUID and CAP_SETGID are still
         * effective (the bounding set limits only what execve gives; the
         * capset below clears them). Raw calls: glibc's would signal every
         * thread of a process it thinks it shares (the memory is the
         * launcher's). */
        if (l->switch_user && (syscall(SYS_setgroups, 0, NULL) < 0 ||
                               syscall(SYS_setresgid, l->run_gid, l->run_gid, l->run_gid) < 0 ||
                               syscall(SYS_setresuid, l->run_uid, l->run_uid, l->run_uid) < 0))
                fail(l, STEP_IDENTITY, errno, "the sandbox user");
        struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct data[2] = {{0}};
        if (syscall(SYS_capset, &hdr, data) < 0)
                fail(l, STEP_CAPS, errno, "capset");
}

/* The executable lies inside a writable mount, where another sandbox may
 * swap it: open it, check it is the inode planned, and execute that
 * descriptor (a script is reopened by name by the kernel: only the check). */
static void exec_planned_inode(const launch *l)
{
        struct stat st;
        int fd = openat(AT_FDCWD, l->exe, O_PATH | O_CLOEXEC);
        if (fd < 0) {
                int e = errno;
                report_step(l, STEP_EXEC, e, l->exe);
                _exit(e == ENOENT ? 127 : 126);
        }
        if (fstat(fd, &st) < 0 || st.st_dev != l->exe_dev || st.st_ino != l->exe_ino || !S_ISREG(st.st_mode))
                fail(l, STEP_EXE_CHANGED, ESTALE, l->exe);
        if (!l->exe_by_fd) {
                close(fd);
                return;
        }
        syscall(SYS_execveat, fd, "", l->argv, l->envp, AT_EMPTY_PATH);
        int e = errno;
        report_step(l, STEP_EXEC, e, l->exe);
        _exit(e == ENOENT ? 127 : 126);
}

/* The landlock backend: the filter whose calls the launcher performs (or
 * refuses), and its listener sent to the launcher. Last before execve:
 * nothing here makes such a call. */
static void hand_over_calls(const launch *l)
{
        int fd = supervise_install(&l->supervise);
        if (fd < 0)
                fail(l, STEP_SUPERVISE, -fd, NULL);
        fd_message fm;
        fd_message_init(&fm, fd);
        if (sendmsg(l->supervise_fd, &fm.m, MSG_NOSIGNAL) < 0)
                fail(l, STEP_SUPERVISE, errno, NULL);
        close(fd);
}

_Noreturn void exec_command(const launch *l)
{
        /* handlers die at execve, but ignored signals stay ignored */
        reset_signals();
        if (l->backend == BACKEND_LINUX || l->backend == BACKEND_LANDLOCK)
                if (setsid() < 0)
                        fail(l, STEP_STDIO, errno, "setsid");
        /* read before install_stdio may replace it */
        struct winsize ws;
        bool have_ws = l->pty_size_fd >= 0 && ioctl(l->pty_size_fd, TIOCGWINSZ, &ws) == 0;
        install_stdio(l);
        if (l->pty_fd >= 0)
                open_terminal(l, have_ws ? &ws : NULL);
        close_on_exec_above_2(l);
        CHECK(l, chdir(l->cwd), STEP_CHDIR, l->cwd);
        for (size_t i = 0; i < l->n_rlimits; i++)
                CHECK(l, setrlimit(l->rlimits[i].resource, &l->rlimits[i].limit), STEP_RLIMIT, NULL);
        /* Leave the launcher's session keyring behind; where the keyring
         * calls are refused from outside, the command cannot reach one either. */
        if (l->new_keyring && syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS) {
                int e = errno;
                if (e != EPERM || !sys_keyrings_refused())
                        fail(l, STEP_KEYRING, e, NULL);
        }
        /* landlock backend, as root: an IPC namespace of its own, so that
         * /proc/sysvipc lists none of the host's objects (a user cannot:
         * EPERM, and /proc/sysvipc shows the host's keys, cordon check says) */
        if (l->backend == BACKEND_LANDLOCK)
                (void)unshare(CLONE_NEWIPC);
        if (l->backend != BACKEND_NONE) {
                drop_capabilities(l);
                CHECK(l, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), STEP_NO_NEW_PRIVS, NULL);
        }
        stamp(l, MARK_CAPS);
        if (l->landlock_fd >= 0 && sys_landlock_restrict_self(l->landlock_fd, 0) < 0)
                fail(l, STEP_LANDLOCK, errno, NULL);
        stamp(l, MARK_LANDLOCK);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (l->seccomp.filter) {
                int r = seccomp_install(&l->seccomp);
                if (r < 0)
                        fail(l, STEP_SECCOMP, -r, NULL);
        }
        if (l->supervise.filter)
                hand_over_calls(l);
        stamp(l, MARK_SECCOMP);
        stamp(l, MARK_EXEC);
        if (l->exe_check)
                exec_planned_inode(l);
        execve(l->exe, l->argv, l->envp);
        int e = errno;
        report_step(l, STEP_EXEC, e, l->exe);
        _exit(e == ENOENT ? 127 : 126);
}
