/* SPDX-License-Identifier: MIT */
/* The landlock backend's call supervisor (see supervise.h): its thread,
 * which receives each notification and hands it to the call's handler
 * (supervise-meta.c, supervise-connect.c, supervise-signal.c; the objects they act on:
 * supervise-target.c), and its start and end, for backend.c. The filter
 * that makes the notifications is supervise-filter.c. */
#include "supervise.h"

#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "supervise-internal.h"

#define PENDING_RETRY_MS 10

void supervise_respond(call_supervisor *s, uint64_t id, int r)
{
        memset(s->resp, 0, s->sizes.seccomp_notif_resp);
        s->resp->id = id;
        s->resp->error = r < 0 ? r : 0;
        if (r == CALL_CONTINUE) /* observed only: the kernel makes the call, as without us */
                s->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        (void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp); /* ENOENT: it died meanwhile */
}

static bool is_signal_call(int nr)
{
        return nr == SYS_kill || nr == SYS_tkill || nr == SYS_tgkill || nr == SYS_rt_sigqueueinfo ||
               nr == SYS_rt_tgsigqueueinfo || nr == SYS_pidfd_send_signal || nr == SYS_pidfd_open ||
               nr == SYS_fcntl;
}

static void serve(call_supervisor *s, const struct seccomp_notif *req)
{
        call c = {.s = s, .req = req, .tid = (pid_t)req->pid};
        long nr = (long)req->data.nr;
        if (serve_refused(&c)) /* --explain: refused as in every run, whatever else it is */
                return;
        /* --explain observes, but a call the supervisor serves stays its */
        bool served = nr == SYS_truncate && s->opt.truncate;
        int r = s->opt.explain && is_observed_call(nr) && !served ? serve_observe(&c)
                : s->opt.observe_only                                        ? CALL_CONTINUE
                : nr == SYS_connect                                          ? serve_connect(&c)
                : nr == SYS_listen                                           ? serve_listen(&c)
                : nr == SYS_prlimit64                                        ? serve_prlimit(&c)
                : is_signal_call((int)nr) ? (s->opt.signals ? serve_signal(&c) : -ENOSYS)
                                          : serve_meta(&c);
        if (r != CALL_PENDING && r != CALL_ANSWERED)
                supervise_respond(s, req->id, r);
}

/* The calls run with the command's rights: a launcher with capabilities
 * (root) drops them on this thread only (the command has none). */
static void drop_thread_capabilities(void)
{
        struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct data[2] = {{0}};
        if (syscall(SYS_capget, &hdr, data) < 0 || (data[0].permitted | data[1].permitted) == 0)
                return;
        memset(data, 0, sizeof(data));
        (void)syscall(SYS_capset, &hdr, data);
}

/* The sandbox user's identity on this thread only (raw calls: glibc's
 * change every thread), keeping CAP_FOWNER (supervise_options). A failure
 * leaves no capability: the calls then fail as the kernel refuses them.
 * The kernel marks the launcher not dumpable for it: put back as it was,
 * as for root's command before (the command cannot trace the launcher's
 * threads: Landlock refuses it ptrace outside its domain). */
static void become_sandbox_user(const supervise_options *o)
{
        struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct data[2] = {{0}};
        int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
        bool ok = prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == 0 && syscall(SYS_setgroups, 0, NULL) == 0 &&
                  syscall(SYS_setresgid, o->gid, o->gid, o->gid) == 0 &&
                  syscall(SYS_setresuid, o->uid, o->uid, o->uid) == 0;
        if (dumpable == 1)
                (void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        if (ok) {
                data[0].permitted = data[0].effective = 1u << CAP_FOWNER;
                ok = syscall(SYS_capset, &hdr, data) == 0;
        }
        if (!ok)
                drop_thread_capabilities();
}

static void *supervise_main(void *arg)
{
        call_supervisor *s = arg;
        if (s->opt.sandbox_user)
                become_sandbox_user(&s->opt);
        else
                drop_thread_capabilities();
        struct seccomp_notif *req = malloc(s->sizes.seccomp_notif);
        s->resp = malloc(s->sizes.seccomp_notif_resp);
        struct pollfd pfd[2 + PENDING_MAX] = {{.fd = s->stop_fd, .events = POLLIN},
                                              {.fd = s->listener, .events = POLLIN}};
        while (req && s->resp) {
                pfd[0].revents = pfd[1].revents = 0;
                nfds_t n = 2 + pending_pollfds(s, pfd + 2);
                if (poll(pfd, n, s->n_pending ? PENDING_RETRY_MS : -1) < 0 && errno != EINTR)
                        break;
                if (pfd[0].revents)
                        break;
                serve_pending(s, pfd + 2);
                if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL))
                        pfd[1].fd = -1; /* every process of the sandbox is gone */
                if (!(pfd[1].revents & POLLIN))
                        continue;
                memset(req, 0, s->sizes.seccomp_notif);
                if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
                        continue; /* ENOENT: the caller died; EINTR */
                serve(s, req);
        }
        while (s->n_pending)
                pending_drop(s, 0);
        free(req);
        free(s->resp);
        s->resp = NULL;
        return NULL;
}

int supervise_start(int listener, const supervise_options *o, const supervise_root *roots, size_t n_roots,
                    call_supervisor **ret, cordon_error **ret_error)
{
        call_supervisor *s = calloc(1, sizeof(*s));
        if (!s) {
                close(listener);
                return error_set(ret_error, ENOMEM, "out of memory");
        }
        s->listener = listener;
        s->opt = *o;
        /* the tree's supervisor is our child, alive while the sandbox runs */
        s->tree_fd = o->signals && o->tree > 0 ? (int)syscall(SYS_pidfd_open, o->tree, 0) : -1;
        s->stop_fd = eventfd(0, EFD_CLOEXEC);
        s->roots = n_roots ? malloc(n_roots * sizeof(*roots)) : NULL;
        int r = s->stop_fd < 0 || (n_roots && !s->roots) ? -ENOMEM : 0;
        if (r == 0 && syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &s->sizes) < 0)
                r = -errno;
        if (r == 0) {
                if (n_roots)
                        memcpy(s->roots, roots, n_roots * sizeof(*roots));
                s->n_roots = n_roots;
                sigset_t all, old;
                sigfillset(&all);
                pthread_sigmask(SIG_SETMASK, &all, &old);
                r = -pthread_create(&s->thread, NULL, supervise_main, s);
                pthread_sigmask(SIG_SETMASK, &old, NULL);
                s->started = r == 0;
        }
        if (r < 0) {
                supervise_free(s);
                return error_set(ret_error, -r, "cannot start the supervisor of the command's metadata calls: %s",
                                 strerror(-r));
        }
        *ret = s;
        return 0;
}

void supervise_stop(call_supervisor *s)
{
        if (!s || !s->started)
                return;
        uint64_t one = 1;
        (void)!write(s->stop_fd, &one, sizeof(one));
        pthread_join(s->thread, NULL);
        s->started = false;
}

call_supervisor *supervise_free(call_supervisor *s)
{
        if (!s)
                return NULL;
        supervise_stop(s);
        if (s->listener >= 0)
                close(s->listener);
        if (s->stop_fd >= 0)
                close(s->stop_fd);
        if (s->tree_fd >= 0)
                close(s->tree_fd);
        free(s->roots);
        explain_view_free(s->opt.explain);
        seccomp_prog_free(&s->opt.refusals);
        for (size_t i = 0; i < s->n_refused; i++)
                free(s->refused[i]);
        free(s);
        return NULL;
}
