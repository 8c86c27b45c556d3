/* SPDX-License-Identifier: MIT */
#include "env.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Codex's three (KEY, SECRET, TOKEN anywhere in the name), and cordon's
 * addition: PASSWORD, PASSWD, CREDENTIAL, PRIVATE anywhere, and a name
 * ending in _PAT (a personal access token: GH_PAT). Any case. */
static bool is_default_excluded(const char *name, const void *arg)
{
        static const char *const PARTS[] = {"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE"};
        (void)arg;
        for (size_t i = 0; i < sizeof(PARTS) / sizeof(PARTS[0]); i++)
                if (str_contains_casefold(name, PARTS[i]))
                        return true;
        return fnmatch_casefold("*_PAT", name) == 0;
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

/* The network "proxy": the variables that point clients at cordon's proxy
 * (which win over the policy: the old values would lead nowhere), and the
 * marker. "@P" in a value is the proxy's port (PROXY_PORT, or the one the
 * landlock backend's kernel chose: env_with_proxy_port). Git, Go, curl and
 * Python read the http(s)_proxy ones themselves; the rest are the knobs of
 * the runtimes that read none of those (docs/network.md, per runtime). */
#define PX "http://" PROXY_HOST ":@P"
/* ssh has no proxy variable: a ProxyCommand through the proxy's CONNECT.
 * bash's /dev/tcp (no binary of cordon's needs to be in the view): "bash -c
 * "$CORDON_PROXY_CONNECT" connect HOST PORT" joins its stdin and stdout to
 * HOST:PORT, or prints the proxy's refusal and fails. */
#define CONNECT_SCRIPT                                                                                    \
        "case $1 in *:*) h=\"[$1]\";; *) h=$1;; esac; exec 3<>/dev/tcp/" PROXY_HOST "/@P || exit 1; "    \
        "printf 'CONNECT %s:%s HTTP/1.1\\r\\nHost: %s:%s\\r\\n\\r\\n' \"$h\" \"$2\" \"$h\" \"$2\" >&3; "   \
        "read -r v s r <&3; while read -r l <&3 && [ -n \"${l%$'\\r'}\" ]; do :; done; "                  \
        "[ \"$s\" = 200 ] || { cat <&3 >&2; exit 1; }; cat <&3 & exec cat >&3"
typedef struct proxy_var {
        const char *name, *value;
        bool append; /* to a value the policy gave, after a space (the last property wins) */
} proxy_var;
static const proxy_var PROXY_VARS[] = {
        {"HTTP_PROXY", PX, false},
        {"HTTPS_PROXY", PX, false},
        {"http_proxy", PX, false},
        {"https_proxy", PX, false},
        {"ALL_PROXY", "socks5h://" PROXY_HOST ":@P", false},
        {"all_proxy", "socks5h://" PROXY_HOST ":@P", false},
        {"NO_PROXY", "localhost,127.0.0.1,::1", false},
        {"no_proxy", "localhost,127.0.0.1,::1", false},
        {"npm_config_proxy", PX, false}, /* npm, pnpm, yarn 1 */
        {"npm_config_https_proxy", PX, false},
        {"YARN_HTTP_PROXY", PX, false}, /* yarn 2+ */
        {"YARN_HTTPS_PROXY", PX, false},
        {"PIP_PROXY", PX, false},
        {"CARGO_HTTP_PROXY", PX, false},
        /* Node >= 22.21 and 24: fetch, http and https read the variables above */
        {"NODE_USE_ENV_PROXY", "1", false},
        /* every JVM (HttpClient, URLConnection, Gradle): loopback stays direct,
         * as NO_PROXY says (the allowlist's loopback entries are forwarded) */
        {"JAVA_TOOL_OPTIONS",
         "-Dhttp.proxyHost=" PROXY_HOST " -Dhttp.proxyPort=@P -Dhttps.proxyHost=" PROXY_HOST
         " -Dhttps.proxyPort=@P -Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]",
         true},
        {"CORDON_PROXY_CONNECT", CONNECT_SCRIPT, false},
        /* git over ssh; a plain ssh takes the same -o (docs/network.md) */
        {"GIT_SSH_COMMAND", "ssh -o \"ProxyCommand=bash -c \\\"\\$CORDON_PROXY_CONNECT\\\" connect %h %p\"", false},
        {"CORDON_SANDBOX_NETWORK", "proxy", false},
};

/* |value| with each "@P" the decimal |port|. Caller frees; NULL: ENOMEM. */
static char *with_port(const char *value, unsigned port)
{
        char num[16];
        int digits = snprintf(num, sizeof(num), "%u", port);
        size_t n = 0;
        for (const char *c = value; (c = strstr(c, "@P")); c += 2)
                n++;
        char *out = malloc(strlen(value) + n * (size_t)digits + 1), *o = out;
        for (const char *c = value; out && *c;) {
                if (c[0] == '@' && c[1] == 'P') {
                        memcpy(o, num, (size_t)digits);
                        o += digits;
                        c += 2;
                } else {
                        *o++ = *c++;
                }
        }
        if (out)
                *o = '\0';
        return out;
}

static int env_proxy(char ***env)
{
        for (size_t i = 0; i < ARRAY_SIZE(PROXY_VARS); i++) {
                _cleanup_free_ char *v = with_port(PROXY_VARS[i].value, PROXY_PORT);
                const char *old = PROXY_VARS[i].append ? env_get(*env, PROXY_VARS[i].name) : NULL;
                _cleanup_free_ char *joined = v && old && *old ? xasprintf("%s %s", old, v) : NULL;
                if (!v || (old && *old && !joined) || env_set(env, PROXY_VARS[i].name, joined ? joined : v) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* |entry| ("NAME=VALUE") with the proxy's port |port| where env_proxy
 * put PROXY_PORT; NULL when it holds none of cordon's (|*ret_oom|: out of
 * memory). */
static char *proxy_var_with_port(const char *entry, unsigned port, bool *ret_oom)
{
        size_t n = name_len(entry);
        *ret_oom = false;
        for (size_t i = 0; i < ARRAY_SIZE(PROXY_VARS); i++) {
                const proxy_var *v = &PROXY_VARS[i];
                if (strlen(v->name) != n || strncmp(entry, v->name, n) != 0 || !strstr(v->value, "@P"))
                        continue;
                _cleanup_free_ char *at = with_port(v->value, PROXY_PORT), *to = with_port(v->value, port);
                if (!at || !to) {
                        *ret_oom = true;
                        return NULL;
                }
                const char *val = entry + n + (entry[n] == '=');
                size_t lv = strlen(val), la = strlen(at);
                /* ours, or (appended) the policy's value, a space, ours */
                bool whole = streq(val, at);
                if (!whole && !(v->append && lv > la && val[lv - la - 1] == ' ' && streq(val + lv - la, at)))
                        return NULL;
                char *r = xasprintf("%.*s=%.*s%s", (int)n, entry, (int)(lv - la), val, to);
                *ret_oom = r == NULL;
                return r;
        }
        return NULL;
}

char **env_with_proxy_port(const char *const *env, unsigned port)
{
        _cleanup_strv_ char **out = calloc(strv_len((char *const *)env) + 1, sizeof(char *));
        for (size_t i = 0; out && env && env[i]; i++) {
                bool oom = false;
                out[i] = proxy_var_with_port(env[i], port, &oom);
                if (!out[i] && !oom)
                        out[i] = strdup(env[i]);
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
