/* SPDX-License-Identifier: MIT */
/* The seccomp filter, built in one place from plan data. */
#pragma once

#include <linux/filter.h>

#include "cordon.h"
#include "util.h"

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
