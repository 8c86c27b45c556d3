/* SPDX-License-Identifier: MIT */
/* The programmatic layer: the public cordon_config_* setters, which the
 * CLI's flags call. Values are checked by config-validate.c, as the config
 * file's; errors name the value by the caller's origin (a flag as typed,
 * cordon_config_set_origin) or by KEY "VALUE". */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "config-internal.h"
#include "config-validate.h"
#include "env.h"
#include "error.h"

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

/* The index of |value| in |names|, or the setter's error listing |shown|
 * (the names a caller may choose). */
static int setter_enum(const cordon_config *c, cordon_error **ret, const char *key, const char *value,
                       const char *const *names, const char *const *shown)
{
        int i = name_index(names, value);
        if (i >= 0)
                return i;
        _cleanup_free_ char *list = enum_list(shown);
        return setter_fail(c, ret, EINVAL, key, value, "must be %s", list ? list : "?");
}


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
        int i = setter_enum(c, ret_error, "isolation.backend", name, BACKENDS, USABLE_BACKENDS);
        if (i < 0)
                return i;
        char *s = strdup(name);
        if (!s)
                return error_set(ret_error, ENOMEM, "out of memory");
        free(c->backend);
        c->backend = s;
        return 0;
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
        if (r == 0) {
                c->network = network;
                config_network_chosen(c, c->layer_seq * 2 + 1);
        }
        return r;
}

int cordon_config_set_network_name(cordon_config *c, const char *name, cordon_error **ret_error)
{
        int i = setter_enum(c, ret_error, "isolation.network", name, NETWORKS, NETWORKS);
        if (i < 0)
                return i;
        return cordon_config_set_network(c, (cordon_network)i) < 0 ? error_set(ret_error, ENOMEM, "out of memory")
                                                                     : 0;
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
        cordon_network network_before = c->network;
        unsigned allow_seq_before = c->allow_seq;
        _cleanup_free_ char *network_from_before = xstrdup(c->network_from);
        config_allow_chosen(c, c->layer_seq * 2 + 1);
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
        c->network = network_before;
        c->allow_seq = allow_seq_before;
        if (!c->network_from) {
                c->network_from = TAKE_PTR(network_from_before);
        }
        if (r == -ENOMEM)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (strchr(spec, ','))
                return setter_fail(c, ret_error, EINVAL, KEY, spec, "\"%s\": %s", item ? item : "", why);
        return setter_fail(c, ret_error, EINVAL, KEY, spec, "%s", why);
}

/* A directory (checked as get_dir does) and where it was set. */
static int set_dir(cordon_config *c, char **field, char **from_field, const char *key, const char *dir,
                   cordon_error **ret_error)
{
        _cleanup_free_ char *from = setter_from(c, key, dir);
        if (!from)
                return error_set(ret_error, ENOMEM, "out of memory");
        _cleanup_free_ char *n = NULL;
        const char *why = dir_problem(dir, writable_path_problem, &n);
        if (why)
                return setter_fail(c, ret_error, EINVAL, key, dir, "%s", why);
        free(*field);
        *field = TAKE_PTR(n);
        free(*from_field);
        *from_field = TAKE_PTR(from);
        return 0;
}

int cordon_config_set_home(cordon_config *c, const char *dir, cordon_error **ret_error)
{
        return set_dir(c, &c->home, &c->home_from, "isolation.home", dir, ret_error);
}

int cordon_config_set_workspace(cordon_config *c, const char *dir, cordon_error **ret_error)
{
        return set_dir(c, &c->workspace, &c->workspace_from, "isolation.workspace", dir, ret_error);
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
        if (config_path_is_expanded(s) && stat(s, &st) < 0)
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
        const char *why = dir_problem(path, NULL, &n);
        if (why)
                return setter_fail(c, ret_error, EINVAL, "isolation.protect", path, "%s", why);
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


/* A limit's error: "FROM: MESSAGE" with isolation.limits.NAME as the key. */
static int limit_fail(const cordon_config *c, cordon_error **ret, cordon_limit which, const char *text,
                      const char *why)
{
        _cleanup_free_ char *key = xasprintf("isolation.limits.%s", LIMIT_NAMES[which]);
        return setter_fail(c, ret, EINVAL, key ? key : "isolation.limits", text, "%s", why);
}

/* Sets limit |which| to |d| (that the caller wrote as |text|) if it is valid. */
static int limit_set(cordon_config *c, cordon_limit which, double d, const char *text, cordon_error **ret_error)
{
        const char *why = limit_problem(which, d);
        if (why)
                return limit_fail(c, ret_error, which, text, why);
        c->limits[which] = d;
        return 0;
}

int cordon_config_set_limit(cordon_config *c, cordon_limit which, double value, cordon_error **ret_error)
{
        if (which < 0 || which >= CORDON_LIMIT__MAX)
                return error_set(ret_error, EINVAL, "unknown limit %d", (int)which);
        _cleanup_free_ char *text = xasprintf("%g", value);
        return limit_set(c, which, value, text, ret_error);
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
        if (r < 0)
                return limit_fail(c, ret_error, which, text,
                                  limit_is_size(which)         ? "must be a size such as 512M"
                                  : limit_is_fractional(which) ? "must be a non-negative number"
                                                               : "must be a non-negative whole number");
        return limit_set(c, which, d, text, ret_error);
}

/* The setters that store one flag as given. */
#define FLAG_SETTER(flag)                                           \
        int cordon_config_set_##flag(cordon_config *c, bool value) \
        {                                                          \
                c->flag = value;                                   \
                return 0;                                          \
        }

FLAG_SETTER(limits_best_effort)
FLAG_SETTER(log_plan)
FLAG_SETTER(die_with_parent)
FLAG_SETTER(explain)
FLAG_SETTER(explain_on_failure)
FLAG_SETTER(ignore_default_excludes)

int cordon_config_set_landlock(cordon_config *c, const char *mode, cordon_error **ret_error)
{
        int i = setter_enum(c, ret_error, "isolation.landlock", mode, LANDLOCK_MODES, LANDLOCK_MODES);
        if (i >= 0)
                c->landlock = (landlock_mode)i;
        return i < 0 ? i : 0;
}

int cordon_config_set_user(cordon_config *c, const char *mode, cordon_error **ret_error)
{
        int i = setter_enum(c, ret_error, "isolation.user", mode, USER_MODES, USER_MODES);
        if (i >= 0)
                c->user = (user_mode)i;
        return i < 0 ? i : 0;
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
        int i = setter_enum(c, ret_error, "shell_environment_policy.inherit", name, INHERITS, INHERITS);
        if (i < 0)
                return i;
        return cordon_config_set_inherit(c, (cordon_inherit)i);
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


int cordon_config_set_helper_program(cordon_config *c, const char *path, cordon_error **ret_error)
{
        if (!path || path[0] != '/')
                return error_set(ret_error, EINVAL, "the helper program must be an absolute path: %s",
                                 path ? path : "(null)");
        char *copy = strdup(path);
        if (!copy)
                return error_set(ret_error, ENOMEM, "out of memory");
        free(c->helper_program);
        c->helper_program = copy;
        return 0;
}
