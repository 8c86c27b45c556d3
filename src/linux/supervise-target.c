/* SPDX-License-Identifier: MIT */
/* The object a supervised call acts on: its path copied once out of the
 * command's memory, resolved as the kernel would for the command (same
 * root and mounts, no magic links) and pinned by an O_PATH descriptor, and
 * whether it lies beneath a root the plan lets the command change; a
 * refusal named once to the log. Called by the calls' handlers
 * (supervise-meta.c, supervise-connect.c) on the supervisor's thread. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "denied.h"
#include "supervise-internal.h"
#include "sys.h"

void target_close(target *t)
{
        if (t->obj >= 0)
                close(t->obj);
        if (t->parent >= 0)
                close(t->parent);
        t->obj = t->parent = -1;
}

bool notif_id_valid(const call_supervisor *s, uint64_t id)
{
        return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

bool call_still_valid(const call *c) { return notif_id_valid(c->s, c->req->id); }

/* Where a seccomp profile from outside refuses process_vm_readv (Docker's
 * default without CAP_SYS_PTRACE): the same memory through /proc/TID/mem,
 * under the same ptrace access check (the call is checked to still wait
 * after the last read, as with process_vm_readv). */
static int read_proc_mem(const call *c, uint64_t addr, void *out, size_t len)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/mem", (int)c->tid);
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = pread(fd, out, len, (off_t)addr);
        int e = errno;
        close(fd);
        if (n == (ssize_t)len)
                return 0;
        return n < 0 && e != EIO && e != EINVAL ? -e : -EFAULT;
}

int call_read_mem(const call *c, uint64_t addr, void *out, size_t len)
{
        struct iovec local = {out, len}, remote = {(void *)(uintptr_t)addr, len};
        ssize_t n = process_vm_readv(c->tid, &local, 1, &remote, 1, 0);
        if (n == (ssize_t)len)
                return 0;
        if (n < 0 && (errno == EPERM || errno == ENOSYS))
                return read_proc_mem(c, addr, out, len);
        return n < 0 && errno != EFAULT ? -errno : -EFAULT;
}

/* A NUL-terminated string of at most |cap| - 1 bytes, read page by page. */
int call_read_string(const call *c, uint64_t addr, char *out, size_t cap, int too_long)
{
        size_t got = 0;
        long page = sysconf(_SC_PAGESIZE);
        while (got < cap) {
                size_t chunk = (size_t)page - (size_t)((addr + got) % (uint64_t)page);
                if (chunk > cap - got)
                        chunk = cap - got;
                int r = call_read_mem(c, addr + got, out + got, chunk);
                if (r < 0)
                        return r;
                if (memchr(out + got, '\0', chunk))
                        return 0;
                got += chunk;
        }
        return -too_long;
}

/* The command's fd |fd| (AT_FDCWD: its working directory), as an O_PATH
 * descriptor of ours on the same file. */
static int command_fd(const call *c, int fd)
{
        char path[64];
        if (fd == AT_FDCWD)
                snprintf(path, sizeof(path), "/proc/%d/cwd", c->tid);
        else if (fd >= 0)
                snprintf(path, sizeof(path), "/proc/%d/fd/%d", c->tid, fd);
        else
                return -EBADF;
        int r = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
        return r < 0 ? (errno == ENOENT ? -EBADF : -errno) : r;
}

/* |connect|: a connect-only root (an explicit read-only exposure) counts. */
static bool is_root(const call_supervisor *s, const struct stat *st, bool dir, bool connect)
{
        for (size_t i = 0; i < s->n_roots; i++)
                if (s->roots[i].dev == st->st_dev && s->roots[i].ino == st->st_ino && s->roots[i].is_dir == dir &&
                    (connect || !s->roots[i].connect_only))
                        return true;
        return false;
}

/* Whether the directory |dir| is a writable root or lies beneath one,
 * walking "..". The command cannot move a directory from outside the
 * writable paths to beneath them (Landlock: that needs rights on both
 * sides), so the answer cannot be forged by a rename during the walk;
 * nor into a read-only exposure, where it has no rights at all. */
static bool dir_beneath_root(const call_supervisor *s, int dir, bool connect)
{
        int fd = dup(dir);
        struct stat st;
        bool found = false;
        for (int depth = 0; fd >= 0 && depth < 4096 && fstat(fd, &st) == 0; depth++) {
                if (is_root(s, &st, true, connect)) {
                        found = true;
                        break;
                }
                int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                struct stat ust;
                bool top = up < 0 || fstat(up, &ust) < 0 || (ust.st_dev == st.st_dev && ust.st_ino == st.st_ino);
                close(fd);
                fd = up;
                if (top)
                        break;
        }
        if (fd >= 0)
                close(fd);
        return found;
}

bool target_beneath_root(const call_supervisor *s, const target *t, bool connect)
{
        if (S_ISDIR(t->st.st_mode))
                return dir_beneath_root(s, t->obj, connect);
        if (!S_ISREG(t->st.st_mode) && !S_ISLNK(t->st.st_mode) && !S_ISSOCK(t->st.st_mode) &&
            !S_ISFIFO(t->st.st_mode))
                return false; /* devices: never, even in a writable directory */
        return is_root(s, &t->st, false, connect) || (t->parent >= 0 && dir_beneath_root(s, t->parent, connect));
}

/* Split |path| (changed in place) into its directory part and last name. */
static const char *split_last(char *path, const char **ret_dir)
{
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
                path[--n] = '\0';
        char *slash = strrchr(path, '/');
        if (!slash) {
                *ret_dir = ".";
                return path;
        }
        if (slash == path) {
                *ret_dir = "/";
                return slash[1] ? slash + 1 : ".";
        }
        *slash = '\0';
        *ret_dir = path;
        return slash + 1;
}

/* Resolve |path| from |base| as the kernel would for the command (same
 * root, same mounts), following a final symlink when |follow|; no magic
 * /proc links. Sets |t| to the object and the directory it is in. */
static int resolve(int base, const char *path, bool follow, target *t)
{
        char text[PATH_MAX];
        int dirfd = dup(base);
        if (dirfd < 0)
                return -errno;
        snprintf(text, sizeof(text), "%s", path);
        size_t len = strlen(path);
        follow = follow || (len > 1 && path[len - 1] == '/'); /* "link/" is the directory */
        for (int hops = 0; hops < 40; hops++) {
                const char *dir, *last = split_last(text, &dir);
                int parent = sys_openat2(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_MAGICLINKS);
                int e = errno;
                close(dirfd);
                if (parent < 0)
                        return -e;
                bool dots = streq(last, ".") || streq(last, "..");
                int obj = openat(parent, last, O_PATH | O_CLOEXEC | (dots ? O_DIRECTORY : O_NOFOLLOW));
                if (obj < 0 || fstat(obj, &t->st) < 0) {
                        e = errno;
                        if (obj >= 0)
                                close(obj);
                        close(parent);
                        return -e;
                }
                if (!S_ISLNK(t->st.st_mode) || !follow) {
                        t->obj = obj;
                        t->parent = dots ? -1 : parent;
                        if (dots)
                                close(parent);
                        snprintf(t->name, sizeof(t->name), "%s", last);
                        return 0;
                }
                ssize_t n = readlinkat(parent, last, text, sizeof(text) - 1);
                e = errno;
                close(obj);
                if (n < 0) {
                        close(parent);
                        return -e;
                }
                text[n] = '\0';
                dirfd = parent;
        }
        close(dirfd);
        return -ELOOP;
}

/* The object behind the command's fd: pinned by the descriptor; a
 * non-directory must still be in the directory its name says. */
static int target_of_fd(const call *c, int fd, target *t)
{
        t->obj = command_fd(c, fd);
        if (t->obj < 0)
                return t->obj;
        if (fstat(t->obj, &t->st) < 0 || S_ISDIR(t->st.st_mode))
                return 0;
        char link[40], where[PATH_MAX];
        fd_path(link, t->obj);
        ssize_t n = readlink(link, where, sizeof(where) - 1);
        if (n <= 0 || where[0] != '/')
                return -EPERM; /* not a file of any directory (a pipe, a socket, deleted) */
        where[n] = '\0';
        const char *dir, *last = split_last(where, &dir);
        t->parent = sys_openat2(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC,
                                RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
        struct stat st;
        if (t->parent < 0 || fstatat(t->parent, last, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != t->st.st_dev ||
            st.st_ino != t->st.st_ino)
                return -EPERM; /* deleted, or renamed meanwhile */
        snprintf(t->name, sizeof(t->name), "%s", last);
        return 0;
}

/* "/proc/self/fd/N" (what libc uses for calls on O_PATH descriptors) means
 * the command's own fd N, and so does "/dev/fd/N" (its link to
 * /proc/self/fd would name the supervisor's here); any other magic link is
 * refused by resolve. */
static int proc_self_fd(const call *c, const char *path)
{
        static const char *const PREFIX[] = {"/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/"};
        char own[40];
        snprintf(own, sizeof(own), "/proc/%d/fd/", c->tid);
        for (size_t i = 0; i <= ARRAY_SIZE(PREFIX); i++) {
                const char *pre = i < ARRAY_SIZE(PREFIX) ? PREFIX[i] : own;
                if (strncmp(path, pre, strlen(pre)) != 0)
                        continue;
                const char *digits = path + strlen(pre);
                char *end;
                long fd = strtol(digits, &end, 10);
                if (end != digits && !*end && fd >= 0 && fd < INT32_MAX)
                        return (int)fd;
        }
        return -1;
}

/* An O_PATH descriptor of "/" (absolute paths) or of the command's |dirfd|. */
static int path_base(const call *c, const char *path, int dirfd)
{
        if (path[0] != '/')
                return command_fd(c, dirfd);
        int fd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

/* What |path| names for the command, from its |dirfd|. */
int call_target_of_path(const call *c, int dirfd, const char *path, bool follow, bool empty_ok, target *t)
{
        if (!path[0])
                return empty_ok ? target_of_fd(c, dirfd, t) : -ENOENT;
        int fd = proc_self_fd(c, path);
        if (fd >= 0)
                return target_of_fd(c, fd, t);
        int base = path_base(c, path, dirfd);
        if (base < 0)
                return base;
        int r = resolve(base, path, follow, t);
        close(base);
        return r;
}

/* What a metadata call names: |dirfd| and the path at |path_addr| (0: the
 * call is on |dirfd| itself). */
int call_target_of(const call *c, int dirfd, uint64_t path_addr, bool follow, bool empty_ok, target *t)
{
        *t = (target){.obj = -1, .parent = -1};
        if (!path_addr)
                return target_of_fd(c, dirfd, t);
        char path[PATH_MAX];
        int r = call_read_string(c, path_addr, path, sizeof(path), ENAMETOOLONG);
        return r < 0 ? r : call_target_of_path(c, dirfd, path, follow, empty_ok, t);
}

/* Say once that |what| of |t| was refused, naming the path, so that an
 * agent can tell the model what to ask for. Only the supervisor's thread
 * writes the list. */
bool supervise_note_refusal(call_supervisor *s, const char *key)
{
        for (size_t i = 0; i < s->n_refused; i++)
                if (streq(s->refused[i], key))
                        return false;
        if (s->n_refused == REFUSALS_MAX)
                return false;
        s->refused[s->n_refused] = strdup(key);
        return s->refused[s->n_refused++] != NULL;
}

void supervise_report_refusal(call_supervisor *s, const char *what, const target *t)
{
        char link[40], where[PATH_MAX];
        fd_path(link, t->obj);
        ssize_t n = s->opt.log_fn || s->opt.denied ? readlink(link, where, sizeof(where) - 1) : -1;
        if (n <= 0)
                return;
        where[n] = '\0';
        _cleanup_free_ char *key = xasprintf("%s %s", what, where);
        if (!key || !supervise_note_refusal(s, key))
                return;
        bool connect = strncmp(what, "connect", 7) == 0;
        /* the supervisor found it on the host, where the command runs */
        _cleanup_free_ char *rule = xasprintf("%s: outside the writable paths%s", what,
                                              connect ? " and the exposed ones" : "");
        if (rule)
                denied_note_path(s->opt.denied, connect ? DENIED_CONNECT : DENIED_WRITE, where, rule, HOST_HAS_YES,
                                 !connect, "supervisor");
        _cleanup_free_ char *shown = s->opt.log_fn ? str_escape(key, false) : NULL; /* a path the command chose */
        _cleanup_free_ char *m = shown ? xasprintf("refused %s: outside the writable paths%s (to allow it, expose "
                                                   "the path%s)",
                                                   shown, connect ? " and the exposed ones" : "",
                                                   connect ? ": --expose" : " read-write: --expose-rw")
                                       : NULL;
        if (m)
                s->opt.log_fn(CORDON_LOG_DENIED, m, s->opt.log_userdata);
}
