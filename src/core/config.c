/* SPDX-License-Identifier: MIT */
/* The config object: new, free, copy, and the puts every layer makes
 * (config-parse.c: the JSON layers, config-setters.c: the programmatic
 * one, config-profiles.c: named layers; config-validate.c checks values).
 *
 * Layering: each layer is applied to a copy of the current config, field by
 * field (a key present in the layer replaces the value; objects such as
 * auto_expose, limits and set merge key by key; arrays replace, except
 * expose_paths, merged by target). The copy replaces the config only when
 * the whole layer validated, so a bad layer changes nothing. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "config-internal.h"
#include "net/allowlist.h"

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
        free(c->helper_program);
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

cordon_config *config_dup(const cordon_config *c)
{
        cordon_config *d = calloc(1, sizeof(*d));
        if (!d)
                return NULL;
        *d = *c;
        d->disabled_by = d->backend = d->home = d->workspace = NULL;
        d->home_from = d->workspace_from = d->network_from = d->allow_from = d->origin = d->helper_program = NULL;
        d->expose = NULL;
        d->n_expose = 0;
        d->protect = d->network_allow = d->exclude = d->include_only = d->pass = d->profile_dirs = d->files = NULL;
        d->set = NULL;
        d->n_set = 0;
        bool ok = dup_field(&d->disabled_by, c->disabled_by) && dup_field(&d->backend, c->backend) &&
                  dup_field(&d->home, c->home) && dup_field(&d->workspace, c->workspace) &&
                  dup_field(&d->home_from, c->home_from) && dup_field(&d->workspace_from, c->workspace_from) &&
                  dup_field(&d->network_from, c->network_from) && dup_field(&d->allow_from, c->allow_from) &&
                  dup_field(&d->origin, c->origin) && dup_field(&d->helper_program, c->helper_program);
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
void config_swap_in(cordon_config *c, cordon_config *n)
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

void log_message(cordon_log_fn fn, void *userdata, cordon_log_level level, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        log_message_v(fn, userdata, level, fmt, ap);
        va_end(ap);
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

/* "network" and "network_allow" across layers: the later layer wins (an
 * allowlist over an earlier "network": "none" means "proxy"; an explicit
 * network over an earlier allowlist drops the list, but "proxy", which
 * uses it). Within one layer both are the planner's conflict. |seq| is
 * the layer (config.h). */
void config_network_chosen(cordon_config *c, unsigned seq)
{
        if (c->allow_from && c->allow_seq < seq && c->network != CORDON_NETWORK_PROXY) {
                c->network_allow = strv_free(c->network_allow);
                free(c->allow_from);
                c->allow_from = NULL;
        }
        c->network_seq = seq;
}

void config_allow_chosen(cordon_config *c, unsigned seq)
{
        if (c->network_from && c->network_seq < seq && c->network != CORDON_NETWORK_PROXY) {
                c->network = CORDON_NETWORK_NONE; /* the default: with the list, "proxy" */
                free(c->network_from);
                c->network_from = NULL;
        }
        c->allow_seq = seq;
}

/* Add the canonical form of |spec| to the allowlist, once. Returns 0,
 * -EINVAL (|*why| says why) or -ENOMEM. */
int network_allow_put(cordon_config *c, const char *spec, const char **why)
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
int expose_put(cordon_config *c, char *source, char *target, bool writable, bool optional, char *from)
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

int env_set_put(cordon_config *c, const char *name, const char *value)
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


/* Adds |name| to |*list| once. */
int pass_put(char ***list, const char *name)
{
        return *list && strv_contains(*list, name) ? 0 : strv_push(list, name);
}
