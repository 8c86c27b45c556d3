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
/* The entries of /etc every run checks (each bound, or copied into the
 * linux backend's prepared /etc, as the host has it at the start): what
 * programs need to run and what changes while the system runs. A symlink
 * among them is resolved on purpose (/etc is the host's, not writable by
 * the command) and its target bound at its name. The rest of the view's
 * /etc is the host's world-readable /etc less cordon's deny list (the
 * |etc_view| mount, src/linux/etc-scan.c). */
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
        /* the shells' system rc files */
        "/etc/bash.bashrc", "/etc/profile", "/etc/profile.d", "/etc/inputrc", NULL,
};
/* The package databases, read-only: what is installed is no secret, and
 * `dpkg-query -W`, `apt list --installed`, `rpm -qa` and build scripts
 * that probe for a package need it. The rest of /var stays out. */
static const char *const PACKAGE_DBS[] = {"/var/lib/dpkg", "/var/lib/rpm", NULL};
/* Never exposed automatically: kernel interfaces the sandbox gets its own of. */
static const char *const NEVER_AUTO[] = {"/proc", "/sys", "/dev", NULL};

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
char *host_to_sandbox(const cordon_plan *p, const char *path)
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
int sandbox_resolve(builder *b, const char *path, char **ret_host)
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
const char *auto_expose_problem(const builder *b, const char *path)
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
bool auto_exposable_resolved(const builder *b, const char *path)
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

/* The rest of the host's /etc (plan.h, |etc_view|) and, on the linux
 * backend, /etc/mtab naming the sandbox's own mounts (df, mount). */
static int plan_etc_view(builder *b)
{
        struct stat st;
        if (host_lstat(b->h, "/etc", &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        int r = add_bind(b, "/etc", "/etc", false, ORIGIN_SYSTEM, false);
        plan_mount *m = r < 0 ? NULL : find_target(b->p, "/etc");
        if (m && m->origin == ORIGIN_SYSTEM)
                m->etc_view = true;
        if (r < 0 || b->p->backend != BACKEND_LINUX)
                return r;
        char *link = strdup("/proc/self/mounts"), *tg = strdup("/etc/mtab");
        if (!link || !tg) {
                free(link);
                free(tg);
                return -ENOMEM;
        }
        /* cppcheck-suppress memleak ; add_mount takes ownership of the strings */
        return add_mount(b->p, (plan_mount){.type = MOUNT_SYMLINK, .source = link, .target = tg,
                                            .origin = ORIGIN_GENERATED});
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
        if (b->p->backend == BACKEND_LINUX || b->p->backend == BACKEND_LANDLOCK) {
                int r = plan_etc_view(b);
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

/* The network "proxy": every name is looked up by the sandbox's resolver
 * (net/proxy-dns.c, on the linux backend's own loopback), and the proxy
 * looks the allowed ones up on the host, with the host's /etc/hosts: a
 * name of that file is allowed by its name, as any other. The sandbox's
 * /etc/hosts names only its own loopback. */
static int plan_resolver(builder *b)
{
        if (b->p->network != CORDON_NETWORK_PROXY)
                return 0;
        int r = add_file(b->p, "/etc/resolv.conf",
                         strdup("# cordon: the sandbox's resolver answers the allowlist's names only\n"
                                "nameserver 127.0.0.1\n"
                                "# its names have IPv4 addresses only: glibc (>= 2.36) asks no AAAA\n"
                                "options no-aaaa\n"));
        if (r == 0)
                r = add_file(b->p, "/etc/hosts",
                             xasprintf("127.0.0.1 localhost %s\n::1 localhost ip6-localhost ip6-loopback %s\n",
                                       b->p->hostname, b->p->hostname));
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
        _cleanup_free_ char *source = source_expand(e->source, caller_home(b->h), b->h->environ);
        if (!source && e->source[0] == '$' && errno == ENOENT && e->optional)
                return 0; /* an unset variable: nothing to show */
        _cleanup_free_ char *target = source ? config_path_expand(e->target[0] == '$' && streq(e->target, e->source)
                                                                          ? source
                                                                          : e->target,
                                                                  caller_home(b->h), b->p->env)
                                             : NULL;
        if (!target && errno == ENOMEM)
                return -ENOMEM;
        _cleanup_free_ char *from = e->from ? strdup(e->from) : xasprintf("expose %s", e->source);
        if (!from)
                return -ENOMEM;
        if (!target)
                return config_from_error(b->err, EINVAL, from, "%s -> %s: %s", e->source, e->target,
                                         source                 ? "the command's environment has no such absolute variable"
                                         : e->source[0] == '$' ? "cordon's environment has no such variable naming an "
                                                                 "absolute path (mark the rule \"optional\": true if it "
                                                                 "may be unset)"
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
                /* the rest of /etc is the backend's prepared copy (it has
                 * the mount points), or absent (a tmpfs directory) */
                if (parent->origin == ORIGIN_INSTANCE || parent->origin == ORIGIN_WORKSPACE || m->missing ||
                    parent->etc_view)
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

const char *env_value(char *const *env, const char *name)
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
        p->die_with_parent = c->die_with_parent;
        p->explain = c->explain;
        p->explain_on_failure = c->explain_on_failure;
        /* the check after the run of a launcher that died runs in it */
        p->helper_exe = strdup(c->helper_program ? c->helper_program : CORDON_BINDIR "/cordon");
        if (!p->helper_exe)
                return -ENOMEM;
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
        r = plan_user(c, b->h, p, b->err);
        if (r < 0)
                return r;
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
        const char *home = home_real ? home_real : caller_home(h);
        if (r == 0 && home && !(p->caller_home = strdup(home)))
                r = -ENOMEM;
        if (r == 0)
                r = plan_check_writable(&b);
        if (r == 0)
                r = plan_check_config_files(&b);
        if (r == 0)
                r = plan_environment(&b);
        if (r == 0)
                r = plan_user_env(p);
        if (r == 0)
                r = plan_writable_roots(&b);
        if (r == 0 && p->backend != BACKEND_NONE) {
                r = plan_system(&b);
                if (r == 0 && p->backend == BACKEND_LINUX)
                        r = plan_identity(&b);
                if (r == 0 && p->backend == BACKEND_LINUX)
                        r = plan_resolver(&b);
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
                r = plan_exe_hint(&b);
        if (r == 0 && cmd && p->backend != BACKEND_NONE)
                r = plan_git_hint(&b);
        if (r == 0 && cmd && p->backend != BACKEND_NONE)
                r = plan_git_config_hint(&b);
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
