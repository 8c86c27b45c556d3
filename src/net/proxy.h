/* SPDX-License-Identifier: MIT */
/* The allowlist proxy (HTTP forwarding, CONNECT, SOCKS5): a thread of the
 * launcher, in the host's network, serving the sandbox through a listening
 * socket made inside the sandbox's network namespace (linux backend), or
 * on the host's loopback (landlock and seatbelt backends). */
#pragma once

#include "cordon.h"
#include "net/allowlist.h"
#include "util.h"

/* Where the command reaches the proxy: loopback of its own namespace. */
#define PROXY_PORT 3128
#define PROXY_HOST "127.0.0.1"

typedef struct proxy proxy;

/* The data byte of a listener the sandbox's init sends (proxy_start). */
#define PROXY_INDEX_PROXY 0        /* 127.0.0.1:PROXY_PORT */
#define PROXY_INDEX_FORWARD 1      /* + i: the loopback service fwd[i] */
#define PROXY_INDEX_INTERCEPTED 100 /* + j: an intercepted port, on every address */
#define PROXY_INDEX_DNS 250        /* the resolver's UDP socket, 127.0.0.1:53 */

/* How long a connection may take, in seconds. */
typedef struct proxy_timeouts {
        double setup_s;     /* the request's head, resolving its name, connecting upstream (each) */
        double idle_s;      /* a tunnel without traffic either way */
        double half_open_s; /* a tunnel once one side has closed */
} proxy_timeouts;

/* For tests only: CORDON_TEST_PROXY_TIMEOUTS=SETUP,IDLE,HALF_OPEN (whole
 * seconds, 1 to 3600), read from the launcher's environment when the proxy
 * starts (the sandboxed command cannot set it); anything else: these. */
#define PROXY_TIMEOUTS_DEFAULT ((proxy_timeouts){30, 300, 60})
#define PROXY_TIMEOUTS_ENV "CORDON_TEST_PROXY_TIMEOUTS"

/* One refused (host, port), reported once. */
typedef struct proxy_denial {
        char *host;
        unsigned port;
        char *reason;
        char *allow; /* the --allow-net entry that would allow it, or NULL */
} proxy_denial;

/* Start the proxy thread for |allow| (canonical entries). It accepts on
 * |listen_fd| when >= 0, else on the descriptors that arrive over the unix
 * socket |channel_fd| (SCM_RIGHTS, one a message, its one byte of data its
 * index: 0 the proxy's listener, 1 + i the listener of |fwd|[i], a
 * loopback service forwarded; from the sandbox's init, which then closes
 * it). Takes both descriptors (also on failure); copies |fwd| (|n_fwd| <=
 * NET_FORWARDS_MAX). Denials go to |log_fn| (from the proxy thread,
 * CORDON_LOG_DENIED). Returns 0 or a negative errno with |ret_error| set. */
int proxy_start(const char *const *allow, const net_forward *fwd, size_t n_fwd, int listen_fd, int channel_fd,
                cordon_log_fn log_fn, void *userdata, proxy **ret, cordon_error **ret_error) HIDDEN;
/* Stop the thread and close every connection (idempotent). */
void proxy_stop(proxy *p) HIDDEN;
/* Stops and frees; NULL. */
proxy *proxy_free(proxy *p) HIDDEN;
/* Add (|add|) or remove the allowlist entry |spec| (one, as --allow-net
 * takes it) while the proxy runs, from any thread: every request checked
 * after it returns sees the change (open tunnels stay). The canonical
 * entry into |*ret_entry| (caller frees; may be NULL). Returns 0, or
 * -EINVAL (not an entry), -ENOENT (removing one the list does not hold),
 * -ESRCH (the proxy stopped: the sandbox ended) with |ret_error| set. */
int proxy_grant(proxy *p, const char *spec, bool add, char **ret_entry, cordon_error **ret_error) HIDDEN;
/* The changes so far, in order: [{"op": "allow"|"remove", "entry"}] (NULL
 * on ENOMEM). Caller releases it with json_decref. */
json_t *proxy_grants_json(proxy *p) HIDDEN;
/* The denials so far (valid until proxy_free; stable once stopped). */
const proxy_denial *proxy_denials(const proxy *p, size_t *ret_n) HIDDEN;
/* The denials as a JSON array ([] for none; NULL on ENOMEM). Caller
 * releases it with json_decref. */
json_t *proxy_denials_json(const proxy *p) HIDDEN;
