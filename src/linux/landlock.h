/* SPDX-License-Identifier: MIT */
/* Landlock: ABI probing, rights per ABI, and rulesets from plan data. */
#pragma once

#include <stdint.h>

#include "cordon.h"
#include "util.h"

/* The running kernel's Landlock ABI (>= 1), or a negative errno: -ENOSYS
 * (not built in), -EOPNOTSUPP (disabled at boot). */
int landlock_abi(void) HIDDEN;
/* For tests only: CORDON_TEST_LANDLOCK_ABI=N (0 to the kernel's ABI - 1)
 * makes cordon decide as if the kernel's Landlock were ABI N (0: none):
 * what it refuses, the fallbacks it adds (the landlock backend's signal
 * supervision below ABI 6), what check, the plan log and the record say.
 * The rulesets still handle every right of the kernel's own ABI, so it
 * only ever narrows what the command can do (docs/testing.md). */
#define LANDLOCK_ABI_TEST_ENV "CORDON_TEST_LANDLOCK_ABI"
/* The ABI cordon relies on: |abi| (landlock_abi's), or lower by the
 * variable above; a value that is not lower is ignored. */
int landlock_abi_relied(int abi) HIDDEN;
/* What to do about a missing Landlock (|abi| <= 0). Static string. */
const char *landlock_hint(int abi) HIDDEN;

typedef struct landlock_rights {
        uint64_t fs;      /* handled filesystem rights */
        uint64_t net;     /* handled network rights (ABI >= 4) */
        uint64_t scoped;  /* scopes (ABI >= 6) */
} landlock_rights;

/* Every right the given ABI knows (pure: the best-effort downgrade). */
landlock_rights landlock_rights_for_abi(int abi) HIDDEN;
/* Rights granted beneath a read-only / read-write path, within |handled|. */
uint64_t landlock_fs_read(uint64_t handled) HIDDEN;
uint64_t landlock_fs_write(uint64_t handled) HIDDEN;
/* Names of the rights in |fs| ("read_file write_file ..."). Caller frees. */
char *landlock_fs_names(uint64_t fs) HIDDEN;

/* Create a ruleset handling |rights| (close-on-exec fd, or -errno). */
int landlock_ruleset_new(const landlock_rights *rights) HIDDEN;
/* Allow |access| beneath the file or directory |fd| (async-signal-safe;
 * file-only rights are kept for non-directories). 0 or -errno. */
int landlock_allow_fd(int ruleset, int fd, uint64_t access, bool is_dir) HIDDEN;
/* Allow TCP |port| for |access| (LANDLOCK_ACCESS_NET_*). 0 or -errno. */
int landlock_allow_port(int ruleset, uint64_t port, uint64_t access) HIDDEN;

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_FS_RESOLVE_UNIX (1ULL << 16) /* ABI 9: connect/sendmsg to a pathname unix socket */
#define LL_NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */
/* Rights that apply to regular files (the rest need a directory). */
#define LL_FS_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct cordon_plan;
/* The linux backend's network "full" without Landlock's scopes: 0, or
 * -EOPNOTSUPP (refused, LINUX_FULL_NEEDS_SCOPES says why). */
int landlock_full_network_check(const struct cordon_plan *p) HIDDEN;
#define LINUX_FULL_NEEDS_SCOPES                                                                                     \
        "the network \"full\" on the linux backend is the host's network namespace, whose abstract unix sockets " \
        "(a session bus, an X server, other daemons') only Landlock's scope keeps from the command, and that needs " \
        "Landlock ABI >= 6 (Linux >= 6.12), which this kernel lacks (or Landlock is off by config): use the "       \
        "network \"loopback\", \"proxy\" (--allow-net) or \"none\", or --backend landlock, whose call "         \
        "supervisor refuses them on every kernel"
struct supervise_root;
/* The landlock backend: add the plan's rules (host paths) to |ruleset|,
 * and note in |roots| (p->n_mounts entries) the writable directories and
 * files, and the explicitly exposed read-only directories and sockets
 * (connect only), as the inodes the rules were made on. The descriptors
 * the rules of /etc were made on are left open for the caller to close,
 * once the sandbox runs (their last close is most of their cost): |keep|
 * ({-1, -1} on entry) gets their range, every fd in it theirs. */
int landlock_backend_rules(const struct cordon_plan *p, int ruleset, const landlock_rights *ll,
                           struct supervise_root *roots, size_t *n_roots, int keep[2],
                           cordon_error **ret_error) HIDDEN;
/* The landlock backend: read-write rules for the terminals among |stdio|
 * (the command's own), and /dev/tty when there is one or |own_pty| (a
 * terminal of the command's own, made at start). 0 or -errno. */
int landlock_allow_terminal(int ruleset, const int stdio[3], bool own_pty, const landlock_rights *ll,
                            cordon_error **ret_error) HIDDEN;
/* The rights landlock_allow_terminal grants on a terminal. */
uint64_t landlock_terminal_access(const landlock_rights *ll) HIDDEN;
