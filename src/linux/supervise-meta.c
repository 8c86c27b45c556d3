/* SPDX-License-Identifier: MIT */
/* The metadata calls the supervisor serves for the command (chmod, chown,
 * utimes and utimensat, setxattr, removexattr and their f/l/at forms; and
 * truncate by path where Landlock has no truncate right, ABI < 3):
 * decoded from the notification, their arguments copied out of the
 * command's memory, then performed on the pinned target when it lies
 * beneath a writable root. Called by the supervisor's loop (supervise.c). */
#include <errno.h>
#include <fcntl.h>
#include <linux/limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "supervise-internal.h"

typedef enum meta_op { META_CHMOD, META_CHOWN, META_TIMES, META_SETXATTR, META_REMOVEXATTR, META_TRUNCATE } meta_op;
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
        case SYS_truncate:
                *m = (meta_call){META_TRUNCATE, AT_FDCWD, a[0], true, false, a[1], 0, 0, 0, 0};
                return a[0] ? 0 : -EFAULT;
        default: return -ENOSYS;
        }
}

static int read_times(const call *c, const meta_call *m, struct timespec ts[2], bool *ret_now)
{
        *ret_now = m->a == 0;
        if (!m->a)
                return 0;
        if (m->times == TIMES_NSEC)
                return call_read_mem(c, m->a, ts, 2 * sizeof(ts[0]));
        if (m->times == TIMES_UTIMBUF) {
                long tb[2];
                int r = call_read_mem(c, m->a, tb, sizeof(tb));
                ts[0] = (struct timespec){tb[0], 0};
                ts[1] = (struct timespec){tb[1], 0};
                return r;
        }
        struct timeval tv[2];
        int r = call_read_mem(c, m->a, tv, sizeof(tv));
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
        int r = call_read_string(c, m->a, x->name, sizeof(x->name), ERANGE);
        if (r < 0 || m->op != META_SETXATTR)
                return r;
        x->size = (size_t)m->c;
        if (x->size > XATTR_SIZE_MAX)
                return -E2BIG;
        x->value = malloc(x->size ? x->size : 1);
        if (!x->value)
                return -ENOMEM;
        return x->size && m->b ? call_read_mem(c, m->b, x->value, x->size) : 0;
}

/* truncate(2) of the regular file |t|, through a descriptor opened for
 * writing on the inode pinned (the same write permission check). */
static int truncate_target(const target *t, off_t length)
{
        if (S_ISDIR(t->st.st_mode))
                return -EISDIR;
        if (!S_ISREG(t->st.st_mode))
                return -EINVAL;
        char self[40];
        fd_path(self, t->obj);
        int fd = open(self, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        int r = ftruncate(fd, length) < 0 ? -errno : 0;
        close(fd);
        return r;
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
        case META_TRUNCATE: return truncate_target(t, (off_t)m->a);
        default: return -ENOSYS;
        }
        return r < 0 ? -errno : 0;
}

int serve_meta(const call *c)
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
                r = call_target_of(c, m.dirfd, m.path, m.follow, m.empty_ok, &t);
        if (r == 0 && !call_still_valid(c))
                r = -ESRCH;
        static const char *const NAME[] = {[META_CHMOD] = "chmod", [META_CHOWN] = "chown", [META_TIMES] = "utimes",
                                           [META_SETXATTR] = "setxattr", [META_REMOVEXATTR] = "removexattr",
                                           [META_TRUNCATE] = "truncate"};
        if (r == 0 && !target_beneath_root(c->s, &t, false)) {
                supervise_report_refusal(c->s, NAME[m.op], &t);
                r = m.op == META_TRUNCATE ? -EACCES : -EPERM; /* as Landlock's truncate right refuses it */
        }
        if (r == 0)
                r = perform(&m, &t, now ? NULL : ts, &x);
        target_close(&t);
        free(x.value);
        return r;
}
