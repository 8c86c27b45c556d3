/* SPDX-License-Identifier: MIT */
/* The proxy's denials: each refused (host, port) recorded once, told to
 * the log with the --allow-net entry that would allow it when it is one,
 * and listed for the run's record (proxy_denials, proxy_denials_json, for
 * backend-proxy.c). Noted by the connections (proxy-conn.c) on the
 * proxy's thread; read by the launcher's, under the lock. */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/proxy-internal.h"

/* Port 0: the name alone (a refused lookup, proxy-dns.c). */
void denial_host_port(const char *host, unsigned port, char *out, size_t n)
{
        if (port == 0)
                snprintf(out, n, "%s", host);
        else
                snprintf(out, n, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
}

/* May a denial of |host| (|hp|: with its port) suggest "--allow-net
 * |hp|"? Only when it is a valid name or IP literal, as the policy
 * checked it, and an entry as it is written. */
bool denial_suggestable(const char *host, const char *hp)
{
        char name[NET_HOST_MAX + 3];
        snprintf(name, sizeof(name), "%s", host);
        net_entry e;
        const char *why = NULL;
        return net_host_normalize(name) && streq(name, host) && net_entry_parse(hp, &e, &why) == 0;
}

/* Record (host, port) once and tell the log. */
void denial_note(proxy *p, const char *host, unsigned port, const char *reason, const char *allow)
{
        bool fresh = true;
        pthread_mutex_lock(&p->lock);
        for (size_t i = 0; i < p->n_denials && fresh; i++)
                fresh = !(p->denials[i].port == port && streq(p->denials[i].host, host));
        /* past DENIALS_MAX a denial is neither recorded nor told, but for
         * one line saying so: the names are the command's choice (a flood
         * of DNS queries, one a datagram), the caller's log is not */
        bool full = fresh && p->n_denials >= DENIALS_MAX;
        bool first_past = full && !p->denials_past_max;
        p->denials_past_max |= full;
        if (fresh && !full) {
                proxy_denial *d = &p->denials[p->n_denials];
                d->host = strdup(host);
                d->reason = strdup(reason);
                d->allow = allow ? strdup(allow) : NULL;
                d->port = port;
                if (d->host && d->reason && (d->allow || !allow)) {
                        p->n_denials++;
                } else {
                        free(d->host);
                        free(d->reason);
                        free(d->allow);
                }
        }
        pthread_mutex_unlock(&p->lock);
        if (first_past && p->log_fn)
                p->log_fn(CORDON_LOG_DENIED,
                          "network: more than " STR(DENIALS_MAX) " denials: the later ones are neither recorded nor shown",
                          p->log_userdata);
        if (!fresh || full || !p->log_fn)
                return;
        char hp[NET_HOST_MAX + 16];
        denial_host_port(host, port, hp, sizeof(hp));
        /* the name is the command's choice: escaped for the terminal, and
         * offered as an entry only when it is one (conn_deny) */
        _cleanup_free_ char *shown = str_escape(hp, false);
        _cleanup_free_ char *entry = allow ? str_escape(allow, false) : NULL;
        _cleanup_free_ char *m = !shown || (allow && !entry) ? NULL
                                 : entry ? xasprintf("network: denied %s: %s (allow it with --allow-net %s)", shown,
                                                     reason, entry)
                                         : xasprintf("network: denied %s: %s", shown, reason);
        if (m)
                p->log_fn(CORDON_LOG_DENIED, m, p->log_userdata);
}

const proxy_denial *proxy_denials(const proxy *p, size_t *ret_n)
{
        *ret_n = p ? p->n_denials : 0;
        return p ? p->denials : NULL;
}

/* Host names and reasons are the command's text: json_text keeps UTF-8
 * as it is and escapes the rest. */
static json_t *denial_json(const proxy_denial *d)
{
        json_t *o = json_object();
        bool ok = json_put(o, "host", json_text(d->host)) && json_put(o, "port", json_integer(d->port)) &&
                  json_put(o, "reason", json_text(d->reason)) &&
                  (!d->allow || json_put(o, "allow", json_text(d->allow)));
        if (!ok)
                json_decref(o);
        return ok ? o : NULL;
}

json_t *proxy_denials_json(const proxy *p)
{
        json_t *a = json_array();
        bool ok = a != NULL;
        if (p)
                pthread_mutex_lock((pthread_mutex_t *)&p->lock);
        for (size_t i = 0; ok && p && i < p->n_denials; i++)
                ok = json_put(a, NULL, denial_json(&p->denials[i]));
        if (p)
                pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
        if (!ok)
                json_decref(a);
        return ok ? a : NULL;
}
