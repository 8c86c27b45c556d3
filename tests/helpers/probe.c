/* SPDX-License-Identifier: MIT */
/* probe: tries one thing and prints "OK" or the errno name, for the tests
 * to check a boundary from inside and outside the sandbox. Built without
 * sanitizers by the test library (cc -O2 probe.c -o probe).
 *
 *   probe read PATH | write PATH | create PATH | mkdir PATH | unlink PATH
 *   probe connect HOST PORT | listen PORT (serve one "hello") | bind PORT
 *   probe socket inet|inet6|unix|netlink | abstract-connect NAME | abstract-listen NAME
 *   probe syscall NAME | kill PID [SIG] | sig KIND PID [SIG] | ptrace PID | chmod-suid PATH | mknod-suid PATH
 *     (NAME-i386: the i386 call through int $0x80, x86-64 only)
 *   probe tiocsti | fds | alloc MIB | spin | fork-many N | open-many N
 *   probe write-bytes PATH N | sleep-ignore-term SECONDS | link SRC DST
 *   probe keyring-read KEYID | setuid-check
 *   probe shm-create KEY TEXT (0600) | shm-read KEY | shm-write KEY TEXT | shm-remove KEY
 *   probe meta KIND PATH: a metadata change by one route (see do_meta)
 *   probe unix-connect PATH | unix-dgram | unix-dgram-pair
 *   probe dev-read PATH (open, read one byte) | dev-mknod PATH (a char device, 1:3)
 *   probe llnet-serve PORTFILE SECONDS | llnet-unix-serve PATH SECONDS | llnet-abstract-serve NAME SECONDS
 *   probe llnet-tfo-sendto|llnet-tfo-sendmsg|llnet-tfo-sendmmsg|llnet-tfo-connect HOST PORT
 *   probe llnet-listen-unbound | llnet-udp-sendto HOST PORT (see do_llnet)
 *   probe llnet-i386-connect PATH | llnet-i386-listen NAME (x86-64 only)
 *   probe atk-KIND ARGS...: an attack on the landlock backend's network (see do_atk,
 *     tests/escape/landlock-attack.sh)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "i386-syscall.h"

static const char *errname(int e)
{
        switch (e) {
#define E(x) \
        case x: return #x;
                E(EPERM) E(ENOENT) E(ESRCH) E(EINTR) E(EIO) E(ENXIO) E(E2BIG) E(ENOEXEC) E(EBADF) E(ECHILD)
                E(EAGAIN) E(ENOMEM) E(EACCES) E(EFAULT) E(EBUSY) E(EEXIST) E(EXDEV) E(ENODEV) E(ENOTDIR)
                E(EISDIR) E(EINVAL) E(ENFILE) E(EMFILE) E(ENOTTY) E(EFBIG) E(ENOSPC) E(ESPIPE) E(EROFS)
                E(EMLINK) E(EPIPE) E(ERANGE) E(ENOSYS) E(ELOOP) E(ENOKEY) E(EKEYREVOKED) E(EOPNOTSUPP)
                E(EAFNOSUPPORT) E(EADDRINUSE) E(EADDRNOTAVAIL) E(ENETDOWN) E(ENETUNREACH) E(ECONNREFUSED)
                E(ETIMEDOUT) E(EHOSTUNREACH) E(ETXTBSY) E(EPROTONOSUPPORT) E(ENOTSOCK) E(ENOTCONN)
#undef E
        default: return "E?";
        }
}

static int result(long r)
{
        if (r < 0) {
                printf("%s\n", errname(errno));
                return 1;
        }
        printf("OK\n");
        return 0;
}

static int do_read(const char *path)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return result(-1);
        char buf[4096];
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                fwrite(buf, 1, (size_t)n, stdout);
        return n < 0 ? result(-1) : 0;
}

static int do_write(const char *path, const char *text, int flags)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
        if (fd < 0)
                return result(-1);
        ssize_t n = write(fd, text, strlen(text));
        close(fd);
        return result(n < 0 ? -1 : 0);
}

static int tcp_addr(const char *host, const char *port, struct sockaddr_in *sa)
{
        memset(sa, 0, sizeof(*sa));
        sa->sin_family = AF_INET;
        sa->sin_port = htons((uint16_t)atoi(port));
        return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static int do_connect(const char *host, const char *port)
{
        struct sockaddr_in sa;
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || tcp_addr(host, port, &sa) < 0)
                return result(-1);
        struct timeval tv = {.tv_sec = 3};
        setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        return result(connect(s, (struct sockaddr *)&sa, sizeof(sa)));
}

static int do_listen(const char *port, bool serve)
{
        struct sockaddr_in sa;
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (s < 0 || tcp_addr("127.0.0.1", port, &sa) < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            listen(s, 8) < 0)
                return result(-1);
        if (!serve)
                return result(0);
        printf("LISTENING\n");
        fflush(stdout);
        int c = accept(s, NULL, NULL);
        if (c >= 0) {
                (void)!write(c, "hello\n", 6);
                close(c);
        }
        return 0;
}

static int do_socket(const char *kind)
{
        /* udp, udp6: datagrams; mptcp: a stream that is not TCP (262) */
        bool udp = !strcmp(kind, "udp") || !strcmp(kind, "udp6"), mptcp = !strcmp(kind, "mptcp");
        int dom = !strcmp(kind, "inet") || !strcmp(kind, "udp") || mptcp ? AF_INET
                : !strcmp(kind, "inet6") || !strcmp(kind, "udp6") ? AF_INET6
                : !strcmp(kind, "unix") ? AF_UNIX : !strcmp(kind, "netlink") ? AF_NETLINK : -1;
        int type = dom == AF_NETLINK ? SOCK_RAW : udp ? SOCK_DGRAM : SOCK_STREAM;
        return result(socket(dom, type | SOCK_CLOEXEC, mptcp ? 262 : 0));
}

static socklen_t abstract_addr(const char *name, struct sockaddr_un *sa)
{
        memset(sa, 0, sizeof(*sa));
        sa->sun_family = AF_UNIX;
        size_t n = strlen(name);
        if (n > sizeof(sa->sun_path) - 2)
                n = sizeof(sa->sun_path) - 2;
        memcpy(sa->sun_path + 1, name, n); /* leading NUL: abstract */
        return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int do_abstract(const char *name, bool listen_side)
{
        struct sockaddr_un sa;
        socklen_t len = abstract_addr(name, &sa);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
                return result(-1);
        if (!listen_side)
                return result(connect(s, (struct sockaddr *)&sa, len));
        if (bind(s, (struct sockaddr *)&sa, len) < 0 || listen(s, 4) < 0)
                return result(-1);
        printf("LISTENING\n");
        fflush(stdout);
        for (;;) {
                int c = accept(s, NULL, NULL);
                if (c >= 0)
                        close(c);
        }
}

#if defined(__x86_64__)
/* NAME-i386: umount (22, i386 only), umount2 (52), open_tree_attr (467),
 * modify_ldt (123), getpid (20: is there ia32 emulation at all?) */
static long try_i386(const char *name)
{
        char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (low == MAP_FAILED)
                return -1;
        strcpy(low, "/nonexistent/cordon");
        if (!strcmp(name, "umount-i386")) return i386_syscall(22, (long)low, 0, 0, 0, 0);
        if (!strcmp(name, "umount2-i386")) return i386_syscall(52, (long)low, 0, 0, 0, 0);
        if (!strcmp(name, "open_tree_attr-i386")) return i386_syscall(467, -1, (long)low, 0, 0, 0);
        if (!strcmp(name, "modify_ldt-i386")) return i386_syscall(123, 0, (long)(low + 2048), 16, 0, 0);
        if (!strcmp(name, "getpid-i386")) return i386_syscall(20, 0, 0, 0, 0, 0);
        fprintf(stderr, "probe: unknown syscall %s\n", name);
        exit(2);
}
#endif

/* Each syscall with arguments that cannot do harm; the interesting part is
 * whether the call is refused before the kernel looks at them. */
static long try_syscall(const char *name)
{
        static char buf[64];
#if defined(__x86_64__)
        if (strstr(name, "-i386"))
                return try_i386(name);
#endif
        struct {
                const char *name;
                long nr;
                long a[6];
        } T[] = {
                {"keyctl", SYS_keyctl, {KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0}},
                {"add_key", SYS_add_key, {(long)"cordon-no-such-type", (long)"x", 0, 0, KEY_SPEC_PROCESS_KEYRING}},
                {"request_key", SYS_request_key, {(long)"cordon-no-such-type", (long)"x", 0, 0}},
                {"bpf", SYS_bpf, {9999, 0, 0}},
                {"perf_event_open", SYS_perf_event_open, {0, -1, -1, -1, 0}},
                {"userfaultfd", SYS_userfaultfd, {-1}},
                {"io_uring_setup", SYS_io_uring_setup, {0, 0}},
                {"io_uring_enter", SYS_io_uring_enter, {-1, 0, 0, 0, 0, 0}},
                {"io_uring_register", SYS_io_uring_register, {-1, 0, 0, 0}},
                {"kexec_load", SYS_kexec_load, {0, 0, 0, -1}},
                {"kexec_file_load", SYS_kexec_file_load, {-1, -1, 0, 0, -1}},
                {"init_module", SYS_init_module, {0, 0, 0}},
                {"finit_module", SYS_finit_module, {-1, 0, -1}},
                {"delete_module", SYS_delete_module, {(long)"cordon_no_such_module", 0}},
                {"acct", SYS_acct, {(long)"/nonexistent/cordon"}},
                {"swapon", SYS_swapon, {(long)"/nonexistent/cordon", 0}},
                {"swapoff", SYS_swapoff, {(long)"/nonexistent/cordon"}},
                {"reboot", SYS_reboot, {0, 0, 0, 0}},
                {"mount", SYS_mount, {(long)"none", (long)"/nonexistent/cordon", (long)"tmpfs", 0, 0}},
                {"umount2", SYS_umount2, {(long)"/nonexistent/cordon", 0}},
                {"pivot_root", SYS_pivot_root, {(long)"/nonexistent/a", (long)"/nonexistent/b"}},
                {"move_mount", SYS_move_mount, {-1, (long)"", -1, (long)"", 0}},
                {"open_tree", SYS_open_tree, {-1, (long)"/nonexistent/cordon", 0}},
                {"open_tree_attr", 467, {-1, (long)"/nonexistent/cordon", 0, 0, 0}},
#if defined(__x86_64__)
                {"modify_ldt", SYS_modify_ldt, {0 /* read */, (long)buf, sizeof(buf)}},
#endif
                {"fsopen", SYS_fsopen, {(long)"cordon-no-such-fs", 0}},
                {"fsmount", SYS_fsmount, {-1, 0, 0}},
                {"setns", SYS_setns, {-1, 0}},
                {"unshare", SYS_unshare, {0x80000000L /* invalid flag */}},
                {"clone-newns", SYS_clone, {0x00020000L | 0x00000200L /* NEWNS | FS: EINVAL first */, 1, 0, 0, 0}},
                {"clone3", SYS_clone3, {0, 0}},
                {"open_by_handle_at", SYS_open_by_handle_at, {-1, 0, 0}},
                {"syslog", SYS_syslog, {3 /* READ_ALL */, (long)buf, 0}},
                {"settimeofday", SYS_settimeofday, {1 /* EFAULT before the capability check */, 0}},
                {"clock_settime", SYS_clock_settime, {-1, 0}},
                {"adjtimex", SYS_adjtimex, {0}},
                {"personality", SYS_personality, {0x0040000 /* ADDR_NO_RANDOMIZE */}},
        };
        for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
                if (!strcmp(name, T[i].name)) {
                        long r = syscall(T[i].nr, T[i].a[0], T[i].a[1], T[i].a[2], T[i].a[3], T[i].a[4], T[i].a[5]);
                        if (!strcmp(name, "personality") && r >= 0)
                                personality(PER_LINUX);
                        return r;
                }
        fprintf(stderr, "probe: unknown syscall %s\n", name);
        exit(2);
}

static int do_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;
        int self = d ? dirfd(d) : -1;
        while (d && (e = readdir(d)))
                if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != self)
                        printf("%s\n", e->d_name);
        if (d)
                closedir(d);
        return 0;
}

static int do_alloc(long mib)
{
        for (long i = 0; i < mib; i++) {
                char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED)
                        return result(-1);
                memset(p, 1, 1 << 20);
        }
        return result(0);
}

/* Fork up to |n| children that wait, print how many forks succeeded, then
 * kill and reap them (only them: the probe may share a process group with
 * the test runner). */
static int do_fork_many(int n)
{
        pid_t *kids = calloc((size_t)(n > 0 ? n : 1), sizeof(pid_t));
        int made = 0;
        if (!kids)
                return result(-1);
        for (int i = 0; i < n; i++) {
                pid_t p = fork();
                if (p < 0)
                        break;
                if (p == 0) {
                        pause();
                        _exit(0);
                }
                kids[made++] = p;
        }
        printf("%d\n", made);
        fflush(stdout);
        for (int i = 0; i < made; i++)
                kill(kids[i], SIGKILL);
        for (int i = 0; i < made; i++)
                waitpid(kids[i], NULL, 0);
        free(kids);
        return 0;
}

static int do_open_many(int n)
{
        int made = 0;
        for (int i = 0; i < n; i++, made++)
                if (open("/dev/null", O_RDONLY) < 0)
                        break;
        printf("%d %s\n", made, made < n ? errname(errno) : "OK");
        return 0;
}

static int do_write_bytes(const char *path, long n)
{
        signal(SIGXFSZ, SIG_IGN);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return result(-1);
        char buf[4096];
        memset(buf, 'x', sizeof(buf));
        for (long done = 0; done < n;) {
                ssize_t w = write(fd, buf, (size_t)(n - done < 4096 ? n - done : 4096));
                if (w < 0)
                        return result(-1);
                done += w;
        }
        return result(0);
}

static int do_setuid_check(void)
{
        /* what a setuid binary would gain: effective and saved ids */
        uid_t r, e, s;
        getresuid(&r, &e, &s);
        printf("%u %u %u\n", r, e, s);
        return 0;
}

/* System V shared memory: |key| in hexadecimal. */
static int do_shm(const char *op, const char *key, const char *text)
{
        key_t k = (key_t)strtoul(key, NULL, 16);
        bool create = !strcmp(op, "shm-create");
        int id = shmget(k, create ? 4096 : 0, create ? IPC_CREAT | IPC_EXCL | 0600 : 0);
        if (id < 0)
                return result(-1);
        if (!strcmp(op, "shm-remove"))
                return result(shmctl(id, IPC_RMID, NULL));
        bool rd = !strcmp(op, "shm-read");
        char *m = shmat(id, NULL, rd ? SHM_RDONLY : 0);
        if (m == (void *)-1)
                return result(-1);
        if (rd)
                printf("%.*s\n", 4095, m);
        else
                snprintf(m, 4096, "%s", text);
        shmdt(m);
        return rd ? 0 : result(0);
}

/* One route to change PATH's metadata: mode 0666, owner (to the caller's
 * own ids), times (mtime 12345), the xattr user.cordon, inode flags. */
static long do_meta(const char *kind, const char *path)
{
        const struct timespec ts[2] = {{12345, 0}, {12345, 0}};
        char fdpath[64];
        int fd = -1;
        if (!strncmp(kind, "fd-", 3) || !strcmp(kind, "chattr"))
                fd = open(path, O_RDONLY | O_CLOEXEC);
        else if (!strncmp(kind, "opath-", 6) || !strcmp(kind, "dirfd-chmod"))
                fd = open(path, O_PATH | O_CLOEXEC);
        if ((!strncmp(kind, "fd-", 3) || !strncmp(kind, "opath-", 6) || !strcmp(kind, "chattr")) && fd < 0)
                return -1;
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
        if (!strcmp(kind, "chmod")) return chmod(path, 0666);
        if (!strcmp(kind, "chmod-nofollow")) return fchmodat(AT_FDCWD, path, 0666, AT_SYMLINK_NOFOLLOW);
        if (!strcmp(kind, "fd-chmod")) return fchmod(fd, 0666);
        if (!strcmp(kind, "opath-chmod")) return chmod(fdpath, 0666);
        if (!strcmp(kind, "dirfd-chmod")) { /* PATH is a directory: its entry "f" */
                if (fd < 0) return -1;
                return fchmodat(fd, "f", 0666, 0);
        }
        if (!strcmp(kind, "chown")) return chown(path, getuid(), getgid());
        if (!strcmp(kind, "lchown")) return lchown(path, getuid(), getgid());
        if (!strcmp(kind, "fd-chown")) return fchown(fd, getuid(), getgid());
        if (!strcmp(kind, "opath-chown")) return fchownat(fd, "", getuid(), getgid(), AT_EMPTY_PATH);
        if (!strcmp(kind, "utime")) return utimensat(AT_FDCWD, path, ts, 0);
        if (!strcmp(kind, "utime-nofollow")) return utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW);
        if (!strcmp(kind, "utimes")) { struct timeval tv[2] = {{12345, 0}, {12345, 0}}; return utimes(path, tv); }
        if (!strcmp(kind, "fd-utime")) return futimens(fd, ts);
        if (!strcmp(kind, "setxattr")) return setxattr(path, "user.cordon", "1", 1, 0);
        if (!strcmp(kind, "lsetxattr")) return lsetxattr(path, "user.cordon", "1", 1, 0);
        if (!strcmp(kind, "fd-setxattr")) return fsetxattr(fd, "user.cordon", "1", 1, 0);
        if (!strcmp(kind, "removexattr")) return removexattr(path, "user.cordon");
        if (!strcmp(kind, "setxattrat")) return syscall(463, AT_FDCWD, path, 0, "user.cordon", NULL, 0);
        if (!strcmp(kind, "chattr")) { int flags = 0; return ioctl(fd, FS_IOC_SETFLAGS, &flags); }
#if defined(__x86_64__)
        if (!strcmp(kind, "chmod-i386")) {
                char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
                if (low == MAP_FAILED)
                        return -1;
                snprintf(low, 4096, "%s", path);
                long r = i386_syscall(15, (long)low, 0666, 0, 0, 0);
                if (r < 0) {
                        errno = (int)-r;
                        return -1;
                }
                return 0;
        }
#endif
        fprintf(stderr, "probe: unknown meta kind %s\n", kind);
        exit(2);
}

static int do_unix(const char *kind, const char *path)
{
        int fds[2];
        if (!strcmp(kind, "unix-dgram")) return result(socket(AF_UNIX, SOCK_DGRAM, 0));
        if (!strcmp(kind, "unix-dgram-pair")) return result(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds));
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return result(fd);
        return result(connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
}

/* Devices: "dev-read" opens |path| and reads one byte (a disk is not read
 * whole); "dev-mknod" makes a character device with /dev/null's numbers. */
static int do_dev(const char *kind, const char *path)
{
        if (!strcmp(kind, "dev-mknod"))
                return result(mknod(path, S_IFCHR | 0666, makedev(1, 3)));
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return result(fd);
        char c;
        ssize_t n = read(fd, &c, 1);
        close(fd);
        return result(n < 0 ? -1 : 0);
}

/* ---- llnet: implicit connects and binds (tests/escape/landlock-net.sh) ---- */

/* A bounded loopback listener for the tests: 127.0.0.1 on a port the
 * kernel picks (written to PORTFILE), or a unix socket at PATH, or an
 * abstract one; each connection gets "hello\n"; gone after SECONDS. */
static int llnet_serve(const char *kind, const char *where, const char *seconds)
{
        alarm((unsigned)atoi(seconds));
        signal(SIGPIPE, SIG_IGN); /* a client that does not wait for "hello" */
        bool tcp = !strcmp(kind, "llnet-serve"), abstract = !strcmp(kind, "llnet-abstract-serve");
        int s = socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_storage ss = {0};
        socklen_t len = sizeof(struct sockaddr_in);
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        struct sockaddr_un *un = (struct sockaddr_un *)&ss;
        if (tcp) {
                in->sin_family = AF_INET;
                in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        } else if (abstract) {
                len = abstract_addr(where, un);
        } else {
                un->sun_family = AF_UNIX;
                snprintf(un->sun_path, sizeof(un->sun_path), "%s", where);
                len = sizeof(*un);
        }
        if (s < 0 || bind(s, (struct sockaddr *)&ss, len) < 0 || listen(s, 16) < 0)
                return result(-1);
        if (tcp) {
                len = sizeof(*in);
                getsockname(s, (struct sockaddr *)in, &len);
                FILE *f = fopen(where, "w");
                if (!f)
                        return result(-1);
                fprintf(f, "%d\n", ntohs(in->sin_port));
                fclose(f);
        }
        for (;;) {
                int c = accept(s, NULL, NULL);
                if (c >= 0) {
                        (void)!write(c, "hello\n", 6);
                        close(c);
                }
        }
}

/* "OK" when the listener's greeting arrives on |s| within 3 s. */
static int llnet_greeted(int s)
{
        struct timeval tv = {.tv_sec = 3};
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        char got[7] = "";
        ssize_t n = recv(s, got, 6, MSG_WAITALL);
        if (n < 0)
                return result(-1);
        if (n != 6 || strcmp(got, "hello\n")) {
                printf("no greeting\n");
                return 1;
        }
        return result(0);
}

/* Reach 127.0.0.1:PORT without connect() (TCP Fast Open's implicit
 * connect by sendto, sendmsg or sendmmsg), by TCP_FASTOPEN_CONNECT's
 * deferred connect, or by UDP; or listen() on a TCP socket never bound
 * (the kernel binds a port on 0.0.0.0). */
static int do_llnet(const char *kind, const char *host, const char *port)
{
        struct sockaddr_in sa;
        if (!strcmp(kind, "llnet-listen-unbound")) {
                int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                return result(s < 0 ? -1 : listen(s, 4));
        }
        bool udp = !strcmp(kind, "llnet-udp-sendto");
        int s = socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
        if (s < 0 || tcp_addr(host, port, &sa) < 0)
                return result(-1);
        struct timeval tv = {.tv_sec = 3};
        setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        char data[] = "x";
        struct iovec iov = {data, 1};
        struct msghdr mh = {.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1};
        struct mmsghdr mm = {.msg_hdr = mh};
        long r;
        if (udp)
                return result(sendto(s, data, 1, 0, (struct sockaddr *)&sa, sizeof(sa)));
        if (!strcmp(kind, "llnet-tfo-sendto"))
                r = sendto(s, data, 1, MSG_FASTOPEN, (struct sockaddr *)&sa, sizeof(sa));
        else if (!strcmp(kind, "llnet-tfo-sendmsg"))
                r = sendmsg(s, &mh, MSG_FASTOPEN);
        else if (!strcmp(kind, "llnet-tfo-sendmmsg"))
                r = sendmmsg(s, &mm, 1, MSG_FASTOPEN);
        else if (!strcmp(kind, "llnet-tfo-connect")) {
                int one = 1;
                r = setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one));
                if (r == 0)
                        r = connect(s, (struct sockaddr *)&sa, sizeof(sa));
                if (r == 0)
                        r = write(s, data, 1);
        } else {
                fprintf(stderr, "probe: unknown llnet kind %s\n", kind);
                exit(2);
        }
        return r < 0 ? result(-1) : llnet_greeted(s);
}

#if defined(__x86_64__)
/* The i386 forms of connect (362, to the unix socket PATH) and listen
 * (363, on a unix socket bound to the abstract NAME), on a socket made by
 * the 64-bit calls: the supervisor does not see them. */
static int llnet_i386(const char *kind, const char *where)
{
        struct sockaddr_un *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                                       -1, 0);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (low == MAP_FAILED || s < 0)
                return result(-1);
        if (!strcmp(kind, "llnet-i386-connect")) {
                low->sun_family = AF_UNIX;
                snprintf(low->sun_path, sizeof(low->sun_path), "%s", where);
                return result(i386_syscall(362, s, (long)low, sizeof(*low), 0, 0));
        }
        socklen_t len = abstract_addr(where, low);
        if (bind(s, (struct sockaddr *)low, len) < 0)
                return result(-1);
        return result(i386_syscall(363, s, 4, 0, 0, 0));
}
#endif

/* ---- atk: attacks on the landlock backend's network (tests/escape/landlock-attack.sh) ---- */

static socklen_t atk_unix_addr(const char *path, struct sockaddr_un *un)
{
        memset(un, 0, sizeof(*un));
        un->sun_family = AF_UNIX;
        snprintf(un->sun_path, sizeof(un->sun_path), "%s", path);
        return sizeof(*un);
}

#if defined(__x86_64__)
/* i386's socketcall(CALL, ARGS) (102): the socket calls' arguments in
 * memory, through int $0x80. ARGS is copied below 4 GiB. */
static long atk_socketcall(int call, const long *args, int n)
{
        static unsigned *low;
        if (!low)
                low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (low == MAP_FAILED) {
                low = NULL;
                return -1;
        }
        for (int i = 0; i < n; i++)
                low[i] = (unsigned)args[i];
        return i386_syscall(102, call, (long)low, 0, 0, 0);
}

/* connect (to the unix socket PATH), listen (on a unix socket bound to the
 * abstract NAME), or an AF_UNIX datagram socket sending to PATH, each by
 * socketcall. */
static int atk_socketcall_probe(const char *kind, const char *where)
{
        struct sockaddr_un *un = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                                      -1, 0);
        if (un == MAP_FAILED)
                return result(-1);
        if (!strcmp(kind, "atk-socketcall-socket")) { /* atk-socketcall-socket FAMILY: a stream */
                long sock[] = {atol(where), SOCK_STREAM, 0};
                return result(atk_socketcall(1 /* SYS_SOCKET */, sock, 3));
        }
        if (!strcmp(kind, "atk-socketcall-i386-socket")) /* the direct call (359) */
                return result(i386_syscall(359, atol(where), SOCK_STREAM, 0, 0, 0));
        if (!strcmp(kind, "atk-socketcall-dgram")) {
                long sock[] = {AF_UNIX, SOCK_DGRAM, 0};
                long s = atk_socketcall(1 /* SYS_SOCKET */, sock, 3);
                if (s < 0)
                        return result(-1);
                socklen_t len = atk_unix_addr(where, un);
                return result(sendto((int)s, "x", 1, 0, (struct sockaddr *)un, len));
        }
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
                return result(-1);
        if (!strcmp(kind, "atk-socketcall-connect")) {
                long args[] = {s, (long)un, atk_unix_addr(where, un)};
                return result(atk_socketcall(3 /* SYS_CONNECT */, args, 3));
        }
        socklen_t len = abstract_addr(where, un);
        if (bind(s, (struct sockaddr *)un, len) < 0)
                return result(-1);
        long args[] = {s, 4};
        return result(atk_socketcall(4 /* SYS_LISTEN */, args, 2));
}
#endif

/* An AF_UNIX socket of SOCK_RAW (a datagram socket to the kernel) sending
 * to the datagram socket PATH; "pair": socketpair of that type. */
static int atk_unix_raw(const char *path)
{
        if (!strcmp(path, "pair")) {
                int sv[2];
                return result(socketpair(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0, sv));
        }
        struct sockaddr_un un;
        socklen_t len = atk_unix_addr(path, &un);
        int s = socket(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0);
        return result(s < 0 ? -1 : sendto(s, "x", 1, 0, (struct sockaddr *)&un, len));
}

/* connect to HOST (IPv6 text, ::ffff:127.0.0.1 for one) PORT over AF_INET6. */
static int atk_connect6(const char *host, const char *port)
{
        struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)atoi(port))};
        int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || inet_pton(AF_INET6, host, &sa.sin6_addr) != 1)
                return result(-1);
        return result(connect(s, (struct sockaddr *)&sa, sizeof(sa)));
}

/* socket(FAMILY, TYPE, PROTOCOL) by the raw call, numbers as given (0x...
 * too: bits above 32 reach the kernel, which reads ints). */
static int atk_socket(const char *family, const char *type, const char *proto)
{
        long r = syscall(SYS_socket, strtoul(family, NULL, 0), strtoul(type, NULL, 0), strtoul(proto, NULL, 0));
        return result(r);
}

/* A unix stream socket autobound (bind with only the family: the kernel
 * picks an abstract name), then listen. SEQPACKET with "seqpacket". */
static int atk_autobind_listen(const char *type)
{
        int s = socket(AF_UNIX, (!strcmp(type, "seqpacket") ? SOCK_SEQPACKET : SOCK_STREAM) | SOCK_CLOEXEC, 0);
        struct sockaddr_un un = {.sun_family = AF_UNIX};
        if (s < 0 || bind(s, (struct sockaddr *)&un, sizeof(sa_family_t)) < 0)
                return result(-1);
        return result(listen(s, 4));
}

/* connect to a unix address of the full 128 bytes of a sockaddr_storage,
 * its path not terminated: more than a sockaddr_un holds (EINVAL), which
 * the supervisor must not copy into a path buffer of that size. */
static int atk_unix_long(void)
{
        struct sockaddr_storage ss;
        memset(&ss, 'A', sizeof(ss));
        ss.ss_family = AF_UNIX;
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        return result(s < 0 ? -1 : connect(s, (struct sockaddr *)&ss, sizeof(ss)));
}

/* A race on the name: a child swaps LINK between a symlink to HOST (a
 * socket outside the writable paths) and one to OWN (the command's own
 * listener) while the parent connects through LINK N times; prints how
 * many connects reached HOST's listener (its greeting "hello"). */
static int atk_race_connect(const char *link_path, const char *host, const char *own, int n)
{
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", link_path);
        pid_t child = fork();
        if (child == 0) {
                alarm(30);
                for (unsigned i = 0;; i++) {
                        unlink(tmp);
                        if (symlink(i % 2 ? host : own, tmp) == 0)
                                rename(tmp, link_path);
                }
        }
        struct stat st;
        for (int i = 0; i < 200 && lstat(link_path, &st) < 0; i++)
                usleep(5000); /* until the child made the link */
        int reached = 0, connected = 0;
        struct sockaddr_un un;
        socklen_t len = atk_unix_addr(link_path, &un);
        for (int i = 0; i < n; i++) {
                int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (s >= 0 && connect(s, (struct sockaddr *)&un, len) == 0) {
                        connected++;
                        char got[7] = "";
                        struct timeval tv = {.tv_sec = 1};
                        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
                        if (recv(s, got, 6, MSG_WAITALL) == 6 && !strcmp(got, "hello\n"))
                                reached++;
                }
                if (s >= 0)
                        close(s);
                usleep(200); /* the child's turn, on a loaded machine too */
        }
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        printf("host %d connected %d\n", reached, connected);
        return 0;
}

/* connect to HOST1 PORT1, dissolve it (AF_UNSPEC), then connect the same
 * socket to HOST2 PORT2: the second connect's result. */
static int atk_unspec_reconnect(char **hp)
{
        struct sockaddr_in a, b;
        struct sockaddr unspec = {.sa_family = AF_UNSPEC};
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || tcp_addr(hp[0], hp[1], &a) < 0 || tcp_addr(hp[2], hp[3], &b) < 0 ||
            connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
                printf("first connect: ");
                return result(-1);
        }
        if (connect(s, &unspec, sizeof(unspec)) < 0) {
                printf("AF_UNSPEC: ");
                return result(-1);
        }
        return result(connect(s, (struct sockaddr *)&b, sizeof(b)));
}

/* The effective capabilities, as /proc/self/status says them. */
static int atk_caps(void)
{
        FILE *f = fopen("/proc/self/status", "r");
        char line[256];
        while (f && fgets(line, sizeof(line), f))
                if (!strncmp(line, "CapEff:", 7)) {
                        unsigned long long caps = strtoull(line + 7, NULL, 16);
                        printf("%s\n", caps ? "CAPS" : "NONE");
                        fclose(f);
                        return 0;
                }
        return result(-1);
}

/* rtnetlink: add then delete 127.0.0.77/32 on lo (ifindex 1): what a
 * command with CAP_NET_ADMIN over the host's network could do. */
static int atk_netlink_addr(void)
{
        int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (s < 0)
                return result(-1);
        for (int op = RTM_NEWADDR; op >= 0; op = op == RTM_NEWADDR ? RTM_DELADDR : -1) {
                struct {
                        struct nlmsghdr nh;
                        struct ifaddrmsg ifa;
                        struct rtattr rta;
                        struct in_addr addr;
                } req = {.nh = {.nlmsg_len = sizeof(req), .nlmsg_type = (unsigned short)op,
                                .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (op == RTM_NEWADDR ? NLM_F_CREATE : 0)},
                         .ifa = {.ifa_family = AF_INET, .ifa_prefixlen = 32, .ifa_index = 1},
                         .rta = {.rta_len = RTA_LENGTH(sizeof(struct in_addr)), .rta_type = IFA_LOCAL}};
                inet_pton(AF_INET, "127.0.0.77", &req.addr);
                struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
                if (sendto(s, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
                        return result(-1);
                char buf[4096];
                ssize_t n = recv(s, buf, sizeof(buf), 0);
                struct nlmsghdr *h = (struct nlmsghdr *)buf;
                if (n < (ssize_t)sizeof(*h) || h->nlmsg_type != NLMSG_ERROR)
                        return result(-1);
                int err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
                if (err) {
                        errno = -err;
                        return result(-1);
                }
        }
        return result(0);
}

/* pidfd_getfd of PID's descriptor FD: another process's socket, say. */
static int atk_pidfd_getfd(const char *pid, const char *fd)
{
        int pidfd = (int)syscall(434 /* pidfd_open */, atoi(pid), 0);
        return result(pidfd < 0 ? -1 : syscall(438 /* pidfd_getfd */, pidfd, atoi(fd), 0));
}

/* A seccomp filter of the command's own that hands connect to a listener
 * it holds (which could let the call go on, past cordon's supervisor):
 * the listener's descriptor, or the errno. */
static int atk_seccomp_listener(void)
{
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_connect, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {.len = 4, .filter = f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return result(-1);
        return result(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog));
}

/* sig KIND PID [SIG]: a signal to PID by one route (kill tkill tgkill sigqueue
 * tgsigqueue, pidfd-open: opens one, pidfd-proc: pidfd_send_signal on a
 * /proc/PID directory, setown: PID owns a socket's SIGIO, sent at once) */
static long do_sig(const char *kind, pid_t pid, int sig)
{
        siginfo_t si = {.si_signo = sig, .si_code = SI_QUEUE};
        si.si_pid = getpid();
        si.si_uid = getuid();
        if (!strcmp(kind, "tkill")) return syscall(SYS_tkill, pid, sig);
        if (!strcmp(kind, "tgkill")) return syscall(SYS_tgkill, pid, pid, sig);
        if (!strcmp(kind, "sigqueue")) return syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
        if (!strcmp(kind, "tgsigqueue")) return syscall(SYS_rt_tgsigqueueinfo, pid, pid, sig, &si);
        if (!strcmp(kind, "pidfd-open")) return syscall(SYS_pidfd_open, pid, 0);
        char path[32];
        snprintf(path, sizeof(path), "/proc/%d", (int)pid);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), sv[2];
        if (!strcmp(kind, "pidfd-proc")) return fd < 0 ? -1 : syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
        if (strcmp(kind, "setown") || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) return kill(pid, sig);
        if (fcntl(sv[0], F_SETOWN, pid) < 0 || fcntl(sv[0], F_SETFL, O_ASYNC) < 0) return -1;
        return write(sv[1], "x", 1) == 1 ? 0 : -1;
}

static int do_atk(int argc, char **argv)
{
        const char *k = argv[1], *x = argc > 2 ? argv[2] : "", *y = argc > 3 ? argv[3] : "";
#if defined(__x86_64__)
        if (!strncmp(k, "atk-socketcall-", 15)) return atk_socketcall_probe(k, x);
#endif
        if (!strcmp(k, "atk-connect6")) return atk_connect6(x, y);
        if (!strcmp(k, "atk-unix-raw")) return atk_unix_raw(x);
        if (!strcmp(k, "atk-socket")) return atk_socket(x, y, argc > 4 ? argv[4] : "0");
        if (!strcmp(k, "atk-autobind-listen")) return atk_autobind_listen(x);
        if (!strcmp(k, "atk-unix-long")) return atk_unix_long();
        if (!strcmp(k, "atk-race-connect") && argc > 5) return atk_race_connect(x, y, argv[4], atoi(argv[5]));
        if (!strcmp(k, "atk-unspec-reconnect") && argc > 5) return atk_unspec_reconnect(argv + 2);
        if (!strcmp(k, "atk-seccomp-listener")) return atk_seccomp_listener();
        if (!strcmp(k, "atk-caps")) return atk_caps();
        if (!strcmp(k, "atk-netlink-addr")) return atk_netlink_addr();
        if (!strcmp(k, "atk-pidfd-getfd")) return atk_pidfd_getfd(x, y);
        fprintf(stderr, "probe: unknown attack %s\n", k);
        return 2;
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                fprintf(stderr, "usage: probe ACTION ARGS...\n");
                return 2;
        }
        const char *a = argv[1];
        const char *x = argc > 2 ? argv[2] : "", *y = argc > 3 ? argv[3] : "";
        if (!strcmp(a, "read")) return do_read(x);
        if (!strcmp(a, "write")) return do_write(x, argc > 3 ? y : "cordon\n", O_TRUNC);
        if (!strcmp(a, "append")) return do_write(x, argc > 3 ? y : "cordon\n", O_APPEND);
        if (!strcmp(a, "create")) return do_write(x, "cordon\n", O_CREAT | O_EXCL);
        if (!strcmp(a, "mkdir")) return result(mkdir(x, 0755));
        if (!strcmp(a, "openw")) { int fd = open(x, O_WRONLY | O_CLOEXEC); if (fd >= 0) close(fd); return result(fd); }
        if (!strcmp(a, "unlink")) return result(unlink(x));
        if (!strcmp(a, "link")) return result(link(x, y));
        if (!strcmp(a, "rename")) return result(rename(x, y));
        if (!strcmp(a, "stat")) { struct stat st; return result(stat(x, &st)); }
        if (!strcmp(a, "connect")) return do_connect(x, y);
        if (!strcmp(a, "listen")) return do_listen(x, true);
        if (!strcmp(a, "bind")) return do_listen(x, false);
        if (!strcmp(a, "socket")) return do_socket(x);
        if (!strcmp(a, "abstract-connect")) return do_abstract(x, false);
        if (!strcmp(a, "abstract-listen")) return do_abstract(x, true);
        if (!strcmp(a, "syscall")) return result(try_syscall(x));
        if (!strcmp(a, "kill")) return result(kill(atoi(x), argc > 3 ? atoi(y) : 0));
        if (!strcmp(a, "sig") && argc > 3) return result(do_sig(x, atoi(y), argc > 4 ? atoi(argv[4]) : 0));
        if (!strcmp(a, "ptrace")) return result(ptrace(PTRACE_SEIZE, atoi(x), 0, 0));
        if (!strcmp(a, "chmod-suid")) return result(chmod(x, 04755));
        if (!strcmp(a, "chmod-sgid")) return result(chmod(x, 02755));
        if (!strcmp(a, "create-suid")) return result(open(x, O_CREAT | O_WRONLY | O_CLOEXEC, 04755));
        if (!strcmp(a, "mknod-suid")) return result(mknod(x, S_IFREG | 04755, 0));
        if (!strcmp(a, "tiocsti")) { char c = '#'; return result(ioctl(0, TIOCSTI, &c)); }
        if (!strcmp(a, "fds")) return do_fds();
        if (!strcmp(a, "alloc")) return do_alloc(atol(x));
        if (!strcmp(a, "spin")) for (volatile unsigned long i = 0;; i++) ;
        if (!strcmp(a, "fork-many")) return do_fork_many(atoi(x));
        if (!strcmp(a, "open-many")) return do_open_many(atoi(x));
        if (!strcmp(a, "write-bytes")) return do_write_bytes(x, atol(y));
        if (!strcmp(a, "sleep-ignore-term")) { signal(SIGTERM, SIG_IGN); sleep((unsigned)atoi(x)); return 0; }
        if (!strcmp(a, "keyring-read")) return result(syscall(SYS_keyctl, KEYCTL_READ, atol(x), 0, 0));
        if (!strcmp(a, "setuid-check")) return do_setuid_check();
        if (!strncmp(a, "shm-", 4)) return do_shm(a, x, y);
        if (!strcmp(a, "meta")) return result(do_meta(x, y));
        if (!strncmp(a, "unix-", 5)) return do_unix(a, x);
        if (!strcmp(a, "dev-read") || !strcmp(a, "dev-mknod")) return do_dev(a, x);
        if (!strcmp(a, "llnet-serve") || !strcmp(a, "llnet-unix-serve") || !strcmp(a, "llnet-abstract-serve"))
                return llnet_serve(a, x, y);
#if defined(__x86_64__)
        if (!strncmp(a, "llnet-i386-", 11)) return llnet_i386(a, x);
#endif
        if (!strncmp(a, "llnet-", 6)) return do_llnet(a, x, y);
        if (!strncmp(a, "atk-", 4)) return do_atk(argc, argv);
        if (!strcmp(a, "pid")) { printf("%d\n", getpid()); return 0; }
        if (!strcmp(a, "exec-ignoring")) {
                /* ignore SIGPIPE and glibc's internal 32 and 33 (which glibc's
                 * own sigaction() refuses), then exec argv[2..] */
                struct { void (*h)(int); unsigned long f; void (*r)(void); unsigned long long m; } ign = {SIG_IGN, 0, 0, 0};
                int sigs[] = {SIGPIPE, 32, 33};
                for (int i = 0; i < 3; i++)
                        syscall(SYS_rt_sigaction, sigs[i], &ign, NULL, 8);
                execvp(argv[2], argv + 2);
                return result(-1);
        }
        fprintf(stderr, "probe: unknown action %s\n", a);
        return 2;
}
