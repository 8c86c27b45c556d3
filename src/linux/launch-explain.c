/* SPDX-License-Identifier: MIT */
/* --explain, the launcher's part: the view the observer predicts refusals
 * in (the plan's mounts, the command's HOME and the caller's), the main
 * seccomp filter's refusals handed to it (seccomp-notify.c), the
 * observe-only filter of the linux backend (the landlock backend's
 * supervisor filter takes the calls too: one listener per process), and
 * the command's root once it runs. Called by prepare_launch and
 * clone_sandbox (launch.c), launch_prepare_supervisor (launch-confine.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "env.h"
#include "error.h"
#include "launch-internal.h"

explain_view *launch_explain_view(const cordon_plan *p)
{
        explain_view *v = calloc(1, sizeof(*v));
        if (!v)
                return NULL;
        v->root_fd = -1;
        v->namespaced = p->backend == BACKEND_LINUX;
        v->m = p->n_mounts ? calloc(p->n_mounts, sizeof(*v->m)) : NULL;
        bool ok = !p->n_mounts || v->m;
        for (size_t i = 0; ok && i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                explain_mount *e = &v->m[v->n++];
                e->writable = m->writable;
                e->target = strdup(m->target);
                e->source = m->type == MOUNT_BIND ? xstrdup(m->source) : NULL;
                ok = e->target && (m->type != MOUNT_BIND || e->source);
        }
        const char *home = env_get(p->env, "HOME");
        v->home_inside = home && home[0] == '/' ? strdup(home) : NULL;
        v->home_host = xstrdup(p->caller_home);
        if (p->path_hidden && !(v->path_hidden = strv_copy((const char *const *)p->path_hidden)))
                ok = false;
        if (!ok || (home && home[0] == '/' && !v->home_inside) || (p->caller_home && !v->home_host))
                return explain_view_free(v);
        return v;
}

int launch_explain_refusals(launch_storage *s, cordon_error **ret_error)
{
        int r = seccomp_split_refusals(&s->l.seccomp, &s->supervise_opt.refusals);
        if (r < 0)
                return error_set(ret_error, -r,
                                 "--explain cannot hand the seccomp filter's refusals to the observer: %s",
                                 strerror(-r));
        return 0;
}

int launch_prepare_observer(const cordon_plan *p, launch_storage *s, cordon_error **ret_error)
{
        int r = supervise_available();
        if (r < 0)
                return error_set(ret_error, -r,
                                 "--explain needs seccomp user notification (Linux >= 5.9) to observe the command's "
                                 "calls: %s",
                                 strerror(-r));
        supervise_options *o = &s->supervise_opt;
        *o = (supervise_options){.observe_only = true, .explain = launch_explain_view(p)};
        if (!o->explain)
                return error_set(ret_error, ENOMEM, "out of memory");
        if ((r = launch_explain_refusals(s, ret_error)) < 0)
                return r;
        r = supervise_filter(o, &s->l.supervise);
        if (r < 0)
                return error_set(ret_error, -r, "cannot build the observer's filter: %s", strerror(-r));
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->supervise_pair) < 0)
                return error_set(ret_error, errno, "cannot create a socket pair: %s", strerror(errno));
        s->l.supervise_fd = s->supervise_pair[1];
        return 0;
}

void launch_explain_root(explain_view *v, pid_t pid)
{
        char path[64];
        if (v->namespaced)
                snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
        else
                snprintf(path, sizeof(path), "/");
        v->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC); /* -1: the view is not looked into */
}
