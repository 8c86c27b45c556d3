/* SPDX-License-Identifier: MIT */
/* --explain: a call cordon's seccomp filter refuses, handed over by the
 * listener's filter in this run only (seccomp-notify.c): answered with the
 * errno the filter gives in every run, which the observer finds by running
 * that filter's program on the call (never let on), and noted in the run's
 * denials (kind syscall: nothing can allow it), but for the fallbacks
 * (ENOSYS). Called first for every
 * notification by supervise.c's serve: a call the supervisor would serve
 * or observe (a chmod with S_ISUID, an openat making a set-id file) is
 * refused as without --explain. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "denied.h"
#include "supervise-internal.h"

/* "cordon's seccomp filter refuses NAME", with why where one rule says. */
static char *rule_of(const char *name)
{
        const seccomp_rule_info *const tables[] = {SECCOMP_DENIED, SECCOMP_HOST_IPC};
        for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
                for (const seccomp_rule_info *r = tables[t]; r->name; r++)
                        if (streq(r->name, name))
                                return xasprintf("cordon's seccomp filter refuses %s: %s", name, r->why);
        return xasprintf("cordon's seccomp filter refuses %s", name);
}

bool serve_refused(const call *c)
{
        const seccomp_prog *p = &c->s->opt.refusals;
        if (!p->filter)
                return false;
        uint32_t action = seccomp_eval(p, &c->req->data);
        if ((action & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO)
                return false;
        int err = (int)(action & SECCOMP_RET_DATA);
        supervise_respond(c->s, c->req->id, -err);
        /* ENOSYS: a call whose arguments are in memory (clone3, openat2,
         * fchmodat2), for libc to fall back to the form the filter checks:
         * nothing the command wanted was refused */
        if (!c->s->opt.denied || err == ENOSYS)
                return true;
        _cleanup_free_ char *name = seccomp_call_name((long)c->req->data.nr);
        _cleanup_free_ char *rule = name ? rule_of(name) : NULL;
        if (rule)
                denied_note(c->s->opt.denied, DENIED_SYSCALL, name, rule, HOST_HAS_UNKNOWN, DENIED_NOT_ALLOWABLE,
                            "explain", -1);
        return true;
}
