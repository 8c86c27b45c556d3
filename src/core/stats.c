/* SPDX-License-Identifier: MIT */
/* The --stats records: a result (with what the backend reports: the
 * proxy's refusals, the git check), or an error, as one line of JSON. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "denied.h"
#include "error.h"
#include "util.h"

/* Seconds to the microsecond, as a JSON number. */
static json_t *json_seconds(double s) { return json_real(round(s * 1e6) / 1e6); }

static json_t *result_object(const cordon_result *r)
{
        json_t *o = json_object();
        bool ok = json_put(o, "exit_code", json_integer(r->exit_code)) &&
                  json_put(o, "signal", json_integer(r->signal)) && json_put(o, "status", json_integer(r->status)) &&
                  json_put(o, "timed_out", json_boolean(r->timed_out)) &&
                  json_put(o, "oom_killed", json_boolean(r->oom_killed)) &&
                  json_put(o, "pids_limited", json_boolean(r->pids_limited)) &&
                  json_put(o, "cpu_limited", json_boolean(r->cpu_limited)) &&
                  json_put(o, "wall_s", json_seconds(r->wall_s)) && json_put(o, "user_s", json_seconds(r->user_s)) &&
                  json_put(o, "sys_s", json_seconds(r->sys_s)) &&
                  json_put(o, "max_rss_bytes", json_integer((json_int_t)r->max_rss_bytes)) &&
                  json_put(o, "pids_peak", json_integer((json_int_t)r->pids_peak));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

/* One line of JSON and a newline; takes |o|. NULL on ENOMEM. */
static char *record_text(json_t *o)
{
        _cleanup_free_ char *s = o ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
        json_decref(o);
        return s ? strjoin2(s, "\n") : NULL;
}

/* The proxy's denials (|net|: backend_net_ops.denied's array) in the form of the
 * record's "denied": port 0 is a name the sandbox's resolver refused; the
 * suggestion is the entry the proxy offered (its "allow"), or none. */
static json_t *net_denied(const json_t *net)
{
        json_t *a = json_array();
        size_t i;
        json_t *v;
        bool ok = a != NULL;
        json_array_foreach(net, i, v)
        {
                const char *host = json_string_value(json_object_get(v, "host"));
                unsigned port = (unsigned)json_integer_value(json_object_get(v, "port"));
                _cleanup_free_ char *hp = port == 0 ? strdup(host ? host : "")
                                          : xasprintf(host && strchr(host, ':') ? "[%s]:%u" : "%s:%u",
                                                      host ? host : "", port);
                /* the proxy's own entry: a name that resolves to a special
                 * address is allowed by that address, a refusal of the
                 * interception's (another SNI, a pool address never given)
                 * by none (proxy-denials.c) */
                const char *allow = json_string_value(json_object_get(v, "allow"));
                _cleanup_free_ char *s = allow ? strjoin2("--allow-net ", allow) : strdup(DENIED_NOT_ALLOWABLE);
                ok = ok && hp && s &&
                     json_put(a, NULL,
                              denied_entry_json(port == 0 ? DENIED_RESOLVE : DENIED_CONNECT, hp, json_string_value(json_object_get(v, "reason")),
                                                HOST_HAS_UNKNOWN, s, "proxy"));
        }
        if (!ok)
                json_decref(a);
        return ok ? a : NULL;
}

/* The hosts |p|'s proxy refused (NULL: no proxy, or ENOMEM). */
static json_t *proxy_denied_of(const cordon_process *p)
{
        const backend_ops *ops = p ? process_head_const(p)->ops : NULL;
        return ops && ops->net ? ops->net->denied(p) : NULL;
}

/* The record's "denied" for |r| (NULL: every note), with |net| (the
 * proxy's, NULL: none) first. */
static json_t *denied_of(const cordon_process *p, const cordon_result *r, const json_t *net, size_t *ret_omitted)
{
        json_t *extra = net ? net_denied(net) : json_array();
        return extra ? denied_json(p ? process_head_const(p)->denied : NULL, r ? r->status : -1, extra, ret_omitted)
                     : NULL;
}

char *cordon_process_denied_json(const cordon_process *p, const cordon_result *r)
{
        json_t *net = proxy_denied_of(p);
        json_t *d = denied_of(p, r, net, NULL);
        json_decref(net);
        _cleanup_free_ char *s = d ? json_dumps(d, JSON_PRESERVE_ORDER) : NULL;
        json_decref(d);
        return s ? TAKE_PTR(s) : NULL;
}

char *cordon_process_denied_summary(const cordon_process *p, const cordon_result *r, size_t max_lines)
{
        json_t *net = proxy_denied_of(p);
        size_t omitted = 0;
        json_t *d = denied_of(p, r, net, &omitted);
        json_decref(net);
        char *s = d ? denied_summary(d, omitted, max_lines) : NULL;
        json_decref(d);
        return s;
}

char *cordon_process_learned_layer(const cordon_process *p, const cordon_result *r)
{
        json_t *net = proxy_denied_of(p);
        json_t *d = denied_of(p, r, net, NULL);
        json_decref(net);
        char *s = d ? denied_learned_layer(d, p ? denied_list_home(process_head_const(p)->denied) : NULL) : NULL;
        json_decref(d);
        return s;
}

size_t cordon_process_denied_count(const cordon_process *p, const cordon_result *r)
{
        json_t *net = proxy_denied_of(p);
        size_t n = (net ? json_array_size(net) : 0) + denied_count(p ? process_head_const(p)->denied : NULL,
                                                                   r ? r->status : -1);
        json_decref(net);
        return n > DENIED_MAX ? DENIED_MAX : n;
}

char *cordon_process_stats_json(const cordon_process *p, const cordon_result *r)
{
        const backend_ops *ops = p ? process_head_const(p)->ops : NULL;
        json_t *o = result_object(r);
        const backend_net_ops *nops = ops ? ops->net : NULL;
        json_t *net = nops ? nops->denied(p) : json_array();
        json_t *grants = nops ? nops->grants(p) : json_array();
        size_t omitted = 0;
        json_t *denied = net ? denied_of(p, r, net, &omitted) : NULL;
        json_t *git = ops && ops->git_check ? ops->git_check(p) : json_null();
        json_t *degraded = ops && ops->degraded ? ops->degraded(p) : NULL;
        json_t *prot = ops && ops->protections ? ops->protections(p) : NULL;
        if (!json_put(o, "network_denied", net) || !json_put(o, "network_grants", grants) ||
            !json_put(o, "denied", denied) ||
            (omitted && !json_put(o, "denied_omitted", json_integer((json_int_t)omitted))) ||
            !json_put(o, "git_check", git) || (degraded && !json_put(o, "degraded", degraded)) ||
            (prot && !json_put(o, "protections", prot))) {
                json_decref(o);
                return NULL;
        }
        return record_text(o);
}

char *cordon_result_to_json(const cordon_result *r) { return record_text(result_object(r)); }

static json_t *error_object(const cordon_error *e, const char *flag)
{
        json_t *o = json_object();
        bool ok = json_put(o, "message", json_text(cordon_error_message(e))) &&
                  json_put(o, "code", json_integer(cordon_error_exit_status(e)));
        if (ok && flag)
                ok = json_put(o, "flag", json_text(flag));
        if (ok && e && e->file)
                ok = json_put(o, "file", json_text(e->file));
        if (ok && e && e->line > 0)
                ok = json_put(o, "line", json_integer(e->line)) && json_put(o, "column", json_integer(e->column));
        if (ok && e && e->key)
                ok = json_put(o, "key", json_text(e->key));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

char *cordon_error_stats_json(const cordon_error *e, const char *flag)
{
        json_t *o = json_object();
        if (!json_put(o, "error", error_object(e, flag)) ||
            !json_put(o, "status", json_integer(cordon_error_exit_status(e)))) {
                json_decref(o);
                return NULL;
        }
        return record_text(o);
}
