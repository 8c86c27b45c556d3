/* SPDX-License-Identifier: MIT */
/* What the host offers (user namespaces, Landlock, seccomp, cgroups), for
 * the backends and `cordon check` (check.c). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "error.h"
#include "host.h"
#include "landlock.h"
#include "plan.h"
#include "sys.h"


/* ---- probing the kernel ------------------------------------------------------------ */

static char *read_line(const char *path)
{
        FILE *f = fopen(path, "re");
        char line[256];
        char *r = f && fgets(line, sizeof(line), f) ? strndup(line, strcspn(line, "\n")) : NULL;
        if (f)
                fclose(f);
        return r;
}

/* |fn| in a short-lived child: the errno it returns, or -errno when the
 * child could not be run. The child makes system calls only (the caller
 * may be multi-threaded). */
static int in_child(int (*fn)(void))
{
        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                close(pipefd[0]);
                close(pipefd[1]);
                return -e;
        }
        if (pid == 0) {
                int e = fn();
                (void)!write(pipefd[1], &e, sizeof(e));
                _exit(0);
        }
        close(pipefd[1]);
        int e = -EIO;
        if (read(pipefd[0], &e, sizeof(e)) != sizeof(e))
                e = -EIO;
        close(pipefd[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        return e;
}

static int try_userns(void)
{
        unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                              CLONE_NEWNET | CLONE_NEWCGROUP;
        return unshare((int)flags) < 0 ? errno : 0;
}

int host_probe_userns(char **ret_reason)
{
        int e = in_child(try_userns);
        if (e < 0)
                return e;
        if (e == 0) {
                *ret_reason = NULL;
                return 1;
        }
        *ret_reason = host_userns_hint(e);
        return 0;
}

/* The kernel.apparmor_restrict_unprivileged_userns sysctl: a program may
 * create user namespaces unprivileged only if its profile grants `userns`. */
#define APPARMOR_SYSCTL "kernel.apparmor_restrict_unprivileged_userns"
#define APPARMOR_PROFILE_PATH "/etc/apparmor.d/cordon"

static bool sysctl_is(const char *path, const char *value)
{
        _cleanup_free_ char *v = read_line(path);
        return streq(v, value);
}

enum userns_limit userns_limit(void)
{
        if (sysctl_is("/proc/sys/user/max_user_namespaces", "0"))
                return LIMIT_MAX_NAMESPACES;
        if (sysctl_is("/proc/sys/kernel/unprivileged_userns_clone", "0"))
                return LIMIT_CLONE;
        if (sysctl_is("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1"))
                return LIMIT_APPARMOR;
        return LIMIT_NONE;
}

char *host_userns_hint(int err)
{
        switch (userns_limit()) {
        case LIMIT_MAX_NAMESPACES:
                return xasprintf("user namespaces are disabled (user.max_user_namespaces = 0): run "
                                 "`sysctl -w user.max_user_namespaces=15000` as root");
        case LIMIT_CLONE:
                return xasprintf("unprivileged user namespaces are disabled "
                                 "(kernel.unprivileged_userns_clone = 0): run "
                                 "`sysctl -w kernel.unprivileged_userns_clone=1` as root");
        case LIMIT_APPARMOR:
                return xasprintf("AppArmor restricts unprivileged user namespaces (" APPARMOR_SYSCTL
                                 " = 1, Ubuntu 23.10+) and this cordon has no AppArmor profile granting them: "
                                 "`cordon check` prints the commands that install one");
        case LIMIT_NONE:
        default:
                break;
        }
        if (err == EPERM)
                return xasprintf("creating user namespaces is not permitted here (%s); inside a container this is "
                                 "usually the runtime's seccomp profile: run the container with "
                                 "--security-opt seccomp=unconfined, or use --backend landlock",
                                 strerror(err));
        if (err == EINVAL || err == ENOSYS)
                return xasprintf("the kernel lacks namespace support (%s): use --backend landlock", strerror(err));
        return xasprintf("cannot create namespaces: %s", strerror(err));
}

/* AppArmor reads a profile's attachment as a pattern (* ? [ { are globs,
 * spaces end it): only plain paths go in unquoted. */
static bool apparmor_plain_path(const char *p)
{
        return p[0] == '/' && p[strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-")] == '\0';
}

char *host_apparmor_profile(const char *exe)
{
        if (!apparmor_plain_path(exe))
                return NULL;
        /* apparmor/cordon.in with @BINARY@ = |exe| (a unit test compares them) */
        return xasprintf("# cordon: lets %s create user namespaces where AppArmor restricts them\n"
                         "# (Ubuntu 23.10+); it confines nothing else. See cordon's docs/apparmor.md.\n"
                         "abi <abi/4.0>,\n"
                         "include <tunables/global>\n"
                         "\n"
                         "profile cordon %s flags=(unconfined) {\n"
                         "  userns,\n"
                         "\n"
                         "  include if exists <local/cordon>\n"
                         "}\n",
                         exe, exe);
}

char *host_apparmor_fix(const char *exe, const char *installed_profile)
{
        buf b = {0};
        buf_printf(&b, "AppArmor restricts unprivileged user namespaces (" APPARMOR_SYSCTL " = 1, Ubuntu 23.10+): "
                       "a program may create them only if its AppArmor profile grants `userns`, and %s has no "
                       "such profile loaded. Install and load one (what `make install` does as root):\n",
                   exe);
        _cleanup_free_ char *profile = installed_profile ? NULL : host_apparmor_profile(exe);
        if (installed_profile)
                buf_printf(&b, "    sudo install -m 644 %s " APPARMOR_PROFILE_PATH
                               " && sudo apparmor_parser -r " APPARMOR_PROFILE_PATH "\n",
                           installed_profile);
        else if (profile)
                buf_printf(&b, "    sudo tee " APPARMOR_PROFILE_PATH " >/dev/null <<'EOF'\n%sEOF\n"
                               "    sudo apparmor_parser -r " APPARMOR_PROFILE_PATH "\n",
                           profile);
        else
                buf_printf(&b, "    (not for this path: AppArmor would read it as a pattern; `make install` "
                               "cordon to a plain path such as /usr/local/bin and run its `cordon check`)\n");
        buf_printf(&b, "  or, bluntly, lift the restriction for every program until the next boot:\n"
                       "    sudo sysctl -w " APPARMOR_SYSCTL "=0");
        return buf_steal(&b);
}

bool host_seccomp_filtered(void) { return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 2; }

static int try_hostname(void)
{
        if (unshare(CLONE_NEWUSER | CLONE_NEWUTS) < 0)
                return 0;
        return sethostname("cordon", 6) < 0 ? errno : 0;
}

int host_probe_hostname(void)
{
        int e = in_child(try_hostname);
        return e > 0 ? e : 0;
}

int host_probe_pidfd_getfd(void)
{
        int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
        if (pidfd < 0)
                return errno;
        int fd = (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0);
        int e = fd < 0 ? errno : 0;
        if (fd >= 0)
                close(fd);
        close(pidfd);
        return e;
}

const char *host_container_engine(void)
{
        if (access("/run/.containerenv", F_OK) == 0)
                return "podman";
        if (access("/.dockerenv", F_OK) == 0)
                return "docker";
        return NULL;
}

const char *host_engine_flag(const char *what)
{
        /* what the engine's own flags are for each need, both where the
         * engine is unknown; --privileged gives every one of them */
        static const struct {
                const char *what, *docker, *podman, *unknown;
        } F[] = {
                {"userns", "--security-opt seccomp=unconfined (Docker's default profile refuses new user namespaces)",
                 "--security-opt seccomp=unconfined", "--security-opt seccomp=unconfined (Docker, Podman)"},
                {"proc", "--security-opt systempaths=unconfined (Docker covers parts of /proc)",
                 "--security-opt unmask=ALL (Podman covers parts of /proc)",
                 "Docker: --security-opt systempaths=unconfined, Podman: --security-opt unmask=ALL (both cover "
                 "parts of /proc)"},
                {"hostname", "--cap-add SYS_ADMIN (its profile allows sethostname with it)",
                 "--cap-add SYS_ADMIN (its profile allows sethostname with it)",
                 "--cap-add SYS_ADMIN (Docker's and Podman's profiles allow sethostname with it)"},
                {"pidfd_getfd", "--cap-add SYS_PTRACE (Docker's profile allows pidfd_getfd with it)",
                 "--cap-add SYS_PTRACE", "--cap-add SYS_PTRACE (Docker's profile allows pidfd_getfd with it)"},
                {"setuid", "--cap-add SETUID --cap-add SETGID", "--cap-add SETUID --cap-add SETGID",
                 "--cap-add SETUID --cap-add SETGID (Docker, Podman)"},
        };
        const char *engine = host_container_engine();
        for (size_t i = 0; i < ARRAY_SIZE(F); i++)
                if (streq(F[i].what, what))
                        return streq(engine, "docker") ? F[i].docker
                               : streq(engine, "podman") ? F[i].podman
                                                         : F[i].unknown;
        return "--privileged";
}

int probe_seccomp(void)
{
        /* PR_SET_SECCOMP with a NULL filter fails with EFAULT exactly when
         * filters are supported, without installing anything. */
        if (prctl(PR_SET_SECCOMP, 2 /* SECCOMP_MODE_FILTER */, NULL, 0, 0) < 0 && errno == EFAULT)
                return 1;
        return 0;
}
