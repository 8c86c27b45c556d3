/* SPDX-License-Identifier: MIT */
/* Repositories inside the writable mounts and what protects them: the
 * control files git executes or reads to decide what to execute are bound
 * read-only (or get a placeholder), for every repository the search finds
 * (a .git directory, a gitfile's git directory, a bare repository, their
 * submodules and worktrees), and the config's own protect paths. Reads
 * the host, changes nothing. */
#include "plan-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "gitmodel.h"

/* What git executes, or reads to decide what to execute, from a git
 * directory is gitmodel.h's GIT_ENTRIES: those it marks |protect| are
 * read-only inside every writable mount (a missing one gets a placeholder
 * so that it cannot be created either); everything else git writes in
 * ordinary work (objects, refs, logs, index, HEAD, packed-refs, a
 * rebase's state) stays writable, and is checked after the run. So are
 * the files the repository's config and the user's own name inside a
 * writable mount (includes, core.hooksPath, the programs keys run). */
#define GIT_NESTING 32         /* modules/a/b/c/...: how deep git directories are searched (names hold '/') */
#define REPO_SCAN_DEPTH 2      /* repositories are looked for up to 2 directories below a writable mount */
#define REPO_SCAN_ENTRIES 4096 /* directory entries read for that, per plan */
#define CONFIG_READ_MAX ((size_t)1 << 20)
#define INCLUDE_DEPTH 10       /* git's MAX_INCLUDE_DEPTH */

/* lstat |rel| below the writable bind |rw| without following any link.
 * 0; -ENOENT with |*missing| = the length of |rel| up to its first missing
 * component; -ENOTDIR; -ELOOP for a link on the way or at the end
 * (h->writable->refused names it). */
static int lstat_below(builder *b, const plan_mount *rw, const char *rel, struct stat *st, size_t *missing)
{
        for (const char *c = rel;;) {
                while (*c == '/')
                        c++;
                const char *end = c + strcspn(c, "/");
                _cleanup_free_ char *part = strndup(rel, (size_t)(end - rel));
                _cleanup_free_ char *hp = part ? path_join(rw->source, part) : NULL;
                if (!hp)
                        return -ENOMEM;
                int r = host_lstat(b->h, hp, st);
                if (r == -ENOENT && missing)
                        *missing = (size_t)(end - rel);
                if (r < 0)
                        return r;
                if (S_ISLNK(st->st_mode))
                        return refuse_link(b->h, hp);
                if (!*end)
                        return 0;
                if (!S_ISDIR(st->st_mode))
                        return -ENOTDIR;
                c = end;
        }
}

static int protect_link_error(builder *b, const plan_mount *rw, const char *rel)
{
        _cleanup_free_ char *t = path_join(rw->target, rel);
        return link_error(b, "cannot protect", t ? t : rel,
                          "cordon will not run with a link there: remove it, or put the real file in its place");
}

/* Protect |rel| below the writable bind |rw|: bound read-only over itself
 * or, when missing, a placeholder at its first missing component (created
 * by cordon_start, removed afterwards) so that it cannot be created. */
static int protect_one(builder *b, const plan_mount *rw, const char *rel, bool want_dir, const char *content)
{
        struct stat st;
        size_t missing = 0;
        int r = lstat_below(b, rw, rel, &st, &missing);
        if (r == -ELOOP)
                return protect_link_error(b, rw, rel);
        if (r == -ENOTDIR)
                return 0; /* below a file: nothing can be created there */
        _cleanup_free_ char *part = strndup(rel, r == 0 ? strlen(rel) : missing);
        char *host = part ? path_join(rw->source, part) : NULL, *target = part ? path_join(rw->target, part) : NULL;
        if (!host || !target || (r < 0 && r != -ENOENT)) {
                free(host);
                free(target);
                return !host || !target ? -ENOMEM : r;
        }
        if (r == 0) {
                r = add_bind(b, host, target, false, ORIGIN_PROTECT, false);
                free(host);
                free(target);
                return r;
        }
        bool last = rel[missing] == '\0';
        char *text = last && content ? strdup(content) : NULL;
        if (last && content && !text) {
                free(host);
                free(target);
                return -ENOMEM;
        }
        return add_mount(b->p, (plan_mount){.type = MOUNT_BIND, .source = host, .target = target,
                                            .is_dir = last && want_dir, .missing = true, .untrusted = true,
                                            .content = text, .origin = ORIGIN_PROTECT});
}

/* Is the entry |e| of |d| a directory (a link is not)? The type readdir
 * gives where it has one (d_type is not POSIX), else lstat's. */
static bool entry_is_dir(DIR *d, const struct dirent *e)
{
        struct stat st;
#ifdef DT_UNKNOWN
        if (e->d_type != DT_UNKNOWN)
                return e->d_type == DT_DIR;
#endif
        return fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* The names of the subdirectories of |rel| below |rw| (read without
 * following links; a link among them is an error), sorted. */
static int list_subdirs(builder *b, const plan_mount *rw, const char *rel, char ***ret)
{
        _cleanup_free_ char *dir = path_join(rw->source, rel);
        _cleanup_free_ char *hp = dir ? host_path(b->h, dir) : NULL;
        *ret = NULL;
        if (!hp)
                return -ENOMEM;
        int fd = open_nofollow(hp, O_RDONLY | O_DIRECTORY);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return 0; /* unreadable: git cannot read it either */
        }
        int r = 0;
        for (struct dirent *e; r == 0 && (e = readdir(d)) && b->scan_budget > 0; b->scan_budget--) {
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (entry_is_dir(d, e))
                        r = strv_push(ret, e->d_name);
        }
        closedir(d);
        if (*ret)
                strv_sort(*ret);
        return r;
}

static int protect_gitdir(builder *b, const plan_mount *rw, const char *rel, int depth, bool pin,
                          const char *worktree);
static const plan_mount *writable_bind_of(const cordon_plan *p, const char *path);

/* ---- what a config names ------------------------------------------------------------------ */

/* A path a config names (gitmodel.h's git_config_paths), made read-only
 * when it lies below a writable mount: a file git includes as config,
 * the hooks directory, a program a key runs. One behind a link is left to
 * the check after the run (which follows the link's text). */
typedef struct named_walk {
        builder *b;
        git_config_origin o;
        int depth;
        int r;
} named_walk;

static void walk_config_text(named_walk *w, const char *text, size_t len, const char *dir);

/* |path| on the host, read whole (through no link when inside a writable
 * mount), or NULL. */
static char *read_config_file(builder *b, const char *path, size_t *len)
{
        _cleanup_free_ char *hp = host_path(b->h, path);
        int fd = !hp ? -1 : writable_root_of(b->h, path) ? open_nofollow(hp, O_RDONLY | O_NONBLOCK)
                                                          : open(hp, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        char *text = NULL;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= CONFIG_READ_MAX &&
            (text = malloc((size_t)st.st_size + 1))) {
                ssize_t n = read(fd, text, (size_t)st.st_size);
                *len = n > 0 ? (size_t)n : 0;
                text[*len] = '\0';
        }
        if (fd >= 0)
                close(fd);
        return text;
}

static void on_named(git_key_kind kind, const char *path, void *userdata)
{
        named_walk *w = userdata;
        const plan_mount *rw = w->r == 0 ? writable_bind_of(w->b->p, path) : NULL;
        const char *rel = rw ? path_skip_prefix(path, rw->source) : NULL;
        struct stat st;
        if (rel && rel[0] && lstat_below(w->b, rw, rel, &st, NULL) != -ELOOP) {
                plan_mount copy = *rw; /* protect_one adds mounts: |rw| may move */
                w->r = protect_one(w->b, &copy, rel, kind == GIT_KEY_HOOKS, NULL);
        } else if (rel && rel[0]) {
                w->b->p->git_named_open = true; /* behind a link: the check after the run looks */
        }
        if (kind != GIT_KEY_INCLUDE || w->depth >= INCLUDE_DEPTH || w->r < 0)
                return;
        size_t len = 0;
        _cleanup_free_ char *text = read_config_file(w->b, path, &len);
        _cleanup_free_ char *dir = text ? path_dirname(path) : NULL;
        if (dir) {
                named_walk inner = *w;
                inner.depth++;
                walk_config_text(&inner, text, len, dir);
                w->r = inner.r;
        }
}

static void walk_config_text(named_walk *w, const char *text, size_t len, const char *dir)
{
        w->o.file_dir = dir;
        git_config_paths(text, len, &w->o, on_named, w);
}

static int walk_config(named_walk *w, const char *path)
{
        size_t len = 0;
        _cleanup_free_ char *text = read_config_file(w->b, path, &len);
        _cleanup_free_ char *dir = text ? path_dirname(path) : NULL;
        if (dir)
                walk_config_text(w, text, len, dir);
        return w->r;
}

/* The work tree of the git directory |gitdir| (host path): the directory
 * of a ".git", else what its "gitdir" file or core.worktree says
 * (gitmodel.h), else NULL (a bare repository: its programs and hooks run
 * in the git directory). */
static char *worktree_of(builder *b, const char *gitdir)
{
        const char *base = strrchr(gitdir, '/');
        if (base && streq(base, "/.git"))
                return path_dirname(gitdir);
        _cleanup_free_ char *gf = path_join(gitdir, "gitdir"), *cf = path_join(gitdir, "config");
        size_t glen = 0, clen = 0;
        _cleanup_free_ char *g = gf ? read_config_file(b, gf, &glen) : NULL;
        _cleanup_free_ char *c = !g && cf ? read_config_file(b, cf, &clen) : NULL;
        return git_worktree_of(gitdir, g, glen, c, clen);
}

/* What the config of the git directory |gitdir| (host path; its common
 * directory's, when it has a commondir) and the user's own name, for that
 * repository, whose work tree is |worktree| (NULL: found as worktree_of
 * finds it). */
static int protect_named_by(builder *b, const char *gitdir, const char *worktree)
{
        _cleanup_free_ char *found = worktree ? NULL : worktree_of(b, gitdir);
        named_walk w = {b, {.worktree = worktree ? worktree : found, .home = b->p->git_home}, 0, 0};
        w.o.gitdir = w.o.worktree ? NULL : gitdir;
        for (size_t i = 0; w.r == 0 && b->p->git_configs && b->p->git_configs[i]; i++)
                walk_config(&w, b->p->git_configs[i]);
        _cleanup_free_ char *cd = path_join(gitdir, "commondir"), *wtconfig = path_join(gitdir, "config.worktree");
        size_t len = 0;
        _cleanup_free_ char *common = cd ? read_config_file(b, cd, &len) : NULL;
        if (common)
                common[strcspn(common, "\r\n")] = '\0';
        _cleanup_free_ char *cdir = common && common[0] ? git_expand_path(common, gitdir, NULL) : NULL;
        _cleanup_free_ char *config = path_join(cdir ? cdir : gitdir, "config");
        if (!config || !wtconfig)
                return -ENOMEM;
        if (w.r == 0)
                walk_config(&w, config);
        return w.r == 0 ? walk_config(&w, wtconfig) : w.r;
}

/* The user's own config files git reads for every repository
 * (config.c's do_git_config_sequence: the system one, the XDG one, the
 * global one, or the files GIT_CONFIG_SYSTEM and GIT_CONFIG_GLOBAL name),
 * for the check after the run; any of them inside a writable mount is
 * protected as what it includes is. */
static void count_path(git_key_kind kind, const char *path, void *userdata)
{
        (void)kind;
        (void)path;
        (*(size_t *)userdata)++;
}

/* Does the user's config |path| matter after the run: it lies in a
 * writable mount, or it names a path (relative ones are a repository's)? */
static bool user_config_names(builder *b, const char *path)
{
        if (writable_root_of(b->h, path))
                return true;
        size_t len = 0, n = 0;
        _cleanup_free_ char *text = read_config_file(b, path, &len);
        git_config_origin o = {.file_dir = "/", .worktree = "/", .home = "/"};
        if (text)
                git_config_paths(text, len, &o, count_path, &n);
        return n > 0;
}

static int note_user_configs(builder *b)
{
        const char *home = caller_home(b->h);
        const char *xdg = env_value(b->h->environ, "XDG_CONFIG_HOME");
        const char *sys = env_value(b->h->environ, "GIT_CONFIG_SYSTEM");
        const char *global = env_value(b->h->environ, "GIT_CONFIG_GLOBAL");
        char *list[5] = {
                strdup("/etc/gitconfig"),
                sys && sys[0] == '/' ? strdup(sys) : NULL,
                xdg && xdg[0] == '/' ? path_join(xdg, "git/config") : home ? path_join(home, ".config/git/config") : NULL,
                home ? path_join(home, ".gitconfig") : NULL,
                global && global[0] == '/' ? strdup(global) : NULL,
        };
        int r = home && !(b->p->git_home = strdup(home)) ? -ENOMEM : 0;
        /* only those that name something: the others need no second look */
        for (size_t i = 0; i < ARRAY_SIZE(list); i++)
                if (list[i] && r == 0 && user_config_names(b, list[i]))
                        r = strv_consume(&b->p->git_configs, TAKE_PTR(list[i]));
        for (size_t i = 0; i < ARRAY_SIZE(list); i++)
                free(list[i]);
        /* each, where one lies in a writable mount, and the absolute paths
         * they name (their relative ones are per repository) */
        named_walk w = {b, {.home = b->p->git_home}, 0, r};
        for (size_t i = 0; w.r == 0 && b->p->git_configs && b->p->git_configs[i]; i++) {
                on_named(GIT_KEY_FILE, b->p->git_configs[i], &w);
                if (w.r == 0)
                        walk_config(&w, b->p->git_configs[i]);
        }
        return w.r;
}

/* Control directories under |rel|/modules and |rel|/worktrees: a
 * directory with a HEAD is one; another (a submodule named "a/b") is
 * searched below. */
static int protect_nested_gitdirs(builder *b, const plan_mount *rw, const char *rel, int depth)
{
        static const char *const SUB[] = {"modules", "worktrees"};
        for (size_t i = 0; i < ARRAY_SIZE(SUB) && depth < GIT_NESTING; i++) {
                _cleanup_free_ char *sub = rel[0] ? path_join(rel, SUB[i]) : strdup(SUB[i]);
                _cleanup_strv_ char **names = NULL;
                int r = sub ? list_subdirs(b, rw, sub, &names) : -ENOMEM;
                for (size_t k = 0; r == 0 && names && names[k]; k++) {
                        _cleanup_free_ char *g = path_join(sub, names[k]);
                        _cleanup_free_ char *head = g ? path_join(g, "HEAD") : NULL;
                        struct stat st;
                        if (!head)
                                return -ENOMEM;
                        if (lstat_below(b, rw, head, &st, NULL) == 0)
                                r = protect_gitdir(b, rw, g, depth + 1, true, NULL);
                        else
                                r = protect_nested_gitdirs(b, rw, g, depth + 1);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Protect the control files of the git directory |rel| below |rw|. |pin|:
 * it is bound (writable) over itself, a mount point that the command can
 * neither rename nor replace. */
static int protect_gitdir(builder *b, const plan_mount *rw, const char *rel, int depth, bool pin,
                          const char *worktree)
{
        int r = 0;
        if (pin) {
                _cleanup_free_ char *h = path_join(rw->source, rel), *t = path_join(rw->target, rel);
                r = h && t ? add_bind(b, h, t, true, ORIGIN_PROTECT, false) : -ENOMEM;
        }
        for (size_t i = 0; r == 0 && i < GIT_N_ENTRIES; i++) {
                const git_entry *e = &GIT_ENTRIES[i];
                _cleanup_free_ char *c = !e->protect ? NULL : rel[0] ? path_join(rel, e->name) : strdup(e->name);
                r = !e->protect ? 0 : c ? protect_one(b, rw, c, e->dir, e->placeholder) : -ENOMEM;
        }
        _cleanup_free_ char *gitdir = r == 0 ? (rel[0] ? path_join(rw->source, rel) : strdup(rw->source)) : NULL;
        if (r == 0)
                r = gitdir ? protect_named_by(b, gitdir, worktree) : -ENOMEM;
        return r == 0 ? protect_nested_gitdirs(b, rw, rel, depth) : r;
}

/* "gitdir: PATH" of the gitfile |host|, as an absolute host path, or NULL. */
static char *gitfile_target(builder *b, const char *host)
{
        _cleanup_free_ char *hp = host_path(b->h, host);
        int fd = hp ? open_nofollow(hp, O_RDONLY | O_NOCTTY | O_NONBLOCK) : -1;
        char text[PATH_MAX + 16];
        ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
        if (fd >= 0)
                close(fd);
        if (n < 8 || strncmp(text, "gitdir: ", 8) != 0)
                return NULL;
        text[n] = '\0';
        text[8 + strcspn(text + 8, "\r\n")] = '\0';
        if (text[8] == '/')
                return strdup(text + 8);
        _cleanup_free_ char *dir = path_dirname(host);
        return dir ? path_join(dir, text + 8) : NULL;
}

/* The writable bind whose source holds the host path |path| (the deepest). */
static const plan_mount *writable_bind_of(const cordon_plan *p, const char *path)
{
        const plan_mount *best = NULL;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->type == MOUNT_BIND && m->writable && m->origin != ORIGIN_PROTECT &&
                    path_startswith(path, m->source) && (!best || strlen(m->source) > strlen(best->source)))
                        best = &p->mounts[i];
        }
        return best;
}

/* A gitfile (".git" holding "gitdir: PATH", a worktree or submodule
 * checkout) is read-only itself; a git directory it names inside a
 * writable mount is protected there. */
static int protect_gitfile(builder *b, const plan_mount *rw, const char *rel)
{
        _cleanup_free_ char *h = path_join(rw->source, rel), *t = path_join(rw->target, rel);
        int r = h && t ? add_bind(b, h, t, false, ORIGIN_PROTECT, false) : -ENOMEM;
        _cleanup_free_ char *target = r == 0 ? gitfile_target(b, h) : NULL;
        _cleanup_free_ char *norm = NULL, *real = NULL;
        if (!target || path_normalize(target, true, &norm) < 0)
                return r;
        int e = host_resolve(b->h, norm, false, &real);
        if (e == -ELOOP && b->h->writable->refused)
                return link_error(b, "cannot protect the git directory named by", h,
                                  "cordon will not run with a link there: remove it");
        const plan_mount *w = e == 0 ? writable_bind_of(b->p, real) : NULL;
        _cleanup_free_ char *worktree = path_dirname(h);
        if (!worktree)
                return -ENOMEM;
        if (!w) /* missing, or not writable in the sandbox: what its config names may be */
                return e == 0 ? protect_named_by(b, real, worktree) : 0;
        plan_mount copy = *w; /* protect_gitdir adds mounts: |w| may move */
        return protect_gitdir(b, &copy, path_skip_prefix(real, copy.source), 0, !streq(real, copy.source), worktree);
}

/* A bare repository at the top of a writable mount (HEAD, objects/, refs/). */
static bool is_bare_repository(builder *b, const plan_mount *rw)
{
        struct stat st;
        return lstat_below(b, rw, "HEAD", &st, NULL) == 0 && S_ISREG(st.st_mode) &&
               lstat_below(b, rw, "objects", &st, NULL) == 0 && S_ISDIR(st.st_mode) &&
               lstat_below(b, rw, "refs", &st, NULL) == 0 && S_ISDIR(st.st_mode);
}

/* Repositories at |rel| and up to |depth| directories below it. */
static int scan_repositories(builder *b, const plan_mount *rw, const char *rel, int depth)
{
        _cleanup_free_ char *git = rel[0] ? path_join(rel, ".git") : strdup(".git");
        struct stat st;
        int r = git ? lstat_below(b, rw, git, &st, NULL) : -ENOMEM;
        if (r == -ELOOP)
                return protect_link_error(b, rw, git);
        if (r == 0 && S_ISDIR(st.st_mode))
                r = protect_gitdir(b, rw, git, 0, true, NULL);
        else if (r == 0 && S_ISREG(st.st_mode))
                r = protect_gitfile(b, rw, git);
        else
                r = r == -ENOMEM ? r : 0;
        _cleanup_strv_ char **names = NULL;
        if (r == 0 && depth > 0)
                r = list_subdirs(b, rw, rel, &names);
        for (size_t i = 0; r == 0 && names && names[i]; i++) {
                if (streq(names[i], ".git"))
                        continue;
                _cleanup_free_ char *sub = rel[0] ? path_join(rel, names[i]) : strdup(names[i]);
                r = sub ? scan_repositories(b, rw, sub, depth - 1) : -ENOMEM;
        }
        return r;
}

static int protect_mount(builder *b, const plan_mount *rw)
{
        int r = 0;
        if (is_bare_repository(b, rw))
                r = protect_gitdir(b, rw, "", 0, false, NULL);
        /* below the instance root are the command's own files
         * (runtime-user-env) and the workspace, a writable mount of its own */
        if (r == 0)
                r = scan_repositories(b, rw, "", rw->origin == ORIGIN_INSTANCE ? 0 : REPO_SCAN_DEPTH);
        for (size_t i = 0; r == 0 && b->c->protect && b->c->protect[i]; i++) {
                const char *pt = b->c->protect[i];
                if (path_startswith(pt, rw->target) && !streq(pt, rw->target))
                        r = protect_one(b, rw, path_skip_prefix(pt, rw->target), false, NULL);
        }
        return r;
}

int plan_protect(builder *b)
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
        b->scan_budget = REPO_SCAN_ENTRIES;
        int e = note_user_configs(b);
        if (e < 0)
                return e;
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
        buf w = {0};
        for (size_t i = 0; i < p->n_mounts; i++) {
                plan_mount *m = &p->mounts[i];
                if (m->origin != ORIGIN_PROTECT) {
                        p->mounts[o++] = *m;
                        continue;
                }
                if (!m->missing && !m->writable)
                        buf_printf(&w, "%s%s", w.len ? ", " : "", m->target);
                plan_mount_clear(m);
        }
        p->n_mounts = o;
        char *text = w.len ? buf_steal(&w) : NULL;
        char *say = text ? xasprintf("the landlock backend cannot keep these read-only inside writable "
                                     "directories (the linux backend can; here git's config and hooks that "
                                     "the command changes are set aside after the run): %s",
                                     text)
                         : NULL;
        free(text);
        if (w.oom || (w.len && !say))
                return -ENOMEM;
        return say ? strv_consume(&p->notices, say) : 0;
}
