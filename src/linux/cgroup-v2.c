/* SPDX-License-Identifier: MIT */
/* cgroup v2: where the sandbox's cgroup goes (the root's "cordon" child,
 * the caller's cgroup when it delegates the controllers, else beside it in
 * a delegated parent: cgroup.h says why), and the controllers enabled in
 * a parent's cgroup.subtree_control.
 * https://docs.kernel.org/admin-guide/cgroup-v2.html ("no internal process
 * constraint", "delegation containment"). Called by cgroup_create
 * (cgroup.c) and cgroup-check.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-internal.h"

static char *ctrl_list(unsigned ctrls, const char *prefix)
{
        buf b = {0};
        for (int c = 0; c < C__MAX; c++)
                if (ctrls & (1u << c))
                        buf_printf(&b, "%s%s%s", b.len ? " " : "", prefix, CGROUP_CTRL[c]);
        char *s = buf_steal(&b);
        return s ? s : strdup("");
}

/* The controllers of |ctrls| missing from |dir|/|file|. */
static unsigned missing_in(const char *dir, const char *file, unsigned ctrls)
{
        _cleanup_free_ char *t = cg_read_file2(dir, file);
        unsigned miss = 0;
        for (int c = 0; c < C__MAX; c++)
                if ((ctrls & (1u << c)) && !(t && cg_has_word(t, CGROUP_CTRL[c], " \n")))
                        miss |= 1u << c;
        return miss;
}

/* v2: see cgroup.h for the order of the candidates. */
int cg_plan_v2(const cgroup_env *env, hier *h, char **why)
{
        if (!h->own)
                return cg_fail_why(why, -ENOTSUP, "this process's cgroup is not visible under %s", h->mount);
        if (streq(h->own, h->mount)) {
                /* The root (or a cgroup namespace's root): a "cordon" child. */
                unsigned miss = missing_in(h->mount, "cgroup.controllers", h->ctrls);
                if (miss) {
                        _cleanup_free_ char *m = ctrl_list(miss, "");
                        return cg_fail_why(why, -ENOTSUP, "%s/cgroup.controllers lacks %s", h->mount, m ? m : "");
                }
                if (!cg_may_write(env, h->mount) || !cg_may_write2(env, h->mount, "cgroup.subtree_control") ||
                    !cg_may_write2(env, h->mount, "cgroup.procs"))
                        return cg_fail_why(why, -EPERM, "the cgroup v2 root %s is not writable by uid %u", h->mount,
                                           (unsigned)env->uid);
                if (missing_in(h->mount, "cgroup.subtree_control", h->ctrls) && !(h->enable_first = strdup(h->mount)))
                        return -ENOMEM;
                h->parent = path_join(h->mount, "cordon");
                h->mkdir_parent = true;
                h->enable_in_parent = true;
                return h->parent ? 0 : -ENOMEM;
        }
        if (!missing_in(h->own, "cgroup.subtree_control", h->ctrls) && cg_may_write(env, h->own) &&
            cg_may_write2(env, h->own, "cgroup.procs")) {
                /* The caller's cgroup already hands the controllers down. */
                h->parent = strdup(h->own);
                return h->parent ? 0 : -ENOMEM;
        }
        /* Beside the caller's cgroup: it holds the caller, so (no internal
         * processes) it cannot hand controllers down itself. */
        _cleanup_free_ char *up = path_dirname(h->own);
        if (!up)
                return -ENOMEM;
        if (!path_startswith(up, h->mount))
                return cg_fail_why(why, -ENOTSUP, "this process's cgroup %s has no parent under %s", h->own, h->mount);
        if (!cg_may_write(env, up) || !cg_may_write2(env, up, "cgroup.procs"))
                return cg_fail_why(why, -EPERM,
                                   "this process's cgroup %s holds processes, so cgroup v2 lets no "
                                   "controller below it, and its parent %s is not writable by uid %u (not a delegated "
                                   "subtree)",
                                   h->own, up, (unsigned)env->uid);
        unsigned miss = missing_in(up, "cgroup.subtree_control", h->ctrls);
        if (miss) {
                _cleanup_free_ char *m = ctrl_list(miss, "");
                if (missing_in(up, "cgroup.controllers", miss))
                        return cg_fail_why(why, -ENOTSUP,
                                           "%s is not delegated the %s controller (see its "
                                           "cgroup.controllers)",
                                           up, m ? m : "");
                if (!cg_may_write2(env, up, "cgroup.subtree_control"))
                        return cg_fail_why(why, -EPERM, "%s/cgroup.subtree_control is not writable by uid %u", up,
                                           (unsigned)env->uid);
                h->enable_in_parent = true;
        }
        h->parent = TAKE_PTR(up);
        return 0;
}

int cg_enable_controllers(bool fixture, const char *dir, unsigned ctrls, char **why)
{
        unsigned miss = missing_in(dir, "cgroup.subtree_control", ctrls);
        if (!miss)
                return 0;
        _cleanup_free_ char *text = ctrl_list(miss, "+");
        if (!text)
                return -ENOMEM;
        int r = cg_write_file2(fixture, dir, "cgroup.subtree_control", text);
        if (r < 0)
                return cg_fail_why(why, r, "cannot enable %s in %s/cgroup.subtree_control: %s%s", text, dir,
                                   strerror(-r),
                                   r == -EBUSY ? " (that cgroup holds processes: cgroup v2 then lets no controller "
                                                 "below it)"
                                               : "");
        return 0;
}
