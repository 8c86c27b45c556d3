/* SPDX-License-Identifier: MIT */
/* The config file: JSON text -> one layer of values, each checked by
 * config-validate.c and located for errors (FILE:LINE:COLUMN: KEY, with
 * jsonloc.c). An unknown key is an error; isolation.profiles are applied
 * before the rest of their layer. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-internal.h"
#include "config-validate.h"
#include "env.h"
#include "error.h"

static const char *const SECTIONS[] = {"isolation", "shell_environment_policy", NULL};

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

/* The error |m| (NULL: out of memory) at the current value, or with
 * |at_key| at its key; -EINVAL. */
static int layer_error(layer *L, bool at_key, const char *m)
{
        int line = 0, col = 0;
        size_t n = L->depth < MAX_PATH_DEPTH ? L->depth : MAX_PATH_DEPTH;
        if (!json_locate(L->text, (const char *const *)L->path, n, at_key, &line, &col))
                line = col = 0;
        _cleanup_free_ char *key = layer_key(L);
        return error_set_at(L->err, EINVAL, L->file, line, col, key, "%s", m ? m : "out of memory");
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
        _cleanup_free_ char *m = xvasprintf(fmt, ap);
        va_end(ap);
        return layer_error(L, false, m);
}

/* |why| is about the current key itself (unknown, not a valid name). */
static int layer_fail_key(layer *L, const char *why)
{
        return layer_error(L, true, why);
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
        int i = name_index(names, json_string_value(v));
        if (i >= 0)
                return i;
        _cleanup_free_ char *list = enum_list(names);
        return layer_fail(L, "must be %s, got \"%s\"", list ? list : "", json_string_value(v));
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
        const char *why = dir_problem(json_string_value(v), problem, ret);
        return why ? layer_fail(L, "%s, got \"%s\"", why, json_string_value(v)) : 0;
}

typedef int (*string_fn)(layer *L, const char *s, void *ctx);

/* Calls |fn| on each string of array |v| (|what| names what it must be),
 * with its "[I]" pushed, until one fails. 0 or the first error. */
static int each_string(layer *L, const json_t *v, const char *what, string_fn fn, void *ctx)
{
        int r = want_type(L, v, JSON_ARRAY, what);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
                if (r < 0)
                        break;
                layer_push(L, xasprintf("[%zu]", i));
                r = want_type(L, e, JSON_STRING, "a string");
                if (r == 0)
                        r = fn(L, json_string_value(e), ctx);
                layer_pop(L);
        }
        return r;
}

static int list_put(layer *L, const char *s, void *list)
{
        if (!s[0])
                return layer_fail(L, "must not be empty");
        return strv_push(list, s);
}

static int path_list_put(layer *L, const char *s, void *list)
{
        if (!s[0])
                return layer_fail(L, "must not be empty");
        char *norm = NULL;
        const char *why = dir_problem(s, NULL, &norm);
        return why ? layer_fail(L, "%s, got \"%s\"", why, s) : strv_consume(list, norm);
}

/* A list of strings (absolute paths, normalised, when |paths|) that
 * replaces |*ret|. */
static int get_string_list(layer *L, const json_t *v, bool paths, char ***ret)
{
        _cleanup_strv_ char **list = json_is_array(v) ? calloc(1, sizeof(char *)) : NULL;
        if (json_is_array(v) && !list)
                return -ENOMEM;
        int r = each_string(L, v, "an array of strings", paths ? path_list_put : list_put, &list);
        if (r < 0)
                return r;
        strv_free(*ret);
        *ret = TAKE_PTR(list);
        return 0;
}

typedef int (*key_fn)(layer *L, const char *key, json_t *val, const void *ctx);

/* Calls |fn| on each key of object |v| and its value, with the key
 * pushed, until one fails. 0 or the first error. */
static int each_key(layer *L, json_t *v, key_fn fn, const void *ctx)
{
        int r = want_type(L, v, JSON_OBJECT, "an object");
        if (r < 0)
                return r;
        const char *key;
        json_t *val;
        json_object_foreach(v, key, val) {
                layer_push(L, strdup(key));
                r = fn(L, key, val, ctx);
                layer_pop(L);
                if (r < 0)
                        return r;
        }
        return 0;
}

typedef int (*member_fn)(layer *L, json_t *v);
typedef struct member {
        const char *name;
        member_fn fn;
} member;

static int member_put(layer *L, const char *key, json_t *val, const void *table)
{
        const member *m = table;
        while (m->name && !streq(m->name, key))
                m++;
        return m->name ? m->fn(L, val) : layer_fail_key(L, "unknown key");
}

/* Dispatch each key of object |v| to its handler; unknown keys are errors. */
static int apply_members(layer *L, json_t *v, const member *table)
{
        return each_key(L, v, member_put, table);
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


static int m_backend(layer *L, json_t *v)
{
        int i = json_is_string(v) ? name_index(BACKENDS, json_string_value(v)) : -1;
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

/* A directory and where it was set (none for null). */
static int dir_member(layer *L, json_t *v, char **field, char **from)
{
        char *d = NULL;
        int r = get_dir(L, v, writable_path_problem, &d);
        if (r == 0) {
                free(*field);
                *field = d;
                free(*from);
                *from = NULL;
                if (d)
                        r = layer_note_from(L, from);
        }
        return r;
}

static int m_home(layer *L, json_t *v) { return dir_member(L, v, &L->c->home, &L->c->home_from); }
static int m_workspace(layer *L, json_t *v) { return dir_member(L, v, &L->c->workspace, &L->c->workspace_from); }

static int m_network(layer *L, json_t *v)
{
        int i = get_enum(L, v, NETWORKS);
        if (i < 0)
                return i;
        L->c->network = (cordon_network)i;
        config_network_chosen(L->c, L->c->layer_seq * 2);
        return layer_note_from(L, &L->c->network_from);
}

/* Merged across layers: a layer adds entries. */
static int allow_put(layer *L, const char *s, void *unused)
{
        (void)unused;
        const char *why = NULL;
        config_allow_chosen(L->c, L->c->layer_seq * 2);
        int r = network_allow_put(L->c, s, &why);
        if (r == -EINVAL)
                return layer_fail(L, "\"%s\": %s", s, why);
        return r == 0 && !L->c->allow_from ? layer_note_from(L, &L->c->allow_from) : r;
}

static int m_network_allow(layer *L, json_t *v) { return each_string(L, v, "an array of strings", allow_put, NULL); }


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

/* The keys of an expose_paths entry. */
static int expose_field(layer *L, const char *key, json_t *val, const void *unused)
{
        (void)val;
        (void)unused;
        if (streq(key, "source") || streq(key, "target") || streq(key, "mode") || streq(key, "optional") ||
            streq(key, "comment"))
                return 0;
        return layer_fail_key(L, "unknown key (expected \"source\", \"target\", \"mode\", \"optional\" or "
                                 "\"comment\")");
}

/* One expose_paths entry; fields are checked in a fixed order so the first
 * error is stable. */
static int expose_entry(layer *L, json_t *e)
{
        int r = each_key(L, e, expose_field, NULL);
        if (r < 0)
                return r;
        json_t *src = json_object_get(e, "source"), *tgt = json_object_get(e, "target");
        json_t *mode = json_object_get(e, "mode"), *opt = json_object_get(e, "optional");
        json_t *comment = json_object_get(e, "comment");
        if (!src)
                return layer_fail(L, "\"source\" is required");
        if (comment && !json_is_string(comment)) {
                layer_push(L, strdup("comment"));
                return want_type(L, comment, JSON_STRING, "a string");
        }
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
        if (r == 0 && (r = normalize_config_path(s, false, &source)) == 0 && config_path_is_expanded(source) && !optional &&
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
                why = whole_variable(source) ? NULL : target_problem(source);
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
static int m_die_with_parent(layer *L, json_t *v) { return get_bool(L, v, &L->c->die_with_parent); }
static int m_explain(layer *L, json_t *v) { return get_bool(L, v, &L->c->explain); }
static int m_explain_on_failure(layer *L, json_t *v) { return get_bool(L, v, &L->c->explain_on_failure); }


static int m_landlock(layer *L, json_t *v)
{
        int i = get_enum(L, v, LANDLOCK_MODES);
        if (i >= 0)
                L->c->landlock = (landlock_mode)i;
        return i < 0 ? i : 0;
}

static int m_user(layer *L, json_t *v)
{
        int i = get_enum(L, v, USER_MODES);
        if (i >= 0)
                L->c->user = (user_mode)i;
        return i < 0 ? i : 0;
}

/* isolation.profiles: applied before the rest of their layer, which wins. */
static int profile_put(layer *L, const char *name, void *unused)
{
        (void)unused;
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ char *why = profile_locate(L->c, name, &path);
        if (why)
                return layer_fail(L, "%s", why);
        return path ? profile_apply(L->c, path, L->err) : -ENOMEM;
}

static int apply_profiles(layer *L, json_t *v)
{
        return each_string(L, v, "an array of profile names", profile_put, NULL);
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
                {"die_with_parent", m_die_with_parent},
                {"explain", m_explain},
                {"explain_on_failure", m_explain_on_failure},
                {"landlock", m_landlock},
                {"user", m_user},
                {NULL, NULL},
        };
        return apply_members(L, v, t);
}


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


static int pass_list_put(layer *L, const char *name, void *list)
{
        const char *why = pass_name_problem(name);
        return why ? layer_fail(L, "\"%s\" %s", name, why) : pass_put(list, name);
}

static int m_pass(layer *L, json_t *v)
{
        _cleanup_strv_ char **list = json_is_array(v) ? calloc(1, sizeof(char *)) : NULL;
        if (json_is_array(v) && !list)
                return -ENOMEM;
        int r = each_string(L, v, "an array of variable names", pass_list_put, &list);
        if (r < 0)
                return r;
        strv_free(L->c->pass);
        L->c->pass = TAKE_PTR(list);
        return 0;
}

static int set_put(layer *L, const char *key, json_t *val, const void *unused)
{
        (void)unused;
        if (!env_name_valid(key))
                return layer_fail_key(L, "not a valid variable name");
        int r = want_type(L, val, JSON_STRING, "a string");
        return r < 0 ? r : env_set_put(L->c, key, json_string_value(val));
}

static int m_set(layer *L, json_t *v) { return each_key(L, v, set_put, NULL); }

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
        n->layer_seq++;
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
