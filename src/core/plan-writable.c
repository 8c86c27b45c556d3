/* SPDX-License-Identifier: MIT */
/* The instance root and the writable paths, checked before anything is
 * mounted: none of cordon's own state where the command can write, no
 * writable home nor instance root, no config file read from a path the run
 * makes writable; and the writable roots, resolved, that no later
 * resolution follows a link below. Reads the host, changes nothing. */
#include "plan-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

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

int plan_instance_layout(builder *b)
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
int plan_check_writable(builder *b)
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
                _cleanup_free_ char *source = source_expand(e->source, caller_home(b->h), b->h->environ);
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
int plan_check_config_files(builder *b)
{
        _cleanup_strv_ char **roots = NULL;
        int r = strv_push(&roots, b->p->instance_root);
        if (r == 0)
                r = strv_push(&roots, b->p->workspace);
        for (size_t i = 0; r == 0 && i < b->c->n_expose; i++)
                if (b->c->expose[i].writable) {
                        char *source = source_expand(b->c->expose[i].source, caller_home(b->h), b->h->environ);
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
int plan_writable_roots(builder *b)
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
                char *source = source_expand(b->c->expose[i].source, caller_home(b->h), b->h->environ);
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
