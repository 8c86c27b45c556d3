/* SPDX-License-Identifier: MIT */
/* The landlock backend's call supervisor (see supervise.h). */
#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"
#include "sys.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* ---- the filter ------------------------------------------------------------------ */

/* Handed to the supervisor: every call that changes a file's metadata
 * by path, by directory fd and path, or by fd. (fchmodat2 gets ENOSYS from
 * the main filter; libc falls back to fchmodat.) */
static const int META_CALLS[] = {
#ifdef SYS_chmod
        SYS_chmod, SYS_chown, SYS_lchown, SYS_utime, SYS_utimes, SYS_futimesat,
#endif
        SYS_fchmod, SYS_fchmodat, SYS_fchown, SYS_fchownat, SYS_utimensat, SYS_setxattr, SYS_lsetxattr,
        SYS_fsetxattr, SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr,
};
/* Linux 6.13's *xattrat calls: arguments in a structure; no libc uses them yet. */
static const int ENOSYS_CALLS[] = {463 /* setxattrat */, 466 /* removexattrat */};
/* chattr: immutable, append-only and the other inode flags */
static const uint32_t FLAG_IOCTLS[] = {FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR};

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
/* i386 (through int $0x80): the same calls, and the socket calls, denied.
 * Numbers from arch/x86/entry/syscalls/syscall_32.tbl. */
static const int I386_DENIED[] = {15,  16,  30,  94,  95,  182, 198, 207, 212, 226, 227, 228, 235, 236,
                                  237, 271, 298, 299, 306, 320, 412, 452, 463, 466};
static const int I386_SOCKET_CALLS[] = {345 /* sendmmsg */, 359 /* socket */,  360 /* socketpair */,
                                        362 /* connect */,  363 /* listen */,  369 /* sendto */,
                                        370 /* sendmsg */};
#define I386_SOCKETCALL 102 /* the multiplexer: its arguments are in memory */
#define I386_SOCKET 359
#define I386_SOCKETPAIR 360
#define I386_CONNECT 362
#define I386_LISTEN 363
#define X32_BIT 0x40000000U
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#else
#define NATIVE_ARCH 0 /* not supervised here: supervise_available says so */
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + sizeof(uint64_t) * (n))
#else
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + sizeof(uint64_t) * (n) + 4)
#endif

#define PROG_MAX 256
typedef struct bpf {
        struct sock_filter f[PROG_MAX];
        size_t n;
} bpf;

static void op(bpf *b, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
        if (b->n < PROG_MAX)
                b->f[b->n] = (struct sock_filter){code, jt, jf, k};
        b->n++;
}

static void ld(bpf *b, uint32_t off) { op(b, BPF_LD | BPF_W | BPF_ABS, 0, 0, off); }
static void emit_ret(bpf *b, uint32_t action) { op(b, BPF_RET | BPF_K, 0, 0, action); }
static void on_nr(bpf *b, uint32_t nr, uint32_t action)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, nr);
        emit_ret(b, action);
}

#define DENY(e) (SECCOMP_RET_ERRNO | (e))

/* ioctl |nr| with an inode-flag request: EPERM (the request is an int). */
static void flag_ioctls(bpf *b, uint32_t nr)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 6, nr);
        ld(b, ARG_LO(1));
        for (uint8_t i = 0; i < 3; i++)
                op(b, BPF_JMP | BPF_JEQ | BPF_K, (uint8_t)(3 - i), 0, FLAG_IOCTLS[i]);
        emit_ret(b, SECCOMP_RET_ALLOW);
        emit_ret(b, DENY(EPERM));
}

/* socket and socketpair (|nr_socket|, |nr_pair|) of AF_UNIX datagrams:
 * EPERM, on every network; every type but stream and seqpacket, for
 * SOCK_RAW is a datagram socket too (the kernel's unix_create). A datagram
 * can be sent to any pathname socket by sendto/sendmsg, whose address (in
 * a msghdr for sendmsg) no filter can check; stream and seqpacket sockets
 * reach a path only through connect, which is supervised. */
static void unix_datagrams(bpf *b, uint32_t nr_socket, uint32_t nr_pair)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, nr_socket);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 8, nr_pair);
        ld(b, ARG_LO(0));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 5, AF_UNIX);
        ld(b, ARG_LO(1));
        op(b, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xf);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, SOCK_STREAM);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, SOCK_SEQPACKET);
        emit_ret(b, DENY(EPERM));
        emit_ret(b, SECCOMP_RET_ALLOW);
}

/* |nr| with MSG_FASTOPEN in its flags argument |arg|: EOPNOTSUPP (as
 * where TCP Fast Open is off: clients fall back to connect). Its SYN is
 * an implicit connect to the address in the call, which neither the
 * supervisor nor Landlock's connect rule sees. */
static void no_fast_open(bpf *b, uint32_t nr, unsigned arg)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 4, nr);
        ld(b, ARG_LO(arg));
        op(b, BPF_JMP | BPF_JSET | BPF_K, 0, 1, MSG_FASTOPEN);
        emit_ret(b, DENY(EOPNOTSUPP));
        emit_ret(b, SECCOMP_RET_ALLOW);
}

/* socket |nr| on the network "full": the internet, not the host's IPC.
 * Families but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK get EPERM
 * (AF_VSOCK reaches the VM's host and its guests, AF_BLUETOOTH devices
 * nearby, and the rest is kernel attack surface), and so does netlink's
 * NETLINK_USERSOCK, whose messages any process of the host may send and
 * receive (as an abstract unix socket). Falls through with the number in A. */
static void full_network_families(bpf *b, uint32_t nr)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 9, nr);
        ld(b, ARG_LO(0));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 6, 0, AF_UNIX);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 5, 0, AF_INET);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 4, 0, AF_INET6);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 2, AF_NETLINK);
        ld(b, ARG_LO(2));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, NETLINK_USERSOCK);
        emit_ret(b, DENY(EPERM));
        ld(b, offsetof(struct seccomp_data, nr));
}

static void native_section(bpf *b, const supervise_options *o)
{
        ld(b, offsetof(struct seccomp_data, nr));
#ifdef X32_BIT
        /* x32 processes cannot run here: their calls are not supervised */
        op(b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, X32_BIT);
        emit_ret(b, DENY(ENOSYS));
#endif
        for (size_t i = 0; i < ARRAY_SIZE(META_CALLS); i++)
                on_nr(b, (uint32_t)META_CALLS[i], SECCOMP_RET_USER_NOTIF);
        for (size_t i = 0; i < ARRAY_SIZE(ENOSYS_CALLS); i++)
                on_nr(b, (uint32_t)ENOSYS_CALLS[i], DENY(ENOSYS));
        on_nr(b, SYS_connect, SECCOMP_RET_USER_NOTIF);
        on_nr(b, SYS_listen, SECCOMP_RET_USER_NOTIF);
        if (!o->full_network) {
                no_fast_open(b, SYS_sendto, 3);
                no_fast_open(b, SYS_sendmsg, 2);
                no_fast_open(b, SYS_sendmmsg, 3);
        }
        if (o->full_network)
                full_network_families(b, SYS_socket);
        flag_ioctls(b, SYS_ioctl);
        unix_datagrams(b, SYS_socket, SYS_socketpair);
        emit_ret(b, SECCOMP_RET_ALLOW);
}

#ifdef X32_BIT
static void i386_section(bpf *b, const supervise_options *o)
{
        ld(b, offsetof(struct seccomp_data, nr));
        for (size_t i = 0; i < ARRAY_SIZE(I386_DENIED); i++)
                on_nr(b, (uint32_t)I386_DENIED[i], DENY(EPERM));
        /* their connect and listen are not supervised: refused on every
         * network, and so is socketcall, which performs every socket call
         * (connect, listen, a datagram socket) with the arguments in memory */
        on_nr(b, I386_SOCKETCALL, DENY(EPERM));
        for (size_t i = 0; !o->full_network && i < ARRAY_SIZE(I386_SOCKET_CALLS); i++)
                on_nr(b, (uint32_t)I386_SOCKET_CALLS[i], DENY(EPERM));
        if (o->full_network) {
                on_nr(b, I386_CONNECT, DENY(EPERM));
                on_nr(b, I386_LISTEN, DENY(EPERM));
                full_network_families(b, I386_SOCKET);
                unix_datagrams(b, I386_SOCKET, I386_SOCKETPAIR);
        }
        flag_ioctls(b, 54 /* ioctl */);
        emit_ret(b, SECCOMP_RET_ALLOW);
}
#endif

/* One section per architecture: "ld arch; jeq ARCH, 0, <past the
 * section>; ...". The sections end in a return, so a jump over one lands
 * on the next. Other architectures: the main filter kills them. */
static int section(bpf *b, uint32_t arch, void (*body)(bpf *, const supervise_options *), const supervise_options *o)
{
        ld(b, offsetof(struct seccomp_data, arch));
        size_t jump = b->n;
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, arch);
        body(b, o);
        size_t len = b->n - jump - 1;
        if (len > 255 || b->n > PROG_MAX)
                return -E2BIG;
        b->f[jump].jf = (uint8_t)len;
        return 0;
}

int supervise_filter(const supervise_options *o, seccomp_prog *ret)
{
        bpf b = {.n = 0};
        int r = section(&b, NATIVE_ARCH, native_section, o);
#ifdef X32_BIT
        if (r == 0)
                r = section(&b, AUDIT_ARCH_I386, i386_section, o);
#endif
        emit_ret(&b, SECCOMP_RET_ALLOW);
        if (r < 0 || b.n > PROG_MAX)
                return r < 0 ? r : -E2BIG;
        ret->filter = malloc(b.n * sizeof(b.f[0]));
        if (!ret->filter)
                return -ENOMEM;
        memcpy(ret->filter, b.f, b.n * sizeof(b.f[0]));
        ret->len = (unsigned short)b.n;
        return 0;
}

int supervise_install(const seccomp_prog *p)
{
        struct sock_fprog prog = {.len = p->len, .filter = p->filter};
        /* killable-only once received: a signal must not restart a call the
         * supervisor is performing (Linux 5.19) */
        long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                          SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
        if (fd < 0 && errno == EINVAL)
                fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
        return fd < 0 ? -errno : (int)fd;
}

int supervise_available(void)
{
        if (NATIVE_ARCH == 0)
                return -EOPNOTSUPP;
        uint32_t action = SECCOMP_RET_USER_NOTIF;
        if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0)
                return -errno;
        /* pidfd_getfd (Linux 5.6): EBADF on a bad pidfd, ENOSYS if missing */
        if (syscall(SYS_pidfd_getfd, -1, 0, 0) < 0 && errno == ENOSYS)
                return -ENOSYS;
        return 0;
}

/* ---- the supervisor -------------------------------------------------------------- */

#define REFUSALS_MAX 32
#define PENDING_MAX 64
#define PENDING_RETRY_MS 10
#define CALL_PENDING 1 /* a call answered later (a connect that waits) */

/* A connect() of the command's on a blocking socket that could not complete
 * at once (a unix listener's backlog is full, a TCP handshake runs): the
 * command waits in it while this thread serves the other calls. */
typedef struct pending_connect {
        uint64_t id;
        int sock; /* ours, on the command's open file */
        int pin;  /* unix: the socket file's O_PATH descriptor (in addr) */
        struct sockaddr_storage addr;
        socklen_t len;
        bool handshake; /* TCP: wait until it is writable */
        double give_up; /* monotonic_s() of its SO_SNDTIMEO (0: never) */
} pending_connect;

struct call_supervisor {
        int listener, stop_fd;
        char *refused[REFUSALS_MAX]; /* reported already ("chmod /etc/x") */
        size_t n_refused;
        pending_connect pending[PENDING_MAX];
        size_t n_pending;
        supervise_options opt;
        supervise_root *roots;
        size_t n_roots;
        struct seccomp_notif_sizes sizes;
        struct seccomp_notif_resp *resp;
        pthread_t thread;
        bool started;
};

/* One notification being served. */
typedef struct call {
        call_supervisor *s;
        const struct seccomp_notif *req;
        pid_t tid;
} call;

/* The object a call acts on: an O_PATH descriptor, and for a non-directory
 * the directory it was found in (-1 when it came from the command's fd). */
typedef struct target {
        int obj, parent;
        char name[NAME_MAX + 1];
        struct stat st;
} target;

static void target_close(target *t)
{
        if (t->obj >= 0)
                close(t->obj);
        if (t->parent >= 0)
                close(t->parent);
        t->obj = t->parent = -1;
}

static bool id_valid(const call_supervisor *s, uint64_t id)
{
        return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static bool still_valid(const call *c) { return id_valid(c->s, c->req->id); }

static int read_mem(const call *c, uint64_t addr, void *out, size_t len)
{
        struct iovec local = {out, len}, remote = {(void *)(uintptr_t)addr, len};
        ssize_t n = process_vm_readv(c->tid, &local, 1, &remote, 1, 0);
        if (n == (ssize_t)len)
                return 0;
        return n < 0 && errno != EFAULT ? -errno : -EFAULT;
}

/* A NUL-terminated string of at most |cap| - 1 bytes, read page by page. */
static int read_string(const call *c, uint64_t addr, char *out, size_t cap, int too_long)
{
        size_t got = 0;
        long page = sysconf(_SC_PAGESIZE);
        while (got < cap) {
                size_t chunk = (size_t)page - (size_t)((addr + got) % (uint64_t)page);
                if (chunk > cap - got)
                        chunk = cap - got;
                int r = read_mem(c, addr + got, out + got, chunk);
                if (r < 0)
                        return r;
                if (memchr(out + got, '\0', chunk))
                        return 0;
                got += chunk;
        }
        return -too_long;
}

static void fd_path(char out[40], int fd) { snprintf(out, 40, "/proc/thread-self/fd/%d", fd); }

/* The command's fd |fd| (AT_FDCWD: its working directory), as an O_PATH
 * descriptor of ours on the same file. */
static int command_fd(const call *c, int fd)
{
        char path[64];
        if (fd == AT_FDCWD)
                snprintf(path, sizeof(path), "/proc/%d/cwd", c->tid);
        else if (fd >= 0)
                snprintf(path, sizeof(path), "/proc/%d/fd/%d", c->tid, fd);
        else
                return -EBADF;
        int r = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
        return r < 0 ? (errno == ENOENT ? -EBADF : -errno) : r;
}

/* |connect|: a connect-only root (an explicit read-only exposure) counts. */
static bool is_root(const call_supervisor *s, const struct stat *st, bool dir, bool connect)
{
        for (size_t i = 0; i < s->n_roots; i++)
                if (s->roots[i].dev == st->st_dev && s->roots[i].ino == st->st_ino && s->roots[i].is_dir == dir &&
                    (connect || !s->roots[i].connect_only))
                        return true;
        return false;
}

/* Whether the directory |dir| is a writable root or lies beneath one,
 * walking "..". The command cannot move a directory from outside the
 * writable paths to beneath them (Landlock: that needs rights on both
 * sides), so the answer cannot be forged by a rename during the walk;
 * nor into a read-only exposure, where it has no rights at all. */
static bool dir_beneath_root(const call_supervisor *s, int dir, bool connect)
{
        int fd = dup(dir);
        struct stat st;
        bool found = false;
        for (int depth = 0; fd >= 0 && depth < 4096 && fstat(fd, &st) == 0; depth++) {
                if (is_root(s, &st, true, connect)) {
                        found = true;
                        break;
                }
                int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                struct stat ust;
                bool top = up < 0 || fstat(up, &ust) < 0 || (ust.st_dev == st.st_dev && ust.st_ino == st.st_ino);
                close(fd);
                fd = up;
                if (top)
                        break;
        }
        if (fd >= 0)
                close(fd);
        return found;
}

static bool target_beneath_root(const call_supervisor *s, const target *t, bool connect)
{
        if (S_ISDIR(t->st.st_mode))
                return dir_beneath_root(s, t->obj, connect);
        if (!S_ISREG(t->st.st_mode) && !S_ISLNK(t->st.st_mode) && !S_ISSOCK(t->st.st_mode) &&
            !S_ISFIFO(t->st.st_mode))
                return false; /* devices: never, even in a writable directory */
        return is_root(s, &t->st, false, connect) || (t->parent >= 0 && dir_beneath_root(s, t->parent, connect));
}

/* Split |path| (changed in place) into its directory part and last name. */
static const char *split_last(char *path, const char **ret_dir)
{
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
                path[--n] = '\0';
        char *slash = strrchr(path, '/');
        if (!slash) {
                *ret_dir = ".";
                return path;
        }
        if (slash == path) {
                *ret_dir = "/";
                return slash[1] ? slash + 1 : ".";
        }
        *slash = '\0';
        *ret_dir = path;
        return slash + 1;
}

/* Resolve |path| from |base| as the kernel would for the command (same
 * root, same mounts), following a final symlink when |follow|; no magic
 * /proc links. Sets |t| to the object and the directory it is in. */
static int resolve(int base, const char *path, bool follow, target *t)
{
        char text[PATH_MAX];
        int dirfd = dup(base);
        if (dirfd < 0)
                return -errno;
        snprintf(text, sizeof(text), "%s", path);
        size_t len = strlen(path);
        follow = follow || (len > 1 && path[len - 1] == '/'); /* "link/" is the directory */
        for (int hops = 0; hops < 40; hops++) {
                const char *dir, *last = split_last(text, &dir);
                int parent = sys_openat2(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_MAGICLINKS);
                int e = errno;
                close(dirfd);
                if (parent < 0)
                        return -e;
                bool dots = streq(last, ".") || streq(last, "..");
                int obj = openat(parent, last, O_PATH | O_CLOEXEC | (dots ? O_DIRECTORY : O_NOFOLLOW));
                if (obj < 0 || fstat(obj, &t->st) < 0) {
                        e = errno;
                        if (obj >= 0)
                                close(obj);
                        close(parent);
                        return -e;
                }
                if (!S_ISLNK(t->st.st_mode) || !follow) {
                        t->obj = obj;
                        t->parent = dots ? -1 : parent;
                        if (dots)
                                close(parent);
                        snprintf(t->name, sizeof(t->name), "%s", last);
                        return 0;
                }
                ssize_t n = readlinkat(parent, last, text, sizeof(text) - 1);
                e = errno;
                close(obj);
                if (n < 0) {
                        close(parent);
                        return -e;
                }
                text[n] = '\0';
                dirfd = parent;
        }
        close(dirfd);
        return -ELOOP;
}

/* The object behind the command's fd: pinned by the descriptor; a
 * non-directory must still be in the directory its name says. */
static int target_of_fd(const call *c, int fd, target *t)
{
        t->obj = command_fd(c, fd);
        if (t->obj < 0)
                return t->obj;
        if (fstat(t->obj, &t->st) < 0 || S_ISDIR(t->st.st_mode))
                return 0;
        char link[40], where[PATH_MAX];
        fd_path(link, t->obj);
        ssize_t n = readlink(link, where, sizeof(where) - 1);
        if (n <= 0 || where[0] != '/')
                return -EPERM; /* not a file of any directory (a pipe, a socket, deleted) */
        where[n] = '\0';
        const char *dir, *last = split_last(where, &dir);
        t->parent = sys_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC,
                                RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        struct stat st;
        if (t->parent < 0 || fstatat(t->parent, last, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != t->st.st_dev ||
            st.st_ino != t->st.st_ino)
                return -EPERM; /* deleted, or renamed meanwhile */
        snprintf(t->name, sizeof(t->name), "%s", last);
        return 0;
}

/* "/proc/self/fd/N" (what libc uses for calls on O_PATH descriptors) means
 * the command's own fd N, and so does "/dev/fd/N" (its link to
 * /proc/self/fd would name the supervisor's here); any other magic link is
 * refused by resolve. */
static int proc_self_fd(const call *c, const char *path)
{
        static const char *const PREFIX[] = {"/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/"};
        char own[40];
        snprintf(own, sizeof(own), "/proc/%d/fd/", c->tid);
        for (size_t i = 0; i <= ARRAY_SIZE(PREFIX); i++) {
                const char *pre = i < ARRAY_SIZE(PREFIX) ? PREFIX[i] : own;
                if (strncmp(path, pre, strlen(pre)) != 0)
                        continue;
                const char *digits = path + strlen(pre);
                char *end;
                long fd = strtol(digits, &end, 10);
                if (end != digits && !*end && fd >= 0 && fd < INT32_MAX)
                        return (int)fd;
        }
        return -1;
}

/* An O_PATH descriptor of "/" (absolute paths) or of the command's |dirfd|. */
static int path_base(const call *c, const char *path, int dirfd)
{
        if (path[0] != '/')
                return command_fd(c, dirfd);
        int fd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* What |path| names for the command, from its |dirfd|. */
static int target_of_path(const call *c, int dirfd, const char *path, bool follow, bool empty_ok, target *t)
{
        if (!path[0])
                return empty_ok ? target_of_fd(c, dirfd, t) : -ENOENT;
        int fd = proc_self_fd(c, path);
        if (fd >= 0)
                return target_of_fd(c, fd, t);
        int base = path_base(c, path, dirfd);
        if (base < 0)
                return base;
        int r = resolve(base, path, follow, t);
        close(base);
        return r;
}

/* What a metadata call names: |dirfd| and the path at |path_addr| (0: the
 * call is on |dirfd| itself). */
static int target_of(const call *c, int dirfd, uint64_t path_addr, bool follow, bool empty_ok, target *t)
{
        *t = (target){.obj = -1, .parent = -1};
        if (!path_addr)
                return target_of_fd(c, dirfd, t);
        char path[PATH_MAX];
        int r = read_string(c, path_addr, path, sizeof(path), ENAMETOOLONG);
        return r < 0 ? r : target_of_path(c, dirfd, path, follow, empty_ok, t);
}

/* Say once that |what| of |t| was refused, naming the path, so that an
 * agent can tell the model what to ask for. Only the supervisor's thread
 * writes the list. */
static void report_refusal(call_supervisor *s, const char *what, const target *t)
{
        char link[40], where[PATH_MAX];
        fd_path(link, t->obj);
        ssize_t n = s->opt.log_fn ? readlink(link, where, sizeof(where) - 1) : -1;
        if (n <= 0)
                return;
        where[n] = '\0';
        _cleanup_free_ char *key = xasprintf("%s %s", what, where);
        for (size_t i = 0; key && i < s->n_refused; i++)
                if (streq(s->refused[i], key))
                        return;
        if (!key || s->n_refused == REFUSALS_MAX)
                return;
        s->refused[s->n_refused++] = strdup(key);
        bool connect = strncmp(what, "connect", 7) == 0;
        _cleanup_free_ char *shown = str_escape(key, false); /* a path the command chose */
        _cleanup_free_ char *m = shown ? xasprintf("refused %s: outside the writable paths%s (to allow it, expose "
                                                   "the path%s)",
                                                   shown, connect ? " and the exposed ones" : "",
                                                   connect ? ": --expose" : " read-write: --expose-rw")
                                       : NULL;
        if (m)
                s->opt.log_fn(CORDON_LOG_DENIED, m, s->opt.log_userdata);
}

/* ---- the calls ---------------------------------------------------------------------- */

typedef enum meta_op { META_CHMOD, META_CHOWN, META_TIMES, META_SETXATTR, META_REMOVEXATTR } meta_op;
typedef enum times_form { TIMES_NSEC, TIMES_USEC, TIMES_UTIMBUF } times_form;

/* A metadata call, decoded. */
typedef struct meta_call {
        meta_op op;
        int dirfd;
        uint64_t path; /* 0: on dirfd */
        bool follow, empty_ok;
        uint64_t a, b, c, d; /* the operation's own arguments */
        times_form times;
} meta_call;

static int decode_flags(uint64_t flags, uint64_t allowed, meta_call *m)
{
        if (flags & ~allowed)
                return -EINVAL;
        m->follow = !(flags & AT_SYMLINK_NOFOLLOW);
        m->empty_ok = flags & AT_EMPTY_PATH;
        return 0;
}

static int decode(const struct seccomp_data *d, meta_call *m)
{
        const __u64 *a = d->args;
        *m = (meta_call){.dirfd = AT_FDCWD, .follow = true};
        switch (d->nr) {
#ifdef SYS_chmod
        case SYS_chmod: *m = (meta_call){META_CHMOD, AT_FDCWD, a[0], true, false, a[1], 0, 0, 0, 0}; return 0;
        case SYS_chown: *m = (meta_call){META_CHOWN, AT_FDCWD, a[0], true, false, a[1], a[2], 0, 0, 0}; return 0;
        case SYS_lchown: *m = (meta_call){META_CHOWN, AT_FDCWD, a[0], false, false, a[1], a[2], 0, 0, 0}; return 0;
        case SYS_utime: *m = (meta_call){META_TIMES, AT_FDCWD, a[0], true, false, a[1], 0, 0, 0, TIMES_UTIMBUF};
                return a[0] ? 0 : -EFAULT;
        case SYS_utimes: *m = (meta_call){META_TIMES, AT_FDCWD, a[0], true, false, a[1], 0, 0, 0, TIMES_USEC};
                return a[0] ? 0 : -EFAULT;
        case SYS_futimesat:
                *m = (meta_call){META_TIMES, (int)a[0], a[1], true, false, a[2], 0, 0, 0, TIMES_USEC};
                return 0;
#endif
        case SYS_fchmod: *m = (meta_call){META_CHMOD, (int)a[0], 0, true, false, a[1], 0, 0, 0, 0}; return 0;
        case SYS_fchmodat:
                *m = (meta_call){META_CHMOD, (int)a[0], a[1], true, false, a[2], 0, 0, 0, 0};
                return a[1] ? 0 : -EFAULT;
        case SYS_fchown: *m = (meta_call){META_CHOWN, (int)a[0], 0, true, false, a[1], a[2], 0, 0, 0}; return 0;
        case SYS_fchownat:
                *m = (meta_call){META_CHOWN, (int)a[0], a[1], true, false, a[2], a[3], 0, 0, 0};
                return a[1] ? decode_flags(a[4], AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, m) : -EFAULT;
        case SYS_utimensat:
                /* a NULL path: the call is on the fd (futimens) */
                *m = (meta_call){META_TIMES, (int)a[0], a[1], true, false, a[2], 0, 0, 0, TIMES_NSEC};
                if (!a[1] && ((int)a[0] == AT_FDCWD || (a[3] & AT_SYMLINK_NOFOLLOW)))
                        return (int)a[0] == AT_FDCWD ? -EFAULT : -EINVAL;
                return decode_flags(a[3], AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, m);
        case SYS_setxattr:
        case SYS_lsetxattr:
                *m = (meta_call){META_SETXATTR, AT_FDCWD, a[0], d->nr == SYS_setxattr, false, a[1], a[2], a[3], a[4], 0};
                return a[0] ? 0 : -EFAULT;
        case SYS_fsetxattr:
                *m = (meta_call){META_SETXATTR, (int)a[0], 0, true, false, a[1], a[2], a[3], a[4], 0};
                return 0;
        case SYS_removexattr:
        case SYS_lremovexattr:
                *m = (meta_call){META_REMOVEXATTR, AT_FDCWD, a[0], d->nr == SYS_removexattr, false, a[1], 0, 0, 0, 0};
                return a[0] ? 0 : -EFAULT;
        case SYS_fremovexattr:
                *m = (meta_call){META_REMOVEXATTR, (int)a[0], 0, true, false, a[1], 0, 0, 0, 0};
                return 0;
        default: return -ENOSYS;
        }
}

static int read_times(const call *c, const meta_call *m, struct timespec ts[2], bool *ret_now)
{
        *ret_now = m->a == 0;
        if (!m->a)
                return 0;
        if (m->times == TIMES_NSEC)
                return read_mem(c, m->a, ts, 2 * sizeof(ts[0]));
        if (m->times == TIMES_UTIMBUF) {
                long tb[2];
                int r = read_mem(c, m->a, tb, sizeof(tb));
                ts[0] = (struct timespec){tb[0], 0};
                ts[1] = (struct timespec){tb[1], 0};
                return r;
        }
        struct timeval tv[2];
        int r = read_mem(c, m->a, tv, sizeof(tv));
        for (int i = 0; r == 0 && i < 2; i++) {
                if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
                        return -EINVAL;
                ts[i] = (struct timespec){tv[i].tv_sec, tv[i].tv_usec * 1000};
        }
        return r;
}

/* The xattr call's name and value, copied. */
typedef struct xattr_args {
        char name[XATTR_NAME_MAX + 1];
        char *value;
        size_t size;
} xattr_args;

static int read_xattr(const call *c, const meta_call *m, xattr_args *x)
{
        int r = read_string(c, m->a, x->name, sizeof(x->name), ERANGE);
        if (r < 0 || m->op != META_SETXATTR)
                return r;
        x->size = (size_t)m->c;
        if (x->size > XATTR_SIZE_MAX)
                return -E2BIG;
        x->value = malloc(x->size ? x->size : 1);
        if (!x->value)
                return -ENOMEM;
        return x->size && m->b ? read_mem(c, m->b, x->value, x->size) : 0;
}

/* Perform |m| on |t|. A symlink itself is reached by its name in the
 * directory that holds it, without following: whatever is there now lies
 * in that directory too. */
static int perform(const meta_call *m, const target *t, const struct timespec *ts, const xattr_args *x)
{
        char self[40], named[NAME_MAX + 48] = "";
        fd_path(self, t->obj);
        bool link = S_ISLNK(t->st.st_mode);
        if (link && t->parent < 0 && m->op != META_CHOWN)
                return -EPERM;
        if (link)
                snprintf(named, sizeof(named), "/proc/thread-self/fd/%d/%s", t->parent, t->name);
        int r;
        switch (m->op) {
        case META_CHMOD:
                if (link)
                        return -EOPNOTSUPP;
                r = chmod(self, (mode_t)m->a);
                break;
        case META_CHOWN: r = fchownat(t->obj, "", (uid_t)m->a, (gid_t)m->b, AT_EMPTY_PATH); break;
        case META_TIMES:
                r = link ? utimensat(t->parent, t->name, ts, AT_SYMLINK_NOFOLLOW) : utimensat(AT_FDCWD, self, ts, 0);
                break;
        case META_SETXATTR:
                r = link ? lsetxattr(named, x->name, x->value, x->size, (int)m->d)
                         : setxattr(self, x->name, x->value, x->size, (int)m->d);
                break;
        case META_REMOVEXATTR: r = link ? lremovexattr(named, x->name) : removexattr(self, x->name); break;
        default: return -ENOSYS;
        }
        return r < 0 ? -errno : 0;
}

static int serve_meta(const call *c)
{
        meta_call m;
        int r = decode(&c->req->data, &m);
        if (r < 0)
                return r;
        struct timespec ts[2];
        bool now = false;
        xattr_args x = {.value = NULL};
        if (m.op == META_TIMES)
                r = read_times(c, &m, ts, &now);
        else if (m.op == META_SETXATTR || m.op == META_REMOVEXATTR)
                r = read_xattr(c, &m, &x);
        target t = {.obj = -1, .parent = -1};
        if (r == 0)
                r = target_of(c, m.dirfd, m.path, m.follow, m.empty_ok, &t);
        if (r == 0 && !still_valid(c))
                r = -ESRCH;
        static const char *const NAME[] = {[META_CHMOD] = "chmod", [META_CHOWN] = "chown", [META_TIMES] = "utimes",
                                           [META_SETXATTR] = "setxattr", [META_REMOVEXATTR] = "removexattr"};
        if (r == 0 && !target_beneath_root(c->s, &t, false)) {
                report_refusal(c->s, NAME[m.op], &t);
                r = -EPERM;
        }
        if (r == 0)
                r = perform(&m, &t, now ? NULL : ts, &x);
        target_close(&t);
        free(x.value);
        return r;
}

/* The command's socket itself (the same open file), to connect. The call
 * still waiting after the pidfd was opened means that the thread it names
 * is the caller, and that what was read of its memory before was its. */
static int command_socket(const call *c, int fd)
{
        int pidfd = (int)syscall(SYS_pidfd_open, c->tid, PIDFD_THREAD);
        if (pidfd < 0)
                pidfd = (int)syscall(SYS_pidfd_open, c->req->pid, 0);
        if (pidfd < 0)
                return -errno;
        if (!still_valid(c)) {
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
        int r = target_of_path(c, AT_FDCWD, path, true, false, &t);
        if (r == 0 && !S_ISSOCK(t.st.st_mode))
                r = -ECONNREFUSED;
        if (r == 0 && !still_valid(c))
                r = -ESRCH;
        if (r == 0 && !target_beneath_root(c->s, &t, true)) {
                report_refusal(c->s, "connect to", &t);
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

static int serve_connect(const call *c)
{
        const __u64 *a = c->req->data.args;
        struct sockaddr_storage ss = {0};
        socklen_t len = (socklen_t)a[2];
        if (a[2] > sizeof(ss) || len < sizeof(sa_family_t))
                return -EINVAL;
        int r = read_mem(c, a[1], &ss, len);
        int sock = r < 0 ? r : command_socket(c, (int)a[0]), none = -1;
        if (sock < 0)
                return sock;
        const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
        if (ss.ss_family == AF_UNIX)
                r = connect_unix(c, &sock, (const struct sockaddr_un *)&ss, len);
        else if (ss.ss_family == AF_UNSPEC) /* dissolves an association */
                r = connect(sock, (const struct sockaddr *)&ss, len) < 0 ? -errno : 0;
        else if (c->s->opt.full_network || (ss.ss_family == AF_INET && len >= sizeof(*in) && c->s->opt.proxy_port &&
                                            in->sin_addr.s_addr == htonl(INADDR_LOOPBACK) &&
                                            ntohs(in->sin_port) == c->s->opt.proxy_port))
                r = connect_or_queue(c, &sock, &none, (const struct sockaddr *)&ss, len);
        else
                r = -EACCES; /* the proxy is the only TCP peer */
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
static int serve_listen(const call *c)
{
        const __u64 *a = c->req->data.args;
        int sock = command_socket(c, (int)a[0]), domain = 0;
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

static void respond(call_supervisor *s, uint64_t id, int r)
{
        memset(s->resp, 0, s->sizes.seccomp_notif_resp);
        s->resp->id = id;
        s->resp->error = r < 0 ? r : 0;
        (void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp); /* ENOENT: it died meanwhile */
}

static void serve(call_supervisor *s, const struct seccomp_notif *req)
{
        call c = {.s = s, .req = req, .tid = (pid_t)req->pid};
        int r = req->data.nr == SYS_connect ? serve_connect(&c)
                : req->data.nr == SYS_listen ? serve_listen(&c)
                                             : serve_meta(&c);
        if (r != CALL_PENDING)
                respond(s, req->id, r);
}

/* ---- connects that wait ---------------------------------------------------------- */

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

static void pending_drop(call_supervisor *s, size_t i)
{
        pending_connect *p = &s->pending[i];
        close(p->sock);
        if (p->pin >= 0)
                close(p->pin);
        *p = s->pending[--s->n_pending];
}

/* The descriptors to poll for them: a TCP handshake's socket (others: -1). */
static size_t pending_pollfds(const call_supervisor *s, struct pollfd *pfd)
{
        for (size_t i = 0; i < s->n_pending; i++)
                pfd[i] = (struct pollfd){.fd = s->pending[i].handshake ? s->pending[i].sock : -1, .events = POLLOUT};
        return s->n_pending;
}

/* Answers each pending connect that completed, failed or gave up; forgets
 * the ones whose caller is gone. (From the last: a dropped entry takes the
 * last one's place, which was served already.) */
static void serve_pending(call_supervisor *s, const struct pollfd *pfd)
{
        for (size_t i = s->n_pending; i-- > 0;) {
                const pending_connect *p = &s->pending[i];
                bool valid = id_valid(s, p->id);
                int r = valid ? pending_result(p, pfd[i].revents) : -ESRCH;
                if (r == CALL_PENDING)
                        continue;
                if (valid)
                        respond(s, p->id, r);
                pending_drop(s, i);
        }
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

static void *supervise_main(void *arg)
{
        call_supervisor *s = arg;
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
        free(s->roots);
        for (size_t i = 0; i < s->n_refused; i++)
                free(s->refused[i]);
        free(s);
        return NULL;
}
