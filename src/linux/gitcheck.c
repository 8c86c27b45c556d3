/* SPDX-License-Identifier: MIT */
/* The post-run git check. The plan keeps the control files of the
 * repositories it found read-only (plan-git.c), but the command can still
 * make git directories of its own anywhere in a writable mount, change
 * what the landlock backend could not keep read-only, and leave state the
 * host's git acts on (a rebase's todo list). Mounts cannot refuse a name
 * at any depth, so after the run the launcher looks for every directory
 * git would take for a git directory, by git's own rules (gitmodel.h:
 * a valid HEAD, and a commondir or objects/ and refs/), wherever it is in
 * a writable mount: work tree directories, ".git" entries, the targets
 * of gitfiles and commondir files, modules/ at any depth (a submodule's
 * name may hold '/') and worktrees/; past the walk's bound, the gitlinks
 * of the protected repositories' indexes. In each one the plan did not
 * keep read-only, what the run made or changed and can make git run a
 * program is made inert (gitcheck-aside.c): a config with keys beyond
 * what git init and clone write, hooks that are not git's samples, a
 * commondir naming a directory of the command's, a todo list with exec
 * lines; and what its config (and the user's own) names elsewhere
 * (gitcheck-config.c). The walk is relative to directory descriptors,
 * never follows a link and reads at most WALK_BUDGET entries.
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
 * control files of each, the user's own too, are checked when the run
 * made or changed them. */
#include "gitcheck-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "error.h"
#include "gitindex.h"
#include "gitmodel.h"
#include "sys.h"

#define WALK_BUDGET     100000 /* directory entries read per run (a directory counts 8): some 10 ms a 1000 directories */
#define WALK_DEPTH      64
#define TREE_MAX        1024 /* entries of a hooks directory (and below) looked at */
#define TREE_DEPTH      8
#define HEAD_MAX        256         /* bytes of HEAD git reads (validate_headref) */
#define INDEX_MAX       (64u << 20) /* bytes of an index read */
#define GITLINKS_MAX    4096        /* gitlinks followed per index */
#define GITLINK_NESTING 4           /* submodules of submodules followed */

bool git_not_before(const struct timespec *a, const struct timespec *b)
{
        return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

bool git_changed(const git_check *gc, const struct stat *st) { return git_not_before(&st->st_ctim, &gc->t0); }

static void note_time(struct timespec *newest, const struct timespec *t)
{
        if (!git_not_before(newest, t))
                *newest = *t;
}

static bool in_set(const identity *v, size_t n, const struct stat *st)
{
        for (size_t i = 0; i < n; i++)
                if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
                        return true;
        return false;
}

static bool is_known(const git_check *gc, const struct stat *st) { return in_set(gc->known, gc->n_known, st); }

int git_add_identity(identity **v, size_t *n, dev_t dev, ino_t ino)
{
        identity *w = realloc(*v, (*n + 1) * sizeof(**v));
        if (!w)
                return -ENOMEM;
        *v = w;
        w[(*n)++] = (identity){dev, ino};
        return 0;
}

/* ---- reading what the command wrote --------------------------------------------------- */

/* All of the regular file |fd| when it has at most |max| bytes (plus a
 * NUL), else NULL. */
static char *read_fd(int fd, size_t max, size_t *len)
{
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max)
                return NULL;
        char *text = malloc(max < (size_t)st.st_size + 1 ? max + 1 : (size_t)st.st_size + 1);
        size_t n = 0, cap = (size_t)st.st_size;
        for (ssize_t k; text && n < cap && (k = read(fd, text + n, cap - n)) > 0;)
                n += (size_t)k;
        if (text) {
                text[n] = '\0';
                *len = n;
        }
        return text;
}

char *git_read_small(int dfd, const char *name, size_t max, size_t *len)
{
        int fd = name[0] ? openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
                         : sys_dup_cloexec(dfd, 3);
        if (fd < 0)
                return NULL;
        char *text = read_fd(fd, max, len);
        close(fd);
        return text;
}

/* The newest status change at and below the directory |name| of |dfd|
 * into |newest|; false when it cannot be read whole (then it counts as
 * changed). */
static bool tree_newest(int dfd, const char *name, struct timespec *newest, size_t *left, int depth)
{
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return fd < 0 && errno == ENOENT;
        }
        bool whole = depth < TREE_DEPTH;
        for (struct dirent *e; whole && (e = readdir(d));) {
                struct stat st;
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (*left == 0 || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        whole = false;
                        break;
                }
                (*left)--;
                note_time(newest, &st.st_ctim);
                if (S_ISDIR(st.st_mode))
                        whole = tree_newest(dirfd(d), e->d_name, newest, left, depth + 1);
        }
        closedir(d);
        return whole;
}

void git_tree_note(int dfd, const char *name, struct timespec *newest)
{
        size_t left = TREE_MAX;
        (void)tree_newest(dfd, name, newest, &left, 0);
}

bool git_tree_changed(const git_check *gc, int dfd, const char *name)
{
        struct timespec newest = {0, 0};
        size_t left = TREE_MAX;
        return !tree_newest(dfd, name, &newest, &left, 0) || git_not_before(&newest, &gc->t0);
}

/* The first line of the small file |name| in |dfd| without its prefix
 * |prefix| (or NULL), as a path relative to |dir| when it is not absolute. */
static char *read_pointer(int dfd, const char *name, const char *prefix, const char *dir)
{
        size_t len = 0;
        _cleanup_free_ char *text = git_read_small(dfd, name, POINTER_MAX, &len);
        size_t n = strlen(prefix);
        if (!text || len < n || strncmp(text, prefix, n) != 0)
                return NULL;
        char *t = text + n;
        t[strcspn(t, "\r\n")] = '\0';
        if (!t[0])
                return NULL;
        return t[0] == '/' ? strdup(t) : path_join(dir, t);
}

/* Does |dfd| hold a HEAD git would take (gitmodel.h's git_head_valid; a
 * symlink by its text)? */
static bool has_valid_head(int dfd)
{
        struct stat st;
        char text[HEAD_MAX];
        if (fstatat(dfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        if (S_ISLNK(st.st_mode)) {
                ssize_t n = readlinkat(dfd, "HEAD", text, sizeof(text) - 1);
                return n > 0 && git_head_valid(text, (size_t)n, true);
        }
        if (!S_ISREG(st.st_mode))
                return false;
        int fd = openat(dfd, "HEAD", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
        if (fd >= 0)
                close(fd);
        return n > 0 && git_head_valid(text, (size_t)n, false);
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

/* ---- one git directory ------------------------------------------------------------------- */

/* Can the config |name| of |gfd| make git run or read anything? */
static bool config_runs(int gfd, const char *name)
{
        size_t len = 0;
        _cleanup_free_ char *text = git_read_small(gfd, name, CONFIG_MAX, &len);
        return !text || !git_config_benign(text, len);
}

/* Is every entry of the hooks directory |name| of |gfd| one git never
 * runs (`git init`'s samples)? */
static bool hooks_inert(int gfd, const char *name)
{
        int fd = openat(gfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return false;
        }
        bool inert = true;
        size_t n = 0;
        for (struct dirent *e; inert && (e = readdir(d));) {
                struct stat st;
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                inert = ++n <= TREE_MAX && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                        git_hook_inert(e->d_name, S_ISREG(st.st_mode));
        }
        closedir(d);
        return inert;
}

static bool strategy_key(const char *key, const char *value, void *userdata)
{
        if (streq(key, "options.strategy") && !git_strategy_builtin(value))
                *(bool *)userdata = true;
        return true;
}

/* sequencer/opts (config syntax) names a strategy that is not git's own. */
static bool config_strategy_runs(int dfd)
{
        size_t len = 0;
        _cleanup_free_ char *text = git_read_small(dfd, "opts", CONFIG_MAX, &len);
        bool runs = false;
        return !text || git_config_parse(text, len, strategy_key, &runs) != 0 || runs;
}

/* Can the sequencer state |name| of |gfd| (rebase-merge/, sequencer/) run
 * a program on `git rebase --continue` (`cherry-pick --continue`)? */
static bool todo_runs(int gfd, const char *name)
{
        int fd = openat(gfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return true;
        size_t len = 0;
        bool runs = false;
        static const char *const TODO[] = {"git-rebase-todo", "todo"};
        for (size_t i = 0; !runs && i < ARRAY_SIZE(TODO); i++) {
                struct stat st;
                _cleanup_free_ char *t = git_read_small(fd, TODO[i], CONFIG_MAX, &len);
                runs = t ? git_todo_runs_program(t, len) : fstatat(fd, TODO[i], &st, AT_SYMLINK_NOFOLLOW) == 0;
        }
        _cleanup_free_ char *strategy = git_read_small(fd, "strategy", POINTER_MAX, &len);
        if (strategy) {
                strategy[strcspn(strategy, "\r\n")] = '\0';
                runs |= !git_strategy_builtin(strategy);
        }
        struct stat st;
        runs |= fstatat(fd, "opts", &st, AT_SYMLINK_NOFOLLOW) == 0 && config_strategy_runs(fd);
        close(fd);
        return runs;
}

/* A commondir that names a known git directory (a worktree the command
 * added to a repository of the user's). */
static bool commondir_known(const git_check *gc, int gfd, const char *path)
{
        _cleanup_free_ char *common = read_pointer(gfd, "commondir", "", path);
        bool known = false;
        int fd = common ? open_gitdir(gc, common, &known) : -1;
        if (fd >= 0)
                close(fd);
        return known;
}

/* Can the entry |e| of |gfd| (|path|), which the run made or changed,
 * make git run a program? (A symlink: git follows it to what the command
 * chose.) */
static bool entry_runs(const git_check *gc, int gfd, const char *path, const git_entry *e, const struct stat *st)
{
        if (S_ISLNK(st->st_mode) || S_ISDIR(st->st_mode) != e->dir)
                return true;
        switch (e->rule) {
        case GIT_RULE_CONFIG:
                return config_runs(gfd, e->name);
        case GIT_RULE_HOOKS:
                return !hooks_inert(gfd, e->name);
        case GIT_RULE_POINTER:
                return !commondir_known(gc, gfd, path);
        case GIT_RULE_TODO:
                return todo_runs(gfd, e->name);
        case GIT_RULE_DATA:
                return false;
        default:
                return true;
        }
}

/* Before the run (landlock): the newest status change among the entries
 * of the known git directory |gfd|, hooks/ and below too. */
static void note_newest(git_check *gc, int gfd)
{
        for (size_t i = 0; i < GIT_N_ENTRIES; i++) {
                struct stat st;
                if (fstatat(gfd, GIT_ENTRIES[i].name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                note_time(&gc->newest, &st.st_ctim);
                if (S_ISDIR(st.st_mode))
                        git_tree_note(gfd, GIT_ENTRIES[i].name, &gc->newest);
        }
}

static void check_gitdir_at(git_check *gc, int gfd, const char *path, const char *worktree, bool touched,
                            bool common);

/* A commondir's target (inside a writable mount, not a known git
 * directory): its config and hooks are the ones git reads for |path|,
 * even when nothing takes it for a repository of its own. */
static void check_common(git_check *gc, int gfd, const char *path)
{
        _cleanup_free_ char *common = read_pointer(gfd, "commondir", "", path);
        _cleanup_free_ char *norm = NULL;
        if (!common || path_normalize(common, true, &norm) < 0 || !inside_writable(gc, norm))
                return;
        bool known = false;
        int cfd = open_gitdir(gc, common, &known);
        if (cfd >= 0 && !known)
                check_gitdir_at(gc, cfd, norm, NULL, false, false);
        if (cfd >= 0)
                close(cfd);
}

/* Make inert what git would run from the git directory |gfd| (|path| on
 * the host, with the work tree |worktree| or NULL) that the run made or
 * changed: each entry of GIT_ENTRIES the plan did not keep read-only, and
 * every entry when the directory itself was made, moved or had entries
 * added or removed (|touched|, or its ctime or its HEAD's), as a
 * directory staged earlier and renamed into place now would be; then
 * what its config names elsewhere, and its commondir's target. A known
 * one (the plan protected it) on the linux backend has only its writable
 * entries checked. */
/* The work tree of the git directory |gfd| (|path|) not named ".git"
 * (gitmodel.h's git_worktree_of), or NULL. */
static char *worktree_of(int gfd, const char *path)
{
        size_t glen = 0, clen = 0;
        _cleanup_free_ char *gitdir = git_read_small(gfd, "gitdir", POINTER_MAX, &glen);
        _cleanup_free_ char *config = gitdir ? NULL : git_read_small(gfd, "config", CONFIG_MAX, &clen);
        return git_worktree_of(path, gitdir, glen, config, clen);
}

static void check_gitdir_at(git_check *gc, int gfd, const char *path, const char *worktree, bool touched,
                            bool common)
{
        struct stat st;
        if (fstat(gfd, &st) < 0)
                return;
        _cleanup_free_ char *found = worktree ? NULL : worktree_of(gfd, path);
        if (!worktree)
                worktree = found;
        bool known = is_known(gc, &st);
        if (gc->recording) {
                if (!known && git_add_identity(&gc->known, &gc->n_known, st.st_dev, st.st_ino) == 0 && worktree)
                        strv_push(&gc->worktrees, worktree);
                note_newest(gc, gfd);
        } else {
                bool all = !known || gc->dead || gc->unprotected;
                struct stat h;
                touched = !known && (touched || git_changed(gc, &st) ||
                                     (fstatat(gfd, "HEAD", &h, AT_SYMLINK_NOFOLLOW) == 0 && git_changed(gc, &h)));
                for (size_t i = 0; i < GIT_N_ENTRIES; i++) {
                        const git_entry *e = &GIT_ENTRIES[i];
                        if ((e->protect && !all) || fstatat(gfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                            (!gc->dead && in_set(gc->kept, gc->n_kept, &st)))
                                continue; /* read-only in the run */
                        bool changed = touched || git_changed(gc, &st) ||
                                       (S_ISDIR(st.st_mode) && git_tree_changed(gc, gfd, e->name));
                        if (changed && entry_runs(gc, gfd, path, e, &st))
                                git_set_aside(gc, gfd, e->name, path);
                }
        }
        /* a known one's too: what its config names was read-only only as
         * long as nothing (another run's clean-up) took a placeholder away */
        git_check_named(gc, gfd, path, worktree, touched && !known);
        struct stat c;
        if (common && fstatat(gfd, "commondir", &c, AT_SYMLINK_NOFOLLOW) == 0)
                check_common(gc, gfd, path); /* git reads no commondir of a common directory */
}

static void check_gitdir(git_check *gc, int gfd, const char *path, const char *worktree, bool touched)
{
        check_gitdir_at(gc, gfd, path, worktree, touched, true);
}

/* The ".git" file in |dfd| (|dir| on the host): "gitdir: PATH". */
static void check_gitfile(git_check *gc, int dfd, const char *dir, const struct stat *st)
{
        bool made = git_changed(gc, st), known = false;
        _cleanup_free_ char *raw = read_pointer(dfd, ".git", "gitdir: ", dir), *target = NULL;
        int g = raw ? open_gitdir(gc, raw, &known) : -1; /* ".." as the kernel takes it, refusing links */
        if (g >= 0 && path_normalize(raw, true, &target) < 0) {
                close(g);
                g = -1;
        }
        if (g >= 0 && (!known || gc->dead || gc->unprotected) && inside_writable(gc, target))
                check_gitdir(gc, g, target, dir, made); /* a new gitfile may name a directory staged earlier */
        else if (made && !known)
                git_set_aside(gc, dfd, ".git", dir); /* names what cannot be checked: a link, or elsewhere */
        if (g >= 0)
                close(g);
}

/* The ".git" in |dfd| (|dir| on the host), when it is not a directory. */
static void check_dotgit(git_check *gc, int dfd, const char *dir, const char *name)
{
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
                return; /* a directory is walked */
        if (S_ISREG(st.st_mode) && streq(name, ".git"))
                check_gitfile(gc, dfd, dir, &st);
        else if (git_changed(gc, &st))
                git_set_aside(gc, dfd, name, dir); /* a symlink: git follows it */
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

/* Where a directory is: in a work tree (every subdirectory walked), in a
 * git directory (only its modules/ and worktrees/), or below modules/ or
 * worktrees/ (every subdirectory, a submodule's name may hold '/'; the
 * object stores of the git directories there excepted). */
typedef enum walk_where { IN_TREE, IN_GITDIR_NEST } walk_where;

/* What the walk learns of one directory's entries. */
typedef struct walk_dir {
        git_check *gc;
        int dfd;
        char **subdirs;
        char **dotgit;  /* ".git" and, for a case-insensitive directory, ".GIT" and the like */
        unsigned marks; /* HEAD, commondir, objects, refs */
        bool failed;
} walk_dir;

enum { MARK_HEAD = 1, MARK_COMMONDIR = 2, MARK_OBJECTS = 4, MARK_REFS = 8 };

static bool walk_entry(void *ctx, const char *n, unsigned char type)
{
        walk_dir *w = ctx;
        git_check *gc = w->gc;
        if (gc->budget == 0) {
                gc->partial = true;
                return false;
        }
        gc->budget--;
        if (strcasecmp(n, ".git") == 0 && strv_push(&w->dotgit, n) < 0)
                w->failed = true;
        w->marks |= streq(n, "HEAD")        ? MARK_HEAD
                    : streq(n, "commondir") ? MARK_COMMONDIR
                    : streq(n, "objects")   ? MARK_OBJECTS
                    : streq(n, "refs")      ? MARK_REFS
                                            : 0;
        if (is_subdir_type(w->dfd, n, type) && strv_push(&w->subdirs, n) < 0)
                w->failed = true;
        return !w->failed;
}

/* git's is_git_directory: a valid HEAD, and a commondir (whose target
 * holds objects/ and refs/) or objects/ and refs/ here. */
static bool looks_like_gitdir(const walk_dir *w)
{
        return (w->marks & MARK_HEAD) &&
               ((w->marks & MARK_COMMONDIR) || (w->marks & (MARK_OBJECTS | MARK_REFS)) == (MARK_OBJECTS | MARK_REFS)) &&
               has_valid_head(w->dfd);
}

/* The bulky stores of a git directory, which hold no git directory. */
static bool object_store(const char *name)
{
        return streq(name, GIT_OBJECTS) || streq(name, "lfs") || streq(name, "annex");
}

static bool nested(const char *name)
{
        for (size_t i = 0; GIT_NESTED[i]; i++)
                if (streq(name, GIT_NESTED[i]))
                        return true;
        return false;
}

/* Every directory below |dfd| (|dir| on the host), never through a link.
 * |worktree|: |dir| is the ".git" of that work tree, checked as a git
 * directory even without a HEAD yet (git init and other tools on the host
 * take it as it is). |dfd| is read from its start, and only here. */
static void walk(git_check *gc, int dfd, const char *dir, walk_where where, const char *worktree, int depth)
{
        if (gc->budget < 8 || depth > WALK_DEPTH) {
                gc->partial = true;
                return;
        }
        gc->budget -= 8;
        if (worktree) { /* a work tree's .git: nothing to list but what holds git directories */
                check_gitdir(gc, dfd, dir, worktree, false);
                for (size_t i = 0; GIT_NESTED[i]; i++) {
                        _cleanup_free_ char *sub = path_join(dir, GIT_NESTED[i]);
                        int fd = sub ? openat(dfd, GIT_NESTED[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
                        if (fd >= 0) {
                                walk(gc, fd, sub, IN_GITDIR_NEST, NULL, depth + 1);
                                close(fd);
                        }
                }
                return;
        }
        walk_dir w = {.gc = gc, .dfd = dfd};
        if (gc->dirbuf || (gc->dirbuf = malloc(DIRBUF_SIZE)))
                (void)sys_dir_each(dfd, gc->dirbuf, DIRBUF_SIZE, walk_entry, &w);
        _cleanup_strv_ char **subdirs = w.subdirs, **dotgit = w.dotgit;
        bool gitdir = looks_like_gitdir(&w);
        for (size_t i = 0; where == IN_TREE && dotgit && dotgit[i]; i++)
                check_dotgit(gc, dfd, dir, dotgit[i]);
        if (gitdir) {
                check_gitdir(gc, dfd, dir, worktree, false);
        }
        for (size_t i = 0; subdirs && subdirs[i]; i++) {
                const char *s = subdirs[i];
                walk_where next = where;
                if (gitdir && where == IN_TREE && !nested(s))
                        continue; /* nothing else in a git directory is one git uses */
                if (gitdir && object_store(s))
                        continue;
                if (gitdir)
                        next = IN_GITDIR_NEST;
                _cleanup_free_ char *sub = path_join(dir, s);
                int fd = sub ? openat(dfd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
                if (fd >= 0) {
                        walk(gc, fd, sub, next, where == IN_TREE && strcasecmp(s, ".git") == 0 ? dir : NULL,
                             depth + 1);
                        close(fd);
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
                check_dotgit(w->gc, dfd, host, ".git");
        int g = host ? openat(dfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        _cleanup_free_ char *gpath = g >= 0 && host ? path_join(host, ".git") : NULL;
        if (gpath)
                check_gitdir(w->gc, g, gpath, host, false);
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
                walk(gc, fd, gc->walk[i], IN_TREE, NULL, 0);
                close(fd);
        }
}

/* ---- the check's life ------------------------------------------------------------------- */

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
                return m->ino ? git_add_identity(&gc->kept, &gc->n_kept, m->dev, m->ino) : 0;
        if (m->origin == ORIGIN_PROTECT) { /* a pinned git directory */
                const char *slash = strrchr(m->source, '/');
                _cleanup_free_ char *worktree = slash && streq(slash, "/.git") ? path_dirname(m->source) : NULL;
                int r = m->is_dir && m->ino ? git_add_identity(&gc->known, &gc->n_known, m->dev, m->ino) : 0;
                return r == 0 && worktree ? strv_push(&gc->worktrees, worktree) : r;
        }
        int r = strv_push(&gc->writable, m->source);
        /* the host runs no git in runtime-user-env, nor in a device */
        if (r == 0 && m->origin != ORIGIN_INSTANCE && m->is_dir)
                r = strv_push(&gc->walk, m->source);
        struct stat st;
        if (r == 0 && plan_protects_in(p, m->source, "config") && stat(m->source, &st) == 0)
                r = git_add_identity(&gc->known, &gc->n_known, st.st_dev, st.st_ino);
        return r;
}

/* A start after |t|, the newest change seen before the run: a user's
 * edit in the same tick of the file clock as the start would otherwise
 * pass for the command's. The wait is a tick at most, and only after
 * such an edit; a time further ahead (a clock set back) is not waited for
 * and what has it is set aside. */
static void start_after(git_check *gc, const struct timespec *t)
{
        for (int i = 0; i < 20 && git_not_before(t, &gc->t0); i++) {
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

git_check *git_check_new(cordon_log_fn log_fn, void *log_userdata)
{
        git_check *gc = calloc(1, sizeof(*gc));
        if (!gc)
                return NULL;
        gc->log_fn = log_fn;
        gc->log_userdata = log_userdata;
        gc->budget = WALK_BUDGET;
        gc->journal = gc->logs = -1;
        return gc;
}

int git_check_begin(const cordon_plan *p, int logs, git_check **ret)
{
        *ret = NULL;
        if (p->backend != BACKEND_LINUX && p->backend != BACKEND_LANDLOCK)
                return 0;
        git_check *gc = git_check_new(p->log_fn, p->log_userdata);
        if (!gc)
                return -ENOMEM;
        gc->unprotected = p->backend == BACKEND_LANDLOCK;
        gc->named_open = p->git_named_open;
        int r = p->git_home && !(gc->home = strdup(p->git_home)) ? -ENOMEM : 0;
        for (size_t i = 0; r == 0 && p->git_configs && p->git_configs[i]; i++)
                r = strv_push(&gc->configs, p->git_configs[i]);
        for (size_t i = 0; r == 0 && i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->type == MOUNT_BIND && (m->writable || m->origin == ORIGIN_PROTECT))
                        r = note_mount(gc, p, m);
        }
        if (r < 0) {
                git_check_free(gc);
                return r;
        }
        clock_gettime(CLOCK_REALTIME_COARSE, &gc->t0); /* the clock of file timestamps */
        if (gc->unprotected)
                record_known(gc);
        gc->logs = logs >= 0 && gc->walk ? sys_dup_cloexec(logs, 3) : -1;
        if (gc->logs >= 0) {
                git_journal_open(gc);
                git_journal_take_over_dead(gc);
        }
        *ret = gc;
        return 0;
}

void git_check_search_all(git_check *gc)
{
        gc->done = true;
        search(gc);
        if (gc->partial) /* quietly: a large workspace would say it every run */
                check_gitlinks(gc);
        git_journals_close(gc);
}

void git_check_finish(git_check *gc)
{
        if (gc && !gc->done)
                git_check_search_all(gc);
}

const char *git_check_journal_name(const git_check *gc) { return gc && gc->journal >= 0 ? gc->name : ""; }

json_t *git_check_json(const git_check *gc)
{
        json_t *o = json_object(), *aside = json_array(), *not = json_array();
        bool ok = json_put(o, "set_aside", aside) && json_put(o, "not_set_aside", not);
        for (size_t i = 0; ok && gc && gc->set_aside && gc->set_aside[i]; i++)
                ok = json_array_append_new(aside, json_text(gc->set_aside[i])) == 0;
        for (size_t i = 0; ok && gc && gc->not_set_aside && gc->not_set_aside[i]; i++)
                ok = json_array_append_new(not, json_text(gc->not_set_aside[i])) == 0;
        ok = ok && json_put(o, "searched_all", json_boolean(!(gc && gc->partial)));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

char *const *git_check_not_set_aside(const git_check *gc) { return gc ? gc->not_set_aside : NULL; }

git_check *git_check_free(git_check *gc)
{
        if (!gc)
                return NULL;
        free(gc->known);
        free(gc->kept);
        strv_free(gc->walk);
        strv_free(gc->worktrees);
        strv_free(gc->writable);
        strv_free(gc->configs);
        free(gc->home);
        strv_free(gc->set_aside);
        strv_free(gc->not_set_aside);
        git_journals_close(gc); /* no check: the command never ran */
        if (gc->logs >= 0)
                close(gc->logs);
        strv_free(gc->dead);
        free(gc->dirbuf);
        git_globals_free(gc->globals);
        free(gc);
        return NULL;
}
