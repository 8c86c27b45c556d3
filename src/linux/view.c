/* SPDX-License-Identifier: MIT */
/* The system view's /etc, prepared once and bound in one mount.
 *
 * Where: <instance root>/logs/view/, inside cordon's own logs/, which no
 * command ever sees (a read-only tmpfs covers it in every run of the
 * linux backend, the landlock backend grants no right on it, and plan.c
 * refuses an instance root inside a writable mount) and whose identity
 * instance.c checks at every run. What: one directory a content,
 * "etc-<hash>", holding a copy of each regular host file of the view (never
 * a hard link), the generated passwd and group, an empty directory or file
 * as the mount point of every other entry below /etc (the directories,
 * bound on top as before), and beside it "etc-<hash>.m", the manifest it
 * was made from. The manifest names each copy's source with the identity
 * the planner saw (device, inode, size, mtime, ctime, mode), so a host
 * file that changes, is replaced, or becomes a link, a directory or a fifo
 * gives another manifest and another directory, built before the run. A
 * directory gets its final name only once complete (rename of a temporary
 * one), so concurrent runs find a whole one or build their own. A file
 * changed within the last seconds is not copied (its timestamps may not
 * show a second change yet): the run binds the files one by one.
 *
 * The rest of the host's /etc (the plan's |etc_view| mount: what others
 * may read, less cordon's deny list, etc-scan.c) is copied in with them,
 * as the saved listing names it ("tree <hash>" in the manifest): the
 * directories of the list come from it too, no longer bound on top.
 * Without a prepared /etc nothing of it is shown, only the list. */
#include "view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "etc-scan.h"
#include "sys.h"
#include "util.h"
#include "whole-file.h"

#define VIEW_DIR "logs/view"
#define MANIFEST_HEAD "cordon view 1\n"
#define RACY_NS (2LL * 1000000000)    /* a file changed this recently is not copied */
#define STALE_S 600                   /* other generations older than this are removed */
#define MAX_COPY (4LL * 1024 * 1024)  /* larger files are bound, not copied */

typedef enum entry_kind { ENTRY_COPY, ENTRY_GENERATED, ENTRY_DIR, ENTRY_POINT, ENTRY_LINK } entry_kind;

/* The name below /etc of a mount the prepared directory can hold, or NULL. */
static const char *etc_name(const plan_mount *m)
{
        if (strncmp(m->target, "/etc/", 5) != 0)
                return NULL;
        const char *name = m->target + 5;
        return *name && !strchr(name, '/') && !strchr(name, '\n') && !strchr(name, ' ') && name[0] != '.' ? name
                                                                                                          : NULL;
}

/* A regular file anyone may read (what the command could read of it is
 * what a copy shows), not too large. */
static bool copyable(const plan_mount *m)
{
        return S_ISREG(m->seen.mode) && (m->seen.mode & 0444) == 0444 && (int64_t)m->seen.size <= MAX_COPY;
}

static bool kind_of(const plan_mount *m, entry_kind *k)
{
        if (m->type == MOUNT_FILE && m->origin == ORIGIN_GENERATED && m->content) {
                *k = ENTRY_GENERATED;
                return true;
        }
        if (m->type == MOUNT_SYMLINK && m->origin == ORIGIN_GENERATED && m->source) {
                *k = ENTRY_LINK;
                return true;
        }
        if (m->type != MOUNT_BIND || m->origin != ORIGIN_SYSTEM || m->writable || m->untrusted || !m->seen.mode)
                return false;
        bool plain_source = !strchr(m->source, '\n') && !strchr(m->source, ' ');
        *k = m->is_dir                                                                       ? ENTRY_DIR
             : copyable(m) && plain_source ? ENTRY_COPY
                                          : ENTRY_POINT;
        return true;
}

/* The plan's mount of the rest of the host's /etc, or NULL. */
static const plan_mount *tree_mount(const cordon_plan *p)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (p->mounts[i].etc_view && p->mounts[i].type == MOUNT_BIND && streq(p->mounts[i].target, "/etc"))
                        return &p->mounts[i];
        return NULL;
}

/* May this plan's /etc be prepared: every mount at or below /etc one the
 * directory can hold (nothing the user exposed there). */
static bool plan_fits(const cordon_plan *p)
{
        if (p->backend != BACKEND_LINUX || !p->instance_root)
                return false;
        size_t n = 0;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                entry_kind k;
                if (streq(m->target, "/etc") && m->etc_view)
                        continue;
                if (streq(m->target, "/etc"))
                        return false;
                if (strncmp(m->target, "/etc/", 5) != 0)
                        continue;
                if (!etc_name(m) || !kind_of(m, &k))
                        return false;
                n++;
        }
        return n > 0;
}

/* Is |m| an entry of the prepared directory (the list's directories are
 * not when the rest of /etc is copied in: they come with it)? */
static bool held(const plan_mount *m, bool tree, entry_kind *k)
{
        return etc_name(m) && kind_of(m, k) && !(tree && *k == ENTRY_DIR);
}

/* |s| in hexadecimal, a chunk at a time. */
static void put_hex(buf *b, const char *s)
{
        static const char HEX[] = "0123456789abcdef";
        char chunk[128];
        size_t n = 0;
        for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
                chunk[n++] = HEX[*c >> 4];
                chunk[n++] = HEX[*c & 15];
                if (n == sizeof(chunk)) {
                        buf_put(b, chunk, n);
                        n = 0;
                }
        }
        buf_put(b, chunk, n);
}

static void manifest_line(buf *b, const plan_mount *m, const char *name, entry_kind k)
{
        const struct plan_identity *s = &m->seen;
        switch (k) {
        case ENTRY_COPY:
                buf_printf(b, "copy %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %o\n", name,
                           m->source, s->dev, s->ino, s->size, s->mtime_ns, s->ctime_ns, (unsigned)s->mode);
                break;
        case ENTRY_GENERATED:
                buf_printf(b, "generated %s ", name);
                put_hex(b, m->content);
                buf_put(b, "\n", 1);
                break;
        case ENTRY_DIR: buf_printf(b, "dir %s\n", name); break;
        case ENTRY_LINK:
                buf_printf(b, "link %s ", name);
                put_hex(b, m->source);
                buf_put(b, "\n", 1);
                break;
        case ENTRY_POINT:
        default: buf_printf(b, "point %s\n", name); break;
        }
}

static char *manifest_of(const cordon_plan *p, const etc_tree *tree)
{
        buf b = {0};
        buf_put(&b, MANIFEST_HEAD, strlen(MANIFEST_HEAD));
        if (tree)
                buf_printf(&b, "tree %016" PRIx64 "\n", tree->hash);
        for (size_t i = 0; i < p->n_mounts; i++) {
                entry_kind k;
                if (held(&p->mounts[i], tree != NULL, &k))
                        manifest_line(&b, &p->mounts[i], etc_name(&p->mounts[i]), k);
        }
        return buf_steal(&b);
}

static uint64_t fnv1a(const char *s)
{
        uint64_t h = 14695981039346656037ULL;
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211ULL;
        return h;
}

/* |dfd|/|name| when it holds exactly |text|, read-locked (shared) and
 * still linked (not removed as stale meanwhile); else -1. The lock is held
 * as long as a run uses the directory: no other run removes it then. */
static int open_manifest(int dfd, const char *name, const char *text)
{
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        size_t len = strlen(text);
        _cleanup_free_ char *got = fd >= 0 ? malloc(len + 1) : NULL;
        struct stat st;
        if (!got || flock(fd, LOCK_SH) < 0 || fstat(fd, &st) < 0 || st.st_nlink == 0)
                return -1;
        ssize_t n = read(fd, got, len + 1);
        return n == (ssize_t)len && memcmp(got, text, len) == 0 ? TAKE_FD(fd) : -1;
}

static bool same_identity(const struct stat *st, const struct plan_identity *id)
{
        return (uint64_t)st->st_dev == id->dev && (uint64_t)st->st_ino == id->ino &&
               (uint64_t)st->st_size == id->size && (uint32_t)st->st_mode == id->mode &&
               (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec == id->mtime_ns &&
               (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec == id->ctime_ns;
}

static bool racy(const struct plan_identity *id)
{
        struct timespec now;
        if (clock_gettime(CLOCK_REALTIME, &now) < 0)
                return true;
        int64_t t = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
        return t - id->mtime_ns < RACY_NS || t - id->ctime_ns < RACY_NS;
}

/* Has a file to copy changed too recently to be copied? */
static bool plan_racy(const cordon_plan *p)
{
        for (size_t i = 0; i < p->n_mounts; i++) {
                entry_kind k;
                if (held(&p->mounts[i], false, &k) && k == ENTRY_COPY && racy(&p->mounts[i].seen))
                        return true;
        }
        return false;
}

/* Does the file carry extended attributes (a POSIX ACL, an LSM label)? A
 * copy would drop them, and with them what they refuse (an ACL denying
 * root a 0644 file): such a file is never copied, the run binds the files
 * one by one. Adding or changing one changes the file's ctime, so a
 * manifest made without it no longer matches. */
static bool has_xattrs(int fd)
{
        ssize_t n = flistxattr(fd, NULL, 0);
        return n > 0 || (n < 0 && errno != ENOTSUP);
}

/* Copy the host file |source| (still |seen|) into |dfd|/|name|. */
static bool copy_file(int dfd, const char *name, const char *source, const struct plan_identity *seen,
                      bool *ret_xattrs)
{
        _cleanup_close_ int src = openat(AT_FDCWD, source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        if (src < 0 || fstat(src, &st) < 0 || !S_ISREG(st.st_mode) || !same_identity(&st, seen))
                return false;
        *ret_xattrs = has_xattrs(src);
        if (*ret_xattrs)
                return false;
        _cleanup_close_ int dst = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                         0644 | (st.st_mode & 0111));
        if (dst < 0)
                return false;
        size_t size = (size_t)st.st_size, got = 0;
        _cleanup_free_ char *data = malloc(size + 1);
        ssize_t n = 1;
        while (data && got <= size && n > 0) { /* to its end: one byte more than planned is a change */
                n = read(src, data + got, size + 1 - got);
                got += n > 0 ? (size_t)n : 0;
        }
        if (!data || n < 0 || got != size || !sys_write_all(dst, data, size))
                return false;
        /* not changed while copied */
        const struct timespec times[2] = {st.st_atim, st.st_mtim};
        return fstat(src, &st) == 0 && same_identity(&st, seen) && fchmod(dst, 0644 | (st.st_mode & 0111)) == 0 &&
               futimens(dst, times) == 0;
}

static bool make_entry(int dfd, const plan_mount *m, const char *name, entry_kind k)
{
        switch (k) {
        case ENTRY_COPY: {
                bool xattrs = false;
                return copy_file(dfd, name, m->source, &m->seen, &xattrs);
        }
        case ENTRY_DIR: return mkdirat(dfd, name, 0755) == 0;
        case ENTRY_LINK: return symlinkat(m->source, dfd, name) == 0;
        case ENTRY_POINT: return mknodat(dfd, name, S_IFREG | 0644, 0) == 0;
        case ENTRY_GENERATED:
        default: {
                _cleanup_close_ int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                return fd >= 0 && sys_write_all(fd, m->content, strlen(m->content)) && fchmod(fd, 0644) == 0;
        }
        }
}

/* Remove |name| in |dfd|: a file, or a directory (what build makes: files,
 * symlinks and directories of them), no link followed. */
static void remove_tree(int dfd, const char *name, int depth)
{
        if (unlinkat(dfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 64)
                return;
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        for (struct dirent *e; (e = readdir(d));)
                if (!streq(e->d_name, ".") && !streq(e->d_name, ".."))
                        remove_tree(fd, e->d_name, depth + 1);
        closedir(d);
        (void)unlinkat(dfd, name, AT_REMOVEDIR);
}

static void remove_flat(int dfd, const char *name) { remove_tree(dfd, name, 0); }

/* Is |gen| a generation without its manifest |mname|, left long ago by
 * a launcher killed between the two? */
static bool stale_orphan(int view, const char *gen, const char *mname)
{
        struct stat st;
        return fstatat(view, mname, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
               fstatat(view, gen, &st, AT_SYMLINK_NOFOLLOW) == 0 && time(NULL) - st.st_mtime > STALE_S;
}

/* Remove a generation |name|.m and its directory once no run holds it
 * (open_manifest's lock) and it is old enough that none is about to. */
static void remove_generation(int view, const char *mname, time_t now)
{
        _cleanup_close_ int fd = openat(view, mname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &st) < 0 || now - st.st_mtime <= STALE_S)
                return;
        char dir[NAME_MAX + 1];
        size_t len = strlen(mname) - 2; /* without ".m" */
        memcpy(dir, mname, len);
        dir[len] = '\0';
        if (unlinkat(view, mname, 0) == 0)
                remove_flat(view, dir);
}

/* Remove the other generations no run uses, and the temporary files a
 * killed launcher left. */
static void remove_stale(int view, const char *keep)
{
        int fd = openat(view, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        time_t now = time(NULL);
        size_t klen = strlen(keep);
        for (struct dirent *e; (e = readdir(d));) {
                const char *n = e->d_name;
                size_t len = strlen(n);
                struct stat st;
                if (strncmp(n, keep, klen) == 0)
                        continue;
                char mname[NAME_MAX + 3];
                snprintf(mname, sizeof(mname), "%s.m", n);
                bool manifest = len > 2 && streq(n + len - 2, ".m");
                if (strncmp(n, "etc-", 4) == 0 && manifest)
                        remove_generation(view, n, now);
                else if ((strncmp(n, "etc-", 4) == 0 && stale_orphan(view, n, mname)) ||
                         (strncmp(n, "tmp-", 4) == 0 && fstatat(view, n, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                          now - st.st_mtime > STALE_S))
                        remove_flat(view, n); /* a killed launcher's */
        }
        closedir(d);
}

/* Write |text| as |view|/|name|, whole or not at all (kept when another
 * run wrote it first: the name is the text's hash). */
static bool write_manifest(int view, const char *name, const char *text)
{
        whole_file f;
        if (!whole_file_begin(&f, view))
                return false;
        bool ok = sys_write_all(f.fd, text, strlen(text)) && fsync(f.fd) == 0;
        return whole_file_end(&f, name, false, ok);
}

/* ---- the rest of /etc: the saved listing (etc-scan.h) copied in --------------------------- */

/* Does the plan put an entry of its own at /etc/|top| (a file of the
 * list, a generated one)? Then the listing's is not copied; the list's
 * directories come from the listing. */
static bool planned_top(const cordon_plan *p, const char *top, size_t len)
{
        for (size_t i = 0; i < p->n_mounts; i++) {
                entry_kind k;
                const char *name = etc_name(&p->mounts[i]);
                if (name && strlen(name) == len && memcmp(name, top, len) == 0 && held(&p->mounts[i], true, &k))
                        return true;
        }
        return false;
}

/* "dev ino size mtime ctime mode(octal)", as etc-scan.c lists a file. */
static bool parse_identity(const char *s, struct plan_identity *id)
{
        char *end = NULL;
        errno = 0;
        id->dev = strtoull(s, &end, 10);
        id->ino = strtoull(end, &end, 10);
        id->size = strtoull(end, &end, 10);
        id->mtime_ns = strtoll(end, &end, 10);
        id->ctime_ns = strtoll(end, &end, 10);
        id->mode = (uint32_t)strtoul(end, &end, 8);
        return errno == 0 && end && (*end == '\0' || *end == ' ');
}

/* One line of the listing (a directory, a symlink, a file: "r" lines are
 * the landlock backend's) made in |dfd|; false when the host changed since
 * it was listed. A file with extended attributes (an ACL that refuses
 * someone) stays out, as a copy would drop them. */
static bool tree_entry(int dfd, char *line)
{
        char *rel = line + 2, *tab = strchr(rel, '\t');
        if (line[0] == 'd')
                return mkdirat(dfd, rel, 0755) == 0;
        if (!tab || (line[0] != 'l' && line[0] != 'f'))
                return line[0] == 'r';
        *tab = '\0';
        if (line[0] == 'l')
                return symlinkat(tab + 1, dfd, rel) == 0;
        struct plan_identity id;
        _cleanup_free_ char *src = strjoin2("/etc/", rel);
        bool xattrs = false;
        return src && parse_identity(tab + 1, &id) && (copy_file(dfd, rel, src, &id, &xattrs) || xattrs);
}

static bool copy_tree(int dfd, const cordon_plan *p, char *text)
{
        for (char *line = text; line && *line;) {
                char *nl = strchr(line, '\n');
                if (!nl)
                        return false;
                *nl = '\0';
                const char *rel = line + 2;
                size_t top = strcspn(rel, "/\t");
                if (strlen(line) < 3 || line[1] != '\t' || (!planned_top(p, rel, top) && !tree_entry(dfd, line)))
                        return false;
                line = nl + 1;
        }
        return true;
}

/* Build the directory |gen| of |p| in |view| (in a temporary directory,
 * renamed when whole), then its manifest |gen|.m; with the rest of /etc
 * when |tree| (the listing the manifest names). */
static bool build(int view, const cordon_plan *p, const char *gen, const char *manifest, const etc_tree *tree)
{
        char tmp[NAME_MAX + 1], mname[NAME_MAX + 3];
        whole_temp_name(tmp, sizeof(tmp), "");
        snprintf(mname, sizeof(mname), "%s.m", gen);
        if (mkdirat(view, tmp, 0755) < 0)
                return false;
        _cleanup_close_ int dfd = openat(view, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        bool ok = dfd >= 0;
        for (size_t i = 0; ok && i < p->n_mounts; i++) {
                entry_kind k;
                if (held(&p->mounts[i], tree != NULL, &k))
                        ok = make_entry(dfd, &p->mounts[i], etc_name(&p->mounts[i]), k);
        }
        if (ok && tree) {
                etc_tree full = {0};
                ok = etc_tree_get(view, ETC_ALL, &full) == 0 && full.hash == tree->hash && copy_tree(dfd, p, full.text);
                if (!ok) /* the host changed since: walk again next time */
                        etc_tree_invalidate(view);
                etc_tree_clear(&full);
        }
        /* When |gen| exists already, another run made it meanwhile (its
         * manifest is what the caller reads next), or it is being removed,
         * or a launcher was killed before writing its manifest (removed
         * later as stale): ours is not used, and neither is it unless its
         * manifest says so. */
        ok = ok && syncfs(dfd) == 0;
        bool placed = ok && renameat(view, tmp, view, gen) == 0;
        if (ok && !placed && stale_orphan(view, gen, mname)) {
                remove_flat(view, gen);
                placed = renameat(view, tmp, view, gen) == 0;
        }
        ok = placed;
        remove_flat(view, tmp);
        ok = ok && write_manifest(view, mname, manifest);
        if (ok)
                remove_stale(view, gen);
        return ok;
}

static void mark_covered(const cordon_plan *p, bool *covered, bool tree)
{
        for (size_t i = 0; i < p->n_mounts; i++) {
                entry_kind k;
                covered[i] = (tree && p->mounts[i].etc_view) ||
                             (etc_name(&p->mounts[i]) && kind_of(&p->mounts[i], &k) &&
                              (k == ENTRY_COPY || k == ENTRY_GENERATED || k == ENTRY_LINK || (tree && k == ENTRY_DIR)));
        }
}

/* The directory |gen| of |view| by its path without a symlink (the child
 * opens it so, in its own mount namespace: a mount of the launcher's cannot
 * be cloned there) and its identity, which the child checks. */
static char *gen_path(const cordon_plan *p, int view, const char *gen, struct stat *st)
{
        const char *root = NULL; /* resolved by the plan: the instance root's bind */
        for (size_t i = 0; i < p->n_mounts && !root; i++)
                if (p->mounts[i].origin == ORIGIN_INSTANCE && p->mounts[i].type == MOUNT_BIND &&
                    streq(p->mounts[i].target, p->instance_root))
                        root = p->mounts[i].source;
        _cleanup_close_ int fd = root ? openat(view, gen, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        return fd >= 0 && fstat(fd, st) == 0 ? xasprintf("%s/" VIEW_DIR "/%s", root, gen) : NULL;
}

char *view_etc_open(const cordon_plan *p, bool *covered, int *ret_lock, struct stat *ret_st)
{
        *ret_lock = -1;
        if (!plan_fits(p))
                return NULL;
        _cleanup_close_ int view = etc_view_dir_open(p->instance_root);
        etc_tree tree = {0};
        bool has_tree = tree_mount(p) != NULL;
        /* without the listing, nothing of the rest of /etc is shown */
        if (view < 0 || (has_tree && etc_tree_get(view, ETC_HASH, &tree) < 0))
                return NULL;
        _cleanup_free_ char *manifest = manifest_of(p, has_tree ? &tree : NULL);
        if (!manifest)
                return NULL;
        char gen[32], mname[40];
        snprintf(gen, sizeof(gen), "etc-%016" PRIx64, fnv1a(manifest));
        snprintf(mname, sizeof(mname), "%s.m", gen);
        _cleanup_close_ int lock = open_manifest(view, mname, manifest);
        if (lock < 0 && !plan_racy(p)) {
                (void)build(view, p, gen, manifest, has_tree ? &tree : NULL);
                lock = open_manifest(view, mname, manifest);
        }
        char *path = lock >= 0 ? gen_path(p, view, gen, ret_st) : NULL;
        if (!path)
                return NULL;
        mark_covered(p, covered, has_tree);
        *ret_lock = TAKE_FD(lock);
        return path;
}
