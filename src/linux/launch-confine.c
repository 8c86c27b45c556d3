/* SPDX-License-Identifier: MIT */
/* The confinement the launcher prepares before the clone: the command's
 * rlimits (checked against the launcher's hard limits, no core dumps),
 * the Landlock ruleset for this kernel's ABI, backend and network, and the
 * landlock backend's supervisor filter. Called by prepare_launch
 * (launch.c); the child applies them (child-exec.c). */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "error.h"
#include "launch-internal.h"

/* The command's rlimits. A sandbox cannot raise a hard limit above the
 * launcher's: CAP_SYS_RESOURCE counts only in the initial user namespace,
 * so even a root launcher's sandbox gets EPERM. Say so here, naming the
 * limit, rather than fail in the child. */
int launch_set_rlimits(const cordon_plan *p, bool nproc, launch *l, cordon_error **ret_error)
{
        static const struct {
                cordon_limit limit;
                int resource;
                const char *name, *flag;
                rlim_t grace; /* hard = soft + grace */
                rlim_t extra; /* added to both */
        } R[] = {
                /* SIGXCPU at the soft limit, SIGKILL one second later */
                {CORDON_LIMIT_CPU_TIME_S, RLIMIT_CPU, "CPU time", "--cpu-time", 1, 0},
                {CORDON_LIMIT_OPEN_FILES, RLIMIT_NOFILE, "open files", "--nofile", 0, 0},
                {CORDON_LIMIT_FILE_SIZE_BYTES, RLIMIT_FSIZE, "file size", "--fsize", 0, 0},
                /* where no pids cgroup could be had (cgroup_prepare): counted
                 * in the sandbox's user namespace, where the init counts too */
                {CORDON_LIMIT_PIDS, RLIMIT_NPROC, "process", "--pids", 0, 1},
        };
        for (size_t i = 0; i < ARRAY_SIZE(R); i++) {
                double v = p->limits[R[i].limit];
                if (v <= 0 || (R[i].resource == RLIMIT_NPROC && !nproc))
                        continue;
                /* the init counts in the linux backend's user namespace; the
                 * landlock backend's supervisor is root, not the sandbox user */
                v += p->backend == BACKEND_LINUX ? (double)R[i].extra : 0;
                struct rlimit cur, want = {(rlim_t)v, (rlim_t)v + R[i].grace};
                if (getrlimit(R[i].resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY) {
                        if (want.rlim_cur > cur.rlim_max)
                                return error_set(ret_error, EPERM,
                                                 "the %s limit %.0f (%s) is above this process's hard limit %llu, "
                                                 "which a sandbox cannot raise (not even as root): raise the hard "
                                                 "limit first (ulimit -H) or ask for at most that",
                                                 R[i].name, p->limits[R[i].limit], R[i].flag,
                                                 (unsigned long long)(cur.rlim_max - (p->backend == BACKEND_LINUX
                                                                                          ? R[i].extra
                                                                                          : 0)));
                        if (want.rlim_max > cur.rlim_max)
                                want.rlim_max = cur.rlim_max;
                }
                l->rlimits[l->n_rlimits++] = (child_rlimit){R[i].resource, want};
        }
        /* No core dumps: they would land in the writable workspace, and on
         * hosts that pipe core_pattern to a handler, the crash would start a
         * host program as root on the sandbox's behalf. */
        if (p->backend != BACKEND_NONE)
                l->rlimits[l->n_rlimits++] = (child_rlimit){RLIMIT_CORE, {0, 0}};
        return 0;
}

int launch_setup_landlock(const cordon_plan *p, unsigned proxy_port, const net_forward *fwd, size_t n_fwd,
                          landlock_rights *ll, int *ret_abi, launch *l, cordon_error **ret_error)
{
        *ll = (landlock_rights){0};
        l->landlock_fd = -1;
        *ret_abi = 0;
        /* the landlock backend's "proxy" is only as tight as Landlock's TCP rules */
        bool proxy_needs_net = p->backend == BACKEND_LANDLOCK && p->network == CORDON_NETWORK_PROXY;
        int r = landlock_full_network_check(p);
        if (r < 0)
                return error_set(ret_error, -r, "%s", LINUX_FULL_NEEDS_SCOPES);
        if (p->landlock == LANDLOCK_OFF)
                return proxy_needs_net ? error_set(ret_error, EINVAL,
                                                   "the network \"proxy\" on the landlock backend needs Landlock to "
                                                   "keep the command's TCP to the proxy, and it is off by config")
                                       : 0;
        int abi = landlock_abi(), relied_abi = landlock_abi_relied(abi);
        *ret_abi = abi;
        if (relied_abi < 1 && (p->landlock == LANDLOCK_REQUIRED || p->backend == BACKEND_LANDLOCK))
                return error_set(ret_error, -relied_abi, "Landlock is required but unavailable: %s",
                                 landlock_hint(relied_abi));
        if (abi < 1)
                return 0;
        *ll = landlock_rights_for_abi(abi);
        /* what cordon relies on for its refusals and fallbacks (lower than
         * the kernel's only under CORDON_TEST_LANDLOCK_ABI); the ruleset
         * keeps every right of the kernel's own */
        landlock_rights relied = landlock_rights_for_abi(relied_abi);
        /* ABI 9 handles connect() to pathname unix sockets: on the landlock
         * backend (every network: "full" is the internet, not the host's
         * IPC) a wall of Landlock's own behind the call supervisor; the
         * linux backend's mount namespace shows only exposed sockets anyway */
        if (p->backend != BACKEND_LANDLOCK)
                ll->fs &= ~LL_FS_RESOLVE_UNIX;
        if (proxy_needs_net && !relied.net)
                return error_set(ret_error, EOPNOTSUPP,
                                 "the network \"proxy\" on the landlock backend needs Landlock ABI >= 4 (Linux >= "
                                 "6.7) to keep the command's TCP to the proxy's port, this kernel has ABI %d: use "
                                 "the linux backend, or the network \"none\"",
                                 relied_abi);
        /* TCP: the landlock backend has no network namespace; on the linux
         * backend "none" adds it as a second wall. "loopback" keeps local TCP. */
        bool deny_tcp = p->network == CORDON_NETWORK_NONE || p->network == CORDON_NETWORK_PROXY ||
                        (p->backend == BACKEND_LANDLOCK && p->network != CORDON_NETWORK_FULL);
        if (!deny_tcp)
                ll->net = 0;
        int fd = landlock_ruleset_new(ll);
        if (fd < 0)
                return error_set(ret_error, -fd, "cannot create a Landlock ruleset: %s", strerror(-fd));
        /* "proxy": TCP connect to the proxy's port only (a second wall
         * behind the namespace, which has nothing else) */
        int e = p->network == CORDON_NETWORK_PROXY && ll->net ? landlock_allow_port(fd, proxy_port, LL_NET_CONNECT_TCP)
                                                              : 0;
        /* and the allowlist's loopback services: on the landlock backend on
         * the host's loopback (the call supervisor checks the address), on
         * the linux backend the proxy's forwards on the sandbox's own lo */
        for (size_t i = 0; e == 0 && p->network == CORDON_NETWORK_PROXY && ll->net && i < n_fwd; i++)
                e = landlock_allow_port(fd, fwd[i].port, LL_NET_CONNECT_TCP);
        /* the linux backend's intercepted ports (any address: the
         * namespace routes every one to the proxy's listeners) */
        for (size_t i = 0; e == 0 && p->network == CORDON_NETWORK_PROXY && ll->net && i < l->n_tports; i++)
                e = landlock_allow_port(fd, l->tports[i], LL_NET_CONNECT_TCP);
        if (e < 0) {
                close(fd);
                return error_set(ret_error, -e, "cannot add a Landlock rule for the network proxy's port: %s",
                                 strerror(-e));
        }
        l->landlock_fd = fd;
        l->access_root = ll->fs & LL_FS_READ_DIR;
        return 0;
}

/* The landlock backend: the filter that hands the command's metadata,
 * connect and listen calls to the launcher, and its signal calls where
 * Landlock does not scope them. */
int launch_prepare_supervisor(const cordon_plan *p, launch_storage *s, cordon_error **ret_error)
{
        int r = supervise_available();
        if (r < 0)
                return error_set(ret_error, -r,
                                 "the landlock backend needs seccomp user notification and pidfd_getfd (Linux >= "
                                 "5.9) to keep the command from changing files outside its writable paths: %s",
                                 strerror(-r));
        supervise_options *o = &s->supervise_opt;
        *o = (supervise_options){.full_network = p->network == CORDON_NETWORK_FULL,
                                 .proxy_port = p->network == CORDON_NETWORK_PROXY ? s->proxy_port : 0,
                                 .log_fn = p->log_fn,
                                 .log_userdata = p->log_userdata,
                                 /* without Landlock's signal scope (ABI < 6, or
                                  * off): the signal calls, checked by the supervisor */
                                 .signals = !landlock_rights_for_abi(landlock_abi_relied(s->abi)).scoped,
                                 /* ... and truncate(2) without its right (ABI < 3) */
                                 .truncate = !(landlock_rights_for_abi(landlock_abi_relied(s->abi)).fs &
                                               LL_FS_TRUNCATE),
                                 .sandbox_user = p->sandbox_user,
                                 .uid = p->run_uid,
                                 .gid = p->run_gid,
                                 .explain = p->explain ? launch_explain_view(p) : NULL};
        if (p->explain && !o->explain)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (p->explain && (r = launch_explain_refusals(s, ret_error)) < 0)
                return r;
        if (p->network == CORDON_NETWORK_PROXY) {
                memcpy(o->loopback, s->fwd, s->n_fwd * sizeof(s->fwd[0]));
                o->n_loopback = s->n_fwd;
        }
        r = supervise_filter(o, &s->l.supervise);
        if (r < 0)
                return error_set(ret_error, -r, "cannot build the supervisor's filter: %s", strerror(-r));
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->supervise_pair) < 0)
                return error_set(ret_error, errno, "cannot create a socket pair: %s", strerror(errno));
        s->l.supervise_fd = s->supervise_pair[1];
        return 0;
}
