/* SPDX-License-Identifier: MIT */
/* The seatbelt backend's ops table (src/core/backend.h) and its process:
 * sandbox-exec applies the profile and executes the command (launch.c); here
 * the launcher runs the network proxy, waits for the command, enforces
 * wall_time_s and kills its process group. Only POSIX. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "env.h"
#include "error.h"
#include "instance.h"
#include "net/proxy.h"
#include "seatbelt/launch.h"

struct cordon_process {
        process_head head;
        double started, term_at;
        double wall_limit, kill_after, cpu_limit;
        bool reaped, term_sent, killed;
        struct rusage before; /* RUSAGE_CHILDREN at the start */
        cordon_result result;
        proxy *proxy; /* the proxy network's, or NULL */
};

/* A listening TCP socket on the host's loopback, on a port the kernel
 * picks (macOS has no network namespace to put the proxy's port in):
 * close-on-exec, its port in |*ret_port|. The fd, or -errno. */
static int listen_loopback(int *ret_port)
{
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof(sa));
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof(sa);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            listen(fd, 1024) < 0 || getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
                int e = errno;
                if (fd >= 0)
                        close(fd);
                return -e;
        }
        *ret_port = ntohs(sa.sin_port);
        return fd;
}

/* The proxy network: cordon's proxy, a thread of the launcher, on the
 * host's loopback; the profile allows TCP to its port only, and the
 * command's proxy variables name it (|*ret_env|). 0 or -errno. */
static int start_proxy(const cordon_plan *p, cordon_process *proc, seatbelt_options *o, char ***ret_env,
                       cordon_error **ret_error)
{
        int fd = listen_loopback(&o->proxy_port);
        if (fd < 0)
                return error_set(ret_error, -fd, "cannot listen on %s for the network proxy: %s", PROXY_HOST,
                                 strerror(-fd));
        int r = proxy_start((const char *const *)p->network_allow, NULL, 0, fd, -1, p->log_fn, p->log_userdata, &proc->proxy,
                            ret_error);
        if (r < 0)
                return r;
        proc->head.proxy = proc->proxy;
        *ret_env = env_with_proxy_port((const char *const *)p->env, (unsigned)o->proxy_port);
        return *ret_env ? 0 : error_set(ret_error, ENOMEM, "out of memory");
}

/* The command leads a process group of its own (launch.c: setsid). */
static int kill_group(cordon_process *p, int sig)
{
        if (p->reaped)
                return -ESRCH;
        return kill(-p->head.pid, sig) < 0 && kill(p->head.pid, sig) < 0 ? -errno : 0;
}

static void free_process(cordon_process *p)
{
        if (p->head.pid > 0 && !p->reaped) {
                kill_group(p, SIGKILL);
                while (waitpid(p->head.pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        process_head_close(&p->head);
        proxy_free(p->proxy);
        free(p);
}

static int start(const cordon_plan *p, cordon_process **ret_proc, cordon_error **ret_error)
{
        int r = instance_create(p->instance_root, p->workspace, NULL, ret_error);
        if (r < 0)
                return r;
        cordon_process *proc = calloc(1, sizeof(*proc));
        if (!proc)
                return error_set(ret_error, ENOMEM, "out of memory");
        process_head_init(&proc->head, &seatbelt_backend_ops);
        proc->wall_limit = p->limits[CORDON_LIMIT_WALL_TIME_S];
        proc->kill_after = p->limits[CORDON_LIMIT_KILL_AFTER_S];
        proc->cpu_limit = p->limits[CORDON_LIMIT_CPU_TIME_S];
        getrusage(RUSAGE_CHILDREN, &proc->before);
        seatbelt_options o = {0};
        _cleanup_strv_ char **env = NULL;
        if (p->network == CORDON_NETWORK_PROXY)
                r = start_proxy(p, proc, &o, &env, ret_error);
        proc->started = monotonic_s();
        if (r == 0)
                r = seatbelt_spawn(p, &o, env, proc->head.stdio, &proc->head.pid, ret_error);
        if (r < 0) {
                free_process(proc); /* no command started: nothing to kill */
                return r;
        }
        *ret_proc = proc;
        return 0;
}

static int signal_command(cordon_process *p, int sig)
{
        if (p->reaped)
                return -ESRCH;
        return kill(p->head.pid, sig) < 0 ? -errno : 0;
}

static double tv_s(const struct timeval *tv) { return (double)tv->tv_sec + (double)tv->tv_usec / 1e6; }

/* The usage of the children reaped since the start (the command's, unless
 * the caller reaps others meanwhile). */
static void fill_result(cordon_process *p, int ws)
{
        cordon_result *res = &p->result;
        struct rusage now;
        getrusage(RUSAGE_CHILDREN, &now);
        res->wall_s = monotonic_s() - p->started;
        res->user_s = tv_s(&now.ru_utime) - tv_s(&p->before.ru_utime);
        res->sys_s = tv_s(&now.ru_stime) - tv_s(&p->before.ru_stime);
#ifdef __APPLE__
        res->max_rss_bytes = (uint64_t)(now.ru_maxrss > 0 ? now.ru_maxrss : 0); /* bytes there */
#else
        res->max_rss_bytes = (uint64_t)(now.ru_maxrss > 0 ? now.ru_maxrss : 0) * 1024;
#endif
        result_set_end(res, WEXITSTATUS(ws), WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, p->cpu_limit);
}

/* 1 once reaped, 0 while it runs, -errno. */
static int try_reap(cordon_process *p)
{
        int ws = 0;
        pid_t r;
        while ((r = waitpid(p->head.pid, &ws, WNOHANG)) < 0 && errno == EINTR)
                ;
        if (r < 0)
                return -errno;
        if (r == 0)
                return 0;
        p->reaped = true;
        fill_result(p, ws);
        return 1;
}

/* wall_time_s: SIGTERM to the process group, SIGKILL after the grace. */
static void enforce_wall_time(cordon_process *p, double t)
{
        if (p->wall_limit > 0 && !p->term_sent && t >= p->started + p->wall_limit) {
                p->result.timed_out = p->term_sent = true;
                p->term_at = t;
                kill_group(p, SIGTERM);
        }
        if (p->term_sent && !p->killed && t >= p->term_at + p->kill_after) {
                p->killed = true;
                kill_group(p, SIGKILL);
        }
}

/* POSIX has no descriptor for a child's exit: poll every 10 ms. */
static int wait_command(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error)
{
        double deadline = timeout_ms < 0 ? INFINITY : monotonic_s() + timeout_ms / 1000.0;
        for (;;) {
                int r = p->reaped ? 1 : try_reap(p);
                if (r < 0)
                        return error_set(ret_error, -r, "waiting for the command: %s", strerror(-r));
                if (r > 0)
                        break;
                double t = monotonic_s();
                enforce_wall_time(p, t);
                if (t >= deadline)
                        return -ETIMEDOUT;
                struct timespec ts = {0, 10000000L};
                nanosleep(&ts, NULL);
        }
        proxy_stop(p->proxy); /* the command is gone: so are its connections */
        if (ret_result)
                *ret_result = p->result;
        return 0;
}

const backend_ops seatbelt_backend_ops = {
        .name = "seatbelt",
        .start = start,
        .wait = wait_command,
        .kill = kill_group,
        .signal_command = signal_command,
        .free = free_process,
        .net = &backend_proxy_net,
};
