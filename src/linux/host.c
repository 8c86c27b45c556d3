/* SPDX-License-Identifier: MIT */
/* What the host offers (user namespaces, Landlock, seccomp, cgroups:
 * `cordon check`). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
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

int host_probe_userns(char **ret_reason)
{
        unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                              CLONE_NEWNET | CLONE_NEWCGROUP;
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
                int e = unshare((int)flags) < 0 ? errno : 0;
                (void)!write(pipefd[1], &e, sizeof(e));
                _exit(0);
        }
        close(pipefd[1]);
        int e = EIO;
        if (read(pipefd[0], &e, sizeof(e)) != sizeof(e))
                e = EIO;
        close(pipefd[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
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

/* Which of the sysctls that limit user namespaces is the one in the way:
 * the first of these that is set. */
enum userns_limit { LIMIT_NONE, LIMIT_MAX_NAMESPACES, LIMIT_CLONE, LIMIT_APPARMOR };

static enum userns_limit userns_limit(void)
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

/* The fix for this cordon: the installed profile when this is the installed
 * binary, else the profile's text for this binary's path. */
static char *apparmor_fix_here(void)
{
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n <= 0)
                return NULL;
        exe[n] = '\0';
        const char *installed = CORDON_DATADIR "/apparmor/cordon";
        bool is_installed = streq(exe, CORDON_BINDIR "/cordon") && access(installed, R_OK) == 0;
        return host_apparmor_fix(exe, is_installed ? installed : NULL);
}

static int probe_seccomp(void)
{
        /* PR_SET_SECCOMP with a NULL filter fails with EFAULT exactly when
         * filters are supported, without installing anything. */
        if (prctl(PR_SET_SECCOMP, 2 /* SECCOMP_MODE_FILTER */, NULL, 0, 0) < 0 && errno == EFAULT)
                return 1;
        return 0;
}

/* ---- cordon_host_check ------------------------------------------------------------- */

/* What the landlock backend enforces, and what only the linux backend
 * gives (docs/backends.md), for |abi|. */
static const char *const LANDLOCK_LACKS[] = {
        "a private /tmp (TMPDIR points into the instance) and /dev/shm (the host's is not granted: "
        "--expose-rw /dev/shm shares it)",
        "an own /proc: other processes' command lines can be read, and, unless cordon runs as root (an IPC "
        "namespace of its own then), /proc/sysvipc lists the host's System V IPC objects (keys, owners, sizes; "
        "the objects themselves are refused)",
        "no network interfaces: TCP is denied by Landlock, other families by seccomp; the proxy of "
        "--allow-net listens on the host's loopback",
        /* one literal per line (bugprone-suspicious-missing-comma) */
        "paths cannot be remapped, nor protected inside writable paths: there the git control files the "
        "command made or changed are set aside after the run (config, config.worktree, commondir, hooks/; "
        "of the user's own repositories too, so a git config inside is set aside)",
        "--pids without cgroups",
        "the command's own abstract unix sockets (refused here), AF_UNIX datagram sockets, TCP Fast Open "
        "(but with the network full), 32-bit metadata calls and socket calls (with the network full their "
        "connect, listen and socketcall) (refused here)",
        NULL,
};

static void landlock_backend_text(buf *b, int abi)
{
        buf_printf(b, "  the landlock backend enforces: Landlock's filesystem rules, TCP rules%s, AF_UNIX-only "
                      "sockets unless the network is full (the host's network, its loopback services included, by "
                      "AF_UNIX, AF_INET, AF_INET6 and netlink sockets but NETLINK_USERSOCK; the proxy adds TCP: "
                      "connect to it only, no listen, no TCP Fast Open), abstract unix sockets and signals %s, the "
                      "seccomp filter, no System V IPC, only the command's own terminal (a new one on a terminal), "
                      "the whole process tree killed with the command and with the launcher however it is killed (a "
                      "subreaper in a session of its own), and through a call supervisor in the launcher: no "
                      "mode/owner/times/xattr change outside the writable paths, on every network no connect to "
                      "a unix socket outside the writable and explicitly exposed paths nor to an abstract one, no "
                      "listen on an abstract one\n",
                   abi >= 4 ? "" : " (not here: ABI < 4)",
                   abi >= 6 ? "scoped to the sandbox" : "NOT scoped here (ABI < 6: the command can signal "
                                                        "host processes of its user, its supervisor too)");
        buf_printf(b, "  only the linux backend gives:\n");
        for (size_t i = 0; LANDLOCK_LACKS[i]; i++)
                buf_printf(b, "    - %s\n", LANDLOCK_LACKS[i]);
}

int cordon_host_check(const cordon_config *c, bool json, char **ret_report)
{
        _cleanup_free_ char *userns_reason = NULL, *cg = NULL, *pids = NULL;
        int userns = host_probe_userns(&userns_reason);
        int abi = landlock_abi();
        bool seccomp = probe_seccomp() == 1;
        bool keyrings_refused = sys_keyrings_refused();
        cg = host_cgroup_summary();
        const char *backend = c && !streq(c->backend, "auto") ? c->backend : "linux";
        static const char *const PIDS_BY[] = {[PIDS_BY_CGROUP] = "cgroup", [PIDS_BY_RLIMIT] = "rlimit",
                                              [PIDS_BY_NONE] = "none"};
        int by = host_pids_mechanism(streq(backend, "linux"), &pids);
        bool ok, apparmor_fix = false;
        _cleanup_free_ char *why = NULL;
        if (streq(backend, "linux")) {
                ok = userns == 1 && seccomp;
                if (userns != 1 && userns_limit() == LIMIT_APPARMOR)
                        why = apparmor_fix_here();
                apparmor_fix = why != NULL; /* says all that the short reason does */
                if (userns != 1 && !why)
                        why = xasprintf("%s", userns_reason ? userns_reason : "user namespaces unavailable");
                else if (userns == 1 && !seccomp)
                        why = strdup("the kernel lacks seccomp filters (CONFIG_SECCOMP_FILTER)");
        } else if (streq(backend, "landlock")) {
                ok = abi >= 1 && seccomp;
                if (!ok)
                        why = xasprintf("the landlock backend needs Landlock and seccomp: %s",
                                        abi < 1 ? landlock_hint(abi) : "seccomp filters are missing");
        } else if (streq(backend, "seatbelt")) {
                ok = false;
                why = strdup("the seatbelt backend runs only on macOS; `cordon plan --backend seatbelt` shows its "
                             "profile");
        } else {
                ok = false;
                why = xasprintf("the \"%s\" backend is not available in this version", backend);
        }
        bool landlock_strongest = userns != 1 && abi >= 1 && seccomp;
        buf b = {0};
        if (json) {
                json_t *o = json_object();
                json_object_set_new(o, "user_namespaces", json_boolean(userns == 1));
                if (userns_reason)
                        json_object_set_new(o, "user_namespaces_problem", json_text(userns_reason));
                json_object_set_new(o, "landlock_abi", json_integer(abi > 0 ? abi : 0));
                landlock_rights ll = landlock_rights_for_abi(abi);
                _cleanup_free_ char *fs = landlock_fs_names(ll.fs);
                json_object_set_new(o, "landlock_fs_rights", json_text(fs ? fs : ""));
                json_object_set_new(o, "landlock_tcp", json_boolean(ll.net != 0));
                json_object_set_new(o, "landlock_scopes", json_boolean(ll.scoped != 0));
                json_object_set_new(o, "seccomp", json_boolean(seccomp));
                json_object_set_new(o, "keyrings_refused", json_boolean(keyrings_refused));
                json_object_set_new(o, "cgroups", json_text(cg ? cg : "unknown"));
                json_object_set_new(o, "pids_limit_by", json_text(by > 0 ? PIDS_BY[by] : "unknown"));
                json_object_set_new(o, "pids_limit", json_text(pids ? pids : "unknown"));
                json_object_set_new(o, "backend", json_text(backend));
                json_object_set_new(o, "backend_ok", json_boolean(ok));
                if (why)
                        json_object_set_new(o, "fix", json_text(why));
                json_t *lacks = json_array();
                for (size_t i = 0; LANDLOCK_LACKS[i]; i++)
                        json_array_append_new(lacks, json_text(LANDLOCK_LACKS[i]));
                json_object_set_new(o, "landlock_backend_lacks", lacks);
                json_object_set_new(o, "strongest_backend",
                                    json_text(userns == 1 ? "linux" : landlock_strongest ? "landlock" : "none"));
                char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
                json_decref(o);
                buf_printf(&b, "%s\n", s ? s : "{}");
                free(s);
        } else {
                buf_printf(&b, "user namespaces: %s\n", userns == 1 ? "yes" : "no");
                if (apparmor_fix)
                        buf_printf(&b, "  restricted by AppArmor: the fix is below\n");
                else if (userns_reason)
                        buf_printf(&b, "  %s\n", userns_reason);
                if (abi > 0) {
                        landlock_rights ll = landlock_rights_for_abi(abi);
                        _cleanup_free_ char *fs = landlock_fs_names(ll.fs);
                        buf_printf(&b, "landlock: ABI %d\n  filesystem rights: %s\n  TCP rules: %s; scopes: %s\n", abi,
                                   fs ? fs : "?", ll.net ? "yes" : "no (ABI < 4)",
                                   ll.scoped ? "abstract unix sockets, signals" : "no (ABI < 6)");
                }
                else
                        buf_printf(&b, "landlock: no (%s)\n", landlock_hint(abi));
                buf_printf(&b, "seccomp: %s\n", seccomp ? "yes (filters)" : "no");
                if (keyrings_refused)
                        buf_printf(&b, "keyrings: refused here (keyctl, add_key, request_key: a seccomp profile from "
                                       "outside, as a container runtime's): the command cannot reach one either, so "
                                       "runs go without a session keyring of their own\n");
                buf_printf(&b, "cgroups: %s\n", cg ? cg : "unknown");
                buf_printf(&b, "process limit (--pids): %s\n", pids ? pids : "unknown");
                buf_printf(&b, "backend %s: %s\n", backend, ok ? "can run" : "cannot run");
                if (why)
                        buf_printf(&b, "  fix: %s\n", why);
                if (landlock_strongest)
                        buf_printf(&b, "  the strongest backend on this host is \"landlock\" (--backend landlock)\n");
                if (abi >= 1 && (landlock_strongest || streq(backend, "landlock")))
                        landlock_backend_text(&b, abi);
        }
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret_report = s;
        return ok ? 1 : 0;
}

