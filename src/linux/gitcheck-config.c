/* SPDX-License-Identifier: MIT */
/* What a repository's config makes git read or run from elsewhere
 * (gitmodel.h's git_config_paths): the files it includes (include.path,
 * includeIf.*.path, to git's depth of 10), its hooks directory
 * (core.hooksPath), the programs its keys name (core.fsmonitor,
 * core.pager, alias.X = !...), the attributes file that picks drivers.
 * Read from the repository's config (its common directory's) and
 * config.worktree and from the user's own (the plan's git_configs), after
 * the run; each such path inside a writable mount that the run made or
 * changed is set aside (a link on the way that the run made: the link).
 * The plan keeps the same paths read-only where it can (plan-git.c);
 * this covers the rest: the landlock backend, the repositories the plan
 * did not search, what was made in the run. */
#include "gitcheck-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "gitmodel.h"
#include "sys.h"

#define INCLUDE_DEPTH 10 /* git's MAX_INCLUDE_DEPTH */
#define LINKS_MAX     40
#define FILES_MAX     64 /* config files of the user's own read, with what they include */

/* A config file's text and directory. */
typedef struct config_text {
        char *dir, *text;
        size_t len;
} config_text;

struct git_globals {
        config_text v[FILES_MAX];
        size_t n;
        bool read;
};

void git_globals_free(struct git_globals *g)
{
        for (size_t i = 0; g && i < g->n; i++) {
                free(g->v[i].dir);
                free(g->v[i].text);
        }
        free(g);
}

static bool inside_writable(const git_check *gc, const char *path)
{
        for (size_t i = 0; gc->writable && gc->writable[i]; i++)
                if (path_startswith(path, gc->writable[i]))
                        return true;
        return false;
}

/* ---- the paths ------------------------------------------------------------------------- */

/* Set aside |path| (lexical, absolute) when it lies in a writable mount
 * and the run made or changed it, or a link on the way to it that the
 * run made; a link it did not make is followed by its text, part by part
 * (git follows it; nothing is opened through it). Before the run
 * (landlock), how new it is is noted instead. */
static void check_path(git_check *gc, const char *path, int links, bool touched)
{
        const char *root = NULL;
        for (size_t i = 0; gc->writable && gc->writable[i]; i++)
                if (path_startswith(path, gc->writable[i]) && (!root || strlen(gc->writable[i]) > strlen(root)))
                        root = gc->writable[i];
        if (!root || streq(path, root) || links > LINKS_MAX)
                return;
        int dfd = sys_open_nofollow(root, O_RDONLY | O_DIRECTORY);
        _cleanup_free_ char *at = strdup(root);
        bool moved = touched; /* a directory on the way made, moved in or changed in the run */
        for (const char *c = path_skip_prefix(path, root); dfd >= 0 && at && *c;) {
                while (*c == '/')
                        c++;
                size_t n = strcspn(c, "/");
                _cleanup_free_ char *part = strndup(c, n);
                c += n;
                while (*c == '/')
                        c++;
                struct stat st;
                if (!part || n > NAME_MAX || fstatat(dfd, part, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        break;
                if (S_ISLNK(st.st_mode)) {
                        if (gc->recording || !git_changed(gc, &st)) {
                                char text[PATH_MAX];
                                ssize_t k = readlinkat(dfd, part, text, sizeof(text) - 1);
                                text[k > 0 ? k : 0] = '\0';
                                _cleanup_free_ char *rel = k <= 0 ? NULL : *c ? path_join(text, c) : strdup(text);
                                _cleanup_free_ char *next = rel ? git_expand_path(rel, at, NULL) : NULL;
                                if (next)
                                        check_path(gc, next, links + 1, touched);
                        } else {
                                git_set_aside(gc, dfd, part, at); /* made in the run */
                        }
                        break;
                }
                if (!*c) { /* the path itself */
                        if (gc->recording) {
                                if (git_not_before(&st.st_ctim, &gc->newest))
                                        gc->newest = st.st_ctim;
                                if (S_ISDIR(st.st_mode))
                                        git_tree_note(dfd, part, &gc->newest);
                        } else if (moved || git_changed(gc, &st) ||
                                   (S_ISDIR(st.st_mode) && git_tree_changed(gc, dfd, part))) {
                                git_set_aside(gc, dfd, part, at);
                        }
                        break;
                }
                if (!S_ISDIR(st.st_mode))
                        break;
                moved |= git_changed(gc, &st);
                int sub = openat(dfd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                close(dfd);
                dfd = sub;
                char *next_at = path_join(at, part);
                free(at);
                at = next_at;
        }
        if (dfd >= 0)
                close(dfd);
}

/* ---- reading configs ------------------------------------------------------------------ */

/* The config file |path|: inside a writable mount opened through no link
 * (the command may have put one there), elsewhere as git opens it. */
static char *read_config_path(const git_check *gc, const char *path, size_t *len)
{
        int fd = inside_writable(gc, path) ? sys_open_nofollow(path, O_RDONLY | O_NONBLOCK)
                                           : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        char *text = git_read_small(fd, "", CONFIG_MAX, len);
        close(fd);
        return text;
}

typedef struct named_walk {
        git_check *gc;
        git_config_origin o;
        int depth;
        bool touched; /* the git directory was made or changed in the run: whatever it names counts as made */
        struct git_globals *collect; /* reading the user's own: keep each text */
} named_walk;

static void walk_config(named_walk *w, char *text, size_t len, const char *dir);

static void on_path(git_key_kind kind, const char *path, void *userdata)
{
        named_walk *w = userdata;
        check_path(w->gc, path, 0, w->touched);
        if (kind != GIT_KEY_INCLUDE || w->depth >= INCLUDE_DEPTH)
                return;
        size_t len = 0;
        char *text = read_config_path(w->gc, path, &len);
        _cleanup_free_ char *dir = path_dirname(path);
        if (!text || !dir) {
                free(text);
                return;
        }
        named_walk inner = *w;
        inner.depth++;
        walk_config(&inner, text, len, dir);
}

/* The paths |text| names (and, in turn, what it includes); takes |text|. */
static void walk_config(named_walk *w, char *text, size_t len, const char *dir)
{
        w->o.file_dir = dir;
        git_config_paths(text, len, &w->o, on_path, w);
        struct git_globals *g = w->collect;
        if (g && g->n < FILES_MAX && (g->v[g->n].dir = strdup(dir))) {
                g->v[g->n].text = text;
                g->v[g->n++].len = len;
                return;
        }
        free(text);
}

/* The user's own config files (the plan's git_configs) and what they
 * include, read once a check; where one lies in a writable mount, it is
 * checked as a path too. */
static struct git_globals *globals(git_check *gc)
{
        if (!gc->globals && !(gc->globals = calloc(1, sizeof(*gc->globals))))
                return NULL;
        named_walk w = {gc, {.home = gc->home}, 0, false, gc->globals};
        for (size_t i = 0; !gc->globals->read && gc->configs && gc->configs[i]; i++) {
                size_t len = 0;
                char *text = read_config_path(gc, gc->configs[i], &len);
                _cleanup_free_ char *dir = path_dirname(gc->configs[i]);
                check_path(gc, gc->configs[i], 0, false);
                if (text && dir)
                        walk_config(&w, text, len, dir);
                else
                        free(text);
        }
        gc->globals->read = true;
        return gc->globals;
}

/* The config |name| of the git directory |dfd| (|dir| on the host). */
static void walk_config_at(named_walk *w, int dfd, const char *name, const char *dir)
{
        size_t len = 0;
        char *text = git_read_small(dfd, name, CONFIG_MAX, &len);
        if (text)
                walk_config(w, text, len, dir);
}

void git_check_named(git_check *gc, int gfd, const char *path, const char *worktree, bool touched)
{
        struct git_globals *g = globals(gc);
        named_walk w = {gc, {.worktree = worktree, .gitdir = path, .home = gc->home}, 0, touched, NULL};
        for (size_t i = 0; g && i < g->n; i++) { /* their includes are among them */
                w.o.file_dir = g->v[i].dir;
                w.depth = INCLUDE_DEPTH;
                git_config_paths(g->v[i].text, g->v[i].len, &w.o, on_path, &w);
        }
        w.depth = 0;
        /* the common directory's config, when commondir names one */
        size_t len = 0;
        _cleanup_free_ char *common = git_read_small(gfd, "commondir", POINTER_MAX, &len);
        if (common) {
                common[strcspn(common, "\r\n")] = '\0';
                _cleanup_free_ char *c = common[0] ? git_expand_path(common, path, NULL) : NULL;
                int cfd = c ? sys_open_nofollow(c, O_RDONLY | O_DIRECTORY) : -1;
                if (cfd >= 0) {
                        walk_config_at(&w, cfd, "config", c);
                        close(cfd);
                }
        } else {
                walk_config_at(&w, gfd, "config", path);
        }
        walk_config_at(&w, gfd, "config.worktree", path);
}
