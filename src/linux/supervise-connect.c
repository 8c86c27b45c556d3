/* SPDX-License-Identifier: MIT */
/* connect() and listen() for the command: a unix socket beneath a root
 * (connected through the descriptor that pinned it), cordon's proxy, or
 * with the network "full" any address; and the connects that wait (a
 * blocking connect answered later, while the supervisor serves the other
 * calls). Called by the supervisor's loop (supervise.c). */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "backend.h"
#include "denied.h"
#include "supervise-internal.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The command's socket itself (the same open file), to connect. The call
 * still waiting after the pidfd was opened means that the thread it names
 * is the caller, and that what was read of its memory before was its. */
int supervise_command_fd(const call *c, int fd)
{
        int pidfd = (int)syscall(SYS_pidfd_open, c->tid, PIDFD_THREAD);
        if (pidfd < 0)
                pidfd = (int)syscall(SYS_pidfd_open, c->req->pid, 0);
        if (pidfd < 0)
                return -errno;
        if (!call_still_valid(c)) {
                close(pidfd);
                return -ESRCH;
        }
        int sock = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
        int e = errno;
        close(pidfd);
        return sock < 0 ? -e : sock;
}

/* connect() on the command's socket without blocking this thread: a
 * blocking socket is non-blocking for the call (the command waits in its
 * own connect meanwhile). */
static int connect_now(int sock, const struct sockaddr *a, socklen_t len, bool *ret_blocking)
{
        int flags = fcntl(sock, F_GETFL);
        if (flags < 0)
                return -errno;
        *ret_blocking = !(flags & O_NONBLOCK);
        if (*ret_blocking && fcntl(sock, F_SETFL, flags | O_NONBLOCK) < 0)
                return -errno;
        int r = connect(sock, a, len) < 0 ? -errno : 0;
        if (*ret_blocking)
                (void)fcntl(sock, F_SETFL, flags);
        return r;
}

/* When a blocking connect on |sock| gives up: its SO_SNDTIMEO (0: never). */
static double give_up_at(int sock)
{
        struct timeval tv = {0};
        socklen_t n = sizeof(tv);
        if (getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, &n) < 0 || (tv.tv_sec == 0 && tv.tv_usec == 0))
                return 0;
        return monotonic_s() + (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Connects the command's socket |*sock| to |a|: 0 or -errno, or CALL_PENDING
 * when a blocking connect has to wait (a unix listener's backlog is full, a
 * TCP handshake runs); |*sock| and |*pin| then belong to the queue, which
 * answers the command later. */
static int connect_or_queue(const call *c, int *sock, int *pin, const struct sockaddr *a, socklen_t len)
{
        bool blocking = false, tcp = a->sa_family != AF_UNIX;
        int r = connect_now(*sock, a, len, &blocking);
        if (!blocking || !(tcp ? r == -EINPROGRESS || r == -EALREADY : r == -EAGAIN))
                return r;
        call_supervisor *s = c->s;
        if (s->n_pending == PENDING_MAX) /* that many waiting already: this one blocks the thread */
                return connect(*sock, a, len) < 0 ? -errno : 0;
        pending_connect *p = &s->pending[s->n_pending++];
        *p = (pending_connect){.id = c->req->id, .sock = *sock, .pin = *pin, .len = len, .handshake = tcp,
                               .give_up = give_up_at(*sock)};
        memcpy(&p->addr, a, len);
        *sock = *pin = -1;
        return CALL_PENDING;
}

/* A pathname unix socket beneath a writable root, connected to through
 * the descriptor that pinned it. Abstract names are refused: nothing tells
 * the command's own from the host's. */
static int connect_unix(const call *c, int *sock, const struct sockaddr_un *a, socklen_t len)
{
        if (len <= offsetof(struct sockaddr_un, sun_path))
                return connect(*sock, (const struct sockaddr *)a, len) < 0 ? -errno : 0;
        if (len > sizeof(*a))
                return -EINVAL; /* as the kernel says; and more than |path| holds */
        if (a->sun_path[0] == '\0')
                return -EPERM; /* as Landlock's scope refuses them */
        char path[sizeof(a->sun_path) + 1];
        size_t n = len - offsetof(struct sockaddr_un, sun_path);
        memcpy(path, a->sun_path, n);
        path[n] = '\0';
        target t = {.obj = -1, .parent = -1};
        int r = call_target_of_path(c, AT_FDCWD, path, true, false, &t);
        if (r == 0 && !S_ISSOCK(t.st.st_mode))
                r = -ECONNREFUSED;
        if (r == 0 && !call_still_valid(c))
                r = -ESRCH;
        if (r == 0 && !target_beneath_root(c->s, &t, true)) {
                supervise_report_refusal(c->s, "connect to", &t);
                r = -EACCES;
        }
        if (r == 0) {
                struct sockaddr_un via = {.sun_family = AF_UNIX};
                fd_path(via.sun_path, t.obj);
                r = connect_or_queue(c, sock, &t.obj, (const struct sockaddr *)&via, sizeof(via));
        }
        target_close(&t);
        return r;
}

/* A direct connect() to an address (the proxy is the only TCP peer), for
 * the record: the entry that allows it, for programs that use the proxy. */
static void note_direct(call_supervisor *s, const struct sockaddr_storage *ss, socklen_t len)
{
        char ip[INET6_ADDRSTRLEN] = "";
        unsigned port = 0;
        if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
                const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
                inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
                port = ntohs(in->sin_port);
        } else if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
                const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
                inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
                port = ntohs(in6->sin6_port);
        }
        if (!ip[0] || !s->opt.denied)
                return;
        _cleanup_free_ char *hp = xasprintf(ss->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
        _cleanup_free_ char *sug = denied_net_suggestion(ip, port);
        if (hp && sug)
                denied_note(s->opt.denied, DENIED_CONNECT, hp,
                            s->opt.proxy_port ? "a direct connection: on the landlock backend the network proxy "
                                                "(HTTP_PROXY, HTTPS_PROXY) is the only way out"
                                              : "the network is none",
                            HOST_HAS_UNKNOWN, sug, "supervisor", -1);
}

/* Is |ss| (|len| bytes) TCP to cordon's proxy, or to a loopback service
 * of the allowlist (net_loopback_forwards), on the host's loopback? */
static bool allowed_tcp(const supervise_options *o, const struct sockaddr_storage *ss, socklen_t len)
{
        const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
        if (!(ss->ss_family == AF_INET && len >= sizeof(*in)) && !(ss->ss_family == AF_INET6 && len >= sizeof(*in6)))
                return false;
        uint16_t port = ntohs(ss->ss_family == AF_INET ? in->sin_port : in6->sin6_port);
        net_addr a;
        net_addr_from_sockaddr((const struct sockaddr *)ss, &a);
        net_addr proxy;
        if (o->proxy_port && port == o->proxy_port && net_addr_parse("127.0.0.1", &proxy) &&
            memcmp(a.b, proxy.b, 16) == 0)
                return true;
        for (size_t i = 0; i < o->n_loopback; i++)
                if (o->loopback[i].port == port && memcmp(o->loopback[i].addr.b, a.b, 16) == 0)
                        return true;
        return false;
}

int serve_connect(const call *c)
{
        const __u64 *a = c->req->data.args;
        struct sockaddr_storage ss = {0};
        socklen_t len = (socklen_t)a[2];
        if (a[2] > sizeof(ss) || len < sizeof(sa_family_t))
                return -EINVAL;
        int r = call_read_mem(c, a[1], &ss, len);
        int sock = r < 0 ? r : supervise_command_fd(c, (int)a[0]), none = -1;
        if (sock < 0)
                return sock;
        if (ss.ss_family == AF_UNIX)
                r = connect_unix(c, &sock, (const struct sockaddr_un *)&ss, len);
        else if (ss.ss_family == AF_UNSPEC) /* dissolves an association */
                r = connect(sock, (const struct sockaddr *)&ss, len) < 0 ? -errno : 0;
        else if (c->s->opt.full_network || allowed_tcp(&c->s->opt, &ss, len))
                r = connect_or_queue(c, &sock, &none, (const struct sockaddr *)&ss, len);
        else {
                r = -EACCES; /* the proxy and the listed loopback services are the only TCP peers */
                note_direct(c->s, &ss, len);
        }
        if (sock >= 0)
                close(sock);
        return r;
}

/* What listen() on the unix socket |sock| comes to before it is tried: 0
 * when it is bound to a path (Landlock let it make the file), EPERM for
 * an abstract name, one any process of the host may connect to (there is
 * no namespace here), EINVAL when unbound, as the kernel says. A bound
 * socket stays bound to its name: the check holds until listen. */
static int unix_listen_check(int sock)
{
        struct sockaddr_un a = {0};
        socklen_t len = sizeof(a);
        if (getsockname(sock, (struct sockaddr *)&a, &len) < 0)
                return -errno;
        if (len <= offsetof(struct sockaddr_un, sun_path))
                return -EINVAL;
        return a.sun_path[0] == '\0' ? -EPERM : 0;
}

/* listen(): on a unix socket bound to a path, and with the network
 * "full" on any other socket; EPERM for the rest. A TCP socket takes a
 * port the host and its network reach: listen() binds an unbound one to
 * 0.0.0.0 itself, past Landlock's bind rule. */
int serve_listen(const call *c)
{
        const __u64 *a = c->req->data.args;
        int sock = supervise_command_fd(c, (int)a[0]), domain = 0;
        if (sock < 0)
                return sock;
        socklen_t n = sizeof(domain);
        int r = getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &n) < 0 ? -errno : 0;
        if (r == 0)
                r = domain == AF_UNIX ? unix_listen_check(sock) : c->s->opt.full_network ? 0 : -EPERM;
        if (r == 0)
                r = listen(sock, (int)a[1]) < 0 ? -errno : 0;
        close(sock);
        return r;
}

/* What pending connect |p| comes to (|revents|: its socket's, TCP), or
 * CALL_PENDING while it still waits. */
static int pending_result(const pending_connect *p, short revents)
{
        if (p->give_up > 0 && monotonic_s() >= p->give_up)
                return p->handshake ? -EINPROGRESS : -EAGAIN; /* as the kernel's connect says then */
        if (p->handshake) {
                int err = 0;
                socklen_t n = sizeof(err);
                if (!revents)
                        return CALL_PENDING;
                return getsockopt(p->sock, SOL_SOCKET, SO_ERROR, &err, &n) < 0 ? -errno : -err;
        }
        bool blocking;
        int r = connect_now(p->sock, (const struct sockaddr *)&p->addr, p->len, &blocking);
        return r == -EAGAIN ? CALL_PENDING : r;
}

void pending_drop(call_supervisor *s, size_t i)
{
        pending_connect *p = &s->pending[i];
        close(p->sock);
        if (p->pin >= 0)
                close(p->pin);
        *p = s->pending[--s->n_pending];
}

/* The descriptors to poll for them: a TCP handshake's socket (others: -1). */
size_t pending_pollfds(const call_supervisor *s, struct pollfd *pfd)
{
        for (size_t i = 0; i < s->n_pending; i++)
                pfd[i] = (struct pollfd){.fd = s->pending[i].handshake ? s->pending[i].sock : -1, .events = POLLOUT};
        return s->n_pending;
}

/* Answers each pending connect that completed, failed or gave up; forgets
 * the ones whose caller is gone. (From the last: a dropped entry takes the
 * last one's place, which was served already.) */
void serve_pending(call_supervisor *s, const struct pollfd *pfd)
{
        for (size_t i = s->n_pending; i-- > 0;) {
                const pending_connect *p = &s->pending[i];
                bool valid = notif_id_valid(s, p->id);
                int r = valid ? pending_result(p, pfd[i].revents) : -ESRCH;
                if (r == CALL_PENDING)
                        continue;
                if (valid)
                        supervise_respond(s, p->id, r);
                pending_drop(s, i);
        }
}
