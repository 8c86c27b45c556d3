/* SPDX-License-Identifier: MIT */
/* The seccomp filters compiled with libseccomp: what tools/seccomp-gen.c
 * runs at build time (seccomp.c holds the rules and installs the result),
 * and what the library falls back to for a filter not compiled then. */
#include "seccomp-filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "error.h"

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
                  CLONE_NEWCGROUP)
#define SETID_BITS (S_ISUID | S_ISGID)
/* One argument comparison (libseccomp's SCMP_Ax macros leave datum_b out). */
#define ARG(n, cmp, a, b) ((struct scmp_arg_cmp){.arg = (n), .op = (cmp), .datum_a = (a), .datum_b = (b)})

/* A rule on a name libseccomp does not know is skipped: where libseccomp is
 * as old as the kernel, the kernel has no such call either, or libc uses
 * its older form. The calls of a kernel newer than libseccomp that must be
 * denied are in NUMBERED. */
static int add_rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n, const struct scmp_arg_cmp *a)
{
        int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR)
                return 0;
        int r = seccomp_rule_add_array(ctx, action, nr, n, a);
        return r == -EOPNOTSUPP || r == -EDOM ? 0 : r;
}

/* Deny setting S_ISUID/S_ISGID through the mode argument |arg| of |name|:
 * started as root, a command could leave a setuid-root binary in an rw
 * directory for the host to run. */
static int deny_setid(scmp_filter_ctx ctx, const char *name, unsigned arg)
{
        struct scmp_arg_cmp c = {.arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = SETID_BITS,
                                 .datum_b = 0};
        /* MASKED_EQ(bits, 0) is the allowed case; deny the complement, one
         * rule per bit since libseccomp has no "masked not equal". */
        int r = 0;
        c.datum_a = S_ISUID;
        c.datum_b = S_ISUID;
        r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), name, 1, &c);
        c.datum_a = S_ISGID;
        c.datum_b = S_ISGID;
        return r ? r : add_rule(ctx, SCMP_ACT_ERRNO(EPERM), name, 1, &c);
}

/* TCP over |domain|: deny every other type (the low 4 bits; flags such
 * as SOCK_CLOEXEC are above) and protocol (0 and IPPROTO_TCP are TCP;
 * MPTCP, SCTP or SMC streams would escape Landlock's TCP rules). One
 * comparison of an argument per rule, so the complements take a few. */
static int deny_non_tcp(scmp_filter_ctx ctx, int domain)
{
        static const struct {
                enum scmp_compare op;
                uint64_t a, b;
        } TYPE[] = {
                {SCMP_CMP_MASKED_EQ, 0x2, 0x2}, {SCMP_CMP_MASKED_EQ, 0x4, 0x4}, /* 2..15 */
                {SCMP_CMP_MASKED_EQ, 0x8, 0x8}, {SCMP_CMP_MASKED_EQ, 0xf, 0},   /* and 0 */
        }, PROTO[] = {
                {SCMP_CMP_GT, IPPROTO_TCP, 0}, {SCMP_CMP_MASKED_EQ, 0x1, 0x1}, /* > 6, odd */
                {SCMP_CMP_EQ, 2, 0}, {SCMP_CMP_EQ, 4, 0},
        };
        int r = 0;
        for (size_t i = 0; !r && i < ARRAY_SIZE(TYPE); i++) {
                struct scmp_arg_cmp c[] = {ARG(0, SCMP_CMP_EQ, domain, 0), ARG(1, TYPE[i].op, TYPE[i].a, TYPE[i].b)};
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 2, c);
        }
        for (size_t i = 0; !r && i < ARRAY_SIZE(PROTO); i++) {
                struct scmp_arg_cmp c[] = {ARG(0, SCMP_CMP_EQ, domain, 0),
                                           ARG(2, PROTO[i].op, PROTO[i].a, PROTO[i].b)};
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 2, c);
        }
        return r;
}

/* socket(): AF_UNIX, and for SECCOMP_SOCKETS_UNIX_TCP TCP over AF_INET and
 * AF_INET6 (1, 2 and 10); every other family (netlink, packet, ...) and
 * UDP or raw sockets get EPERM. */
static int add_socket_rules(scmp_filter_ctx ctx, seccomp_sockets sockets)
{
        int r = 0;
        if (sockets == SECCOMP_SOCKETS_UNIX) {
                struct scmp_arg_cmp dom = ARG(0, SCMP_CMP_NE, AF_UNIX, 0);
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 1, &dom);
        } else {
                static const struct {
                        enum scmp_compare op;
                        uint64_t a;
                } DOM[] = {{SCMP_CMP_EQ, AF_UNSPEC}, {SCMP_CMP_EQ, 3}, {SCMP_CMP_EQ, 4}, {SCMP_CMP_EQ, 5},
                           {SCMP_CMP_EQ, 6},         {SCMP_CMP_EQ, 7}, {SCMP_CMP_EQ, 8}, {SCMP_CMP_EQ, 9},
                           {SCMP_CMP_GT, AF_INET6}};
                for (size_t i = 0; !r && i < ARRAY_SIZE(DOM); i++) {
                        struct scmp_arg_cmp dom = ARG(0, DOM[i].op, DOM[i].a, 0);
                        r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 1, &dom);
                }
                if (!r)
                        r = deny_non_tcp(ctx, AF_INET);
                if (!r)
                        r = deny_non_tcp(ctx, AF_INET6);
        }
        return r;
}

static int add_arg_rules(scmp_filter_ctx ctx, const seccomp_options *opt)
{
        /* clone with namespace flags (the flags are the first argument on
         * every architecture cordon runs on) */
        struct scmp_arg_cmp ns = ARG(0, SCMP_CMP_MASKED_EQ, NS_FLAGS, 0);
        int r = 0;
        for (unsigned long bit = 1; !r && bit; bit <<= 1)
                if (bit & NS_FLAGS) {
                        ns = ARG(0, SCMP_CMP_MASKED_EQ, bit, bit);
                        r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "clone", 1, &ns);
                }
        /* personality: only the default (PER_LINUX); flags such as
         * READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE weaken exploit defences.
         * libseccomp cannot compare one argument twice, so the query
         * (0xffffffff) is denied too. */
        struct scmp_arg_cmp pers = ARG(0, SCMP_CMP_NE, 0, 0);
        if (!r)
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "personality", 1, &pers);
        /* TIOCSTI pushes input into a terminal (CVE-2017-5226), TIOCLINUX
         * can too on a VT; the request is an int: compare 32 bits only */
        struct scmp_arg_cmp sti = ARG(1, SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCSTI);
        struct scmp_arg_cmp vt = ARG(1, SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCLINUX);
        if (!r)
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &sti);
        if (!r)
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &vt);
        static const struct {
                const char *name;
                unsigned arg;
        } SETID[] = {{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"open", 2},
                     {"openat", 3}, {"creat", 1}, {"mknod", 1},  {"mknodat", 2}};
        for (size_t i = 0; !r && i < ARRAY_SIZE(SETID); i++)
                r = deny_setid(ctx, SETID[i].name, SETID[i].arg);
        /* fchmodat2 (Linux 6.6) takes flags libseccomp 2.5 cannot name:
         * ENOSYS, glibc falls back to fchmodat */
        if (!r)
                r = add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "fchmodat2", 0, NULL);
        /* AF_VSOCK reaches the VM's host (and a host's guests) past any
         * network namespace: on every backend and network (the family is an
         * int: 32 bits compared) */
        struct scmp_arg_cmp vsock = ARG(0, SCMP_CMP_MASKED_EQ, 0xffffffffUL, AF_VSOCK);
        if (!r)
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 1, &vsock);
        /* netlink's NETLINK_USERSOCK: messages between any processes of the
         * network namespace, the host's with the network full (as an
         * abstract unix socket) */
        struct scmp_arg_cmp usersock[] = {ARG(0, SCMP_CMP_MASKED_EQ, 0xffffffffUL, AF_NETLINK),
                                          ARG(2, SCMP_CMP_MASKED_EQ, 0xffffffffUL, NETLINK_USERSOCK)};
        if (!r)
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 2, usersock);
        /* i386's socketcall performs every socket call with the arguments in
         * memory, past the rules on socket (i386 programs of a libc that has
         * no direct socket calls get no sockets) */
        if (!r)
                r = add_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socketcall", 0, NULL);
        if (!r && opt->sockets != SECCOMP_SOCKETS_ANY)
                r = add_socket_rules(ctx, opt->sockets);
        return r;
}

/* Denied calls that libseccomp may not know yet (2.5.4 does not know
 * open_tree_attr, Linux 6.15), by number. Since Linux 5.1 a new call has
 * the same number on every architecture but alpha and mips, so one
 * number serves the native architecture, i386 and arm (x32's calls are
 * refused whole: the bad-architecture action, seccomp_compile).
 * libseccomp cannot take them: it translates a rule's number to the
 * filter's other architectures through the name, and refuses (-EFAULT) a
 * number it cannot name. So they become a few BPF instructions of our own
 * in front of libseccomp's program (numbered_prefix). */
static const struct {
        const char *name;
        uint32_t nr;
} NUMBERED[] = {
        {"open_tree_attr", 467},
};

#define MAX_ARCHES 4

/* What the filter is being built of. */
typedef struct compile_state {
        uint32_t arches[MAX_ARCHES]; /* libseccomp's SCMP_ARCH_* */
        size_t n_arches;
        struct {
                uint32_t nr;
                int err;
        } by_number[ARRAY_SIZE(NUMBERED)];
        size_t n_by_number;
} compile_state;

static int add_arches(scmp_filter_ctx ctx, compile_state *st)
{
        uint32_t native = seccomp_arch_native();
        static const struct {
                uint32_t native, extra;
        } EXTRA[] = {
                {SCMP_ARCH_X86_64, SCMP_ARCH_X86},
                {SCMP_ARCH_AARCH64, SCMP_ARCH_ARM},
        };
        st->arches[st->n_arches++] = native;
        for (size_t i = 0; i < ARRAY_SIZE(EXTRA); i++)
                if (EXTRA[i].native == native) {
                        int r = seccomp_arch_add(ctx, EXTRA[i].extra);
                        if (r < 0 && r != -EEXIST)
                                return r;
                        if (st->n_arches < MAX_ARCHES)
                                st->arches[st->n_arches++] = EXTRA[i].extra;
                }
        return 0;
}

/* Deny |name| with |err|: through libseccomp when it knows the name, else
 * by number when NUMBERED has it, else not at all (see add_rule). */
static int deny(scmp_filter_ctx ctx, compile_state *st, const char *name, int err)
{
        if (seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR)
                return add_rule(ctx, SCMP_ACT_ERRNO((uint32_t)err), name, 0, NULL);
        for (size_t i = 0; i < ARRAY_SIZE(NUMBERED); i++)
                if (streq(NUMBERED[i].name, name) && st->n_by_number < ARRAY_SIZE(st->by_number)) {
                        st->by_number[st->n_by_number].nr = NUMBERED[i].nr;
                        st->by_number[st->n_by_number++].err = err;
                }
        return 0;
}

/* The audit architecture (what seccomp_data.arch holds) of a libseccomp
 * architecture whose numbers follow the common table. False for the
 * others (their NUMBERED rules are left out). */
static bool audit_arch(uint32_t scmp_arch, uint32_t *ret_audit)
{
        switch (scmp_arch) {
        case SCMP_ARCH_X86_64: *ret_audit = AUDIT_ARCH_X86_64; return true;
        case SCMP_ARCH_X86: *ret_audit = AUDIT_ARCH_I386; return true;
        case SCMP_ARCH_AARCH64: *ret_audit = AUDIT_ARCH_AARCH64; return true;
        case SCMP_ARCH_ARM: *ret_audit = AUDIT_ARCH_ARM; return true;
        case SCMP_ARCH_RISCV64: *ret_audit = AUDIT_ARCH_RISCV64; return true;
        case SCMP_ARCH_PPC64LE: *ret_audit = AUDIT_ARCH_PPC64LE; return true;
        case SCMP_ARCH_S390X: *ret_audit = AUDIT_ARCH_S390X; return true;
        default: return false;
        }
}

/* Upper bound of numbered_prefix's length. */
#define PREFIX_MAX (1 + MAX_ARCHES * (3 + 2 * ARRAY_SIZE(NUMBERED)))

/* The BPF for the by-number rules, into |out| (PREFIX_MAX entries); returns
 * its length. Per architecture: if the arch matches, load the number,
 * return each rule's errno on its number, reload the arch. Every way out
 * falls through to libseccomp's program with the arch in A, and that
 * program loads what it needs itself. */
static size_t numbered_prefix(const compile_state *st, struct sock_filter *out)
{
        size_t n = 0, k = st->n_by_number;
        if (k == 0)
                return 0;
        out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
        for (size_t a = 0; a < st->n_arches; a++) {
                uint32_t audit;
                if (!audit_arch(st->arches[a], &audit))
                        continue;
                /* not this arch: skip the block (A still holds the arch) */
                out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit, 0, (uint8_t)(2 * k + 2));
                out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
                for (size_t i = 0; i < k; i++) {
                        uint32_t ret = SECCOMP_RET_ERRNO | ((uint32_t)st->by_number[i].err & SECCOMP_RET_DATA);
                        out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, st->by_number[i].nr,
                                                                0, 1);
                        out[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret);
                }
                out[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
        }
        return n;
}

static int export_bpf(scmp_filter_ctx ctx, const compile_state *st, seccomp_prog *ret)
{
        _cleanup_close_ int fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = seccomp_export_bpf(ctx, fd);
        if (r < 0)
                return r;
        off_t size = lseek(fd, 0, SEEK_CUR);
        struct sock_filter prefix[PREFIX_MAX];
        size_t n_prefix = numbered_prefix(st, prefix);
        if (size <= 0 || size % (off_t)sizeof(struct sock_filter) ||
            (size_t)size / sizeof(struct sock_filter) + n_prefix > BPF_MAXINSNS)
                return -EINVAL;
        size_t len = n_prefix + (size_t)size / sizeof(struct sock_filter);
        struct sock_filter *f = malloc(len * sizeof(*f));
        if (!f)
                return -ENOMEM;
        /* classic BPF jumps are relative and forward: libseccomp's program
         * is unchanged by what comes before it */
        memcpy(f, prefix, n_prefix * sizeof(*f));
        if (pread(fd, f + n_prefix, (size_t)size, 0) != size) {
                free(f);
                return -EIO;
        }
        ret->filter = f;
        ret->len = (unsigned short)len;
        return 0;
}

int seccomp_compile(const seccomp_options *opt, seccomp_prog *ret, cordon_error **ret_error)
{
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx)
                return error_set(ret_error, ENOMEM, "seccomp: cannot create the filter");
        /* A binary tree of syscall numbers instead of a chain: the kernel
         * runs the filter for every syscall of every architecture when it
         * builds its action cache at install time, and every call after. */
        int r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        /* x32's calls (x86_64's arch, the x32 bit in the number) and any
         * other architecture's: ENOSYS, as where the kernel has no x32 ABI
         * (Debian's default). Filtering x32 too would cost a third more
         * instructions, which the kernel compiles and runs through for each
         * call number at every start. */
        if (r == 0)
                r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS));
        compile_state st = {0};
        if (r == 0)
                r = add_arches(ctx, &st);
        for (size_t i = 0; r == 0 && SECCOMP_DENIED[i].name; i++)
                r = deny(ctx, &st, SECCOMP_DENIED[i].name, SECCOMP_DENIED[i].err);
        for (size_t i = 0; r == 0 && opt->host_ipc && SECCOMP_HOST_IPC[i].name; i++)
                r = deny(ctx, &st, SECCOMP_HOST_IPC[i].name, SECCOMP_HOST_IPC[i].err);
        if (r == 0)
                r = add_arg_rules(ctx, opt);
        if (r == 0)
                r = export_bpf(ctx, &st, ret);
        seccomp_release(ctx);
        if (r < 0)
                return error_set(ret_error, -r, "seccomp: cannot build the filter: %s", strerror(-r));
        return 0;
}
