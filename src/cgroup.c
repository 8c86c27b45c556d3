/* SPDX-License-Identifier: MIT */
/* cgroup limits. Placeholder until the limits work lands: fails closed. */
#include "cgroup.h"

#include <errno.h>

#include "error.h"
#include "host.h"

int cgroup_prepare(const cordon_plan *p, cgroup **ret, cordon_error **ret_error)
{
        *ret = NULL;
        bool want = p->limits[CORDON_LIMIT_MEMORY_BYTES] > 0 || p->limits[CORDON_LIMIT_PIDS] > 0 ||
                    p->limits[CORDON_LIMIT_CPU_QUOTA] > 0;
        if (!want)
                return 0;
        if (p->limits_best_effort) {
                if (p->log_fn)
                        p->log_fn(CORDON_LOG_WARNING, "cgroup limits are not enforced on this host (best effort)",
                                  p->log_userdata);
                return 0;
        }
        return error_set(ret_error, ENOTSUP, "cgroup limits (memory, pids, cpus) cannot be enforced yet");
}

int cgroup_attach(cgroup *cg, pid_t pid, cordon_error **ret_error)
{
        (void)cg;
        (void)pid;
        (void)ret_error;
        return 0;
}

int cgroup_signal(cgroup *cg, int sig)
{
        (void)cg;
        (void)sig;
        return -ENOTSUP;
}

void cgroup_collect(cgroup *cg, cordon_result *res)
{
        (void)cg;
        (void)res;
}

cgroup *cgroup_free(cgroup *cg)
{
        (void)cg;
        return NULL;
}

char *host_cgroup_summary(void) { return xasprintf("not probed"); }
