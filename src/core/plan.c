/* SPDX-License-Identifier: MIT */
/* config + command + host -> plan. Reads the host filesystem (through the
 * injectable host root), changes nothing.
 *
 * One rule per target. When two sources want the same target the stronger
 * origin wins: protect > expose (explicit) > instance/workspace > system >
 * automatic (exe, cwd, args); automatic rules are only added where the path
 * is not visible already. */
#include "plan-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "env.h"
#include "error.h"
#include "instance.h"

#ifdef __APPLE__
#define IS_MACOS true
#else
#define IS_MACOS false
#endif

static const char *const SYSTEM_DIRS[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL};
/* From /etc only what describes the system and programs' defaults, never
 * credentials (no shadow, sudoers, ssh, machine-id, package managers' rc
 * files that may hold registry tokens). A symlink among them is resolved on
 * purpose (/etc is the host's, not writable by the command) and its target
 * bound at its name. */
static const char *const ETC_ENTRIES[] = {
        /* to run at all: the loader, name resolution, time, certificates */
        "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ld.so.cache", "/etc/ld.so.conf",
        "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone", "/etc/ssl", "/etc/ca-certificates",
        "/etc/alternatives",
        /* what the system is: every installer's distro probe */
        "/etc/os-release", "/etc/lsb-release", "/etc/debian_version", "/etc/redhat-release", "/etc/fedora-release",
        "/etc/centos-release", "/etc/rocky-release", "/etc/almalinux-release", "/etc/system-release",
        "/etc/alpine-release", "/etc/arch-release", "/etc/gentoo-release", "/etc/SuSE-release",
        /* the C library's and programs' databases and defaults */
        "/etc/services", "/etc/protocols", "/etc/rpc", "/etc/networks", "/etc/ethertypes", "/etc/gai.conf",
        "/etc/host.conf", "/etc/locale.alias", "/etc/manpath.config", "/etc/mime.types", "/etc/magic",
        "/etc/gitconfig",
        /* the shells' system rc files */
        "/etc/bash.bashrc", "/etc/profile", "/etc/profile.d", "/etc/inputrc", NULL,
};
/* The package databases, read-only: what is installed is no secret, and
 * `dpkg-query -W`, `apt list --installed`, `rpm -qa` and build scripts
 * that probe for a package need it. The rest of /var stays out. */
static const char *const PACKAGE_DBS[] = {"/var/lib/dpkg", "/var/lib/rpm", NULL};
/* Never exposed automatically: kernel interfaces the sandbox gets its own of. */
static const char *const NEVER_AUTO[] = {"/proc", "/sys", "/dev", NULL};
/* Directories never exposed whole for an executable in them (the file alone is). */
static const char *const NEVER_AUTO_DIR[] = {"/etc", "/boot", "/var", NULL};

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

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

/* ---- the mount list -------------------------------------------------------------- */

plan_mount *find_target(cordon_plan *p, const char *target)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (streq(p->mounts[i].target, target))
                        return &p->mounts[i];
        return NULL;
}

/* Adds a mount; takes ownership of the strings. Keeps the stronger origin
 * when the target already has a rule. */
int add_mount(cordon_plan *p, plan_mount m)
{
        plan_mount *old = find_target(p, m.target);
        if (old) {
                /* An explicit read-write exposure of exactly a protected
                 * path is the user's opt-out (a repository's config made
                 * writable): then neither is mounted, so that git can
                 * still replace the file by renaming over it. */
                if (old->origin == ORIGIN_EXPOSE && m.origin == ORIGIN_PROTECT) {
                        if (old->writable && streq(old->source, m.source)) {
                                plan_mount_clear(old);
                                *old = p->mounts[--p->n_mounts];
                        }
                        plan_mount_clear(&m);
                        return 0;
                }
                if (origin_rank(m.origin) < origin_rank(old->origin)) {
                        plan_mount_clear(&m);
                        return 0;
                }
                plan_mount_clear(old);
                *old = m;
                return 0;
        }
        plan_mount *n = realloc(p->mounts, (p->n_mounts + 1) * sizeof(*n));
        if (!n) {
                plan_mount_clear(&m);
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

/* The refusal of a symlink that a resolution of |path| met inside a
 * writable mount, as an error: "|what| |path|: ... ; |hint|". */
int link_error(builder *b, const char *what, const char *path, const char *hint)
{
        const char *link = b->h->writable->refused ? b->h->writable->refused : path;
        const char *root = writable_root_of(b->h, link);
        return error_set(b->err, ELOOP,
                         "%s %s: %s is a symlink inside the writable mount %s, and cordon never follows links "
                         "there (a command may have planted it); %s",
                         what, path, link, root ? root : "?", hint);
}

static struct plan_identity identity_of(const struct stat *st)
{
        struct plan_identity id = {.dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino,
                                   .size = (uint64_t)st->st_size, .mode = (uint32_t)st->st_mode};
#ifdef __linux__
        id.mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
        id.ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
#endif
        return id;
}

/* Bind |source| (a host path, resolved here) at |target|. A writable bind
 * becomes a writable root: nothing resolved later follows links below it. */
int add_bind(builder *b, const char *source, const char *target, bool writable, mount_origin o,
                    bool allow_missing)
{
        char *resolved = NULL;
        int r = host_resolve(b->h, source, allow_missing, &resolved);
        if (r == -ELOOP && b->h->writable->refused)
                return link_error(b, "cannot expose", source, "expose the link's target itself if you trust it");
        if (r < 0)
                return error_set(b->err, -r, "cannot resolve %s: %s", source, strerror(-r));
        struct stat st;
        bool exists = host_lstat(b->h, resolved, &st) == 0;
        bool untrusted = writable_root_of(b->h, resolved) != NULL;
        if (writable && !untrusted && strv_push(&b->h->writable->roots, resolved) < 0) {
                free(resolved);
                return -ENOMEM;
        }
        char *tg = strdup(target);
        if (!tg) {
                free(resolved);
                return -ENOMEM;
        }
        plan_mount m = {.type = MOUNT_BIND, .source = resolved, .target = tg, .writable = writable,
                        .is_dir = !exists || S_ISDIR(st.st_mode), .untrusted = untrusted, .origin = o};
        if (exists && untrusted) {
                m.dev = st.st_dev;
                m.ino = st.st_ino;
        }
        if (exists)
                m.seen = identity_of(&st);
        /* cppcheck-suppress memleak ; add_mount takes ownership of the strings */
        return add_mount(b->p, m);
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
char *sandbox_to_host(const cordon_plan *p, const char *path, int depth)
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
bool sandbox_visible(builder *b, const char *path)
{
        _cleanup_free_ char *hp = sandbox_to_host(b->p, path, 0);
        struct stat st;
        return hp && host_stat(b->h, hp, &st) == 0;
}

/* Is the sandbox path |path| a mount target or above one? */
static bool leads_to_mount(const cordon_plan *p, const char *path)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (path_startswith(p->mounts[i].target, path) && p->mounts[i].type != MOUNT_SYMLINK)
                        return true;
        return false;
}

static int sandbox_step(void *ctx, const char *cand, bool more, char **ret_link)
{
        builder *b = ctx;
        _cleanup_free_ char *hp = sandbox_to_host(b->p, cand, 0);
        struct stat st;
        if (!hp && more && leads_to_mount(b->p, cand))
                return 0; /* a directory of the sandbox's own (tmpfs) on the way to a mount */
        if (!hp)
                return -ENXIO;
        int r = host_lstat(b->h, hp, &st);
        if (r < 0 || !S_ISLNK(st.st_mode))
                return r;
        *ret_link = host_readlink(b->h, hp);
        return *ret_link ? 0 : -ENOMEM;
}

/* Resolve the sandbox path |path| as the sandbox will: each symlink is
 * read from the host file behind the view and followed in the sandbox's
 * namespace, so a link inside a writable mount that points outside stays
 * dangling instead of exposing its target. On success |*ret_host| is the
 * host file behind the result (not a link). -ENXIO when a component is not
 * backed by a host bind (not visible, or a tmpfs), -ENOENT when missing. */
static int sandbox_resolve(builder *b, const char *path, char **ret_host)
{
        _cleanup_free_ char *done = NULL;
        int r = walk_path(path, sandbox_step, b, &done);
        if (r < 0)
                return r;
        *ret_host = sandbox_to_host(b->p, done, 0);
        return *ret_host ? 0 : -ENXIO;
}

/* Why |path| may not be exposed automatically (to follow "the working
 * directory X is ..."), or NULL. Never "/", the home directory or an
 * ancestor of it, nor kernel interfaces. The home directory is both $HOME
 * and the passwd entry's: $HOME comes from the caller's environment, and
 * pointing it elsewhere must not make the real home exposable. */
static const char *auto_expose_problem(const builder *b, const char *path)
{
        if (streq(path, "/"))
                return "the root directory";
        const char *const homes[] = {b->h->home, b->home_real, b->h->passwd_home, b->passwd_home_real};
        for (size_t i = 0; i < ARRAY_SIZE(homes); i++)
                if (homes[i] && homes[i][0] == '/' && path_startswith(homes[i], path))
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
        /* No /dev/pts nor /dev/tty: other terminals of the host (their
         * input, escape sequences). The command's own terminal gets its
         * rule at start (landlock_allow_terminal); /dev/ptmx only makes new
         * pairs, reached through TIOCGPTPEER. */
        static const char *const RW[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
                                         "/dev/ptmx", NULL};
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
        for (size_t i = 0; PACKAGE_DBS[i]; i++) {
                struct stat st;
                if (host_stat(b->h, PACKAGE_DBS[i], &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                int r = add_bind(b, PACKAGE_DBS[i], PACKAGE_DBS[i], false, ORIGIN_SYSTEM, false);
                if (r < 0)
                        return r;
        }
        if (b->p->backend != BACKEND_LINUX) /* landlock, seatbelt: the host's own tree */
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
                int r = path ? add_bind(b, path, path, !streq(d, "skills"), ORIGIN_INSTANCE, true) : -ENOMEM;
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
        /* skills/ is the host agent's own code and prompts: read-only */
        _cleanup_free_ char *skills = path_join(p->instance_root, "skills");
        if (r == 0)
                r = skills ? add_bind(b, skills, skills, false, ORIGIN_INSTANCE, true) : -ENOMEM;
        /* the record of logs/ and skills/ (instance.c): read-only, a file
         * (cordon_start writes it before mounting, when missing) */
        _cleanup_free_ char *record = path_join(p->instance_root, INSTANCE_RECORD);
        if (r == 0)
                r = record ? add_bind(b, record, record, false, ORIGIN_INSTANCE, true) : -ENOMEM;
        plan_mount *rm = r == 0 ? find_target(p, record) : NULL;
        if (rm)
                rm->is_dir = false;
        if (r == 0 && !path_startswith(p->workspace, p->instance_root))
                r = add_bind(b, p->workspace, p->workspace, true, ORIGIN_WORKSPACE, true);
        return r;
}

/* The caller's real home, for "~/" in config paths: $HOME, else the
 * passwd entry's. */
const char *caller_home(const host_info *h)
{
        return h->home && h->home[0] == '/' ? h->home : h->passwd_home;
}

/* One rule with "~/" and "$NAME/" expanded; an optional one whose source
 * is missing is skipped. */
static int plan_expose_rule(builder *b, const expose_rule *e)
{
        _cleanup_free_ char *source = config_path_expand(e->source, caller_home(b->h), NULL);
        _cleanup_free_ char *target = source ? config_path_expand(e->target, caller_home(b->h), b->p->env) : NULL;
        if (!target && errno == ENOMEM)
                return -ENOMEM;
        _cleanup_free_ char *from = e->from ? strdup(e->from) : xasprintf("expose %s", e->source);
        if (!from)
                return -ENOMEM;
        if (!target)
                return config_from_error(b->err, EINVAL, from, "%s -> %s: %s", e->source, e->target,
                                         source ? "the command's environment has no such absolute variable"
                                                : "the home directory is unknown ($HOME and the passwd entry)");
        /* resolved as add_bind does: never through a link in a writable mount */
        _cleanup_free_ char *real = NULL;
        int r = host_resolve(b->h, source, false, &real);
        if (r == -ENOENT && e->optional)
                return 0;
        if (r == -ENOENT) /* "~/x": config time could not look */
                return config_from_error(b->err, ENOENT, from,
                                         "source does not exist: %s (mark it \"optional\": true in a config file "
                                         "if it may be missing)",
                                         source);
        if (b->p->backend != BACKEND_LINUX && !streq(source, target))
                return config_from_error(b->err, EINVAL, from,
                                         "%s -> %s: the %s backend cannot remap paths (it has no mount "
                                         "namespace); use the same target, or the linux backend",
                                         source, target, backend_name(b->p->backend));
        return add_bind(b, source, target, e->writable, ORIGIN_EXPOSE, false);
}

static int plan_expose(builder *b)
{
        for (size_t i = 0; i < b->c->n_expose; i++) {
                int r = plan_expose_rule(b, &b->c->expose[i]);
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

/* The same for the sandbox path |path|, resolved as the sandbox will
 * (sandbox_resolve); sets |*ret_host| to the host file. -ENXIO: it leads
 * out of the view. */
static int visible_executable(builder *b, const char *path, char **ret_host)
{
        _cleanup_free_ char *hp = NULL;
        struct stat st;
        int r = sandbox_resolve(b, path, &hp);
        if (r == -ENXIO || r == -ENOMEM)
                return r;
        if (r < 0 || host_lstat(b->h, hp, &st) < 0)
                return -ENOENT;
        if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
                return -EACCES;
        *ret_host = TAKE_PTR(hp);
        return 0;
}

/* Is the sandbox path |cand| an executable? Inside the view as the sandbox
 * resolves it; where that leads out of the view, on the host (where links
 * inside writable mounts are not followed), to be exposed. */
static int candidate_executable(builder *b, const char *cand, const char *hp)
{
        free(b->exe_host);
        b->exe_host = NULL;
        int r = visible_executable(b, cand, &b->exe_host);
        b->exe_visible = r == 0;
        if (r != -ENXIO)
                return r;
        r = host_executable(b->h, hp);
        if (r == 0 && host_resolve(b->h, hp, false, &b->exe_host) < 0)
                r = -ENOENT;
        return r;
}

/* The absolute interpreter of the "#!" script |host| (canonical), or NULL.
 * Opened without following any link: the file may lie in a writable mount. */
static char *shebang_interpreter(const host_info *h, const char *host)
{
        _cleanup_free_ char *hp = host_path(h, host);
        int fd = hp ? open_nofollow(hp, O_RDONLY | O_NOCTTY | O_NONBLOCK) : -1;
        char line[256];
        ssize_t n = fd < 0 ? -1 : read(fd, line, sizeof(line) - 1);
        if (fd >= 0)
                close(fd);
        if (n < 3 || line[0] != '#' || line[1] != '!')
                return NULL;
        line[n] = '\0';
        char *s = line + 2;
        s += strspn(s, " \t");
        size_t len = strcspn(s, " \t\r\n");
        if (s[0] != '/' || s[len] == '\0')
                return strdup(""); /* a script all the same: relative, or the line did not fit */
        return strndup(s, len);
}

/* Not found: with the PATH entries the sandbox hides, where one may hold it. */
static int not_found(builder *b, const char *name)
{
        _cleanup_free_ char *list = NULL, *kept = NULL;
        if (name[0] && !strchr(name, '/') && b->p->backend != BACKEND_NONE && hidden_path_entries(b, &list, &kept) < 0)
                return error_set(b->err, ENOMEM, "out of memory");
        int r = name[0] ? error_set(b->err, ENOENT, "%s: command not found in the sandbox's PATH%s%s%s", name,
                                    list && list[0] ? " (PATH entries not visible inside: " : "",
                                    list && list[0] ? list : "", list && list[0] ? ")" : "")
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
 * |*ret_path| to the path to execute, b->exe_host to the file it is. */
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
                int r = candidate_executable(b, norm, hp ? hp : norm);
                if (r == 0 || r == -EACCES) {
                        *ret_path = norm;
                        return r == 0 ? 0 : not_executable(b, name);
                }
                free(norm);
                return r == -ENOMEM ? r : not_found(b, name);
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
                        int r = pass == 0 ? candidate_executable(b, cand, hp) : host_executable(b->h, cand);
                        if (r == 0 && pass == 1 && host_resolve(b->h, cand, false, &b->exe_host) < 0)
                                r = -ENOENT;
                        if (r == -ENOMEM)
                                return r;
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
        /* a relative one is relative to the caller's, as for every tool */
        _cleanup_free_ char *joined = NULL;
        if (want && !path_is_absolute(want)) {
                if (!*want || !b->h->cwd)
                        return error_set(b->err, EINVAL, "the working directory \"%s\" is %s", want,
                                         *want ? "relative and the current one is unknown" : "empty");
                if (!(joined = path_join(b->h->cwd, want)))
                        return -ENOMEM;
                want = joined;
        }
        _cleanup_free_ char *real = NULL;
        int r = want ? host_resolve(b->h, want, false, &real) : -ENOENT;
        if (r == -ELOOP && b->h->writable->refused)
                return link_error(b, "the working directory", want,
                                  "run from the real directory (the link's target must be exposed on purpose)");
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

/* The executable lies inside a writable mount: the child runs exactly the
 * inode seen here (a concurrent sandbox may swap the name meanwhile). */
static void plan_exe_inode(builder *b, bool is_script)
{
        struct stat st;
        cordon_plan *p = b->p;
        if (!writable_root_of(b->h, b->exe_host) || host_lstat(b->h, b->exe_host, &st) < 0)
                return;
        p->exe_untrusted = true;
        p->exe_is_script = is_script;
        p->exe_dev = st.st_dev;
        p->exe_ino = st.st_ino;
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
        if (r == 0 && !b->exe_visible)
                r = expose_exe_chain(b, b->p->exe);
        _cleanup_free_ char *interp = r == 0 ? shebang_interpreter(b->h, b->exe_host) : NULL;
        if (interp && interp[0])
                r = expose_exe_chain(b, interp);
        if (r == 0)
                r = plan_args(b);
        if (r == 0 && !b->exe_visible && !sandbox_visible(b, b->p->exe))
                r = error_set(b->err, EACCES,
                              "%s is not visible in the sandbox (auto_expose.exe is \"off\" or it lies in your "
                              "home directory): expose it with --expose",
                              b->p->exe);
        if (r == 0)
                plan_exe_inode(b, interp != NULL);
        return r;
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
                        plan_mount_clear(&p->mounts[i]);
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

static const char *env_value(char *const *env, const char *name);

/* ---- the instance root and the writable mounts ------------------------------------------ */

/* cordon's own state (logs/ with the journals it acts on, skills/ that the
 * host agent trusts) never lies where the command can write (DESIGN.md,
 * threat model). Refused, on every backend: an instance root that is, or
 * lies inside, a writable mount (the command rewrites logs/ and skills/, or
 * renames their parent and builds a fake instance); a writable mount inside
 * the instance root other than in its own workspace/. Paths are compared
 * by identity (device and inode), so that a bind mount or a symlink of the
 * user's that names the same directory another way is no way around it. */

/* The deepest existing ancestor of the canonical path |path| (itself
 * included): its length in |path|, its stat. -errno on failure. */
static int existing_base(const host_info *h, const char *path, size_t *ret_len, struct stat *ret_st)
{
        if (!path)
                return -EINVAL;
        _cleanup_free_ char *cur = strdup(path);
        while (cur) {
                int r = host_lstat(h, cur, ret_st);
                if (r == 0) {
                        *ret_len = strlen(cur);
                        return 0;
                }
                if (r != -ENOENT && r != -ENOTDIR)
                        return r;
                if (streq(cur, "/"))
                        return -ENOENT;
                char *up = path_dirname(cur);
                free(cur);
                cur = up;
        }
        return -ENOMEM;
}

/* Is the canonical host path |x| (missing components allowed) |y| or
 * inside it? By identity: some existing ancestor of |x| is the directory
 * |y|, or, |y| missing, both lead through the same directory to the same
 * missing names. */
static int path_within(const host_info *h, const char *x, const char *y, bool *ret)
{
        size_t xl = 0, yl = 0;
        struct stat xs = {0}, ys = {0};
        *ret = path_startswith(x, y);
        int r = *ret ? 0 : existing_base(h, y, &yl, &ys);
        if (r == 0 && !*ret)
                r = existing_base(h, x, &xl, &xs);
        if (r < 0 || *ret)
                return r == -ENOENT ? 0 : r;
        if (y[yl] != '\0') { /* |y| missing: only below the same directory */
                *ret = xs.st_dev == ys.st_dev && xs.st_ino == ys.st_ino && path_startswith(x + xl, y + yl);
                return 0;
        }
        _cleanup_free_ char *cur = strndup(x, xl);
        while (cur && !*ret) {
                struct stat st;
                r = host_lstat(h, cur, &st);
                if (r < 0 && r != -ENOENT)
                        return r;
                *ret = r == 0 && st.st_dev == ys.st_dev && st.st_ino == ys.st_ino;
                if (*ret || streq(cur, "/"))
                        return 0;
                char *up = path_dirname(cur);
                free(cur);
                cur = up;
        }
        return cur || *ret ? 0 : -ENOMEM;
}

/* The flag or key behind a writable mount of origin |o|. */
static const char *writable_origin_keys(mount_origin o)
{
        switch (o) {
        case ORIGIN_WORKSPACE: return "--workspace or isolation.workspace";
        case ORIGIN_CWD: return "the working directory, exposed by auto_expose.cwd \"rw\"";
        case ORIGIN_EXE: return "the executable's directory, exposed by auto_expose.exe \"rw\"";
        case ORIGIN_ARG: return "an argument, exposed by auto_expose.args \"rw\"";
        default: return "--expose, isolation.expose_paths or a profile";
        }
}

static int instance_layout_error(builder *b, const char *root, const char *keys, const char *mount,
                                 const char *mount_keys, bool root_inside)
{
        return error_set(b->err, EINVAL,
                         root_inside ? "the instance root %s (%s) is or lies inside the writable path %s (%s): the "
                                       "command could rewrite cordon's own logs/ and skills/ there; put the "
                                       "instance root outside every writable path"
                                     : "the instance root %s (%s) holds the writable path %s (%s) outside its "
                                       "workspace/ directory: the command could rewrite cordon's own logs/ and "
                                       "skills/; use a path outside the instance root, or its workspace/",
                         root, keys, mount, mount_keys);
}

/* Checks |path| (canonical; the mount's source) against the instance. */
static int instance_layout_one(builder *b, const char *root, const char *root_ws, const char *keys,
                               const char *path, const char *path_shown, const char *path_keys)
{
        bool root_inside = false, inside = false, in_ws = false;
        int r = path_within(b->h, root, path, &root_inside);
        if (r == 0 && !root_inside)
                r = path_within(b->h, path, root, &inside);
        if (r == 0 && inside)
                r = path_within(b->h, path, root_ws, &in_ws);
        if (r < 0)
                return error_set(b->err, -r, "cannot compare %s with the instance root %s: %s", path, root,
                                 strerror(-r));
        if (root_inside || (inside && !in_ws))
                return instance_layout_error(b, b->root_shown, keys, path_shown, path_keys, root_inside);
        return 0;
}

static int plan_instance_layout(builder *b)
{
        cordon_plan *p = b->p;
        const char *keys = b->c->home && *b->c->home ? "--home or isolation.home"
                           : env_value(b->h->environ, "CORDON_HOME") && *env_value(b->h->environ, "CORDON_HOME")
                                   ? "$CORDON_HOME; or set --home or isolation.home"
                                   : "the default, $HOME/.cordon; set --home or isolation.home";
        _cleanup_free_ char *root = NULL, *ws = NULL, *root_ws = NULL;
        int r = host_resolve(b->h, p->instance_root, true, &root);
        if (r == 0)
                r = host_resolve(b->h, p->workspace, true, &ws);
        if (r == -ELOOP)
                return link_error(b, "cannot use the instance root or workspace", p->instance_root,
                                  "give the real path of the directory");
        if (r < 0)
                return error_set(b->err, -r, "cannot resolve %s: %s", p->instance_root, strerror(-r));
        root_ws = path_join(root, "workspace");
        /* the paths as given, and what they resolve to when that differs */
        _cleanup_free_ char *shown = streq(root, p->instance_root)
                                             ? strdup(root)
                                             : xasprintf("%s (that is, %s)", p->instance_root, root);
        _cleanup_free_ char *shown_ws =
                streq(ws, p->workspace) ? strdup(ws) : xasprintf("%s (that is, %s)", p->workspace, ws);
        if (!root_ws || !shown || !shown_ws)
                return -ENOMEM;
        b->root_shown = shown;
        r = instance_layout_one(b, root, root_ws, keys, ws, shown_ws, "--workspace or isolation.workspace");
        for (size_t i = 0; r == 0 && i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->type == MOUNT_BIND && m->writable && m->origin != ORIGIN_INSTANCE &&
                    m->origin != ORIGIN_PROTECT)
                        r = instance_layout_one(b, root, root_ws, keys, m->source, m->source,
                                                writable_origin_keys(m->origin));
        }
        b->root_shown = NULL;
        return r;
}

/* ---- the whole plan ---------------------------------------------------------------------- */

/* Why |path| may not be made writable beyond writable_path_problem: the
 * caller's home or above it, the instance root or above it. NULL when it may. */
static const char *home_problem(const builder *b, const char *path)
{
        const char *const homes[] = {b->h->home, b->home_real, b->h->passwd_home, b->passwd_home_real};
        for (size_t i = 0; i < ARRAY_SIZE(homes); i++)
                if (homes[i] && homes[i][0] == '/' && path_startswith(homes[i], path))
                        return "is your home directory or above it (the host runs its dotfiles; choose a directory "
                               "inside it)";
        return NULL;
}

static const char *writable_root_problem(const builder *b, const char *path)
{
        const char *why = home_problem(b, path);
        if (why)
                return why;
        if (b->p->instance_root && path_startswith(b->p->instance_root, path))
                return "is the instance root or above it (cordon's own logs/ and skills/ would be writable)";
        return writable_path_problem(path);
}

/* The same for a path the user chose, by its name and by what it resolves
 * to; the error names |from| (where it was set), else |what|. */
static int check_writable_choice(builder *b, const char *path, const char *from, const char *what)
{
        const char *why = writable_root_problem(b, path);
        _cleanup_free_ char *real = NULL;
        if (!why && host_resolve(b->h, path, true, &real) == 0 && !streq(real, path))
                why = writable_root_problem(b, real);
        if (!why)
                return 0;
        if (real && !streq(real, path))
                return config_from_error(b->err, EINVAL, from ? from : what, "%s (a link to %s) %s", path, real, why);
        return config_from_error(b->err, EINVAL, from ? from : what, "%s %s", path, why);
}

/* The instance root the user chose is not the caller's home or above it. */
static int check_home_above(builder *b, const char *root, const char *from)
{
        const char *why = home_problem(b, root);
        _cleanup_free_ char *real = NULL;
        if (!why && host_resolve(b->h, root, true, &real) == 0)
                why = home_problem(b, real);
        return why ? config_from_error(b->err, EINVAL, from, "the instance root %s %s", root, why) : 0;
}

/* An explicit workspace exists, as a directory: a typo must not become a
 * new tree on the host (cordon creates only the default one). */
static int check_workspace_exists(builder *b)
{
        struct stat st;
        const char *from = b->c->workspace_from ? b->c->workspace_from : "the workspace";
        if (host_stat(b->h, b->p->workspace, &st) < 0)
                return config_from_error(b->err, ENOENT, from,
                                         "%s does not exist: create it first (cordon creates only the default "
                                         "<home>/workspace)",
                                         b->p->workspace);
        if (!S_ISDIR(st.st_mode))
                return config_from_error(b->err, ENOTDIR, from, "%s is not a directory", b->p->workspace);
        return 0;
}

/* The workspace and the read-write exposures the user chose. */
static int plan_check_writable(builder *b)
{
        if (b->p->backend == BACKEND_NONE)
                return 0;
        /* the instance root is mounted read-write (but for logs/ and skills/) */
        const char *root_from = b->c->home                                ? b->c->home_from
                                : env_value(b->h->environ, "CORDON_HOME") ? "$CORDON_HOME"
                                                                          : NULL;
        int r = root_from ? check_home_above(b, b->p->instance_root, root_from) : 0;
        if (r == 0 && b->c->workspace && !path_startswith(b->p->workspace, b->p->instance_root))
                r = check_workspace_exists(b);
        if (r == 0 && b->c->workspace)
                r = check_writable_choice(b, b->p->workspace, b->c->workspace_from, "the workspace");
        for (size_t i = 0; r == 0 && i < b->c->n_expose; i++) {
                const expose_rule *e = &b->c->expose[i];
                if (!e->writable)
                        continue;
                _cleanup_free_ char *source = config_path_expand(e->source, caller_home(b->h), NULL);
                if (source) /* unexpandable: plan_expose says why */
                        r = check_writable_choice(b, source, e->from, "a read-write exposure");
        }
        return r;
}

/* |file| (canonical) lies at or below |root| as given or as it resolves. */
static bool file_inside(const host_info *h, const char *file, const char *root)
{
        _cleanup_free_ char *real = NULL;
        return path_startswith(file, root) || (host_resolve(h, root, true, &real) == 0 && path_startswith(file, real));
}

/* A config file or profile read from a path the run makes writable was
 * written by a command before (a ws/evil.json setting "enabled": false or
 * an rw exposure of the home): a model naming it in argv would widen the
 * next run by the command's choice. Refused on every backend, also when
 * isolation is off. */
static int plan_check_config_files(builder *b)
{
        _cleanup_strv_ char **roots = NULL;
        int r = strv_push(&roots, b->p->instance_root);
        if (r == 0)
                r = strv_push(&roots, b->p->workspace);
        for (size_t i = 0; r == 0 && i < b->c->n_expose; i++)
                if (b->c->expose[i].writable) {
                        char *source = config_path_expand(b->c->expose[i].source, caller_home(b->h), NULL);
                        r = source ? strv_consume(&roots, source) : 0;
                }
        for (size_t i = 0; r == 0 && b->c->files && b->c->files[i]; i++)
                for (size_t j = 0; r == 0 && roots[j]; j++)
                        if (file_inside(b->h, b->c->files[i], roots[j]))
                                r = error_set(b->err, EINVAL,
                                              "%s: the config file lies inside %s, which this run makes writable "
                                              "(a command could have written it): move it out of there",
                                              b->c->files[i], roots[j]);
        return r;
}

/* The writable roots the config asks for (instance root, workspace, rw
 * exposures), canonical. Each is resolved once trusting every link, then
 * again refusing links below the roots found: a root reached through a
 * link inside another one (a planted ws/sub for --expose ws/sub:rw) is an
 * error, so no writable root depends on what a command wrote. */
static int plan_writable_roots(builder *b)
{
        cordon_plan *p = b->p;
        _cleanup_strv_ char **want = NULL;
        if (p->backend == BACKEND_NONE)
                return 0;
        int r = strv_push(&want, p->instance_root);
        if (r == 0)
                r = strv_push(&want, p->workspace);
        for (size_t i = 0; r == 0 && i < b->c->n_expose; i++) {
                if (!b->c->expose[i].writable)
                        continue;
                char *source = config_path_expand(b->c->expose[i].source, caller_home(b->h), NULL);
                r = source ? strv_consume(&want, source) : 0; /* unexpandable: plan_expose says why */
        }
        for (size_t i = 0; r == 0 && want[i]; i++) {
                char *real = NULL;
                int e = host_resolve(b->h, want[i], true, &real);
                if (e == -ENOMEM)
                        return e;
                if (e == 0)
                        r = strv_consume(&b->h->writable->roots, real);
        }
        for (size_t i = 0; r == 0 && want[i]; i++) {
                _cleanup_free_ char *real = NULL;
                int e = host_resolve(b->h, want[i], true, &real);
                if (e == -ELOOP && b->h->writable->refused)
                        return link_error(b, "cannot use the writable path", want[i],
                                          "give the real path of the directory");
                if (e == -ENOMEM)
                        return e;
        }
        return r;
}

static int select_backend(builder *b)
{
        const cordon_config *c = b->c;
        if (!c->enabled) {
                b->p->backend = BACKEND_NONE;
                return 0;
        }
        if (streq(c->backend, "auto") && IS_MACOS)
                b->p->backend = BACKEND_SEATBELT;
        else if (streq(c->backend, "auto") || streq(c->backend, "linux"))
                b->p->backend = BACKEND_LINUX;
        else if (streq(c->backend, "landlock"))
                b->p->backend = BACKEND_LANDLOCK;
        else if (streq(c->backend, "seatbelt")) /* planned anywhere; runs on macOS (src/seatbelt/) */
                b->p->backend = BACKEND_SEATBELT;
        else if (streq(c->backend, "windows")) /* planned anywhere; runs on Windows (src/windows/) */
                b->p->backend = BACKEND_WINDOWS;
        else
                return error_set(b->err, ENOTSUP,
                                 "the \"%s\" backend is not available in this version: use \"linux\", "
                                 "\"landlock\", \"seatbelt\" or \"windows\"",
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
                .home = caller_home(b->h),
        };
        return env_build(b->c, &in, &b->p->env);
}

static const char *env_value(char *const *env, const char *name)
{
        return env ? env_get(env, name) : NULL;
}

/* CORDON_DEBUG: comma-separated words, each matched whole (a substring
 * match would let "no-rw-binds-please" weaken the mounts). An unknown word is
 * a warning, not an error: the variable comes from the caller's environment,
 * which a newer or older cordon may share. Returns 0 or -ENOMEM. */
static int parse_debug(cordon_plan *p, const char *debug)
{
        const struct {
                const char *word;
                bool *flag;
        } WORDS[] = {
                {"timing", &p->debug_timing},
                {"classic-mounts", &p->debug_classic_mounts},
                {"fork-init", &p->debug_fork_init},
                {"rw-binds", &p->debug_rw_binds},
                {"etc-binds", &p->debug_etc_binds},
        };
        for (const char *w = debug; w && *w;) {
                size_t n = strcspn(w, ",");
                bool known = n == 0; /* "a,,b" and a trailing comma are harmless */
                for (size_t i = 0; !known && i < ARRAY_SIZE(WORDS); i++)
                        if (strlen(WORDS[i].word) == n && strncmp(w, WORDS[i].word, n) == 0) {
                                *WORDS[i].flag = true;
                                known = true;
                        }
                if (!known && strv_consume(&p->warnings,
                                           xasprintf("CORDON_DEBUG: unknown word \"%.*s\" ignored (known: timing, "
                                                     "classic-mounts, fork-init, rw-binds, etc-binds)",
                                                     (int)n, w)) < 0)
                        return -ENOMEM;
                w += n + (w[n] == ',');
        }
        if (p->debug_rw_binds &&
            strv_push(&p->warnings, "CORDON_DEBUG=rw-binds: read-only binds (except protected paths) "
                                    "are mounted writable (a test hook; only Landlock keeps them read-only)") < 0)
                return -ENOMEM;
        return 0;
}

/* The network mode, and the allowlist of "proxy". */
static int plan_network(builder *b)
{
        const cordon_config *c = b->c;
        cordon_plan *p = b->p;
        p->network = config_effective_network(c);
        bool listed = c->network_allow && c->network_allow[0];
        /* an allowlist means "proxy"; a network chosen as anything else
         * conflicts with it, whichever came first */
        if (listed && c->network_from && c->network != CORDON_NETWORK_PROXY)
                return config_from_error(b->err, EINVAL, c->allow_from,
                                         "conflicts with %s: an allowlist means network \"proxy\" (its hosts "
                                         "only, through cordon's proxy), \"%s\" %s; drop one of them",
                                         c->network_from, network_name(c->network),
                                         c->network == CORDON_NETWORK_FULL ? "allows every host"
                                         : c->network == CORDON_NETWORK_NONE
                                                 ? "allows no host"
                                                 : "allows only the sandbox's own loopback");
        if (p->network != CORDON_NETWORK_PROXY)
                return 0;
        p->network_allow = listed ? strv_copy((const char *const *)c->network_allow) : calloc(1, sizeof(char *));
        if (!p->network_allow)
                return -ENOMEM;
        /* the host's loopback: say what that leaves open */
        if (p->backend == BACKEND_LANDLOCK &&
            strv_push(&p->warnings, "on the landlock backend the proxy listens on the host's loopback: any process of "
                                    "the host may use it (and its allowlist); the linux backend's proxy is reachable "
                                    "only from the sandbox") < 0)
                return -ENOMEM;
        if (p->backend == BACKEND_SEATBELT &&
            strv_push(&p->warnings, "on the seatbelt backend the proxy listens on the host's loopback: any process of "
                                    "the host may use it (and its allowlist)") < 0)
                return -ENOMEM;
        return 0;
}

static int plan_init(builder *b)
{
        const cordon_config *c = b->c;
        cordon_plan *p = b->p;
        int r = select_backend(b);
        if (r < 0)
                return r;
        p->disabled_by = xstrdup(c->disabled_by);
        r = plan_network(b);
        if (r < 0)
                return r;
        p->uid = b->h->uid;
        p->gid = b->h->gid;
        p->hostname = strdup("cordon");
        p->nested_seatbelt = streq(env_value(b->h->environ, "CORDON_SANDBOX"), "seatbelt");
        r = parse_debug(p, env_value(b->h->environ, "CORDON_DEBUG"));
        if (r < 0)
                return r;
        memcpy(p->limits, c->limits, sizeof(p->limits));
        p->limits_best_effort = c->limits_best_effort;
        p->log_plan = c->log_plan;
        p->landlock = c->landlock;
        p->log_fn = c->log_fn;
        p->log_userdata = c->log_userdata;
        for (int i = 0; i < 3; i++)
                p->stdio[i] = b->cmd ? b->cmd->stdio[i] : CORDON_STDIO_INHERIT;
        p->pty = b->cmd ? b->cmd->pty : CORDON_PTY_OFF;
        if (p->pty == CORDON_PTY_ON && p->backend != BACKEND_LINUX && p->backend != BACKEND_LANDLOCK)
                return error_set(b->err, ENOTSUP,
                                 "a terminal of the command's own (--pty) needs the linux or landlock backend, "
                                 "not \"%s\"; run without --pty",
                                 backend_name(p->backend));
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
        struct writable_roots writable = {0};
        host_info hc = *h;
        hc.cache = &cache;
        hc.writable = &writable;
        int r = plan_build_cached(c, cmd, &hc, ret, ret_error);
        stat_cache_clear(&cache);
        strv_free(writable.roots);
        free(writable.refused);
        return r;
}

static int plan_build_cached(const cordon_config *c, const cordon_command *cmd, const host_info *h,
                             cordon_plan **ret, cordon_error **ret_error)
{
        /* Paths are compared after resolving their symlinks: so must the
         * home directory be ($HOME=/home/me with /home -> var/home). */
        _cleanup_free_ char *home_real = NULL, *passwd_home_real = NULL;
        if (h->home && h->home[0] == '/' && host_resolve(h, h->home, true, &home_real) == -ENOMEM)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (h->passwd_home && h->passwd_home[0] == '/' &&
            host_resolve(h, h->passwd_home, true, &passwd_home_real) == -ENOMEM)
                return error_set(ret_error, ENOMEM, "out of memory");
        cordon_plan *p = calloc(1, sizeof(*p));
        if (!p)
                return error_set(ret_error, ENOMEM, "out of memory");
        builder b = {.c = c,
                     .cmd = cmd,
                     .h = h,
                     .p = p,
                     .err = ret_error,
                     .home_real = home_real,
                     .passwd_home_real = passwd_home_real};
        int r = plan_init(&b);
        if (r == 0)
                r = plan_check_writable(&b);
        if (r == 0)
                r = plan_check_config_files(&b);
        if (r == 0)
                r = plan_environment(&b);
        if (r == 0)
                r = plan_writable_roots(&b);
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
                r = plan_instance_layout(&b);
        if (r == 0 && p->backend != BACKEND_NONE)
                r = plan_protect(&b);
        if (r == 0)
                r = drop_shadowed(p);
        if (r == 0) {
                if (p->n_mounts > 1) /* qsort(NULL, 0, ...) is undefined (nonnull) */
                        qsort(p->mounts, p->n_mounts, sizeof(plan_mount), cmp_mounts);
                r = check_mountpoints(&b);
        }
        if (r == 0 && cmd && p->backend != BACKEND_NONE)
                r = plan_path_hint(&b);
        if (r == 0 && cmd && p->backend != BACKEND_NONE)
                r = plan_git_hint(&b);
        free(b.exe_host);
        if (r < 0) {
                if (ret_error && !*ret_error)
                        error_set(ret_error, -r, "cannot plan the sandbox: %s", strerror(-r));
                cordon_plan_free(p);
                return r;
        }
        *ret = p;
        return 0;
}
