/* SPDX-License-Identifier: MIT */
/* What the backends that run the allowlist proxy (src/net/proxy.c) share.
 * Not in the Windows build, which has no proxy. */
#include "backend.h"
#include "net/proxy.h"

json_t *backend_proxy_denied(const cordon_process *p) { return proxy_denials_json(process_head_const(p)->proxy); }
