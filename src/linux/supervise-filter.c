/* SPDX-License-Identifier: MIT */
/* The landlock backend's second seccomp filter: the calls it hands to the
 * supervisor (seccomp user notification: metadata, connect, listen, and
 * the signal calls where Landlock does not scope signals), and
 * those it refuses outright (the other architectures' forms of them,
 * datagram unix sockets, TCP Fast Open, families of the network "full"),
 * built as BPF here (supervise_filter, for landlock.c's plan), installed
 * by the command's side (supervise_install, child-exec.c: async-signal-
 * safe), and the kernel's support probed (supervise_available). */
#include "supervise.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef F_SETOWN_EX
#define F_SETOWN_EX 15
#endif

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
/* chattr: immutable, append-only and the other inode flags; then, where
 * signals are supervised, the ioctls that make a process the owner of a
 * file's SIGIO and SIGURG (the pid in memory: refused, see fcntl_owner) */
static const uint32_t FLAG_IOCTLS[] = {FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR, FIOSETOWN, SIOCSPGRP};
#define N_FLAG_IOCTLS 3
/* Where Landlock does not scope signals: the calls that signal a process
 * by number or pidfd, or open a pidfd (supervise-signal.c). */
static const int SIGNAL_CALLS[] = {SYS_kill,          SYS_tkill,         SYS_tgkill,     SYS_rt_sigqueueinfo,
                                   SYS_rt_tgsigqueueinfo, SYS_pidfd_send_signal, SYS_pidfd_open};

#define NATIVE_ARCH SECCOMP_NATIVE_ARCH
#if defined(__x86_64__)
/* i386 (through int $0x80): the same calls, and the socket calls, denied.
 * Numbers from arch/x86/entry/syscalls/syscall_32.tbl. */
static const int I386_DENIED[] = {15,  16,  30,  94,  95,  182, 198, 207, 212, 226, 227, 228, 235, 236,
                                  237, 271, 298, 299, 306, 320, 412, 452, 463, 466};
/* kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo pidfd_send_signal pidfd_open */
static const int I386_SIGNAL_CALLS[] = {37, 238, 270, 178, 335, 424, 434};
#define I386_FCNTL 55
#define I386_FCNTL64 221
static const int I386_SOCKET_CALLS[] = {345 /* sendmmsg */, 359 /* socket */,  360 /* socketpair */,
                                        362 /* connect */,  363 /* listen */,  369 /* sendto */,
                                        370 /* sendmsg */};
#define I386_SOCKETCALL 102 /* the multiplexer: its arguments are in memory */
#define I386_SOCKET 359
#define I386_SOCKETPAIR 360
#define I386_CONNECT 362
#define I386_LISTEN 363
#define X32_BIT SECCOMP_X32_BIT
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + sizeof(uint64_t) * (n))
#else
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + sizeof(uint64_t) * (n) + 4)
#endif
#define ARG_HI(n) (ARG_LO(n) ^ 4)

#define PROG_MAX 512
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

/* ioctl |nr| with an inode-flag request (and |signals|: an owner one):
 * EPERM (the request is an int). */
static void flag_ioctls(bpf *b, uint32_t nr, bool signals)
{
        uint8_t n = signals ? (uint8_t)ARRAY_SIZE(FLAG_IOCTLS) : N_FLAG_IOCTLS;
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, (uint8_t)(n + 3), nr);
        ld(b, ARG_LO(1));
        for (uint8_t i = 0; i < n; i++)
                op(b, BPF_JMP | BPF_JEQ | BPF_K, (uint8_t)(n - i), 0, FLAG_IOCTLS[i]);
        emit_ret(b, SECCOMP_RET_ALLOW);
        emit_ret(b, DENY(EPERM));
}

/* fcntl |nr| that makes a process the owner of a file's SIGIO and SIGURG
 * (which may be set to any signal, SIGKILL too, by F_SETSIG): F_SETOWN
 * gets |setown| (the supervisor: the caller itself only), F_SETOWN_EX,
 * whose pid is in memory, EPERM. Landlock's scope covers this delivery. */
static void fcntl_owner(bpf *b, uint32_t nr, uint32_t setown)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 6, nr);
        ld(b, ARG_LO(1));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, F_SETOWN);
        emit_ret(b, setown);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, F_SETOWN_EX);
        emit_ret(b, DENY(EPERM));
        emit_ret(b, SECCOMP_RET_ALLOW);
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

/* |nr| opening a file read-only with O_TRUNC (flags in argument |arg|):
 * EACCES, where Landlock has no truncate right (ABI < 3): the kernel
 * truncates on the write permission alone, and Landlock below ABI 3 sees
 * only a read. Falls through with the number in A. */
static void no_read_truncate(bpf *b, uint32_t nr, unsigned arg)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 6, nr);
        ld(b, ARG_LO(arg));
        op(b, BPF_JMP | BPF_JSET | BPF_K, 0, 3, O_TRUNC);
        op(b, BPF_ALU | BPF_AND | BPF_K, 0, 0, O_ACCMODE);
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, O_RDONLY);
        emit_ret(b, DENY(EACCES));
        ld(b, offsetof(struct seccomp_data, nr));
}

/* prlimit64 |nr| setting the limits of another process than the caller
 * (pid and new limit not 0): |action|. Landlock governs it on no ABI, and
 * a limit (RLIMIT_CPU 0) kills a host process of the user. Falls through
 * with the number in A. */
static void prlimit_others(bpf *b, uint32_t nr, uint32_t action)
{
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 8, nr);
        ld(b, ARG_LO(0));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 4, 0, 0);
        ld(b, ARG_LO(2));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 3, 0);
        ld(b, ARG_HI(2));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
        op(b, BPF_JMP | BPF_JA, 0, 0, 1);
        emit_ret(b, action);
        ld(b, offsetof(struct seccomp_data, nr));
}

/* --explain: the calls that take a path, handed over to be observed. */
static void observe(bpf *b)
{
        long nr[32];
        size_t n = observed_calls(nr, ARRAY_SIZE(nr));
        for (size_t i = 0; i < n; i++)
                on_nr(b, (uint32_t)nr[i], SECCOMP_RET_USER_NOTIF);
}

static void native_section(bpf *b, const supervise_options *o)
{
        ld(b, offsetof(struct seccomp_data, nr));
        if (o->truncate) { /* before --explain's observer, which lets calls on */
#ifdef SYS_open
                no_read_truncate(b, SYS_open, 1);
#endif
                no_read_truncate(b, SYS_openat, 2);
                on_nr(b, SYS_openat2, DENY(ENOSYS)); /* its flags are in memory */
        }
        if (o->explain)
                observe(b);
        if (o->observe_only) { /* the linux backend: nothing else changes */
                emit_ret(b, SECCOMP_RET_ALLOW);
                return;
        }
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
        prlimit_others(b, SYS_prlimit64, SECCOMP_RET_USER_NOTIF);
        if (o->truncate)
                on_nr(b, SYS_truncate, SECCOMP_RET_USER_NOTIF);
        for (size_t i = 0; o->signals && i < ARRAY_SIZE(SIGNAL_CALLS); i++)
                on_nr(b, (uint32_t)SIGNAL_CALLS[i], SECCOMP_RET_USER_NOTIF);
        if (o->signals)
                fcntl_owner(b, SYS_fcntl, SECCOMP_RET_USER_NOTIF);
        if (!o->full_network) {
                no_fast_open(b, SYS_sendto, 3);
                no_fast_open(b, SYS_sendmsg, 2);
                no_fast_open(b, SYS_sendmmsg, 3);
        }
        if (o->full_network)
                full_network_families(b, SYS_socket);
        flag_ioctls(b, SYS_ioctl, o->signals);
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
        prlimit_others(b, 340 /* prlimit64 */, DENY(EPERM));
        for (size_t i = 0; !o->full_network && i < ARRAY_SIZE(I386_SOCKET_CALLS); i++)
                on_nr(b, (uint32_t)I386_SOCKET_CALLS[i], DENY(EPERM));
        if (o->full_network) {
                on_nr(b, I386_CONNECT, DENY(EPERM));
                on_nr(b, I386_LISTEN, DENY(EPERM));
                full_network_families(b, I386_SOCKET);
                unix_datagrams(b, I386_SOCKET, I386_SOCKETPAIR);
        }
        if (o->truncate) {
                on_nr(b, 92 /* truncate */, DENY(EPERM));
                on_nr(b, 193 /* truncate64 */, DENY(EPERM));
                no_read_truncate(b, 5 /* open */, 1);
                no_read_truncate(b, 295 /* openat */, 2);
                on_nr(b, 437 /* openat2 */, DENY(ENOSYS));
        }
        for (size_t i = 0; o->signals && i < ARRAY_SIZE(I386_SIGNAL_CALLS); i++)
                on_nr(b, (uint32_t)I386_SIGNAL_CALLS[i], DENY(EPERM));
        if (o->signals) {
                fcntl_owner(b, I386_FCNTL, DENY(EPERM));
                fcntl_owner(b, I386_FCNTL64, DENY(EPERM));
        }
        flag_ioctls(b, 54 /* ioctl */, o->signals);
        emit_ret(b, SECCOMP_RET_ALLOW);
}
#endif

/* One section per architecture: "ld arch; jeq ARCH, 1, 0; ja <past the
 * section>; ..." (ja: a section may be longer than a conditional jump's
 * 255). The sections end in a return, so a jump over one lands on the
 * next. Other architectures: the main filter kills them. *|ret_start|
 * (NULL: not wanted): where the body begins. */
static int section(bpf *b, uint32_t arch, void (*body)(bpf *, const supervise_options *), const supervise_options *o,
                   size_t *ret_start)
{
        ld(b, offsetof(struct seccomp_data, arch));
        op(b, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, arch);
        size_t jump = b->n;
        op(b, BPF_JMP | BPF_JA, 0, 0, 0);
        if (ret_start)
                *ret_start = b->n;
        body(b, o);
        if (b->n > PROG_MAX)
                return -E2BIG;
        b->f[jump].k = (uint32_t)(b->n - jump - 1);
        return 0;
}

/* --explain: the main filter's refusals of the native calls, notified
 * (seccomp-notify.c), appended to |f| (|n| long): each call the native
 * section [|start|, |end|) allows goes on to them (a jump forward for its
 * return: the section's other jumps are unchanged). A call this filter
 * notifies or refuses itself does not: the one it notifies, the observer
 * checks against the main filter first (supervise-refused.c), and its
 * refusals are what every run gives (this filter is installed last: its
 * errno wins over the main filter's). The new length, or -errno. */
static int chain_refusals(const supervise_options *o, struct sock_filter *f, size_t n, size_t cap, size_t start,
                          size_t end)
{
        int m = seccomp_refusals_notified(&o->refusals, f + n, cap - n);
        if (m < 0)
                return m;
        if (n + (size_t)m > BPF_MAXINSNS)
                return -E2BIG;
        for (size_t i = start; i < end; i++)
                if (f[i].code == (BPF_RET | BPF_K) && f[i].k == SECCOMP_RET_ALLOW)
                        f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, (uint32_t)(n - i - 1), 0, 0);
        return (int)(n + (size_t)m);
}

int supervise_filter(const supervise_options *o, seccomp_prog *ret)
{
        bpf b = {.n = 0};
        size_t start = 0;
        int r = section(&b, NATIVE_ARCH, native_section, o, &start);
        size_t end = b.n;
#ifdef X32_BIT
        if (r == 0 && !o->observe_only)
                r = section(&b, AUDIT_ARCH_I386, i386_section, o, NULL);
#endif
        emit_ret(&b, SECCOMP_RET_ALLOW);
        if (r < 0 || b.n > PROG_MAX)
                return r < 0 ? r : -E2BIG;
        size_t cap = b.n + (o->refusals.filter ? o->refusals.len + SECCOMP_NOTIFIED_EXTRA : 0);
        struct sock_filter *f = malloc(cap * sizeof(*f));
        if (!f)
                return -ENOMEM;
        memcpy(f, b.f, b.n * sizeof(b.f[0]));
        r = o->refusals.filter ? chain_refusals(o, f, b.n, cap, start, end) : (int)b.n;
        if (r < 0) {
                free(f);
                return r;
        }
        ret->filter = f;
        ret->len = (unsigned short)r;
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
