/* SPDX-License-Identifier: MIT */
/* The launcher's parent (isolation.die_with_parent): a process that runs
 * sandboxes for its parent (the CLI for an agent) learns of the parent's
 * death through the parent death signal, and tells it from the exit of one
 * of the parent's threads (which sends the same signal) by its parent pid:
 * a process whose parent died has been handed to another. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "cordon.h"

#if CORDON_LINUX_BACKEND
#include <sys/prctl.h>

int cordon_parent_watch(pid_t parent, int sig)
{
        if (parent < 0 || sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
                return -EINVAL;
        if (prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) < 0)
                return -errno;
        /* armed: a death from now on is a signal; one before is seen here */
        return cordon_parent_gone(parent) ? -ESRCH : 0;
}

/* Async-signal-safe. A parent outside our pid namespace reads as 0, and
 * stays 0 when it dies: then every parent death signal is a death. */
bool cordon_parent_gone(pid_t parent) { return parent <= 0 || getppid() != parent; }
#else
int cordon_parent_watch(pid_t parent, int sig)
{
        (void)parent;
        (void)sig;
        return -ENOTSUP;
}

bool cordon_parent_gone(pid_t parent)
{
        (void)parent;
        return false;
}
#endif
