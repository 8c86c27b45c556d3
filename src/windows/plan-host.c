/* SPDX-License-Identifier: MIT */
/* The plan on a Windows host (the Windows build's plan_build; the core's
 * plan.c plans POSIX paths). The same neutral data: the instance and the
 * workspace read-write, the working directory and the executable's
 * directory read-only, the exposures, the environment policy, argv, limits,
 * network. Reads the file system (attributes only), changes nothing. */
#include <errno.h>
#include <string.h>
#include <windows.h>

#include "env.h"
#include "error.h"
#include "plan.h"
#include "windows/host.h"
#include "windows/launch.h"

#define ROOT_HINT "set --home or %CORDON_HOME% to an absolute path, or %USERPROFILE%"

static bool win_absolute(const char *p)
{
        bool drive = ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
                     (p[2] == '\\' || p[2] == '/');
        return drive || (p[0] == '\\' && p[1] == '\\');
}

static bool has_dotdot(const char *p)
{
        for (const char *s = p; (s = strstr(s, "..")); s += 2)
                if ((s == p || s[-1] == '\\' || s[-1] == '/') && (!s[2] || s[2] == '\\' || s[2] == '/'))
                        return true;
        return false;
}

static DWORD attributes(const char *path)
{
        _cleanup_free_ wchar_t *w = win_wide(path);
        return w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
}

static bool is_file(const char *path)
{
        DWORD a = attributes(path);
        return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

static int resolve_root(const cordon_config *c, char *const *env, char **ret, cordon_error **e)
{
        const char *home = env_get(env, "CORDON_HOME");
        const char *profile = env_get(env, "USERPROFILE");
        char *root = c->home && *c->home ? xstrdup(c->home)
                     : home && *home     ? xstrdup(home)
                     : profile && *profile ? win_path_join(profile, ".cordon")
                                         : NULL;
        if (!root)
                return error_set(e, EINVAL, "cannot find the instance root: %s", ROOT_HINT);
        if (!win_absolute(root) || has_dotdot(root)) {
                error_set(e, EINVAL, "the instance root \"%s\" is not an absolute path without \"..\": %s", root,
                          ROOT_HINT);
                free(root);
                return -EINVAL;
        }
        *ret = root;
        return 0;
}

/* argv[0] as CreateProcess would find it, but never in the current
 * directory (the workspace is the command's: a planted git.exe there must
 * not run): a path is taken as it is, a name is looked up in PATH, with
 * the extensions PATHEXT would add. */
static char *find_exe(const char *name, char *const *env)
{
        static const char *const EXTS[] = {"", ".exe", ".com", ".bat", ".cmd", NULL};
        const char *base = strrchr(name, '\\');
        base = base ? base + 1 : name;
        bool has_ext = strchr(base, '.') != NULL;
        bool is_path = strpbrk(name, "\\/:") != NULL;
        const char *path = is_path ? "" : env_get(env, "PATH");
        for (const char *d = path ? path : ""; d;) {
                const char *end = strchr(d, ';');
                size_t n = end ? (size_t)(end - d) : strlen(d);
                _cleanup_free_ char *dir = n ? xasprintf("%.*s", (int)n, d) : NULL;
                if (is_path || (dir && win_absolute(dir)))
                        for (size_t i = has_ext ? 0 : 1; EXTS[i]; i++) {
                                char *cand = is_path ? xasprintf("%s%s", name, EXTS[i])
                                                     : xasprintf("%s\\%s%s", dir, name, EXTS[i]);
                                if (cand && is_file(cand))
                                        return cand;
                                free(cand);
                        }
                if (is_path)
                        break;
                d = end ? end + 1 : NULL;
        }
        return NULL;
}

static int add_path(cordon_plan *p, const char *path, bool writable, mount_origin origin)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (streq(p->mounts[i].source, path) && (p->mounts[i].writable || !writable))
                        return 0;
        plan_mount *v = realloc(p->mounts, (p->n_mounts + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        p->mounts = v;
        char *s = xstrdup(path), *t = xstrdup(path);
        if (!s || !t) {
                free(s);
                free(t);
                return -ENOMEM;
        }
        v[p->n_mounts++] = (plan_mount){.type = MOUNT_BIND, .source = s, .target = t, .writable = writable,
                                        .is_dir = true, .origin = origin};
        return 0;
}

static char *dir_of(const char *path)
{
        const char *s = strrchr(path, '\\');
        const char *f = strrchr(path, '/');
        if (f > s)
                s = f;
        return s ? xasprintf("%.*s", (int)(s - path), path) : NULL;
}

static int plan_paths(const cordon_config *c, cordon_plan *p, cordon_error **e)
{
        int r = add_path(p, p->instance_root, true, ORIGIN_INSTANCE);
        if (r == 0 && p->workspace)
                r = add_path(p, p->workspace, true, ORIGIN_WORKSPACE);
        for (size_t i = 0; r == 0 && i < c->n_expose; i++) {
                const expose_rule *x = &c->expose[i];
                if (!streq(x->source, x->target))
                        return error_set(e, EINVAL, "expose %s -> %s: the windows backend cannot remap paths (Windows "
                                                    "has no per-process view of the file system); use the same target",
                                         x->source, x->target);
                r = add_path(p, x->source, x->writable, ORIGIN_EXPOSE);
        }
        _cleanup_free_ char *exe_dir = p->exe ? dir_of(p->exe) : NULL;
        if (r == 0 && exe_dir)
                r = add_path(p, exe_dir, false, ORIGIN_EXE);
        if (r == 0 && p->cwd)
                r = add_path(p, p->cwd, false, ORIGIN_CWD);
        return r < 0 ? error_set(e, -r, "out of memory") : 0;
}

static int plan_backend(const cordon_config *c, cordon_plan *p, cordon_error **e)
{
        if (!c->enabled)
                p->backend = BACKEND_NONE;
        else if (streq(c->backend, "auto") || streq(c->backend, "windows"))
                p->backend = BACKEND_WINDOWS;
        else
                return error_set(e, ENOTSUP, "the \"%s\" backend does not run on Windows: use \"windows\" (or auto)",
                                 c->backend);
        if (c->disabled_by && !(p->disabled_by = xstrdup(c->disabled_by)))
                return error_set(e, ENOMEM, "out of memory");
        return 0;
}

static int plan_command(const cordon_command *cmd, cordon_plan *p, const host_info *h, cordon_error **e)
{
        p->cwd = xstrdup(cmd && cmd->cwd ? cmd->cwd : h->cwd);
        p->host_cwd = xstrdup(p->cwd);
        if (!cmd)
                return 0;
        if (!(p->argv = strv_copy((const char *const *)cmd->argv)))
                return error_set(e, ENOMEM, "out of memory");
        p->exe = find_exe(cmd->argv[0], p->env);
        if (!p->exe) {
                int r = error_set(e, ENOENT, "%s: command not found (in PATH; the current directory is not searched)",
                                  cmd->argv[0]);
                if (e && *e)
                        (*e)->exit_status = 127;
                return r;
        }
        for (int i = 0; i < 3; i++)
                p->stdio[i] = cmd->stdio[i];
        return 0;
}

int plan_build(const cordon_config *c, const cordon_command *cmd, const host_info *h, cordon_plan **ret,
               cordon_error **ret_error)
{
        cordon_plan *p = calloc(1, sizeof(*p));
        if (!p)
                return error_set(ret_error, ENOMEM, "out of memory");
        for (int i = 0; i < 3; i++)
                p->stdio[i] = CORDON_STDIO_INHERIT;
        int r = plan_backend(c, p, ret_error);
        if (r == 0)
                r = resolve_root(c, h->environ, &p->instance_root, ret_error);
        if (r == 0 && !(p->workspace = c->workspace ? xstrdup(c->workspace)
                                                      : win_path_join(p->instance_root, "workspace")))
                r = error_set(ret_error, ENOMEM, "out of memory");
        if (r == 0) {
                env_input in = {.base = cmd && cmd->base_env ? (const char *const *)cmd->base_env
                                                              : (const char *const *)h->environ,
                                .extra = cmd ? cmd->extra_env : NULL,
                                .n_extra = cmd ? cmd->n_extra_env : 0,
                                .home = h->home,
                                .core_extra = WIN_ENV_CORE,
                                .names_casefold = true};
                /* the redirection and markers are Windows' own (envblock.c) */
                if (env_build(c, &in, &p->env) < 0)
                        r = error_set(ret_error, ENOMEM, "out of memory");
        }
        p->network = config_effective_network(c);
        if (r == 0 && p->backend != BACKEND_NONE) {
                /* the user environment in the instance, the markers: what
                 * `cordon env` and `cordon plan` show is what the command gets */
                win_env_input wi = {.instance_root = p->instance_root,
                                    .network_disabled = p->network != CORDON_NETWORK_FULL,
                                    .markers = true};
                char **env = NULL;
                if (win_env_build(p->env, &wi, &env) < 0)
                        r = error_set(ret_error, ENOMEM, "out of memory");
                strv_free(p->env);
                p->env = env;
        }
        if (r == 0)
                r = plan_command(cmd, p, h, ret_error);
        if (r == 0)
                r = plan_paths(c, p, ret_error);
        if (r < 0) {
                cordon_plan_free(p);
                return r;
        }
        memcpy(p->limits, c->limits, sizeof(p->limits));
        p->limits_best_effort = c->limits_best_effort;
        p->log_plan = c->log_plan;
        p->log_fn = c->log_fn;
        p->log_userdata = c->log_userdata;
        *ret = p;
        return 0;
}

int host_info_read(host_info *h, host_storage *s, char *const *env, cordon_error **ret_error)
{
        (void)env; /* the ANSI copy: the UTF-16 original is read instead */
        *s = (host_storage){0};
        *h = (host_info){.root = ""};
        wchar_t cwd[MAX_PATH * 4];
        DWORD n = GetCurrentDirectoryW(ARRAY_SIZE(cwd), cwd);
        s->cwd = n && n < ARRAY_SIZE(cwd) ? win_narrow(cwd) : NULL;
        s->env = win_host_environ();
        if (!s->cwd || !s->env) {
                host_info_free(s);
                return error_set(ret_error, ENOMEM, "cannot read the working directory or the environment");
        }
        const char *profile = env_get(s->env, "USERPROFILE");
        s->home = xstrdup(profile);
        h->cwd = s->cwd;
        h->home = s->home;
        h->environ = s->env;
        return 0;
}

void host_info_free(host_storage *s)
{
        free(s->cwd);
        free(s->home);
        strv_free(s->env);
        *s = (host_storage){0};
}
