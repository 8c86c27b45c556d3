/* SPDX-License-Identifier: MIT */
/* The seccomp filter: exported as BPF, checked for its architectures, then
 * installed in forked children; every denied call is compared with a
 * control child without the filter. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "seccomp-filter.h"
#include "supervise.h"
#include "tap.h"
#include "../helpers/i386-syscall.h"

static seccomp_prog prog, prog_unix;
static char tmpdir[64];

static bool filter_checks_arch(const seccomp_prog *p, uint32_t arch)
{
        for (unsigned i = 0; i < p->len; i++)
                if (BPF_CLASS(p->filter[i].code) == BPF_JMP && p->filter[i].k == arch)
                        return true;
        return false;
}

static void test_build_and_arches(void)
{
        /* the linux backend's filter, and the landlock backend's with
         * network "none" */
        seccomp_options o = {0}, u = {.sockets = SECCOMP_SOCKETS_UNIX, .host_ipc = true};
        CHECK_INTEQ(seccomp_build(&o, &prog, NULL), 0);
        CHECK_INTEQ(seccomp_build(&u, &prog_unix, NULL), 0);
        CHECK(prog.len > 20);
        /* the copy compiled at build time is what libseccomp gives now */
        seccomp_prog fresh = {0};
        CHECK_INTEQ(seccomp_compile(&o, &fresh, NULL), 0);
        CHECK_INTEQ(fresh.len, prog.len);
        CHECK(fresh.len == prog.len && memcmp(fresh.filter, prog.filter, prog.len * sizeof(*prog.filter)) == 0);
        seccomp_prog_free(&fresh);
        CHECK(prog_unix.len > prog.len);
#if defined(__x86_64__)
        /* native and i386 (x32's calls are refused whole) */
        CHECK(filter_checks_arch(&prog, AUDIT_ARCH_X86_64));
        CHECK(filter_checks_arch(&prog, AUDIT_ARCH_I386));
#elif defined(__aarch64__)
        CHECK(filter_checks_arch(&prog, AUDIT_ARCH_AARCH64));
        CHECK(filter_checks_arch(&prog, AUDIT_ARCH_ARM));
#endif
}

typedef long (*probe_fn)(void);

/* errno of |fn| in a child, with |p| installed (NULL: none), then
 * |notify| (NULL: none) with a listener closed at once: the observer gone
 * (0: success). */
static int errno_in_child2(probe_fn fn, const seccomp_prog *p, const seccomp_prog *notify)
{
        int pipefd[2];
        if (pipe(pipefd) < 0)
                return -1;
        pid_t pid = fork();
        if (pid == 0) {
                close(pipefd[0]);
                int e = 0;
                int fd = -1;
                if (p && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_install(p) < 0))
                        e = -2;
                else if (notify && (fd = supervise_install(notify)) < 0)
                        e = -2;
                else if (notify && close(fd) < 0)
                        e = -2;
                else
                        e = fn() < 0 ? errno : 0;
                (void)!write(pipefd[1], &e, sizeof(e));
                _exit(0);
        }
        close(pipefd[1]);
        int e = -3;
        (void)!read(pipefd[0], &e, sizeof(e));
        close(pipefd[0]);
        waitpid(pid, NULL, 0);
        return e;
}

static int errno_in_child(probe_fn fn, const seccomp_prog *p) { return errno_in_child2(fn, p, NULL); }

static long p_keyctl(void) { return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0); }
static long p_add_key(void) { return syscall(SYS_add_key, "cordon-no-such-type", "x", NULL, 0, KEY_SPEC_PROCESS_KEYRING); }
static long p_request_key(void) { return syscall(SYS_request_key, "cordon-no-such-type", "x", NULL, 0); }
static long p_bpf(void) { return syscall(SYS_bpf, 9999, NULL, 0); }
static long p_perf(void) { return syscall(SYS_perf_event_open, NULL, -1, -1, -1, 0); }
static long p_userfaultfd(void) { return syscall(SYS_userfaultfd, -1); }
static long p_io_uring_setup(void) { return syscall(SYS_io_uring_setup, 0, NULL); }
static long p_io_uring_enter(void) { return syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0); }
static long p_io_uring_register(void) { return syscall(SYS_io_uring_register, -1, 0, NULL, 0); }
static long p_kexec_load(void) { return syscall(SYS_kexec_load, 0, 0, NULL, -1L); }
static long p_kexec_file_load(void) { return syscall(SYS_kexec_file_load, -1, -1, 0, NULL, -1L); }
static long p_init_module(void) { return syscall(SYS_init_module, NULL, 0, NULL); }
static long p_finit_module(void) { return syscall(SYS_finit_module, -1, NULL, -1); }
static long p_delete_module(void) { return syscall(SYS_delete_module, "cordon_no_such_module", 0); }
static long p_acct(void) { return syscall(SYS_acct, "/nonexistent/cordon"); }
static long p_swapon(void) { return syscall(SYS_swapon, "/nonexistent/cordon", 0); }
static long p_swapoff(void) { return syscall(SYS_swapoff, "/nonexistent/cordon"); }
static long p_reboot(void) { return syscall(SYS_reboot, 0, 0, 0, NULL); }
static long p_mount(void) { return syscall(SYS_mount, "none", "/nonexistent/cordon", "tmpfs", 0, NULL); }
static long p_umount2(void) { return syscall(SYS_umount2, "/nonexistent/cordon", 0); }
static long p_pivot_root(void) { return syscall(SYS_pivot_root, "/nonexistent/a", "/nonexistent/b"); }
static long p_move_mount(void) { return syscall(SYS_move_mount, -1, "", -1, "", 0); }
static long p_open_tree(void) { return syscall(SYS_open_tree, -1, "/nonexistent/cordon", 0); }
static long p_fsopen(void) { return syscall(SYS_fsopen, "cordon-no-such-fs", 0); }
static long p_fsmount(void) { return syscall(SYS_fsmount, -1, 0, 0); }
static long p_setns(void) { return syscall(SYS_setns, -1, 0); }
static long p_unshare(void) { return syscall(SYS_unshare, 0x80000000UL); }
static long p_open_by_handle_at(void) { return syscall(SYS_open_by_handle_at, -1, NULL, 0); }
static long p_syslog(void) { return syscall(SYS_syslog, 10 /* SIZE_BUFFER */, NULL, 0); }
static long p_settimeofday(void) { return syscall(SYS_settimeofday, NULL, NULL); }
static long p_clock_settime(void) { return syscall(SYS_clock_settime, -1, NULL); }
static long p_adjtimex(void) { return syscall(SYS_adjtimex, NULL); }
static long p_clone3(void) { return syscall(SYS_clone3, NULL, 0); }
static long p_openat2(void) { return syscall(SYS_openat2, -1, NULL, NULL, 0); }
/* open_tree_attr (Linux 6.15; libseccomp 2.5 cannot name it: denied by number) */
static long p_open_tree_attr(void) { return syscall(467, -1, "/nonexistent/cordon", 0, NULL, 0); }

#if defined(__x86_64__)
#include <sys/mman.h>
static char *low_path; /* "/nonexistent/cordon" below 4 GiB, for i386 calls */

static long p_i386_getpid(void) { return i386_syscall(20, 0, 0, 0, 0, 0); }
/* umount (oldumount) exists on i386 only; the path is looked up first, so
 * unfiltered it fails with ENOENT for root and users alike */
static long p_i386_umount(void) { return i386_syscall(22, (long)low_path, 0, 0, 0, 0); }
static long p_i386_umount2(void) { return i386_syscall(52, (long)low_path, 0, 0, 0, 0); }
static long p_i386_open_tree_attr(void) { return i386_syscall(467, -1, (long)low_path, 0, 0, 0); }
static long p_i386_modify_ldt(void) { return i386_syscall(123, 0 /* read */, (long)(low_path + 2048), 16, 0, 0); }
/* x32's number for it (the x32 bit set): ENOSYS unfiltered where the kernel
 * has no x32 ABI, still EPERM with the filter */
static long p_x32_open_tree_attr(void) { return syscall(467 | 0x40000000L, -1, "/nonexistent/cordon", 0, NULL, 0); }
static long p_modify_ldt(void)
{
        char ldt[16];
        return syscall(SYS_modify_ldt, 0 /* read */, ldt, sizeof(ldt));
}
#endif
static long p_personality(void)
{
        long r = syscall(SYS_personality, ADDR_NO_RANDOMIZE);
        if (r >= 0)
                personality(PER_LINUX);
        return r;
}
static long p_personality_default(void) { return syscall(SYS_personality, PER_LINUX); }
static long p_clone_newuser(void)
{
        long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, 0);
        if (pid == 0)
                _exit(0);
        if (pid > 0)
                waitpid((pid_t)pid, NULL, 0);
        return pid < 0 ? -1 : 0;
}
static long p_clone_plain(void)
{
        long pid = syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, 0);
        if (pid == 0)
                _exit(0);
        if (pid > 0)
                waitpid((pid_t)pid, NULL, 0);
        return pid < 0 ? -1 : 0;
}
static long p_tiocsti(void)
{
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        char c = 'x';
        long r = ioctl(fd, TIOCSTI, &c);
        int e = errno;
        close(fd);
        errno = e;
        return r;
}
static long p_tiocsti_high_bits(void)
{
        /* the request is an int: garbage in the upper half must not slip past */
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        char c = 'x';
        long r = syscall(SYS_ioctl, fd, 0x100000000UL | TIOCSTI, &c);
        int e = errno;
        close(fd);
        errno = e;
        return r;
}
static long p_tioclinux(void)
{
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        char c = 0;
        long r = ioctl(fd, TIOCLINUX, &c);
        int e = errno;
        close(fd);
        errno = e;
        return r;
}

static char file_path[128];
static long p_chmod_suid(void) { return chmod(file_path, 04755); }
static long p_chmod_sgid(void) { return chmod(file_path, 02755); }
static long p_chmod_plain(void) { return chmod(file_path, 0755); }
static long p_fchmodat_suid(void) { return syscall(SYS_fchmodat, AT_FDCWD, file_path, 04755); }
static long p_fchmod_suid(void)
{
        int fd = open(file_path, O_RDONLY | O_CLOEXEC);
        long r = syscall(SYS_fchmod, fd, 04755);
        int e = errno;
        close(fd);
        errno = e;
        return r;
}
static long p_open_create_suid(void)
{
        char p[160];
        snprintf(p, sizeof(p), "%s/created-suid", tmpdir);
        long r = syscall(SYS_openat, AT_FDCWD, p, O_CREAT | O_WRONLY | O_CLOEXEC, 04755);
        if (r >= 0) {
                close((int)r);
                unlink(p);
        }
        return r;
}
static long p_creat_sgid(void)
{
        char p[160];
        snprintf(p, sizeof(p), "%s/created-sgid", tmpdir);
        long r = syscall(SYS_creat, p, 02755);
        if (r >= 0) {
                close((int)r);
                unlink(p);
        }
        return r;
}
static long p_mknod_suid(void)
{
        char p[160];
        snprintf(p, sizeof(p), "%s/node-suid", tmpdir);
        long r = syscall(SYS_mknodat, AT_FDCWD, p, S_IFREG | 04755, 0);
        if (r >= 0)
                unlink(p);
        return r;
}
static long p_socket_inet(void)
{
        long r = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (r >= 0)
                close((int)r);
        return r;
}
static long p_socket_unix(void)
{
        long r = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (r >= 0)
                close((int)r);
        return r;
}

typedef struct denied_case {
        const char *name;
        probe_fn fn;
        int want; /* errno with the filter */
} denied_case;

static const denied_case DENIED[] = {
        {"keyctl", p_keyctl, EPERM},
        {"add_key", p_add_key, EPERM},
        {"request_key", p_request_key, EPERM},
        {"bpf", p_bpf, EPERM},
        {"perf_event_open", p_perf, EPERM},
        {"userfaultfd", p_userfaultfd, EPERM},
        {"io_uring_setup", p_io_uring_setup, EPERM},
        {"io_uring_enter", p_io_uring_enter, EPERM},
        {"io_uring_register", p_io_uring_register, EPERM},
        {"kexec_load", p_kexec_load, EPERM},
        {"kexec_file_load", p_kexec_file_load, EPERM},
        {"init_module", p_init_module, EPERM},
        {"finit_module", p_finit_module, EPERM},
        {"delete_module", p_delete_module, EPERM},
        {"acct", p_acct, EPERM},
        {"swapon", p_swapon, EPERM},
        {"swapoff", p_swapoff, EPERM},
        {"reboot", p_reboot, EPERM},
        {"mount", p_mount, EPERM},
        {"umount2", p_umount2, EPERM},
        {"pivot_root", p_pivot_root, EPERM},
        {"move_mount", p_move_mount, EPERM},
        {"open_tree", p_open_tree, EPERM},
        {"fsopen", p_fsopen, EPERM},
        {"fsmount", p_fsmount, EPERM},
        {"setns", p_setns, EPERM},
        {"unshare", p_unshare, EPERM},
        {"clone(CLONE_NEWUSER)", p_clone_newuser, EPERM},
        {"clone3", p_clone3, ENOSYS},
        {"open_by_handle_at", p_open_by_handle_at, EPERM},
        {"syslog", p_syslog, EPERM},
        {"settimeofday", p_settimeofday, EPERM},
        {"clock_settime", p_clock_settime, EPERM},
        {"adjtimex", p_adjtimex, EPERM},
        {"openat2", p_openat2, ENOSYS},
        {"personality(ADDR_NO_RANDOMIZE)", p_personality, EPERM},
        {"ioctl(TIOCSTI)", p_tiocsti, EPERM},
        {"ioctl(TIOCSTI | 1<<32)", p_tiocsti_high_bits, EPERM},
        {"ioctl(TIOCLINUX)", p_tioclinux, EPERM},
        {"chmod(S_ISUID)", p_chmod_suid, EPERM},
        {"chmod(S_ISGID)", p_chmod_sgid, EPERM},
        {"fchmod(S_ISUID)", p_fchmod_suid, EPERM},
        {"fchmodat(S_ISUID)", p_fchmodat_suid, EPERM},
        {"openat(O_CREAT, S_ISUID)", p_open_create_suid, EPERM},
        {"creat(S_ISGID)", p_creat_sgid, EPERM},
        {"mknodat(S_ISUID)", p_mknod_suid, EPERM},
};

static void test_denied_calls(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(DENIED); i++) {
                int ctl = errno_in_child(DENIED[i].fn, NULL);
                int got = errno_in_child(DENIED[i].fn, &prog);
                if (got != DENIED[i].want)
                        printf("# %s: errno %d with the filter, want %d\n", DENIED[i].name, got, DENIED[i].want);
                CHECK_INTEQ(got, DENIED[i].want);
                /* the control shows the filter made the difference */
                if (ctl == DENIED[i].want)
                        printf("# %s: control also gives errno %d (the kernel refuses it for this user)\n",
                               DENIED[i].name, ctl);
                if (getuid() == 0)
                        CHECK(ctl != DENIED[i].want);
        }
}

/* The calls of the other architectures a 64-bit x86 process can reach, and
 * the ones libseccomp cannot name, each against a filter-less control. */
static void test_denied_other_arches(void)
{
        int ctl = errno_in_child(p_open_tree_attr, NULL);
        printf("# open_tree_attr unfiltered: errno %d\n", ctl);
        CHECK(ctl == ENOENT || ctl == ENOSYS);
        CHECK_INTEQ(errno_in_child(p_open_tree_attr, &prog), EPERM);
        CHECK_INTEQ(errno_in_child(p_open_tree_attr, &prog_unix), EPERM);
#if defined(__x86_64__)
        CHECK_INTEQ(errno_in_child(p_modify_ldt, NULL), 0);
        CHECK_INTEQ(errno_in_child(p_modify_ldt, &prog), EPERM);
        ctl = errno_in_child(p_x32_open_tree_attr, NULL);
        CHECK(ctl == ENOENT || ctl == ENOSYS);
        CHECK_INTEQ(errno_in_child(p_x32_open_tree_attr, &prog), ENOSYS);
        /* every x32 call is refused, an allowed one's number too (where the
         * kernel has no x32 ABI the call itself cannot tell: the program's
         * answer can) */
        struct seccomp_data x32 = {.nr = (int)(39 | 0x40000000U) /* getpid */, .arch = AUDIT_ARCH_X86_64};
        CHECK_INTEQ(seccomp_eval(&prog, &x32), SECCOMP_RET_ERRNO | ENOSYS);
        CHECK_INTEQ(seccomp_eval(&prog_unix, &x32), SECCOMP_RET_ERRNO | ENOSYS);
        x32.nr = 39;
        CHECK_INTEQ(seccomp_eval(&prog, &x32), SECCOMP_RET_ALLOW);
        low_path = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        CHECK(low_path != MAP_FAILED);
        if (low_path == MAP_FAILED)
                return;
        strcpy(low_path, "/nonexistent/cordon");
        /* a kernel without ia32 emulation kills int $0x80 with SIGSEGV */
        if (errno_in_child(p_i386_getpid, NULL) != 0) {
                tap_skip("i386 system calls", "no ia32 emulation (CONFIG_IA32_EMULATION, ia32_emulation=)");
                return;
        }
        static const denied_case I386[] = {
                {"i386 umount", p_i386_umount, EPERM},
                {"i386 umount2", p_i386_umount2, EPERM},
                {"i386 open_tree_attr", p_i386_open_tree_attr, EPERM},
                {"i386 modify_ldt", p_i386_modify_ldt, EPERM},
        };
        for (size_t i = 0; i < ARRAY_SIZE(I386); i++) {
                ctl = errno_in_child(I386[i].fn, NULL);
                int got = errno_in_child(I386[i].fn, &prog);
                printf("# %s: errno %d unfiltered, %d with the filter\n", I386[i].name, ctl, got);
                CHECK_INTEQ(got, I386[i].want);
                CHECK(ctl != I386[i].want);
        }
        CHECK_INTEQ(errno_in_child(p_i386_getpid, &prog), 0);
#endif
}

static void test_allowed_calls(void)
{
        CHECK_INTEQ(errno_in_child(p_chmod_plain, &prog), 0);
        CHECK_INTEQ(errno_in_child(p_personality_default, &prog), 0);
        CHECK_INTEQ(errno_in_child(p_clone_plain, &prog), 0);
        CHECK_INTEQ(errno_in_child(p_socket_inet, &prog), 0);
        CHECK_INTEQ(errno_in_child(p_socket_unix, &prog_unix), 0);
}

/* A private segment of this process: created before the filter (a host
 * process's), then looked up, attached and removed under it. */
static int shm_id = -1;
static long p_shmget(void) { return syscall(SYS_shmget, 0x43524431, 0, 0); }
static long p_shmat(void)
{
        long r = syscall(SYS_shmat, shm_id, NULL, SHM_RDONLY);
        return r == -1 ? -1 : 0;
}
static long p_shmctl(void) { struct shmid_ds ds; return syscall(SYS_shmctl, shm_id, IPC_STAT, &ds); }
/* lookups of keys that do not exist: ENOENT unfiltered, nothing created */
static long p_msgget(void) { return syscall(SYS_msgget, 0x43524432, 0); }
static long p_semget(void) { return syscall(SYS_semget, 0x43524432, 0, 0); }
#if defined(__x86_64__)
/* i386: the ipc(2) multiplexer (SHMGET = 23) and the direct shmget (395) */
static long p_i386_ipc_shmget(void) { return i386_syscall(117, 23, 0x43524431, 0, 0, 0); }
static long p_i386_shmget(void) { return i386_syscall(395, 0x43524431, 0, 0, 0, 0); }
#endif

static void test_host_ipc(void)
{
        shm_id = shmget(0x43524431, 4096, IPC_CREAT | 0600);
        CHECK(shm_id >= 0);
        static const denied_case IPC[] = {
                {"shmget", p_shmget, EPERM}, {"shmat", p_shmat, EPERM},   {"shmctl", p_shmctl, EPERM},
                {"msgget", p_msgget, EPERM}, {"semget", p_semget, EPERM},
#if defined(__x86_64__)
                {"i386 ipc(SHMGET)", p_i386_ipc_shmget, EPERM}, {"i386 shmget", p_i386_shmget, EPERM},
#endif
        };
        for (size_t i = 0; i < ARRAY_SIZE(IPC); i++) {
                int ctl = errno_in_child(IPC[i].fn, NULL);
                int linux_be = errno_in_child(IPC[i].fn, &prog);
                int got = errno_in_child(IPC[i].fn, &prog_unix);
                printf("# %s: errno %d unfiltered, %d linux filter, %d landlock filter\n", IPC[i].name, ctl,
                       linux_be, got);
                CHECK(ctl == 0 || ctl == ENOENT);
                CHECK_INTEQ(linux_be, ctl); /* the linux backend has its own IPC namespace */
                CHECK_INTEQ(got, IPC[i].want);
        }
        /* the landlock backend with network "full" */
        seccomp_options full = {.host_ipc = true};
        seccomp_prog p = {0};
        CHECK_INTEQ(seccomp_build(&full, &p, NULL), 0);
        CHECK_INTEQ(errno_in_child(p_shmget, &p), EPERM);
        CHECK_INTEQ(errno_in_child(p_socket_inet, &p), 0);
        seccomp_prog_free(&p);
        shmctl(shm_id, IPC_RMID, NULL);
}

static void test_unix_sockets_only(void)
{
        CHECK_INTEQ(errno_in_child(p_socket_inet, NULL), 0);
        CHECK_INTEQ(errno_in_child(p_socket_inet, &prog_unix), EPERM);
}

static long sock(int domain, int type, int protocol)
{
        long r = socket(domain, type | SOCK_CLOEXEC, protocol);
        if (r >= 0)
                close((int)r);
        return r;
}
static long p_socket_inet6(void) { return sock(AF_INET6, SOCK_STREAM, 0); }
static long p_socket_tcp(void) { return sock(AF_INET, SOCK_STREAM, IPPROTO_TCP); }
static long p_socket_udp(void) { return sock(AF_INET, SOCK_DGRAM, 0); }
static long p_socket_udp6(void) { return sock(AF_INET6, SOCK_DGRAM, 0); }
static long p_socket_mptcp(void) { return sock(AF_INET, SOCK_STREAM, 262); }
static long p_socket_netlink(void) { return sock(AF_NETLINK, SOCK_RAW, 0); }
static long p_socket_seqpacket6(void) { return sock(AF_INET6, SOCK_SEQPACKET, 0); }
/* AF_INET with garbage in the upper 32 bits: the kernel reads an int */
static long p_socket_inet_high(void) { return syscall(SYS_socket, 0x100000000L | AF_INET, SOCK_DGRAM, 0); }

/* The landlock backend's "proxy": unix and TCP sockets, nothing else. */
static void test_unix_tcp_sockets(void)
{
        seccomp_options o = {.sockets = SECCOMP_SOCKETS_UNIX_TCP, .host_ipc = true};
        seccomp_prog p = {0};
        CHECK_INTEQ(seccomp_build(&o, &p, NULL), 0);
        seccomp_prog fresh = {0};
        CHECK_INTEQ(seccomp_compile(&o, &fresh, NULL), 0);
        CHECK(fresh.len == p.len && memcmp(fresh.filter, p.filter, p.len * sizeof(*p.filter)) == 0);
        seccomp_prog_free(&fresh);
        static const struct {
                const char *name;
                probe_fn fn;
                int want;
        } CASES[] = {
                {"unix", p_socket_unix, 0},          {"tcp", p_socket_inet, 0},
                {"tcp6", p_socket_inet6, 0},         {"IPPROTO_TCP", p_socket_tcp, 0},
                {"udp", p_socket_udp, EPERM},        {"udp6", p_socket_udp6, EPERM},
                {"mptcp", p_socket_mptcp, EPERM},    {"netlink", p_socket_netlink, EPERM},
                {"seqpacket6", p_socket_seqpacket6, EPERM}, {"inet, high bits", p_socket_inet_high, EPERM},
        };
        for (size_t i = 0; i < ARRAY_SIZE(CASES); i++) {
                /* the control: the call is no error without a filter (but
                 * for the kernel's own refusals, which are not EPERM) */
                int bare = errno_in_child(CASES[i].fn, NULL);
                int got = errno_in_child(CASES[i].fn, &p);
                if (got != CASES[i].want || bare == EPERM)
                        printf("# %s: errno %d unfiltered, %d filtered, want %d\n", CASES[i].name, bare, got,
                               CASES[i].want);
                CHECK(bare != EPERM);
                CHECK_INTEQ(got, CASES[i].want);
        }
        seccomp_prog_free(&p);
}

/* What the kernel returns to --explain's observer, which notes it and
 * answers with its errno (seccomp_eval): the main filter's program. */
static void check_eval(const seccomp_prog *refusals, const seccomp_prog *notified, long nr, uint64_t arg0,
                       uint32_t want)
{
        struct seccomp_data d = {.nr = (int)nr, .arch = SECCOMP_NATIVE_ARCH, .args = {arg0}};
        CHECK_INTEQ(seccomp_eval(refusals, &d), want);
        CHECK_INTEQ(seccomp_eval(notified, &d), want == SECCOMP_RET_ALLOW ? SECCOMP_RET_ALLOW : SECCOMP_RET_USER_NOTIF);
}

/* --explain's split (seccomp-notify.c): the main filter lets the native
 * calls pass, its copy in the listener's filter refuses each call the
 * filter refuses (ENOSYS once the listener is gone: still refused), lets
 * the others pass, and leaves i386 and x32 to the main filter. */
static void test_explain_split(void)
{
        seccomp_prog main_f = {0}, refusals = {0};
        seccomp_options o = {0};
        CHECK_INTEQ(seccomp_build(&o, &main_f, NULL), 0);
        CHECK_INTEQ(seccomp_split_refusals(&main_f, &refusals), 0);
        CHECK(refusals.len == prog.len && memcmp(refusals.filter, prog.filter, prog.len * sizeof(*prog.filter)) == 0);
        static struct sock_filter notify_buf[BPF_MAXINSNS];
        int n = seccomp_refusals_notified(&refusals, notify_buf, ARRAY_SIZE(notify_buf));
        CHECK(n > refusals.len);
        seccomp_prog notified = {notify_buf, (unsigned short)(n > 0 ? n : 0)};
        const uint32_t eperm = SECCOMP_RET_ERRNO | EPERM;
        check_eval(&refusals, &notified, SYS_mount, 0, eperm);
        check_eval(&refusals, &notified, SYS_getpid, 0, SECCOMP_RET_ALLOW);
        check_eval(&refusals, &notified, SYS_clone, CLONE_NEWUSER | SIGCHLD, eperm);
        check_eval(&refusals, &notified, SYS_clone, SIGCHLD, SECCOMP_RET_ALLOW);
        check_eval(&refusals, &notified, SYS_clone3, 0, SECCOMP_RET_ERRNO | ENOSYS);
        check_eval(&refusals, &notified, SYS_personality, ADDR_NO_RANDOMIZE, eperm);
        check_eval(&refusals, &notified, SYS_personality, PER_LINUX, SECCOMP_RET_ALLOW);
        for (size_t i = 0; i < ARRAY_SIZE(DENIED); i++) {
                int ctl = errno_in_child(DENIED[i].fn, NULL);
                int alone = errno_in_child(DENIED[i].fn, &main_f);
                int gone = errno_in_child2(DENIED[i].fn, &main_f, &notified);
                if (alone != ctl || gone != ENOSYS)
                        printf("# %s: errno %d unfiltered, %d with the main filter split, %d with the listener gone\n",
                               DENIED[i].name, ctl, alone, gone);
                CHECK_INTEQ(alone, ctl);
                CHECK_INTEQ(gone, ENOSYS);
        }
        CHECK_INTEQ(errno_in_child2(p_chmod_plain, &main_f, &notified), 0);
        CHECK_INTEQ(errno_in_child2(p_personality_default, &main_f, &notified), 0);
        CHECK_INTEQ(errno_in_child2(p_clone_plain, &main_f, &notified), 0);
        CHECK_INTEQ(errno_in_child2(p_socket_inet, &main_f, &notified), 0);
#if defined(__x86_64__)
        CHECK_INTEQ(errno_in_child2(p_x32_open_tree_attr, &main_f, &notified), ENOSYS);
        if (low_path && low_path != MAP_FAILED && errno_in_child(p_i386_getpid, NULL) == 0) {
                CHECK_INTEQ(errno_in_child2(p_i386_umount, &main_f, &notified), EPERM);
                CHECK_INTEQ(errno_in_child2(p_i386_modify_ldt, &main_f, &notified), EPERM);
                CHECK_INTEQ(errno_in_child2(p_i386_getpid, &main_f, &notified), 0);
        }
#endif
        /* the call's name in the record: libseccomp's, or the table
         * written at build time (the CLI without libseccomp) */
        char *name = seccomp_call_name(SYS_mount);
        CHECK(streq(name, "mount"));
        free(name);
        CHECK(SYS_mount < (long)seccomp_precompiled_names_count && streq(seccomp_precompiled_names[SYS_mount], "mount"));
        seccomp_prog_free(&main_f);
        seccomp_prog_free(&refusals);
}

int main(void)
{
        strcpy(tmpdir, "/tmp/cordon-seccomp.XXXXXX");
        if (!mkdtemp(tmpdir))
                return 1;
        snprintf(file_path, sizeof(file_path), "%s/file", tmpdir);
        int fd = open(file_path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        close(fd);
        RUN(test_build_and_arches);
        RUN(test_denied_calls);
        RUN(test_denied_other_arches);
        RUN(test_allowed_calls);
        RUN(test_unix_sockets_only);
        RUN(test_unix_tcp_sockets);
        RUN(test_host_ipc);
        RUN(test_explain_split);
        unlink(file_path);
        rmdir(tmpdir);
        seccomp_prog_free(&prog);
        seccomp_prog_free(&prog_unix);
        return TAP_DONE();
}
