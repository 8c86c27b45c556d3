/* SPDX-License-Identifier: MIT */
/* cordon learn: a config layer from a run's refusals (the record's
 * "denied", stats.c): each refusal whose suggestion is an exposure or an
 * allowlist entry becomes one, the narrowest that was used (an entry
 * beneath another is left out), with a "comment" saying why; a refusal
 * that cannot be allowed becomes nothing (a secret, the home, what the
 * validator refuses: denied.c never suggests them). The layer is for the
 * user to review, never applied by itself. For cordon_process_learned_layer
 * (stats.c). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "denied.h"
#include "util.h"

/* An exposure from a suggestion: "--expose PATH[:rw]" or the home's
 * "--expose 'PATH:$HOME/REST'[:rw]"; false for anything else. */
static bool parse_expose(const char *sug, const char *home, char **ret_source, char **ret_target, bool *ret_rw)
{
        static const char PREFIX[] = "--expose ";
        if (strncmp(sug, PREFIX, sizeof(PREFIX) - 1) != 0)
                return false;
        const char *s = sug + sizeof(PREFIX) - 1;
        size_t n = strlen(s);
        *ret_rw = n > 3 && streq(s + n - 3, ":rw");
        if (*ret_rw)
                n -= 3;
        _cleanup_free_ char *spec = strndup(s, n);
        if (!spec)
                return false;
        char *target = NULL;
        if (spec[0] == '\'' && n > 2 && spec[n - 1] == '\'') {
                spec[n - 1] = '\0';
                memmove(spec, spec + 1, n - 1);
                char *colon = strstr(spec, ":$HOME");
                if (!colon)
                        return false;
                *colon = '\0';
                target = strdup(colon + 1);
        }
        /* "~/" for the caller's home: the layer holds no user's path */
        const char *rest = home ? path_skip_prefix(spec, home) : NULL;
        *ret_source = rest && rest[0] ? strjoin2("~/", rest) : strdup(spec);
        *ret_target = target;
        return *ret_source != NULL;
}

typedef struct learned {
        char *source, *target, *why;
        bool rw;
} learned;

/* |e| shows |source| (at |target|, NULL: its own path): a layer needs
 * only the one. */
static bool covers(const learned *e, const char *source, const char *target)
{
        if (!path_startswith(source, e->source) || !e->target != !target)
                return false;
        return !target || path_startswith(target, e->target);
}

/* The entry of |d|, as "KIND TARGET: RULE". */
static char *why_of(const json_t *d)
{
        return xasprintf("%s %s refused: %s", json_string_value(json_object_get(d, "kind")),
                         json_string_value(json_object_get(d, "target")),
                         json_string_value(json_object_get(d, "rule")));
}

static void learned_clear(learned *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i].source);
                free(v[i].target);
                free(v[i].why);
        }
}

/* The exposures of |denied|, each once, the narrowest kept: into |v|. */
static size_t exposures(const json_t *denied, const char *home, learned *v, size_t max)
{
        size_t n = 0, i;
        json_t *d;
        json_array_foreach(denied, i, d)
        {
                learned e = {0};
                const char *sug = json_string_value(json_object_get(d, "suggestion"));
                if (!sug || n == max || !parse_expose(sug, home, &e.source, &e.target, &e.rw))
                        continue;
                bool merged = false;
                for (size_t k = 0; k < n && !merged; k++)
                        if (covers(&v[k], e.source, e.target)) { /* covered: at most made writable */
                                v[k].rw = v[k].rw || e.rw;
                                merged = true;
                        } else if (covers(&e, v[k].source, v[k].target)) { /* a wider one used: it replaces */
                                e.rw = e.rw || v[k].rw;
                                learned_clear(&v[k], 1);
                                v[k] = v[--n];
                                k--;
                        }
                if (merged || !(e.why = why_of(d))) {
                        learned_clear(&e, 1);
                        continue;
                }
                v[n++] = e;
        }
        return n;
}

static json_t *rule_json(const learned *e)
{
        json_t *o = json_object();
        bool ok = json_put(o, "source", json_text(e->source)) &&
                  (!e->target || json_put(o, "target", json_text(e->target))) &&
                  json_put(o, "mode", json_string(e->rw ? "rw" : "ro")) && json_put(o, "comment", json_text(e->why));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

/* The allowlist entries of |denied| (into |entries|), and why each (into
 * |comments|). */
static bool network_entries(const json_t *denied, json_t *entries, json_t *comments)
{
        static const char PREFIX[] = "--allow-net ";
        size_t i;
        json_t *d;
        bool ok = true;
        json_array_foreach(denied, i, d)
        {
                const char *sug = json_string_value(json_object_get(d, "suggestion"));
                if (!ok || !sug || strncmp(sug, PREFIX, sizeof(PREFIX) - 1) != 0)
                        continue;
                const char *entry = sug + sizeof(PREFIX) - 1;
                bool seen = false;
                size_t k;
                json_t *x;
                json_array_foreach(entries, k, x) seen = seen || streq(json_string_value(x), entry);
                _cleanup_free_ char *why = seen ? NULL : why_of(d);
                _cleanup_free_ char *line = why ? xasprintf("network_allow %s: %s", entry, why) : NULL;
                if (!seen)
                        ok = line && json_put(entries, NULL, json_text(entry)) && json_put(comments, NULL, json_text(line));
        }
        return ok;
}

char *denied_learned_layer(const json_t *denied, const char *home)
{
        learned v[DENIED_MAX];
        size_t n = exposures(denied, home, v, ARRAY_SIZE(v));
        json_t *layer = json_object(), *iso = json_object(), *rules = json_array(), *net = json_array();
        json_t *comments = json_array();
        bool ok = layer && iso && rules && net && comments &&
                  json_put(comments, NULL,
                           json_string("learned by cordon learn from one run's refusals: review it before you use "
                                       "it (cordon run --config FILE)"));
        for (size_t i = 0; ok && i < n; i++)
                ok = json_put(rules, NULL, rule_json(&v[i]));
        learned_clear(v, n);
        ok = ok && network_entries(denied, net, comments);
        ok = ok && json_put(layer, "comment", json_incref(comments));
        if (ok && json_array_size(rules))
                ok = json_put(iso, "expose_paths", json_incref(rules));
        if (ok && json_array_size(net))
                ok = json_put(iso, "network_allow", json_incref(net));
        ok = ok && json_put(layer, "isolation", json_incref(iso));
        _cleanup_free_ char *s = ok ? json_dumps(layer, JSON_PRESERVE_ORDER | JSON_INDENT(2)) : NULL;
        json_decref(layer);
        json_decref(iso);
        json_decref(rules);
        json_decref(net);
        json_decref(comments);
        return s ? strjoin2(s, "\n") : NULL;
}
