/* SPDX-License-Identifier: MIT */
/* What the backends that run the allowlist proxy (src/net/proxy.c) share.
 * Not in the Windows build, which has no proxy. */
#include <errno.h>

#include "backend.h"
#include "net/proxy.h"

#include "error.h"

static json_t *proxy_denied(const cordon_process *p) { return proxy_denials_json(process_head_const(p)->proxy); }

static int proxy_grant_change(cordon_process *p, const char *entry, bool add, cordon_error **ret_error)
{
        proxy *px = process_head_of(p)->proxy;
        if (!px)
                return error_set(ret_error, EINVAL,
                                 "the sandbox's network is not \"proxy\": an allowlist changes only where the run "
                                 "started with one (--allow-net, or --network proxy for an empty one)");
        return proxy_grant(px, entry, add, NULL, ret_error);
}

static json_t *proxy_grants(const cordon_process *p) { return proxy_grants_json(process_head_const(p)->proxy); }

const backend_net_ops backend_proxy_net = {
        .denied = proxy_denied,
        .grant = proxy_grant_change,
        .grants = proxy_grants,
};
