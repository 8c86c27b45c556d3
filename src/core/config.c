/* SPDX-License-Identifier: MIT */
/* JSON layers and setters -> a validated struct cordon_config.
 *
 * Layering: each layer is applied to a copy of the current config, field by
 * field (a key present in the layer replaces the value; objects such as
 * auto_expose, limits and set merge key by key; arrays replace, except
 * expose_paths, merged by target). The copy replaces the config only when
 * the whole layer validated, so a bad layer changes nothing. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "error.h"
#include "net/allowlist.h"

static const char *const SECTIONS[] = {"isolation", "shell_environment_policy", NULL};

/* ---- plain config operations ---------------------------------------------- */

static void expose_rule_clear(expose_rule *r)
{
        free(r->source);
        free(r->target);
        free(r->from);
}

cordon_config *cordon_config_new(void)
{
        cordon_config *c = calloc(1, sizeof(*c));
        if (!c)
                return NULL;
        c->enabled = true;
        c->backend = strdup("auto");
        c->network = CORDON_NETWORK_NONE;
        c->auto_expose[CORDON_AUTO_EXPOSE_EXE] = CORDON_EXPOSE_RO;
        c->auto_expose[CORDON_AUTO_EXPOSE_CWD] = CORDON_EXPOSE_RO;
        c->auto_expose[CORDON_AUTO_EXPOSE_ARGS] = CORDON_EXPOSE_OFF;
        c->limits[CORDON_LIMIT_KILL_AFTER_S] = 2;
        c->inherit = CORDON_INHERIT_CORE;
        if (!c->backend)
                return cordon_config_free(c);
        return c;
}

static void env_kv_clear(env_kv *kv)
{
        free(kv->name);
        free(kv->value);
}

static void config_clear(cordon_config *c)
{
        free(c->disabled_by);
        free(c->backend);
        free(c->home);
        free(c->workspace);
        free(c->home_from);
        free(c->workspace_from);
        free(c->network_from);
        free(c->allow_from);
        free(c->origin);
        for (size_t i = 0; i < c->n_expose; i++)
                expose_rule_clear(&c->expose[i]);
        free(c->expose);
        strv_free(c->protect);
        strv_free(c->network_allow);
        strv_free(c->exclude);
        strv_free(c->include_only);
        strv_free(c->pass);
        for (size_t i = 0; i < c->n_set; i++)
                env_kv_clear(&c->set[i]);
        free(c->set);
        strv_free(c->profile_dirs);
        strv_free(c->files);
}

cordon_config *cordon_config_free(cordon_config *c)
{
        if (c) {
                config_clear(c);
                free(c);
        }
        return NULL;
}

static bool dup_field(char **dst, const char *src)
{
        *dst = xstrdup(src);
        return !src || *dst;
}

static cordon_config *config_dup(const cordon_config *c)
{
        cordon_config *d = calloc(1, sizeof(*d));
        if (!d)
                return NULL;
        *d = *c;
        d->disabled_by = d->backend = d->home = d->workspace = NULL;
        d->home_from = d->workspace_from = d->network_from = d->allow_from = d->origin = NULL;
        d->expose = NULL;
        d->n_expose = 0;
        d->protect = d->network_allow = d->exclude = d->include_only = d->pass = d->profile_dirs = d->files = NULL;
        d->set = NULL;
        d->n_set = 0;
        bool ok = dup_field(&d->disabled_by, c->disabled_by) && dup_field(&d->backend, c->backend) &&
                  dup_field(&d->home, c->home) && dup_field(&d->workspace, c->workspace) &&
                  dup_field(&d->home_from, c->home_from) && dup_field(&d->workspace_from, c->workspace_from) &&
                  dup_field(&d->network_from, c->network_from) && dup_field(&d->allow_from, c->allow_from) &&
                  dup_field(&d->origin, c->origin);
        if (ok && c->n_expose) {
                d->expose = calloc(c->n_expose, sizeof(expose_rule));
                ok = d->expose != NULL;
                for (size_t i = 0; ok && i < c->n_expose; i++) {
                        d->n_expose++;
                        d->expose[i].writable = c->expose[i].writable;
                        d->expose[i].optional = c->expose[i].optional;
                        ok = dup_field(&d->expose[i].source, c->expose[i].source) &&
                             dup_field(&d->expose[i].target, c->expose[i].target) &&
                             dup_field(&d->expose[i].from, c->expose[i].from);
                }
        }
        if (ok && c->n_set) {
                d->set = calloc(c->n_set, sizeof(env_kv));
                ok = d->set != NULL;
                for (size_t i = 0; ok && i < c->n_set; i++) {
                        d->n_set++;
                        ok = dup_field(&d->set[i].name, c->set[i].name) &&
                             dup_field(&d->set[i].value, c->set[i].value);
                }
        }
        if (ok && c->protect)
                ok = (d->protect = strv_copy((const char *const *)c->protect)) != NULL;
        if (ok && c->network_allow)
                ok = (d->network_allow = strv_copy((const char *const *)c->network_allow)) != NULL;
        if (ok && c->exclude)
                ok = (d->exclude = strv_copy((const char *const *)c->exclude)) != NULL;
        if (ok && c->include_only)
                ok = (d->include_only = strv_copy((const char *const *)c->include_only)) != NULL;
        if (ok && c->pass)
                ok = (d->pass = strv_copy((const char *const *)c->pass)) != NULL;
        if (ok && c->profile_dirs)
                ok = (d->profile_dirs = strv_copy((const char *const *)c->profile_dirs)) != NULL;
        if (ok && c->files)
                ok = (d->files = strv_copy((const char *const *)c->files)) != NULL;
        if (!ok)
                return cordon_config_free(d);
        return d;
}

/* Replace |*c| by |*n| (both owned by the caller's variables). */
static void config_swap_in(cordon_config *c, cordon_config *n)
{
        cordon_log_fn fn = c->log_fn;
        void *ud = c->log_userdata;
        config_clear(c);
        *c = *n;
        c->log_fn = fn;
        c->log_userdata = ud;
        free(n);
}

void log_message_v(cordon_log_fn fn, void *userdata, cordon_log_level level, const char *fmt, va_list ap)
{
        if (!fn)
                return;
        _cleanup_free_ char *raw = xvasprintf(fmt, ap);
        /* messages name paths and hosts the sandbox chose: only the plan
         * log (INFO) keeps its lines */
        _cleanup_free_ char *m = raw ? str_escape(raw, level == CORDON_LOG_INFO) : NULL;
        if (m)
                fn(level, m, userdata);
}

void config_log(const cordon_config *c, cordon_log_level level, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        if (c)
                log_message_v(c->log_fn, c->log_userdata, level, fmt, ap);
        va_end(ap);
}

void cordon_config_set_log(cordon_config *c, cordon_log_fn fn, void *userdata)
{
        c->log_fn = fn;
        c->log_userdata = userdata;
}

const char *network_name(cordon_network n)
{
        switch (n) {
        case CORDON_NETWORK_NONE: return "none";
        case CORDON_NETWORK_LOOPBACK: return "loopback";
        case CORDON_NETWORK_FULL: return "full";
        case CORDON_NETWORK_PROXY: return "proxy";
        default: return "?";
        }
}

cordon_network config_effective_network(const cordon_config *c)
{
        bool listed = c->network_allow && c->network_allow[0];
        if (listed && c->network != CORDON_NETWORK_FULL)
                return CORDON_NETWORK_PROXY;
        return c->network;
}

/* Add the canonical form of |spec| to the allowlist, once. Returns 0,
 * -EINVAL (|*why| says why) or -ENOMEM. */
static int network_allow_put(cordon_config *c, const char *spec, const char **why)
{
        net_entry e;
        int r = net_entry_parse(spec, &e, why);
        if (r < 0)
                return r;
        char *text = net_entry_format(&e);
        if (!text)
                return -ENOMEM;
        for (size_t i = 0; c->network_allow && c->network_allow[i]; i++)
                if (streq(c->network_allow[i], text)) {
                        free(text);
                        return 0;
                }
        return strv_consume(&c->network_allow, text);
}

const char *expose_mode_name(cordon_expose_mode m)
{
        switch (m) {
        case CORDON_EXPOSE_OFF: return "off";
        case CORDON_EXPOSE_RO: return "ro";
        case CORDON_EXPOSE_RW: return "rw";
        default: return "?";
        }
}

/* Insert or replace the rule for |target|; takes ownership of the strings. */
static int expose_put(cordon_config *c, char *source, char *target, bool writable, bool optional, char *from)
{
        for (size_t i = 0; i < c->n_expose; i++)
                if (streq(c->expose[i].target, target)) {
                        expose_rule_clear(&c->expose[i]);
                        c->expose[i] = (expose_rule){source, target, writable, optional, from};
                        return 0;
                }
        expose_rule *n = realloc(c->expose, (c->n_expose + 1) * sizeof(*n));
        if (!n || !from) {
                if (n)
                        c->expose = n;
                free(source);
                free(target);
                free(from);
                return -ENOMEM;
        }
        c->expose = n;
        c->expose[c->n_expose++] = (expose_rule){source, target, writable, optional, from};
        return 0;
}

static int env_set_put(cordon_config *c, const char *name, const char *value)
{
        char *v = strdup(value);
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_set; i++)
                if (streq(c->set[i].name, name)) {
                        free(c->set[i].value);
                        c->set[i].value = v;
                        return 0;
                }
        env_kv *n = realloc(c->set, (c->n_set + 1) * sizeof(*n));
        char *k = strdup(name);
        if (!n || !k) {
                free(v);
                free(k);
                if (n)
                        c->set = n;
                return -ENOMEM;
        }
        c->set = n;
        c->set[c->n_set++] = (env_kv){k, v};
        return 0;
}

/* ---- validation shared by JSON and setters ----------------------------------- */

/* The length of a "~" or "$NAME" prefix that |path| starts with (followed
 * by '/'), or 0. |vars|: whether "$NAME" is accepted. */
static size_t prefix_len(const char *path, bool vars)
{
        if (path[0] == '~')
                return path[1] == '/' ? 1 : 0;
        if (!vars || path[0] != '$')
                return 0;
        size_t n = 1 + strspn(path + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
        return n > 1 && path[n] == '/' ? n : 0;
}

static bool is_expanded(const char *path) { return path_is_absolute(path); }

char *config_path_expand(const char *path, const char *home, char *const *env)
{
        size_t n = prefix_len(path, true);
        if (n == 0)
                return strdup(path);
        _cleanup_free_ char *name = strndup(path + 1, n - 1);
        const char *base = n == 1 ? home : NULL;
        size_t len = name ? strlen(name) : 0;
        for (size_t i = 0; n > 1 && name && env && env[i]; i++)
                if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
                        base = env[i] + len + 1;
        if (!name || !base || !path_is_absolute(base)) {
                errno = name ? ENOENT : ENOMEM;
                return NULL;
        }
        _cleanup_free_ char *joined = path_join(base, path + n + 1);
        char *norm = NULL;
        if (!joined || path_normalize(joined, false, &norm) < 0) {
                errno = joined ? ENOENT : ENOMEM;
                return NULL;
        }
        return norm;
}

/* "~/x" and "$NAME/x" normalised after the prefix; else like path_normalize. */
static int normalize_config_path(const char *path, bool vars, char **ret)
{
        size_t n = prefix_len(path, vars);
        if (n == 0)
                return path_normalize(path, false, ret);
        _cleanup_free_ char *rest = NULL;
        int r = path_normalize(path + n, false, &rest);
        if (r < 0)
                return r;
        if (streq(rest, "/"))
                return -EINVAL;
        *ret = xasprintf("%.*s%s", (int)n, path, rest);
        return *ret ? 0 : -ENOMEM;
}

/* Checks an exposed target; returns NULL or a static reason. */
static const char *target_problem(const char *target)
{
        if (target && prefix_len(target, true) > 0) {
                _cleanup_free_ char *n = NULL;
                return normalize_config_path(target, true, &n) < 0 ? "must name a path below it without \"..\"" : NULL;
        }
        if (!path_is_absolute(target))
                return "must be an absolute path (or start with ~/ or $NAME/)";
        _cleanup_free_ char *n = NULL;
        if (path_normalize(target, false, &n) < 0)
                return "must not contain \"..\"";
        if (path_is_root(n))
                return "must not be \"/\"";
        if (path_startswith(n, "/proc"))
                return "must not be under /proc (the sandbox has its own)";
        return NULL;
}

/* The host's own kernel interfaces: its /proc shows the host's processes
 * (and through /proc/PID/root their files), /sys and /dev its devices. */
static const char *const KERNEL_DIRS[] = {"/proc", "/sys", "/dev", NULL};
/* ... except the world-writable file systems of shared memory and message
 * queues (README: "--expose-rw /dev/shm" on the landlock backend). */
static const char *const SHARED_DEV_DIRS[] = {"/dev/shm", "/dev/mqueue", NULL};
/* What the host runs and trusts: never writable from inside. */
static const char *const SYSTEM_DIRS[] = {"/etc",   "/usr",   "/bin",    "/sbin", "/lib",
                                          "/lib32", "/lib64", "/libx32", "/boot", NULL};

static bool under_any(const char *path, const char *const *dirs)
{
        for (size_t i = 0; dirs[i]; i++)
                if (path_startswith(path, dirs[i]))
                        return true;
        return false;
}

/* /run, /var/run, /run/user or /run/user/UID (and their trailing-slash
 * forms): writable, every socket of the host's daemons and of the user's
 * session below them would be the command's to connect to. */
static bool holds_host_sockets(const char *path)
{
        _cleanup_free_ char *n = NULL;
        if (path_normalize(path, false, &n) < 0)
                return false; /* ".." is refused by the caller's checks */
        const char *rest = path_startswith(n, "/var/run") ? n + 8 : path_startswith(n, "/run") ? n + 4 : NULL;
        if (!rest || !*rest || streq(rest, "/user"))
                return rest != NULL;
        if (strncmp(rest, "/user/", 6) != 0)
                return false;
        rest += 6;
        return rest[0] && strspn(rest, "0123456789") == strlen(rest);
}

const char *writable_path_problem(const char *path)
{
        if (path[0] != '/')
                return NULL; /* "C:\\..." (windows backend): its access rules decide */
        if (path_is_root(path))
                return "must not be \"/\" (the whole host)";
        if (under_any(path, KERNEL_DIRS) && !under_any(path, SHARED_DEV_DIRS))
                return "must not be under /proc, /sys or /dev (the host's kernel interfaces; the sandbox has its "
                       "own)";
        if (under_any(path, SYSTEM_DIRS))
                return "must not be a system directory (/etc, /usr, /bin, /sbin, /lib*, /boot; the sandbox shows "
                       "them read-only)";
        if (holds_host_sockets(path))
                return "must not be /run, /run/user or /run/user/UID (the host's sockets: a container daemon, the "
                       "session bus; expose the one directory or socket meant, below them)";
        return NULL;
}

int config_from_error(cordon_error **ret, int errnum, const char *from, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *m = xvasprintf(fmt, ap);
        va_end(ap);
        return error_set(ret, errnum, "%s: %s", from ? from : "?", m ? m : "out of memory");
}

static const char *source_problem(const char *source)
{
        if (prefix_len(source, false) > 0) {
                _cleanup_free_ char *n = NULL;
                return normalize_config_path(source, false, &n) < 0 ? "must name a path below ~ without \"..\"" : NULL;
        }
        if (!path_is_absolute(source))
                return "must be an absolute path (or start with ~/)";
        _cleanup_free_ char *n = NULL;
        if (path_normalize(source, false, &n) < 0)
                return "must not contain \"..\"";
        if (path_startswith(n, "/proc"))
                return "must not be under /proc (the host's processes, and through /proc/PID/root their files; the "
                       "sandbox has its own)";
        return NULL;
}

/* An exposure's normalised source ("~/..." or absolute), as the workspace
 * when |writable|; NULL or why not. */
static const char *expose_source_problem(const char *source, bool writable)
{
        return writable ? writable_path_problem(source) : NULL;
}

/* ---- how setters name their values ------------------------------------------ */

int cordon_config_set_origin(cordon_config *c, const char *origin)
{
        char *o = xstrdup(origin);
        if (origin && !o)
                return -ENOMEM;
        free(c->origin);
        c->origin = o;
        return 0;
}

/* What a setter's value is called in errors: the caller's origin, else
 * KEY "VALUE" (caller frees; NULL when out of memory). */
static char *setter_from(const cordon_config *c, const char *key, const char *value)
{
        return c->origin ? strdup(c->origin) : xasprintf("%s \"%s\"", key, value ? value : "");
}

/* A setter's error: "FROM: MESSAGE" (see setter_from). Returns -|errnum|. */
static int setter_fail(const cordon_config *c, cordon_error **ret, int errnum, const char *key, const char *value,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int setter_fail(const cordon_config *c, cordon_error **ret, int errnum, const char *key, const char *value,
                       const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *m = xvasprintf(fmt, ap);
        va_end(ap);
        _cleanup_free_ char *from = setter_from(c, key, value);
        return error_set(ret, errnum, "%s: %s", from ? from : key, m ? m : "out of memory");
}

/* "one of \"a\", \"b\" or \"c\"" (caller frees). */
static char *enum_list(const char *const *names)
{
        buf b = {0};
        buf_printf(&b, "%s", names[2] ? "one of " : "");
        for (int i = 0; names[i]; i++)
                buf_printf(&b, "%s\"%s\"", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
        return buf_steal(&b);
}

static int setter_fail_enum(const cordon_config *c, cordon_error **ret, const char *key, const char *value,
                            const char *const *names)
{
        _cleanup_free_ char *list = enum_list(names);
        return setter_fail(c, ret, EINVAL, key, value, "must be %s", list ? list : "?");
}

/* ---- JSON layer ------------------------------------------------------------- */

#define MAX_PATH_DEPTH 8

typedef struct layer {
        const char *file, *text;
        char *path[MAX_PATH_DEPTH];
        size_t depth;
        cordon_config *c;
        cordon_error **err;
} layer;

static void layer_push(layer *L, char *comp)
{
        if (L->depth < MAX_PATH_DEPTH)
                L->path[L->depth] = comp;
        L->depth++;
}

static void layer_pop(layer *L)
{
        L->depth--;
        if (L->depth < MAX_PATH_DEPTH)
                free(L->path[L->depth]);
}

static char *layer_key(const layer *L)
{
        buf b = {0};
        for (size_t k = 0; k < L->depth && k < MAX_PATH_DEPTH; k++) {
                if (k > 0 && L->path[k][0] != '[')
                        buf_put(&b, ".", 1);
                buf_put(&b, L->path[k], strlen(L->path[k]));
        }
        return buf_steal(&b);
}

static int layer_fail_v(layer *L, int errnum, bool at_key, const char *fmt, va_list ap)
        __attribute__((format(printf, 4, 0)));
static int layer_fail_v(layer *L, int errnum, bool at_key, const char *fmt, va_list ap)
{
        int line = 0, col = 0;
        size_t n = L->depth < MAX_PATH_DEPTH ? L->depth : MAX_PATH_DEPTH;
        if (!json_locate(L->text, (const char *const *)L->path, n, at_key, &line, &col))
                line = col = 0;
        _cleanup_free_ char *key = layer_key(L);
        _cleanup_free_ char *m = xvasprintf(fmt, ap);
        return error_set_at(L->err, errnum, L->file, line, col, key, "%s", m ? m : "out of memory");
}

/* "FILE:LINE:COL: KEY" of the current value (caller frees), or NULL. */
static char *layer_where(const layer *L)
{
        int line = 0, col = 0;
        size_t n = L->depth < MAX_PATH_DEPTH ? L->depth : MAX_PATH_DEPTH;
        _cleanup_free_ char *key = layer_key(L);
        if (!key)
                return NULL;
        if (!json_locate(L->text, (const char *const *)L->path, n, false, &line, &col))
                return xasprintf("%s: %s", L->file, key);
        return xasprintf("%s:%d:%d: %s", L->file, line, col, key);
}

/* Replace |*field| by where the current value is; 0 or -ENOMEM. */
static int layer_note_from(const layer *L, char **field)
{
        char *w = layer_where(L);
        if (!w)
                return -ENOMEM;
        free(*field);
        *field = w;
        return 0;
}

static int layer_fail(layer *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int layer_fail(layer *L, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int r = layer_fail_v(L, EINVAL, false, fmt, ap);
        va_end(ap);
        return r;
}

static int layer_fail_key(layer *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int layer_fail_key(layer *L, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int r = layer_fail_v(L, EINVAL, true, fmt, ap);
        va_end(ap);
        return r;
}

static const char *json_type_name(const json_t *v)
{
        switch (json_typeof(v)) {
        case JSON_OBJECT: return "object";
        case JSON_ARRAY: return "array";
        case JSON_STRING: return "string";
        case JSON_INTEGER:
        case JSON_REAL: return "number";
        case JSON_TRUE:
        case JSON_FALSE: return "boolean";
        case JSON_NULL: return "null";
        default: return "?";
        }
}

static int want_type(layer *L, const json_t *v, json_type t, const char *what)
{
        if (json_typeof(v) == t || (t == JSON_TRUE && json_is_boolean(v)))
                return 0;
        return layer_fail(L, "must be %s, got %s", what, json_type_name(v));
}

static int get_bool(layer *L, const json_t *v, bool *ret)
{
        int r = want_type(L, v, JSON_TRUE, "a boolean");
        if (r == 0)
                *ret = json_is_true(v);
        return r;
}

/* Matches |v| against |names|; returns the index or a negative error. */
static int get_enum(layer *L, const json_t *v, const char *const *names)
{
        int r = want_type(L, v, JSON_STRING, "a string");
        if (r < 0)
                return r;
        const char *s = json_string_value(v);
        for (int i = 0; names[i]; i++)
                if (streq(s, names[i]))
                        return i;
        buf b = {0};
        for (int i = 0; names[i]; i++)
                buf_printf(&b, "%s\"%s\"", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
        _cleanup_free_ char *list = buf_steal(&b);
        if (!names[2])
                return layer_fail(L, "must be %s, got \"%s\"", list ? list : "", s);
        return layer_fail(L, "must be one of %s, got \"%s\"", list ? list : "", s);
}

/* An absolute path or null (returned as NULL), refused when |problem| says why. */
static int get_dir(layer *L, const json_t *v, const char *(*problem)(const char *), char **ret)
{
        if (json_is_null(v)) {
                *ret = NULL;
                return 0;
        }
        int r = want_type(L, v, JSON_STRING, "a string or null");
        if (r < 0)
                return r;
        const char *s = json_string_value(v);
        if (!path_is_absolute(s))
                return layer_fail(L, "must be an absolute path, got \"%s\"", s);
        _cleanup_free_ char *n = NULL;
        if (path_normalize(s, false, &n) < 0)
                return layer_fail(L, "must not contain \"..\", got \"%s\"", s);
        const char *why = problem(n);
        if (why)
                return layer_fail(L, "%s, got \"%s\"", why, s);
        *ret = TAKE_PTR(n);
        return 0;
}

static int get_string_list(layer *L, const json_t *v, bool paths, char ***ret)
{
        int r = want_type(L, v, JSON_ARRAY, "an array of strings");
        if (r < 0)
                return r;
        _cleanup_strv_ char **list = calloc(1, sizeof(char *));
        if (!list)
                return -ENOMEM;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
                layer_push(L, xasprintf("[%zu]", i));
                r = want_type(L, e, JSON_STRING, "a string");
                const char *s = r == 0 ? json_string_value(e) : NULL;
                if (r == 0 && !s[0])
                        r = layer_fail(L, "must not be empty");
                char *norm = NULL;
                if (r == 0 && paths && !path_is_absolute(s))
                        r = layer_fail(L, "must be an absolute path, got \"%s\"", s);
                if (r == 0 && paths && path_normalize(s, false, &norm) < 0)
                        r = layer_fail(L, "must not contain \"..\", got \"%s\"", s);
                if (r == 0)
                        r = paths ? strv_consume(&list, norm) : strv_push(&list, s);
                layer_pop(L);
                if (r < 0)
                        return r;
        }
        strv_free(*ret);
        *ret = TAKE_PTR(list);
        return 0;
}

typedef int (*member_fn)(layer *L, json_t *v);
typedef struct member {
        const char *name;
        member_fn fn;
} member;

/* Dispatch each key of object |v| to its handler; unknown keys are errors. */
static int apply_members(layer *L, json_t *v, const member *table)
{
        int r = want_type(L, v, JSON_OBJECT, "an object");
        if (r < 0)
                return r;
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val) {
                layer_push(L, strdup(key));
                const member *m = table;
                while (m->name && !streq(m->name, key))
                        m++;
                r = m->name ? m->fn(L, val) : layer_fail_key(L, "unknown key");
                layer_pop(L);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int m_enabled(layer *L, json_t *v)
{
        int r = get_bool(L, v, &L->c->enabled);
        if (r < 0)
                return r;
        free(L->c->disabled_by);
        L->c->disabled_by = NULL;
        if (!L->c->enabled) {
                int line = 0, col = 0;
                if (json_locate(L->text, (const char *const *)L->path, L->depth, false, &line, &col))
                        L->c->disabled_by = xasprintf("%s:%d:%d", L->file, line, col);
                else
                        L->c->disabled_by = xstrdup(L->file);
        }
        return 0;
}

/* The first four and the last can be chosen; the others are reserved names, accepted
 * here so that plan_build can say they are not available in this version. */
static const char *const BACKENDS[] = {"auto", "linux", "landlock", "bwrap", "seatbelt", "windows", NULL};
static const char *const USABLE_BACKENDS[] = {"auto", "linux", "landlock", "seatbelt", "windows", NULL};

static int m_backend(layer *L, json_t *v)
{
        int i = -1;
        for (size_t k = 0; json_is_string(v) && BACKENDS[k]; k++)
                if (streq(json_string_value(v), BACKENDS[k]))
                        i = (int)k;
        if (i < 0) /* the message lists only what can be chosen */
                i = get_enum(L, v, USABLE_BACKENDS);
        if (i < 0)
                return i;
        char *s = strdup(BACKENDS[i]);
        if (!s)
                return -ENOMEM;
        free(L->c->backend);
        L->c->backend = s;
        return 0;
}

static int m_home(layer *L, json_t *v)
{
        char *d = NULL;
        int r = get_dir(L, v, writable_path_problem, &d);
        if (r == 0) {
                free(L->c->home);
                L->c->home = d;
                free(L->c->home_from);
                L->c->home_from = NULL;
                if (d)
                        r = layer_note_from(L, &L->c->home_from);
        }
        return r;
}

static int m_workspace(layer *L, json_t *v)
{
        char *d = NULL;
        int r = get_dir(L, v, writable_path_problem, &d);
        if (r == 0) {
                free(L->c->workspace);
                L->c->workspace = d;
                free(L->c->workspace_from);
                L->c->workspace_from = NULL;
                if (d)
                        r = layer_note_from(L, &L->c->workspace_from);
        }
        return r;
}

static const char *const NETWORKS[] = {"none", "loopback", "full", "proxy", NULL};

static int m_network(layer *L, json_t *v)
{
        int i = get_enum(L, v, NETWORKS);
        if (i < 0)
                return i;
        L->c->network = (cordon_network)i;
        return layer_note_from(L, &L->c->network_from);
}

/* Merged across layers: a layer adds entries. */
static int m_network_allow(layer *L, json_t *v)
{
        int r = want_type(L, v, JSON_ARRAY, "an array of strings");
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
                if (r < 0)
                        break;
                layer_push(L, xasprintf("[%zu]", i));
                r = want_type(L, e, JSON_STRING, "a string");
                const char *why = NULL;
                if (r == 0 && (r = network_allow_put(L->c, json_string_value(e), &why)) == -EINVAL)
                        r = layer_fail(L, "\"%s\": %s", json_string_value(e), why);
                if (r == 0 && !L->c->allow_from)
                        r = layer_note_from(L, &L->c->allow_from);
                layer_pop(L);
        }
        return r;
}

static const char *const EXPOSE_MODES[] = {"off", "ro", "rw", NULL};

static int auto_expose_one(layer *L, json_t *v, cordon_auto_expose which)
{
        int i = get_enum(L, v, EXPOSE_MODES);
        if (i >= 0)
                L->c->auto_expose[which] = (cordon_expose_mode)i;
        return i < 0 ? i : 0;
}

static int m_ae_exe(layer *L, json_t *v) { return auto_expose_one(L, v, CORDON_AUTO_EXPOSE_EXE); }
static int m_ae_cwd(layer *L, json_t *v) { return auto_expose_one(L, v, CORDON_AUTO_EXPOSE_CWD); }
static int m_ae_args(layer *L, json_t *v) { return auto_expose_one(L, v, CORDON_AUTO_EXPOSE_ARGS); }

static int m_auto_expose(layer *L, json_t *v)
{
        static const member t[] = {{"exe", m_ae_exe}, {"cwd", m_ae_cwd}, {"args", m_ae_args}, {NULL, NULL}};
        return apply_members(L, v, t);
}

/* One expose_paths entry; fields are checked in a fixed order so the first
 * error is stable. */
static int expose_entry(layer *L, json_t *e)
{
        int r = want_type(L, e, JSON_OBJECT, "an object");
        if (r < 0)
                return r;
        const char *key;
        json_t *val;
        json_object_foreach(e, key, val) {
                if (streq(key, "source") || streq(key, "target") || streq(key, "mode") || streq(key, "optional"))
                        continue;
                layer_push(L, strdup(key));
                r = layer_fail_key(L, "unknown key (expected \"source\", \"target\", \"mode\" or \"optional\")");
                layer_pop(L);
                return r;
        }
        json_t *src = json_object_get(e, "source"), *tgt = json_object_get(e, "target");
        json_t *mode = json_object_get(e, "mode"), *opt = json_object_get(e, "optional");
        if (!src)
                return layer_fail(L, "\"source\" is required");
        _cleanup_free_ char *source = NULL, *target = NULL;
        bool writable = false, optional = false;
        if (opt) {
                layer_push(L, strdup("optional"));
                r = get_bool(L, opt, &optional);
                layer_pop(L);
                if (r < 0)
                        return r;
        }

        layer_push(L, strdup("source"));
        r = want_type(L, src, JSON_STRING, "a string");
        const char *s = r == 0 ? json_string_value(src) : NULL;
        const char *why = s ? source_problem(s) : NULL;
        struct stat st;
        if (r == 0 && why)
                r = layer_fail(L, "%s, got \"%s\"", why, s);
        /* a source in the home is looked for when planning, an optional one may be missing */
        if (r == 0 && (r = normalize_config_path(s, false, &source)) == 0 && is_expanded(source) && !optional &&
            stat(source, &st) < 0)
                r = layer_fail(L, "does not exist: %s (mark it \"optional\": true if it may be missing)", s);
        layer_pop(L);
        if (r < 0)
                return r;

        if (tgt && !json_is_null(tgt)) {
                layer_push(L, strdup("target"));
                r = want_type(L, tgt, JSON_STRING, "a string");
                const char *t = r == 0 ? json_string_value(tgt) : NULL;
                why = t ? target_problem(t) : NULL;
                if (r == 0 && why)
                        r = layer_fail(L, "%s, got \"%s\"", why, t);
                if (r == 0)
                        r = normalize_config_path(t, true, &target);
                layer_pop(L);
                if (r < 0)
                        return r;
        } else {
                why = target_problem(source);
                if (why) {
                        layer_push(L, strdup("source"));
                        r = layer_fail(L, "as the target: %s", why);
                        layer_pop(L);
                        return r;
                }
                target = source ? strdup(source) : NULL;
                if (!target)
                        return -ENOMEM;
        }

        if (mode) {
                static const char *const MODES[] = {"ro", "rw", NULL};
                layer_push(L, strdup("mode"));
                int i = get_enum(L, mode, MODES);
                layer_pop(L);
                if (i < 0)
                        return i;
                writable = i == 1;
        }
        why = expose_source_problem(source, writable);
        if (why) {
                layer_push(L, strdup("source"));
                r = layer_fail(L, "read-write: %s, got \"%s\"", why, json_string_value(src));
                layer_pop(L);
                return r;
        }
        layer_push(L, strdup("source"));
        char *from = layer_where(L);
        layer_pop(L);
        return expose_put(L->c, TAKE_PTR(source), TAKE_PTR(target), writable, optional, from);
}

static int m_expose_paths(layer *L, json_t *v)
{
        int r = want_type(L, v, JSON_ARRAY, "an array");
        if (r < 0)
                return r;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
                layer_push(L, xasprintf("[%zu]", i));
                r = expose_entry(L, e);
                layer_pop(L);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int m_protect(layer *L, json_t *v) { return get_string_list(L, v, true, &L->c->protect); }

/* Limits: which ones take fractions, which take size strings. */
static bool limit_is_fractional(cordon_limit l)
{
        return l == CORDON_LIMIT_WALL_TIME_S || l == CORDON_LIMIT_CPU_QUOTA || l == CORDON_LIMIT_KILL_AFTER_S;
}

static bool limit_is_size(cordon_limit l)
{
        return l == CORDON_LIMIT_MEMORY_BYTES || l == CORDON_LIMIT_FILE_SIZE_BYTES ||
               l == CORDON_LIMIT_TMP_SIZE_BYTES;
}

/* 2^53: every whole number up to it is exact in a double, and it converts
 * to rlim_t, uint64_t and long long without overflow (beyond it those
 * conversions are undefined behaviour). */
#define LIMIT_MAX 9007199254740992.0

/* Why |d| is not a valid value for limit |which|, or NULL. */
static const char *limit_problem(cordon_limit which, double d)
{
        if (!isfinite(d))
                return "must be a finite number";
        if (d < 0)
                return "must not be negative";
        if (d > LIMIT_MAX)
                return "must be at most 9007199254740992";
        if (!limit_is_fractional(which) && d != floor(d))
                return "must be a whole number";
        return NULL;
}

static int limit_value(layer *L, json_t *v, cordon_limit which)
{
        double d;
        if (json_is_string(v) && limit_is_size(which)) {
                uint64_t n;
                if (parse_size(json_string_value(v), &n) < 0)
                        return layer_fail(L, "must be a size such as 512M, got \"%s\"", json_string_value(v));
                d = (double)n;
        } else if (json_is_number(v)) {
                d = json_number_value(v);
        } else {
                return layer_fail(L, "must be a number%s, got %s", limit_is_size(which) ? " or a size string" : "",
                                  json_type_name(v));
        }
        const char *why = limit_problem(which, d);
        if (why)
                return layer_fail(L, "%s, got %g", why, d);
        L->c->limits[which] = d;
        return 0;
}

#define LIMIT_MEMBER(fn, which) \
        static int fn(layer *L, json_t *v) { return limit_value(L, v, which); }
LIMIT_MEMBER(m_wall, CORDON_LIMIT_WALL_TIME_S)
LIMIT_MEMBER(m_cpu_time, CORDON_LIMIT_CPU_TIME_S)
LIMIT_MEMBER(m_memory, CORDON_LIMIT_MEMORY_BYTES)
LIMIT_MEMBER(m_pids, CORDON_LIMIT_PIDS)
LIMIT_MEMBER(m_open_files, CORDON_LIMIT_OPEN_FILES)
LIMIT_MEMBER(m_fsize, CORDON_LIMIT_FILE_SIZE_BYTES)
LIMIT_MEMBER(m_tmp_size, CORDON_LIMIT_TMP_SIZE_BYTES)
LIMIT_MEMBER(m_cpu_quota, CORDON_LIMIT_CPU_QUOTA)
LIMIT_MEMBER(m_kill_after, CORDON_LIMIT_KILL_AFTER_S)

static int m_limits(layer *L, json_t *v)
{
        static const member t[] = {
                {"wall_time_s", m_wall},         {"cpu_time_s", m_cpu_time},
                {"memory_bytes", m_memory},      {"pids", m_pids},
                {"open_files", m_open_files},    {"file_size_bytes", m_fsize},
                {"tmp_size_bytes", m_tmp_size},  {"cpu_quota", m_cpu_quota},
                {"kill_after_s", m_kill_after},  {NULL, NULL},
        };
        return apply_members(L, v, t);
}

static int m_limits_best_effort(layer *L, json_t *v) { return get_bool(L, v, &L->c->limits_best_effort); }
static int m_log_plan(layer *L, json_t *v) { return get_bool(L, v, &L->c->log_plan); }

static const char *const LANDLOCK_MODES[] = {"best_effort", "required", "off", NULL};

static int m_landlock(layer *L, json_t *v)
{
        int i = get_enum(L, v, LANDLOCK_MODES);
        if (i >= 0)
                L->c->landlock = (landlock_mode)i;
        return i < 0 ? i : 0;
}

/* ---- profiles: named config layers ------------------------------------------ */

#ifndef CORDON_DATADIR
#define CORDON_DATADIR "/usr/local/share/cordon"
#endif
#define MAX_PROFILE_DEPTH 8

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
        if (!dirs || (user && strv_consume(&dirs, user) < 0) || strv_push(&dirs, CORDON_DATADIR "/profiles") < 0)
                return NULL;
        return TAKE_PTR(dirs);
}

static bool profile_name_valid(const char *name)
{
        return name && name[0] && name[0] != '.' &&
               strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(name);
}

/* The search path of |c| (a copy; caller frees), or NULL. */
static char **profile_dirs(const cordon_config *c)
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
static char *profile_locate(const cordon_config *c, const char *name, char **ret_path)
{
        if (!profile_name_valid(name))
                return xasprintf("not a profile name: \"%s\" (letters, digits, \".\", \"_\" and \"-\")", name);
        if (c->profile_depth >= MAX_PROFILE_DEPTH)
                return xasprintf("profile \"%s\": profiles nest more than %d deep (a cycle?)", name,
                                 MAX_PROFILE_DEPTH);
        _cleanup_strv_ char **dirs = profile_dirs(c);
        *ret_path = profile_find(dirs, name);
        if (*ret_path)
                return NULL;
        _cleanup_free_ char *list = dirs ? strv_join(dirs, ", ") : NULL;
        return xasprintf("no profile \"%s\" (looked in %s; `cordon profiles` lists them)", name, list ? list : "?");
}

static int profile_apply(cordon_config *c, const char *path, cordon_error **ret_error)
{
        c->profile_depth++;
        int r = cordon_config_load_file(c, path, ret_error);
        c->profile_depth--;
        return r;
}

int cordon_config_add_profile(cordon_config *c, const char *name, cordon_error **ret_error)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ char *why = profile_locate(c, name ? name : "", &path);
        if (!path && !why)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (!path)
                return setter_fail(c, ret_error, EINVAL, "isolation.profiles", name, "%s", why);
        return profile_apply(c, path, ret_error);
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
        _cleanup_strv_ char **dirs = profile_dirs(c), **seen = calloc(1, sizeof(char *));
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
        _cleanup_strv_ char **dirs = profile_dirs(c), **seen = config_profiles(c);
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

/* isolation.profiles: applied before the rest of their layer, which wins. */
static int apply_profiles(layer *L, json_t *v)
{
        int r = want_type(L, v, JSON_ARRAY, "an array of profile names");
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
                if (r < 0)
                        break;
                layer_push(L, xasprintf("[%zu]", i));
                r = want_type(L, e, JSON_STRING, "a string");
                _cleanup_free_ char *path = NULL, *why = NULL;
                if (r == 0 && (why = profile_locate(L->c, json_string_value(e), &path)))
                        r = layer_fail(L, "%s", why);
                else if (r == 0 && !path)
                        r = -ENOMEM;
                if (r == 0)
                        r = profile_apply(L->c, path, L->err);
                layer_pop(L);
        }
        return r;
}

static int m_profiles_applied(layer *L, json_t *v)
{
        (void)L;
        (void)v;
        return 0;
}

static int m_isolation(layer *L, json_t *v)
{
        static const member t[] = {
                {"profiles", m_profiles_applied},
                {"enabled", m_enabled},
                {"backend", m_backend},
                {"home", m_home},
                {"workspace", m_workspace},
                {"network", m_network},
                {"network_allow", m_network_allow},
                {"auto_expose", m_auto_expose},
                {"expose_paths", m_expose_paths},
                {"protect", m_protect},
                {"limits", m_limits},
                {"limits_best_effort", m_limits_best_effort},
                {"log_plan", m_log_plan},
                {"landlock", m_landlock},
                {NULL, NULL},
        };
        return apply_members(L, v, t);
}

static const char *const INHERITS[] = {"core", "all", "none", NULL};

static int m_inherit(layer *L, json_t *v)
{
        int i = get_enum(L, v, INHERITS);
        if (i >= 0)
                L->c->inherit = (cordon_inherit)i;
        return i < 0 ? i : 0;
}

static int m_ignore_default_excludes(layer *L, json_t *v) { return get_bool(L, v, &L->c->ignore_default_excludes); }
static int m_exclude(layer *L, json_t *v) { return get_string_list(L, v, false, &L->c->exclude); }
static int m_include_only(layer *L, json_t *v) { return get_string_list(L, v, false, &L->c->include_only); }

/* The one validator of a name to pass (shell_environment_policy.pass,
 * --pass-env, cordon_config_env_pass): why |name| is not one, or NULL. */
static const char *pass_name_problem(const char *name)
{
        if (!name || !name[0])
                return "must be a variable name, not empty";
        if (strchr(name, '='))
                return "takes a variable name, whose value comes from cordon's environment (to give a "
                       "variable a value, use set: --set NAME=VALUE)";
        return NULL;
}

/* Adds |name| to |*list| once. */
static int pass_put(char ***list, const char *name)
{
        return *list && strv_contains(*list, name) ? 0 : strv_push(list, name);
}

static int m_pass(layer *L, json_t *v)
{
        int r = want_type(L, v, JSON_ARRAY, "an array of variable names");
        size_t i;
        json_t *e;
        _cleanup_strv_ char **list = r == 0 ? calloc(1, sizeof(char *)) : NULL;
        if (r == 0 && !list)
                return -ENOMEM;
        json_array_foreach(v, i, e) {
                if (r < 0)
                        break;
                layer_push(L, xasprintf("[%zu]", i));
                r = want_type(L, e, JSON_STRING, "a string");
                const char *why = r == 0 ? pass_name_problem(json_string_value(e)) : NULL;
                if (why)
                        r = layer_fail(L, "\"%s\" %s", json_string_value(e), why);
                else if (r == 0)
                        r = pass_put(&list, json_string_value(e));
                layer_pop(L);
        }
        if (r < 0)
                return r;
        strv_free(L->c->pass);
        L->c->pass = TAKE_PTR(list);
        return 0;
}

static int m_set(layer *L, json_t *v)
{
        int r = want_type(L, v, JSON_OBJECT, "an object");
        if (r < 0)
                return r;
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val) {
                layer_push(L, strdup(key));
                if (!env_name_valid(key))
                        r = layer_fail_key(L, "not a valid variable name");
                else if ((r = want_type(L, val, JSON_STRING, "a string")) == 0)
                        r = env_set_put(L->c, key, json_string_value(val));
                layer_pop(L);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int m_env_policy(layer *L, json_t *v)
{
        static const member t[] = {
                {"inherit", m_inherit},
                {"ignore_default_excludes", m_ignore_default_excludes},
                {"exclude", m_exclude},
                {"set", m_set},
                {"include_only", m_include_only},
                {"pass", m_pass},
                {NULL, NULL},
        };
        return apply_members(L, v, t);
}

static int apply_layer(layer *L, json_t *root)
{
        static const member t[] = {{"isolation", m_isolation}, {"shell_environment_policy", m_env_policy}};
        json_t *iso = json_object_get(root, "isolation");
        json_t *profiles = json_is_object(iso) ? json_object_get(iso, "profiles") : NULL;
        if (profiles) {
                layer_push(L, strdup("isolation"));
                layer_push(L, strdup("profiles"));
                int r = apply_profiles(L, profiles);
                layer_pop(L);
                layer_pop(L);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
                json_t *v = json_object_get(root, t[i].name);
                if (!v)
                        continue;
                layer_push(L, strdup(t[i].name));
                int r = t[i].fn(L, v);
                layer_pop(L);
                if (r < 0)
                        return r;
        }
        return 0;
}

int cordon_config_load_string(cordon_config *c, const char *json, const char *name, cordon_error **ret_error)
{
        if (!name)
                name = "<string>";
        json_error_t jerr;
        json_t *root = json_loads(json, 0, &jerr);
        if (!root)
                return error_set_at(ret_error, EINVAL, name, jerr.line > 0 ? jerr.line : 1,
                                    jerr.column > 0 ? jerr.column : 1, NULL, "invalid JSON: %s", jerr.text);
        int r = 0;
        if (!json_is_object(root)) {
                r = error_set_at(ret_error, EINVAL, name, 1, 1, NULL, "the config must be a JSON object");
                json_decref(root);
                return r;
        }
        _cleanup_free_ char *dup = NULL;
        int line, col;
        if (json_find_duplicate(json, SECTIONS, &dup, &line, &col)) {
                json_decref(root);
                return error_set_at(ret_error, EINVAL, name, line, col, dup, "duplicate key");
        }
        cordon_config *n = config_dup(c);
        if (!n) {
                json_decref(root);
                return error_set(ret_error, ENOMEM, "out of memory");
        }
        layer L = {.file = name, .text = json, .c = n, .err = ret_error};
        r = apply_layer(&L, root);
        while (L.depth > 0)
                layer_pop(&L);
        json_decref(root);
        if (r < 0) {
                if (r == -ENOMEM)
                        error_set(ret_error, ENOMEM, "%s: out of memory", name);
                cordon_config_free(n);
                return r;
        }
        config_swap_in(c, n);
        return 0;
}

/* A config file is a regular file of at most this size: a fifo left
 * where the caller points would block the read for good, /dev/zero fill
 * the memory. */
#define MAX_CONFIG_BYTES (4u << 20)

/* /dev/fd/N: a descriptor the caller passed (a pipe of `--config <(...)`),
 * not a name in a directory the command could have made a fifo. */
static bool passed_descriptor(const char *path)
{
        return strncmp(path, "/dev/fd/", 8) == 0 || strncmp(path, "/proc/self/fd/", 14) == 0;
}

int cordon_config_load_file(cordon_config *c, const char *path, cordon_error **ret_error)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return error_set(ret_error, errno, "%s: cannot read config: %s", path, strerror(errno));
        struct stat st;
        const char *why = fstat(fd, &st) < 0                              ? strerror(errno)
                          : S_ISFIFO(st.st_mode) && passed_descriptor(path) ? NULL
                          : !S_ISREG(st.st_mode)                            ? "not a regular file"
                          : st.st_size > (off_t)MAX_CONFIG_BYTES ? "larger than 4 MiB"
                                                           : NULL;
        if (why) {
                close(fd);
                return error_set(ret_error, EINVAL, "%s: cannot read config: %s", path, why);
        }
        fcntl(fd, F_SETFL, O_RDONLY);
        FILE *f = fdopen(fd, "re");
        if (!f) {
                int e = errno;
                close(fd);
                return error_set(ret_error, e, "%s: cannot read config: %s", path, strerror(e));
        }
        buf b = {0};
        char chunk[8192];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len <= MAX_CONFIG_BYTES)
                buf_put(&b, chunk, n);
        bool failed = ferror(f);
        int errsv = errno;
        fclose(f);
        size_t total = b.len;
        _cleanup_free_ char *text = buf_steal(&b);
        if (failed)
                return error_set(ret_error, errsv, "%s: cannot read config: %s", path, strerror(errsv));
        if (!text)
                return error_set(ret_error, ENOMEM, "%s: out of memory", path);
        if (strlen(text) != total)
                return error_set(ret_error, EINVAL, "%s: contains a NUL byte", path);
        /* where it was read, for the plan's check that it lies outside the
         * run's writable paths */
        char *real = realpath(path, NULL); /* none: an unlinked file or a pipe, no name to rewrite */
        if ((!real && errno == ENOMEM) || (real && strv_consume(&c->files, real) < 0))
                return error_set(ret_error, ENOMEM, "%s: out of memory", path);
        return cordon_config_load_string(c, text, path, ret_error);
}

/* ---- programmatic setters (the command-line layer) ---------------------------- */

#define CMDLINE "command line"

int cordon_config_set_enabled(cordon_config *c, bool enabled)
{
        c->enabled = enabled;
        free(c->disabled_by);
        c->disabled_by = enabled ? NULL : strdup(CMDLINE);
        return 0;
}

int cordon_config_set_backend(cordon_config *c, const char *name, cordon_error **ret_error)
{
        for (size_t i = 0; BACKENDS[i]; i++)
                if (streq(name, BACKENDS[i])) {
                        char *s = strdup(name);
                        if (!s)
                                return error_set(ret_error, ENOMEM, "out of memory");
                        free(c->backend);
                        c->backend = s;
                        return 0;
                }
        return setter_fail_enum(c, ret_error, "isolation.backend", name, USABLE_BACKENDS);
}

/* Sets |*field| to where the setter's value comes from; 0 or -ENOMEM. */
static int setter_note_from(const cordon_config *c, char **field, const char *key, const char *value)
{
        char *from = setter_from(c, key, value);
        if (!from)
                return -ENOMEM;
        free(*field);
        *field = from;
        return 0;
}

int cordon_config_set_network(cordon_config *c, cordon_network network)
{
        if (network < CORDON_NETWORK_NONE || network > CORDON_NETWORK_PROXY)
                return -EINVAL;
        int r = setter_note_from(c, &c->network_from, "isolation.network", network_name(network));
        if (r == 0)
                c->network = network;
        return r;
}

int cordon_config_set_network_name(cordon_config *c, const char *name, cordon_error **ret_error)
{
        for (int i = 0; NETWORKS[i]; i++)
                if (streq(name, NETWORKS[i]))
                        return cordon_config_set_network(c, (cordon_network)i) < 0
                                       ? error_set(ret_error, ENOMEM, "out of memory")
                                       : 0;
        return setter_fail_enum(c, ret_error, "isolation.network", name, NETWORKS);
}

int cordon_config_add_network_allow(cordon_config *c, const char *spec, cordon_error **ret_error)
{
        static const char KEY[] = "isolation.network_allow";
        if (!spec || !*spec)
                return setter_fail(c, ret_error, EINVAL, KEY, spec, "an entry is required (HOST[:PORT])");
        _cleanup_strv_ char **before = c->network_allow ? strv_copy((const char *const *)c->network_allow) : NULL;
        if (c->network_allow && !before)
                return error_set(ret_error, ENOMEM, "out of memory");
        int r = 0;
        const char *why = NULL;
        _cleanup_free_ char *item = NULL;
        for (const char *p = spec; r == 0;) {
                size_t n = strcspn(p, ",");
                free(item);
                item = strndup(p, n);
                r = item ? network_allow_put(c, item, &why) : -ENOMEM;
                if (!p[n])
                        break;
                p += n + 1;
        }
        if (r == 0 && !c->allow_from)
                r = setter_note_from(c, &c->allow_from, KEY, spec);
        if (r == 0)
                return 0;
        strv_free(c->network_allow); /* a failing setter changes nothing */
        c->network_allow = TAKE_PTR(before);
        if (r == -ENOMEM)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (strchr(spec, ','))
                return setter_fail(c, ret_error, EINVAL, KEY, spec, "\"%s\": %s", item ? item : "", why);
        return setter_fail(c, ret_error, EINVAL, KEY, spec, "%s", why);
}

/* The same checks as get_dir. */
static int set_dir(cordon_config *c, char **field, const char *key, const char *dir,
                   const char *(*problem)(const char *), cordon_error **ret_error)
{
        _cleanup_free_ char *n = NULL;
        if (!path_is_absolute(dir))
                return setter_fail(c, ret_error, EINVAL, key, dir, "must be an absolute path");
        if (path_normalize(dir, false, &n) < 0)
                return setter_fail(c, ret_error, EINVAL, key, dir, "must not contain \"..\"");
        const char *why = problem(n);
        if (why)
                return setter_fail(c, ret_error, EINVAL, key, dir, "%s", why);
        free(*field);
        *field = TAKE_PTR(n);
        return 0;
}

int cordon_config_set_home(cordon_config *c, const char *dir, cordon_error **ret_error)
{
        _cleanup_free_ char *from = setter_from(c, "isolation.home", dir);
        if (!from)
                return error_set(ret_error, ENOMEM, "out of memory");
        int r = set_dir(c, &c->home, "isolation.home", dir, writable_path_problem, ret_error);
        if (r == 0) {
                free(c->home_from);
                c->home_from = TAKE_PTR(from);
        }
        return r;
}

int cordon_config_set_workspace(cordon_config *c, const char *dir, cordon_error **ret_error)
{
        _cleanup_free_ char *from = setter_from(c, "isolation.workspace", dir);
        if (!from)
                return error_set(ret_error, ENOMEM, "out of memory");
        int r = set_dir(c, &c->workspace, "isolation.workspace", dir, writable_path_problem, ret_error);
        if (r == 0) {
                free(c->workspace_from);
                c->workspace_from = TAKE_PTR(from);
        }
        return r;
}

#define EXPOSE_KEY "isolation.expose_paths"

/* Adds a rule with the checks of expose_entry; |spec| (what the caller
 * passed) names it in the messages. */
static int expose_add(cordon_config *c, const char *spec, const char *source, const char *target, bool writable,
                      cordon_error **ret_error)
{
        const char *why = source_problem(source);
        if (why)
                return setter_fail(c, ret_error, EINVAL, EXPOSE_KEY, spec, "source %s, got \"%s\"", why, source);
        const char *t = target ? target : source;
        why = target_problem(t);
        if (why)
                return setter_fail(c, ret_error, EINVAL, EXPOSE_KEY, spec, "target %s, got \"%s\"", why, t);
        _cleanup_free_ char *s = NULL, *tn = NULL;
        int r = normalize_config_path(source, false, &s);
        if (r == 0)
                r = normalize_config_path(t, target != NULL, &tn);
        if (r < 0)
                return r == -ENOMEM ? error_set(ret_error, ENOMEM, "out of memory")
                                    : setter_fail(c, ret_error, EINVAL, EXPOSE_KEY, spec, "invalid path");
        struct stat st;
        /* a source in the home is looked for when planning */
        if (is_expanded(s) && stat(s, &st) < 0)
                return setter_fail(c, ret_error, errno, EXPOSE_KEY, spec, "source does not exist: %s", s);
        why = expose_source_problem(s, writable);
        if (why)
                return setter_fail(c, ret_error, EINVAL, EXPOSE_KEY, spec, "read-write source %s, got \"%s\"", why,
                                   source);
        r = expose_put(c, TAKE_PTR(s), TAKE_PTR(tn), writable, false, setter_from(c, EXPOSE_KEY, spec));
        return r < 0 ? error_set(ret_error, -r, "out of memory") : 0;
}

int cordon_config_add_expose(cordon_config *c, const char *source, const char *target, bool writable,
                             cordon_error **ret_error)
{
        if (!source)
                return setter_fail(c, ret_error, EINVAL, EXPOSE_KEY, "", "a source is required");
        return expose_add(c, source, source, target, writable, ret_error);
}

/* |s|[0, n) with "\:" read as ':' and "\\" as a backslash (any other
 * backslash is itself), or NULL when out of memory. */
static char *unescape_spec(const char *s, size_t n)
{
        char *out = malloc(n + 1), *o = out;
        for (size_t i = 0; out && i < n; i++) {
                if (s[i] == '\\' && i + 1 < n && (s[i + 1] == ':' || s[i + 1] == '\\'))
                        i++;
                *o++ = s[i];
        }
        if (out)
                *o = '\0';
        return out;
}

/* "SRC[:TARGET][:ro|rw]". The first unescaped ':' ends SRC, a last one
 * followed by ro or rw gives the mode (a target may hold more colons, as
 * before escapes existed); "\:" is a colon that belongs to the path and
 * "\\" a backslash, so that any path can be written. */
int cordon_config_add_expose_spec(cordon_config *c, const char *spec, cordon_error **ret_error)
{
        if (!spec)
                return setter_fail(c, ret_error, EINVAL, EXPOSE_KEY, "", "a spec is required");
        const char *what = spec;
        size_t len = strlen(spec), first = len, last = len;
        for (size_t i = 0; i < len; i++) {
                if (spec[i] == '\\' && (spec[i + 1] == ':' || spec[i + 1] == '\\'))
                        i++;
                else if (spec[i] == ':') {
                        if (first == len)
                                first = i;
                        last = i;
                }
        }
        bool writable = false;
        size_t end = len; /* of SRC[:TARGET] */
        if (last < len) {
                _cleanup_free_ char *mode = unescape_spec(spec + last + 1, len - last - 1);
                if (!mode)
                        return error_set(ret_error, ENOMEM, "out of memory");
                if (streq(mode, "ro") || streq(mode, "rw")) {
                        writable = streq(mode, "rw");
                        end = last;
                } else if (!strchr(mode, '/'))
                        return setter_fail(c, ret_error, EINVAL, EXPOSE_KEY, what,
                                           "mode must be \"ro\" or \"rw\", got \"%s\"", mode);
        }
        bool has_target = first < end;
        _cleanup_free_ char *source = unescape_spec(spec, has_target ? first : end);
        _cleanup_free_ char *target = has_target ? unescape_spec(spec + first + 1, end - first - 1) : NULL;
        if (!source || (has_target && !target))
                return error_set(ret_error, ENOMEM, "out of memory");
        return expose_add(c, what, source, target, writable, ret_error);
}

int cordon_config_add_protect(cordon_config *c, const char *path, cordon_error **ret_error)
{
        char *n = NULL;
        if (!path || !*path)
                return setter_fail(c, ret_error, EINVAL, "isolation.protect", path, "must not be empty");
        if (!path_is_absolute(path))
                return setter_fail(c, ret_error, EINVAL, "isolation.protect", path, "must be an absolute path");
        if (path_normalize(path, false, &n) < 0)
                return setter_fail(c, ret_error, EINVAL, "isolation.protect", path, "must not contain \"..\"");
        int r = strv_consume(&c->protect, n);
        return r < 0 ? error_set(ret_error, -r, "out of memory") : 0;
}

int cordon_config_set_auto_expose(cordon_config *c, cordon_auto_expose which, cordon_expose_mode mode)
{
        if (which < CORDON_AUTO_EXPOSE_EXE || which > CORDON_AUTO_EXPOSE_ARGS || mode < CORDON_EXPOSE_OFF ||
            mode > CORDON_EXPOSE_RW)
                return -EINVAL;
        c->auto_expose[which] = mode;
        return 0;
}

static const char *const LIMIT_NAMES[CORDON_LIMIT__MAX] = {
        [CORDON_LIMIT_WALL_TIME_S] = "wall_time_s",     [CORDON_LIMIT_CPU_TIME_S] = "cpu_time_s",
        [CORDON_LIMIT_MEMORY_BYTES] = "memory_bytes",   [CORDON_LIMIT_PIDS] = "pids",
        [CORDON_LIMIT_OPEN_FILES] = "open_files",       [CORDON_LIMIT_FILE_SIZE_BYTES] = "file_size_bytes",
        [CORDON_LIMIT_TMP_SIZE_BYTES] = "tmp_size_bytes", [CORDON_LIMIT_CPU_QUOTA] = "cpu_quota",
        [CORDON_LIMIT_KILL_AFTER_S] = "kill_after_s",
};

int cordon_config_set_limit(cordon_config *c, cordon_limit which, double value, cordon_error **ret_error)
{
        if (which < 0 || which >= CORDON_LIMIT__MAX)
                return error_set(ret_error, EINVAL, "unknown limit %d", (int)which);
        const char *why = limit_problem(which, value);
        _cleanup_free_ char *key = xasprintf("isolation.limits.%s", LIMIT_NAMES[which]);
        _cleanup_free_ char *text = xasprintf("%g", value);
        if (why)
                return setter_fail(c, ret_error, EINVAL, key ? key : "isolation.limits", text, "%s", why);
        c->limits[which] = value;
        return 0;
}

int cordon_config_set_limit_text(cordon_config *c, cordon_limit which, const char *text, cordon_error **ret_error)
{
        if (which < 0 || which >= CORDON_LIMIT__MAX)
                return error_set(ret_error, EINVAL, "unknown limit %d", (int)which);
        double d = 0;
        uint64_t n = 0;
        int r;
        if (limit_is_size(which)) {
                r = parse_size(text, &n);
                d = (double)n;
        } else if (limit_is_fractional(which)) {
                r = parse_seconds(text, &d);
        } else {
                r = parse_uint64(text, &n);
                d = (double)n;
        }
        _cleanup_free_ char *key = xasprintf("isolation.limits.%s", LIMIT_NAMES[which]);
        if (r < 0)
                return setter_fail(c, ret_error, EINVAL, key ? key : "isolation.limits", text, "must be %s",
                                   limit_is_size(which)         ? "a size such as 512M"
                                   : limit_is_fractional(which) ? "a non-negative number"
                                                                : "a non-negative whole number");
        const char *why = limit_problem(which, d);
        if (why)
                return setter_fail(c, ret_error, EINVAL, key ? key : "isolation.limits", text, "%s", why);
        c->limits[which] = d;
        return 0;
}

int cordon_config_set_limits_best_effort(cordon_config *c, bool best_effort)
{
        c->limits_best_effort = best_effort;
        return 0;
}

int cordon_config_set_log_plan(cordon_config *c, bool log_plan)
{
        c->log_plan = log_plan;
        return 0;
}

int cordon_config_set_landlock(cordon_config *c, const char *mode, cordon_error **ret_error)
{
        for (int i = 0; LANDLOCK_MODES[i]; i++)
                if (streq(mode, LANDLOCK_MODES[i])) {
                        c->landlock = (landlock_mode)i;
                        return 0;
                }
        return setter_fail_enum(c, ret_error, "isolation.landlock", mode, LANDLOCK_MODES);
}

int cordon_config_set_inherit(cordon_config *c, cordon_inherit inherit)
{
        if (inherit < CORDON_INHERIT_CORE || inherit > CORDON_INHERIT_NONE)
                return -EINVAL;
        c->inherit = inherit;
        return 0;
}

int cordon_config_set_inherit_name(cordon_config *c, const char *name, cordon_error **ret_error)
{
        for (int i = 0; INHERITS[i]; i++)
                if (streq(name, INHERITS[i]))
                        return cordon_config_set_inherit(c, (cordon_inherit)i);
        return setter_fail_enum(c, ret_error, "shell_environment_policy.inherit", name, INHERITS);
}

int cordon_config_set_ignore_default_excludes(cordon_config *c, bool ignore)
{
        c->ignore_default_excludes = ignore;
        return 0;
}

int cordon_config_env_set(cordon_config *c, const char *name, const char *value, cordon_error **ret_error)
{
        if (!env_name_valid(name) || !value)
                return setter_fail(c, ret_error, EINVAL, "shell_environment_policy.set", name,
                                   "is not a valid variable name");
        int r = env_set_put(c, name, value);
        return r < 0 ? error_set(ret_error, -r, "out of memory") : 0;
}

static int add_glob(cordon_config *c, char ***list, const char *key, const char *glob, cordon_error **ret_error)
{
        if (!glob || !*glob)
                return setter_fail(c, ret_error, EINVAL, key, glob, "the pattern must not be empty");
        int r = strv_push(list, glob);
        return r < 0 ? error_set(ret_error, -r, "out of memory") : 0;
}

int cordon_config_env_exclude(cordon_config *c, const char *glob, cordon_error **ret_error)
{
        return add_glob(c, &c->exclude, "shell_environment_policy.exclude", glob, ret_error);
}

int cordon_config_env_pass(cordon_config *c, const char *name, cordon_error **ret_error)
{
        const char *why = pass_name_problem(name);
        if (why)
                return error_set(ret_error, EINVAL, "pass-env: \"%s\" %s", name ? name : "", why);
        int r = pass_put(&c->pass, name);
        return r < 0 ? error_set(ret_error, -r, "out of memory") : 0;
}

int cordon_config_env_include_only(cordon_config *c, const char *glob, cordon_error **ret_error)
{
        return add_glob(c, &c->include_only, "shell_environment_policy.include_only", glob, ret_error);
}
