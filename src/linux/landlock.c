/* SPDX-License-Identifier: MIT */
/* Landlock (Documentation/userspace-api/landlock.rst). Debian 12's kernel
 * headers stop at ABI 2, so the constants are defined in landlock.h. */
#include "landlock.h"
#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "etc-scan.h"
#include "plan.h"
#include "sys.h"

#define LANDLOCK_CREATE_RULESET_VERSION_FLAG (1U << 0)
#define LANDLOCK_RULE_PATH_BENEATH_TYPE 1
#define LANDLOCK_RULE_NET_PORT_TYPE 2
#define PLANNED_ETC_MAX 64 /* past these, an entry gets its rule (granted twice: harmless) */

struct ll_ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net;
        uint64_t scoped;
};

struct ll_path_beneath_attr {
        uint64_t allowed_access;
        int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
        uint64_t allowed_access;
        uint64_t port;
};

int landlock_abi(void)
{
        int abi = sys_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION_FLAG);
        return abi < 0 ? -errno : abi;
}

int landlock_abi_relied(int abi)
{
        const char *v = getenv(LANDLOCK_ABI_TEST_ENV);
        if (!v || abi < 1)
                return abi;
        char *end = NULL;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno != 0 || end == v || *end || n < 0 || n >= abi)
                return abi; /* never above the kernel's: it only narrows */
        return n == 0 ? -ENOSYS : (int)n;
}

const char *landlock_hint(int abi)
{
        if (abi == -EOPNOTSUPP)
                return "Landlock is built in but disabled: add \"landlock\" to the lsm= kernel parameter";
        if (abi == -ENOSYS)
                return "the kernel has no Landlock (needs Linux >= 5.13 with CONFIG_SECURITY_LANDLOCK)";
        return "Landlock is unavailable";
}

landlock_rights landlock_rights_for_abi(int abi)
{
        landlock_rights r = {0};
        if (abi < 1)
                return r;
        /* Each ABI adds rights; fall through from the newest known one. */
        switch (abi >= 9 ? 9 : abi) {
        case 9:
                r.fs |= LL_FS_RESOLVE_UNIX;
                /* fall through */
        case 8: /* ABI 8: a flag to restrict every thread (TSYNC) only */
        case 7: /* ABI 7 adds audit logging flags only */
        case 6:
                r.scoped |= LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
                /* fall through */
        case 5:
                r.fs |= LL_FS_IOCTL_DEV;
                /* fall through */
        case 4:
                r.net |= LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
                /* fall through */
        case 3:
                r.fs |= LL_FS_TRUNCATE;
                /* fall through */
        case 2:
                r.fs |= LL_FS_REFER;
                /* fall through */
        case 1:
                r.fs |= LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_REMOVE_DIR |
                        LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK |
                        LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM;
                break;
        default:
                break;
        }
        return r;
}

uint64_t landlock_fs_read(uint64_t handled) { return handled & (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR); }
uint64_t landlock_fs_write(uint64_t handled) { return handled; }

char *landlock_fs_names(uint64_t fs)
{
        static const char *const N[] = {"execute",   "write_file", "read_file",  "read_dir",  "remove_dir",
                                        "remove_file", "make_char", "make_dir",  "make_reg",  "make_sock",
                                        "make_fifo", "make_block", "make_sym",   "refer",     "truncate",
                                        "ioctl_dev", "resolve_unix"};
        buf b = {0};
        for (size_t i = 0; i < ARRAY_SIZE(N); i++)
                if (fs & (1ULL << i))
                        buf_printf(&b, "%s%s", b.len ? " " : "", N[i]);
        return buf_steal(&b);
}

int landlock_ruleset_new(const landlock_rights *rights)
{
        struct ll_ruleset_attr attr = {
                .handled_access_fs = rights->fs,
                .handled_access_net = rights->net,
                .scoped = rights->scoped,
        };
        /* Older kernels read only the fields they know; the size tells them. */
        size_t size = rights->scoped ? sizeof(attr) : rights->net ? 16 : 8;
        int fd = sys_landlock_create_ruleset(&attr, size, 0);
        return fd < 0 ? -errno : fd;
}

int landlock_allow_fd(int ruleset, int fd, uint64_t access, bool is_dir)
{
        struct ll_path_beneath_attr attr = {
                .allowed_access = is_dir ? access : access & LL_FS_FILE_RIGHTS,
                .parent_fd = fd,
        };
        if (!attr.allowed_access)
                return 0;
        return sys_landlock_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH_TYPE, &attr, 0) < 0 ? -errno : 0;
}

int landlock_allow_port(int ruleset, uint64_t port, uint64_t access)
{
        struct ll_net_port_attr attr = {.allowed_access = access, .port = port};
        return sys_landlock_add_rule(ruleset, LANDLOCK_RULE_NET_PORT_TYPE, &attr, 0) < 0 ? -errno : 0;
}

/* The linux backend's network "full" is the host's network namespace, and
 * its abstract unix sockets (a session bus, an X server, systemd's and
 * other daemons' sockets) are the host's: only Landlock's scope (ABI 6,
 * Linux 6.12) keeps the command from connecting to them. -EOPNOTSUPP
 * where it would run without that scope (the kernel's, or Landlock off). */
int landlock_full_network_check(const struct cordon_plan *p)
{
        if (p->backend != BACKEND_LINUX || p->network != CORDON_NETWORK_FULL)
                return 0;
        if (p->landlock == LANDLOCK_OFF)
                return -EOPNOTSUPP;
        return landlock_rights_for_abi(landlock_abi_relied(landlock_abi())).scoped ? 0 : -EOPNOTSUPP;
}

/* A bind of the plan's below /etc, by its name there. */
typedef struct etc_bind {
        const char *name;
        size_t len;
} etc_bind;

/* The plan's own binds of the host's /etc (a file or directory of the
 * list: resolv.conf, ssl, ...), by their names below /etc, into |out|
 * (room for |max|): their rules grant reading all of them already (the
 * list's binds are read-only; a writable one grants more). */
static size_t planned_etc(const struct cordon_plan *p, etc_bind *out, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; i < p->n_mounts && n < max; i++) {
                const plan_mount *m = &p->mounts[i];
                const char *t = m->target;
                if (m->type == MOUNT_BIND && !m->etc_view && strncmp(t, "/etc/", 5) == 0 && streq(m->source, t))
                        out[n++] = (etc_bind){t + 5, strlen(t + 5)};
        }
        return n;
}

/* Is /etc/|rel| at or below one of |binds|, which needs no rule of its
 * own? (Called for each line of the listing: the first byte rejects most.) */
static bool planned(const etc_bind *binds, size_t n, const char *rel)
{
        for (size_t i = 0; i < n; i++) {
                const etc_bind *b = &binds[i];
                if (b->len && rel[0] == b->name[0] && strncmp(rel, b->name, b->len) == 0 &&
                    (rel[b->len] == '\0' || rel[b->len] == '/'))
                        return true;
        }
        return false;
}

/* The rest of the host's /etc (the plan's |etc_view| mount): listing its
 * directories anywhere below it, reading what the listing holds (its "r"
 * lines: each largest subtree wholly in the view, the files of the
 * others; etc-scan.c), the same entries the linux backend copies. An entry
 * gone since it was listed gets no rule. The descriptors are closed
 * together (one call instead of one a rule where they are consecutive),
 * and those consecutive from the first are handed to the caller in
 * |keep| (landlock_backend_rules). */
static int etc_view_rules(const struct cordon_plan *p, int ruleset, const landlock_rights *ll, int keep[2],
                          cordon_error **ret_error)
{
        int view = p->instance_root ? etc_view_dir_open(p->instance_root) : -1;
        etc_tree t = {0};
        int r = etc_tree_get(view, ETC_RULES, &t);
        if (view >= 0)
                close(view);
        if (r < 0)
                return error_set(ret_error, -r, "cannot list /etc for its Landlock rules: %s", strerror(-r));
        _cleanup_close_ int etc = openat(AT_FDCWD, "/etc", O_PATH | O_DIRECTORY | O_CLOEXEC);
        r = etc < 0 ? -errno : landlock_allow_fd(ruleset, etc, ll->fs & LL_FS_READ_DIR, true);
        etc_bind binds[PLANNED_ETC_MAX];
        size_t n_binds = planned_etc(p, binds, PLANNED_ETC_MAX);
        int lo = -1, hi = -1;
        for (char *line = t.text; r == 0 && line && strncmp(line, "r\t", 2) == 0;) {
                char *rel = line + 2, *tab = strchr(rel, '\t'), *nl = tab ? strchr(tab, '\n') : NULL;
                if (!tab || !nl)
                        break;
                *tab = '\0';
                line = nl + 1;
                bool dir = tab[1] == 'd';
                if (streq(rel, ".")) {
                        r = landlock_allow_fd(ruleset, etc, landlock_fs_read(ll->fs), true);
                        continue;
                }
                if (planned(binds, n_binds, rel))
                        continue;
                int fd = openat(etc, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
                if (fd < 0)
                        continue;
                r = landlock_allow_fd(ruleset, fd, landlock_fs_read(ll->fs), dir);
                if (lo < 0 || fd == hi + 1) {
                        lo = lo < 0 ? fd : lo;
                        hi = fd;
                } else {
                        close(fd);
                }
        }
        if (lo >= 0 && r == 0 && keep[0] < 0) {
                keep[0] = lo;
                keep[1] = hi;
        } else if (lo >= 0 && sys_close_range((unsigned)lo, (unsigned)hi, 0) < 0) {
                for (int fd = lo; fd <= hi; fd++)
                        close(fd);
        }
        etc_tree_clear(&t);
        return r < 0 ? error_set(ret_error, -r, "Landlock rule for /etc: %s", strerror(-r)) : 0;
}

int landlock_backend_rules(const struct cordon_plan *p, int ruleset, const landlock_rights *ll,
                           supervise_root *roots, size_t *n_roots, int keep[2], cordon_error **ret_error)
{
        *n_roots = 0;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->type == MOUNT_BIND && m->etc_view) {
                        int r = etc_view_rules(p, ruleset, ll, keep, ret_error);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (m->type != MOUNT_BIND)
                        continue; /* symlinks need no rights: their targets have rules */
                int fd = openat(AT_FDCWD, m->source, O_PATH | O_CLOEXEC);
                if (fd < 0)
                        return error_set(ret_error, errno, "Landlock rule for %s: %s", m->source, strerror(errno));
                struct stat st;
                if (fstat(fd, &st) < 0) {
                        int e = errno;
                        close(fd);
                        return error_set(ret_error, e, "Landlock rule for %s: %s", m->source, strerror(e));
                }
                bool is_dir = S_ISDIR(st.st_mode);
                uint64_t access = m->writable ? landlock_fs_write(ll->fs) : landlock_fs_read(ll->fs);
                bool exposed = !m->writable && m->origin == ORIGIN_EXPOSE;
                if (exposed)
                        access |= ll->fs & LL_FS_RESOLVE_UNIX; /* ABI 9: its sockets, as below */
                /* devices (/dev/null) are writable, but their metadata is the host's */
                if (m->writable && (is_dir || S_ISREG(st.st_mode)))
                        roots[(*n_roots)++] = (supervise_root){st.st_dev, st.st_ino, is_dir, false};
                /* an explicit read-only exposure: its unix sockets, as the
                 * linux backend's bind mount shows them */
                else if (exposed && (is_dir || S_ISSOCK(st.st_mode)))
                        roots[(*n_roots)++] = (supervise_root){st.st_dev, st.st_ino, is_dir, true};
                int r = landlock_allow_fd(ruleset, fd, access, is_dir);
                close(fd);
                if (r < 0)
                        return error_set(ret_error, -r, "Landlock rule for %s: %s", m->source, strerror(-r));
        }
        return 0;
}

uint64_t landlock_terminal_access(const landlock_rights *ll)
{
        return ll->fs & (LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV);
}

int landlock_allow_terminal(int ruleset, const int stdio[3], bool own_pty, const landlock_rights *ll,
                            cordon_error **ret_error)
{
        uint64_t access = landlock_terminal_access(ll);
        bool any = own_pty;
        for (int i = 0; i < 3; i++) {
                if (stdio[i] < 0 || !isatty(stdio[i]))
                        continue;
                /* the rule is on the inode the descriptor holds: no path is
                 * resolved, so none can be swapped */
                int r = landlock_allow_fd(ruleset, stdio[i], access, false);
                if (r < 0)
                        return error_set(ret_error, -r, "Landlock rule for the terminal on fd %d: %s", i,
                                         strerror(-r));
                any = true;
        }
        if (!any)
                return 0;
        /* the controlling terminal: the command starts a new session, so it
         * is one it acquired itself, from the descriptors it was given, or
         * its own terminal (the caller's stays the ctty of the caller's
         * session: TIOCSCTTY refuses it without CAP_SYS_ADMIN) */
        int fd = openat(AT_FDCWD, "/dev/tty", O_PATH | O_CLOEXEC);
        if (fd < 0)
                return 0;
        int r = landlock_allow_fd(ruleset, fd, access, false);
        close(fd);
        return r < 0 ? error_set(ret_error, -r, "Landlock rule for /dev/tty: %s", strerror(-r)) : 0;
}
