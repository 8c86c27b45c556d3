/* SPDX-License-Identifier: MIT */
/* The sandbox's network namespace, made by a thread of the init while it
 * mounts, its loopback, and the network proxy's listener in it. Runs in
 * the child after clone(), as child.c does: system calls only. */
#include <errno.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"
#include "launch.h"
#include "net/proxy.h"
#include "net/resolved.h"
#include "netns.h"
#include "sys.h"

/* Bring lo up through the socket |sock| of its network namespace: 0 or
 * -errno. Raw system calls: the init's helper thread runs it too. */
static long loopback_up(long sock)
{
        struct ifreq ifr = {.ifr_name = "lo"};
        long r = INIT_CALL(SYS_ioctl, sock, SIOCGIFFLAGS, &ifr, 0);
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        return r < 0 ? r : INIT_CALL(SYS_ioctl, sock, SIOCSIFFLAGS, &ifr, 0);
}

/* The init itself, when no helper thread made the namespace. */
void init_loopback_up(const launch *l)
{
        long sock = INIT_CALL(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0);
        long r = sock < 0 ? sock : loopback_up(sock);
        if (r < 0)
                fail(l, STEP_LOOPBACK, (int)-r, "lo");
        close((int)sock);
}

/* ---- the network namespace, made by a helper thread ------------------------------ */

/* The helper shares the init's memory and TLS: raw system calls only. */
static int netns_helper(void *arg)
{
        netns_job *j = arg;
        long sock = sys_raw(SYS_unshare, CLONE_NEWNET, 0, 0, 0);
        j->step = STEP_NETNS;
        if (sock == 0)
                sock = sys_raw(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0);
        long r = sock;
        if (sock >= 0 && j->loopback) {
                r = loopback_up(sock);
                j->step = r == 0 ? STEP_NETNS : STEP_LOOPBACK;
        }
        if (r >= 0)
                r = sys_raw(SYS_ioctl, sock, SIOCGSKNS, 0, 0);
        if (sock >= 0)
                sys_raw(SYS_close, sock, 0, 0, 0);
        j->result = (int)r;
        return 0;
}

/* Start the helper on the command's stack (unused until the command
 * starts, after netns_join). False when no thread could be made. */
bool netns_start(const launch *l, netns_job *j)
{
        j->tid = 1;
        j->loopback = l->loopback;
        j->step = STEP_NETNS;
        j->result = -EINVAL;
        int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                    CLONE_CHILD_CLEARTID;
        return clone(netns_helper, l->command_stack_top, flags, j, NULL, NULL, &j->tid) > 0;
}

/* Wait for the helper, then join its namespace. */
void netns_join(const launch *l, netns_job *j)
{
        int tid;
        while ((tid = j->tid) != 0)
                sys_raw(SYS_futex, (long)&j->tid, FUTEX_WAIT, tid, 0);
        if (j->result < 0)
                fail(l, j->step, -j->result, j->step == STEP_LOOPBACK ? "lo" : NULL);
        CHECK(l, setns(j->result, CLONE_NEWNET), STEP_NETNS, NULL);
        close(j->result);
}

/* ---- the network proxy's listener --------------------------------------------------- */

/* Listen on |sa| (a |type| socket) and send it to the launcher as
 * listener |index| (PROXY_INDEX_*). 0, 1 when an IPv6 address is not there
 * (a namespace without IPv6: no client can use it either), or -errno. */
static long send_listener(const launch *l, const struct sockaddr *sa, socklen_t len, int type, unsigned char index)
{
        long fd = INIT_CALL(SYS_socket, sa->sa_family, type | SOCK_CLOEXEC, 0, 0);
        long r = fd;
        if (r >= 0) /* [::]:P takes IPv4 too: a new namespace's bindv6only is 0 */
                r = INIT_CALL(SYS_bind, fd, sa, len, 0);
        if ((r == -EADDRNOTAVAIL || r == -EAFNOSUPPORT) && sa->sa_family == AF_INET6) {
                if (fd >= 0)
                        INIT_CALL(SYS_close, fd, 0, 0, 0);
                return 1;
        }
        if (r >= 0 && type == SOCK_STREAM)
                r = INIT_CALL(SYS_listen, fd, 1024, 0, 0);
        if (r >= 0) {
                fd_message fm;
                fd_message_init(&fm, (int)fd);
                fm.byte = (char)index;
                r = INIT_CALL(SYS_sendmsg, l->proxy_fd, &fm.m, MSG_NOSIGNAL, 0);
        }
        if (fd >= 0)
                INIT_CALL(SYS_close, fd, 0, 0, 0);
        return r < 0 ? r : 0;
}

/* Make the addresses |dst|/|dst_len| (|family|'s) local to lo (an
 * "AnyIP" route in the local table, as `ip route add local 198.18.0.0/15
 * dev lo`): a connection to one reaches a listener on the wildcard
 * address, which reads the address the client meant with getsockname.
 * Over the rtnetlink socket |nl|. 0 or -errno. */
typedef struct route_request {
        struct nlmsghdr h;
        struct rtmsg r;
        struct rtattr oif_a;
        uint32_t oif;
        struct rtattr dst_a;
        uint8_t dst[16];
} route_request;

static long anyip_route(long nl, const net_route *rt)
{
        size_t alen = rt->v4 ? 4 : 16;
        route_request req = {
                .h = {.nlmsg_len = (uint32_t)(offsetof(route_request, dst) + alen), .nlmsg_type = RTM_NEWROUTE,
                      .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, .nlmsg_seq = 1},
                .r = {.rtm_family = rt->v4 ? AF_INET : AF_INET6, .rtm_dst_len = (unsigned char)rt->prefix,
                      .rtm_table = RT_TABLE_LOCAL, .rtm_protocol = RTPROT_BOOT, .rtm_scope = RT_SCOPE_HOST,
                      .rtm_type = RTN_LOCAL},
                .oif_a = {.rta_len = RTA_LENGTH(sizeof(uint32_t)), .rta_type = RTA_OIF},
                .oif = 1, /* lo, in every new namespace */
                .dst_a = {.rta_len = (unsigned short)RTA_LENGTH(alen), .rta_type = RTA_DST}};
        for (size_t i = 0; i < alen; i++) /* no libc here */
                req.dst[i] = rt->b[i];
        struct {
                struct nlmsghdr h;
                struct nlmsgerr e;
        } ack = {0};
        long r = INIT_CALL(SYS_write, nl, &req, req.h.nlmsg_len, 0);
        if (r >= 0)
                r = INIT_CALL(SYS_read, nl, &ack, sizeof(ack), 0);
        if (r >= 0)
                r = r < (long)sizeof(ack) || ack.h.nlmsg_type != NLMSG_ERROR ? -EPROTO : ack.e.error;
        return r;
}

/* The resolver's addresses and the allowlist's routed to lo. IPv6 ones
 * fail where the namespace has no IPv6: nor do its clients. */
static void routes_to_lo(const launch *l)
{
        long nl = INIT_CALL(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE, 0);
        const uint32_t pool_be = htonl(RESOLVED_BASE);
        net_route pool = {.v4 = true, .prefix = RESOLVED_PREFIX};
        for (size_t i = 0; i < 4; i++)
                pool.b[i] = ((const uint8_t *)&pool_be)[i];
        long r = nl < 0 ? nl : anyip_route(nl, &pool);
        for (size_t i = 0; r >= 0 && i < l->n_routes; i++) {
                long e = anyip_route(nl, &l->routes[i]);
                if (l->routes[i].v4)
                        r = e;
        }
        if (nl >= 0)
                INIT_CALL(SYS_close, nl, 0, 0, 0);
        if (r < 0)
                fail(l, STEP_PROXY, (int)-r, "a route to lo");
}

/* The intercepted ports: the addresses routed to lo, a listener on the
 * wildcard address of each port, and the resolver's socket. */
static void send_intercepted(const launch *l)
{
        routes_to_lo(l);
        long r;
        for (size_t j = 0; j < l->n_tports; j++) {
                struct sockaddr_in6 s6 = {.sin6_family = AF_INET6, .sin6_port = htons(l->tports[j])};
                unsigned char index = (unsigned char)(PROXY_INDEX_INTERCEPTED + j);
                r = send_listener(l, (const struct sockaddr *)&s6, sizeof(s6), SOCK_STREAM, index);
                if (r == 1) {
                        struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(l->tports[j])};
                        r = send_listener(l, (const struct sockaddr *)&s4, sizeof(s4), SOCK_STREAM, index);
                }
                if (r < 0)
                        fail(l, STEP_PROXY, (int)-r, "an intercepted port");
        }
        struct sockaddr_in dns = {.sin_family = AF_INET, .sin_port = htons(53), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        r = send_listener(l, (const struct sockaddr *)&dns, sizeof(dns), SOCK_DGRAM, PROXY_INDEX_DNS);
        if (r < 0)
                fail(l, STEP_PROXY, (int)-r, "127.0.0.1:53");
}

static bool port_intercepted(const launch *l, in_port_t port_be)
{
        for (size_t j = 0; j < l->n_tports; j++)
                if (htons(l->tports[j]) == port_be)
                        return true;
        return false;
}

/* Network "proxy": listen on 127.0.0.1:PROXY_PORT of the sandbox's own
 * namespace and hand the socket to the launcher, whose proxy thread
 * accepts on it from the host's network: no relay inside, no socket file.
 * The same for each loopback service of the allowlist, on its address and
 * port (unless its port is intercepted: that listener takes it), and for
 * the intercepted ports: a client that reads no proxy variable, or skips
 * the proxy (NO_PROXY), reaches what the allowlist allows through the
 * proxy all the same, and nothing else. The init keeps no copy. */
void send_proxy_listener(const launch *l)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PROXY_PORT),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        long r = send_listener(l, (const struct sockaddr *)&sa, sizeof(sa), SOCK_STREAM, PROXY_INDEX_PROXY);
        if (r < 0)
                fail(l, STEP_PROXY, (int)-r, PROXY_HOST ":" STR(PROXY_PORT));
        for (size_t i = 0; i < l->n_fwd; i++) {
                const struct sockaddr_in *in = &l->fwd[i].sa.in; /* sin_port and sin6_port share a place */
                if (port_intercepted(l, in->sin_port))
                        continue;
                r = send_listener(l, (const struct sockaddr *)&l->fwd[i].sa, l->fwd[i].len, SOCK_STREAM,
                                  (unsigned char)(PROXY_INDEX_FORWARD + i));
                if (r < 0)
                        fail(l, STEP_PROXY, (int)-r, l->fwd[i].text);
        }
        if (l->n_tports)
                send_intercepted(l);
        INIT_CALL(SYS_close, l->proxy_fd, 0, 0, 0);
}
