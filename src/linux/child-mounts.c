/* SPDX-License-Identifier: MIT */
/* The mount view, on the child's side: the init's new root on a tmpfs,
 * pivoted to (enter_new_root), the plan's mounts applied in its order with
 * their Landlock rules (apply_ops), then the old root detached and the
 * root made read-only (finish_root). Called by the init (child.c) after
 * clone(): system calls only, on paths opened without following a
 * symlink, each source and mount point re-checked where the command could
 * have changed it since planning. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "child.h"
#include "landlock.h"
#include "launch.h"
#include "libc-compat.h"
#include "sys.h"

#define GENERATED_DIR "/.cordon-files"

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

void apply_ops(const launch *l)
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
void enter_new_root(const launch *l)
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

void finish_root(const launch *l)
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
