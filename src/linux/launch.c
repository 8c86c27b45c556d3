/* SPDX-License-Identifier: MIT */
/* The launcher's half of the linux backends (backend.c starts the process
 * through it): the launch prepared before clone(), in its order
 * (prepare_launch; its steps: the mount ops in launch-ops.c, stdio and the
 * terminal in launch-stdio.c, rlimits, Landlock and the supervisor's
 * filter in launch-confine.c), the clone, the id maps, the cgroup, "go";
 * the log of it in launch-log.c.
 *
 * Process model. Everything the child needs is prepared here, before
 * clone(); the child only makes system calls on it (child.c), so
 * cordon_start is safe in multi-threaded programs without re-executing a
 * helper binary, and costs one clone instead of a fork+exec.
 *
 *   launcher --clone(new user/mount/pid/ipc/uts/net ns)--> init (pid 1)
 *   launcher: writes uid/gid maps, joins the cgroup, sends "go"
 *   init: builds the view, forks the command, reaps, forwards signals
 *   command: drops privileges, execve()
 *
 * The report pipe is close-on-exec: EOF means the command was executed, a
 * child_report means it never ran. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "launch-internal.h"
#include "launch.h"
#include "libc-compat.h"
#include "process.h"
#include "cgroup.h"
#include "env.h"
#include "protect.h"
#include "gitcheck.h"
#include "error.h"
#include "host.h"
#include "landlock.h"
#include "net/proxy.h"
#include "supervise.h"
#include "sys.h"
#include "terminal.h"
#include "undo.h"

/* ---- building the launch ----------------------------------------------------------- */

/* One mapping for both stacks, each above an inaccessible guard page:
 * [guard][command][guard][init]. It lives until the init is reaped:
 * unmapping it while a shared-memory init runs would also cost a TLB
 * shootdown on the init's CPU. NULL on failure. */
static void *stacks_map(void)
{
        char *m = mmap(NULL, STACKS_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED)
                return NULL;
        if (mprotect(m, STACK_GUARD, PROT_NONE) < 0 ||
            mprotect(m + STACK_GUARD + COMMAND_STACK_SIZE, STACK_GUARD, PROT_NONE) < 0) {
                munmap(m, STACKS_SIZE);
                return NULL;
        }
        return m;
}

static void *command_stack_top(void *stacks) { return (char *)stacks + STACK_GUARD + COMMAND_STACK_SIZE; }
static void *init_stack_top(void *stacks) { return (char *)stacks + STACKS_SIZE; }

void launch_storage_free(launch_storage *s)
{
        free(s->ops);
        free(s->view_path);
        if (s->view_lock >= 0)
                close(s->view_lock);
        free(s->tmpfs_opts);
        free(s->tmp_opts);
        free(s->logs_opts);
        seccomp_prog_free(&s->l.seccomp);
        for (int i = 0; i < 3; i++)
                for (int k = 0; k < 2; k++)
                        if (s->pipes[i][k] >= 0)
                                close(s->pipes[i][k]);
        for (int k = 0; k < 2; k++)
                if (s->placeholders_pipe[k] >= 0)
                        close(s->placeholders_pipe[k]);
        for (int i = 0; i < 2; i++) {
                if (s->proxy_pair[i] >= 0)
                        close(s->proxy_pair[i]);
                if (s->pty_pair[i] >= 0)
                        close(s->pty_pair[i]);
                if (s->supervise_pair[i] >= 0)
                        close(s->supervise_pair[i]);
        }
        if (s->supervise_listener >= 0)
                close(s->supervise_listener);
        free(s->roots);
        s->supervise_opt.explain = explain_view_free(s->supervise_opt.explain);
        seccomp_prog_free(&s->supervise_opt.refusals);
        seccomp_prog_free(&s->l.supervise);
        if (s->proxy_listener >= 0)
                close(s->proxy_listener);
        strv_free(s->envp);
        for (int i = 0; i < 3; i++) {
                if (s->stdio_child[i] >= 0)
                        close(s->stdio_child[i]);
                if (s->stdio_parent[i] >= 0)
                        close(s->stdio_parent[i]);
        }
        if (s->l.landlock_fd >= 0)
                close(s->l.landlock_fd);
        if (s->etc_fds[0] >= 0 && sys_close_range((unsigned)s->etc_fds[0], (unsigned)s->etc_fds[1], 0) < 0)
                for (int fd = s->etc_fds[0]; fd <= s->etc_fds[1]; fd++)
                        close(fd);
        if (s->launcher_fd >= 0)
                close(s->launcher_fd);
        if (s->l.marks)
                munmap(s->l.marks, sizeof(timing_page));
        if (s->stacks)
                munmap(s->stacks, STACKS_SIZE);
}

/* Does the kernel have the new mount API (open_tree 5.2, mount_setattr
 * 5.12)? Both probes fail with EBADF when the call exists. */
static bool have_new_mount_api(void)
{
        if (open_tree(-1, "", 0) >= 0 || errno == ENOSYS)
                return false;
        return mount_setattr(-1, "", 0, NULL, 0) < 0 && errno != ENOSYS;
}

/* open_tree_attr (Linux 6.15); a seccomp filter's EPERM counts as absent. */
static bool have_open_tree_attr(void)
{
        return syscall(SYS_open_tree_attr, -1, "", 0, NULL, 0) < 0 && errno != ENOSYS && errno != EPERM;
}

/* Where the new root is first attached (any existing directory: it is
 * visible again under the old root once pivoted). */
static const char *pick_base_dir(void)
{
        static const char *const C[] = {"/tmp", "/mnt", "/run", "/var/tmp", "/dev/shm"};
        struct stat st;
        for (size_t i = 0; i < ARRAY_SIZE(C); i++)
                if (lstat(C[i], &st) == 0 && S_ISDIR(st.st_mode))
                        return C[i];
        return "/tmp";
}

/* The child shares the launcher's memory (CLONE_VM, as posix_spawn's child
 * until execve): no page tables copied, no copy-on-write faults on either
 * side. For the linux backend that child is the init, which lives on:
 * see child_linux_main. Not under AddressSanitizer (it cannot follow code
 * onto a stack it did not make), nor where raw system calls are not
 * implemented, nor with CORDON_DEBUG=fork-init. */
static bool child_shares_memory(const cordon_plan *p)
{
#if defined(__SANITIZE_ADDRESS__) || !SYS_RAW_AVAILABLE
        (void)p;
        return false;
#else
        return !p->debug_fork_init;
#endif
}

static void read_arg_env_area(launch *l)
{
        char stat[2048];
        int fd = openat(AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
        if (fd >= 0)
                close(fd);
        if (n <= 0)
                return;
        stat[n] = '\0';
        char *p = strrchr(stat, ')');
        unsigned long long v[4];
        int field = 2;
        for (char *save = NULL, *t = p ? strtok_r(p + 1, " ", &save) : NULL; t; t = strtok_r(NULL, " ", &save)) {
                field++;
                if (field >= 48 && field <= 51)
                        v[field - 48] = strtoull(t, NULL, 10);
        }
        if (field < 51)
                return;
        l->arg_start = (uintptr_t)v[0];
        l->arg_end = (uintptr_t)v[1];
        l->env_start = (uintptr_t)v[2];
        l->env_end = (uintptr_t)v[3];
}

/* Where the plan has placeholders (linux backend), the launcher makes
 * them while the init mounts the view, which waits for them on this pipe
 * before it mounts the first. */
static int placeholders_pipe(const cordon_plan *p, launch_storage *s, cordon_error **ret_error)
{
        bool any = false;
        for (size_t i = 0; p->backend == BACKEND_LINUX && i < p->n_mounts; i++)
                any = any || p->mounts[i].missing;
        if (!any)
                return 0;
        if (pipe2(s->placeholders_pipe, O_CLOEXEC) < 0)
                return error_set(ret_error, errno, "cannot create a pipe: %s", strerror(errno));
        s->l.placeholders_fd = s->placeholders_pipe[0];
        return 0;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void set_keep_fds(launch *l)
{
        int n = 0;
        int cand[] = {l->stdio[0],    l->stdio[1],   l->stdio[2],     l->report_fd,   l->go_fd,
                      l->placeholders_fd, l->status_fd, l->landlock_fd, l->launcher_fd, l->proxy_fd,
                      l->pty_fd,        l->pty_size_fd, l->supervise_fd};
        for (size_t i = 0; i < ARRAY_SIZE(cand); i++)
                if (cand[i] > 2)
                        l->keep_fds[n++] = cand[i];
        qsort(l->keep_fds, (size_t)n, sizeof(int), cmp_int);
        for (size_t i = (size_t)n; i < ARRAY_SIZE(l->keep_fds); i++)
                l->keep_fds[i] = -1;
}

void launch_storage_init(launch_storage *s)
{
        memset(s, 0, sizeof(*s));
        memset(s->pipes, -1, sizeof(s->pipes));
        s->placeholders_pipe[0] = s->placeholders_pipe[1] = s->l.placeholders_fd = -1;
        s->proxy_pair[0] = s->proxy_pair[1] = s->l.proxy_fd = -1;
        s->proxy_listener = -1;
        s->proxy_port = PROXY_PORT;
        s->pty_pair[0] = s->pty_pair[1] = s->l.pty_fd = s->l.pty_size_fd = -1;
        s->supervise_pair[0] = s->supervise_pair[1] = s->supervise_listener = s->l.supervise_fd = -1;
        for (int i = 0; i < 3; i++)
                s->stdio_child[i] = s->stdio_parent[i] = -1;
        s->l.landlock_fd = -1;
        s->launcher_fd = s->l.launcher_fd = -1;
        s->view_lock = -1;
        s->etc_fds[0] = s->etc_fds[1] = -1;
}

/* The landlock backend's network "proxy": no namespace of its own, so the
 * proxy listens on the host's loopback, on a port the kernel picks, and
 * the command's environment names that port. */
static int listen_host_loopback(const cordon_plan *p, launch_storage *s, cordon_error **ret_error)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(sa);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1024) < 0 ||
            getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
                int e = errno;
                if (fd >= 0)
                        close(fd);
                return error_set(ret_error, e, "cannot listen on %s for the network proxy: %s", PROXY_HOST,
                                 strerror(e));
        }
        s->proxy_listener = fd;
        s->proxy_port = ntohs(sa.sin_port);
        s->envp = env_with_proxy_port((const char *const *)p->env, s->proxy_port);
        return s->envp ? 0 : error_set(ret_error, ENOMEM, "out of memory");
}

/* The allowlist's loopback services (network "proxy"): on the linux
 * backend a listener on the same address of the sandbox's lo each (the
 * init makes them, the proxy forwards), on the landlock backend the
 * addresses the command may connect to on the host's loopback itself. */
static int prepare_forwards(const cordon_plan *p, launch_storage *s, cordon_error **ret_error)
{
        size_t n = net_loopback_forwards((const char *const *)p->network_allow, s->fwd, NET_FORWARDS_MAX);
        if (n > NET_FORWARDS_MAX)
                return error_set(ret_error, E2BIG,
                                 "the network allowlist names %zu loopback services (address and port), at most %d",
                                 n, NET_FORWARDS_MAX);
        s->n_fwd = n;
        for (size_t i = 0; p->backend == BACKEND_LINUX && i < n; i++) {
                launch_forward *f = &s->lfwd[i];
                char addr[INET6_ADDRSTRLEN];
                net_addr_format(&s->fwd[i].addr, addr);
                net_addr_entry(&s->fwd[i].addr, s->fwd[i].port, f->text, sizeof(f->text));
                if (streq(addr, PROXY_HOST) && s->fwd[i].port == PROXY_PORT)
                        return error_set(ret_error, EADDRINUSE,
                                         "network allowlist: %s: inside the sandbox that is cordon's proxy; the "
                                         "host's service on it is reached through the proxy only (CONNECT)",
                                         f->text);
                if (inet_pton(AF_INET, addr, &f->sa.in.sin_addr) == 1) {
                        f->sa.in.sin_family = AF_INET;
                        f->sa.in.sin_port = htons(s->fwd[i].port);
                        f->len = sizeof(f->sa.in);
                } else {
                        f->sa.in6.sin6_family = AF_INET6;
                        f->sa.in6.sin6_port = htons(s->fwd[i].port);
                        memcpy(&f->sa.in6.sin6_addr, s->fwd[i].addr.b, 16);
                        f->len = sizeof(f->sa.in6);
                }
        }
        if (p->backend != BACKEND_LINUX)
                return 0;
        s->l.fwd = s->lfwd;
        s->l.n_fwd = n;
        /* past NET_INTERCEPTED_MAX, a port is reached through the proxy only */
        n = net_intercepted_ports((const char *const *)p->network_allow, PROXY_PORT, s->tports, NET_INTERCEPTED_MAX);
        s->l.tports = s->tports;
        s->l.n_tports = n < NET_INTERCEPTED_MAX ? n : NET_INTERCEPTED_MAX;
        /* past NET_ROUTES_MAX, an address entry is reached through the proxy only */
        n = net_intercepted_routes((const char *const *)p->network_allow, s->routes, NET_ROUTES_MAX);
        s->l.routes = s->routes;
        s->l.n_routes = n < NET_ROUTES_MAX ? n : NET_ROUTES_MAX;
        return 0;
}

int prepare_launch(const cordon_plan *p, bool nproc, launch_storage *s, cordon_error **ret_error)
{
        launch *l = &s->l;
        l->backend = p->backend;
        l->uid = p->uid;
        l->gid = p->gid;
        l->drop_groups = p->uid == 0 && p->backend == BACKEND_LINUX;
        l->switch_user = p->sandbox_user && p->backend == BACKEND_LANDLOCK;
        l->run_uid = p->run_uid;
        l->run_gid = p->run_gid;
        l->exe = p->exe;
        l->exe_check = p->exe_untrusted;
        l->exe_by_fd = p->exe_untrusted && !p->exe_is_script;
        l->exe_dev = p->exe_dev;
        l->exe_ino = p->exe_ino;
        l->argv = p->argv;
        l->envp = p->env;
        l->cwd = p->backend == BACKEND_LINUX ? p->cwd : p->host_cwd;
        l->hostname = p->hostname;
        bool proxied = p->backend == BACKEND_LINUX && p->network == CORDON_NETWORK_PROXY;
        l->loopback = p->backend == BACKEND_LINUX && (p->network == CORDON_NETWORK_LOOPBACK || proxied);
        if (p->backend != BACKEND_NONE && p->network == CORDON_NETWORK_PROXY) {
                int r = prepare_forwards(p, s, ret_error);
                if (r < 0)
                        return r;
        }
        if (proxied) {
                if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->proxy_pair) < 0)
                        return error_set(ret_error, errno, "cannot create a socket pair: %s", strerror(errno));
                l->proxy_fd = s->proxy_pair[1];
        }
        if (p->backend == BACKEND_LANDLOCK && p->network == CORDON_NETWORK_PROXY) {
                int r = listen_host_loopback(p, s, ret_error);
                if (r < 0)
                        return r;
                l->envp = s->envp;
        }
        l->cap_last = 63;
        l->new_keyring = p->backend != BACKEND_NONE;
        l->broadcast_signal = SIGRTMIN;
        l->death_signal = SIGRTMIN + 1;
        l->command_signal = SIGRTMIN + 2;
        sigemptyset(&l->forward);
        static const int FWD[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};
        for (size_t i = 0; i < ARRAY_SIZE(FWD); i++)
                sigaddset(&l->forward, FWD[i]);
        int r = launch_set_rlimits(p, nproc, l, ret_error);
        if (r < 0)
                return r;
        if (p->debug_timing) {
                void *page = mmap(NULL, sizeof(timing_page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
                l->marks = page == MAP_FAILED ? NULL : page;
        }
        for (int i = 0; i < 3; i++)
                if (pipe2(s->pipes[i], O_CLOEXEC) < 0)
                        return error_set(ret_error, errno, "cannot create a pipe: %s", strerror(errno));
        l->report_fd = s->pipes[0][1];
        l->go_fd = s->pipes[1][0];
        l->status_fd = s->pipes[2][1];
        r = placeholders_pipe(p, s, ret_error);
        if (r < 0)
                return r;
        /* The child dies with this thread; this names it, for the child's
         * check that it did not die first (wait_for_launcher). Without
         * /proc the go pipe still tells it when the process dies. */
        s->launcher_fd = l->launcher_fd = openat(AT_FDCWD, "/proc/thread-self", O_PATH | O_DIRECTORY | O_CLOEXEC);
        r = launch_setup_stdio(p, s, ret_error);
        if (r < 0)
                return r;
        s->stacks = stacks_map();
        if (!s->stacks)
                return error_set(ret_error, errno, "cannot map a stack: %s", strerror(errno));
        l->command_stack_top = command_stack_top(s->stacks);
        l->shared_memory = child_shares_memory(p);
        if (p->backend == BACKEND_NONE) {
                set_keep_fds(l);
                return 0;
        }
        landlock_rights ll;
        r = launch_setup_landlock(p, s->proxy_port, s->fwd, s->n_fwd, &ll, &s->abi, l, ret_error);
        s->ll = ll;
        if (r < 0)
                return r;
        seccomp_options so = {.host_ipc = p->backend == BACKEND_LANDLOCK};
        if (p->backend == BACKEND_LANDLOCK && p->network != CORDON_NETWORK_FULL)
                so.sockets = p->network == CORDON_NETWORK_PROXY ? SECCOMP_SOCKETS_UNIX_TCP : SECCOMP_SOCKETS_UNIX;
        r = seccomp_build(&so, &l->seccomp, ret_error);
        if (r < 0)
                return r;
        if (p->backend == BACKEND_LINUX) {
                struct sysinfo si;
                uint64_t tmp = (uint64_t)p->limits[CORDON_LIMIT_TMP_SIZE_BYTES];
                if (tmp == 0 && sysinfo(&si) == 0)
                        tmp = (uint64_t)si.totalram * si.mem_unit / 4;
                s->tmpfs_opts = strdup("mode=0755,size=16m");
                s->tmp_opts = tmp ? xasprintf("mode=1777,size=%llu", (unsigned long long)tmp) : strdup("mode=1777");
                s->logs_opts = strdup("mode=0700,size=4k");
                if (!s->tmpfs_opts || !s->tmp_opts || !s->logs_opts)
                        return error_set(ret_error, ENOMEM, "out of memory");
                l->tmpfs_opts = s->tmpfs_opts;
                l->tmp_opts = s->tmp_opts;
                l->base_dir = pick_base_dir();
                l->classic_mounts = p->debug_classic_mounts || !have_new_mount_api();
                l->have_open_tree_attr = !l->classic_mounts && have_open_tree_attr();
                if (!l->shared_memory)
                        read_arg_env_area(l); /* to scrub in the init's copy */
                r = launch_build_ops(p, s, &ll);
                if (r == 0 && p->explain)
                        r = launch_prepare_observer(p, s, ret_error);
        } else {
                s->roots = calloc(p->n_mounts + 1, sizeof(*s->roots));
                r = s->roots ? landlock_backend_rules(p, l->landlock_fd, &ll, s->roots, &s->n_roots, s->etc_fds,
                                                   ret_error)
                             : -ENOMEM;
                bool own_pty = l->pty_fd >= 0;
                l->access_pty = landlock_terminal_access(&ll);
                if (r == 0)
                        r = landlock_allow_terminal(l->landlock_fd, l->stdio, own_pty, &ll, ret_error);
                if (r == 0)
                        r = launch_prepare_supervisor(p, s, ret_error);
        }
        if (r < 0)
                return r == -ENOMEM ? error_set(ret_error, ENOMEM, "out of memory") : r;
        set_keep_fds(l);
        return 0;
}

/* ---- starting ---------------------------------------------------------------------- */

static int write_file(const char *path, const char *text)
{
        int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = write(fd, text, strlen(text));
        int e = n < 0 ? errno : 0;
        close(fd);
        return n == (ssize_t)strlen(text) ? 0 : -(e ? e : EIO);
}

/* uid/gid maps: the caller's ids mapped to themselves (root stays 0). An
 * unprivileged launcher must deny setgroups before writing gid_map. */
static int write_id_maps(pid_t pid, uid_t uid, gid_t gid, cordon_error **ret_error)
{
        char path[64], map[64];
        snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
        int r = uid == 0 ? 0 : write_file(path, "deny");
        if (r == 0) {
                snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
                snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
                r = write_file(path, map);
        }
        if (r == 0) {
                snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
                snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
                r = write_file(path, map);
        }
        if (r < 0)
                return error_set(ret_error, -r, "cannot write %s: %s", path, strerror(-r));
        return 0;
}

static const char *step_hint(const child_report *rep)
{
        if (rep->step == STEP_IDENTITY && rep->err == EPERM && streq(rep->path, "the sandbox user"))
                return " (cordon runs as root without a user namespace, so the command runs as a sandbox user, which "
                       "needs CAP_SETUID and CAP_SETGID: give them to the container, or --user caller to run the "
                       "command as root)";
        if (rep->step == STEP_PROC && rep->err == EPERM)
                return " (the host's /proc is partly covered, as in many containers; a fresh /proc needs an "
                       "uncovered one)";
        if (rep->step == STEP_SOURCE_CHANGED || (rep->step == STEP_OPEN_SOURCE && rep->err == ELOOP) ||
            rep->step == STEP_MOUNTPOINT_CHANGED || (rep->step == STEP_MOUNTPOINT && rep->err == ELOOP))
                return " (a path inside a writable mount was replaced or became a symlink after planning; cordon "
                       "refuses to follow it: plan again)";
        if (rep->step == STEP_EXE_CHANGED)
                return " (another process replaced it inside a writable mount; cordon runs only the file it "
                       "planned: plan again)";
        if (rep->step == STEP_LANDLOCK && rep->err == EINVAL)
                return " (the kernel rejected a Landlock rule)";
        return "";
}

static int report_error(const child_report *rep, cordon_error **ret_error)
{
        int err = rep->err ? rep->err : EIO;
        int r;
        if (rep->step == STEP_EXEC) {
                r = error_set(ret_error, err, "cannot execute %s: %s%s", rep->path, strerror(err),
                              err == ENOENT ? " (its interpreter or libraries may not be visible in the sandbox: "
                                              "expose them with --expose)"
                                            : "");
                if (ret_error && *ret_error)
                        (*ret_error)->exit_status = err == ENOENT ? 127 : 126;
                return r;
        }
        return error_set(ret_error, err, "sandbox setup failed while %s%s%s: %s%s", child_step_name(rep->step),
                         rep->path[0] ? " " : "", rep->path, strerror(err), step_hint(rep));
}

static void reap_quietly(pid_t pid)
{
        while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
                ;
}

/* After clone, in the launcher: ids, cgroup, "go", then wait for exec. */
/* A descriptor the command sent before it executed: |what| names it. */
static int receive_fd(int sock, int *ret_fd, const char *what, cordon_error **ret_error)
{
        union {
                struct cmsghdr h;
                char buf[CMSG_SPACE(sizeof(int))];
        } u;
        char byte;
        struct iovec iov = {&byte, 1};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
        ssize_t n = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        struct cmsghdr *h = n == 1 ? CMSG_FIRSTHDR(&m) : NULL;
        if (!h || h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS || h->cmsg_len != CMSG_LEN(sizeof(int)))
                return error_set(ret_error, n < 0 ? errno : EPROTO, "%s did not arrive", what);
        memcpy(ret_fd, CMSG_DATA(h), sizeof(int));
        return 0;
}

/* What the command sent before it executed: its terminal's master, the
 * supervised calls' listener. */
static int receive_fds(launch_storage *s, cordon_process *proc, cordon_error **ret_error)
{
        int r = 0;
        if (s->pty_pair[0] >= 0)
                r = receive_fd(s->pty_pair[0], &proc->head.pty, "the command's terminal", ret_error);
        if (r == 0 && s->supervise_pair[0] >= 0 && s->supervise_listener < 0 && !proc->calls)
                r = receive_fd(s->supervise_pair[0], &s->supervise_listener, "the supervised calls' listener",
                               ret_error);
        return r;
}

/* The supervisor (or --explain's observer) on its listener, with the
 * run's denials and, for --explain, the command's root. */
static int start_supervisor(launch_storage *s, cordon_process *proc, cordon_error **ret_error)
{
        if (proc->calls || s->supervise_listener < 0)
                return 0;
        s->supervise_opt.denied = proc->head.denied;
        s->supervise_opt.tree = proc->head.pid;
        if (s->supervise_opt.explain)
                launch_explain_root(s->supervise_opt.explain, proc->head.pid);
        int r = supervise_start(TAKE_FD(s->supervise_listener), &s->supervise_opt, s->roots, s->n_roots,
                                &proc->calls, ret_error);
        s->supervise_opt.explain = NULL; /* the supervisor's now, also on failure */
        s->supervise_opt.refusals = (seccomp_prog){0};
        return r;
}

/* --explain observes the command's execve too, which waits for the
 * observer: its listener is taken and served as soon as it arrives, before
 * the exec can complete. 0 also when the report came first (a failure
 * before it: read as without --explain). */
static int serve_before_exec(launch_storage *s, cordon_process *proc, cordon_error **ret_error)
{
        if (!s->supervise_opt.explain || s->supervise_pair[0] < 0)
                return 0;
        struct pollfd pfd[2] = {{.fd = s->pipes[0][0], .events = POLLIN}, {.fd = s->supervise_pair[0], .events = POLLIN}};
        int n;
        do
                n = poll(pfd, 2, -1);
        while (n < 0 && errno == EINTR);
        if (n <= 0 || !(pfd[1].revents & POLLIN))
                return 0;
        int r = receive_fd(s->supervise_pair[0], &s->supervise_listener, "the observed calls' listener", ret_error);
        return r == 0 ? start_supervisor(s, proc, ret_error) : r;
}

static int after_clone(const cordon_plan *p, launch_storage *s, cordon_process *proc, cordon_error **ret_error)
{
        int r = 0;
        close(s->pipes[0][1]);
        close(s->pipes[1][0]);
        close(s->pipes[2][1]);
        s->pipes[0][1] = s->pipes[1][0] = s->pipes[2][1] = -1;
        if (s->placeholders_pipe[0] >= 0) {
                close(s->placeholders_pipe[0]);
                s->placeholders_pipe[0] = -1;
        }
        if (s->pty_pair[1] >= 0) {
                close(s->pty_pair[1]);
                s->pty_pair[1] = -1;
        }
        if (s->supervise_pair[1] >= 0) {
                close(s->supervise_pair[1]);
                s->supervise_pair[1] = -1;
        }
        if (p->backend == BACKEND_LINUX && (r = write_id_maps(proc->head.pid, p->uid, p->gid, ret_error)) < 0)
                s->report = (child_report){.step = STEP_ID_MAPS, .err = -r};
        if (r == 0 && proc->cg)
                r = cgroup_attach(proc->cg, proc->head.pid, ret_error);
        if (r == 0 && write(s->pipes[1][1], "g", 1) != 1)
                r = error_set(ret_error, errno, "cannot start the sandbox: %s", strerror(errno));
        close(s->pipes[1][1]);
        s->pipes[1][1] = -1;
        if (r < 0) {
                kill(proc->head.pid, SIGKILL);
                reap_quietly(proc->head.pid);
                proc->reaped = true;
                return r;
        }
        if ((r = serve_before_exec(s, proc, ret_error)) < 0)
                return r; /* the caller kills the tree */
        child_report rep;
        ssize_t n;
        do
                n = read(s->pipes[0][0], &rep, sizeof(rep));
        while (n < 0 && errno == EINTR);
        if (n == 0) { /* EOF: the command was executed */
                r = receive_fds(s, proc, ret_error);
                return r == 0 ? start_supervisor(s, proc, ret_error) : r; /* a failure: the caller kills the tree (cordon_process_free) */
        }
        if (n != (ssize_t)sizeof(rep))
                rep = (child_report){.step = STEP_NONE, .err = n < 0 ? errno : EIO};
        s->report = rep;
        kill(proc->head.pid, SIGKILL);
        reap_quietly(proc->head.pid);
        proc->reaped = true;
        return report_error(&rep, ret_error);
}

static int clone_error(int err, cordon_error **ret_error)
{
        _cleanup_free_ char *hint = host_userns_hint(err);
        return error_set(ret_error, err, "cannot create the sandbox's namespaces: %s",
                         hint ? hint : strerror(err));
}

static int init_main(void *l) { child_linux_main(l); }
static int exec_main(void *l) { child_exec_main(l); }

static pid_t clone_child(const cordon_plan *p, launch_storage *s, cordon_process *proc)
{
        unsigned long flags = (p->namespaces & ~(unsigned long)CLONE_NEWCGROUP) | SIGCHLD;
        /* a helper thread of such an init makes the network namespace while
         * the init mounts */
        s->l.new_netns = s->l.shared_memory && p->backend == BACKEND_LINUX && (flags & CLONE_NEWNET);
        if (s->l.new_netns)
                flags &= ~(unsigned long)CLONE_NEWNET;
        if (s->l.shared_memory) {
                if (p->backend == BACKEND_LINUX)
                        return clone(init_main, init_stack_top(s->stacks), (int)(flags | CLONE_VM | CLONE_PIDFD),
                                     &s->l, &proc->head.pidfd);
                /* the landlock backend's supervisor lives on, as the init */
                return clone(exec_main, p->backend == BACKEND_LANDLOCK ? init_stack_top(s->stacks)
                                                                       : s->l.command_stack_top,
                             (int)(flags | CLONE_VM | CLONE_PIDFD), &s->l, &proc->head.pidfd);
        }
        pid_t pid = sys_clone(flags, &proc->head.pidfd);
        if (pid == 0) {
                if (p->backend == BACKEND_LINUX)
                        child_linux_main(&s->l);
                child_exec_main(&s->l);
        }
        return pid;
}

/* clone() into the sandbox and wait until the command was executed. */
int clone_sandbox(const cordon_plan *p, launch_storage *s, cordon_process *proc, cordon_error **ret_error)
{
        /* The child starts with every signal blocked: none of the caller's
         * handlers may run in it. They stay blocked here until the command
         * runs: a shared-memory init writes this thread's errno meanwhile.
         * The cgroup namespace is entered by the child once the launcher
         * has placed it in its cgroup. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        clock_gettime(CLOCK_MONOTONIC, &proc->started);
        pid_t pid = clone_child(p, s, proc);
        int e = errno;
        int r;
        if (pid < 0) {
                s->report = (child_report){.step = STEP_CLONE, .err = e};
                r = p->backend == BACKEND_LINUX
                            ? clone_error(e, ret_error)
                            : error_set(ret_error, e, "cannot start the command: %s", strerror(e));
        } else {
                proc->head.pid = pid;
                undo_set_init(proc->undo, pid);
                proc->stacks = s->stacks;
                s->stacks = NULL;
                r = after_clone(p, s, proc, ret_error);
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r == 0) {
                proc->status_fd = TAKE_FD(s->pipes[2][0]);
                proc->view_lock = TAKE_FD(s->view_lock);
                for (int i = 0; i < 3; i++)
                        proc->head.stdio[i] = TAKE_FD(s->stdio_parent[i]);
        }
        return r;
}
