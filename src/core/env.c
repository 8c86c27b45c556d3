/* SPDX-License-Identifier: MIT */
#include "env.h"

#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <strings.h>

#include "net/proxy.h"

/* Codex's core, plus the locale and the terminal: never secrets, and
 * without them programs change results silently (wc -m counts bytes). */
const char *const ENV_CORE_NAMES[] = {"HOME",    "LOGNAME", "PATH",     "SHELL",     "USER",
                                      "USERNAME", "TMPDIR",  "TEMP",     "TMP",       "LANG",
                                      "LANGUAGE", "TERM",    "COLORTERM", "TZ",       "NO_COLOR",
                                      NULL};
/* ... and every LC_* category (LC_ALL, LC_CTYPE, ...). */
#define ENV_CORE_PREFIX "LC_"

/* Length of the name part of "NAME=VALUE". */
static size_t name_len(const char *entry)
{
        const char *eq = strchr(entry, '=');
        return eq ? (size_t)(eq - entry) : strlen(entry);
}

static ssize_t env_find(char *const *env, const char *name, size_t len)
{
        for (size_t i = 0; env && env[i]; i++)
                if (name_len(env[i]) == len && strncmp(env[i], name, len) == 0)
                        return (ssize_t)i;
        return -1;
}

const char *env_get(char *const *env, const char *name)
{
        ssize_t i = env ? env_find(env, name, strlen(name)) : -1;
        return env && i >= 0 ? env[i] + strlen(name) + 1 : NULL;
}

int env_set(char ***env, const char *name, const char *value)
{
        char *entry = strjoin3(name, "=", value);
        if (!entry)
                return -ENOMEM;
        ssize_t i = env_find(*env, name, strlen(name));
        if (*env && i >= 0) {
                free((*env)[i]);
                (*env)[i] = entry;
                return 0;
        }
        return strv_consume(env, entry);
}

/* Removes every entry whose name satisfies |drop|. */
static void env_filter(char **env, bool (*drop)(const char *name, const void *arg), const void *arg)
{
        size_t o = 0;
        for (size_t i = 0; env && env[i]; i++) {
                _cleanup_free_ char *name = strndup(env[i], name_len(env[i]));
                if (name && drop(name, arg)) {
                        free(env[i]);
                        continue;
                }
                env[o++] = env[i];
        }
        if (env)
                env[o] = NULL;
}

static bool is_default_excluded(const char *name, const void *arg)
{
        (void)arg;
        return str_contains_casefold(name, "KEY") || str_contains_casefold(name, "SECRET") ||
               str_contains_casefold(name, "TOKEN");
}

static bool matches_any(const char *name, char *const *globs)
{
        for (size_t i = 0; globs && globs[i]; i++)
                if (fnmatch_casefold(globs[i], name) == 0)
                        return true;
        return false;
}

static bool matches_arg(const char *name, const void *arg) { return matches_any(name, (char *const *)arg); }
static bool not_matches_arg(const char *name, const void *arg) { return !matches_any(name, (char *const *)arg); }

static bool name_in(const char *entry, size_t len, const char *const *names, bool casefold)
{
        for (size_t k = 0; names && names[k]; k++)
                if (strlen(names[k]) == len &&
                    (casefold ? strncasecmp(entry, names[k], len) : strncmp(entry, names[k], len)) == 0)
                        return true;
        return false;
}

static bool is_core(const char *entry, size_t len, const env_input *in)
{
        if (name_in(entry, len, ENV_CORE_NAMES, in->names_casefold) ||
            name_in(entry, len, in->core_extra, in->names_casefold))
                return true;
        return len > strlen(ENV_CORE_PREFIX) && strncmp(entry, ENV_CORE_PREFIX, strlen(ENV_CORE_PREFIX)) == 0;
}

/* Step 1: the starting template. */
static int env_inherit(cordon_inherit inherit, const env_input *in, char ***ret)
{
        const char *const *base = in->base;
        char **env = calloc(1, sizeof(char *));
        if (!env)
                return -ENOMEM;
        for (size_t i = 0; inherit != CORDON_INHERIT_NONE && base && base[i]; i++) {
                size_t len = name_len(base[i]);
                if (!strchr(base[i], '=') || len == 0)
                        continue; /* not NAME=VALUE: never passed on */
                bool keep = inherit == CORDON_INHERIT_ALL || is_core(base[i], len, in);
                if (!keep || env_find(env, base[i], len) >= 0)
                        continue; /* the first of duplicate names wins, as getenv(3) sees it */
                if (strv_push(&env, base[i]) < 0)
                        return -ENOMEM;
        }
        *ret = env;
        return 0;
}

static int env_redirect(char ***env, const char *root)
{
        static const struct {
                const char *name, *dir;
        } R[] = {
                {"HOME", "home"},           {"TMPDIR", "tmp"},          {"XDG_CONFIG_HOME", "config"},
                {"XDG_CACHE_HOME", "cache"}, {"XDG_STATE_HOME", "state"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(R); i++) {
                _cleanup_free_ char *p = xasprintf("%s/runtime-user-env/%s", root, R[i].dir);
                if (!p || env_set(env, R[i].name, p) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* A set value "~/x" is x in the caller's real home, "$NAME/x" x in that
 * variable of the command's environment ($HOME/.cargo: in the instance). One
 * that cannot be expanded is left as written. */
static int env_expand_set(char ***env, const cordon_config *c, const char *home)
{
        for (size_t i = 0; i < c->n_set; i++) {
                const char *v = c->set[i].value;
                if ((v[0] != '~' && v[0] != '$') || !env_get(*env, c->set[i].name))
                        continue; /* not a path to expand, or dropped by include_only */
                _cleanup_free_ char *x = config_path_expand(v, home, *env);
                if (!x && errno == ENOMEM)
                        return -ENOMEM;
                if (x && env_set(env, c->set[i].name, x) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Sort by name, not by "NAME=VALUE" ('=' sorts after digits). */
static int cmp_by_name(const void *a, const void *b)
{
        const char *x = *(char *const *)a, *y = *(char *const *)b;
        size_t lx = name_len(x), ly = name_len(y);
        int r = strncmp(x, y, lx < ly ? lx : ly);
        return r ? r : (lx > ly) - (lx < ly);
}

static bool is_network_marker(const char *name, const void *arg)
{
        (void)arg;
        size_t n = name_len(name);
        return (n == 22 && strncmp(name, "CORDON_SANDBOX_NETWORK", n) == 0) ||
               (n == 31 && strncmp(name, "CORDON_SANDBOX_NETWORK_DISABLED", n) == 0);
}

/* The network "proxy": the variables that point HTTP clients and package
 * managers at cordon's proxy (which wins over the policy: the old values
 * would lead nowhere), and the marker. Git and Go read the lowercase and
 * uppercase http(s)_proxy themselves. */
static const char HTTP[] = "http://" PROXY_HOST ":" STR(PROXY_PORT);
static const char SOCKS[] = "socks5h://" PROXY_HOST ":" STR(PROXY_PORT);
static const char *const PROXY_VARS[][2] = {
                {"HTTP_PROXY", HTTP},          {"HTTPS_PROXY", HTTP},
                {"http_proxy", HTTP},          {"https_proxy", HTTP},
                {"ALL_PROXY", SOCKS},          {"all_proxy", SOCKS},
                {"NO_PROXY", "localhost,127.0.0.1,::1"},
                {"no_proxy", "localhost,127.0.0.1,::1"},
                {"npm_config_proxy", HTTP},    {"npm_config_https_proxy", HTTP}, /* npm, pnpm, yarn 1 */
                {"YARN_HTTP_PROXY", HTTP},     {"YARN_HTTPS_PROXY", HTTP},       /* yarn 2+ */
                {"PIP_PROXY", HTTP},           {"CARGO_HTTP_PROXY", HTTP},
                {"CORDON_SANDBOX_NETWORK", "proxy"},
};

static int env_proxy(char ***env)
{
        for (size_t i = 0; i < ARRAY_SIZE(PROXY_VARS); i++)
                if (env_set(env, PROXY_VARS[i][0], PROXY_VARS[i][1]) < 0)
                        return -ENOMEM;
        return 0;
}

/* The proxy variable |entry| names with its port, or NULL. */
static const char *proxy_var_value(const char *entry)
{
        size_t n = name_len(entry);
        for (size_t i = 0; i < ARRAY_SIZE(PROXY_VARS); i++)
                if (strlen(PROXY_VARS[i][0]) == n && strncmp(entry, PROXY_VARS[i][0], n) == 0 &&
                    strstr(PROXY_VARS[i][1], "://"))
                        return streq(entry + n + (entry[n] == '='), PROXY_VARS[i][1]) ? PROXY_VARS[i][1] : NULL;
        return NULL;
}

char **env_with_proxy_port(const char *const *env, unsigned port)
{
        _cleanup_strv_ char **out = calloc(strv_len((char *const *)env) + 1, sizeof(char *));
        for (size_t i = 0; out && env && env[i]; i++) {
                const char *v = proxy_var_value(env[i]);
                /* "scheme://127.0.0.1:" is the value up to its last colon */
                out[i] = v ? xasprintf("%.*s=%.*s%u", (int)name_len(env[i]), env[i],
                                       (int)(strrchr(v, ':') - v + 1), v, port)
                           : strdup(env[i]);
                if (!out[i])
                        return NULL;
        }
        return TAKE_PTR(out);
}

static bool is_set(const cordon_config *c, const env_input *in, const char *name)
{
        for (size_t i = 0; i < c->n_set; i++)
                if (streq(c->set[i].name, name))
                        return true;
        for (size_t i = 0; i < in->n_extra; i++)
                if (streq(in->extra[i].name, name))
                        return true;
        return false;
}

/* pass: each named variable of the launcher's environment, whatever
 * inherit and the filters dropped (the first of duplicates, as getenv(3)
 * sees it); a value of set or of the command's own wins. */
static int env_pass(char ***env, const cordon_config *c, const env_input *in)
{
        for (size_t k = 0; c->pass && c->pass[k]; k++) {
                const char *name = c->pass[k];
                size_t len = strlen(name);
                const char *const *base = in->base;
                size_t i = 0;
                while (base && base[i] &&
                       !(name_len(base[i]) == len && base[i][len] == '=' &&
                         (in->names_casefold ? strncasecmp(base[i], name, len) : strncmp(base[i], name, len)) == 0))
                        i++;
                if (!base || !base[i] || is_set(c, in, name))
                        continue;
                if (env_set(env, name, base[i] + len + 1) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int env_build(const cordon_config *c, const env_input *in, char ***ret)
{
        _cleanup_strv_ char **env = NULL;
        int r = env_inherit(c->inherit, in, &env);
        if (r < 0)
                return r;
        if (!c->ignore_default_excludes)
                env_filter(env, is_default_excluded, NULL);
        env_filter(env, matches_arg, c->exclude);
        for (size_t i = 0; i < c->n_set; i++)
                if (env_set(&env, c->set[i].name, c->set[i].value) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < in->n_extra; i++)
                if (env_set(&env, in->extra[i].name, in->extra[i].value) < 0)
                        return -ENOMEM;
        if (c->include_only && c->include_only[0])
                env_filter(env, not_matches_arg, c->include_only);
        if (env_pass(&env, c, in) < 0)
                return -ENOMEM;
        if (in->instance_root && env_redirect(&env, in->instance_root) < 0)
                return -ENOMEM;
        if (env_expand_set(&env, c, in->home) < 0)
                return -ENOMEM;
        if (in->backend) {
                if (env_set(&env, "CORDON_SANDBOX", in->backend) < 0)
                        return -ENOMEM;
                cordon_network net = config_effective_network(c);
                /* an outer sandbox's markers do not describe this one */
                env_filter(env, is_network_marker, NULL);
                if (net == CORDON_NETWORK_PROXY) {
                        if (env_proxy(&env) < 0)
                                return -ENOMEM;
                } else if (net != CORDON_NETWORK_FULL &&
                           env_set(&env, "CORDON_SANDBOX_NETWORK_DISABLED", "1") < 0)
                        return -ENOMEM;
        }
        qsort(env, strv_len(env), sizeof(char *), cmp_by_name);
        *ret = TAKE_PTR(env);
        return 0;
}
