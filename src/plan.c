/* SPDX-License-Identifier: MIT */
/* config + command + host -> plan. Reads the host filesystem (through the
 * injectable host root), changes nothing.
 *
 * One rule per target. When two sources want the same target the stronger
 * origin wins: protect > expose (explicit) > instance/workspace > system >
 * automatic (exe, cwd, args); automatic rules are only added where the path
 * is not visible already. */
#include "plan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "error.h"
#include "instance.h"

const char *const PROC_READ_ONLY[] = {"sys", "sysrq-trigger", "irq", "bus", "fs", NULL};
const char *const PROC_MASKED[] = {"kcore", "keys", "timer_list", "sched_debug", NULL};

static const char *const SYSTEM_DIRS[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL};
static const char *const ETC_ENTRIES[] = {
        "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/ld.so.conf",
        "/etc/ld.so.conf.d", "/etc/localtime", "/etc/ssl", "/etc/ca-certificates", "/etc/alternatives", NULL,
};
/* Never exposed automatically: kernel interfaces the sandbox gets its own of. */
static const char *const NEVER_AUTO[] = {"/proc", "/sys", "/dev", NULL};
/* Directories never exposed whole for an executable in them (the file alone is). */
static const char *const NEVER_AUTO_DIR[] = {"/etc", "/boot", "/var", NULL};

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define MAX_SYMLINKS 40

const char *mount_type_name(mount_type t)
{
        static const char *const N[] = {"bind", "tmpfs", "proc", "dev", "symlink", "file"};
        return t <= MOUNT_FILE ? N[t] : "?";
}

const char *mount_origin_name(mount_origin o)
{
        static const char *const N[] = {"system", "instance", "workspace", "expose", "protect",
                                        "exe",    "cwd",      "arg",       "generated"};
        return o <= ORIGIN_GENERATED ? N[o] : "?";
}

const char *backend_name(backend_kind b)
{
        switch (b) {
        case BACKEND_LINUX: return "linux";
        case BACKEND_LANDLOCK: return "landlock";
        default: return "none";
        }
}

static int origin_rank(mount_origin o)
{
        switch (o) {
        case ORIGIN_PROTECT: return 5;
        case ORIGIN_EXPOSE: return 4;
        case ORIGIN_INSTANCE:
        case ORIGIN_WORKSPACE: return 3;
        case ORIGIN_SYSTEM:
        case ORIGIN_GENERATED: return 2;
        default: return 1;
        }
}

static void mount_clear(plan_mount *m)
{
        free(m->source);
        free(m->target);
        free(m->content);
}

cordon_plan *cordon_plan_free(cordon_plan *p)
{
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_mounts; i++)
                mount_clear(&p->mounts[i]);
        free(p->mounts);
        free(p->disabled_by);
        strv_free(p->argv);
        free(p->exe);
        strv_free(p->env);
        free(p->cwd);
        free(p->host_cwd);
        free(p->instance_root);
        free(p->workspace);
        free(p->hostname);
        strv_free(p->warnings);
        free(p);
        return NULL;
}

const char *const *cordon_plan_env(const cordon_plan *p) { return (const char *const *)p->env; }
const char *cordon_plan_backend(const cordon_plan *p) { return backend_name(p->backend); }

/* ---- reading the host through the host root ----------------------------------- */

typedef struct builder {
        const cordon_config *c;
        const cordon_command *cmd;
        const host_info *h;
        cordon_plan *p;
        cordon_error **err;
        char *home_real; /* the home directory with its symlinks resolved, or NULL */
} builder;

static char *host_path(const host_info *h, const char *path) { return strjoin2(h->root, path); }

/* lstat() results while one plan is built: the same paths are looked at
 * again and again (resolving, checking visibility, mount points), and on
 * some virtual machines each system call costs microseconds. */
typedef struct stat_entry {
        char *path;
        struct stat st;
        int err;
} stat_entry;

struct stat_cache {
        stat_entry *e;
        size_t n, cap;
};

static void stat_cache_clear(struct stat_cache *c)
{
        for (size_t i = 0; i < c->n; i++)
                free(c->e[i].path);
        free(c->e);
        *c = (struct stat_cache){0};
}

static void stat_cache_put(struct stat_cache *c, const char *path, const struct stat *st, int err)
{
        if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 64;
                stat_entry *e = realloc(c->e, cap * sizeof(*e));
                if (!e)
                        return; /* uncached is fine */
                c->e = e;
                c->cap = cap;
        }
        stat_entry *slot = &c->e[c->n];
        slot->path = strdup(path);
        if (!slot->path)
                return;
        slot->st = *st;
        slot->err = err;
        c->n++;
}

static int host_lstat(const host_info *h, const char *path, struct stat *st)
{
        struct stat_cache *c = h->cache;
        for (size_t i = 0; c && i < c->n; i++)
                if (streq(c->e[i].path, path)) {
                        *st = c->e[i].st;
                        return c->e[i].err;
                }
        _cleanup_free_ char *hp = host_path(h, path);
        if (!hp)
                return -ENOMEM;
        int r = lstat(hp, st) < 0 ? -errno : 0;
        if (c)
                stat_cache_put(c, path, st, r);
        return r;
}

static char *host_readlink(const host_info *h, const char *path)
{
        _cleanup_free_ char *hp = host_path(h, path);
        char target[PATH_MAX];
        ssize_t n = hp ? readlink(hp, target, sizeof(target) - 1) : -1;
        if (n < 0)
                return NULL;
        target[n] = '\0';
        return strdup(target);
}

/* Canonical form of |path| on the host: every symlink resolved, relative to
 * the host root. With |allow_missing|, a missing tail is appended as is. */
static int host_resolve(const host_info *h, const char *path, bool allow_missing, char **ret)
{
        _cleanup_free_ char *done = strdup(""), *todo = strdup(path);
        int links = 0;
        if (!done || !todo)
                return -ENOMEM;
        const char *rest = todo;
        for (;;) {
                while (*rest == '/')
                        rest++;
                if (!*rest)
                        break;
                const char *end = strchrnul(rest, '/');
                size_t len = (size_t)(end - rest);
                if (len == 1 && rest[0] == '.') {
                        rest = end;
                        continue;
                }
                if (len == 2 && rest[0] == '.' && rest[1] == '.') {
                        char *slash = strrchr(done, '/');
                        if (slash)
                                *slash = '\0';
                        rest = end;
                        continue;
                }
                _cleanup_free_ char *cand =
                        strnconcat(3, (const char *const[]){done, "/", rest}, (const size_t[]){(size_t)-1, 1, len});
                if (!cand)
                        return -ENOMEM;
                struct stat st;
                int r = host_lstat(h, cand, &st);
                if (r == -ENOENT && allow_missing) {
                        char *full = strjoin3(done, "/", rest);
                        if (!full)
                                return -ENOMEM;
                        free(done);
                        done = full;
                        break;
                }
                if (r < 0)
                        return r;
                if (!S_ISLNK(st.st_mode)) {
                        free(done);
                        done = TAKE_PTR(cand);
                        rest = end;
                        continue;
                }
                if (++links > MAX_SYMLINKS)
                        return -ELOOP;
                _cleanup_free_ char *link = host_readlink(h, cand);
                if (!link)
                        return -errno ? -errno : -ENOMEM;
                char *next = strjoin3(link, "/", end);
                if (!next)
                        return -ENOMEM;
                if (link[0] == '/')
                        done[0] = '\0';
                free(todo);
                todo = next;
                rest = todo;
        }
        if (!done[0]) {
                free(done);
                done = strdup("/");
        }
        char *norm = NULL;
        int r = done ? path_normalize(done, true, &norm) : -ENOMEM;
        if (r < 0)
                return r;
        *ret = norm;
        return 0;
}

/* stat() through the host root: follows symlinks inside it. */
static int host_stat(const host_info *h, const char *path, struct stat *st)
{
        _cleanup_free_ char *r = NULL;
        int e = host_resolve(h, path, false, &r);
        return e < 0 ? e : host_lstat(h, r, st);
}

/* ---- the mount list -------------------------------------------------------------- */

static plan_mount *find_target(cordon_plan *p, const char *target)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (streq(p->mounts[i].target, target))
                        return &p->mounts[i];
        return NULL;
}

/* Adds a mount; takes ownership of the strings. Keeps the stronger origin
 * when the target already has a rule. */
static int add_mount(cordon_plan *p, plan_mount m)
{
        plan_mount *old = find_target(p, m.target);
        if (old) {
                if (origin_rank(m.origin) < origin_rank(old->origin)) {
                        mount_clear(&m);
                        return 0;
                }
                mount_clear(old);
                *old = m;
                return 0;
        }
        plan_mount *n = realloc(p->mounts, (p->n_mounts + 1) * sizeof(*n));
        if (!n) {
                mount_clear(&m);
                return -ENOMEM;
        }
        p->mounts = n;
        p->mounts[p->n_mounts++] = m;
        return 0;
}

static int add_simple(cordon_plan *p, mount_type t, const char *target, bool writable, mount_origin o)
{
        char *tg = strdup(target);
        if (!tg)
                return -ENOMEM;
        /* cppcheck-suppress memleak ; add_mount takes ownership of the strings */
        return add_mount(p, (plan_mount){.type = t, .target = tg, .writable = writable, .origin = o, .is_dir = true});
}

/* Bind |source| (a host path, resolved here) at |target|. */
static int add_bind(builder *b, const char *source, const char *target, bool writable, mount_origin o,
                    bool allow_missing)
{
        char *resolved = NULL;
        int r = host_resolve(b->h, source, allow_missing, &resolved);
        if (r < 0)
                return error_set(b->err, -r, "cannot resolve %s: %s", source, strerror(-r));
        struct stat st;
        bool is_dir = host_lstat(b->h, resolved, &st) < 0 || S_ISDIR(st.st_mode);
        char *tg = strdup(target);
        if (!tg) {
                free(resolved);
                return -ENOMEM;
        }
        /* cppcheck-suppress memleak ; add_mount takes ownership of the strings */
        return add_mount(b->p, (plan_mount){.type = MOUNT_BIND, .source = resolved, .target = tg,
                                            .writable = writable, .is_dir = is_dir, .origin = o});
}

/* The mount whose target is the longest prefix of |path|, or NULL. */
static const plan_mount *mount_covering(const cordon_plan *p, const char *path)
{
        const plan_mount *best = NULL;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (path_startswith(path, m->target) && (!best || strlen(m->target) > strlen(best->target)))
                        best = m;
        }
        return best;
}

/* Where the sandbox path |path| comes from on the host, or NULL when it is
 * not backed by the host (tmpfs, proc, dev) or not visible at all. */
static char *sandbox_to_host(const cordon_plan *p, const char *path, int depth)
{
        const plan_mount *m = mount_covering(p, path);
        if (!m || depth > MAX_SYMLINKS)
                return NULL;
        const char *rest = path_skip_prefix(path, m->target);
        if (m->type == MOUNT_BIND)
                return path_join(m->source, rest);
        if (m->type != MOUNT_SYMLINK)
                return NULL;
        _cleanup_free_ char *dir = path_dirname(m->target);
        _cleanup_free_ char *via = m->source[0] == '/' ? path_join(m->source, rest) : NULL;
        if (!via) {
                _cleanup_free_ char *base = dir ? path_join(dir, m->source) : NULL;
                via = base ? path_join(base, rest) : NULL;
        }
        _cleanup_free_ char *norm = NULL;
        if (!via || path_normalize(via, true, &norm) < 0)
                return NULL;
        return sandbox_to_host(p, norm, depth + 1);
}

/* Where the canonical host path |path| is visible in the sandbox, or NULL. */
static char *host_to_sandbox(const cordon_plan *p, const char *path)
{
        size_t best_len = 0;
        char *best = NULL;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->type != MOUNT_BIND || !path_startswith(path, m->source))
                        continue;
                if (best && strlen(m->source) <= best_len)
                        continue;
                char *cand = path_join(m->target, path_skip_prefix(path, m->source));
                _cleanup_free_ char *back = cand ? sandbox_to_host(p, cand, 0) : NULL;
                if (!back || !streq(back, path)) { /* shadowed by another mount */
                        free(cand);
                        continue;
                }
                free(best);
                best = cand;
                best_len = strlen(m->source);
        }
        return best;
}

/* Is the sandbox path |path| backed by an existing host file? */
static bool sandbox_visible(builder *b, const char *path)
{
        _cleanup_free_ char *hp = sandbox_to_host(b->p, path, 0);
        struct stat st;
        return hp && host_stat(b->h, hp, &st) == 0;
}

/* Why |path| may not be exposed automatically (to follow "the working
 * directory X is ..."), or NULL. Never "/", the home directory or an
 * ancestor of it, nor kernel interfaces. */
static const char *auto_expose_problem(const builder *b, const char *path)
{
        if (streq(path, "/"))
                return "the root directory";
        if ((b->h->home && path_startswith(b->h->home, path)) || (b->home_real && path_startswith(b->home_real, path)))
                return "your home directory or above it";
        for (size_t i = 0; NEVER_AUTO[i]; i++)
                if (path_startswith(path, NEVER_AUTO[i]))
                        return "a kernel interface (the sandbox has its own /proc, /sys and /dev)";
        _cleanup_free_ char *logs = b->p->instance_root ? path_join(b->p->instance_root, "logs") : NULL;
        if (b->p->instance_root && (!logs || path_startswith(path, logs)))
                return "inside cordon's logs/ (its audit trail stays hidden)";
        return NULL;
}

static bool auto_exposable(const builder *b, const char *path) { return !auto_expose_problem(b, path); }

/* The same, judged both by the name and by what it resolves to on the host:
 * a symlink to the home directory or to "/" is no more exposable than they
 * are. False for a missing path or a dangling link. */
static bool auto_exposable_resolved(const builder *b, const char *path)
{
        _cleanup_free_ char *real = NULL;
        return auto_exposable(b, path) && host_resolve(b->h, path, false, &real) == 0 && auto_exposable(b, real);
}

/* ---- the fixed part of the view ----------------------------------------------------- */

/* The landlock backend sees the host's own tree: rules instead of mounts.
 * /proc is the host's (read-only rights; Landlock keeps the command away
 * from other processes' /proc/PID files through its ptrace restriction),
 * a few devices, and the host's passwd/group (no secrets). No /tmp:
 * TMPDIR points into the instance. */
static int plan_system_landlock(builder *b)
{
        static const char *const RO[] = {"/proc", "/etc/passwd", "/etc/group", NULL};
        static const char *const RW[] = {"/dev/null", "/dev/zero",   "/dev/full", "/dev/random",
                                         "/dev/urandom", "/dev/tty", "/dev/pts",  "/dev/ptmx", NULL};
        for (int pass = 0; pass < 2; pass++)
                for (const char *const *p = pass ? RW : RO; *p; p++) {
                        struct stat st;
                        if (host_stat(b->h, *p, &st) < 0)
                                continue;
                        int r = add_bind(b, *p, *p, pass == 1, ORIGIN_SYSTEM, false);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int plan_system(builder *b)
{
        for (size_t i = 0; SYSTEM_DIRS[i]; i++) {
                struct stat st;
                if (host_lstat(b->h, SYSTEM_DIRS[i], &st) < 0)
                        continue;
                int r;
                if (S_ISLNK(st.st_mode)) {
                        /* merged-/usr: recreate the link, don't bind through it */
                        char *link = host_readlink(b->h, SYSTEM_DIRS[i]), *tg = strdup(SYSTEM_DIRS[i]);
                        if (!link || !tg) {
                                free(link);
                                free(tg);
                                return -ENOMEM;
                        }
                        r = add_mount(b->p, (plan_mount){.type = MOUNT_SYMLINK, .source = link, .target = tg,
                                                         .origin = ORIGIN_SYSTEM});
                } else if (S_ISDIR(st.st_mode)) {
                        r = add_bind(b, SYSTEM_DIRS[i], SYSTEM_DIRS[i], false, ORIGIN_SYSTEM, false);
                } else {
                        continue;
                }
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; ETC_ENTRIES[i]; i++) {
                struct stat st;
                if (host_stat(b->h, ETC_ENTRIES[i], &st) < 0)
                        continue; /* absent on this host, or a dangling link */
                int r = add_bind(b, ETC_ENTRIES[i], ETC_ENTRIES[i], false, ORIGIN_SYSTEM, false);
                if (r < 0)
                        return r;
        }
        if (b->p->backend == BACKEND_LANDLOCK)
                return plan_system_landlock(b);
        int r = add_simple(b->p, MOUNT_PROC, "/proc", true, ORIGIN_SYSTEM);
        if (r == 0)
                r = add_simple(b->p, MOUNT_DEV, "/dev", true, ORIGIN_SYSTEM);
        if (r == 0)
                r = add_simple(b->p, MOUNT_TMPFS, "/tmp", true, ORIGIN_SYSTEM);
        return r;
}

static int add_file(cordon_plan *p, const char *target, char *content)
{
        char *tg = strdup(target);
        if (!tg || !content) {
                free(tg);
                free(content);
                return -ENOMEM;
        }
        /* cppcheck-suppress memleak ; add_mount takes ownership of the strings */
        return add_mount(p, (plan_mount){.type = MOUNT_FILE, .target = tg, .content = content,
                                         .origin = ORIGIN_GENERATED});
}

/* /etc/passwd and /etc/group holding only the sandbox user. */
static int plan_identity(builder *b)
{
        const host_info *h = b->h;
        const char *user = h->user ? h->user : h->uid == 0 ? "root" : "user";
        const char *group = h->group ? h->group : user;
        const char *home = env_get(b->p->env, "HOME");
        int r = add_file(b->p, "/etc/passwd",
                         xasprintf("%s:x:%u:%u:%s:%s:/bin/sh\n", user, (unsigned)h->uid, (unsigned)h->gid, user,
                                   home ? home : "/"));
        if (r == 0)
                r = add_file(b->p, "/etc/group", xasprintf("%s:x:%u:\n", group, (unsigned)h->gid));
        return r;
}

/* Landlock cannot take rights away below a granted directory, so the
 * landlock backend grants the instance's subdirectories one by one and
 * leaves logs/ out. */
static int plan_instance_landlock(builder *b)
{
        cordon_plan *p = b->p;
        for (size_t i = 0; INSTANCE_SUBDIRS[i]; i++) {
                const char *d = INSTANCE_SUBDIRS[i];
                if (strchr(d, '/') || streq(d, "logs"))
                        continue;
                _cleanup_free_ char *path = path_join(p->instance_root, d);
                int r = path ? add_bind(b, path, path, true, ORIGIN_INSTANCE, true) : -ENOMEM;
                if (r < 0)
                        return r;
        }
        if (!path_startswith(p->workspace, p->instance_root))
                return add_bind(b, p->workspace, p->workspace, true, ORIGIN_WORKSPACE, true);
        return 0;
}

static int plan_instance(builder *b)
{
        cordon_plan *p = b->p;
        if (p->backend == BACKEND_LANDLOCK)
                return plan_instance_landlock(b);
        int r = add_bind(b, p->instance_root, p->instance_root, true, ORIGIN_INSTANCE, true);
        _cleanup_free_ char *logs = path_join(p->instance_root, "logs");
        if (r == 0 && !logs)
                r = -ENOMEM;
        /* logs/ is cordon's audit trail: hidden under an empty read-only tmpfs */
        if (r == 0)
                r = add_simple(p, MOUNT_TMPFS, logs, false, ORIGIN_INSTANCE);
        if (r == 0 && !path_startswith(p->workspace, p->instance_root))
                r = add_bind(b, p->workspace, p->workspace, true, ORIGIN_WORKSPACE, true);
        return r;
}

static int plan_expose(builder *b)
{
        for (size_t i = 0; i < b->c->n_expose; i++) {
                const expose_rule *e = &b->c->expose[i];
                if (b->p->backend == BACKEND_LANDLOCK && !streq(e->source, e->target))
                        return error_set(b->err, EINVAL,
                                         "expose %s -> %s: the landlock backend cannot remap paths (it has no "
                                         "mount namespace); use the same target, or the linux backend",
                                         e->source, e->target);
                int r = add_bind(b, e->source, e->target, e->writable, ORIGIN_EXPOSE, false);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- what the command needs to start ------------------------------------------------ */

/* Expose the host path |path| (a file or directory the command needs) with
 * its directory when that may be exposed, else the file alone. */
static int expose_auto(builder *b, const char *path, cordon_expose_mode mode, mount_origin o)
{
        if (sandbox_visible(b, path))
                return 0;
        _cleanup_free_ char *dir = path_dirname(path);
        if (!dir)
                return -ENOMEM;
        struct stat st;
        bool is_dir = host_stat(b->h, path, &st) == 0 && S_ISDIR(st.st_mode);
        bool dir_ok = auto_exposable_resolved(b, dir);
        for (size_t i = 0; NEVER_AUTO_DIR[i]; i++)
                dir_ok = dir_ok && !streq(dir, NEVER_AUTO_DIR[i]);
        const char *what = !is_dir && dir_ok ? dir : path;
        if (!auto_exposable_resolved(b, what))
                return 0;
        return add_bind(b, what, what, mode == CORDON_EXPOSE_RW, o, false);
}

/* Expose an executable found at |path| and, when it is a symlink, what it
 * points to, so the link does not dangle inside. */
static int expose_exe_chain(builder *b, const char *path)
{
        cordon_expose_mode mode = b->c->auto_expose[CORDON_AUTO_EXPOSE_EXE];
        if (mode == CORDON_EXPOSE_OFF)
                return 0;
        int r = expose_auto(b, path, mode, ORIGIN_EXE);
        _cleanup_free_ char *real = NULL;
        if (r == 0 && host_resolve(b->h, path, false, &real) == 0 && !streq(real, path)) {
                _cleanup_free_ char *seen = host_to_sandbox(b->p, real);
                if (!seen)
                        r = expose_auto(b, real, mode, ORIGIN_EXE);
        }
        return r;
}

/* 0 when |path| (host) is an executable file, else -ENOENT or -EACCES. */
static int host_executable(const host_info *h, const char *path)
{
        struct stat st;
        int r = host_stat(h, path, &st);
        if (r < 0)
                return -ENOENT;
        if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
                return -EACCES;
        return 0;
}

/* The absolute interpreter of a "#!" script, or NULL. */
static char *shebang_interpreter(const host_info *h, const char *path)
{
        _cleanup_free_ char *hp = NULL, *real = NULL;
        if (host_resolve(h, path, false, &real) < 0 || !(hp = host_path(h, real)))
                return NULL;
        _cleanup_close_ int fd = open(hp, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        char line[256];
        ssize_t n = fd < 0 ? -1 : read(fd, line, sizeof(line) - 1);
        if (n < 3 || line[0] != '#' || line[1] != '!')
                return NULL;
        line[n] = '\0';
        char *s = line + 2;
        s += strspn(s, " \t");
        size_t len = strcspn(s, " \t\r\n");
        if (s[0] != '/' || s[len] == '\0')
                return NULL; /* relative, or the line did not fit */
        return strndup(s, len);
}

static int not_found(builder *b, const char *name)
{
        int r = name[0] ? error_set(b->err, ENOENT, "%s: command not found in the sandbox's PATH", name)
                        : error_set(b->err, ENOENT, "the command name is empty");
        if (b->err && *b->err)
                (*b->err)->exit_status = 127;
        return r;
}

static int not_executable(builder *b, const char *name)
{
        int r = error_set(b->err, EACCES, "%s: permission denied (not an executable file)", name);
        if (b->err && *b->err)
                (*b->err)->exit_status = 126;
        return r;
}

/* Look |name| up the way execvp would inside the sandbox: first among what
 * the sandbox sees, then on the host (which then gets exposed). Sets
 * |*ret_path| to the path to execute. */
static int find_exe(builder *b, const char *name, char **ret_path)
{
        if (!name[0]) /* as execvp: ENOENT, not a search that finds the PATH directories */
                return not_found(b, name);
        if (strchr(name, '/')) {
                _cleanup_free_ char *joined = name[0] == '/' ? strdup(name) : path_join(b->p->cwd, name);
                char *norm = NULL;
                if (!joined || path_normalize(joined, true, &norm) < 0)
                        return -ENOMEM;
                _cleanup_free_ char *hp = sandbox_to_host(b->p, norm, 0);
                int r = host_executable(b->h, hp ? hp : norm);
                if (r == 0 || r == -EACCES) {
                        *ret_path = norm;
                        return r == 0 ? 0 : not_executable(b, name);
                }
                free(norm);
                return not_found(b, name);
        }
        const char *path = env_get(b->p->env, "PATH");
        _cleanup_free_ char *copy = strdup(path ? path : DEFAULT_PATH);
        if (!copy)
                return -ENOMEM;
        bool denied = false;
        for (int pass = 0; pass < 2; pass++) {
                _cleanup_free_ char *dirs = strdup(copy);
                char *save = NULL;
                for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
                        if (d[0] != '/')
                                continue; /* a relative PATH entry would depend on the cwd: skip */
                        _cleanup_free_ char *cand = path_join(d, name);
                        _cleanup_free_ char *hp = pass == 0 && cand ? sandbox_to_host(b->p, cand, 0) : NULL;
                        if (!cand || (pass == 0 && !hp))
                                continue;
                        int r = host_executable(b->h, pass == 0 ? hp : cand);
                        if (r == 0) {
                                char *norm = NULL;
                                if (path_normalize(cand, true, &norm) < 0)
                                        return -ENOMEM;
                                *ret_path = norm;
                                return 0;
                        }
                        denied = denied || r == -EACCES;
                }
        }
        return denied ? not_executable(b, name) : not_found(b, name);
}

static int plan_cwd(builder *b)
{
        const char *want = b->cmd && b->cmd->cwd ? b->cmd->cwd : b->h->cwd;
        _cleanup_free_ char *real = NULL;
        int r = want ? host_resolve(b->h, want, false, &real) : -ENOENT;
        if (r < 0)
                return error_set(b->err, -r, "the working directory %s does not exist", want ? want : "(unknown)");
        b->p->host_cwd = strdup(real);
        if (!b->p->host_cwd)
                return -ENOMEM;
        if (b->p->backend == BACKEND_NONE) {
                b->p->cwd = TAKE_PTR(real);
                return 0;
        }
        char *seen = host_to_sandbox(b->p, real);
        if (seen) {
                b->p->cwd = seen;
                return 0;
        }
        if (streq(real, "/")) {
                /* Started from / (MCP clients often start servers there): the
                 * command starts in the sandbox's own /, which exists and
                 * shows nothing of the host's (the landlock backend's rules
                 * deny listing it). Nothing is exposed for it. */
                b->p->cwd = TAKE_PTR(real);
                return 0;
        }
        cordon_expose_mode mode = b->c->auto_expose[CORDON_AUTO_EXPOSE_CWD];
        const char *hint = "run from the workspace, set the working directory to a path inside it, or expose a "
                           "directory that holds it (--expose DIR or isolation.expose_paths)";
        if (mode == CORDON_EXPOSE_OFF)
                return error_set(b->err, EACCES,
                                 "the working directory %s is not visible in the sandbox and auto_expose.cwd is "
                                 "\"off\": %s",
                                 real, hint);
        const char *why = auto_expose_problem(b, real);
        if (why)
                return error_set(b->err, EACCES,
                                 "the working directory %s is %s, which cordon never exposes automatically: %s", real,
                                 why, hint);
        const plan_mount *taken = find_target(b->p, real);
        if (taken)
                return error_set(b->err, EACCES,
                                 "the working directory %s is the sandbox's own %s, not the host's: %s", real,
                                 mount_type_name(taken->type), hint);
        r = add_bind(b, real, real, mode == CORDON_EXPOSE_RW, ORIGIN_CWD, false);
        if (r == 0)
                b->p->cwd = TAKE_PTR(real);
        return r;
}

/* Absolute paths among the arguments, as "/x" or "--opt=/x". */
static const char *arg_path(const char *arg)
{
        if (arg[0] == '/')
                return arg;
        const char *eq = arg[0] == '-' ? strchr(arg, '=') : NULL;
        return eq && eq[1] == '/' ? eq + 1 : NULL;
}

static int plan_args(builder *b)
{
        cordon_expose_mode mode = b->c->auto_expose[CORDON_AUTO_EXPOSE_ARGS];
        for (size_t i = 1; mode != CORDON_EXPOSE_OFF && b->p->argv[i]; i++) {
                const char *a = arg_path(b->p->argv[i]);
                _cleanup_free_ char *norm = NULL;
                if (!a || path_normalize(a, false, &norm) < 0)
                        continue;
                /* missing paths (dangling links too) are never exposed, nor
                 * their parents; links count as what they point to */
                if (sandbox_visible(b, norm) || !auto_exposable_resolved(b, norm))
                        continue;
                int r = add_bind(b, norm, norm, mode == CORDON_EXPOSE_RW, ORIGIN_ARG, false);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int plan_command(builder *b)
{
        int r = plan_cwd(b);
        if (r < 0 || b->p->backend == BACKEND_NONE) {
                if (r == 0)
                        r = find_exe(b, b->p->argv[0], &b->p->exe);
                return r;
        }
        r = find_exe(b, b->p->argv[0], &b->p->exe);
        if (r == 0)
                r = expose_exe_chain(b, b->p->exe);
        _cleanup_free_ char *interp = r == 0 ? shebang_interpreter(b->h, b->p->exe) : NULL;
        if (interp)
                r = expose_exe_chain(b, interp);
        if (r == 0)
                r = plan_args(b);
        if (r == 0 && !sandbox_visible(b, b->p->exe))
                r = error_set(b->err, EACCES,
                              "%s is not visible in the sandbox (auto_expose.exe is \"off\" or it lies in your "
                              "home directory): expose it with --expose",
                              b->p->exe);
        return r;
}

/* ---- protected paths ------------------------------------------------------------------ */

/* Paths kept read-only inside every writable mount: a command must not be
 * able to plant a git hook (or point core.hooksPath elsewhere) that runs
 * later on the host. */
static const char *const DEFAULT_PROTECT[] = {".git/hooks", ".git/config", NULL};

/* Protect |target| (inside the writable bind |rw|). When it does not exist,
 * the first missing component gets an empty placeholder (created by
 * cordon_start, removed afterwards) that is mounted read-only, so it cannot
 * be created either. */
static int protect_one(builder *b, const plan_mount *rw, const char *target, bool want_dir)
{
        const char *rel = path_skip_prefix(target, rw->target);
        _cleanup_free_ char *host = rel ? path_join(rw->source, rel) : NULL;
        if (!host)
                return -ENOMEM;
        struct stat st;
        if (host_lstat(b->h, host, &st) == 0)
                return add_bind(b, host, target, false, ORIGIN_PROTECT, false);
        /* the first missing component below the writable mount */
        _cleanup_free_ char *missing_host = strdup(rw->source), *missing_target = strdup(rw->target);
        char *walk = strdup(rel), *save = NULL;
        if (!missing_host || !missing_target || !walk) {
                free(walk);
                return -ENOMEM;
        }
        bool last = false;
        for (char *c = strtok_r(walk, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                char *h = path_join(missing_host, c), *t = path_join(missing_target, c);
                free(missing_host);
                free(missing_target);
                missing_host = h;
                missing_target = t;
                if (!h || !t)
                        break;
                last = save == NULL || *save == '\0';
                if (host_lstat(b->h, h, &st) < 0)
                        break;
        }
        free(walk);
        if (!missing_host || !missing_target)
                return -ENOMEM;
        return add_mount(b->p, (plan_mount){.type = MOUNT_BIND, .source = TAKE_PTR(missing_host),
                                            .target = TAKE_PTR(missing_target), .is_dir = last && want_dir,
                                            .missing = true, .origin = ORIGIN_PROTECT});
}

static int protect_mount(builder *b, const plan_mount *rw)
{
        _cleanup_free_ char *git = path_join(rw->source, ".git");
        struct stat st;
        int r = git ? 0 : -ENOMEM;
        if (r == 0 && host_lstat(b->h, git, &st) == 0) {
                _cleanup_free_ char *t = path_join(rw->target, ".git");
                if (!t)
                        return -ENOMEM;
                if (S_ISREG(st.st_mode)) /* a worktree's "gitdir:" pointer */
                        return add_bind(b, git, t, false, ORIGIN_PROTECT, false);
                for (size_t i = 0; r == 0 && S_ISDIR(st.st_mode) && DEFAULT_PROTECT[i]; i++) {
                        _cleanup_free_ char *pt = path_join(rw->target, DEFAULT_PROTECT[i]);
                        r = pt ? protect_one(b, rw, pt, streq(DEFAULT_PROTECT[i], ".git/hooks")) : -ENOMEM;
                }
        }
        for (size_t i = 0; r == 0 && b->c->protect && b->c->protect[i]; i++) {
                const char *pt = b->c->protect[i];
                if (path_startswith(pt, rw->target) && !streq(pt, rw->target))
                        r = protect_one(b, rw, pt, false);
        }
        return r;
}

static int plan_protect(builder *b)
{
        cordon_plan *p = b->p;
        size_t n = p->n_mounts;
        _cleanup_free_ plan_mount *rw = calloc(n ? n : 1, sizeof(*rw));
        size_t k = 0;
        if (!rw)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (p->mounts[i].type == MOUNT_BIND && p->mounts[i].writable)
                        rw[k++] = p->mounts[i]; /* shallow: add_mount may move the array */
        for (size_t i = 0; i < k; i++) {
                int r = protect_mount(b, &rw[i]);
                if (r < 0)
                        return r;
        }
        if (p->backend != BACKEND_LANDLOCK)
                return 0;
        /* Landlock rules only add rights: nothing below a writable directory
         * can be made read-only again. Say so, and keep no rule that would
         * pretend otherwise. */
        size_t o = 0;
        for (size_t i = 0; i < p->n_mounts; i++) {
                plan_mount *m = &p->mounts[i];
                if (m->origin != ORIGIN_PROTECT) {
                        p->mounts[o++] = *m;
                        continue;
                }
                char *w = m->missing ? NULL
                                     : xasprintf("the landlock backend cannot keep %s read-only inside a "
                                                 "writable directory (the linux backend can)",
                                                 m->target);
                mount_clear(m);
                if (w && strv_consume(&p->warnings, w) < 0)
                        return -ENOMEM;
        }
        p->n_mounts = o;
        return 0;
}

/* ---- ordering and checks -------------------------------------------------------------- */

static int cmp_mounts(const void *a, const void *b)
{
        return path_compare(((const plan_mount *)a)->target, ((const plan_mount *)b)->target);
}

/* A system or automatic rule inside an explicit (stronger) bind is
 * redundant: the bind already shows the host's file there. Dropping it also
 * avoids mounting over what the user chose to show. */
static int drop_shadowed(cordon_plan *p)
{
        /* Decide for every mount first, then compact: compacting while
         * deciding would compare against entries already freed or moved. */
        _cleanup_free_ bool *drop = calloc(p->n_mounts ? p->n_mounts : 1, sizeof(bool));
        if (!drop)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                for (size_t k = 0; !drop[i] && k < p->n_mounts; k++) {
                        const plan_mount *b = &p->mounts[k];
                        drop[i] = b->type == MOUNT_BIND && origin_rank(m->origin) <= 2 &&
                                  origin_rank(b->origin) > origin_rank(m->origin) &&
                                  path_startswith(m->target, b->target) && !streq(m->target, b->target);
                }
        }
        size_t o = 0;
        for (size_t i = 0; i < p->n_mounts; i++) {
                if (drop[i])
                        mount_clear(&p->mounts[i]);
                else
                        p->mounts[o++] = p->mounts[i];
        }
        p->n_mounts = o;
        return 0;
}

/* Every mount point inside a host bind must already exist there: cordon
 * never creates files on the host to mount over, except inside its own
 * instance root and workspace. Nothing may be mounted through a symlink. */
static int check_mountpoints(builder *b)
{
        cordon_plan *p = b->p;
        if (p->backend != BACKEND_LINUX)
                return 0; /* the landlock backend mounts nothing */
        for (size_t i = 0; i < p->n_mounts; i++) {
                plan_mount *m = &p->mounts[i];
                const plan_mount *parent = NULL;
                for (size_t k = 0; k < i; k++)
                        if (path_startswith(m->target, p->mounts[k].target) &&
                            !streq(m->target, p->mounts[k].target))
                                parent = &p->mounts[k];
                if (!parent || parent->type != MOUNT_BIND) {
                        if (parent && (parent->type == MOUNT_SYMLINK || parent->type == MOUNT_PROC))
                                return error_set(b->err, EINVAL, "cannot mount %s: %s is a %s in the sandbox",
                                                 m->target, parent->target, mount_type_name(parent->type));
                        continue;
                }
                if (parent->origin == ORIGIN_INSTANCE || parent->origin == ORIGIN_WORKSPACE || m->missing)
                        continue;
                _cleanup_free_ char *hp = path_join(parent->source, path_skip_prefix(m->target, parent->target));
                struct stat st;
                if (!hp)
                        return -ENOMEM;
                /* The instance root and the workspace need not exist yet:
                 * cordon_start creates them, and so their own mount point,
                 * when that is the very path the rule binds. */
                bool created_by_cordon = m->type == MOUNT_BIND && streq(hp, m->source) &&
                                         (m->origin == ORIGIN_INSTANCE || m->origin == ORIGIN_WORKSPACE);
                bool missing = host_lstat(b->h, hp, &st) < 0;
                if (missing && created_by_cordon)
                        continue;
                if (missing)
                        return error_set(b->err, ENOENT,
                                         "cannot mount %s: it lies inside %s (from %s), where %s does not exist, "
                                         "and cordon does not create mount points on the host; choose another "
                                         "target",
                                         m->target, parent->target, parent->source, hp);
                bool want_dir = m->type == MOUNT_BIND ? m->is_dir : m->type != MOUNT_FILE;
                if (S_ISDIR(st.st_mode) != want_dir || S_ISLNK(st.st_mode))
                        return error_set(b->err, EINVAL, "cannot mount %s: %s is %s", m->target, hp,
                                         S_ISLNK(st.st_mode)  ? "a symlink"
                                         : S_ISDIR(st.st_mode) ? "a directory, the source is not"
                                                               : "not a directory, the source is one");
        }
        return 0;
}

/* ---- the whole plan ---------------------------------------------------------------------- */

static int select_backend(builder *b)
{
        const cordon_config *c = b->c;
        if (!c->enabled) {
                b->p->backend = BACKEND_NONE;
                return 0;
        }
        if (streq(c->backend, "auto") || streq(c->backend, "linux"))
                b->p->backend = BACKEND_LINUX;
        else if (streq(c->backend, "landlock"))
                b->p->backend = BACKEND_LANDLOCK;
        else
                return error_set(b->err, ENOTSUP,
                                 "the \"%s\" backend is not available in this version: use \"linux\" or "
                                 "\"landlock\"",
                                 c->backend);
        return 0;
}

static int plan_environment(builder *b)
{
        const cordon_command *cmd = b->cmd;
        char *const *base = cmd && cmd->base_env ? cmd->base_env : b->h->environ;
        env_input in = {
                .base = (const char *const *)base,
                .extra = cmd ? cmd->extra_env : NULL,
                .n_extra = cmd ? cmd->n_extra_env : 0,
                .instance_root = b->p->backend == BACKEND_NONE ? NULL : b->p->instance_root,
                .backend = b->p->backend == BACKEND_NONE ? NULL : backend_name(b->p->backend),
        };
        return env_build(b->c, &in, &b->p->env);
}

static const char *env_value(char *const *env, const char *name)
{
        return env ? env_get(env, name) : NULL;
}

static int plan_init(builder *b)
{
        const cordon_config *c = b->c;
        cordon_plan *p = b->p;
        int r = select_backend(b);
        if (r < 0)
                return r;
        p->disabled_by = xstrdup(c->disabled_by);
        p->network = c->network;
        p->uid = b->h->uid;
        p->gid = b->h->gid;
        p->hostname = strdup("cordon");
        const char *debug = env_value(b->h->environ, "CORDON_DEBUG");
        if (debug) {
                p->debug_timing = strstr(debug, "timing") != NULL;
                p->debug_classic_mounts = strstr(debug, "classic-mounts") != NULL;
                p->debug_fork_init = strstr(debug, "fork-init") != NULL;
                p->debug_rw_binds = strstr(debug, "rw-binds") != NULL;
                if (p->debug_rw_binds &&
                    strv_push(&p->warnings, "CORDON_DEBUG=rw-binds: read-only binds are mounted writable (a "
                                            "test hook; only Landlock keeps them read-only)") < 0)
                        return -ENOMEM;
        }
        memcpy(p->limits, c->limits, sizeof(p->limits));
        p->limits_best_effort = c->limits_best_effort;
        p->log_plan = c->log_plan;
        p->landlock = c->landlock;
        p->log_fn = c->log_fn;
        p->log_userdata = c->log_userdata;
        for (int i = 0; i < 3; i++)
                p->stdio[i] = b->cmd ? b->cmd->stdio[i] : CORDON_STDIO_INHERIT;
        if (p->backend == BACKEND_LINUX)
                p->namespaces = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                                CLONE_NEWCGROUP | (c->network == CORDON_NETWORK_FULL ? 0 : CLONE_NEWNET);
        r = instance_resolve_root(c->home, env_value(b->h->environ, "CORDON_HOME"), b->h->home, &p->instance_root,
                                  p->backend == BACKEND_NONE ? NULL : b->err);
        if (r < 0 && p->backend != BACKEND_NONE)
                return r;
        if (p->instance_root)
                p->workspace = instance_workspace(p->instance_root, c->workspace);
        if (b->cmd && !(p->argv = strv_copy((const char *const *)b->cmd->argv)))
                return -ENOMEM;
        return p->hostname ? 0 : -ENOMEM;
}

static int plan_build_cached(const cordon_config *c, const cordon_command *cmd, const host_info *h,
                             cordon_plan **ret, cordon_error **ret_error);

int plan_build(const cordon_config *c, const cordon_command *cmd, const host_info *h, cordon_plan **ret,
               cordon_error **ret_error)
{
        struct stat_cache cache = {0};
        host_info hc = *h;
        hc.cache = &cache;
        int r = plan_build_cached(c, cmd, &hc, ret, ret_error);
        stat_cache_clear(&cache);
        return r;
}

static int plan_build_cached(const cordon_config *c, const cordon_command *cmd, const host_info *h,
                             cordon_plan **ret, cordon_error **ret_error)
{
        /* Paths are compared after resolving their symlinks: so must the
         * home directory be ($HOME=/home/me with /home -> var/home). */
        _cleanup_free_ char *home_real = NULL;
        if (h->home && h->home[0] == '/' && host_resolve(h, h->home, true, &home_real) == -ENOMEM)
                return error_set(ret_error, ENOMEM, "out of memory");
        cordon_plan *p = calloc(1, sizeof(*p));
        if (!p)
                return error_set(ret_error, ENOMEM, "out of memory");
        builder b = {.c = c, .cmd = cmd, .h = h, .p = p, .err = ret_error, .home_real = home_real};
        int r = plan_init(&b);
        if (r == 0)
                r = plan_environment(&b);
        if (r == 0 && p->backend != BACKEND_NONE) {
                r = plan_system(&b);
                if (r == 0 && p->backend == BACKEND_LINUX)
                        r = plan_identity(&b);
                if (r == 0)
                        r = plan_instance(&b);
                if (r == 0)
                        r = plan_expose(&b);
        }
        if (r == 0 && cmd)
                r = plan_command(&b);
        if (r == 0 && p->backend != BACKEND_NONE)
                r = plan_protect(&b);
        if (r == 0)
                r = drop_shadowed(p);
        if (r == 0) {
                if (p->n_mounts > 1) /* qsort(NULL, 0, ...) is undefined (nonnull) */
                        qsort(p->mounts, p->n_mounts, sizeof(plan_mount), cmp_mounts);
                r = check_mountpoints(&b);
        }
        if (r < 0) {
                if (ret_error && !*ret_error)
                        error_set(ret_error, -r, "cannot plan the sandbox: %s", strerror(-r));
                cordon_plan_free(p);
                return r;
        }
        *ret = p;
        return 0;
}
