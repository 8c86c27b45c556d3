/* SPDX-License-Identifier: MIT */
/* The post-run git check. The plan keeps the control files of the
 * repositories it found read-only (plan.c, "protected paths"), but the
 * command can still make new ones: `git init sub` (or a `.git` file naming
 * a directory of its own, a bare-looking directory, a worktree's
 * commondir) anywhere in a writable mount, and then a gitlink to it in the
 * index, which stays writable. The host's next `git status` recurses into
 * that submodule and runs its core.fsmonitor; `git add .` adds an embedded
 * repository, and the next status runs it; git run in a subdirectory uses
 * the innermost repository. Mounts cannot refuse a name at any depth, so
 * after the run the launcher looks (DESIGN.md, threat model: relative to
 * directory descriptors, never following a link, bounded) for every git
 * directory in the writable mounts that is not one the plan protected,
 * and sets aside what in it was made or changed during the run and makes
 * git execute something: config, config.worktree, commondir and hooks/
 * are renamed to NAME.cordon-quarantine (the repository still works, with
 * none of them), a planted `.git` symlink or gitfile naming something it
 * cannot check is renamed likewise. Each is a warning and a path in the
 * stats record. Git directories are looked for as git finds them: ".git"
 * entries, directories git takes for bare repositories, the targets of
 * gitfiles and commondir, modules/ and worktrees/ of each; past the walk's
 * bound, the gitlinks of the protected repositories' indexes.
 *
 * "Made or changed during the run": a status change time (ctime) at or
 * after the run's start. Every way to put a file in place (create, write,
 * rename, link, chmod) sets it, and nothing but the system clock can set
 * it back; the start is read from the coarse clock the kernel stamps
 * files with.
 *
 * The landlock backend keeps nothing read-only inside a writable
 * directory, so there every repository is unprotected: before the run the
 * same search records the git directories there are (by identity: the
 * command cannot make another one pass for them), and after it the
 * control files of each, the user's own too, are set aside when the run
 * made or changed them; all of them in one it made or moved in. */
#include "gitcheck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "error.h"
#include "gitindex.h"
#include "journal.h"
#include "libc-compat.h"
#include "sys.h"

#define WALK_BUDGET     100000 /* directory entries read per run (a directory counts 8): some 10 ms a 1000 directories */
#define WALK_DEPTH      64
#define HOOKS_MAX       1024 /* hooks/ entries looked at */
#define POINTER_MAX     4096 /* bytes of a gitfile or commondir read */
#define ASIDE_SUFFIX    ".cordon-quarantine"
#define INDEX_MAX       (64u << 20) /* bytes of an index read */
#define GITLINKS_MAX    4096        /* gitlinks followed per index */
#define GITLINK_NESTING 4           /* submodules of submodules followed */
#define GIT_NESTING     4           /* modules/a/modules/b/...: how deep git directories are searched */

typedef struct identity {
        dev_t dev;
        ino_t ino;
} identity;

struct git_check {
        struct timespec t0;
        identity *known; /* the git directories the plan protected */
        size_t n_known;
        identity *kept; /* the files it kept read-only (--protect DIR/.git/config too) */
        size_t n_kept;
        char **walk;      /* writable mounts to search (host paths) */
        char **worktrees; /* of the protected repositories (DIR of DIR/.git) */
        char **writable;  /* every writable mount */
        char **set_aside;
        size_t budget;
        bool partial, done;
        int logs;    /* <instance>/logs, or -1 */
        int journal; /* logs/gitcheck.*: this run's, flock'ed while it lives, or -1 */
        char name[64];
        char **dead; /* the journals of killed runs this one checks for */
        cordon_log_fn log_fn;
        void *log_userdata;
        bool unprotected; /* landlock: nothing was read-only, the known ones are checked too */
        bool recording;   /* the search before the run: note the git directories, set nothing aside */
        struct timespec newest; /* then: the newest status change of their control files */
        char *dirbuf;     /* DIRBUF_SIZE bytes for getdents64, or NULL */
};

static bool not_before(const struct timespec *a, const struct timespec *b)
{
        return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

static bool changed(const git_check *gc, const struct stat *st)
{
        return not_before(&st->st_ctim, &gc->t0);
}

static bool in_set(const identity *v, size_t n, const struct stat *st)
{
        for (size_t i = 0; i < n; i++)
                if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
                        return true;
        return false;
}

static bool is_known(const git_check *gc, const struct stat *st)
{
        return in_set(gc->known, gc->n_known, st);
}

static int add_identity(identity **v, size_t *n, dev_t dev, ino_t ino)
{
        identity *w = realloc(*v, (*n + 1) * sizeof(**v));
        if (!w)
                return -ENOMEM;
        *v = w;
        w[(*n)++] = (identity){dev, ino};
        return 0;
}

static int add_known(git_check *gc, dev_t dev, ino_t ino)
{
        return add_identity(&gc->known, &gc->n_known, dev, ino);
}

/* The search before the run (landlock) found the git directory |st| at
 * |path|: known, and a work tree whose index's gitlinks are followed
 * should the search after the run stop early. */
static void note_gitdir(git_check *gc, const struct stat *st, const char *path)
{
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *worktree = slash && streq(slash, "/.git") ? path_dirname(path) : NULL;
        if (add_known(gc, st->st_dev, st->st_ino) == 0 && worktree)
                strv_push(&gc->worktrees, worktree);
}

/* Does the plan protect |name| inside |dir| (a bare repository at the top
 * of a writable mount)? */
static bool plan_protects_in(const cordon_plan *p, const char *dir, const char *name)
{
        _cleanup_free_ char *path = path_join(dir, name);
        for (size_t i = 0; path && i < p->n_mounts; i++)
                if (p->mounts[i].origin == ORIGIN_PROTECT && streq(p->mounts[i].source, path))
                        return true;
        return false;
}

static int note_mount(git_check *gc, const cordon_plan *p, const plan_mount *m)
{
        if (m->origin == ORIGIN_PROTECT && !m->writable)
                return m->ino ? add_identity(&gc->kept, &gc->n_kept, m->dev, m->ino) : 0;
        if (m->origin == ORIGIN_PROTECT) { /* a pinned git directory */
                const char *slash = strrchr(m->source, '/');
                _cleanup_free_ char *worktree = slash && streq(slash, "/.git") ? path_dirname(m->source) : NULL;
                int r = m->is_dir && m->ino ? add_known(gc, m->dev, m->ino) : 0;
                return r == 0 && worktree ? strv_push(&gc->worktrees, worktree) : r;
        }
        int r = strv_push(&gc->writable, m->source);
        if (r == 0 && m->origin != ORIGIN_INSTANCE) /* the host runs no git in runtime-user-env */
                r = strv_push(&gc->walk, m->source);
        struct stat st;
        if (r == 0 && plan_protects_in(p, m->source, "config") && stat(m->source, &st) == 0)
                r = add_known(gc, st.st_dev, st.st_ino);
        return r;
}

/* ---- journals ---------------------------------------------------------------------------- */

/* A run whose launcher is killed checks nothing; what its command made
 * is older than the next run's start, and would pass. So each run leaves
 * logs/gitcheck.* (invisible to the command) while it lives, holding its
 * start and its writable mounts under an flock, and removes it after its
 * check; a later run that finds one unlocked (its run is gone) on a mount
 * it searches takes that start for its own. */
#define JOURNAL_PREFIX "gitcheck."

static bool shares_a_mount(const git_check *gc, char **roots)
{
        for (size_t i = 0; roots && roots[i]; i++)
                if (strv_contains(gc->walk, roots[i]))
                        return true;
        return false;
}

/* The start and the mounts of the journal |fd|. */
static int journal_read(int fd, struct timespec *t, char ***roots)
{
        int copy = sys_dup_cloexec(fd, 3);
        FILE *f = copy < 0 ? NULL : fdopen(copy, "r");
        char line[PATH_MAX + 2];
        long long sec = 0;
        long nsec = 0;
        /* a number out of range is the clock's extreme: it only widens what is checked */
        int r = f && fgets(line, sizeof(line), f) && sscanf(line, "%lld %ld", &sec, &nsec) == 2 // NOLINT(cert-err34-c)
                        ? 0
                        : -EINVAL;
        while (r == 0 && fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                if (line[0] == '/')
                        r = strv_push(roots, line);
        }
        if (f)
                fclose(f);
        else if (copy >= 0)
                close(copy);
        t->tv_sec = (time_t)sec;
        t->tv_nsec = nsec;
        return r;
}

/* A journal still under its temporary name whose lock is free (|fd|
 * holds it): its run was killed while it wrote it, before any command of
 * its started. */
static void remove_unborn(int fd, const char *name, void *userdata)
{
        (void)fd;
        unlinkat(((git_check *)userdata)->logs, name, 0);
}

/* An unlocked journal (|fd| holds a shared lock) of a run that is gone:
 * when it shares a mount with this run, its start counts as ours. */
static void take_over_one(int fd, const char *name, void *userdata)
{
        git_check *gc = userdata;
        struct timespec t;
        _cleanup_strv_ char **roots = NULL;
        if (journal_read(fd, &t, &roots) < 0 || !shares_a_mount(gc, roots))
                return; /* not ours */
        if (!not_before(&t, &gc->t0))
                gc->t0 = t;
        strv_push(&gc->dead, name);
}

/* The journals of killed runs: a live one is locked (it checks for itself). */
static void take_over_dead(git_check *gc)
{
        static const journal_kind kinds[] = {{"tmp-" JOURNAL_PREFIX, LOCK_EX, remove_unborn},
                                             {JOURNAL_PREFIX, LOCK_SH, take_over_one}};
        journal_each(gc->logs, kinds, ARRAY_SIZE(kinds), gc->name, O_RDONLY | O_NONBLOCK, true, gc);
}

/* This run's journal: written under a temporary name, locked, then renamed
 * into place, so that none is ever seen unlocked while its run lives. */
static void journal_open(git_check *gc)
{
        char tmp[80];
        snprintf(gc->name, sizeof(gc->name), JOURNAL_PREFIX "%d.%ld", (int)getpid(), (long)gc->t0.tv_nsec);
        snprintf(tmp, sizeof(tmp), "tmp-%s", gc->name);
        int fd = openat(gc->logs, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return;
        buf b = {0};
        buf_printf(&b, "%lld %ld\n", (long long)gc->t0.tv_sec, gc->t0.tv_nsec);
        for (size_t i = 0; gc->walk && gc->walk[i]; i++)
                buf_printf(&b, "%s\n", gc->walk[i]);
        _cleanup_free_ char *text = buf_steal(&b);
        bool ok = text && flock(fd, LOCK_EX) == 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text) &&
                  renameat(gc->logs, tmp, gc->logs, gc->name) == 0;
        if (!ok) {
                unlinkat(gc->logs, tmp, 0);
                close(fd);
                return;
        }
        gc->journal = fd;
}

static void journals_close(git_check *gc)
{
        for (size_t i = 0; gc->done && gc->dead && gc->dead[i]; i++)
                unlinkat(gc->logs, gc->dead[i], 0);
        if (gc->journal >= 0) {
                unlinkat(gc->logs, gc->name, 0);
                close(gc->journal);
                gc->journal = -1;
        }
}

static void record_known(git_check *gc);

int git_check_begin(const cordon_plan *p, int logs, git_check **ret)
{
        *ret = NULL;
        if (p->backend != BACKEND_LINUX && p->backend != BACKEND_LANDLOCK)
                return 0;
        git_check *gc = calloc(1, sizeof(*gc));
        if (!gc)
                return -ENOMEM;
        gc->log_fn = p->log_fn;
        gc->log_userdata = p->log_userdata;
        gc->budget = WALK_BUDGET;
        gc->journal = gc->logs = -1;
        gc->unprotected = p->backend == BACKEND_LANDLOCK;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                bool note = m->type == MOUNT_BIND && (m->writable || m->origin == ORIGIN_PROTECT);
                int r = note ? note_mount(gc, p, m) : 0;
                if (r < 0) {
                        git_check_free(gc);
                        return r;
                }
        }
        clock_gettime(CLOCK_REALTIME_COARSE, &gc->t0); /* the clock of file timestamps */
        if (gc->unprotected)
                record_known(gc);
        gc->logs = logs >= 0 && gc->walk ? sys_dup_cloexec(logs, 3) : -1;
        if (gc->logs >= 0) {
                journal_open(gc);
                take_over_dead(gc);
        }
        *ret = gc;
        return 0;
}

/* ---- setting aside ---------------------------------------------------------------------- */

/* Rename |name| in |dfd| (the directory |dir| on the host) to
 * NAME.cordon-quarantine[.N], never over anything. */
static void set_aside(git_check *gc, int dfd, const char *name, const char *dir)
{
        if (gc->recording)
                return;
        char aside[NAME_MAX + 1];
        int e = 0;
        for (int i = 0; i < 10; i++) {
                snprintf(aside, sizeof(aside), i ? "%s" ASIDE_SUFFIX ".%d" : "%s" ASIDE_SUFFIX, name, i);
                int r = renameat2(dfd, name, dfd, aside, RENAME_NOREPLACE);
                if (r < 0 && errno == EINVAL) { /* a file system without RENAME_NOREPLACE */
                        struct stat st;
                        r = fstatat(dfd, aside, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (errno = EEXIST, -1)
                                                                               : renameat(dfd, name, dfd, aside);
                }
                if (r == 0) {
                        e = 0;
                        break;
                }
                e = errno;
                if (e != EEXIST)
                        break;
        }
        _cleanup_free_ char *path = path_join(dir, name);
        _cleanup_free_ char *shown = path ? str_escape(path, false) : NULL;
        if (e) {
                log_message(gc->log_fn, gc->log_userdata, CORDON_LOG_WARNING,
                            "git: cannot set aside %s, which the command made and git on the host would run: %s; do not "
                            "run git there before you check it",
                            shown ? shown : name, strerror(e));
                return;
        }
        _cleanup_free_ char *aside_path = path_join(dir, aside);
        _cleanup_free_ char *shown_aside = str_escape(aside, false);
        _cleanup_free_ char *shown_back = aside_path ? str_escape(aside_path, false) : NULL;
        log_message(gc->log_fn, gc->log_userdata, CORDON_LOG_WARNING,
                    "git: set aside %s as %s: the command made or changed it, and git on the host would run what "
                    "it says; check it before you take it back (mv %s %s)",
                    shown ? shown : name, shown_aside ? shown_aside : aside, shown_back ? shown_back : aside,
                    shown ? shown : name);
        if (path)
                strv_push(&gc->set_aside, path);
}

/* ---- git directories -------------------------------------------------------------------- */

/* What git executes, or reads to decide what to, from a git directory. */
static const char *const CONTROL[] = {"config", "config.worktree", "commondir", "hooks"};

/* The newest status change among the entries of the directory |name| in
 * |dfd| into |newest|; false when it is there but cannot be read whole. */
static bool newest_entry(int dfd, const char *name, struct timespec *newest)
{
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return fd < 0 && errno == ENOENT; /* there, but unreadable to us: git may read it */
        }
        bool whole = true;
        size_t n = 0;
        for (struct dirent *e; whole && (e = readdir(d));) {
                struct stat st;
                if (++n > HOOKS_MAX)
                        whole = false; /* too many to look at */
                else if (!streq(e->d_name, ".") && !streq(e->d_name, "..") &&
                         fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                         !not_before(newest, &st.st_ctim))
                        *newest = st.st_ctim;
        }
        closedir(d);
        return whole;
}

/* A directory that has an entry made or changed during the run. */
static bool dir_changed(const git_check *gc, int dfd, const char *name)
{
        struct timespec newest = {0, 0};
        return !newest_entry(dfd, name, &newest) || not_before(&newest, &gc->t0);
}

/* Before the run: note the newest status change among the control files
 * of the git directory |gfd| (and the entries of hooks/). */
static void note_newest(git_check *gc, int gfd)
{
        for (size_t i = 0; i < ARRAY_SIZE(CONTROL); i++) {
                struct stat st;
                if (fstatat(gfd, CONTROL[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (!not_before(&gc->newest, &st.st_ctim))
                        gc->newest = st.st_ctim;
                if (S_ISDIR(st.st_mode))
                        newest_entry(gfd, CONTROL[i], &gc->newest);
        }
}

/* The first line of the small file |name| in |dfd| without its prefix
 * |prefix| (or NULL), as a path relative to |dir| when it is not absolute. */
static char *read_pointer(int dfd, const char *name, const char *prefix, const char *dir)
{
        int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        char text[POINTER_MAX];
        ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, text, sizeof(text) - 1) : -1;
        if (fd >= 0)
                close(fd);
        size_t len = strlen(prefix);
        if (n < (ssize_t)len || strncmp(text, prefix, len) != 0)
                return NULL;
        text[n] = '\0';
        char *t = text + len;
        t[strcspn(t, "\r\n")] = '\0';
        if (!t[0])
                return NULL;
        return t[0] == '/' ? strdup(t) : path_join(dir, t);
}

static bool inside_writable(const git_check *gc, const char *path)
{
        _cleanup_free_ char *f = NULL;
        path_normalize(path, true, &f);
        for (size_t i = 0; f && gc->writable && gc->writable[i]; i++)
                if (path_startswith(f, gc->writable[i]))
                        return true;
        return !f; /* cannot tell: as if inside */
}

/* The git directory named by |path| (host path), opened without following
 * links (-1: missing, or a link on the way), and whether it is a known one. */
static int open_gitdir(const git_check *gc, const char *path, bool *known)
{
        int fd = sys_open_nofollow(path, O_RDONLY | O_DIRECTORY);
        struct stat st;
        *known = fd >= 0 && fstat(fd, &st) == 0 && is_known(gc, &st);
        return fd;
}

static void check_gitdir(git_check *gc, int gfd, const char *path, bool touched);

/* A commondir that names a git directory the plan protected (a worktree
 * the command added to a repository of the user's). */
static bool commondir_known(const git_check *gc, int gfd, const char *path)
{
        _cleanup_free_ char *common = read_pointer(gfd, "commondir", "", path);
        bool known = false;
        int fd = common ? open_gitdir(gc, common, &known) : -1;
        if (fd >= 0)
                close(fd);
        return known;
}

static void check_nested_gitdirs(git_check *gc, int gfd, const char *path, int depth);

/* Set aside what git would run from the git directory |gfd| (|path| on
 * the host), unless the plan protected it: its control files made or
 * changed during the run, and all of them when the directory itself was
 * made, moved, or had entries added or removed (|touched|, or its ctime),
 * as a directory staged in an earlier run and renamed into place now
 * would be. A commondir that names a protected git directory stays (a
 * worktree the command added to a repository of the user's). Then the
 * git directories in its modules/ and worktrees/. */
static void check_gitdir_at(git_check *gc, int gfd, const char *path, bool touched, int depth)
{
        struct stat st;
        if (fstat(gfd, &st) < 0)
                return;
        bool known = is_known(gc, &st);
        if (gc->recording && !known) {
                note_gitdir(gc, &st, path);
                note_newest(gc, gfd);
        }
        /* after a killed run: what it planted looked like the user's to
         * this run's plan; the protected ones' control files are checked */
        else if (!gc->recording && (!known || gc->dead || gc->unprotected)) {
                touched = !known && (touched || changed(gc, &st));
                for (size_t i = 0; i < ARRAY_SIZE(CONTROL); i++) {
                        const char *name = CONTROL[i];
                        if (fstatat(gfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                            (!gc->dead && in_set(gc->kept, gc->n_kept, &st)))
                                continue; /* read-only in the run */
                        bool planted =
                                touched || changed(gc, &st) || (S_ISDIR(st.st_mode) && dir_changed(gc, gfd, name));
                        if (planted && streq(name, "commondir") && commondir_known(gc, gfd, path))
                                planted = false;
                        if (planted)
                                set_aside(gc, gfd, name, path);
                }
        }
        check_nested_gitdirs(gc, gfd, path, depth);
}

static void check_gitdir(git_check *gc, int gfd, const char *path, bool touched)
{
        check_gitdir_at(gc, gfd, path, touched, 0);
}

/* Does |dfd| hold a HEAD git would take ("ref: refs/..." or an object
 * name; a symlink, which git reads as a symbolic ref, counts too)? */
static bool has_head(int dfd)
{
        struct stat st;
        if (fstatat(dfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
                return true;
        _cleanup_free_ char *head = read_pointer(dfd, "HEAD", "", "/");
        const char *h = head ? head + 1 : NULL; /* read as a path below "/" */
        return h && (!strncmp(h, "ref: refs/", 10) || strspn(h, "0123456789abcdef") >= 40);
}

static bool is_subdir_type(int dfd, const char *name, unsigned char type);
static bool is_subdir(int dfd, const struct dirent *e) { return is_subdir_type(dfd, e->d_name, e->d_type); }

/* The git directories in the directory |dfd| (|path|): each subdirectory
 * with a HEAD, and below the others when |names| (a submodule "a/b"). */
static void check_gitdirs_in(git_check *gc, int dfd, const char *path, bool names, int depth)
{
        int fd = depth <= GIT_NESTING ? sys_dup_cloexec(dfd, 3) : -1;
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        for (struct dirent *e; (e = readdir(d)) && gc->budget > 0; gc->budget--) {
                if (streq(e->d_name, ".") || streq(e->d_name, "..") || !is_subdir(dirfd(d), e))
                        continue;
                _cleanup_free_ char *sub = path_join(path, e->d_name);
                int s = sub ? openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
                if (s >= 0 && has_head(s))
                        check_gitdir_at(gc, s, sub, false, depth + 1);
                else if (s >= 0 && names)
                        check_gitdirs_in(gc, s, sub, true, depth + 1);
                if (s >= 0)
                        close(s);
        }
        closedir(d);
}

/* The git directories in |gfd|/modules (the host's `git submodule update`
 * takes a modules/NAME it finds for a new submodule as it is) and in
 * |gfd|/worktrees. */
static void check_nested_gitdirs(git_check *gc, int gfd, const char *path, int depth)
{
        static const char *const SUB[] = {"modules", "worktrees"};
        for (size_t i = 0; i < ARRAY_SIZE(SUB); i++) {
                _cleanup_free_ char *dir = path_join(path, SUB[i]);
                int fd = dir ? openat(gfd, SUB[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
                if (fd >= 0) {
                        check_gitdirs_in(gc, fd, dir, i == 0, depth);
                        close(fd);
                }
        }
}

/* The ".git" file in |dfd| (|dir| on the host): "gitdir: PATH". */
static void check_gitfile(git_check *gc, int dfd, const char *dir, const struct stat *st)
{
        bool made = changed(gc, st), known = false;
        _cleanup_free_ char *raw = read_pointer(dfd, ".git", "gitdir: ", dir), *target = NULL;
        int g = raw ? open_gitdir(gc, raw, &known) : -1; /* ".." as the kernel takes it, refusing links */
        if (g >= 0 && path_normalize(raw, true, &target) < 0) {
                close(g);
                g = -1;
        }
        if (g >= 0 && (!known || gc->dead || gc->unprotected) && inside_writable(gc, target))
                check_gitdir(gc, g, target, made); /* a new gitfile may name a directory staged earlier */
        else if (made && !known)
                set_aside(gc, dfd, ".git", dir); /* names what cannot be checked: a link, or elsewhere */
        if (g >= 0)
                close(g);
}

/* The ".git" in |dfd| (|dir| on the host). */
static void check_dotgit(git_check *gc, int dfd, const char *dir)
{
        struct stat st;
        if (fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
                return;
        if (S_ISDIR(st.st_mode)) {
                _cleanup_free_ char *path = path_join(dir, ".git");
                int fd = openat(dfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd >= 0 && path)
                        check_gitdir(gc, fd, path, false);
                if (fd >= 0)
                        close(fd);
        } else if (S_ISREG(st.st_mode)) {
                check_gitfile(gc, dfd, dir, &st);
        } else if (changed(gc, &st)) {
                set_aside(gc, dfd, ".git", dir); /* a symlink: git follows it */
        }
}

/* ---- the walk ---------------------------------------------------------------------------- */

static bool is_subdir_type(int dfd, const char *name, unsigned char type)
{
        struct stat st;
        if (type != DT_UNKNOWN)
                return type == DT_DIR;
        return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

#define DIRBUF_SIZE ((size_t)32 * 1024)

typedef struct entries_call {
        git_check *gc;
        int dfd;
        bool (*fn)(git_check *, int, const char *, unsigned char, void *);
        void *userdata;
} entries_call;

static bool entry_call(void *ctx, const char *name, unsigned char type)
{
        const entries_call *c = ctx;
        return c->fn(c->gc, c->dfd, name, type, c->userdata);
}

/* The entries of the directory |dfd| (read from its current offset), |fn|
 * called for each but "." and ".." until it returns false. */
static void read_entries(git_check *gc, int dfd, bool (*fn)(git_check *, int, const char *, unsigned char, void *),
                         void *userdata)
{
        if (!gc->dirbuf && !(gc->dirbuf = malloc(DIRBUF_SIZE)))
                return;
        entries_call c = {gc, dfd, fn, userdata};
        (void)sys_dir_each(dfd, gc->dirbuf, DIRBUF_SIZE, entry_call, &c);
}

/* What the walk learns of one directory's entries. */
typedef struct walk_dir {
        char **subdirs;
        unsigned bare; /* HEAD, objects, refs: git takes the directory itself for a repository */
        bool dotgit;
        bool failed;
} walk_dir;

static bool walk_entry(git_check *gc, int dfd, const char *n, unsigned char type, void *userdata)
{
        walk_dir *w = userdata;
        if (gc->budget == 0) {
                gc->partial = true;
                return false;
        }
        gc->budget--;
        if (streq(n, ".git")) {
                w->dotgit = true;
                return true;
        }
        /* ".GIT": the ".git" of a case-insensitive directory (and
         * searched below as well, in case it is not) */
        w->dotgit |= strcasecmp(n, ".git") == 0;
        w->bare |= streq(n, "HEAD") ? 1 : streq(n, "objects") ? 2 : streq(n, "refs") ? 4 : 0;
        if (is_subdir_type(dfd, n, type) && strv_push(&w->subdirs, n) < 0) {
                w->failed = true;
                return false;
        }
        return true;
}

/* Every directory below |dfd| (|dir| on the host), never into a ".git",
 * never through a link. |dfd| is read from its start, and only here. */
static void walk(git_check *gc, int dfd, const char *dir, int depth)
{
        if (gc->budget < 8 || depth > WALK_DEPTH) {
                gc->partial = true;
                return;
        }
        gc->budget -= 8;
        walk_dir w = {0};
        read_entries(gc, dfd, walk_entry, &w);
        _cleanup_strv_ char **subdirs = w.subdirs;
        if (w.dotgit)
                check_dotgit(gc, dfd, dir);
        if (w.bare == 7 && has_head(dfd))
                check_gitdir(gc, dfd, dir, false);
        for (size_t i = 0; subdirs && subdirs[i]; i++) {
                _cleanup_free_ char *sub = path_join(dir, subdirs[i]);
                int s = sub ? openat(dfd, subdirs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
                if (s >= 0) {
                        walk(gc, s, sub, depth + 1);
                        close(s);
                }
        }
}

/* A mount below another one is searched with it. */
static bool walked_with_another(const git_check *gc, size_t k)
{
        for (size_t i = 0; gc->walk[i]; i++)
                if (i != k && path_startswith(gc->walk[k], gc->walk[i]) && !streq(gc->walk[k], gc->walk[i]))
                        return true;
        return false;
}

/* ---- gitlinks ---------------------------------------------------------------------------- */

/* When the walk stopped early: the submodules git recurses into are the
 * gitlinks of the index, at any depth; those of the protected
 * repositories, and of the submodules found there, are checked too. */
typedef struct gitlink_walk {
        git_check *gc;
        int worktree;     /* directory fd */
        const char *path; /* its host path */
        int depth;
} gitlink_walk;

static void check_worktree(git_check *gc, int worktree, const char *path, int gitdir, int depth);

/* A path git would take: relative, no "." or ".." component, no ".git". */
static bool plain_path(const char *path)
{
        if (path[0] == '/' || !path[0])
                return false;
        for (const char *c = path; *c;) {
                size_t n = strcspn(c, "/");
                if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2)) ||
                    (n == 4 && !strncasecmp(c, ".git", 4)))
                        return false;
                c += n + (c[n] == '/');
        }
        return true;
}

static void on_gitlink(const char *rel, void *userdata)
{
        gitlink_walk *w = userdata;
        const char *last = NULL;
        _cleanup_free_ char *full = plain_path(rel) ? path_join(rel, ".git") : NULL;
        int dfd = full ? sys_walk_parent(w->worktree, full, false, &last) : -1;
        _cleanup_free_ char *host = dfd >= 0 ? path_join(w->path, rel) : NULL;
        if (host)
                check_dotgit(w->gc, dfd, host);
        int g = host ? openat(dfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        if (host && g < 0) { /* a gitfile (the ones left after the check) */
                bool known = false;
                _cleanup_free_ char *target = read_pointer(dfd, ".git", "gitdir: ", host);
                g = target ? open_gitdir(w->gc, target, &known) : -1;
        }
        int sub = g >= 0 ? openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (sub >= 0)
                check_worktree(w->gc, sub, host, g, w->depth + 1);
        if (sub >= 0)
                close(sub);
        if (g >= 0)
                close(g);
        if (dfd >= 0)
                close(dfd);
}

/* The gitlinks of the index in |gitdir|, for the work tree |worktree|. */
static void check_worktree(git_check *gc, int worktree, const char *path, int gitdir, int depth)
{
        if (depth > GITLINK_NESTING)
                return;
        int fd = openat(gitdir, "index", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (fd < 0)
                return;
        void *data = MAP_FAILED;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= INDEX_MAX)
                data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (data == MAP_FAILED)
                return;
        gitlink_walk w = {gc, worktree, path, depth};
        if (git_index_gitlinks(data, (size_t)st.st_size, 20, GITLINKS_MAX, on_gitlink, &w) < 0)
                git_index_gitlinks(data, (size_t)st.st_size, 32, GITLINKS_MAX, on_gitlink, &w); /* SHA-256 */
        munmap(data, (size_t)st.st_size);
}

static void check_gitlinks(git_check *gc)
{
        for (size_t i = 0; gc->worktrees && gc->worktrees[i]; i++) {
                int wt = sys_open_nofollow(gc->worktrees[i], O_RDONLY | O_DIRECTORY);
                int g = wt >= 0 ? openat(wt, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
                struct stat st;
                if (g >= 0 && fstat(g, &st) == 0 && is_known(gc, &st))
                        check_worktree(gc, wt, gc->worktrees[i], g, 0);
                if (g >= 0)
                        close(g);
                if (wt >= 0)
                        close(wt);
        }
}

/* Every writable mount, within the bound. */
static void search(git_check *gc)
{
        for (size_t i = 0; gc->walk && gc->walk[i]; i++) {
                if (walked_with_another(gc, i))
                        continue;
                int fd = sys_open_nofollow(gc->walk[i], O_RDONLY | O_DIRECTORY);
                if (fd < 0)
                        continue;
                walk(gc, fd, gc->walk[i], 0);
                close(fd);
        }
}

/* A start after |t|, the newest change seen before the run: a user's
 * edit in the same tick of the file clock as the start would otherwise
 * pass for the command's. The wait is a tick at most, and only after
 * such an edit; a time further ahead (a clock set back) is not waited for
 * and what has it is set aside. */
static void start_after(git_check *gc, const struct timespec *t)
{
        for (int i = 0; i < 20 && not_before(t, &gc->t0); i++) {
                nanosleep(&(struct timespec){0, 1000000}, NULL);
                clock_gettime(CLOCK_REALTIME_COARSE, &gc->t0);
        }
}

/* Before the run, where nothing is read-only (landlock): the git
 * directories there are, found as the check after the run finds them. */
static void record_known(git_check *gc)
{
        gc->recording = true;
        search(gc);
        gc->recording = false;
        gc->budget = WALK_BUDGET;
        gc->partial = false;
        start_after(gc, &gc->newest);
}

void git_check_finish(git_check *gc)
{
        if (!gc || gc->done)
                return;
        gc->done = true;
        search(gc);
        if (gc->partial) /* quietly: a large workspace would say it every run */
                check_gitlinks(gc);
        journals_close(gc);
}

json_t *git_check_json(const git_check *gc)
{
        json_t *o = json_object(), *aside = json_array();
        bool ok = json_put(o, "set_aside", aside);
        for (size_t i = 0; ok && gc && gc->set_aside && gc->set_aside[i]; i++)
                ok = json_array_append_new(aside, json_text(gc->set_aside[i])) == 0;
        ok = ok && json_put(o, "searched_all", json_boolean(!(gc && gc->partial)));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

git_check *git_check_free(git_check *gc)
{
        if (!gc)
                return NULL;
        free(gc->known);
        free(gc->kept);
        strv_free(gc->walk);
        strv_free(gc->worktrees);
        strv_free(gc->writable);
        strv_free(gc->set_aside);
        journals_close(gc); /* no check: the command never ran */
        if (gc->logs >= 0)
                close(gc->logs);
        strv_free(gc->dead);
        free(gc->dirbuf);
        free(gc);
        return NULL;
}
