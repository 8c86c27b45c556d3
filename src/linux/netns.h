/* SPDX-License-Identifier: MIT */
/* The sandbox's network namespace and the proxy's listener in it (netns.c),
 * for the init (child.c). */
#pragma once

#include <stdbool.h>

#include "launch.h"

/* Creating a network namespace costs as much as all the mounts: a thread
 * of the init creates it (namespaces are per thread) while the init mounts,
 * and hands over a descriptor of it. */
typedef struct netns_job {
        volatile int tid;  /* the helper's; the kernel clears it when it exits */
        bool loopback;     /* bring lo up */
        child_step step;   /* what it did last (what failed, on failure) */
        int result;        /* an fd of the namespace, or -errno */
} netns_job;

/* Bring lo up in the init's own network namespace; fails the init (never
 * returns) on error. */
void init_loopback_up(const launch *l) HIDDEN;
/* Start the helper thread that makes the namespace: false when none could
 * be made. */
bool netns_start(const launch *l, netns_job *j) HIDDEN;
/* Wait for it and join its namespace; fails the init on error. */
void netns_join(const launch *l, netns_job *j) HIDDEN;
/* Listen on the proxy's port in the sandbox and hand the socket to the
 * launcher; fails the init on error. */
void send_proxy_listener(const launch *l) HIDDEN;
