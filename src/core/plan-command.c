/* SPDX-License-Identifier: MIT */
/* What the command needs to start, in the plan: its executable looked up
 * as execvp would inside the sandbox (and exposed, with a script's
 * interpreter, when the view lacks it), its working directory, the
 * absolute paths among its arguments. Reads the host, changes nothing. */
#include "plan-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "error.h"

/* Directories never exposed whole for an executable in them (the file alone is). */
static const char *const NEVER_AUTO_DIR[] = {"/etc", "/boot", "/var", NULL};

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

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

/* The caller's working directory |*real| (inherited, not asked for) is
 * |why| and not shown: the command starts in the workspace, and a note
 * says so with any failure (an MCP client starts its servers in $HOME). */
static int cwd_fallback(builder *b, char **real, const char *why)
{
        cordon_plan *p = b->p;
        char *ws = p->workspace ? host_to_sandbox(p, p->workspace) : NULL;
        _cleanup_free_ char *shown = str_escape(*real, false), *shown_ws = str_escape(p->workspace, false);
        char *note = ws && shown && shown_ws
                             ? xasprintf("the working directory %s is %s: the command started in the workspace %s "
                                         "instead (-C DIR, or --expose a directory that holds it)",
                                         shown, why, shown_ws)
                             : NULL;
        int r = ws && note ? plan_add_hint(p, note, CORDON_HINT_ANY_FAILURE) : -ENOMEM;
        if (!ws && note)
                free(note);
        char *host = r == 0 ? strdup(p->workspace) : NULL;
        if (!host) {
                free(ws);
                return -ENOMEM;
        }
        free(p->host_cwd);
        p->host_cwd = host;
        p->cwd = ws;
        free(*real);
        *real = NULL;
        return 0;
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
        /* the caller's own directory (an MCP client's $HOME itself, or one
         * auto_expose.cwd "off" leaves out): the workspace instead, with a
         * note; one asked for (-C), an ancestor of the home and the
         * sandbox's own /tmp stay errors (a binding's cwd= is the caller's
         * choice, and the bindings rely on them) */
        bool asked = b->cmd && b->cmd->cwd;
        if (mode == CORDON_EXPOSE_OFF)
                return asked ? error_set(b->err, EACCES,
                                         "the working directory %s is not visible in the sandbox and auto_expose.cwd "
                                         "is \"off\": %s",
                                         real, hint)
                             : cwd_fallback(b, &real, "not visible in the sandbox (auto_expose.cwd is \"off\")");
        const char *why = auto_expose_problem(b, real);
        _cleanup_free_ char *home = NULL;
        const char *h = caller_home(b->h);
        bool is_home = h && host_resolve(b->h, h, false, &home) == 0 && streq(home, real);
        if (why && (asked || !is_home))
                return error_set(b->err, EACCES,
                                 "the working directory %s is %s, which cordon never exposes automatically: %s", real,
                                 why, hint);
        if (why)
                return cwd_fallback(b, &real, why);
        /* the sandbox's own /tmp stays an error: a caller that starts a
         * command there (the bindings' cwd) means the host's */
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

int plan_command(builder *b)
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
