/* SPDX-License-Identifier: MIT */
/* What the sandbox user (src/core/plan-user.c) may use, granted before the
 * run by POSIX ACL entries of its uid (the kernel's xattr format, written
 * here; no owner changes): every directory and file beneath the plan's
 * writable directories (read, write, and execute where the file has an
 * execute bit; on directories also the default ACL, so that what anyone
 * creates there later is the user's to write too), cordon's skills/ to
 * read, and search on every directory above a path of the plan that it
 * could not search (a container's /root is 0700). The launcher runs as
 * root; the tree is the command's (earlier runs, other sandboxes of the
 * instance), so it is walked by descriptors without following a link,
 * never across a mount, and only files of one link are granted (a second
 * name may be outside). A change of the user's own files: their group bits
 * show the ACL's mask (a 0644 file reads 0664). */
#include "sandbox-user.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "error.h"
#include "sys.h"
#include "util.h"

#define ACL_ACCESS "system.posix_acl_access"
#define ACL_DEFAULT "system.posix_acl_default"
#define ACL_VERSION 2
#define ACL_MAX 64
#define WALK_DEPTH 128

enum { TAG_USER_OBJ = 0x01, TAG_USER = 0x02, TAG_GROUP_OBJ = 0x04, TAG_GROUP = 0x08, TAG_MASK = 0x10, TAG_OTHER = 0x20 };
enum { P_R = 4, P_W = 2, P_X = 1 };

typedef struct acl_entry {
        uint16_t tag, perm;
        uint32_t id;
} acl_entry;

typedef struct acl {
        acl_entry e[ACL_MAX];
        size_t n;
} acl;

typedef struct grant_ctx {
        uid_t uid;
        dev_t dev;            /* the root's file system: the walk stays on it */
        int unsupported;      /* the errno that says the file system has no ACLs, once seen */
        const char *root;     /* for the error */
        char **searched;      /* the ancestors looked at already (the plan's roots share most) */
        size_t n_searched, cap_searched;
        bool root_searched;
} grant_ctx;

/* The ACL |name| of |path| (a /proc/self/fd link), or, when it has none,
 * the one |mode| means (default ACLs: none, *a->n == 0). 0 or -errno. */
static int acl_get(const char *path, const char *name, mode_t mode, acl *a, bool nofollow)
{
        unsigned char raw[4 + ACL_MAX * 8];
        ssize_t n = nofollow ? lgetxattr(path, name, raw, sizeof(raw)) : getxattr(path, name, raw, sizeof(raw));
        a->n = 0;
        if (n < 0 && errno != ENODATA)
                return -errno;
        if (n < 0) {
                if (streq(name, ACL_DEFAULT))
                        return 0;
                a->e[a->n++] = (acl_entry){TAG_USER_OBJ, (mode >> 6) & 7, (uint32_t)-1};
                a->e[a->n++] = (acl_entry){TAG_GROUP_OBJ, (mode >> 3) & 7, (uint32_t)-1};
                a->e[a->n++] = (acl_entry){TAG_OTHER, mode & 7, (uint32_t)-1};
                return 0;
        }
        uint32_t version = 0;
        if (n >= 4)
                memcpy(&version, raw, 4);
        if (n < 4 || (n - 4) % 8 || version != ACL_VERSION)
                return -EINVAL;
        for (ssize_t off = 4; off < n; off += 8) {
                acl_entry *e = &a->e[a->n++];
                memcpy(&e->tag, raw + off, 2);
                memcpy(&e->perm, raw + off + 2, 2);
                memcpy(&e->id, raw + off + 4, 4);
        }
        return 0;
}

static acl_entry *acl_find(acl *a, uint16_t tag, uint32_t id)
{
        for (size_t i = 0; i < a->n; i++)
                if (a->e[i].tag == tag && (tag != TAG_USER || a->e[i].id == id))
                        return &a->e[i];
        return NULL;
}

/* |a| with user |uid| given |perm| (and the mask widened to it, never
 * narrowed); false when it had them already. A default ACL that was none
 * starts from |mode|. */
static bool acl_add(acl *a, uid_t uid, uint16_t perm, mode_t mode)
{
        if (a->n == 0) {
                a->e[a->n++] = (acl_entry){TAG_USER_OBJ, (mode >> 6) & 7, (uint32_t)-1};
                a->e[a->n++] = (acl_entry){TAG_GROUP_OBJ, (mode >> 3) & 7, (uint32_t)-1};
                a->e[a->n++] = (acl_entry){TAG_OTHER, mode & 7, (uint32_t)-1};
        }
        acl_entry *u = acl_find(a, TAG_USER, uid), *m = acl_find(a, TAG_MASK, 0), *g = acl_find(a, TAG_GROUP_OBJ, 0);
        if (u && (u->perm & perm) == perm && m && (m->perm & perm) == perm)
                return false;
        if (a->n + 2 > ACL_MAX)
                return false;
        if (u)
                u->perm |= perm;
        else
                a->e[a->n++] = (acl_entry){TAG_USER, perm, (uint32_t)uid};
        if (m)
                m->perm |= perm;
        else
                a->e[a->n++] = (acl_entry){TAG_MASK, (uint16_t)((g ? g->perm : 0) | perm), (uint32_t)-1};
        /* the kernel wants them by tag, then id */
        for (size_t i = 1; i < a->n; i++)
                for (size_t k = i; k > 0 && (a->e[k - 1].tag > a->e[k].tag ||
                                             (a->e[k - 1].tag == a->e[k].tag && a->e[k - 1].id > a->e[k].id));
                     k--) {
                        acl_entry t = a->e[k];
                        a->e[k] = a->e[k - 1];
                        a->e[k - 1] = t;
                }
        return true;
}

static int acl_set(const char *path, const char *name, const acl *a)
{
        unsigned char raw[4 + ACL_MAX * 8];
        uint32_t version = ACL_VERSION;
        memcpy(raw, &version, 4);
        for (size_t i = 0; i < a->n; i++) {
                memcpy(raw + 4 + i * 8, &a->e[i].tag, 2);
                memcpy(raw + 4 + i * 8 + 2, &a->e[i].perm, 2);
                memcpy(raw + 4 + i * 8 + 4, &a->e[i].id, 4);
        }
        return setxattr(path, name, raw, 4 + a->n * 8, 0) < 0 ? -errno : 0;
}

/* Give |g|->uid |perm| on the pinned |fd| (what |st| says it is), and on a
 * directory as the default for what is made in it. What cannot be changed
 * (another owner's without CAP_FOWNER, more entries than we read, a
 * read-only file system) is left as it is: only a file system without ACLs
 * at all is an error. */
static int grant_fd(grant_ctx *g, int fd, const struct stat *st, uint16_t perm, bool defaults)
{
        if (st->st_uid == g->uid)
                return 0;
        char path[40];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        for (int k = 0; k < (defaults ? 2 : 1); k++) {
                const char *name = k ? ACL_DEFAULT : ACL_ACCESS;
                acl a;
                int r = acl_get(path, name, st->st_mode, &a, false);
                if (r == 0 && acl_add(&a, g->uid, perm, st->st_mode))
                        r = acl_set(path, name, &a);
                if (r == -EOPNOTSUPP || r == -ENOTSUP) {
                        g->unsupported = -r;
                        return r;
                }
        }
        return 0;
}

/* A file or a socket (a service of the workspace's) with no name but this
 * one: a second might lie outside the writable paths. */
static bool one_link(const struct stat *st)
{
        return (S_ISREG(st->st_mode) || S_ISSOCK(st->st_mode)) && st->st_nlink == 1;
}

/* Whether the entry |name| of the directory |dir| (what |st| says it is)
 * already gives |uid| |perm| (and its default, on a directory): a look by
 * name, without opening it; a change is made on a pinned descriptor. */
static bool already_granted(int dir, const char *name, const struct stat *st, uid_t uid, uint16_t perm)
{
        if (st->st_uid == uid)
                return true;
        char path[NAME_MAX + 48];
        snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dir, name);
        for (int k = 0; k < (S_ISDIR(st->st_mode) ? 2 : 1); k++) {
                acl a;
                if (acl_get(path, k ? ACL_DEFAULT : ACL_ACCESS, st->st_mode, &a, true) < 0)
                        return false;
                acl_entry *u = acl_find(&a, TAG_USER, uid), *m = acl_find(&a, TAG_MASK, 0);
                if (!u || (u->perm & perm) != perm || !m || (m->perm & perm) != perm)
                        return false;
        }
        return true;
}

static uint16_t file_perm(const struct stat *st, uint16_t want)
{
        return (uint16_t)(want & ~P_X) | ((st->st_mode & 0111) && (want & P_X) ? P_X : 0);
}

static int grant_tree(grant_ctx *g, int dir, uint16_t want, int depth);

/* One walk of a directory of grant_tree. */
typedef struct grant_walk {
        grant_ctx *g;
        int dir;
        uint16_t want;
        int depth;
        int r;
} grant_walk;

static bool grant_entry(void *ctx, const char *name, unsigned char type)
{
        grant_walk *w = ctx;
        grant_ctx *g = w->g;
        struct stat st;
        (void)type;
        if (fstatat(w->dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != g->dev ||
            !(S_ISDIR(st.st_mode) || (one_link(&st))))
                return true;
        bool is_dir = S_ISDIR(st.st_mode);
        bool done = already_granted(w->dir, name, &st, g->uid, is_dir ? w->want : file_perm(&st, w->want));
        if (done && !is_dir)
                return true; /* the usual case once granted: two calls an entry */
        int fd = openat(w->dir, name, (is_dir ? O_RDONLY | O_DIRECTORY : O_PATH) | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        struct stat now;
        if (fd < 0)
                return true;
        /* the pinned inode is what was looked at (nothing swapped it) */
        if (fstat(fd, &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev &&
            (S_ISDIR(now.st_mode) || one_link(&now))) {
                w->r = done ? 0 : grant_fd(g, fd, &now, is_dir ? w->want : file_perm(&now, w->want), is_dir);
                if (w->r == 0 && is_dir)
                        w->r = grant_tree(g, fd, w->want, w->depth + 1);
        }
        close(fd);
        return w->r == 0;
}

/* Everything beneath the directory |dir| (its own grant done, read from
 * its current offset), |depth| levels down; deeper ones are left (a bound
 * on descriptors). */
static int grant_tree(grant_ctx *g, int dir, uint16_t want, int depth)
{
        if (depth >= WALK_DEPTH)
                return 0;
        _Alignas(8) char records[1024];
        grant_walk w = {g, dir, want, depth, 0};
        int r = sys_dir_each(dir, records, sizeof(records), grant_entry, &w);
        return w.r < 0 ? w.r : r;
}

static bool searched_before(const grant_ctx *g, const char *dir)
{
        for (size_t i = 0; i < g->n_searched; i++)
                if (streq(g->searched[i], dir))
                        return true;
        return false;
}

static int remember_searched(grant_ctx *g, const char *dir)
{
        if (g->n_searched == g->cap_searched) {
                size_t cap = g->cap_searched ? 2 * g->cap_searched : 32;
                char **n = realloc(g->searched, cap * sizeof(*n));
                if (!n)
                        return -ENOMEM;
                g->searched = n;
                g->cap_searched = cap;
        }
        return (g->searched[g->n_searched] = strdup(dir)) ? (g->n_searched++, 0) : -ENOMEM;
}

/* Search on |dir| when the user could not search it. */
static int grant_search(grant_ctx *g, const char *dir)
{
        int fd = openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        int r = fd >= 0 && fstat(fd, &st) == 0 && !(st.st_mode & S_IXOTH) ? grant_fd(g, fd, &st, P_X, false) : 0;
        if (fd >= 0)
                close(fd);
        return r;
}

/* Search on each directory above |path| (absolute, canonical) that the
 * user could not search, each looked at once a run. */
static int grant_ancestors(grant_ctx *g, const char *path)
{
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *slash = p; (slash = strchr(slash + 1, '/'));) {
                *slash = '\0';
                int r = 0;
                if (!searched_before(g, p)) {
                        r = grant_search(g, p);
                        if (r == 0)
                                r = remember_searched(g, p);
                }
                *slash = '/';
                if (r < 0)
                        return r;
        }
        if (g->root_searched)
                return 0;
        g->root_searched = true;
        return grant_search(g, "/");
}

/* A root of the plan: |want| on it and beneath it. */
static int grant_root(grant_ctx *g, const char *path, uint16_t want)
{
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        struct stat st;
        int r = fstat(fd, &st) < 0 ? -errno : 0;
        g->dev = st.st_dev;
        g->root = path;
        if (r == 0 && S_ISDIR(st.st_mode)) {
                r = grant_fd(g, fd, &st, want, true);
                if (r == 0)
                        r = grant_tree(g, fd, want, 0);
        } else if (r == 0 && one_link(&st)) {
                r = grant_fd(g, fd, &st, file_perm(&st, want), false);
        }
        close(fd);
        return r;
}

static bool kernel_path(const char *p)
{
        return path_startswith(p, "/proc") || path_startswith(p, "/sys") || path_startswith(p, "/dev");
}

int sandbox_user_grant(const cordon_plan *p, cordon_error **ret_error)
{
        grant_ctx g = {.uid = p->run_uid};
        int r = 0;
        const char *failed = NULL;
        for (size_t i = 0; r == 0 && i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->type != MOUNT_BIND || !m->source || kernel_path(m->source))
                        continue;
                failed = m->source;
                r = grant_ancestors(&g, m->source);
                bool skills = m->origin == ORIGIN_INSTANCE && !m->writable; /* cordon's own, read-only */
                if (r == 0 && (m->writable || skills))
                        r = grant_root(&g, m->source, m->writable ? P_R | P_W | P_X : P_R | P_X);
        }
        if (r == 0 && p->host_cwd) {
                failed = p->host_cwd;
                r = grant_ancestors(&g, p->host_cwd);
        }
        for (size_t i = 0; i < g.n_searched; i++)
                free(g.searched[i]);
        free(g.searched);
        if (r == 0)
                return 0;
        if (r == -ENOMEM)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (g.unsupported)
                return error_set(ret_error, g.unsupported,
                                 "the sandbox user (cordon runs as root without a user namespace) is given %s by "
                                 "POSIX ACLs, which its file system does not support: use a file system with ACLs, "
                                 "or --user caller to run the command as root",
                                 failed);
        return error_set(ret_error, -r, "cannot give the sandbox user %s: %s (--user caller runs the command as root)",
                         failed, strerror(-r));
}
