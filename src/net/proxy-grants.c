/* SPDX-License-Identifier: MIT */
/* Live grants: the caller adds entries to (or removes them from) the
 * allowlist of a running proxy, each change recorded for the run's record
 * in the order it was made. The caller's thread changes the policy under
 * the proxy's policy lock, which the proxy's thread holds while it checks
 * a request (proxy-upstream.c): a change holds for every connection whose
 * check comes after it, at once; a tunnel already open stays open. Called
 * by backend-proxy.c (cordon_process_allow_net and _remove_net). */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "net/proxy-internal.h"

static int note_grant(proxy *p, bool add, const char *entry)
{
        if (p->n_grants == p->grants_cap) {
                size_t cap = p->grants_cap ? 2 * p->grants_cap : 8;
                proxy_grant_note *g = realloc(p->grants, cap * sizeof(*g));
                if (!g)
                        return -ENOMEM;
                p->grants = g;
                p->grants_cap = cap;
        }
        proxy_grant_note *g = &p->grants[p->n_grants];
        g->add = add;
        g->entry = strdup(entry);
        if (!g->entry)
                return -ENOMEM;
        p->n_grants++;
        return 0;
}

static bool entry_eq(const net_entry *a, const net_entry *b)
{
        return a->kind == b->kind && a->port == b->port &&
               (a->kind == NET_CIDR ? a->prefix == b->prefix && memcmp(a->addr.b, b->addr.b, 16) == 0
                                    : streq(a->name, b->name));
}

static int policy_add(net_policy *pol, const net_entry *e)
{
        for (size_t i = 0; i < pol->n; i++)
                if (entry_eq(&pol->e[i], e))
                        return 0; /* already there */
        net_entry *grown = realloc(pol->e, (pol->n + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        pol->e = grown;
        pol->e[pol->n++] = *e;
        return 0;
}

static int policy_remove(net_policy *pol, const net_entry *e)
{
        size_t kept = 0;
        for (size_t i = 0; i < pol->n; i++)
                if (!entry_eq(&pol->e[i], e))
                        pol->e[kept++] = pol->e[i];
        bool found = kept < pol->n;
        pol->n = kept;
        return found ? 0 : -ENOENT;
}

int proxy_grant(proxy *p, const char *spec, bool add, char **ret_entry, cordon_error **ret_error)
{
        net_entry e;
        const char *why = NULL;
        if (net_entry_parse(spec, &e, &why) < 0) {
                _cleanup_free_ char *shown = str_escape(spec ? spec : "", false);
                return error_set(ret_error, EINVAL, "network allowlist: %s: %s", shown ? shown : "?", why);
        }
        _cleanup_free_ char *text = net_entry_format(&e);
        if (!text)
                return error_set(ret_error, ENOMEM, "out of memory");
        pthread_mutex_lock(&p->policy_lock);
        int r = p->stopped ? -ESRCH : add ? policy_add(&p->policy, &e) : policy_remove(&p->policy, &e);
        if (r == 0)
                r = note_grant(p, add, text);
        pthread_mutex_unlock(&p->policy_lock);
        if (r == -ESRCH)
                return error_set(ret_error, ESRCH, "the sandbox has ended: its allowlist no longer changes");
        if (r == -ENOENT)
                return error_set(ret_error, ENOENT, "network allowlist: %s is not in it", text);
        if (r < 0)
                return error_set(ret_error, -r, "out of memory");
        if (ret_entry)
                *ret_entry = TAKE_PTR(text);
        return 0;
}

json_t *proxy_grants_json(proxy *p)
{
        json_t *a = json_array();
        bool ok = a != NULL;
        if (p)
                pthread_mutex_lock(&p->policy_lock);
        for (size_t i = 0; ok && p && i < p->n_grants; i++) {
                json_t *o = json_object();
                bool made = json_put(o, "op", json_string(p->grants[i].add ? "allow" : "remove")) &&
                            json_put(o, "entry", json_string(p->grants[i].entry));
                if (!made)
                        json_decref(o);
                ok = made && json_put(a, NULL, o);
        }
        if (p)
                pthread_mutex_unlock(&p->policy_lock);
        if (!ok)
                json_decref(a);
        return ok ? a : NULL;
}
