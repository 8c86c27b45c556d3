/* SPDX-License-Identifier: MIT */
/* cgroup v1: the sandbox's cgroup goes under the caller's cgroup of each
 * hierarchy (so that the caller's own limits still apply), or under
 * "<hierarchy>/cordon" when the caller is in the root cgroup (cgroup.h),
 * where the caller may create it (v1 cgroups are normally root's). Called
 * by cgroup_create (cgroup.c) and cgroup-check.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgroup-internal.h"

int cg_plan_v1(const cgroup_env *env, hier *h, char **why)
{
        if (!h->own)
                return cg_fail_why(why, -ENOTSUP, "this process's cgroup is not visible under %s", h->mount);
        bool at_top = streq(h->own, h->mount);
        h->parent = at_top ? path_join(h->mount, "cordon") : strdup(h->own);
        h->mkdir_parent = at_top;
        if (!h->parent)
                return -ENOMEM;
        const char *need = at_top ? h->mount : h->own;
        if (!cg_may_write(env, need))
                return cg_fail_why(why, -EPERM,
                                   "the cgroup v1 hierarchy %s is not writable by uid %u (v1 cgroups "
                                   "are normally root's)",
                                   need, (unsigned)env->uid);
        return 0;
}
