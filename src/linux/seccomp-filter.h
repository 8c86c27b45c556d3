/* SPDX-License-Identifier: MIT */
/* The seccomp filter, built in one place from plan data. */
#pragma once

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "cordon.h"
#include "util.h"

/* The architecture whose calls are supervised and observed (seccomp_data's
 * arch), and on x86_64 the bit x32's call numbers carry. */
#if defined(__x86_64__)
#define SECCOMP_NATIVE_ARCH AUDIT_ARCH_X86_64
#define SECCOMP_X32_BIT 0x40000000U
#elif defined(__aarch64__)
#define SECCOMP_NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define SECCOMP_NATIVE_ARCH AUDIT_ARCH_RISCV64
#else
#define SECCOMP_NATIVE_ARCH 0 /* not supervised here: supervise_available says so */
#endif

/* Which sockets socket() may make (the landlock backend has the host's
 * network: its network modes but "full" restrict them). */
typedef enum seccomp_sockets {
        SECCOMP_SOCKETS_ANY,
        SECCOMP_SOCKETS_UNIX,     /* AF_UNIX only */
        SECCOMP_SOCKETS_UNIX_TCP, /* and TCP over AF_INET/AF_INET6, which Landlock restricts ("proxy") */
} seccomp_sockets;

typedef struct seccomp_options {
        seccomp_sockets sockets;
        bool host_ipc; /* no IPC namespace (landlock backend): deny System V IPC */
} seccomp_options;

typedef struct seccomp_prog {
        struct sock_filter *filter;
        unsigned short len;
} seccomp_prog;

/* The filter for every architecture this host runs, as classic BPF: the copy
 * compiled at build time when the host's architecture is the build's, else
 * compiled now. Returns 0 or a negative errno (with |ret_error| set). */
int seccomp_build(const seccomp_options *opt, seccomp_prog *ret, cordon_error **ret_error) HIDDEN;
/* The filters compiled at build time (seccomp-bpf.c, made by
 * tools/seccomp-gen.c): one for each value of the options. */
typedef struct seccomp_filter_entry {
        bool host_ipc;
        seccomp_sockets sockets;
        const struct sock_filter *filter;
        unsigned short len;
} seccomp_filter_entry;
extern const seccomp_filter_entry seccomp_precompiled[] HIDDEN;
extern const size_t seccomp_precompiled_count HIDDEN;
extern const uint32_t seccomp_precompiled_arch HIDDEN; /* libseccomp's SCMP_ARCH_* */
/* Compile it with libseccomp (what the build-time generator runs). */
int seccomp_compile(const seccomp_options *opt, seccomp_prog *ret, cordon_error **ret_error) HIDDEN;
void seccomp_prog_free(seccomp_prog *p) HIDDEN;
/* Install |p| on the calling thread (async-signal-safe). 0 or -errno. */
int seccomp_install(const seccomp_prog *p) HIDDEN;

/* The syscalls the filter denies, with the errno each gets (for docs/tests). */
typedef struct seccomp_rule_info {
        const char *name;
        int err;
        const char *why;
} seccomp_rule_info;
extern const seccomp_rule_info SECCOMP_DENIED[] HIDDEN;
/* Denied too where the IPC objects are the host's (host_ipc). */
extern const seccomp_rule_info SECCOMP_HOST_IPC[] HIDDEN;

/* --explain (seccomp-notify.c): the filter's refusals on the native
 * architecture handed to the observer, who answers each with the errno the
 * filter gives. A SECCOMP_RET_ERRNO of one filter wins over another's
 * user notification, so for that run |main| (the filter seccomp_build
 * made) is rewritten to allow the native calls (i386 and x32 keep it as
 * it is), its copy kept in |ret_refusals|. 0 or -errno. */
int seccomp_split_refusals(seccomp_prog *main, seccomp_prog *ret_refusals) HIDDEN;
/* |refusals| with each SECCOMP_RET_ERRNO made SECCOMP_RET_USER_NOTIF, for
 * the native architecture's calls (the others: SECCOMP_RET_ALLOW), into
 * |out| (|cap| entries): its length, or -E2BIG. */
int seccomp_refusals_notified(const seccomp_prog *refusals, struct sock_filter *out, size_t cap) HIDDEN;
#define SECCOMP_NOTIFIED_EXTRA 6 /* at most this many instructions more than |refusals| */
/* What |p| returns for |d| (classic BPF, as the kernel runs it);
 * SECCOMP_RET_KILL_PROCESS for a program that is not valid. */
uint32_t seccomp_eval(const seccomp_prog *p, const struct seccomp_data *d) HIDDEN;
/* The native architecture's name of call |nr| (caller frees; "syscall NR"
 * when unknown), NULL on ENOMEM. */
char *seccomp_call_name(long nr) HIDDEN;
/* Its names, by number, written at build time (tools/seccomp-gen.c). */
extern const char *const seccomp_precompiled_names[] HIDDEN;
extern const size_t seccomp_precompiled_names_count HIDDEN;
