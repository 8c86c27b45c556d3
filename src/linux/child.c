/* SPDX-License-Identifier: MIT */
/* The child side of the backends. Runs after clone() in a possibly
 * multi-threaded launcher's memory (shared with it, or a copy): only system
 * calls on memory prepared before the clone (struct launch); no malloc, no
 * stdio, no locks. Any failure is sent to the launcher as a child_report
 * and the command never runs.
 *
 * Both backends first arm the parent death signal, close every inherited
 * fd they do not use, check that the launcher did not die before that, and
 * wait for its "go" (see wait_for_launcher).
 *
 * linux backend, in order (minijail_enter's order):
 *   wait for the launcher (uid/gid maps written, cgroup joined) -> (a copy
 *   of the memory only:) scrub the launcher's argv/env, non-dumpable ->
 *   cgroup namespace -> "/" private -> new root on tmpfs, pivot_root -> the plan's
 *   mounts, parents first, Landlock rules as they go -> detach the old root
 *   -> root read-only -> loopback -> fork the command; the init stays as
 *   pid 1, reaps and forwards signals.
 * the command: new session -> stdio -> fds closed on exec -> cwd -> rlimits
 *   -> fresh session keyring -> drop capabilities -> no_new_privs ->
 *   Landlock -> signal mask -> seccomp (last: it cuts off the calls above)
 *   -> execve. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <linux/keyctl.h>
#include <linux/sockios.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "launch.h"
#include "libc-compat.h"
#include "netns.h"
#include "landlock.h"
#include "net/proxy.h"
#include "supervise.h"
#include "sys.h"

#define GENERATED_DIR "/.cordon-files"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

const char *child_step_name(child_step s)
{
        static const char *const N[] = {
                [STEP_NONE] = "setup",
                [STEP_SYNC] = "waiting for the launcher",
                [STEP_IDENTITY] = "setting the user identity",
                [STEP_HOSTNAME] = "setting the hostname",
                [STEP_PRIVATE] = "making the mount tree private",
                [STEP_ROOT] = "creating the root tmpfs",
                [STEP_PIVOT] = "pivot_root",
                [STEP_MOUNTPOINT] = "creating the mount point",
                [STEP_OPEN_SOURCE] = "opening the mount source",
                [STEP_SOURCE_CHANGED] = "checking the mount source (it changed since planning)",
                [STEP_BIND] = "bind-mounting",
                [STEP_READONLY] = "making a mount read-only",
                [STEP_TMPFS] = "mounting a tmpfs",
                [STEP_PROC] = "mounting /proc",
                [STEP_PROC_HARDEN] = "hardening /proc",
                [STEP_DEV] = "building /dev",
                [STEP_SYMLINK] = "creating a symlink",
                [STEP_FILE] = "writing a generated file",
                [STEP_DETACH_OLDROOT] = "detaching the old root",
                [STEP_NETNS] = "creating the network namespace",
                [STEP_PROXY] = "making the network proxy's listening socket",
                [STEP_LOOPBACK] = "bringing up the loopback interface",
                [STEP_FORK] = "starting the command process",
                [STEP_STDIO] = "setting up stdio",
                [STEP_PTY] = "making the sandbox's terminal (/dev/ptmx)",
                [STEP_CHDIR] = "changing to the working directory",
                [STEP_RLIMIT] = "setting a resource limit",
                [STEP_KEYRING] = "creating a session keyring",
                [STEP_CAPS] = "dropping capabilities",
                [STEP_NO_NEW_PRIVS] = "setting no_new_privs",
                [STEP_LANDLOCK] = "applying Landlock",
                [STEP_SECCOMP] = "installing the seccomp filter",
                [STEP_EXEC] = "executing the command",
                [STEP_EXE_CHANGED] = "checking the executable (it changed since planning)",
                [STEP_MOUNTPOINT_CHANGED] = "checking the mount point (it changed since planning)",
                [STEP_CGROUP] = "joining the cgroup",
                [STEP_SUBREAPER] = "becoming the supervisor of the process tree (a session of its own)",
                [STEP_SUPERVISE] = "handing the command's metadata and connect calls to the launcher",
                [STEP_PLACEHOLDERS] = "waiting for the placeholders of protected paths",
        };
        return (size_t)s < ARRAY_SIZE(N) && N[s] ? N[s] : "setup";
}

static double clock_s(void)
{
        struct timespec ts;
        return clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 : 0;
}

static void stamp(const launch *l, mark m)
{
        if (l->marks)
                l->marks->mark[m] = clock_s();
}

/* ---- reporting ------------------------------------------------------------------ */

static void report(const launch *l, child_step step, int err, const char *path)
{
        child_report r = {.step = step, .err = err};
        if (path)
                sys_strlcpy(r.path, path, sizeof(r.path));
        (void)!write(l->report_fd, &r, sizeof(r));
}

_Noreturn void fail(const launch *l, child_step step, int err, const char *path)
{
        report(l, step, err, path);
        _exit(125);
}

#if !SYS_RAW_AVAILABLE
long init_call(long nr, long a, long b, long c, long d)
{
        long r = syscall(nr, a, b, c, d);
        return r < 0 ? -errno : r;
}
#endif

/* "a" + "b" into |out| (PATH_MAX); false when too long. */
static bool concat(char *out, const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        if (la + lb + 1 > PATH_MAX)
                return false;
        memcpy(out, a, la);
        memcpy(out + la, b, lb);
        out[la + lb] = '\0';
        return true;
}

/* "/proc/self/fd/N" through the host's /proc under the old root: mounting
 * through the fd avoids resolving the target path a second time. */
static void fd_path(char *out, int fd)
{
        char digits[16];
        int n = 0;
        unsigned v = (unsigned)fd;
        do
                digits[n++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        size_t o = sys_strlcpy(out, OLDROOT "/proc/self/fd/", PATH_MAX);
        while (n > 0)
                out[o++] = digits[--n];
        out[o] = '\0';
}

/* ---- paths without following symlinks ------------------------------------------ */

/* The new root's fd and the last parent directory walked to: the plan's
 * mounts are sorted, so neighbours often share a parent (/etc/...), and
 * each system call counts at start-up. */
typedef struct walk_cache {
        int root;             /* "/" of the new root */
        int fd;               /* parent directory of the last walk, or -1 */
        char path[PATH_MAX];  /* its path */
} walk_cache;

/* The parent directory of |path| (an absolute, normalised path in the new
 * root), borrowed from |wc|: valid until the next call; do not close it. */
static int parent_dir(walk_cache *wc, const char *path, bool create, const char **last)
{
        const char *slash = strrchr(path, '/');
        size_t plen = slash ? (size_t)(slash - path) : 0;
        *last = slash ? slash + 1 : path;
        if (plen == 0)
                return wc->root;
        if (wc->fd >= 0 && strlen(wc->path) == plen && strncmp(wc->path, path, plen) == 0)
                return wc->fd;
        const char *ignored = NULL;
        int fd = sys_walk_parent(wc->root, path, create, &ignored);
        if (fd < 0)
                return -1;
        if (wc->fd >= 0)
                close(wc->fd);
        wc->fd = fd;
        memcpy(wc->path, path, plen);
        wc->path[plen] = '\0';
        return fd;
}

/* Something was mounted on |target|: a cached directory at or below it is
 * now covered. */
static void walk_cache_mounted(walk_cache *wc, const char *target)
{
        size_t n = strlen(target);
        if (wc->fd >= 0 && strncmp(wc->path, target, n) == 0 && (wc->path[n] == '\0' || wc->path[n] == '/')) {
                close(wc->fd);
                wc->fd = -1;
        }
}

/* Copy the last component into |name|. */
static bool last_name(char *name, const char *last)
{
        size_t len = strlen(last);
        while (len > 0 && last[len - 1] == '/')
                len--;
        if (len == 0 || len > NAME_MAX)
                return false;
        memcpy(name, last, len);
        name[len] = '\0';
        return true;
}

/* Make sure the mount point |target| exists (creating it when |create|: a
 * directory or an empty file); returns its parent directory (borrowed from
 * |wc|) and its name in |name|. */
static int mountpoint_parent(walk_cache *wc, const char *target, bool is_dir, bool create, char *name)
{
        const char *last = NULL;
        int dfd = parent_dir(wc, target, create, &last);
        if (dfd < 0)
                return -1;
        if (!last_name(name, last)) {
                errno = EINVAL;
                return -1;
        }
        if (create) {
                int r = is_dir ? mkdirat(dfd, name, 0755) : mknodat(dfd, name, S_IFREG | 0644, 0);
                if (r < 0 && errno != EEXIST)
                        return -1;
        }
        return dfd;
}

/* Open (creating when |create|) the mount point |target|. Returns an O_PATH
 * fd that is not a symlink. */
static int open_mountpoint(walk_cache *wc, const char *target, bool is_dir, bool create)
{
        char name[NAME_MAX + 1];
        int dfd = mountpoint_parent(wc, target, is_dir, create, name);
        if (dfd < 0)
                return -1;
        return openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (is_dir ? O_DIRECTORY : 0));
}

/* Open a bind source under the old root, refusing symlinks anywhere on the
 * way: a symlink swapped in after planning cannot redirect the mount. */
static int open_source(const char *source, bool is_dir)
{
        char path[PATH_MAX];
        if (!concat(path, OLDROOT, source)) {
                errno = ENAMETOOLONG;
                return -1;
        }
        return sys_open_nofollow(path, O_PATH | (is_dir ? O_DIRECTORY : 0));
}

/* ---- mounting ---------------------------------------------------------------------- */

static bool is_dir_fd(int fd)
{
        struct stat st;
        return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Flags a read-only remount must keep: a user namespace may not clear
 * nosuid/nodev/noexec/atime flags locked by a more privileged one. */
static unsigned long locked_flags(const char *path)
{
        struct statfs sf;
        if (statfs(path, &sf) < 0)
                return 0;
        static const struct {
                unsigned long st, ms;
        } MAP[] = {
                {ST_NOSUID, MS_NOSUID},   {ST_NODEV, MS_NODEV},         {ST_NOEXEC, MS_NOEXEC},
                {ST_NOATIME, MS_NOATIME}, {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME},
        };
        unsigned long flags = 0;
        for (size_t i = 0; i < ARRAY_SIZE(MAP); i++)
                if ((unsigned long)sf.f_flags & MAP[i].st)
                        flags |= MAP[i].ms;
        return flags;
}

/* Bind |src_fd| onto |tgt_fd| (which is at |tgt_path|) with |attr_set|
 * (MOUNT_ATTR_*), recursively when |recursive|. */
static int bind_fd(const launch *l, int src_fd, int tgt_fd, const char *tgt_path, uint64_t attr_set, bool recursive)
{
        if (!l->classic_mounts) {
                int tree = open_tree(src_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
                                                         (recursive ? AT_RECURSIVE : 0));
                if (tree < 0)
                        return -1;
                struct mount_attr attr = {.attr_set = attr_set, .propagation = MS_PRIVATE};
                int r = mount_setattr(tree, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &attr, sizeof(attr));
                if (r == 0)
                        r = move_mount(tree, "", tgt_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
                int e = errno;
                close(tree);
                errno = e;
                return r;
        }
        /* mount(2): read-only binds are not recursive here, so that no
         * writable submount comes along (only mount_setattr can make a
         * whole tree read-only). */
        char src[PATH_MAX], tgt[PATH_MAX];
        fd_path(src, src_fd);
        fd_path(tgt, tgt_fd);
        bool ro = attr_set & MOUNT_ATTR_RDONLY;
        if (mount(src, tgt, NULL, MS_BIND | (recursive && !ro ? MS_REC : 0), NULL) < 0)
                return -1;
        /* remount the new mount, now on top of the target path (the fd
         * still names the mount point underneath) */
        unsigned long flags = MS_BIND | MS_REMOUNT | (ro ? MS_RDONLY : 0) |
                              (attr_set & MOUNT_ATTR_NOSUID ? MS_NOSUID : 0) |
                              (attr_set & MOUNT_ATTR_NODEV ? MS_NODEV : 0) |
                              (attr_set & MOUNT_ATTR_NOEXEC ? MS_NOEXEC : 0) | locked_flags(tgt_path);
        return mount(NULL, tgt_path, NULL, flags, NULL);
}

/* New mount API: a detached copy of the tree at |path| under |dfd| ("" with
 * AT_EMPTY_PATH: |dfd| itself), with |attr_set|. One open_tree_attr (Linux
 * 6.15) where the kernel has it. */
static int clone_tree(const launch *l, int dfd, const char *path, unsigned flags, uint64_t attr_set)
{
        struct mount_attr attr = {.attr_set = attr_set, .propagation = MS_PRIVATE};
        flags |= OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC;
        if (l->have_open_tree_attr)
                return (int)syscall(SYS_open_tree_attr, dfd, path, flags, &attr, sizeof(attr));
        int tree = open_tree(dfd, path, flags);
        if (tree >= 0 && mount_setattr(tree, "", AT_EMPTY_PATH | (flags & AT_RECURSIVE), &attr, sizeof(attr)) < 0) {
                int e = errno;
                close(tree);
                errno = e;
                return -1;
        }
        return tree;
}

/* Attach |tree| (then closed) on |name| in |dfd|, not following a symlink
 * there. */
static int attach_tree(int tree, int dfd, const char *name)
{
        int r = move_mount(tree, "", dfd, name, MOVE_MOUNT_F_EMPTY_PATH);
        int e = errno;
        close(tree);
        errno = e;
        return r;
}

static void add_rule(const launch *l, int fd, uint64_t access, bool is_dir, const char *path)
{
        if (l->landlock_fd < 0 || !access)
                return;
        int r = landlock_allow_fd(l->landlock_fd, fd, access, is_dir);
        if (r < 0)
                fail(l, STEP_LANDLOCK, -r, path);
}

/* Add a rule for a path of the new root (after mounting on it). */
static void add_rule_path(const launch *l, const char *path, uint64_t access)
{
        if (l->landlock_fd < 0 || !access)
                return;
        int fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
        if (fd < 0)
                fail(l, STEP_LANDLOCK, errno, path);
        add_rule(l, fd, access, is_dir_fd(fd), path);
        close(fd);
}

/* A source inside a writable mount must still be what was planned: of the
 * planned type, and the planned inode when the plan saw one (the command,
 * or another sandbox on the same workspace, may have swapped it). */
static void check_source(const launch *l, const mount_op *op, int src)
{
        struct stat st;
        if (fstat(src, &st) < 0)
                fail(l, STEP_OPEN_SOURCE, errno, op->source);
        bool type_ok = op->is_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
        if (!type_ok || (op->ino && (st.st_dev != op->dev || st.st_ino != op->ino)))
                fail(l, STEP_SOURCE_CHANGED, ESTALE, op->source);
}

/* A mount point inside a host bind (opened with O_NOFOLLOW): not a link,
 * and of the source's type. */
static void check_mountpoint(const launch *l, const mount_op *op, int tgt)
{
        struct stat st;
        if (fstat(tgt, &st) < 0)
                fail(l, STEP_MOUNTPOINT, errno, op->target);
        if (S_ISLNK(st.st_mode) || (op->is_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
                fail(l, STEP_MOUNTPOINT_CHANGED, S_ISLNK(st.st_mode) ? ELOOP : ESTALE, op->target);
}

/* The source's type is checked by opening it (O_DIRECTORY for a
 * directory) and, for a file, by the mount itself: a directory cannot be
 * mounted on a file. Sources inside writable mounts, and mount points in
 * host directories, are checked in full, and the mount goes on the
 * descriptor checked. */
static void op_bind(const launch *l, walk_cache *wc, const mount_op *op, bool create, bool in_tmpfs)
{
        int src = open_source(op->source, op->is_dir);
        if (src < 0)
                fail(l, errno == ELOOP || errno == ENOTDIR ? STEP_SOURCE_CHANGED : STEP_OPEN_SOURCE, errno,
                     op->source);
        if (op->untrusted)
                check_source(l, op, src);
        uint64_t attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (op->writable ? 0 : MOUNT_ATTR_RDONLY);
        int r;
        if (l->classic_mounts || !in_tmpfs) {
                if (l->classic_mounts && is_dir_fd(src) != op->is_dir)
                        fail(l, STEP_SOURCE_CHANGED, op->is_dir ? ENOTDIR : EISDIR, op->source);
                int tgt = open_mountpoint(wc, op->target, op->is_dir, create);
                if (tgt < 0)
                        fail(l, errno == ELOOP || errno == ENOTDIR ? STEP_MOUNTPOINT_CHANGED : STEP_MOUNTPOINT,
                             errno, op->target);
                if (!in_tmpfs)
                        check_mountpoint(l, op, tgt);
                if (l->classic_mounts) {
                        r = bind_fd(l, src, tgt, op->target, attrs, true);
                } else {
                        int tree = clone_tree(l, src, "", AT_EMPTY_PATH | AT_RECURSIVE, attrs);
                        r = tree < 0 ? -1
                                     : move_mount(tree, "", tgt, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
                        int e = errno;
                        if (tree >= 0)
                                close(tree);
                        errno = e;
                }
                close(tgt);
        } else {
                char name[NAME_MAX + 1];
                int dfd = mountpoint_parent(wc, op->target, op->is_dir, create, name);
                if (dfd < 0)
                        fail(l, STEP_MOUNTPOINT, errno, op->target);
                int tree = clone_tree(l, src, "", AT_EMPTY_PATH | AT_RECURSIVE, attrs);
                r = tree < 0 ? -1 : attach_tree(tree, dfd, name);
                if (r < 0 && !op->is_dir && is_dir_fd(src))
                        fail(l, STEP_SOURCE_CHANGED, EISDIR, op->source);
        }
        if (r < 0)
                fail(l, STEP_BIND, errno, op->target);
        walk_cache_mounted(wc, op->target);
        add_rule(l, src, op->access, op->is_dir, op->source);
        close(src);
}

/* A system source (the host's /usr, /etc files, package databases;
 * never one inside a writable mount) attached in our tmpfs with the fewest
 * system calls: its parent directory is walked to under the old root
 * without following a symlink and kept for its neighbours in |swc|, and
 * the source itself is cloned by name without following one (a link put
 * there since planning would be mounted as a link, resolved inside the
 * sandbox; a directory planned as a file or the reverse fails to attach).
 * The Landlock rule goes on the clone, which is the source's inode. */
static void op_bind_system(const launch *l, walk_cache *wc, walk_cache *swc, const mount_op *op, bool create)
{
        const char *src_last = NULL;
        char src_name[NAME_MAX + 1], name[NAME_MAX + 1];
        int sdfd = parent_dir(swc, op->source, false, &src_last);
        if (sdfd < 0 || !last_name(src_name, src_last))
                fail(l, errno == ELOOP || errno == ENOTDIR ? STEP_SOURCE_CHANGED : STEP_OPEN_SOURCE,
                     sdfd < 0 ? errno : EINVAL, op->source);
        uint64_t attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (op->writable ? 0 : MOUNT_ATTR_RDONLY);
        int tree = clone_tree(l, sdfd, src_name, AT_SYMLINK_NOFOLLOW | AT_RECURSIVE, attrs);
        if (tree < 0)
                fail(l, STEP_OPEN_SOURCE, errno, op->source);
        int dfd = mountpoint_parent(wc, op->target, op->is_dir, create, name);
        if (dfd < 0)
                fail(l, STEP_MOUNTPOINT, errno, op->target);
        if (move_mount(tree, "", dfd, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
                fail(l, STEP_BIND, errno, op->target);
        walk_cache_mounted(wc, op->target);
        add_rule(l, tree, op->access, op->is_dir, op->source);
        close(tree);
}

/* mount(2) of a pseudo filesystem on a mount point opened without
 * following symlinks; with |older_data| when the kernel refuses |data|. */
static void mount_at_or(const launch *l, walk_cache *wc, child_step step, const char *target, bool create,
                        const char *fstype, unsigned long flags, const char *data, const char *older_data)
{
        int fd = open_mountpoint(wc, target, true, create);
        if (fd < 0)
                fail(l, STEP_MOUNTPOINT, errno, target);
        char path[PATH_MAX];
        fd_path(path, fd);
        int r = mount(fstype, path, fstype, flags, data);
        if (r < 0 && errno == EINVAL && older_data)
                r = mount(fstype, path, fstype, flags, older_data);
        if (r < 0)
                fail(l, step, errno, target);
        walk_cache_mounted(wc, target);
        close(fd);
}

static void mount_at(const launch *l, walk_cache *wc, child_step step, const char *target, bool create,
                     const char *fstype, unsigned long flags, const char *data)
{
        mount_at_or(l, wc, step, target, create, fstype, flags, data, NULL);
}

static void op_tmpfs(const launch *l, walk_cache *wc, const mount_op *op, bool create)
{
        unsigned long flags = MS_NOSUID | MS_NODEV | (op->writable ? 0 : MS_RDONLY);
        mount_at(l, wc, STEP_TMPFS, op->target, create, "tmpfs", flags, op->data);
        add_rule_path(l, op->target, op->access);
}

/* Read-only binds of parts of /proc onto themselves, and masks. */
static void harden_proc_classic(const launch *l, const char *proc)
{
        char path[PATH_MAX];
        for (size_t i = 0; PROC_READ_ONLY[i]; i++) {
                if (!concat(path, proc, "/") || !concat(path, path, PROC_READ_ONLY[i]))
                        fail(l, STEP_PROC_HARDEN, ENAMETOOLONG, proc);
                int fd = openat(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 && errno == ENOENT)
                        continue;
                if (fd < 0 || bind_fd(l, fd, fd, path,
                                      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                                      true) < 0)
                        fail(l, STEP_PROC_HARDEN, errno, path);
                close(fd);
        }
        int null = openat(AT_FDCWD, "/dev/null", O_PATH | O_CLOEXEC);
        for (size_t i = 0; PROC_MASKED[i]; i++) {
                if (!concat(path, proc, "/") || !concat(path, path, PROC_MASKED[i]))
                        fail(l, STEP_PROC_HARDEN, ENAMETOOLONG, proc);
                int fd = openat(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 && errno == ENOENT)
                        continue;
                if (fd < 0 || null < 0 ||
                    bind_fd(l, null, fd, path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, false) < 0)
                        fail(l, STEP_PROC_HARDEN, null < 0 ? ENOENT : errno, path);
                close(fd);
        }
        if (null >= 0)
                close(null);
}

/* The same with detached trees; missing entries are skipped. */
static void harden_proc(const launch *l, const char *proc)
{
        if (l->classic_mounts) {
                harden_proc_classic(l, proc);
                return;
        }
        int pfd = openat(AT_FDCWD, proc, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (pfd < 0)
                fail(l, STEP_PROC_HARDEN, errno, proc);
        for (size_t i = 0; PROC_READ_ONLY[i]; i++) {
                int tree = clone_tree(l, pfd, PROC_READ_ONLY[i], AT_SYMLINK_NOFOLLOW | AT_RECURSIVE,
                                      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
                if ((tree < 0 || attach_tree(tree, pfd, PROC_READ_ONLY[i]) < 0) && errno != ENOENT)
                        fail(l, STEP_PROC_HARDEN, errno, PROC_READ_ONLY[i]);
        }
        int null = openat(AT_FDCWD, "/dev/null", O_PATH | O_CLOEXEC);
        if (null < 0)
                fail(l, STEP_PROC_HARDEN, errno, "/dev/null");
        for (size_t i = 0; PROC_MASKED[i]; i++) {
                /* look first: closing a copy never attached is an unmount,
                 * which waits for an RCU grace period */
                struct stat st;
                if (fstatat(pfd, PROC_MASKED[i], &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
                        continue;
                int tree = clone_tree(l, null, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
                if (tree < 0 || attach_tree(tree, pfd, PROC_MASKED[i]) < 0)
                        fail(l, STEP_PROC_HARDEN, errno, PROC_MASKED[i]);
        }
        close(null);
        close(pfd);
}

static void op_proc(const launch *l, walk_cache *wc, const mount_op *op, bool create)
{
        /* hidepid=ptraceable: no process the reader could not ptrace, so
         * the command cannot see the init at all. Before Linux 5.8 only
         * hidepid=2, which exempts gid 0 (a root launcher's command). */
        mount_at_or(l, wc, STEP_PROC, op->target, create, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                    "hidepid=ptraceable", "hidepid=2");
        harden_proc(l, op->target);
        add_rule_path(l, op->target, op->access);
}

/* Bind the host's /dev/|name| on |name| in |dfd| (the new /dev at |dev|);
 * nothing when the host lacks it (some containers have no /dev/tty). */
static void bind_device(const launch *l, int dfd, const char *dev, const char *name)
{
        char src[PATH_MAX];
        if (!concat(src, OLDROOT "/dev/", name))
                fail(l, STEP_DEV, ENAMETOOLONG, name);
        const uint64_t attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC;
        int s = l->classic_mounts ? openat(AT_FDCWD, src, O_PATH | O_NOFOLLOW | O_CLOEXEC)
                                  : clone_tree(l, AT_FDCWD, src, AT_SYMLINK_NOFOLLOW, attrs);
        if (s < 0 && errno == ENOENT)
                return;
        if (s < 0 || mknodat(dfd, name, S_IFREG | 0666, 0) < 0)
                fail(l, STEP_DEV, errno, s < 0 ? src : name);
        if (!l->classic_mounts) {
                if (attach_tree(s, dfd, name) < 0)
                        fail(l, STEP_DEV, errno, src);
                return;
        }
        int t = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        char dst[PATH_MAX];
        if (!concat(dst, dev, "/") || !concat(dst, dst, name))
                fail(l, STEP_DEV, ENAMETOOLONG, name);
        if (t < 0 || bind_fd(l, s, t, dst, attrs, false) < 0)
                fail(l, STEP_DEV, errno, src);
        close(t);
        close(s);
}

/* A minimal /dev: a few host device nodes bound in (a user namespace
 * cannot mknod), links, a private devpts and /dev/shm. */
static void op_dev(const launch *l, walk_cache *wc, const mount_op *op, bool create)
{
        static const char *const DEVICES[] = {"null", "zero", "full", "random", "urandom", "tty"};
        static const struct {
                const char *name, *target;
        } LINKS[] = {
                {"fd", "/proc/self/fd"},         {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
                {"stderr", "/proc/self/fd/2"},    {"ptmx", "pts/ptmx"},         {"core", "/proc/kcore"},
        };
        mount_at(l, wc, STEP_DEV, op->target, create, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k");
        int dfd = openat(AT_FDCWD, op->target, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                fail(l, STEP_DEV, errno, op->target);
        for (size_t i = 0; i < ARRAY_SIZE(DEVICES); i++)
                bind_device(l, dfd, op->target, DEVICES[i]);
        for (size_t i = 0; i < ARRAY_SIZE(LINKS); i++)
                if (symlinkat(LINKS[i].target, dfd, LINKS[i].name) < 0)
                        fail(l, STEP_DEV, errno, LINKS[i].name);
        char path[PATH_MAX];
        if (!concat(path, op->target, "/pts"))
                fail(l, STEP_DEV, ENAMETOOLONG, op->target);
        mount_at(l, wc, STEP_DEV, path, true, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620");
        if (!concat(path, op->target, "/shm"))
                fail(l, STEP_DEV, ENAMETOOLONG, op->target);
        /* sized as /tmp is (--tmp-size, else a quarter of RAM): without
         * size= the kernel allows half of RAM, a second /tmp to fill */
        mount_at(l, wc, STEP_DEV, path, true, "tmpfs", MS_NOSUID | MS_NODEV,
                 l->tmp_opts ? l->tmp_opts : "mode=1777");
        close(dfd);
        add_rule_path(l, op->target, op->access);
}

static void op_symlink(const launch *l, walk_cache *wc, const mount_op *op)
{
        const char *last = NULL;
        char name[NAME_MAX + 1];
        int dfd = parent_dir(wc, op->target, true, &last);
        if (dfd < 0 || !last_name(name, last) || symlinkat(op->data, dfd, name) < 0)
                fail(l, STEP_SYMLINK, errno ? errno : EINVAL, op->target);
}

/* A generated file. In our own tmpfs it is written in place; over a host
 * bind it is written in a scratch directory of the root tmpfs and bound on
 * top, so nothing is written to the host. */
static void op_file(const launch *l, walk_cache *wc, const mount_op *op, bool in_tmpfs)
{
        const char *last = NULL;
        char name[NAME_MAX + 1];
        int dfd = parent_dir(wc, in_tmpfs ? op->target : GENERATED_DIR "/x", true, &last);
        if (dfd < 0 || !last_name(name, in_tmpfs ? last : op->target + 1))
                fail(l, STEP_FILE, errno ? errno : EINVAL, op->target);
        if (!in_tmpfs) /* flatten the target into one scratch file name */
                for (char *c = name; *c; c++)
                        if (*c == '/')
                                *c = '_';
        int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                fail(l, STEP_FILE, errno, op->target);
        if (!sys_write_all(fd, op->data, op->data_len))
                fail(l, STEP_FILE, errno, op->target);
        close(fd);
        int src = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (src < 0)
                fail(l, STEP_FILE, errno, op->target);
        if (!in_tmpfs) {
                /* the bind keeps the file: drop its scratch name first
                 * (|dfd| is borrowed from the walk cache) */
                unlinkat(dfd, name, 0);
                int tgt = open_mountpoint(wc, op->target, false, false);
                if (tgt < 0 || bind_fd(l, src, tgt, op->target,
                                       MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, false) < 0)
                        fail(l, STEP_FILE, errno, op->target);
                close(tgt);
        }
        add_rule(l, src, op->access, false, op->target);
        close(src);
}

/* The launcher makes the placeholders of protected paths while we mount
 * (a thread of its own): "p" once they and the git check's journal are
 * there, anything else a failure it reports itself. */
static void await_placeholders(const launch *l)
{
        char c = 0;
        long n;
        do
                n = INIT_CALL(SYS_read, l->placeholders_fd, &c, 1, 0);
        while (n == -EINTR);
        if (n != 1 || c != 'p')
                fail(l, STEP_PLACEHOLDERS, ECANCELED, NULL);
        INIT_CALL(SYS_close, l->placeholders_fd, 0, 0, 0);
}

static void apply_ops(const launch *l)
{
        bool awaited = l->placeholders_fd < 0;
        walk_cache wc = {.root = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC), .fd = -1};
        if (wc.root < 0)
                fail(l, STEP_ROOT, errno, "/");
        /* the system sources' parents, under the old root */
        walk_cache swc = {.root = openat(AT_FDCWD, OLDROOT, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), .fd = -1};
        if (swc.root < 0)
                fail(l, STEP_OPEN_SOURCE, errno, OLDROOT);
        double t = l->marks ? clock_s() : 0;
        for (size_t i = 0; i < l->n_ops; i++) {
                const mount_op *op = &l->ops[i];
                const mount_op *parent = op->parent >= 0 ? &l->ops[op->parent] : NULL;
                /* Mount points are created only in our tmpfs, or in a host
                 * bind where the plan allowed it (instance root, workspace). */
                bool in_tmpfs = !parent || parent->kind != OP_BIND;
                bool create = in_tmpfs || parent->host_mkdir_ok;
                if (op->placeholder && !awaited) {
                        await_placeholders(l);
                        awaited = true;
                }
                switch (op->kind) {
                case OP_BIND:
                        if (op->group == GROUP_SYSTEM && !op->untrusted && in_tmpfs && !l->classic_mounts)
                                op_bind_system(l, &wc, &swc, op, create);
                        else
                                op_bind(l, &wc, op, create, in_tmpfs);
                        break;
                case OP_TMPFS: op_tmpfs(l, &wc, op, create); break;
                case OP_PROC: op_proc(l, &wc, op, create); break;
                case OP_DEV: op_dev(l, &wc, op, create); break;
                case OP_SYMLINK: op_symlink(l, &wc, op); break;
                case OP_FILE: op_file(l, &wc, op, in_tmpfs); break;
                default: break;
                }
                if (l->marks) {
                        double now = clock_s();
                        l->marks->group[op->group] += now - t;
                        t = now;
                }
        }
        if (!awaited) /* before the command, whatever the plan's order */
                await_placeholders(l);
        if (wc.fd >= 0)
                close(wc.fd);
        if (swc.fd >= 0)
                close(swc.fd);
        close(wc.root);
        close(swc.root);
}

/* The new root: a tmpfs attached at |base_dir| and pivoted to, with the old
 * root kept at OLDROOT until the mounts are done. */
static void enter_new_root(const launch *l)
{
        /* Private: nothing we mount propagates back to the host. */
        CHECK(l, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), STEP_PRIVATE, "/");
        CHECK(l, mount("tmpfs", l->base_dir, "tmpfs", MS_NOSUID | MS_NODEV, l->tmpfs_opts), STEP_ROOT, l->base_dir);
        CHECK(l, chdir(l->base_dir), STEP_ROOT, l->base_dir);
        CHECK(l, mkdir(OLDROOT_NAME, 0700), STEP_ROOT, OLDROOT);
        CHECK(l, sys_pivot_root(".", OLDROOT_NAME), STEP_PIVOT, l->base_dir);
        CHECK(l, chdir("/"), STEP_PIVOT, "/");
}

static void remount_ro(const launch *l, const char *path)
{
        if (!l->classic_mounts) {
                struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
                if (mount_setattr(AT_FDCWD, path, 0, &attr, sizeof(attr)) == 0)
                        return;
                if (errno != ENOSYS)
                        fail(l, STEP_READONLY, errno, path);
        }
        CHECK(l, mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL),
              STEP_READONLY, path);
}

static void finish_root(const launch *l)
{
        /* The old root goes: after this nothing of the host is reachable
         * except through the binds. */
        CHECK(l, umount2(OLDROOT, MNT_DETACH), STEP_DETACH_OLDROOT, OLDROOT);
        CHECK(l, rmdir(OLDROOT), STEP_DETACH_OLDROOT, OLDROOT);
        if (rmdir(GENERATED_DIR) < 0 && errno != ENOENT)
                fail(l, STEP_FILE, errno, GENERATED_DIR);
        add_rule_path(l, "/", l->access_root);
        remount_ro(l, "/");
        for (size_t i = 0; i < l->n_ops; i++)
                if (l->ops[i].kind == OP_DEV)
                        remount_ro(l, l->ops[i].target);
}

/* ---- descriptors over a socket ------------------------------------------------- */

void fd_message_init(fd_message *fm, int fd)
{
        memset(fm, 0, sizeof(*fm));
        fm->byte = 'F';
        fm->iov = (struct iovec){&fm->byte, 1};
        fm->m = (struct msghdr){.msg_iov = &fm->iov, .msg_iovlen = 1, .msg_control = fm->u.buf,
                                .msg_controllen = sizeof(fm->u.buf)};
        struct cmsghdr *h = CMSG_FIRSTHDR(&fm->m);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &fd, sizeof(fd));
}

/* ---- the command ------------------------------------------------------------------ */

static void reset_signals(void);

static void install_stdio(const launch *l)
{
        int tmp[3];
        /* Move the sources out of the way first: they may be 0..2 in any order. */
        for (int i = 0; i < 3; i++) {
                tmp[i] = l->stdio[i] < 0 ? -1 : sys_dup_cloexec(l->stdio[i], 10);
                if (l->stdio[i] >= 0 && tmp[i] < 0)
                        fail(l, STEP_STDIO, errno, NULL);
        }
        for (int i = 0; i < 3; i++)
                if (tmp[i] >= 0 && dup2(tmp[i], i) < 0)
                        fail(l, STEP_STDIO, errno, NULL);
        for (int i = 0; i < 3; i++)
                if (tmp[i] >= 0)
                        close(tmp[i]);
}

/* The command's own terminal, from the sandbox's devpts (the landlock
 * backend's: the host's, a new pair): its controlling terminal on the fds
 * marked in l->pty, its master sent to the launcher, which relays; |ws|:
 * the caller's window size, or NULL. The command never holds the caller's
 * terminal, so it cannot change its settings nor size for good, and a
 * TIOCSTI on it reaches only this terminal. */
static void open_terminal(const launch *l, const struct winsize *ws)
{
        int master = openat(AT_FDCWD, "/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0)
                fail(l, STEP_PTY, errno, "/dev/ptmx");
        int unlock = 0;
        CHECK(l, ioctl(master, TIOCSPTLCK, &unlock), STEP_PTY, "/dev/ptmx");
        int slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (slave < 0)
                fail(l, STEP_PTY, errno, "/dev/ptmx");
        CHECK(l, ioctl(slave, TIOCSCTTY, 0), STEP_PTY, NULL);
        /* the landlock backend: its own terminal also by name (/dev/pts/N,
         * which ttyname gives), no other */
        if (l->backend == BACKEND_LANDLOCK && l->landlock_fd >= 0) {
                int r = landlock_allow_fd(l->landlock_fd, slave, l->access_pty, false);
                if (r < 0)
                        fail(l, STEP_PTY, -r, "Landlock rule for the terminal");
        }
        if (ws)
                ioctl(slave, TIOCSWINSZ, ws);
        for (int i = 0; i < 3; i++)
                if (l->pty[i] && dup2(slave, i) < 0)
                        fail(l, STEP_PTY, errno, NULL);
        if (slave > 2)
                close(slave);
        fd_message fm;
        fd_message_init(&fm, master);
        if (sendmsg(l->pty_fd, &fm.m, MSG_NOSIGNAL) < 0)
                fail(l, STEP_PTY, errno, NULL);
        close(master);
        close(l->pty_fd);
}

/* Every fd above 2 is closed on exec (the report pipe must live until exec). */
static void close_on_exec_above_2(const launch *l)
{
        if (sys_close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
                return;
        for (int fd = 3; fd < 65536; fd++)
                if (fd != l->report_fd)
                        close(fd);
}

static void drop_capabilities(const launch *l)
{
        bool privileged = l->backend == BACKEND_LINUX || l->uid == 0;
        /* capabilities are numbered densely: EINVAL marks the end */
        for (int c = 0; c <= l->cap_last; c++)
                if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
                        if (errno == EINVAL)
                                break;
                        if (privileged)
                                fail(l, STEP_CAPS, errno, "bounding set");
                }
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                fail(l, STEP_CAPS, errno, "ambient set");
        /* uid 0 must not regain capabilities on execve */
        if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                             SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
                  0, 0, 0) < 0 &&
            privileged)
                fail(l, STEP_CAPS, errno, "securebits");
        struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct data[2] = {{0}};
        if (syscall(SYS_capset, &hdr, data) < 0)
                fail(l, STEP_CAPS, errno, "capset");
}

/* The executable lies inside a writable mount, where another sandbox may
 * swap it: open it, check it is the inode planned, and execute that
 * descriptor (a script is reopened by name by the kernel: only the check). */
static void exec_planned_inode(const launch *l)
{
        struct stat st;
        int fd = openat(AT_FDCWD, l->exe, O_PATH | O_CLOEXEC);
        if (fd < 0) {
                int e = errno;
                report(l, STEP_EXEC, e, l->exe);
                _exit(e == ENOENT ? 127 : 126);
        }
        if (fstat(fd, &st) < 0 || st.st_dev != l->exe_dev || st.st_ino != l->exe_ino || !S_ISREG(st.st_mode))
                fail(l, STEP_EXE_CHANGED, ESTALE, l->exe);
        if (!l->exe_by_fd) {
                close(fd);
                return;
        }
        syscall(SYS_execveat, fd, "", l->argv, l->envp, AT_EMPTY_PATH);
        int e = errno;
        report(l, STEP_EXEC, e, l->exe);
        _exit(e == ENOENT ? 127 : 126);
}

/* The landlock backend: the filter whose calls the launcher performs (or
 * refuses), and its listener sent to the launcher. Last before execve:
 * nothing here makes such a call. */
static void hand_over_calls(const launch *l)
{
        int fd = supervise_install(&l->supervise);
        if (fd < 0)
                fail(l, STEP_SUPERVISE, -fd, NULL);
        fd_message fm;
        fd_message_init(&fm, fd);
        if (sendmsg(l->supervise_fd, &fm.m, MSG_NOSIGNAL) < 0)
                fail(l, STEP_SUPERVISE, errno, NULL);
        close(fd);
}

_Noreturn static void exec_command(const launch *l)
{
        /* handlers die at execve, but ignored signals stay ignored */
        reset_signals();
        if (l->backend == BACKEND_LINUX || l->backend == BACKEND_LANDLOCK)
                if (setsid() < 0)
                        fail(l, STEP_STDIO, errno, "setsid");
        /* read before install_stdio may replace it */
        struct winsize ws;
        bool have_ws = l->pty_size_fd >= 0 && ioctl(l->pty_size_fd, TIOCGWINSZ, &ws) == 0;
        install_stdio(l);
        if (l->pty_fd >= 0)
                open_terminal(l, have_ws ? &ws : NULL);
        close_on_exec_above_2(l);
        CHECK(l, chdir(l->cwd), STEP_CHDIR, l->cwd);
        for (size_t i = 0; i < l->n_rlimits; i++)
                CHECK(l, setrlimit(l->rlimits[i].resource, &l->rlimits[i].limit), STEP_RLIMIT, NULL);
        /* Leave the launcher's session keyring behind; where the keyring
         * calls are refused from outside, the command cannot reach one either. */
        if (l->new_keyring && syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS) {
                int e = errno;
                if (e != EPERM || !sys_keyrings_refused())
                        fail(l, STEP_KEYRING, e, NULL);
        }
        /* landlock backend, as root: an IPC namespace of its own, so that
         * /proc/sysvipc lists none of the host's objects (a user cannot:
         * EPERM, and /proc/sysvipc shows the host's keys, cordon check says) */
        if (l->backend == BACKEND_LANDLOCK)
                (void)unshare(CLONE_NEWIPC);
        if (l->backend != BACKEND_NONE) {
                drop_capabilities(l);
                CHECK(l, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), STEP_NO_NEW_PRIVS, NULL);
        }
        stamp(l, MARK_CAPS);
        if (l->landlock_fd >= 0 && sys_landlock_restrict_self(l->landlock_fd, 0) < 0)
                fail(l, STEP_LANDLOCK, errno, NULL);
        stamp(l, MARK_LANDLOCK);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (l->seccomp.filter) {
                int r = seccomp_install(&l->seccomp);
                if (r < 0)
                        fail(l, STEP_SECCOMP, -r, NULL);
        }
        if (l->supervise.filter)
                hand_over_calls(l);
        stamp(l, MARK_SECCOMP);
        stamp(l, MARK_EXEC);
        if (l->exe_check)
                exec_planned_inode(l);
        execve(l->exe, l->argv, l->envp);
        int e = errno;
        report(l, STEP_EXEC, e, l->exe);
        _exit(e == ENOENT ? 127 : 126);
}

static int command_main(void *arg)
{
        const launch *l = arg;
        stamp(l, MARK_FORKED);
        exec_command(l);
}

/* ---- the init --------------------------------------------------------------------- */

/* The hexadecimal mask after |key| in /proc/self/status, or ~0 when it
 * cannot be read (then every signal is reset). */
static uint64_t status_mask(const char *status, const char *key)
{
        const char *p = strstr(status, key);
        if (!p)
                return ~0ULL;
        uint64_t v = 0;
        for (p += strlen(key); *p == '\t' || *p == ' '; p++)
                ;
        for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
                v = v * 16 + (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
        return v;
}

/* Default dispositions for every signal the launcher caught or ignored:
 * ignored ones survive execve, and a caught one must not run the
 * launcher's handler here once the mask is cleared. Reading the masks
 * saves some sixty sigaction calls. */
static void reset_signals(void)
{
        char status[4096];
        uint64_t mask = ~0ULL;
        int fd = openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, status, sizeof(status) - 1) : -1;
        if (fd >= 0)
                close(fd);
        if (n > 0) {
                status[n] = '\0';
                mask = status_mask(status, "SigIgn:") | status_mask(status, "SigCgt:");
        }
        /* the raw call: glibc's sigaction() refuses its own internal
         * signals (32, 33), which a launcher may have left ignored */
        struct {
                void (*handler)(int);
                unsigned long flags;
                void (*restorer)(void);
                uint64_t mask;
        } dfl = {.handler = SIG_DFL};
        for (int s = 1; s < _NSIG; s++)
                if (s != SIGKILL && s != SIGSTOP && (mask & (1ULL << (s - 1))))
                        syscall(SYS_rt_sigaction, s, &dfl, NULL, sizeof(dfl.mask));
}

/* Remove the launcher's arguments and environment from our copy of its
 * memory: /proc/1/cmdline and /proc/1/environ read them from here. */
static void scrub_launcher_memory(const launch *l)
{
        if (l->arg_end > l->arg_start) {
                memset((void *)l->arg_start, 0, l->arg_end - l->arg_start);
                if (l->arg_end - l->arg_start > sizeof("cordon-init"))
                        memcpy((void *)l->arg_start, "cordon-init", sizeof("cordon-init"));
        }
        if (l->env_end > l->env_start)
                memset((void *)l->env_start, 0, l->env_end - l->env_start);
}

/* Close every inherited fd but the ones in l->keep_fds (and 0..2). Raw
 * calls: the launcher is running meanwhile, and may share our errno. */
static void close_inherited(const launch *l)
{
        unsigned from = 3;
        for (size_t i = 0; i < ARRAY_SIZE(l->keep_fds) && l->keep_fds[i] >= 0; i++) {
                unsigned k = (unsigned)l->keep_fds[i];
                if (k > from)
                        INIT_CALL(SYS_close_range, from, k - 1, 0, 0);
                if (k + 1 > from)
                        from = k + 1;
        }
        if (INIT_CALL(SYS_close_range, from, ~0U, 0, 0) < 0)
                for (unsigned fd = from; fd < 65536; fd++)
                        INIT_CALL(SYS_close, fd, 0, 0, 0);
}

/* Nothing may outlive the launcher, whenever it dies (a SIGKILL at any
 * instant included). Three things together close every gap:
 *  - the parent death signal, armed first: from here on the death of the
 *    launcher's thread (the one that cloned us; the library documents that
 *    the sandbox dies with it) kills us;
 *  - the go pipe: we keep only its read end, so a launcher process that
 *    dies before "go" is an EOF here, not a wait forever;
 *  - a look at the launcher's thread, through a descriptor of its /proc
 *    directory opened before the clone, for a death before the signal was
 *    armed (the launcher may even have sent "go" and died before we ran;
 *    in a new pid namespace getppid() cannot tell). The kernel marks a
 *    thread exiting before it hands its children to a new parent, and
 *    sends the signal when it does, so one of the two always sees it.
 * Raw system calls: the launcher's thread is running meanwhile. */
static void wait_for_launcher(const launch *l)
{
        INIT_CALL(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
        close_inherited(l);
        if (l->launcher_fd >= 0) {
                bool gone = sys_task_gone(l->launcher_fd);
                INIT_CALL(SYS_close, l->launcher_fd, 0, 0, 0);
                if (gone)
                        INIT_CALL(SYS_exit_group, 125, 0, 0, 0);
        }
        char go = 0;
        long n;
        do
                n = INIT_CALL(SYS_read, l->go_fd, &go, 1, 0);
        while (n == -EINTR);
        if (n != 1)
                INIT_CALL(SYS_exit_group, 125, 0, 0, 0); /* the launcher is gone */
        INIT_CALL(SYS_close, l->go_fd, 0, 0, 0);
}

/* What the init still needs once the launcher knows the command started:
 * from then on the launch struct may be gone (it lives in the launcher). */
typedef struct init_state {
        sigset_t signals; /* to forward, plus SIGCHLD and the broadcast one */
        int broadcast_signal;
        int status_fd;
        pid_t cmd;
        /* the landlock backend's supervisor (not a pid 1): its own pid, and
         * its real-time signals for the launcher's death and for "send
         * ssi_int to the command"; 0 in the linux backend's init */
        pid_t self;
        int death_signal, command_signal;
} init_state;

/* ---- the landlock backend's supervisor: the process tree without a pid
 * namespace ---------------------------------------------------------------------
 *
 * The supervisor is a child subreaper: every process the command starts
 * stays its descendant, whatever it does (double fork, setsid), as
 * orphans are handed to it. So "the sandbox" is the processes whose chain
 * of parents leads to it, read from /proc; kill(-1) would be every process
 * of the user on the host. */

/* The parent of |pid| from /proc/PID/stat, or -1. */
static pid_t read_ppid(int procfd, pid_t pid)
{
        char path[24], st[512];
        char digits[12];
        int n = 0;
        unsigned v = (unsigned)pid;
        do
                digits[n++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        size_t o = 0;
        while (n > 0)
                path[o++] = digits[--n];
        memcpy(path + o, "/stat", sizeof("/stat"));
        long fd = INIT_CALL(SYS_openat, procfd, path, O_RDONLY | O_CLOEXEC, 0);
        if (fd < 0)
                return -1;
        long len = INIT_CALL(SYS_read, fd, st, sizeof(st) - 1, 0);
        INIT_CALL(SYS_close, fd, 0, 0, 0);
        if (len <= 0)
                return -1;
        st[len] = '\0';
        /* "pid (comm) S ppid ...": the comm may hold anything */
        const char *p = strrchr(st, ')');
        if (!p || !p[1] || !p[2] || !p[3])
                return -1;
        long ppid = 0;
        for (p += 4; *p >= '0' && *p <= '9'; p++)
                ppid = ppid * 10 + (*p - '0');
        return (pid_t)ppid;
}

static bool is_descendant(int procfd, pid_t pid, pid_t self)
{
        for (int depth = 0; depth < 4096 && pid > 1 && pid != self; depth++) {
                pid_t ppid = read_ppid(procfd, pid);
                if (ppid == self)
                        return true;
                pid = ppid;
        }
        return false;
}

/* Send |sig| to every descendant of |self|. Each is pinned by a pidfd
 * before its ancestry is checked: a number reused meanwhile is another
 * process, which the pidfd does not name. Returns how many it signalled. */
static int signal_descendants(pid_t self, int sig)
{
        long procfd = INIT_CALL(SYS_openat, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        if (procfd < 0)
                return 0;
        char dents[4096] __attribute__((aligned(8))) = {0}; /* filled by the kernel */
        long n;
        int count = 0;
        while ((n = INIT_CALL(SYS_getdents64, procfd, dents, sizeof(dents), 0)) > 0)
                for (long off = 0; off < n;) {
                        struct {
                                uint64_t ino;
                                int64_t off;
                                unsigned short reclen;
                                unsigned char type;
                                char name[];
                        } *d = (void *)(dents + off);
                        if (d->reclen == 0)
                                break;
                        off += d->reclen;
                        pid_t pid = 0;
                        const char *c = d->name;
                        for (; *c >= '0' && *c <= '9'; c++)
                                pid = pid * 10 + (*c - '0');
                        if (*c || pid <= 1 || pid == self)
                                continue;
                        long pidfd = INIT_CALL(SYS_pidfd_open, pid, 0, 0, 0);
                        if (is_descendant((int)procfd, pid, self)) {
                                if (pidfd >= 0)
                                        INIT_CALL(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
                                else if (pidfd == -ENOSYS) /* Linux < 5.3 */
                                        INIT_CALL(SYS_kill, pid, sig, 0, 0);
                                count++;
                        }
                        if (pidfd >= 0)
                                INIT_CALL(SYS_close, pidfd, 0, 0, 0);
                }
        INIT_CALL(SYS_close, procfd, 0, 0, 0);
        return count;
}

/* Kill every descendant and reap them all: SIGKILL to what the walk
 * finds, until no child is left (a process forked during one walk is
 * found by the next, its parent being dead or dying). */
static void kill_descendants(pid_t self)
{
        for (;;) {
                signal_descendants(self, SIGKILL);
                long r;
                while ((r = INIT_CALL(SYS_wait4, -1, NULL, 0, NULL)) == -EINTR)
                        ;
                while (r > 0)
                        r = INIT_CALL(SYS_wait4, -1, NULL, WNOHANG, NULL);
                if (r == -ECHILD)
                        return;
        }
}

/* Every process of the sandbox. */
static void signal_sandbox(const init_state *s, int sig)
{
        if (s->self)
                signal_descendants(s->self, sig);
        else
                INIT_CALL(SYS_kill, -1, sig, 0, 0);
}

/* Reap everything; when the command ends, kill what is left and report. */
_Noreturn static void init_loop(const init_state *s)
{
        /* the kernel's signal set is the first _NSIG / 8 bytes of sigset_t */
        int sfd = (int)INIT_CALL(SYS_signalfd4, -1, &s->signals, _NSIG / 8, SFD_CLOEXEC);
        init_status st = {0};
        bool done = false;
        long last = 0; /* wait4's last result */
        while (!done) {
                struct signalfd_siginfo si = {0};
                long n = sfd >= 0 ? INIT_CALL(SYS_read, sfd, &si, sizeof(si), 0) : -1;
                if (n != (long)sizeof(si)) {
                        if (n == -EINTR)
                                continue;
                        si.ssi_signo = SIGCHLD; /* no signalfd: just reap */
                }
                if ((int)si.ssi_signo == s->broadcast_signal) {
                        signal_sandbox(s, si.ssi_int);
                        continue;
                }
                if (s->self && (int)si.ssi_signo == s->death_signal) {
                        kill_descendants(s->self); /* the launcher died: so does the sandbox */
                        for (;;)
                                INIT_CALL(SYS_exit_group, 125, 0, 0, 0);
                }
                if (s->self && (int)si.ssi_signo == s->command_signal) {
                        INIT_CALL(SYS_kill, s->cmd, si.ssi_int, 0, 0);
                        continue;
                }
                if (si.ssi_signo != SIGCHLD) {
                        INIT_CALL(SYS_kill, s->cmd, si.ssi_signo, 0, 0);
                        continue;
                }
                int status = 0; /* written by the kernel */
                while ((last = INIT_CALL(SYS_wait4, -1, &status, sfd >= 0 ? WNOHANG : 0, NULL)) > 0)
                        if (last == s->cmd) {
                                st.wait_status = status;
                                done = true;
                        }
        }
        /* The command is gone: nothing else may outlive it. Every process
         * of the sandbox is our descendant, so with no child left (ECHILD)
         * there is none to kill (kill(-1) walks all of the host's; it is
         * the pid namespace's only for the init). */
        if (last != -ECHILD && s->self)
                kill_descendants(s->self);
        else if (last != -ECHILD) {
                INIT_CALL(SYS_kill, -1, SIGKILL, 0, 0);
                while ((last = INIT_CALL(SYS_wait4, -1, NULL, 0, NULL)) > 0 || last == -EINTR)
                        ;
        }
        struct rusage ru = {0};
        if (INIT_CALL(SYS_getrusage, RUSAGE_CHILDREN, &ru, 0, 0) == 0) {
                st.max_rss_kb = ru.ru_maxrss;
                st.user_us = ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec;
                st.sys_us = ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec;
        }
        /* The launcher learns the result from this record; our own exit
         * (tearing down the namespaces) overlaps with its work. */
        INIT_CALL(SYS_write, s->status_fd, &st, sizeof(st), 0);
        for (;;)
                INIT_CALL(SYS_exit_group, 0, 0, 0, 0);
}

/* The init's own identity and namespaces, then the view, sealed. */
static void init_prepare(const launch *l)
{
        /* A copy of the launcher's memory (not shared with it): no trace of
         * its arguments and environment, non-dumpable. A shared one is the
         * launcher's own; either way the command cannot ptrace us, nor see
         * /proc/1 (we keep capabilities it has not: hidepid), so neither
         * /proc/1/mem, /proc/1/environ nor /proc/1/exe (CVE-2019-5736). */
        if (!l->shared_memory) {
                scrub_launcher_memory(l);
                prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        }
        prctl(PR_SET_NAME, "cordon-init", 0, 0, 0);
        /* The raw system call: glibc's setgroups() in a multi-threaded
         * process signals every other thread (__nptl_setxid) and waits for
         * them under a lock; they are not ours (in a copy of the launcher
         * they do not even exist, and the lock may have been held at clone
         * time: a deadlock). */
        if (l->drop_groups)
                CHECK(l, (int)syscall(SYS_setgroups, 0, NULL), STEP_IDENTITY, NULL);
        netns_job netns;
        bool netns_helped = l->new_netns && netns_start(l, &netns);
        if (l->new_netns && !netns_helped)
                CHECK(l, unshare(CLONE_NEWNET), STEP_NETNS, NULL);
        /* After the launcher placed us in our cgroup: that becomes our root. */
        CHECK(l, unshare(CLONE_NEWCGROUP), STEP_IDENTITY, "cgroup namespace");
        CHECK(l, sethostname(l->hostname, strlen(l->hostname)), STEP_HOSTNAME, l->hostname);
        stamp(l, MARK_UNSHARED);
        enter_new_root(l);
        stamp(l, MARK_ROOT);
        apply_ops(l);
        stamp(l, MARK_MOUNTS);
        finish_root(l);
        if (netns_helped)
                netns_join(l, &netns);
        else if (l->loopback)
                init_loopback_up(l);
        if (l->proxy_fd >= 0)
                send_proxy_listener(l);
        stamp(l, MARK_SEALED);
}

/* The command shares the init's memory until execve (CLONE_VM |
 * CLONE_VFORK, as posix_spawn does), on a stack prepared by the launcher:
 * no page tables to copy, and it only makes system calls on prepared data.
 * The init waits until the command executed (going on at once is slower:
 * both then share one CPU). */
static pid_t start_command(const launch *l)
{
#ifndef __SANITIZE_ADDRESS__
        pid_t cmd = clone(command_main, l->command_stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)l);
#else
        /* AddressSanitizer cannot follow code onto a stack it did not make:
         * sanitized builds fork the command instead. */
        pid_t cmd = sys_clone(SIGCHLD, NULL);
        if (cmd == 0)
                command_main((void *)l);
#endif
        if (cmd < 0)
                fail(l, STEP_FORK, errno, NULL);
        return cmd;
}

/* Start the command, let go of everything of the launcher's, and reap
 * until the command ends. |self| is the supervisor's pid (landlock
 * backend), 0 for the init. */
_Noreturn static void run_init(const launch *l, pid_t self)
{
        pid_t cmd = start_command(l);
        /* The init keeps none of the command's descriptors: the caller sees
         * EOF on its pipes when the sandbox ends. */
        for (int i = 0; i < 3; i++) {
                INIT_CALL(SYS_close, i, 0, 0, 0);
                if (l->stdio[i] > 2)
                        INIT_CALL(SYS_close, l->stdio[i], 0, 0, 0);
        }
        if (l->landlock_fd >= 0)
                INIT_CALL(SYS_close, l->landlock_fd, 0, 0, 0);
        init_state s = {.signals = l->forward, .broadcast_signal = l->broadcast_signal,
                        .status_fd = l->status_fd, .cmd = cmd, .self = self,
                        .death_signal = l->death_signal, .command_signal = l->command_signal};
        sigaddset(&s.signals, SIGCHLD);
        sigaddset(&s.signals, l->broadcast_signal);
        if (self) {
                sigaddset(&s.signals, l->death_signal);
                sigaddset(&s.signals, l->command_signal);
        }
        /* The last use of |l|: on EOF here the launcher goes on. */
        INIT_CALL(SYS_close, l->report_fd, 0, 0, 0);
        init_loop(&s);
}

_Noreturn void child_linux_main(const launch *l)
{
        /* Every signal stays blocked in the init (it reads them from a
         * signalfd), so none of the launcher's handlers can run here; the
         * command resets dispositions before exec. */
        stamp(l, MARK_CLONED);
        wait_for_launcher(l);
        stamp(l, MARK_GO);
        init_prepare(l);
        run_init(l, 0);
}

/* The landlock backend's supervisor. A child subreaper, so that nothing
 * the command starts leaves its tree; its parent death signal becomes one
 * it reads (still blocked, like every signal here), so that the launcher's
 * death makes it kill the tree before it exits. Until this prctl the
 * SIGKILL armed by wait_for_launcher covers that death: no command runs
 * yet. The command cannot signal nor ptrace it: Landlock scopes signals to
 * the command's domain (ABI >= 6) and refuses ptrace outside it.
 * A session of its own first: a SIGKILL to the launcher's process group
 * or session (a terminal's job control, a supervisor killing a job) must
 * not reach the supervisor too, which would leave the tree running; only
 * the launcher dies, and its death signal makes us kill the tree. (The
 * linux backend's init may share the group: its death ends its pid
 * namespace.) Before the command exists, so a group kill until here
 * leaves nothing. */
_Noreturn static void child_supervisor_main(const launch *l)
{
        INIT_CALL(SYS_prctl, PR_SET_NAME, "cordon-tree", 0, 0);
        long r = INIT_CALL(SYS_setsid, 0, 0, 0, 0);
        if (r >= 0)
                r = INIT_CALL(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0);
        if (r == 0)
                r = INIT_CALL(SYS_prctl, PR_SET_PDEATHSIG, l->death_signal, 0, 0);
        if (r < 0)
                fail(l, STEP_SUBREAPER, (int)-r, NULL);
        run_init(l, (pid_t)INIT_CALL(SYS_getpid, 0, 0, 0, 0));
}

_Noreturn void child_exec_main(const launch *l)
{
        stamp(l, MARK_CLONED);
        wait_for_launcher(l);
        stamp(l, MARK_GO);
        if (l->backend == BACKEND_LANDLOCK)
                child_supervisor_main(l);
        exec_command(l);
}
