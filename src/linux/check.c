/* SPDX-License-Identifier: MIT */
/* `cordon check`: what the host offers the linux and landlock backends
 * (host.c probes it), and the fix for what is missing. */
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "check-run.h"
#include "env.h"
#include "error.h"
#include "host.h"
#include "landlock.h"
#include "plan.h"
#include "sys.h"

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

/* ---- cordon_host_check ------------------------------------------------------------- */

/* What the landlock backend enforces, and what only the linux backend
 * gives (docs/backends.md), for |abi|. */
static const char *const LANDLOCK_LACKS[] = {
        "a private /tmp (TMPDIR points into the instance) and /dev/shm (the host's is not granted: "
        "--expose-rw /dev/shm shares it)",
        "an own /proc: other processes' command lines can be read, and, unless cordon runs as root with "
        "CAP_SYS_ADMIN (an IPC namespace of its own then; not in a container without it), /proc/sysvipc lists "
        "the host's System V IPC objects (keys, owners, sizes; the objects themselves are refused)",
        "no network interfaces: TCP is denied by Landlock, other families by seccomp; the proxy of "
        "--allow-net listens on the host's loopback",
        /* one literal per line (bugprone-suspicious-missing-comma) */
        "paths cannot be remapped, nor protected inside writable paths: there the git control files the "
        "command made or changed are set aside after the run (config, config.worktree, commondir, hooks/; "
        "of the user's own repositories too, so a git config inside is set aside)",
        "--pids without cgroups (but as root: the sandbox user's RLIMIT_NPROC)",
        "paths hidden entirely: Landlock does not govern stat, so a command can learn that a path it guesses under "
        "a refused directory exists (a host POSIX shm name in /dev/shm, a file in a home) and read its metadata "
        "(size, owner, times), never its content",
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
                   abi >= 6 ? "scoped to the sandbox"
                            : "kept to the sandbox's processes by the call supervisor (ABI < 6: Landlock does not "
                              "scope them here; kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, "
                              "pidfd_send_signal, pidfd_open and fcntl(F_SETOWN) are served for the sandbox's own "
                              "processes only, a signal to another process's thread needs Linux >= 6.9)");
        buf_printf(b, "  only the linux backend gives:\n");
        for (size_t i = 0; LANDLOCK_LACKS[i]; i++)
                buf_printf(b, "    - %s\n", LANDLOCK_LACKS[i]);
}

/* What keeps signals and abstract unix sockets to the sandbox, by backend,
 * on a kernel whose Landlock ABI (as cordon relies on it) is |abi|. */
static void protections_text(buf *b, int abi)
{
        bool scoped = abi >= 6;
        buf_printf(b, "signals and abstract unix sockets kept to the sandbox by:\n"
                      "  linux: signals: the pid namespace%s; abstract unix sockets: the network namespace%s; with "
                      "the network full (the host's): %s\n"
                      "  landlock: signals: %s; abstract unix sockets: the call supervisor%s\n",
                   scoped ? ", Landlock's scope" : "", scoped ? ", Landlock's scope" : "",
                   scoped ? "Landlock's scope" : "nothing: refused here (needs Landlock ABI >= 6, Linux >= 6.12)",
                   scoped ? "Landlock's scope" : "the call supervisor (ABI < 6)", scoped ? ", Landlock's scope" : "");
}

static json_t *protections_obj(int abi)
{
        bool scoped = abi >= 6;
        json_t *o = json_object(), *l = json_object(), *ll = json_object();
        json_t *ls = json_array(), *la = json_array(), *lls = json_array(), *lla = json_array();
        json_array_append_new(ls, json_text("pid namespace"));
        json_array_append_new(la, json_text("network namespace"));
        json_array_append_new(lla, json_text("call supervisor"));
        json_array_append_new(lls, json_text(scoped ? "landlock scope" : "call supervisor"));
        if (scoped) {
                json_array_append_new(ls, json_text("landlock scope"));
                json_array_append_new(la, json_text("landlock scope"));
                json_array_append_new(lla, json_text("landlock scope"));
        }
        json_object_set_new(l, "signals", ls);
        json_object_set_new(l, "abstract_unix", la);
        json_object_set_new(l, "network_full", json_boolean(scoped));
        json_object_set_new(ll, "signals", lls);
        json_object_set_new(ll, "abstract_unix", lla);
        json_object_set_new(o, "linux", l);
        json_object_set_new(o, "landlock", ll);
        return o;
}

static const char *const STATE_NAME[] = {[CHECK_OK] = "ok", [CHECK_FAILED] = "failed",
                                          [CHECK_NOT_TRIED] = "not tried", [CHECK_WITHOUT] = "without"};

static const char *errno_name(int e)
{
        static const struct {
                int e;
                const char *name;
        } N[] = {{EPERM, "EPERM"}, {EACCES, "EACCES"}, {ENOSYS, "ENOSYS"}, {EINVAL, "EINVAL"}, {ENOENT, "ENOENT"},
                 {EROFS, "EROFS"}, {ENOSPC, "ENOSPC"}, {EBUSY, "EBUSY"}, {ENOMEM, "ENOMEM"}, {EAGAIN, "EAGAIN"}};
        for (size_t i = 0; i < ARRAY_SIZE(N); i++)
                if (N[i].e == e)
                        return N[i].name;
        return NULL;
}

/* The fix for the first step of |run| that failed on |backend|. */
static char *trial_fix(const check_run *run, const char *backend, const char *userns_reason)
{
        const check_step_result *f = &run->steps[run->failed];
        bool linux_backend = streq(backend, "linux");
        const char *other = linux_backend ? ", or use --backend landlock" : "";
        if (streq(f->name, "user namespace"))
                return xasprintf("%s", userns_reason ? userns_reason : f->detail ? f->detail : "no user namespace");
        if (streq(f->name, "a fresh /proc") && f->err == EPERM)
                return xasprintf("a fresh /proc is refused: this host's /proc is partly covered (as a container's "
                                 "masked paths cover it), and the kernel mounts a new one only where the whole /proc "
                                 "is visible; run the container with %s (or --privileged)%s",
                                 host_engine_flag("proc"), other);
        if (streq(f->name, "sandbox user") && f->err == EPERM)
                return xasprintf("cordon runs as root without a user namespace, so the command runs as a sandbox "
                                 "user (isolation.user), which needs CAP_SETUID and CAP_SETGID: run the container "
                                 "with %s, or --user caller to run the command as root",
                                 host_engine_flag("setuid"));
        return xasprintf("%s: %s%s", f->name, f->detail ? f->detail : strerror(f->err), other);
}

static void steps_text(buf *b, const check_run *run)
{
        buf_printf(b, "  steps (each tried as a run takes it, in a throwaway sandbox):\n");
        for (size_t i = 0; i < run->n; i++) {
                const check_step_result *s = &run->steps[i];
                buf_printf(b, "    %s: %s%s%s\n", s->name, STATE_NAME[s->state], s->detail ? ": " : "",
                           s->detail ? s->detail : "");
        }
}

static json_t *steps_json(const check_run *run)
{
        json_t *a = json_array();
        for (size_t i = 0; i < run->n; i++) {
                const check_step_result *s = &run->steps[i];
                json_t *o = json_object();
                json_object_set_new(o, "step", json_text(s->name));
                json_object_set_new(o, "result", json_text(STATE_NAME[s->state]));
                if (s->state == CHECK_FAILED && errno_name(s->err))
                        json_object_set_new(o, "errno", json_text(errno_name(s->err)));
                if (s->detail)
                        json_object_set_new(o, s->state == CHECK_WITHOUT ? "why" : "error", json_text(s->detail));
                json_array_append_new(a, o);
        }
        return a;
}

static const char *without_list(const check_run *run, buf *b)
{
        for (size_t i = 0; i < run->n; i++)
                if (run->steps[i].state == CHECK_WITHOUT)
                        buf_printf(b, "%s%s", b->len ? ", " : " (without: ", run->steps[i].name);
        if (b->len)
                buf_printf(b, ")");
        return b->data ? b->data : "";
}

int cordon_host_check(const cordon_config *c, bool json, char **ret_report)
{
        _cleanup_free_ char *userns_reason = NULL, *cg = NULL, *pids = NULL;
        int userns = host_probe_userns(&userns_reason);
        int kernel_abi = landlock_abi(), abi = landlock_abi_relied(kernel_abi);
        bool seccomp = probe_seccomp() == 1;
        bool keyrings_refused = sys_keyrings_refused();
        cg = host_cgroup_summary();
        const char *backend = c && !streq(c->backend, "auto") ? c->backend : "linux";
        static const char *const PIDS_BY[] = {[PIDS_BY_CGROUP] = "cgroup", [PIDS_BY_RLIMIT] = "rlimit",
                                              [PIDS_BY_NONE] = "none"};
        bool ok, apparmor_fix = false;
        _cleanup_free_ char *why = NULL;
        check_run run = {.failed = -1}, ll_run = {.failed = -1};
        bool trial = streq(backend, "linux") || streq(backend, "landlock");
        if (trial && check_run_backend(c, backend, &run) < 0)
                return -ENOMEM;
        /* the trial's plan says whether a run has the sandbox user */
        int by = host_pids_mechanism(streq(backend, "linux"), run.sandbox_user, &pids);
        if (streq(backend, "linux")) {
                ok = run.failed < 0;
                if (userns != 1 && userns_limit() == LIMIT_APPARMOR)
                        why = apparmor_fix_here();
                apparmor_fix = why != NULL; /* says all that the short reason does */
                if (!ok && !why)
                        why = trial_fix(&run, backend, userns_reason);
        } else if (streq(backend, "landlock")) {
                ok = abi >= 1 && seccomp && run.failed < 0;
                if (abi < 1 || !seccomp)
                        why = xasprintf("the landlock backend needs Landlock and seccomp: %s",
                                        abi < 1 ? landlock_hint(abi) : "seccomp filters are missing");
                else if (!ok)
                        why = trial_fix(&run, backend, NULL);
        } else if (streq(backend, "seatbelt")) {
                ok = false;
                why = strdup("the seatbelt backend runs only on macOS; `cordon plan --backend seatbelt` shows its "
                             "profile");
        } else {
                ok = false;
                why = xasprintf("the \"%s\" backend is not available in this version", backend ? backend : "?");
        }
        /* where the linux backend cannot run, the landlock one is tried too */
        if (!ok && streq(backend, "linux") && abi >= 1 && seccomp && check_run_backend(c, "landlock", &ll_run) < 0) {
                check_run_free(&run);
                return -ENOMEM;
        }
        bool landlock_strongest = !ok && streq(backend, "linux") && abi >= 1 && seccomp && ll_run.n &&
                                  ll_run.failed < 0;
        buf b = {0};
        if (json) {
                json_t *o = json_object();
                json_object_set_new(o, "user_namespaces", json_boolean(userns == 1));
                if (userns_reason)
                        json_object_set_new(o, "user_namespaces_problem", json_text(userns_reason));
                json_object_set_new(o, "landlock_abi", json_integer(kernel_abi > 0 ? kernel_abi : 0));
                if (abi != kernel_abi)
                        json_object_set_new(o, "landlock_abi_relied", json_integer(abi > 0 ? abi : 0));
                landlock_rights ll = landlock_rights_for_abi(kernel_abi), relied = landlock_rights_for_abi(abi);
                _cleanup_free_ char *fs = landlock_fs_names(ll.fs);
                json_object_set_new(o, "landlock_fs_rights", json_text(fs ? fs : ""));
                ll.net = relied.net;
                ll.scoped = relied.scoped;
                json_object_set_new(o, "landlock_tcp", json_boolean(ll.net != 0));
                json_object_set_new(o, "landlock_scopes", json_boolean(ll.scoped != 0));
                json_object_set_new(o, "seccomp", json_boolean(seccomp));
                json_object_set_new(o, "protections", protections_obj(abi));
                json_object_set_new(o, "keyrings_refused", json_boolean(keyrings_refused));
                json_object_set_new(o, "cgroups", json_text(cg ? cg : "unknown"));
                json_object_set_new(o, "pids_limit_by", json_text(by > 0 ? PIDS_BY[by] : "unknown"));
                json_object_set_new(o, "pids_limit", json_text(pids ? pids : "unknown"));
                json_object_set_new(o, "backend", json_text(backend));
                json_object_set_new(o, "backend_ok", json_boolean(ok));
                if (trial)
                        json_object_set_new(o, "steps", steps_json(&run));
                if (why)
                        json_object_set_new(o, "fix", json_text(why));
                json_t *lacks = json_array();
                for (size_t i = 0; LANDLOCK_LACKS[i]; i++)
                        json_array_append_new(lacks, json_text(LANDLOCK_LACKS[i]));
                json_object_set_new(o, "landlock_backend_lacks", lacks);
                json_object_set_new(o, "strongest_backend",
                                    json_text(streq(backend, "linux") && ok ? "linux"
                                              : landlock_strongest || (streq(backend, "landlock") && ok) ? "landlock"
                                                                                                          : "none"));
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
                        landlock_rights ll = landlock_rights_for_abi(kernel_abi), relied = landlock_rights_for_abi(abi);
                        _cleanup_free_ char *fs = landlock_fs_names(ll.fs);
                        buf_printf(&b, "landlock: ABI %d", kernel_abi);
                        if (abi != kernel_abi)
                                buf_printf(&b, " (relied on as ABI %d: %s)", abi, LANDLOCK_ABI_TEST_ENV);
                        buf_printf(&b, "\n  filesystem rights: %s\n  TCP rules: %s; scopes: %s\n", fs ? fs : "?",
                                   relied.net ? "yes" : "no (ABI < 4)",
                                   relied.scoped ? "abstract unix sockets, signals" : "no (ABI < 6)");
                }
                else
                        buf_printf(&b, "landlock: no (%s)\n", landlock_hint(abi));
                buf_printf(&b, "seccomp: %s\n", seccomp ? "yes (filters)" : "no");
                protections_text(&b, abi);
                if (keyrings_refused)
                        buf_printf(&b, "keyrings: refused here (keyctl, add_key, request_key: a seccomp profile from "
                                       "outside, as a container runtime's): the command cannot reach one either, so "
                                       "runs go without a session keyring of their own\n");
                buf_printf(&b, "cgroups: %s\n", cg ? cg : "unknown");
                buf_printf(&b, "process limit (--pids): %s\n", pids ? pids : "unknown");
                buf without = {0};
                buf_printf(&b, "backend %s: %s%s\n", backend, ok ? "can run" : "cannot run",
                           ok ? without_list(&run, &without) : "");
                free(buf_steal(&without));
                if (trial)
                        steps_text(&b, &run);
                if (why)
                        buf_printf(&b, "  fix: %s\n", why);
                if (landlock_strongest)
                        buf_printf(&b, "  the strongest backend on this host is \"landlock\" (--backend landlock)\n");
                if (abi >= 1 && (landlock_strongest || streq(backend, "landlock")))
                        landlock_backend_text(&b, abi);
        }
        check_run_free(&run);
        check_run_free(&ll_run);
        char *s = buf_steal(&b);
        if (!s)
                return -ENOMEM;
        *ret_report = s;
        return ok ? 1 : 0;
}
