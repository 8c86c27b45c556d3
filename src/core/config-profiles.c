/* SPDX-License-Identifier: MIT */
/* Profiles: named config layers, NAME.json in the directories of the
 * profile search path; finding one, applying it, listing and describing
 * them (cordon profiles). isolation.profiles and cordon_config_add_profile
 * apply them. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-internal.h"
#include "env.h"
#include "error.h"

#ifndef CORDON_DATADIR
#define CORDON_DATADIR "/usr/local/share/cordon"
#endif
#define MAX_PROFILE_DEPTH 8

/* Is this program a file of the build tree it was built in (make, then
 * build/cordon)? Then the source tree's profiles are found too. */
static bool running_uninstalled(void)
{
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        size_t root = strlen(CORDON_BUILD_ROOT);
        if (n <= 0)
                return false;
        exe[n] = '\0';
        return (size_t)n > root && strncmp(exe, CORDON_BUILD_ROOT, root) == 0 && exe[root] == '/';
}

char **profile_search_path(char *const *env)
{
        _cleanup_strv_ char **dirs = calloc(1, sizeof(char *));
        const char *path = env_get(env, "CORDON_PROFILE_PATH");
        for (const char *p = path; dirs && p && *p;) {
                size_t n = strcspn(p, ":");
                if (n > 0 && p[0] == '/' && strv_consume(&dirs, strndup(p, n)) < 0)
                        return NULL;
                p += n + (p[n] == ':');
        }
        const char *xdg = env_get(env, "XDG_CONFIG_HOME"), *home = env_get(env, "HOME");
        char *user = xdg && xdg[0] == '/'   ? path_join(xdg, "cordon/profiles")
                     : home && home[0] == '/' ? path_join(home, ".config/cordon/profiles")
                                              : NULL;
        if (!dirs || (user && strv_consume(&dirs, user) < 0) || strv_push(&dirs, CORDON_DATADIR "/profiles") < 0 ||
            (running_uninstalled() && strv_push(&dirs, CORDON_SOURCE_PROFILES) < 0))
                return NULL;
        return TAKE_PTR(dirs);
}

static bool profile_name_valid(const char *name)
{
        return name && name[0] && name[0] != '.' &&
               strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(name);
}

/* The search path of |c| (a copy; caller frees), or NULL. */
char **config_profile_dirs(const cordon_config *c)
{
        return c->profile_dirs ? strv_copy((const char *const *)c->profile_dirs) : profile_search_path(environ);
}

/* The file of profile |name| in |dirs| (caller frees), or NULL. */
static char *profile_find(char *const *dirs, const char *name)
{
        for (size_t i = 0; dirs && dirs[i]; i++) {
                char *path = xasprintf("%s/%s.json", dirs[i], name);
                struct stat st;
                if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode))
                        return path;
                free(path);
        }
        return NULL;
}

/* Why profile |name| cannot be loaded (caller frees), or NULL with *ret_path set. */
char *profile_locate(const cordon_config *c, const char *name, char **ret_path)
{
        if (!profile_name_valid(name))
                return xasprintf("not a profile name: \"%s\" (letters, digits, \".\", \"_\" and \"-\")", name);
        if (c->profile_depth >= MAX_PROFILE_DEPTH)
                return xasprintf("profile \"%s\": profiles nest more than %d deep (a cycle?)", name,
                                 MAX_PROFILE_DEPTH);
        _cleanup_strv_ char **dirs = config_profile_dirs(c);
        *ret_path = profile_find(dirs, name);
        if (*ret_path)
                return NULL;
        _cleanup_free_ char *list = dirs ? strv_join(dirs, ", ") : NULL;
        return xasprintf("no profile \"%s\" (looked in %s; `cordon profiles` lists them)", name, list ? list : "?");
}

int profile_apply(cordon_config *c, const char *path, cordon_error **ret_error)
{
        c->profile_depth++;
        int r = cordon_config_load_file(c, path, ret_error);
        c->profile_depth--;
        return r;
}

/* The names of NAME.json files in |dir|, sorted. */
static char **profile_names(const char *dir)
{
        char **names = calloc(1, sizeof(char *));
        DIR *d = opendir(dir);
        for (struct dirent *e; names && d && (e = readdir(d));) {
                size_t n = strlen(e->d_name);
                if (n > 5 && streq(e->d_name + n - 5, ".json") && strv_consume(&names, strndup(e->d_name, n - 5)) < 0)
                        names = NULL;
        }
        if (d)
                closedir(d);
        if (names)
                strv_sort(names);
        return names;
}

/* One profile: its description, then what it exposes and sets. */
static void profile_describe(buf *b, const cordon_config *c, const char *name, const char *path)
{
        json_t *root = json_load_file(path, 0, NULL);
        json_t *desc = json_is_object(root) ? json_object_get(root, "description") : NULL;
        buf_printf(b, "%s (%s)\n", name, path);
        if (json_is_string(desc))
                buf_printf(b, "  %s\n", json_string_value(desc));
        json_decref(root);
        cordon_config *p = cordon_config_new();
        cordon_error *err = NULL;
        if (p && c->profile_dirs)
                p->profile_dirs = strv_copy((const char *const *)c->profile_dirs);
        if (!p || cordon_config_add_profile(p, name, &err) < 0) {
                buf_printf(b, "  error: %s\n", err ? cordon_error_message(err) : "out of memory");
        } else {
                for (size_t i = 0; i < p->n_expose; i++) {
                        const expose_rule *e = &p->expose[i];
                        buf_printf(b, "  expose %s", e->source);
                        if (!streq(e->source, e->target))
                                buf_printf(b, " -> %s", e->target);
                        buf_printf(b, " %s%s\n", e->writable ? "rw" : "ro", e->optional ? " (optional)" : "");
                }
                for (size_t i = 0; i < p->n_set; i++)
                        buf_printf(b, "  set %s=%s\n", p->set[i].name, p->set[i].value);
        }
        cordon_error_free(err);
        cordon_config_free(p);
}

char **config_profiles(const cordon_config *c)
{
        _cleanup_strv_ char **dirs = config_profile_dirs(c), **seen = calloc(1, sizeof(char *));
        for (size_t i = 0; dirs && seen && dirs[i]; i++) {
                _cleanup_strv_ char **names = profile_names(dirs[i]);
                for (size_t k = 0; names && names[k]; k++)
                        if (!strv_contains(seen, names[k]) && profile_name_valid(names[k]) &&
                            strv_push(&seen, names[k]) < 0)
                                return NULL;
        }
        return dirs ? TAKE_PTR(seen) : NULL;
}

int cordon_profiles_describe(const cordon_config *c, char **ret_text)
{
        _cleanup_strv_ char **dirs = config_profile_dirs(c), **seen = config_profiles(c);
        if (!dirs || !seen)
                return -ENOMEM;
        buf b = {0};
        for (size_t i = 0; seen[i]; i++) {
                _cleanup_free_ char *path = NULL;
                free(profile_locate(c, seen[i], &path)); /* why it is missing: shown as "?" */
                profile_describe(&b, c, seen[i], path ? path : "?");
        }
        if (!seen[0]) {
                _cleanup_free_ char *list = strv_join(dirs, ", ");
                buf_printf(&b, "no profiles (looked in %s)\n", list ? list : "?");
        }
        *ret_text = buf_steal(&b);
        return *ret_text ? 0 : -ENOMEM;
}
