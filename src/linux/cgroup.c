/* SPDX-License-Identifier: MIT */
/* cgroup limits for one sandbox: detection (which hierarchy holds which
 * controller, where the caller may create a cgroup), creation, attach,
 * counters, removal. See cgroup.h for where the cgroup goes and why.
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

#include "error.h"
#include "host.h"
#include "undo.h"

enum { C_MEMORY, C_PIDS, C_CPU, C__MAX };
static const char *const CTRL[C__MAX] = {"memory", "pids", "cpu"};

#define CPU_PERIOD_US 100000
#define STALE_AGE_S   60

typedef struct hier {
        int version;    /* 1 or 2 */
        unsigned ctrls; /* 1 << C_* */
        char *mount;    /* mount point (prefixed) */
        char *own;      /* the caller's cgroup in it (prefixed) */
        /* the plan: */
        char *enable_first;    /* v2: enable ctrls in this dir's subtree_control first */
        char *parent;          /* where ours is created */
        bool mkdir_parent;     /* parent is a "cordon" directory created on demand */
        bool enable_in_parent; /* v2: enable ctrls in parent's subtree_control */
        /* the result: */
        char *dir; /* ours, once created */
} hier;

struct cgroup {
        hier h[C__MAX];
        size_t n;
        bool fixture;
        bool count_init;
};

/* What the host offers, per controller. */
typedef struct probe {
        int version[C__MAX]; /* 0: none */
        char *mount[C__MAX];
        char *own[C__MAX]; /* NULL: the caller's cgroup is not visible there */
        bool ro[C__MAX];
        char *v2_mount; /* the cgroup2 mount, with or without controllers */
        char *v2_own;
        bool v2_ro;
} probe;

static void probe_free(probe *pr)
{
        for (int c = 0; c < C__MAX; c++) {
                free(pr->mount[c]);
                free(pr->own[c]);
        }
        free(pr->v2_mount);
        free(pr->v2_own);
        *pr = (probe){0};
}

static void hier_free(hier *h)
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

/* ---- small file helpers --------------------------------------------------------- */

/* Store a reason in |*why| (caller frees) and return |r|. */
static int fail_why(char **why, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_why(char **why, int r, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        free(*why);
        *why = xvasprintf(fmt, ap);
        va_end(ap);
        return r;
}

/* The next pid of a cgroup.procs text, advancing |*p|; 0 at the end. */
static pid_t next_pid(const char **p)
{
        while (*p && **p) {
                char *end = NULL;
                long v = strtol(*p, &end, 10);
                const char *nl = strchr(*p, '\n');
                *p = nl ? nl + 1 : NULL;
                if (end && v > 0)
                        return (pid_t)v;
        }
        return 0;
}

static bool is_fixture(const cgroup_env *env)
{
        return env->root && env->root[0];
}

/* |root| + |path|. */
static char *at_root(const cgroup_env *env, const char *path)
{
        return xasprintf("%s%s", env->root ? env->root : "", path);
}

/* The whole of a small file, NUL-terminated; NULL with errno set. */
static char *read_text(const char *path)
{
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        buf b = {0};
        char chunk[4096];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof(chunk))) > 0 && b.len < (1 << 20))
                buf_put(&b, chunk, (size_t)n);
        int e = n < 0 ? errno : 0;
        close(fd);
        char *s = buf_steal(&b);
        if (e || !s) {
                free(s);
                errno = e ? e : ENOMEM;
                return NULL;
        }
        return s;
}

static char *read_file2(const char *dir, const char *name)
{
        _cleanup_free_ char *p = path_join(dir, name);
        return p ? read_text(p) : NULL;
}

/* Write |text| in one write(2): cgroup files take one value per write. In
 * a fixture the file is created (the kernel would have). Returns 0 or
 * -errno. */
static int write_text(bool fixture, const char *path, const char *text)
{
        int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC | (fixture ? O_CREAT | O_TRUNC : 0), 0644);
        if (fd < 0)
                return -errno;
        size_t len = strlen(text);
        ssize_t n = write(fd, text, len);
        int e = n < 0 ? errno : 0;
        close(fd);
        if (e)
                return -e;
        return n == (ssize_t)len ? 0 : -EIO;
}

static int write_file2(bool fixture, const char *dir, const char *name, const char *text)
{
        _cleanup_free_ char *p = path_join(dir, name);
        return p ? write_text(fixture, p, text) : -ENOMEM;
}

/* The number after "|key| " in a "key value" file (memory.events,
 * memory.oom_control, pids.events). */
static bool kv_get(const char *text, const char *key, uint64_t *ret)
{
        size_t klen = strlen(key);
        for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                if (strncmp(l, key, klen) == 0 && l[klen] == ' ') {
                        char num[32];
                        size_t n = strcspn(l + klen + 1, "\n");
                        if (n == 0 || n >= sizeof(num))
                                return false;
                        memcpy(num, l + klen + 1, n);
                        num[n] = '\0';
                        return parse_uint64(num, ret) == 0;
                }
        }
        return false;
}

static bool read_u64(const char *dir, const char *name, uint64_t *ret)
{
        _cleanup_free_ char *t = read_file2(dir, name);
        if (!t)
                return false;
        t[strcspn(t, "\n")] = '\0';
        return parse_uint64(t, ret) == 0;
}

static bool read_kv(const char *dir, const char *name, const char *key, uint64_t *ret)
{
        _cleanup_free_ char *t = read_file2(dir, name);
        return t && kv_get(t, key, ret);
}

/* Is |word| one of the separator-separated words of |list|? */
static bool has_word(const char *list, const char *word, const char *seps)
{
        size_t wl = strlen(word);
        for (const char *p = list; p && *p;) {
                p += strspn(p, seps);
                size_t n = strcspn(p, seps);
                if (n == wl && strncmp(p, word, n) == 0)
                        return true;
                p += n;
        }
        return false;
}

/* May |env|'s user create entries in (directory) or write (file) |path|?
 * Decided from ownership and mode bits, as the kernel does for cgroupfs
 * (delegation is by chown); the real operation has the last word. */
static bool may_write(const cgroup_env *env, const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0)
                return false;
        if (env->uid == 0)
                return true;
        if (st.st_uid == env->uid)
                return st.st_mode & S_IWUSR;
        if (st.st_gid == env->gid)
                return st.st_mode & S_IWGRP;
        return st.st_mode & S_IWOTH;
}

static bool may_write2(const cgroup_env *env, const char *dir, const char *name)
{
        _cleanup_free_ char *p = path_join(dir, name);
        return p && may_write(env, p);
}

/* ---- probing --------------------------------------------------------------------- */

/* Undo the octal escapes of /proc/self/mountinfo (\040 for a space). */
static void unescape_octal(char *s)
{
        char *o = s;
        for (char *i = s; *i; i++) {
                if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' && i[3] >= '0' &&
                    i[3] <= '7') {
                        *o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
                        i += 3;
                } else
                        *o++ = *i;
        }
        *o = '\0';
}

/* The caller's cgroup path in the hierarchy whose /proc/self/cgroup
 * controller list contains |ctrl| (v1), or the "0::" line (|ctrl| NULL). */
static const char *own_path(char *const *lines, const char *ctrl)
{
        for (size_t i = 0; lines && lines[i]; i++) {
                const char *l = lines[i];
                const char *c1 = strchr(l, ':');
                const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                        continue;
                _cleanup_free_ char *list = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
                if (!list)
                        return NULL;
                if (ctrl ? has_word(list, ctrl, ",") : (strncmp(l, "0:", 2) == 0 && !list[0]))
                        return c2 + 1;
        }
        return NULL;
}

/* mount point + (caller's path - mount root), or NULL when the caller's
 * cgroup is outside what the mount shows. */
static char *own_dir(const char *mount, const char *mount_root, const char *path)
{
        if (!path)
                return NULL;
        const char *rel = path_skip_prefix(path, mount_root);
        if (!rel)
                return NULL;
        return *rel ? path_join(mount, rel) : strdup(mount);
}

static char **split_lines(char *text)
{
        char **v = NULL;
        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                if (strv_push(&v, l) < 0)
                        return strv_free(v);
        return v ? v : calloc(1, sizeof(char *));
}

/* Read /proc/self/mountinfo and /proc/self/cgroup (under env->root). A host
 * without them simply has no cgroups. Returns 0 or -ENOMEM. */
static int probe_read(const cgroup_env *env, probe *pr)
{
        *pr = (probe){0};
        _cleanup_free_ char *mi_path = at_root(env, "/proc/self/mountinfo");
        _cleanup_free_ char *cg_path = at_root(env, "/proc/self/cgroup");
        if (!mi_path || !cg_path)
                return -ENOMEM;
        _cleanup_free_ char *mi = read_text(mi_path);
        _cleanup_free_ char *cgt = read_text(cg_path);
        if (!mi || !cgt)
                return errno == ENOMEM ? -ENOMEM : 0;
        _cleanup_strv_ char **own = split_lines(cgt);
        _cleanup_strv_ char **lines = split_lines(mi);
        if (!own || !lines)
                return -ENOMEM;
        for (size_t i = 0; lines[i]; i++) {
                /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
                char *f[64];
                int n = 0;
                for (char *save = NULL, *t = strtok_r(lines[i], " ", &save); t && n < 64;
                     t = strtok_r(NULL, " ", &save))
                        f[n++] = t;
                int sep = -1;
                for (int k = 6; k < n; k++)
                        if (streq(f[k], "-")) {
                                sep = k;
                                break;
                        }
                if (sep < 0 || sep + 3 >= n)
                        continue;
                const char *fstype = f[sep + 1], *super = f[sep + 3];
                bool ro = has_word(f[5], "ro", ",");
                unescape_octal(f[3]);
                unescape_octal(f[4]);
                _cleanup_free_ char *mnt = at_root(env, f[4]);
                if (!mnt)
                        return -ENOMEM;
                if (streq(fstype, "cgroup2") && !pr->v2_mount) {
                        pr->v2_mount = TAKE_PTR(mnt);
                        pr->v2_own = own_dir(pr->v2_mount, f[3], own_path(own, NULL));
                        pr->v2_ro = ro;
                } else if (streq(fstype, "cgroup")) {
                        for (int c = 0; c < C__MAX; c++) {
                                if (pr->version[c] || !has_word(super, CTRL[c], ","))
                                        continue;
                                pr->version[c] = 1;
                                pr->mount[c] = strdup(mnt);
                                pr->own[c] = own_dir(mnt, f[3], own_path(own, CTRL[c]));
                                pr->ro[c] = ro;
                                if (!pr->mount[c])
                                        return -ENOMEM;
                        }
                }
        }
        /* A controller not bound to a v1 hierarchy is v2's when the v2
         * root offers it (a hybrid host's empty "unified" mount does not). */
        _cleanup_free_ char *avail = pr->v2_mount ? read_file2(pr->v2_mount, "cgroup.controllers") : NULL;
        for (int c = 0; c < C__MAX; c++)
                if (!pr->version[c] && avail && has_word(avail, CTRL[c], " \n")) {
                        pr->version[c] = 2;
                        pr->mount[c] = strdup(pr->v2_mount);
                        pr->own[c] = xstrdup(pr->v2_own);
                        pr->ro[c] = pr->v2_ro;
                        if (!pr->mount[c])
                                return -ENOMEM;
                }
        return 0;
}

/* ---- planning: where the cgroup goes -------------------------------------------- */

static char *ctrl_list(unsigned ctrls, const char *prefix)
{
        buf b = {0};
        for (int c = 0; c < C__MAX; c++)
                if (ctrls & (1u << c))
                        buf_printf(&b, "%s%s%s", b.len ? " " : "", prefix, CTRL[c]);
        char *s = buf_steal(&b);
        return s ? s : strdup("");
}

/* The controllers of |ctrls| missing from |dir|/|file|. */
static unsigned missing_in(const char *dir, const char *file, unsigned ctrls)
{
        _cleanup_free_ char *t = read_file2(dir, file);
        unsigned miss = 0;
        for (int c = 0; c < C__MAX; c++)
                if ((ctrls & (1u << c)) && !(t && has_word(t, CTRL[c], " \n")))
                        miss |= 1u << c;
        return miss;
}

static int plan_v1(const cgroup_env *env, hier *h, char **why)
{
        if (!h->own)
                return fail_why(why, -ENOTSUP, "this process's cgroup is not visible under %s", h->mount);
        bool at_top = streq(h->own, h->mount);
        h->parent = at_top ? path_join(h->mount, "cordon") : strdup(h->own);
        h->mkdir_parent = at_top;
        if (!h->parent)
                return -ENOMEM;
        const char *need = at_top ? h->mount : h->own;
        if (!may_write(env, need))
                return fail_why(why, -EPERM,
                                "the cgroup v1 hierarchy %s is not writable by uid %u (v1 cgroups "
                                "are normally root's)",
                                need, (unsigned)env->uid);
        return 0;
}

/* v2: see cgroup.h for the order of the candidates. */
static int plan_v2(const cgroup_env *env, hier *h, char **why)
{
        if (!h->own)
                return fail_why(why, -ENOTSUP, "this process's cgroup is not visible under %s", h->mount);
        if (streq(h->own, h->mount)) {
                /* The root (or a cgroup namespace's root): a "cordon" child. */
                unsigned miss = missing_in(h->mount, "cgroup.controllers", h->ctrls);
                if (miss) {
                        _cleanup_free_ char *m = ctrl_list(miss, "");
                        return fail_why(why, -ENOTSUP, "%s/cgroup.controllers lacks %s", h->mount, m ? m : "");
                }
                if (!may_write(env, h->mount) || !may_write2(env, h->mount, "cgroup.subtree_control") ||
                    !may_write2(env, h->mount, "cgroup.procs"))
                        return fail_why(why, -EPERM, "the cgroup v2 root %s is not writable by uid %u", h->mount,
                                        (unsigned)env->uid);
                if (missing_in(h->mount, "cgroup.subtree_control", h->ctrls) && !(h->enable_first = strdup(h->mount)))
                        return -ENOMEM;
                h->parent = path_join(h->mount, "cordon");
                h->mkdir_parent = true;
                h->enable_in_parent = true;
                return h->parent ? 0 : -ENOMEM;
        }
        if (!missing_in(h->own, "cgroup.subtree_control", h->ctrls) && may_write(env, h->own) &&
            may_write2(env, h->own, "cgroup.procs")) {
                /* The caller's cgroup already hands the controllers down. */
                h->parent = strdup(h->own);
                return h->parent ? 0 : -ENOMEM;
        }
        /* Beside the caller's cgroup: it holds the caller, so (no internal
         * processes) it cannot hand controllers down itself. */
        _cleanup_free_ char *up = path_dirname(h->own);
        if (!up)
                return -ENOMEM;
        if (!path_startswith(up, h->mount))
                return fail_why(why, -ENOTSUP, "this process's cgroup %s has no parent under %s", h->own, h->mount);
        if (!may_write(env, up) || !may_write2(env, up, "cgroup.procs"))
                return fail_why(why, -EPERM,
                                "this process's cgroup %s holds processes, so cgroup v2 lets no "
                                "controller below it, and its parent %s is not writable by uid %u (not a delegated "
                                "subtree)",
                                h->own, up, (unsigned)env->uid);
        unsigned miss = missing_in(up, "cgroup.subtree_control", h->ctrls);
        if (miss) {
                _cleanup_free_ char *m = ctrl_list(miss, "");
                if (missing_in(up, "cgroup.controllers", miss))
                        return fail_why(why, -ENOTSUP,
                                        "%s is not delegated the %s controller (see its "
                                        "cgroup.controllers)",
                                        up, m ? m : "");
                if (!may_write2(env, up, "cgroup.subtree_control"))
                        return fail_why(why, -EPERM, "%s/cgroup.subtree_control is not writable by uid %u", up,
                                        (unsigned)env->uid);
                h->enable_in_parent = true;
        }
        h->parent = TAKE_PTR(up);
        return 0;
}

/* ---- creating ---------------------------------------------------------------------- */

static int enable_controllers(bool fixture, const char *dir, unsigned ctrls, char **why)
{
        unsigned miss = missing_in(dir, "cgroup.subtree_control", ctrls);
        if (!miss)
                return 0;
        _cleanup_free_ char *text = ctrl_list(miss, "+");
        if (!text)
                return -ENOMEM;
        int r = write_file2(fixture, dir, "cgroup.subtree_control", text);
        if (r < 0)
                return fail_why(why, r, "cannot enable %s in %s/cgroup.subtree_control: %s%s", text, dir, strerror(-r),
                                r == -EBUSY ? " (that cgroup holds processes: cgroup v2 then lets no controller "
                                              "below it)"
                                            : "");
        return 0;
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
                int r = write_file2(fixture, h->dir, f[i].file, f[i].value);
                if (r == -ENOENT && f[i].optional)
                        continue;
                if (r < 0)
                        return fail_why(why, r, "cannot write \"%s\" to %s/%s: %s", f[i].value, h->dir, f[i].file,
                                        strerror(-r));
        }
        return 0;
}

static int create_hier(const cgroup_env *env, hier *h, const cgroup_request *req, char **why)
{
        bool fixture = is_fixture(env);
        int r;
        if (h->enable_first && (r = enable_controllers(fixture, h->enable_first, h->ctrls, why)) < 0)
                return r;
        if (h->mkdir_parent && mkdir(h->parent, 0755) < 0 && errno != EEXIST)
                return fail_why(why, -errno, "cannot create %s: %s", h->parent, strerror(errno));
        if (h->enable_in_parent && (r = enable_controllers(fixture, h->parent, h->ctrls, why)) < 0)
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
                        return fail_why(why, -e, "cannot create a cgroup in %s: %s", h->parent, strerror(e));
        }
        if (!h->dir)
                return fail_why(why, -EEXIST, "cannot create a cgroup in %s: too many cordon-%d-* entries", h->parent,
                                (int)env->pid);
        return write_limits(fixture, h, req, why);
}

/* ---- removing --------------------------------------------------------------------- */

/* Kill what is in |dir| (not in a fixture) and remove it; tasks take a
 * moment to leave after SIGKILL, so rmdir is retried for up to 2 s. */
static void remove_dir(bool fixture, int version, const char *dir)
{
        if (fixture) {
                rmdir(dir);
                return;
        }
        if (version == 2)
                (void)write_file2(false, dir, "cgroup.kill", "1");
        for (int i = 0; i < 200; i++) {
                if (rmdir(dir) == 0 || errno == ENOENT)
                        return;
                if (errno != EBUSY)
                        return;
                _cleanup_free_ char *procs = read_file2(dir, "cgroup.procs");
                const char *l = procs;
                for (pid_t pid; (pid = next_pid(&l)) > 0;)
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
                hier_free(&cg->h[i]);
        }
        free(cg);
        return NULL;
}

/* ---- the whole ---------------------------------------------------------------------- */

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
        int r = probe_read(env, &pr);
        cgroup *cg = r == 0 ? calloc(1, sizeof(*cg)) : NULL;
        if (!cg) {
                probe_free(&pr);
                for (int c = 0; c <= C__MAX; c++)
                        free(why[c]);
                return error_set(ret_error, ENOMEM, "out of memory");
        }
        cg->fixture = is_fixture(env);
        cg->count_init = req->count_init;

        /* Group the wanted controllers by hierarchy. */
        for (int c = 0; c < C__MAX; c++) {
                if (!(wanted & (1u << c)))
                        continue;
                if (!pr.version[c]) {
                        why[c] = xasprintf("no cgroup hierarchy here has the %s controller (neither a cgroup v1 "
                                           "mount nor the cgroup v2 root)",
                                           CTRL[c]);
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
        probe_free(&pr);

        /* Plan and create each; a failure drops that hierarchy. */
        for (size_t i = 0; i < cg->n;) {
                hier *h = &cg->h[i];
                char *w = NULL;
                r = !h->mount ? -ENOMEM : h->version == 1 ? plan_v1(env, h, &w) : plan_v2(env, h, &w);
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
                hier_free(h);
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
        /* only the linux backend gives the sandbox a user namespace of its own */
        bool nproc = p->limits[CORDON_LIMIT_PIDS] > 0 && p->backend == BACKEND_LINUX &&
                     cgroup_nproc_rlimit(&env, &nproc_why);
        if (p->limits[CORDON_LIMIT_PIDS] > 0 && p->backend != BACKEND_LINUX) {
                free(nproc_why);
                nproc_why = xasprintf("it counts the user's processes on the whole host without the linux "
                                      "backend's user namespace");
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
                int r = write_file2(cg->fixture, cg->h[i].dir, "cgroup.procs", v);
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
        if (sig == SIGKILL && h->version == 2 && write_file2(false, h->dir, "cgroup.kill", "1") == 0)
                return 0;
        _cleanup_free_ char *procs = read_file2(h->dir, "cgroup.procs");
        if (!procs)
                return -errno;
        const char *l = procs;
        for (pid_t pid; (pid = next_pid(&l)) > 0;)
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
                if (streq(controller, CTRL[c])) {
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
                if (read_kv(m->dir, v1 ? "memory.oom_control" : "memory.events", "oom_kill", &v)) {
                        if (v > 0)
                                res->oom_killed = true;
                } else if (v1 && read_u64(m->dir, "memory.failcnt", &v) && v > 0 && res->signal == SIGKILL) {
                        /* kernels before 4.13 count no oom_kill: the limit was hit and SIGKILL came */
                        res->oom_killed = true;
                }
                if (read_u64(m->dir, v1 ? "memory.max_usage_in_bytes" : "memory.peak", &v) && v > res->max_rss_bytes)
                        res->max_rss_bytes = v;
        }
        const hier *p = hier_of(cg, C_PIDS);
        if (p) {
                if (read_kv(p->dir, "pids.events", "max", &v) && v > 0)
                        res->pids_limited = true;
                if (read_u64(p->dir, "pids.peak", &v)) {
                        if (cg->count_init && v > 0)
                                v--; /* the init is cordon's */
                        res->pids_peak = v;
                }
        }
}

/* ---- cordon check ------------------------------------------------------------------ */

/* Where a cgroup for controller |c| would go (*ret_where, the parent
 * directory without env->root), or why it cannot (*ret_why). Both are the
 * caller's to free. Returns 0 or -errno. */
static int dry_plan(const cgroup_env *env, const probe *pr, int c, char **ret_where, char **ret_why)
{
        *ret_where = *ret_why = NULL;
        if (!pr->version[c]) {
                *ret_why = xasprintf("no cgroup hierarchy here has the %s controller", CTRL[c]);
                return -ENOTSUP;
        }
        if (pr->ro[c]) {
                *ret_why = xasprintf("%s is read-only", pr->mount[c] + strlen(env->root ? env->root : ""));
                return -EROFS;
        }
        hier h = {.version = pr->version[c], .ctrls = 1u << c, .mount = xstrdup(pr->mount[c]), .own = xstrdup(pr->own[c])};
        int r = !h.mount ? -ENOMEM : h.version == 1 ? plan_v1(env, &h, ret_why) : plan_v2(env, &h, ret_why);
        if (r == 0)
                *ret_where = xstrdup(h.parent + strlen(env->root ? env->root : ""));
        hier_free(&h);
        return r;
}

/* "5.14.0-rc1" -> 5, 14; false when it is not a version. */
static bool kernel_version(const char *release, unsigned *major, unsigned *minor)
{
        char *end = NULL;
        unsigned long a = strtoul(release, &end, 10);
        if (end == release || *end != '.')
                return false;
        const char *m = end + 1;
        unsigned long b = strtoul(m, &end, 10);
        if (end == m)
                return false;
        *major = (unsigned)a;
        *minor = (unsigned)b;
        return true;
}

/* The id of the parent namespace that |id| maps to in a uid_map text, or
 * -1 when it maps to none. */
static long long map_outside(const char *map, unsigned id)
{
        for (const char *l = map; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                unsigned long long v[3];
                const char *p = l;
                int n = 0;
                for (char *end = NULL; n < 3; n++, p = end) {
                        while (*p == ' ' || *p == '\t')
                                p++;
                        if (*p < '0' || *p > '9')
                                break;
                        v[n] = strtoull(p, &end, 10);
                }
                if (n == 3 && id >= v[0] && id - v[0] < v[2])
                        return (long long)(v[1] + (id - v[0]));
        }
        return -1;
}

bool cgroup_nproc_rlimit(const cgroup_env *env, char **ret_why)
{
        *ret_why = NULL;
        _cleanup_free_ char *rel_path = at_root(env, "/proc/sys/kernel/osrelease");
        _cleanup_free_ char *map_path = at_root(env, "/proc/self/uid_map");
        _cleanup_free_ char *rel = rel_path ? read_text(rel_path) : NULL;
        _cleanup_free_ char *map = map_path ? read_text(map_path) : NULL;
        unsigned major = 0, minor = 0;
        if (!rel || !kernel_version(rel, &major, &minor)) {
                *ret_why = xasprintf("the kernel's version is unknown (/proc/sys/kernel/osrelease), and before "
                                     "Linux 5.14 it counts the user's processes on the whole host");
                return false;
        }
        if (major < 5 || (major == 5 && minor < 14)) {
                *ret_why = xasprintf("Linux %u.%u counts it per user on the whole host (per user namespace only "
                                     "since 5.14)",
                                     major, minor);
                return false;
        }
        /* The kernel exempts the host's root (and CAP_SYS_RESOURCE, which
         * the command never has). A uid that maps to 0 outside, or an
         * unreadable map, counts as root. */
        long long outside = map ? map_outside(map, (unsigned)env->uid) : 0;
        if (outside == 0) {
                *ret_why = xasprintf("root (uid 0 of the host) is exempt from it");
                return false;
        }
        return true;
}

int cgroup_pids_mechanism(const cgroup_env *env, bool own_userns, char **ret_text)
{
        *ret_text = NULL;
        probe pr;
        if (probe_read(env, &pr) < 0)
                return -ENOMEM;
        _cleanup_free_ char *where = NULL, *why = NULL, *nproc_why = NULL;
        int r = dry_plan(env, &pr, C_PIDS, &where, &why);
        probe_free(&pr);
        if (r == -ENOMEM && !why)
                return -ENOMEM;
        pids_by by;
        if (r == 0) {
                by = PIDS_BY_CGROUP;
                *ret_text = xasprintf("the pids cgroup (in %s)", where ? where : "?");
        } else if (own_userns && cgroup_nproc_rlimit(env, &nproc_why)) {
                by = PIDS_BY_RLIMIT;
                *ret_text = xasprintf("RLIMIT_NPROC in the sandbox's user namespace (no pids cgroup: %s)",
                                      why ? why : strerror(-r));
        } else {
                by = PIDS_BY_NONE;
                *ret_text = xasprintf("cannot be enforced: no pids cgroup (%s), and RLIMIT_NPROC cannot stand in (%s)",
                                      why ? why : strerror(-r),
                                      nproc_why ? nproc_why : "only in the linux backend's user namespace");
        }
        return *ret_text ? (int)by : -ENOMEM;
}

char *cgroup_summary(const cgroup_env *env)
{
        probe pr;
        if (probe_read(env, &pr) < 0)
                return NULL;
        buf b = {0};
        bool any = false;
        for (int c = 0; c < C__MAX; c++)
                any |= pr.version[c] != 0;
        if (!any) {
                buf_printf(&b, "none (no memory, pids or cpu controller mounted): --memory, --pids and --cpus "
                               "cannot be enforced");
        } else {
                /* One clause per controller: version and whether this user can use it. */
                for (int c = 0; c < C__MAX; c++) {
                        buf_printf(&b, "%s%s: ", c ? "; " : "", CTRL[c]);
                        if (!pr.version[c]) {
                                buf_printf(&b, "missing");
                                continue;
                        }
                        char *where = NULL, *w = NULL;
                        int r = dry_plan(env, &pr, c, &where, &w);
                        if (r == 0)
                                buf_printf(&b, "v%d, usable (in %s)", pr.version[c], where ? where : "?");
                        else
                                buf_printf(&b, "v%d, not usable: %s", pr.version[c], w ? w : strerror(-r));
                        free(where);
                        free(w);
                }
                if (pr.v2_mount && pr.version[C_MEMORY] != 2 && pr.version[C_PIDS] != 2 && pr.version[C_CPU] != 2)
                        buf_printf(&b, "; cgroup v2 at %s holds none of them (hybrid host)",
                                   pr.v2_mount + strlen(env->root ? env->root : ""));
        }
        probe_free(&pr);
        return buf_steal(&b);
}

char *host_cgroup_summary(void)
{
        cgroup_env env = cgroup_env_host();
        return cgroup_summary(&env);
}

int host_pids_mechanism(bool own_userns, char **ret_text)
{
        cgroup_env env = cgroup_env_host();
        return cgroup_pids_mechanism(&env, own_userns, ret_text);
}
