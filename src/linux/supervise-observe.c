/* SPDX-License-Identifier: MIT */
/* --explain: the command's calls that take a path, observed on the
 * supervisor's thread and answered "continue" (the kernel then makes the
 * call as without the observer: nothing here decides). Before answering,
 * the path is resolved against the plan to predict a refusal: a path the
 * sandbox's view does not show while the host has it (read, exec, write),
 * a write to a read-only mount or, on the landlock backend, outside the
 * writable paths; each noted once in the run's denials (denied.h). The
 * host is looked at without following a link inside a writable path: the
 * command may have made it. Called by supervise.c's serve. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "denied.h"
#include "supervise-internal.h"

#define LINKS_MAX 40

/* What a call names: which argument holds the directory fd (-1: the cwd),
 * which the path, which the flags (-1: none), and what it means. */
typedef enum { INTENT_READ, INTENT_EXEC, INTENT_WRITE, INTENT_CREATE, INTENT_OPEN } intent;
typedef struct observed {
        long nr;
        int dirfd_arg, path_arg, flags_arg;
        intent what;
        bool nofollow; /* the last component is not followed */
} observed;

static const observed CALLS[] = {
#ifdef SYS_open
        {SYS_open, -1, 0, 1, INTENT_OPEN, false},
        {SYS_creat, -1, 0, -1, INTENT_CREATE, false},
        {SYS_stat, -1, 0, -1, INTENT_READ, false},
        {SYS_lstat, -1, 0, -1, INTENT_READ, true},
        {SYS_access, -1, 0, -1, INTENT_READ, false},
        {SYS_mkdir, -1, 0, -1, INTENT_CREATE, true},
        {SYS_unlink, -1, 0, -1, INTENT_WRITE, true},
        {SYS_rmdir, -1, 0, -1, INTENT_WRITE, true},
#endif
        {SYS_openat, 0, 1, 2, INTENT_OPEN, false},
        {SYS_execve, -1, 0, -1, INTENT_EXEC, false},
        {SYS_execveat, 0, 1, -1, INTENT_EXEC, false},
        {SYS_newfstatat, 0, 1, -1, INTENT_READ, false},
        {SYS_statx, 0, 1, -1, INTENT_READ, false},
        {SYS_faccessat, 0, 1, -1, INTENT_READ, false},
        {SYS_faccessat2, 0, 1, -1, INTENT_READ, false},
        {SYS_mkdirat, 0, 1, -1, INTENT_CREATE, true},
        {SYS_unlinkat, 0, 1, -1, INTENT_WRITE, true},
        {SYS_truncate, -1, 0, -1, INTENT_WRITE, false},
};

size_t observed_calls(long *out, size_t max)
{
        size_t n = 0;
        for (size_t i = 0; i < ARRAY_SIZE(CALLS) && n < max; i++)
                out[n++] = CALLS[i].nr;
        return n;
}

static const observed *observed_of(long nr)
{
        for (size_t i = 0; i < ARRAY_SIZE(CALLS); i++)
                if (CALLS[i].nr == nr)
                        return &CALLS[i];
        return NULL;
}

bool is_observed_call(long nr) { return observed_of(nr) != NULL; }

explain_view *explain_view_free(explain_view *v)
{
        if (!v)
                return NULL;
        for (size_t i = 0; i < v->n; i++) {
                free(v->m[i].source);
                free(v->m[i].target);
        }
        free(v->m);
        free(v->home_inside);
        free(v->home_host);
        strv_free(v->path_hidden);
        if (v->root_fd >= 0)
                close(v->root_fd);
        free(v);
        return NULL;
}

/* The deepest mount of |v| whose target holds |path|, or NULL. */
static const explain_mount *covering(const explain_view *v, const char *path)
{
        const explain_mount *best = NULL;
        for (size_t i = 0; i < v->n; i++)
                if (path_startswith(path, v->m[i].target) &&
                    (!best || strlen(v->m[i].target) > strlen(best->target)))
                        best = &v->m[i];
        return best;
}

/* Whether the host path |path| lies in a writable path of the plan. */
static bool in_writable(const explain_view *v, const char *path)
{
        for (size_t i = 0; i < v->n; i++)
                if (v->m[i].writable && v->m[i].source && path_startswith(path, v->m[i].source))
                        return true;
        return false;
}

static host_has host_lookup(const explain_view *v, const char *path, int depth);

/* The link |fd| met at |at| (a directory of the host's) with |rest| after
 * it: followed unless it lies in a writable path. */
static host_has follow(const explain_view *v, int fd, const char *at, const char *rest, int depth)
{
        if (!rest || !rest[0])
                return HOST_HAS_YES; /* the link itself is there */
        char link[PATH_MAX];
        ssize_t n = in_writable(v, at) ? -1 : readlinkat(fd, "", link, sizeof(link) - 1);
        if (n <= 0)
                return HOST_HAS_UNKNOWN;
        link[n] = '\0';
        _cleanup_free_ char *base = link[0] == '/' ? strdup(link) : path_join(at, link);
        _cleanup_free_ char *joined = base ? path_join(base, rest) : NULL, *norm = NULL;
        return joined && path_normalize(joined, true, &norm) == 0 ? host_lookup(v, norm, depth + 1)
                                                                  : HOST_HAS_UNKNOWN;
}

/* Whether the host has |path| (absolute, normalised): walked from "/" one
 * component at a time without following links, a link followed only
 * where it does not lie in a writable path (the command's). */
static host_has host_lookup(const explain_view *v, const char *path, int depth)
{
        if (depth > LINKS_MAX)
                return HOST_HAS_UNKNOWN;
        _cleanup_free_ char *copy = strdup(path), *at = strdup("/");
        _cleanup_close_ int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (!copy || !at || fd < 0)
                return HOST_HAS_UNKNOWN;
        char *save = NULL;
        for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                int next = openat(fd, c, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return errno == ENOENT || errno == ENOTDIR ? HOST_HAS_NO : HOST_HAS_UNKNOWN;
                close(fd);
                fd = next;
                struct stat st;
                if (fstat(fd, &st) < 0)
                        return HOST_HAS_UNKNOWN;
                if (S_ISLNK(st.st_mode))
                        return follow(v, fd, at, save, depth);
                char *deeper = path_join(at, c);
                if (!deeper)
                        return HOST_HAS_UNKNOWN;
                free(at);
                at = deeper;
        }
        return HOST_HAS_YES;
}

/* The absolute path the call names, in the command's view (lexically
 * normalised), or NULL. */
static char *call_path(const call *c, const observed *o, char *raw, size_t cap)
{
        const __u64 *a = c->req->data.args;
        if (call_read_string(c, a[o->path_arg], raw, cap, ENAMETOOLONG) < 0 || !raw[0])
                return NULL;
        _cleanup_free_ char *joined = NULL;
        if (raw[0] != '/') {
                int dirfd = o->dirfd_arg < 0 ? AT_FDCWD : (int)a[o->dirfd_arg];
                char link[64], base[PATH_MAX];
                if (dirfd == AT_FDCWD)
                        snprintf(link, sizeof(link), "/proc/%d/cwd", c->tid);
                else
                        snprintf(link, sizeof(link), "/proc/%d/fd/%d", c->tid, dirfd);
                ssize_t n = readlink(link, base, sizeof(base) - 1);
                if (n <= 0 || base[0] != '/')
                        return NULL;
                base[n] = '\0';
                joined = path_join(base, raw);
        }
        char *norm = NULL;
        return path_normalize(joined ? joined : raw, true, &norm) == 0 ? norm : NULL;
}

/* Inside the command's view, |path|: an O_PATH descriptor, or -errno. */
static int open_inside(const explain_view *v, const char *path, bool nofollow)
{
        if (v->root_fd < 0)
                return -EBADF; /* never the launcher's own view */
        struct open_how how = {.flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0),
                               .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
        long fd = syscall(SYS_openat2, v->root_fd, path, &how, sizeof(how));
        return fd < 0 ? -errno : (int)fd;
}

/* The host path the command meant by |path|, which its view does not
 * show (caller frees), and whether it is its HOME's. */
static char *meant_on_host(const explain_view *v, const char *path, bool *home)
{
        const char *rest = v->home_inside ? path_skip_prefix(path, v->home_inside) : NULL;
        *home = rest && v->home_host;
        if (*home)
                return path_join(v->home_host, rest);
        const explain_mount *m = covering(v, path);
        if (m && m->source) /* a bind: what it shows is all of it */
                return NULL;
        return strdup(path);
}

static void note(const call *c, denied_kind kind, const char *path, const char *rule, host_has has,
                 const char *suggestion)
{
        denied_note(c->s->opt.denied, kind, path, rule, has, suggestion, "explain", -1);
}

/* |path| not in the view: refused if the host has what was meant. */
static void hidden(const call *c, denied_kind kind, const char *path, bool writable)
{
        const explain_view *v = c->s->opt.explain;
        bool home = false;
        _cleanup_free_ char *host = meant_on_host(v, path, &home);
        if (!host || host_lookup(v, host, 0) != HOST_HAS_YES)
                return;
        _cleanup_free_ char *sug = denied_path_suggestion(host, writable, v->home_host);
        _cleanup_free_ char *rule = NULL, *home_sug = NULL;
        if (home && !v->namespaced) { /* Landlock shows a path where it is, nowhere else */
                rule = xasprintf("the sandbox's HOME is its own: the host's %s is elsewhere (expose it, and point "
                                 "the program at it)",
                                 host);
        } else if (home) {
                rule = xasprintf("the sandbox's HOME is its own: the host's %s is not in its view", host);
                if (sug && !streq(sug, DENIED_NOT_ALLOWABLE))
                        home_sug = xasprintf("--expose '%s:$HOME%s%s'%s", host, path[strlen(v->home_inside)] ? "" : "/",
                                             path + strlen(v->home_inside), writable ? ":rw" : "");
        } else {
                rule = strdup("not in the sandbox's view");
        }
        if (rule && sug)
                note(c, kind, path, rule, HOST_HAS_YES, home_sug ? home_sug : sug);
}

/* A write to |path|, visible as |fd| (|dir|: its directory's, for a
 * creation, which the suggestion names): a read-only mount refuses it
 * (EROFS). */
static void read_only(const call *c, int fd, const char *path, const char *dir)
{
        const explain_view *v = c->s->opt.explain;
        struct statvfs sv;
        if (fstatvfs(fd, &sv) < 0 || !(sv.f_flag & ST_RDONLY))
                return;
        const char *named = dir ? dir : path;
        const explain_mount *m = covering(v, named);
        _cleanup_free_ char *host = m && m->source ? path_join(m->source, path_skip_prefix(named, m->target)) : NULL;
        _cleanup_free_ char *sug = denied_path_suggestion(host ? host : named, true, v->home_host);
        if (sug)
                note(c, DENIED_WRITE, path,
                     m && m->source ? "a read-only exposure (or system path) of the sandbox's view"
                                    : "read-only in the sandbox's view",
                     HOST_HAS_YES, sug);
}

/* A program looked for where the view has none (a PATH search: stat or
 * exec of DIR/NAME): is NAME in a PATH entry of the host's that the view
 * hides? Then that entry is what would bring it. */
static bool hidden_tool(const call *c, const char *path)
{
        const explain_view *v = c->s->opt.explain;
        const char *name = strrchr(path, '/');
        for (size_t i = 0; name && name[1] && v->path_hidden && v->path_hidden[i]; i++) {
                _cleanup_free_ char *cand = path_join(v->path_hidden[i], name + 1);
                if (!cand || streq(cand, path) || host_lookup(v, cand, 0) != HOST_HAS_YES)
                        continue;
                _cleanup_free_ char *sug = denied_path_suggestion(v->path_hidden[i], false, v->home_host);
                if (sug)
                        note(c, DENIED_EXEC, cand, "a PATH entry of the host's that the sandbox does not show",
                             HOST_HAS_YES, sug);
                return true;
        }
        return false;
}

/* The landlock backend: the view is the host's, the rules the plan's paths. */
static void landlock_predict(const call *c, const char *path, denied_kind kind, bool write)
{
        const explain_view *v = c->s->opt.explain;
        host_has has = host_lookup(v, path, 0);
        _cleanup_free_ char *dir = NULL;
        const char *checked = path;
        if (has == HOST_HAS_NO && write) { /* a creation: its directory decides */
                dir = path_dirname(path);
                checked = dir;
                if (!dir || host_lookup(v, dir, 0) != HOST_HAS_YES)
                        return;
        } else if (has == HOST_HAS_NO) {
                if (write || !hidden_tool(c, path))
                        hidden(c, kind, path, write); /* in the command's HOME: the caller's meant? */
                return;
        } else if (has != HOST_HAS_YES) {
                return;
        }
        const explain_mount *m = covering(v, checked);
        if (path_startswith(checked, "/proc") || path_startswith(checked, "/dev") || (m && (!write || m->writable)))
                return;
        _cleanup_free_ char *sug = denied_path_suggestion(checked, write, v->home_host);
        if (sug)
                note(c, kind, path,
                     write && m ? "Landlock: a read-only path of the plan" : "Landlock: outside the plan's paths",
                     HOST_HAS_YES, sug);
}

static bool creates(const observed *o, int open_flags)
{
        return o->what == INTENT_CREATE || (o->what == INTENT_OPEN && (open_flags & O_CREAT));
}

static bool writes(const observed *o, int open_flags)
{
        return creates(o, open_flags) || o->what == INTENT_WRITE ||
               (o->what == INTENT_OPEN && (open_flags & (O_WRONLY | O_RDWR | O_TRUNC)));
}

static void predict(const call *c, const observed *o, const char *path, int open_flags)
{
        const explain_view *v = c->s->opt.explain;
        bool create = creates(o, open_flags), write = writes(o, open_flags);
        denied_kind kind = o->what == INTENT_EXEC ? DENIED_EXEC : write ? DENIED_WRITE : DENIED_READ;
        if (!v->namespaced) {
                landlock_predict(c, path, kind, write);
                return;
        }
        int fd = open_inside(v, path, o->nofollow);
        if (fd >= 0) {
                if (write)
                        read_only(c, fd, path, NULL);
                close(fd);
                return;
        }
        if (fd != -ENOENT && fd != -ENOTDIR)
                return;
        /* the name is there, a link the launcher cannot follow as the
         * command does (/etc/mtab to /proc/self/mounts: its own pid here) */
        int lfd = o->nofollow ? -ENOENT : open_inside(v, path, true);
        if (lfd >= 0) {
                close(lfd);
                return;
        }
        _cleanup_free_ char *dir = create ? path_dirname(path) : NULL;
        int dfd = dir ? open_inside(v, dir, false) : -1;
        if (dfd >= 0) { /* its directory is there: the creation works, or meets a read-only mount */
                read_only(c, dfd, path, dir);
                close(dfd);
                return;
        }
        if (write || !hidden_tool(c, path))
                hidden(c, kind, path, write);
}

/* The command's root, where the launcher could not open it at the start
 * (an unprivileged launcher whose sandbox's init is not dumpable): from the
 * caller, once it executed (dumpable, the launcher's uid). */
static void find_root(explain_view *v, pid_t tid)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/root", (int)tid);
        if (v->namespaced && v->root_fd < 0)
                v->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int serve_observe(const call *c)
{
        const observed *o = observed_of(c->req->data.nr);
        explain_view *v = c->s->opt.explain;
        if (v)
                find_root(v, c->tid);
        char raw[PATH_MAX];
        if (o && v && c->s->opt.denied) {
                _cleanup_free_ char *path = call_path(c, o, raw, sizeof(raw));
                int flags = o->flags_arg >= 0 ? (int)c->req->data.args[o->flags_arg] : 0;
                if (path && call_still_valid(c)) {
                        /* a read changes nothing the prediction looks at:
                         * the command goes on while it is made */
                        bool early = !writes(o, flags);
                        if (early)
                                supervise_respond(c->s, c->req->id, CALL_CONTINUE);
                        predict(c, o, path, flags);
                        if (early)
                                return CALL_PENDING; /* answered */
                }
        }
        return CALL_CONTINUE;
}
