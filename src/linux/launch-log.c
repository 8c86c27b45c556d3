/* SPDX-License-Identifier: MIT */
/* What a launch tells the log: the plan with what Landlock and seccomp
 * enforce for this run (also to the instance's logs/cordon.log), and with
 * CORDON_DEBUG=timing where the start-up time went; the protections a run
 * has, for its --stats record. Called by backend.c. */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "instance.h"
#include "process.h"

/* What Landlock and seccomp enforce for this run, for the plan log. */
static char *security_summary(const cordon_plan *p, const launch_storage *s)
{
        buf b = {0};
        if (s->abi < 1)
                buf_printf(&b, "landlock: not enforced (%s)\n",
                           p->landlock == LANDLOCK_OFF ? "off by config" : landlock_hint(s->abi));
        else {
                _cleanup_free_ char *fs = landlock_fs_names(s->ll.fs);
                buf_printf(&b, "landlock: ABI %d, handled rights: %s\n", s->abi, fs ? fs : "?");
                char to_proxy[64];
                snprintf(to_proxy, sizeof(to_proxy), "denied but connect to the proxy port %u", s->proxy_port);
                buf_printf(&b, "landlock: TCP bind/connect %s; abstract unix sockets and signals %s\n",
                           !s->ll.net                           ? "not restricted (network namespace or full network)"
                           : p->network == CORDON_NETWORK_PROXY ? to_proxy
                                                                : "denied",
                           s->ll.scoped ? "scoped to the sandbox" : "not scoped (ABI < 6)");
        }
        if (s->supervise_opt.signals)
                buf_printf(&b, "signals: the call supervisor serves kill, tkill, tgkill, rt_sigqueueinfo, "
                               "rt_tgsigqueueinfo, pidfd_send_signal, pidfd_open and fcntl(F_SETOWN) for the "
                               "sandbox's processes only (Landlock ABI relied on: %d)\n",
                           landlock_abi_relied(s->abi));
        if (s->view_path)
                buf_printf(&b, "/etc: the files above are copies in %s, bound in one mount (CORDON_DEBUG=etc-binds: "
                               "each file bound)\n",
                           s->view_path);
        buf_printf(&b, "seccomp: %u BPF instructions, default allow; denied:", (unsigned)s->l.seccomp.len);
        for (size_t i = 0; SECCOMP_DENIED[i].name; i++)
                buf_printf(&b, " %s", SECCOMP_DENIED[i].name);
        if (p->backend == BACKEND_LANDLOCK)
                for (size_t i = 0; SECCOMP_HOST_IPC[i].name; i++)
                        buf_printf(&b, " %s", SECCOMP_HOST_IPC[i].name);
        buf_printf(&b, " clone(namespace flags) personality(!=0) ioctl(TIOCSTI,TIOCLINUX) chmod/open/creat/"
                       "mknod(setuid/setgid)%s\n",
                   p->backend != BACKEND_LANDLOCK || p->network == CORDON_NETWORK_FULL ? ""
                   : p->network == CORDON_NETWORK_PROXY ? " socket(!=AF_UNIX,TCP)"
                                                        : " socket(!=AF_UNIX)");
        return buf_steal(&b);
}

void log_plan(const cordon_plan *p, const launch_storage *s)
{
        _cleanup_free_ char *plan = cordon_plan_to_text(p);
        _cleanup_free_ char *sec = p->backend == BACKEND_NONE ? strdup("") : security_summary(p, s);
        _cleanup_free_ char *text = plan && sec ? xasprintf("%s%s", plan, sec) : NULL;
        if (!text)
                return;
        log_message(p->log_fn, p->log_userdata, CORDON_LOG_INFO, "%s", text);
        /* in cordon's own logs/ (checked), never through a link */
        _cleanup_close_ int logs = p->instance_root ? instance_open_logs(p->instance_root, NULL) : -1;
        int fd = logs < 0 ? -1
                          : openat(logs, "cordon.log", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return;
        char stamp[64];
        time_t t = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S%z", localtime_r(&t, &tm));
        buf b = {0};
        buf_printf(&b, "--- %s cordon run --", stamp);
        for (size_t i = 0; p->argv && p->argv[i]; i++) { /* read later with cat, less */
                buf_put(&b, " ", 1);
                buf_put_escaped(&b, p->argv[i], false);
        }
        buf_printf(&b, "\n%s", text);
        _cleanup_free_ char *all = buf_steal(&b);
        if (all)
                (void)!write(fd, all, strlen(all));
        close(fd);
}

static void report_groups(buf *b, const timing_page *t)
{
        static const char *const NAMES[GROUP__MAX] = {"system", "dev", "proc", "workspace", "instance", "git", "tmp"};
        const char *sep = " (";
        for (int i = 0; i < GROUP__MAX; i++) {
                if (t->group[i] <= 0)
                        continue;
                buf_printf(b, "%s%s %.3f", sep, NAMES[i], t->group[i] * 1e3);
                sep = ", ";
        }
        if (*sep == ',')
                buf_put(b, ")", 1);
}

/* CORDON_DEBUG=timing: where the start-up time went, in one line, each
 * phase as the time since the one before it. */
void report_timing(const cordon_plan *p, const launch_storage *s, const double *lm, double t_done)
{
        static const char *const LNAMES[LMARK__MAX] = {NULL, "instance", "git", "cgroup", "launch"};
        static const char *const NAMES[MARK__MAX] = {"namespaces", "ids+go", "unshare", "new root", "mounts", "seal",
                                                      "fork", "caps", "landlock", "seccomp"};
        buf b = {0};
        buf_printf(&b, "timing (ms): plan %.3f", p->prepare_s * 1e3);
        for (int i = 1; i < LMARK__MAX; i++)
                buf_printf(&b, ", %s %.3f", LNAMES[i], (lm[i] - lm[i - 1]) * 1e3);
        double prev = lm[LMARK_CLONE];
        for (int i = 0; s->l.marks && i < MARK_EXEC; i++) {
                double m = s->l.marks->mark[i];
                if (m <= 0)
                        continue;
                buf_printf(&b, ", %s %.3f", NAMES[i], (m - prev) * 1e3);
                if (i == MARK_MOUNTS)
                        report_groups(&b, s->l.marks);
                prev = m;
        }
        buf_printf(&b, ", exec %.3f; total %.3f\n", (t_done - prev) * 1e3,
                   (t_done - lm[LMARK_START] + p->prepare_s) * 1e3);
        _cleanup_free_ char *text = buf_steal(&b);
        if (text)
                log_message(p->log_fn, p->log_userdata, CORDON_LOG_INFO, "cordon: %s", text);
}

static json_t *names(const char *const *v, size_t n)
{
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                if (v[i] && json_array_append_new(a, json_string(v[i])) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

json_t *protections_json(const cordon_plan *p, const launch_storage *s, bool has_cgroup)
{
        bool ll_backend = p->backend == BACKEND_LANDLOCK, full = p->network == CORDON_NETWORK_FULL;
        int relied = landlock_abi_relied(s->abi);
        bool scoped = s->ll.scoped != 0, sup = s->supervise_opt.signals;
        _cleanup_free_ char *fs = landlock_fs_names(s->ll.fs);
        const char *signals[] = {ll_backend ? NULL : "pid namespace", scoped ? "landlock scope" : NULL,
                                 sup ? "call supervisor" : NULL};
        const char *abstract[] = {ll_backend || full ? NULL : "network namespace", scoped ? "landlock scope" : NULL,
                                  ll_backend ? "call supervisor" : NULL};
        const char *calls[] = {ll_backend ? "metadata" : NULL, ll_backend ? "connect" : NULL,
                               ll_backend ? "listen" : NULL, sup ? "signals" : NULL};
        json_t *o = json_object();
        bool ok = o && json_put(o, "backend", json_text(p->backend == BACKEND_LINUX ? "linux" : "landlock")) &&
                  json_put(o, "landlock_abi", json_integer(s->abi > 0 ? s->abi : 0)) &&
                  (relied == s->abi || json_put(o, "landlock_abi_relied", json_integer(relied > 0 ? relied : 0))) &&
                  json_put(o, "landlock_fs_rights", json_text(fs ? fs : "")) &&
                  json_put(o, "landlock_tcp", json_boolean(s->ll.net != 0)) &&
                  json_put(o, "landlock_scopes", json_boolean(scoped)) &&
                  json_put(o, "seccomp_filters", json_integer((s->l.seccomp.filter != NULL) +
                                                              (s->l.supervise.filter != NULL))) &&
                  json_put(o, "call_supervisor", names(calls, ARRAY_SIZE(calls))) &&
                  json_put(o, "signals", names(signals, ARRAY_SIZE(signals))) &&
                  json_put(o, "abstract_unix", names(abstract, ARRAY_SIZE(abstract))) &&
                  json_put(o, "cgroup", json_boolean(has_cgroup));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}
