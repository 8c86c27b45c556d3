/* SPDX-License-Identifier: MIT */
/* Placeholders for protected paths that do not exist yet (a mount point
 * must exist): created on the host before the sandbox starts, bound
 * read-only over themselves, removed afterwards.
 *
 * They lie in writable mounts, which the command controls (DESIGN.md,
 * threat model): each is created relative to its parent directory opened
 * without following any link, and removed only when that parent still
 * holds the very inode created, unchanged. Every run journals what it
 * created in <instance>/logs/placeholders.* under an flock held while it
 * lives: a journal whose lock is free belongs to a run that was killed.
 *
 * A placeholder one run made looks like an existing file to the plan of
 * another run on the same workspace, which binds it too; unlinked on the
 * host, it would no longer be protected in that sandbox. So every run that
 * protects paths holds a shared lock on logs/placeholders.lock while it
 * lives, and placeholders are removed (and killed runs' journals repaired)
 * only under the exclusive lock, by the last run alive; the others leave
 * theirs, and their journals, to that one. */
#include "protect.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "instance.h"
#include "journal.h"
#include "sys.h"
#include "undo.h"

#define JOURNAL_PREFIX "placeholders."
#define LOCK_NAME "placeholders-lock"

typedef struct placeholder {
        char *path;   /* host path */
        dev_t dev;
        ino_t ino;
        bool is_dir;
        off_t size;   /* a file's content length */
        int parent;   /* the directory it was made in (it may have moved since), or -1 */
} placeholder;

struct placeholders {
        placeholder *v;
        size_t n;
        int logs;      /* <instance>/logs, or -1 */
        int journal;   /* this run's journal, flock'ed, or -1 */
        int lock;      /* logs/placeholders-lock, shared while we live, or -1 */
        char name[64]; /* its name in logs/ */
        /* Where a killed run's journal may remove anything: inside this
         * plan's writable mounts (placeholders are made nowhere else), not
         * in cordon's own instance directories. An entry elsewhere (another
         * workspace's) is left with its journal for a run there. */
        char **scope;
        char **not_scope;
};

static void placeholder_clear(placeholder *ph)
{
        free(ph->path);
        if (ph->parent >= 0)
                close(ph->parent);
}

static bool in_scope(const placeholders *list, const char *path)
{
        bool in = false;
        for (size_t i = 0; list->scope && list->scope[i]; i++)
                in |= path_startswith(path, list->scope[i]);
        for (size_t i = 0; list->not_scope && list->not_scope[i]; i++)
                in &= !path_startswith(path, list->not_scope[i]);
        return in;
}

/* The scope for |p|: its writable binds, less the instance's logs/,
 * skills/ and identity record. */
static int scope_set(placeholders *list, const cordon_plan *p)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (p->mounts[i].type == MOUNT_BIND && p->mounts[i].writable &&
                    strv_push(&list->scope, p->mounts[i].source) < 0)
                        return -ENOMEM;
        for (size_t i = 0; INSTANCE_OWN[i]; i++) {
                char *own = p->instance_root ? path_join(p->instance_root, INSTANCE_OWN[i]) : NULL;
                if (p->instance_root && (!own || strv_consume(&list->not_scope, own) < 0))
                        return -ENOMEM;
        }
        return 0;
}

/* |path|'s last component in |name|: 0, or -1 with errno. */
static int parent_name(const char *path, char name[NAME_MAX + 1])
{
        const char *slash = strrchr(path, '/');
        size_t len = slash ? strlen(slash + 1) : 0;
        if (len == 0 || len > NAME_MAX) {
                errno = EINVAL;
                return -1;
        }
        memcpy(name, slash + 1, len + 1);
        return 0;
}

/* The parent directory of |path|, opened without following links, and
 * |path|'s last component in |name|. */
static int open_parent(const char *path, char name[NAME_MAX + 1])
{
        const char *slash = strrchr(path, '/');
        if (parent_name(path, name) < 0)
                return -1;
        _cleanup_free_ char *dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
        if (!dir) {
                errno = ENOMEM;
                return -1;
        }
        return sys_open_nofollow(dir, O_PATH | O_DIRECTORY);
}

/* Is |ph| still the inode made, unchanged (an empty directory, or a file
 * of the size written)? Fills |name| and returns its parent's fd: the very
 * directory it was made in where this run made it (the command may have
 * renamed that directory, or one above it, meanwhile), else the one at
 * its path now. */
static int still_ours(const placeholder *ph, char name[NAME_MAX + 1])
{
        int dfd = ph->parent < 0 ? open_parent(ph->path, name)
                  : parent_name(ph->path, name) < 0 ? -1
                                                    : sys_dup_cloexec(ph->parent, 3);
        struct stat st;
        if (dfd < 0)
                return -1;
        /* Only the very inode recorded: a journal line without one (0)
         * matches nothing, whatever file lies there now. */
        if (ph->dev != 0 && ph->ino != 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            st.st_dev == ph->dev && st.st_ino == ph->ino &&
            (ph->is_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode) && st.st_size == ph->size))
                return dfd;
        close(dfd);
        return -1;
}

static void remove_one(const placeholder *ph)
{
        char name[NAME_MAX + 1];
        int dfd = still_ours(ph, name);
        if (dfd < 0)
                return;
        unlinkat(dfd, name, ph->is_dir ? AT_REMOVEDIR : 0); /* a directory not empty stays */
        close(dfd);
}

/* ---- journals ------------------------------------------------------------------------ */

static void journal_write(const placeholders *list, const placeholder *ph);

static int journal_add(placeholders *list, const placeholder *ph)
{
        placeholder *v = realloc(list->v, (list->n + 1) * sizeof(*v));
        char *path = ph->path ? strdup(ph->path) : NULL;
        if (!v || !path) {
                if (v)
                        list->v = v;
                free(path);
                if (ph->parent >= 0)
                        close(ph->parent);
                return -ENOMEM;
        }
        list->v = v;
        list->v[list->n] = *ph;
        list->v[list->n++].path = path;
        journal_write(list, ph);
        return 0;
}

/* One line "dev ino kind size path" in this run's journal. */
static void journal_write(const placeholders *list, const placeholder *ph)
{
        if (list->journal < 0)
                return;
        char line[PATH_MAX + 96];
        int n = snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 " %c %" PRId64 " %s\n", (uint64_t)ph->dev,
                         (uint64_t)ph->ino, ph->is_dir ? 'd' : 'f', (int64_t)ph->size, ph->path);
        if (n > 0 && (size_t)n < sizeof(line))
                (void)!write(list->journal, line, (size_t)n);
}

/* A decimal number of at most |max|, digits only (strtoull would take a
 * sign, spaces, and wrap "-1" around); |*s| moves past it. */
static bool parse_number(const char **s, uint64_t max, uint64_t *ret)
{
        uint64_t v = 0;
        const char *p = *s;
        if (*p < '0' || *p > '9')
                return false;
        for (; *p >= '0' && *p <= '9'; p++) {
                if (v > (max - (uint64_t)(*p - '0')) / 10)
                        return false;
                v = v * 10 + (uint64_t)(*p - '0');
        }
        *s = p;
        *ret = v;
        return true;
}

/* A path as journal_write writes it: absolute, normalised (no "." nor
 * ".." component, no "//", no trailing "/"), printable, not "/". */
static bool journal_path_ok(const char *path)
{
        _cleanup_free_ char *norm = NULL;
        if (path[0] != '/' || path[1] == '\0' || strlen(path) >= PATH_MAX)
                return false;
        for (const unsigned char *c = (const unsigned char *)path; *c; c++)
                if (*c < 0x20 || *c == 0x7f)
                        return false;
        const char *slash = strrchr(path, '/');
        if (strlen(slash + 1) > NAME_MAX)
                return false;
        return path_normalize(path, false, &norm) == 0 && streq(norm, path);
}

/* One line "dev ino kind size path" (journal_write's), or false for
 * anything else: the journal lies in logs/, which the command cannot
 * write, but a line is trusted no more than it must be (DESIGN.md, threat
 * model). The device and inode are never 0, a directory's size is 0. */
static bool journal_parse(const char *line, placeholder *ret)
{
        uint64_t dev = 0, ino = 0, size = 0;
        const char *s = line;
        if (!parse_number(&s, UINT64_MAX, &dev) || *s++ != ' ' || !parse_number(&s, UINT64_MAX, &ino) ||
            *s++ != ' ')
                return false;
        char kind = *s++;
        if ((kind != 'd' && kind != 'f') || *s++ != ' ' || !parse_number(&s, INT32_MAX, &size) || *s++ != ' ')
                return false;
        if (dev == 0 || ino == 0 || (dev_t)dev != dev || (ino_t)ino != ino || (kind == 'd' && size != 0) ||
            !journal_path_ok(s))
                return false;
        char *path = strdup(s);
        if (!path)
                return false;
        *ret = (placeholder){.path = path, .dev = (dev_t)dev, .ino = (ino_t)ino, .is_dir = kind == 'd', .parent = -1,
                             .size = (off_t)size};
        return true;
}

/* The entries of the journal |fd|: its whole lines that parse. */
static int journal_read(int fd, placeholder **ret, size_t *ret_n)
{
        int copy_fd = sys_dup_cloexec(fd, 3);
        FILE *f = copy_fd < 0 ? NULL : fdopen(copy_fd, "r");
        *ret = NULL;
        *ret_n = 0;
        if (!f) {
                int e = errno;
                if (copy_fd >= 0)
                        close(copy_fd);
                return -e;
        }
        char line[PATH_MAX + 96];
        bool whole = true; /* |line| starts a line */
        while (fgets(line, sizeof(line), f)) {
                size_t len = strlen(line);
                bool starts = whole;
                /* a longer line comes in pieces: none of them is an entry */
                whole = len > 0 && line[len - 1] == '\n';
                if (!starts || !whole)
                        continue;
                line[len - 1] = '\0';
                placeholder ph;
                if (!journal_parse(line, &ph))
                        continue;
                placeholder *v = realloc(*ret, (*ret_n + 1) * sizeof(*v));
                if (!v) {
                        placeholder_clear(&ph);
                        break;
                }
                *ret = v;
                v[(*ret_n)++] = ph;
        }
        fclose(f);
        return 0;
}

/* Does the plan bind |path| (as an existing protected path)? */
static bool plan_binds(const cordon_plan *p, const char *path)
{
        for (size_t i = 0; p && i < p->n_mounts; i++)
                if (p->mounts[i].type == MOUNT_BIND && p->mounts[i].origin == ORIGIN_PROTECT &&
                    streq(p->mounts[i].source, path))
                        return true;
        return false;
}

static bool plan_protects(const cordon_plan *p)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (p->mounts[i].origin == ORIGIN_PROTECT)
                        return true;
        return false;
}

/* A killed run's journal: what it made is removed, unless this plan
 * protects it (the repair's plan, or NULL), in which case this run takes
 * it over. */
struct repair {
        placeholders *list;
        const cordon_plan *p;
};

static void repair_journal(int fd, const char *name, void *userdata)
{
        placeholders *list = ((struct repair *)userdata)->list;
        const cordon_plan *p = ((struct repair *)userdata)->p;
        placeholder *v = NULL;
        size_t n = 0;
        bool keep = false;
        if (journal_read(fd, &v, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                char leaf[NAME_MAX + 1];
                bool here = in_scope(list, v[i].path);
                keep |= !here;
                int dfd = here ? still_ours(&v[i], leaf) : -1;
                if (dfd >= 0)
                        close(dfd);
                if (dfd >= 0 && plan_binds(p, v[i].path))
                        journal_add(list, &v[i]);
                else if (dfd >= 0)
                        remove_one(&v[i]);
                placeholder_clear(&v[i]);
        }
        free(v);
        if (!keep)
                unlinkat(list->logs, name, 0);
}

/* logs/, where the journals are: cordon's own (instance.c checks it
 * against its record), else -1 (no journal: nothing repaired). */
static void logs_open(placeholders *list, const char *instance_root)
{
        list->logs = instance_root ? instance_open_logs(instance_root, NULL) : -1;
        if (list->logs < 0)
                list->logs = -1;
}

/* Start this run's journal, locked while the run lives, noted in |undo|
 * (removed, last, by the helper of a killed launcher). */
static void journal_open(placeholders *list, undo_log *undo)
{
        struct timespec ts;
        if (list->logs < 0 || list->journal >= 0)
                return;
        clock_gettime(CLOCK_REALTIME, &ts);
        for (int tries = 0; tries < 8 && list->journal < 0; tries++) {
                snprintf(list->name, sizeof(list->name), JOURNAL_PREFIX "%d.%ld.%d", (int)getpid(), (long)ts.tv_nsec,
                         tries);
                int note = undo_note_file_at(undo, list->logs, list->name);
                list->journal = openat(list->logs, list->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                undo_made(undo, note, list->journal >= 0, list->logs);
                undo_any_size(undo, note);
        }
        if (list->journal >= 0 && flock(list->journal, LOCK_EX) < 0) {
                close(list->journal);
                list->journal = -1;
                unlinkat(list->logs, list->name, 0);
        }
}

/* Repairs the journals of the runs that are gone (their lock is free; it
 * is taken for the repair), taking over what |p| (or NULL) protects. */
static void repair_dead(placeholders *list, const cordon_plan *p)
{
        struct repair r = {list, p};
        static const journal_kind kind = {JOURNAL_PREFIX, LOCK_EX, repair_journal};
        journal_each(list->logs, &kind, 1, list->name, O_RDWR, true, &r);
}

/* ---- creating and removing ------------------------------------------------------------- */

/* |parent|: the parent directory, opened without following links (by
 * undo_note_path), or -1 to open it here. */
static int create_one(const plan_mount *m, int parent, placeholder *ret)
{
        char name[NAME_MAX + 1];
        int dfd = parent >= 0 ? parent_name(m->source, name) : open_parent(m->source, name);
        if (dfd < 0)
                return -errno;
        if (parent >= 0)
                dfd = parent;
        const char *text = m->content ? m->content : "";
        int r = 0;
        if (m->is_dir) {
                r = mkdirat(dfd, name, 0755) < 0 ? -errno : 0;
        } else {
                int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
                if (fd < 0)
                        r = -errno;
                else if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
                        r = -EIO;
                if (fd >= 0)
                        close(fd);
        }
        struct stat st;
        if (r == 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                r = -errno;
        /* kept to remove it from there, wherever that directory is then */
        int kept = r < 0 ? -1 : dfd != parent ? dfd : sys_dup_cloexec(dfd, 3);
        if (dfd != parent && kept != dfd)
                close(dfd);
        if (r == 0)
                *ret = (placeholder){.path = m->source, .dev = st.st_dev, .ino = st.st_ino, .is_dir = m->is_dir,
                                     .size = (off_t)strlen(text), .parent = kept};
        return r;
}

int protect_lock_take(const cordon_plan *p, int instance_logs, protect_lock *ret)
{
        *ret = (protect_lock){.fd = -1, .logs = -1};
        if (p->backend != BACKEND_LINUX || !plan_protects(p))
                return 0;
        int logs = instance_logs < 0 ? -1 : sys_dup_cloexec(instance_logs, 3);
        int fd = logs < 0 ? -1 : openat(logs, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
                ret->exclusive = flock(fd, LOCK_EX | LOCK_NB) == 0;
                if (!ret->exclusive && flock(fd, LOCK_SH) < 0) {
                        close(fd);
                        fd = -1;
                }
        }
        if (fd < 0) { /* no logs/ (yet): placeholders are removed unconditionally */
                if (logs >= 0)
                        close(logs);
                return 0;
        }
        ret->fd = fd;
        ret->logs = logs; /* checked now: protect_placeholders_create does not open it again */
        return 0;
}

void protect_lock_release(protect_lock *lock)
{
        if (lock->fd >= 0)
                close(lock->fd);
        if (lock->logs >= 0)
                close(lock->logs);
        *lock = (protect_lock){.fd = -1, .logs = -1};
}

int protect_placeholders_create(const cordon_plan *p, undo_log *undo, int *notes, const int *dirs,
                                protect_lock *lock, placeholders **ret, cordon_error **ret_error)
{
        *ret = NULL;
        if (p->backend != BACKEND_LINUX)
                return 0;
        placeholders *list = calloc(1, sizeof(*list));
        if (!list)
                return error_set(ret_error, ENOMEM, "out of memory");
        list->logs = list->journal = -1;
        list->lock = lock ? lock->fd : -1;
        list->logs = lock ? lock->logs : -1;
        if (lock)
                lock->fd = lock->logs = -1; /* ours now */
        *ret = list;
        if (!plan_protects(p))
                return 0;
        if (scope_set(list, p) < 0)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (list->logs < 0)
                logs_open(list, p->instance_root);
        if (list->logs >= 0 && lock && lock->exclusive)
                repair_dead(list, p); /* no other run alive */
        if (list->lock >= 0)
                flock(list->lock, LOCK_SH);
        for (size_t i = 0, k = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                placeholder ph = {.parent = -1};
                if (!m->missing)
                        continue;
                journal_open(list, undo);
                /* Journaled once made, with its inode: a line without one
                 * would match whatever file lies there later. A run killed
                 * in between (with its undo helper) leaves that one
                 * placeholder behind. */
                int r = create_one(m, notes ? dirs[k] : -1, &ph);
                /* The undo note learns at once whether it was made (and its
                 * inode): a pending note is undone by name, so it must not
                 * outlive a path found taken (EEXIST). */
                if (notes) {
                        undo_made(undo, notes[k], r == 0, dirs[k]);
                        notes[k] = -1;
                }
                k++;
                if (r == -EEXIST)
                        continue; /* created meanwhile: the bind checks what it is */
                if (r == 0)
                        r = journal_add(list, &ph);
                if (r < 0) {
                        *ret = protect_placeholders_remove(list);
                        return error_set(ret_error, -r,
                                         "cannot create a placeholder for the protected path %s: %s%s", m->source,
                                         strerror(-r),
                                         r == -ELOOP ? " (a directory on the way is a symlink now: cordon "
                                                       "does not follow links in writable mounts)"
                                                     : "");
                }
        }
        return 0;
}

placeholders *protect_placeholders_remove(placeholders *list)
{
        if (!list)
                return NULL;
        bool last = list->lock < 0 || flock(list->lock, LOCK_EX | LOCK_NB) == 0;
        for (size_t i = 0; i < list->n; i++) {
                if (last)
                        remove_one(&list->v[i]);
                placeholder_clear(&list->v[i]);
        }
        free(list->v);
        if (last && list->lock >= 0)
                repair_dead(list, NULL);
        if (list->journal >= 0) {
                if (last) /* else it stays for the last run alive to repair */
                        unlinkat(list->logs, list->name, 0);
                close(list->journal);
        }
        if (list->lock >= 0) {
                flock(list->lock, LOCK_UN); /* the undo helper may hold the same open file */
                close(list->lock);
        }
        if (list->logs >= 0)
                close(list->logs);
        strv_free(list->scope);
        strv_free(list->not_scope);
        free(list);
        return NULL;
}
