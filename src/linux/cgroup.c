/* SPDX-License-Identifier: MIT */
/* cgroup limits for one sandbox: its cgroup created in each hierarchy that
 * holds a wanted controller, with its limits, the sandbox attached, its
 * counters read, and removed; for the launcher (launch.c, backend.c). What
 * the host offers is cgroup-probe.c's, where the cgroup goes in each
 * version cgroup-v1.c's and cgroup-v2.c's, the files cgroup-files.c's,
 * `cordon check` cgroup-check.c's. See cgroup.h for where the cgroup goes
 * and why.
 *
 * The kernel documents the rules relied on here:
 * https://docs.kernel.org/admin-guide/cgroup-v2.html ("no internal process
 * constraint", "delegation containment": moving a process needs write
 * access to cgroup.procs of the common ancestor) and
 * https://docs.kernel.org/admin-guide/cgroup-v1/memory.html (memsw,
 * oom_control). */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "error.h"
#include "host.h"
#include "undo.h"

const char *const CGROUP_CTRL[C__MAX] = {"memory", "pids", "cpu"};

#define CPU_PERIOD_US 100000
#define STALE_AGE_S   60

struct cgroup {
        hier h[C__MAX];
        size_t n;
        bool fixture;
        bool count_init;
};

void cg_hier_free(hier *h)
{
        free(h->mount);
        free(h->own);
        free(h->enable_first);
        free(h->parent);
        free(h->dir);
        *h = (hier){0};
}

cgroup_env cgroup_env_host(void)
{
        return (cgroup_env){.root = "", .uid = geteuid(), .gid = getegid(), .pid = getpid()};
}

/* Remove "cordon-<pid>-<n>" directories of launchers that are gone (a
 * launcher killed by SIGKILL cannot clean up). Only empty ones go (rmdir
 * refuses the rest), and only old ones (a launcher in another pid
 * namespace may be between its mkdir and its attach). */
/* The launcher pid of a "cordon-<pid>-<n>" name, or 0. */
static pid_t stale_name_pid(const char *name)
{
        if (strncmp(name, "cordon-", 7) != 0)
                return 0;
        char *end = NULL;
        errno = 0;
        long pid = strtol(name + 7, &end, 10);
        if (errno || end == name + 7 || *end != '-' || pid <= 0 || pid > INT32_MAX)
                return 0;
        const char *n = end + 1;
        strtoul(n, &end, 10);
        return end != n && *end == '\0' ? (pid_t)pid : 0;
}

static void sweep_stale(const char *parent)
{
        DIR *d = parent ? opendir(parent) : NULL;
        if (!d)
                return;
        struct dirent *e;
        time_t now = time(NULL);
        while ((e = readdir(d))) {
                pid_t pid = stale_name_pid(e->d_name);
                if (pid <= 0)
                        continue;
                struct stat st;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
                    now - st.st_mtime < STALE_AGE_S)
                        continue;
                if (kill(pid, 0) == 0 || errno != ESRCH)
                        continue;
                unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        }
        closedir(d);
}

typedef struct limit_file {
        int ctrl;
        const char *file;
        bool optional; /* absent when the kernel lacks it (swap accounting) */
        char value[48];
} limit_file;

/* The files to write for |h|, in order. Returns how many. */
static size_t limit_files(const hier *h, const cgroup_request *req, limit_file out[6])
{
        unsigned long long mem = (unsigned long long)req->memory_bytes;
        unsigned long long pids = (unsigned long long)req->pids + (req->count_init ? 1 : 0);
        unsigned long long quota = (unsigned long long)(req->cpu_quota * CPU_PERIOD_US + 0.5);
        if (quota < 1000)
                quota = 1000; /* the kernel's minimum */
        size_t n = 0;
        if (h->version == 1) {
                /* memsw (memory + swap) after limit_in_bytes: it may not be below it */
                out[n] = (limit_file){C_MEMORY, "memory.limit_in_bytes", false, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%llu", mem);
                out[n] = (limit_file){C_MEMORY, "memory.memsw.limit_in_bytes", true, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%llu", mem);
                out[n] = (limit_file){C_PIDS, "pids.max", false, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%llu", pids);
                out[n] = (limit_file){C_CPU, "cpu.cfs_period_us", false, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%d", CPU_PERIOD_US);
                out[n] = (limit_file){C_CPU, "cpu.cfs_quota_us", false, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%llu", quota);
        } else {
                out[n] = (limit_file){C_MEMORY, "memory.max", false, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%llu", mem);
                /* no swap on top of the limit, as memsw does on v1 */
                out[n] = (limit_file){C_MEMORY, "memory.swap.max", true, "0"};
                n++;
                out[n] = (limit_file){C_PIDS, "pids.max", false, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%llu", pids);
                out[n] = (limit_file){C_CPU, "cpu.max", false, ""};
                snprintf(out[n++].value, sizeof(out[0].value), "%llu %d", quota, CPU_PERIOD_US);
        }
        return n;
}

static int write_limits(bool fixture, const hier *h, const cgroup_request *req, char **why)
{
        limit_file f[6];
        size_t n = limit_files(h, req, f);
        for (size_t i = 0; i < n; i++) {
                if (!(h->ctrls & (1u << f[i].ctrl)))
                        continue;
                int r = cg_write_file2(fixture, h->dir, f[i].file, f[i].value);
                if (r == -ENOENT && f[i].optional)
                        continue;
                if (r < 0)
                        return cg_fail_why(why, r, "cannot write \"%s\" to %s/%s: %s", f[i].value, h->dir, f[i].file,
                                           strerror(-r));
        }
        return 0;
}

static int create_hier(const cgroup_env *env, hier *h, const cgroup_request *req, char **why)
{
        bool fixture = cg_is_fixture(env);
        int r;
        if (h->enable_first && (r = cg_enable_controllers(fixture, h->enable_first, h->ctrls, why)) < 0)
                return r;
        if (h->mkdir_parent && mkdir(h->parent, 0755) < 0 && errno != EEXIST)
                return cg_fail_why(why, -errno, "cannot create %s: %s", h->parent, strerror(errno));
        if (h->enable_in_parent && (r = cg_enable_controllers(fixture, h->parent, h->ctrls, why)) < 0)
                return r;
        sweep_stale(h->parent);
        /* The first free name: several sandboxes of one process, stale ones. */
        for (unsigned n = 0; !h->dir && n < 1000; n++) {
                _cleanup_free_ char *name = xasprintf("cordon-%d-%u", (int)env->pid, n);
                char *dir = name ? path_join(h->parent, name) : NULL;
                if (!dir)
                        return -ENOMEM;
                /* noted first: a launcher killed right after the mkdir
                 * leaves nothing (undo.h) */
                int note = undo_note_cgroup(req->undo, dir, h->version);
                if (mkdir(dir, 0755) == 0) {
                        undo_made(req->undo, note, true, -1);
                        h->dir = dir;
                        break;
                }
                int e = errno;
                undo_made(req->undo, note, false, -1);
                free(dir);
                if (e != EEXIST)
                        return cg_fail_why(why, -e, "cannot create a cgroup in %s: %s", h->parent, strerror(e));
        }
        if (!h->dir)
                return cg_fail_why(why, -EEXIST, "cannot create a cgroup in %s: too many cordon-%d-* entries",
                                   h->parent, (int)env->pid);
        return write_limits(fixture, h, req, why);
}

/* Kill what is in |dir| (not in a fixture) and remove it; tasks take a
 * moment to leave after SIGKILL, so rmdir is retried for up to 2 s. */
static void remove_dir(bool fixture, int version, const char *dir)
{
        if (fixture) {
                rmdir(dir);
                return;
        }
        if (version == 2)
                (void)cg_write_file2(false, dir, "cgroup.kill", "1");
        for (int i = 0; i < 200; i++) {
                if (rmdir(dir) == 0 || errno == ENOENT)
                        return;
                if (errno != EBUSY)
                        return;
                _cleanup_free_ char *procs = cg_read_file2(dir, "cgroup.procs");
                const char *l = procs;
                for (pid_t pid; (pid = cg_next_pid(&l)) > 0;)
                        kill(pid, SIGKILL);
                struct timespec ts = {0, 10000000L};
                nanosleep(&ts, NULL);
        }
}

cgroup *cgroup_free(cgroup *cg)
{
        if (!cg)
                return NULL;
        for (size_t i = 0; i < cg->n; i++) {
                if (cg->h[i].dir)
                        remove_dir(cg->fixture, cg->h[i].version, cg->h[i].dir);
                cg_hier_free(&cg->h[i]);
        }
        free(cg);
        return NULL;
}

static char *limit_label(int which, const cgroup_request *req)
{
        char size[32];
        switch (which) {
        case C_MEMORY:
                format_size((uint64_t)req->memory_bytes, size);
                return xasprintf("the memory limit %s (--memory)", size);
        case C_PIDS: return xasprintf("the process limit %g (--pids)", req->pids);
        case C_CPU: return xasprintf("the CPU limit %g (--cpus)", req->cpu_quota);
        default:
                format_size((uint64_t)req->tmp_size_bytes, size);
                return xasprintf("the /tmp size %s (--tmp-size)", size);
        }
}

static const char HINT_CGROUP[] = "cgroup limits need root, or a delegated cgroup v2 subtree (e.g. run cordon "
                                  "under `systemd-run --user --scope -p Delegate=yes`)";
static const char HINT_BEST_EFFORT[] = "to run without these limits, pass --limits-best-effort (config: "
                                       "\"isolation\": {\"limits_best_effort\": true})";

int cgroup_create(const cgroup_env *env, const cgroup_request *req, cgroup **ret, cordon_error **ret_error)
{
        *ret = NULL;
        double want[C__MAX + 1] = {req->memory_bytes, req->pids, req->cpu_quota, req->tmp_size_bytes};
        unsigned wanted = 0;
        for (int c = 0; c < C__MAX; c++)
                if (want[c] > 0)
                        wanted |= 1u << c;
        char *why[C__MAX + 1] = {0};
        /* each failed limit's errno, and the order the failures came in */
        int errs[C__MAX + 1] = {0}, seq[C__MAX + 1] = {0}, nfail = 0;
#define FAILED(c, e) (errs[c] = (e), seq[c] = ++nfail)
        if (want[C__MAX] > 0 && !req->private_tmp) {
                why[C__MAX] = xasprintf("only the linux backend mounts a private /tmp");
                FAILED(C__MAX, ENOTSUP);
        }
        if (!wanted && !nfail)
                return 0;

        probe pr;
        int r = cg_probe_read(env, &pr);
        cgroup *cg = r == 0 ? calloc(1, sizeof(*cg)) : NULL;
        if (!cg) {
                cg_probe_free(&pr);
                for (int c = 0; c <= C__MAX; c++)
                        free(why[c]);
                return error_set(ret_error, ENOMEM, "out of memory");
        }
        cg->fixture = cg_is_fixture(env);
        cg->count_init = req->count_init;

        /* Group the wanted controllers by hierarchy. */
        for (int c = 0; c < C__MAX; c++) {
                if (!(wanted & (1u << c)))
                        continue;
                if (!pr.version[c]) {
                        why[c] = xasprintf("no cgroup hierarchy here has the %s controller (neither a cgroup v1 "
                                           "mount nor the cgroup v2 root)",
                                           CGROUP_CTRL[c]);
                        FAILED(c, ENOTSUP);
                        continue;
                }
                if (pr.ro[c]) {
                        why[c] = xasprintf("%s is mounted read-only", pr.mount[c]);
                        FAILED(c, EROFS);
                        continue;
                }
                hier *h = NULL;
                for (size_t i = 0; i < cg->n && !h; i++)
                        if (cg->h[i].version == pr.version[c] && streq(cg->h[i].mount, pr.mount[c]))
                                h = &cg->h[i];
                if (!h) {
                        h = &cg->h[cg->n++];
                        *h = (hier){.version = pr.version[c], .mount = strdup(pr.mount[c]), .own = xstrdup(pr.own[c])};
                }
                h->ctrls |= 1u << c;
        }
        cg_probe_free(&pr);

        /* Plan and create each; a failure drops that hierarchy. */
        for (size_t i = 0; i < cg->n;) {
                hier *h = &cg->h[i];
                char *w = NULL;
                r = !h->mount ? -ENOMEM : h->version == 1 ? cg_plan_v1(env, h, &w) : cg_plan_v2(env, h, &w);
                if (r == 0)
                        r = create_hier(env, h, req, &w);
                if (r == 0) {
                        i++;
                        continue;
                }
                if (r == -ENOMEM && !w) {
                        cgroup_free(cg);
                        for (int c = 0; c <= C__MAX; c++)
                                free(why[c]);
                        return error_set(ret_error, ENOMEM, "out of memory");
                }
                for (int c = 0; c < C__MAX; c++)
                        if (h->ctrls & (1u << c)) {
                                why[c] = xstrdup(w);
                                FAILED(c, -r);
                        }
                free(w);
                if (h->dir)
                        remove_dir(cg->fixture, h->version, h->dir);
                cg_hier_free(h);
                memmove(h, h + 1, (cg->n - i - 1) * sizeof(*h));
                cg->h[--cg->n] = (hier){0};
        }

        /* Where no pids cgroup can be had, RLIMIT_NPROC in the sandbox's
         * own user namespace caps its tasks as well (cgroup_nproc_rlimit). */
        if (errs[C_PIDS] && req->pids_rlimit_ok) {
                why[C_PIDS] = (free(why[C_PIDS]), NULL);
                errs[C_PIDS] = 0;
                if (req->ret_pids_by_rlimit)
                        *req->ret_pids_by_rlimit = true;
        } else if (errs[C_PIDS] && req->pids_rlimit_why) {
                char *w = xasprintf("%s; RLIMIT_NPROC cannot stand in: %s", why[C_PIDS] ? why[C_PIDS] : "",
                                    req->pids_rlimit_why);
                if (w) {
                        free(why[C_PIDS]);
                        why[C_PIDS] = w;
                }
        }
#undef FAILED
        int err = 0, first = 0;
        for (int c = 0; c <= C__MAX; c++)
                if (errs[c] && (!err || seq[c] < first)) {
                        err = errs[c];
                        first = seq[c];
                }
        if (err) {
                buf b = {0};
                bool cgroup_reason = false;
                for (int c = 0; c <= C__MAX; c++) {
                        if (!why[c])
                                continue;
                        _cleanup_free_ char *label = limit_label(c, req);
                        buf_printf(&b, "%s%s: %s", b.len ? "; " : "", label ? label : "a limit", why[c]);
                        cgroup_reason |= c < C__MAX;
                }
                _cleanup_free_ char *list = buf_steal(&b);
                for (int c = 0; c <= C__MAX; c++)
                        free(why[c]);
                if (req->best_effort) {
                        _cleanup_free_ char *m =
                                xasprintf("limits_best_effort: running without %s", list ? list : "some limits");
                        if (req->log_fn && m)
                                req->log_fn(CORDON_LOG_WARNING, m, req->log_userdata);
                } else {
                        cgroup_free(cg);
                        return error_set(ret_error, err, "cannot enforce %s. %s%s%s", list ? list : "the limits",
                                         cgroup_reason ? HINT_CGROUP : "", cgroup_reason ? "; " : "", HINT_BEST_EFFORT);
                }
        }
        if (cg->n == 0)
                cg = cgroup_free(cg);
        *ret = cg;
        return 0;
}

int cgroup_prepare(const cordon_plan *p, undo_log *undo, cgroup **ret, bool *ret_pids_by_rlimit,
                   cordon_error **ret_error)
{
        cgroup_env env = cgroup_env_host();
        _cleanup_free_ char *nproc_why = NULL;
        /* only the linux backend gives the sandbox a user namespace of its
         * own; on the landlock backend the sandbox user's uid is the
         * instance's alone (plan-user.c) */
        bool nproc = p->limits[CORDON_LIMIT_PIDS] > 0 &&
                     ((p->backend == BACKEND_LINUX && cgroup_nproc_rlimit(&env, &nproc_why)) ||
                      (p->backend == BACKEND_LANDLOCK && p->sandbox_user));
        if (p->limits[CORDON_LIMIT_PIDS] > 0 && p->backend != BACKEND_LINUX && !nproc) {
                free(nproc_why);
                nproc_why = xasprintf("it counts the user's processes on the whole host without the linux "
                                      "backend's user namespace or the sandbox user (as root)");
        }
        *ret_pids_by_rlimit = false;
        cgroup_request req = {
                .pids_rlimit_ok = nproc,
                .pids_rlimit_why = nproc_why,
                .ret_pids_by_rlimit = ret_pids_by_rlimit,
                .undo = undo,
                .memory_bytes = p->limits[CORDON_LIMIT_MEMORY_BYTES],
                .pids = p->limits[CORDON_LIMIT_PIDS],
                .cpu_quota = p->limits[CORDON_LIMIT_CPU_QUOTA],
                .tmp_size_bytes = p->limits[CORDON_LIMIT_TMP_SIZE_BYTES],
                .private_tmp = p->backend == BACKEND_LINUX,
                .count_init = p->backend == BACKEND_LINUX,
                .best_effort = p->limits_best_effort,
                .log_fn = p->log_fn,
                .log_userdata = p->log_userdata,
        };
        return cgroup_create(&env, &req, ret, ret_error);
}

int cgroup_attach(cgroup *cg, pid_t pid, cordon_error **ret_error)
{
        char v[32];
        snprintf(v, sizeof(v), "%d", (int)pid);
        for (size_t i = 0; i < cg->n; i++) {
                int r = cg_write_file2(cg->fixture, cg->h[i].dir, "cgroup.procs", v);
                if (r < 0)
                        return error_set(ret_error, -r, "cannot move the sandbox into its cgroup %s: %s%s",
                                         cg->h[i].dir, strerror(-r),
                                         r == -EACCES || r == -EPERM
                                                 ? " (moving a process needs write access to cgroup.procs of "
                                                   "the common ancestor of both cgroups)"
                                                 : "");
        }
        return 0;
}

int cgroup_signal(cgroup *cg, int sig)
{
        if (!cg || cg->n == 0)
                return -ENOTSUP;
        if (cg->fixture)
                return 0;
        /* every hierarchy holds every process of the sandbox: one suffices */
        const hier *h = &cg->h[0];
        if (sig == SIGKILL && h->version == 2 && cg_write_file2(false, h->dir, "cgroup.kill", "1") == 0)
                return 0;
        _cleanup_free_ char *procs = cg_read_file2(h->dir, "cgroup.procs");
        if (!procs)
                return -errno;
        const char *l = procs;
        for (pid_t pid; (pid = cg_next_pid(&l)) > 0;)
                kill(pid, sig);
        return 0;
}

static const hier *hier_of(const cgroup *cg, int c)
{
        for (size_t i = 0; cg && i < cg->n; i++)
                if (cg->h[i].ctrls & (1u << c))
                        return &cg->h[i];
        return NULL;
}

const char *cgroup_dir(const cgroup *cg, const char *controller)
{
        for (int c = 0; c < C__MAX; c++)
                if (streq(controller, CGROUP_CTRL[c])) {
                        const hier *h = hier_of(cg, c);
                        return h ? h->dir : NULL;
                }
        return NULL;
}

void cgroup_collect(cgroup *cg, cordon_result *res)
{
        uint64_t v;
        const hier *m = hier_of(cg, C_MEMORY);
        if (m) {
                bool v1 = m->version == 1;
                if (cg_read_kv(m->dir, v1 ? "memory.oom_control" : "memory.events", "oom_kill", &v)) {
                        if (v > 0)
                                res->oom_killed = true;
                } else if (v1 && cg_read_u64(m->dir, "memory.failcnt", &v) && v > 0 && res->signal == SIGKILL) {
                        /* kernels before 4.13 count no oom_kill: the limit was hit and SIGKILL came */
                        res->oom_killed = true;
                }
                if (cg_read_u64(m->dir, v1 ? "memory.max_usage_in_bytes" : "memory.peak", &v) && v > res->max_rss_bytes)
                        res->max_rss_bytes = v;
        }
        const hier *p = hier_of(cg, C_PIDS);
        if (p) {
                if (cg_read_kv(p->dir, "pids.events", "max", &v) && v > 0)
                        res->pids_limited = true;
                if (cg_read_u64(p->dir, "pids.peak", &v)) {
                        if (cg->count_init && v > 0)
                                v--; /* the init is cordon's */
                        res->pids_peak = v;
                }
        }
}
