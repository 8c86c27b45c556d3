/* SPDX-License-Identifier: MIT */
/* The host's /etc as the system view shows it (DESIGN.md, "The view of
 * the system"): every entry others may read (a directory others may list
 * and enter, a regular file others may read, a symlink), less a short deny
 * list (the host's identifiers and user databases, etc_denied) and less
 * the files of a kind known to carry credentials that hold one
 * (etc_holds_credential). A file the host keeps from others stays out by
 * the host's own rule, whoever runs the command (root included).
 *
 * One walk of /etc gives a listing (etc-scan.h); it is kept in
 * <instance>/logs/view/tree, hidden from every command like the rest of
 * logs/, and walked again only when older than CHECK_S seconds or when
 * /etc itself changed (an entry added, removed or renamed there), so that
 * a run reads one small file: its cost does not grow with /etc. A change
 * deeper in /etc shows within CHECK_S seconds. Called by view.c (the linux
 * backend copies the listing into its prepared /etc) and landlock.c (the
 * landlock backend's read rules are the listing's "r" lines). */
#include "etc-scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"
#include "whole-file.h"

#define TREE_NAME "tree"
#define TREE_HEAD "cordon tree 1"
#define CHECK_S 2                     /* a listing this old is walked again */
#define RACY_NS (2LL * 1000000000)    /* a file changed this recently: its timestamps may not show the next change */
#define MAX_FILE (4LL * 1024 * 1024)  /* larger files stay out */
#define MAX_DEPTH 24
#define MAX_SCAN_READ ((size_t)256 * 1024) /* a credential kind's file is read this far */

/* Shown to nobody even when others may read them: what identifies the
 * host or its users (the view has its own passwd and group). */
static const char *const DENIED[] = {
        "machine-id", "machine-info", "hostid", "hostname", "mailname", "passwd-", "group-", "shadow", "shadow-",
        "gshadow", "gshadow-", "subuid", "subuid-", "subgid", "subgid-", ".pwd.lock", "security/opasswd",
        "ssl/private", "krb5.keytab", NULL,
};
/* Denied with everything they start with: the host's ssh keys (even the
 * public ones identify the host). */
static const char *const DENIED_PREFIX[] = {"ssh/ssh_host_", NULL};

/* Files of these names are known to carry credentials (a registry token,
 * a proxy password): one is left out when it holds one. */
static const char *const CREDENTIAL_KINDS[] = {
        "npmrc", ".npmrc", "yarnrc", ".yarnrc", ".yarnrc.yml", "pip.conf", "pip.ini", ".pypirc", "pypirc",
        "environment", "wgetrc", "netrc", ".netrc", "gemrc", ".gemrc", "boto.cfg", ".boto", "credentials",
        "credentials.toml", "auth.conf", "settings.xml", "config.json", "gitconfig", "hgrc", "uv.toml", NULL,
};
/* ... and what marks one there, case-insensitively, outside comments */
static const char *const CREDENTIAL_MARKS[] = {
        "token", "secret", "passw", "_auth", "apikey", "api_key", "api-key", "access_key", "private_key",
        "authorization", "extraheader", NULL,
};

bool etc_denied(const char *rel)
{
        for (size_t i = 0; DENIED[i]; i++)
                if (streq(rel, DENIED[i]))
                        return true;
        for (size_t i = 0; DENIED_PREFIX[i]; i++)
                if (strncmp(rel, DENIED_PREFIX[i], strlen(DENIED_PREFIX[i])) == 0)
                        return true;
        return false;
}

static bool credential_kind(const char *rel)
{
        const char *base = strrchr(rel, '/');
        base = base ? base + 1 : rel;
        for (size_t i = 0; CREDENTIAL_KINDS[i]; i++)
                if (streq(base, CREDENTIAL_KINDS[i]))
                        return true;
        return false;
}

/* A URL with a password in it: "scheme://user:password@host". */
static bool url_userinfo(const char *s, size_t len)
{
        for (size_t i = 0; i + 3 < len; i++) {
                if (memcmp(s + i, "://", 3) != 0)
                        continue;
                bool colon = false;
                for (size_t j = i + 3; j < len && !strchr("/ \t\r\n\"'<>", s[j]); j++) {
                        if (s[j] == ':')
                                colon = true;
                        if (s[j] == '@' && colon)
                                return true;
                }
        }
        return false;
}

static bool line_holds_credential(const char *s, size_t len)
{
        char low[1024];
        size_t n = len < sizeof(low) - 1 ? len : sizeof(low) - 1;
        for (size_t i = 0; i < n; i++)
                low[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
        low[n] = '\0';
        for (size_t i = 0; CREDENTIAL_MARKS[i]; i++)
                if (strstr(low, CREDENTIAL_MARKS[i]))
                        return true;
        return url_userinfo(s, len);
}

bool etc_holds_credential(const char *rel, const char *data, size_t len)
{
        if (!credential_kind(rel))
                return false;
        bool in_comment = false; /* XML's <!-- ... --> */
        for (size_t i = 0; i < len;) {
                const char *nl = memchr(data + i, '\n', len - i);
                size_t end = nl ? (size_t)(nl - data) : len, s = i;
                while (s < end && (data[s] == ' ' || data[s] == '\t'))
                        s++;
                const char *line = data + s;
                size_t n = end - s;
                i = end + 1;
                if (in_comment) {
                        const char *close = n >= 3 ? memmem(line, n, "-->", 3) : NULL;
                        if (!close)
                                continue;
                        in_comment = false;
                        n -= (size_t)(close + 3 - line);
                        line = close + 3;
                }
                const char *open = n >= 4 ? memmem(line, n, "<!--", 4) : NULL;
                if (open) {
                        const char *close = memmem(open, n - (size_t)(open - line), "-->", 3);
                        if (line_holds_credential(line, (size_t)(open - line)))
                                return true;
                        if (!close) {
                                in_comment = true;
                                continue;
                        }
                        n -= (size_t)(close + 3 - line);
                        line = close + 3;
                }
                if (n == 0 || line[0] == '#' || line[0] == ';' || line[0] == '!')
                        continue;
                if (line_holds_credential(line, n))
                        return true;
        }
        return false;
}

/* ---- the walk ---------------------------------------------------------------------------- */

typedef struct walker {
        buf list, rules;
        int64_t now_ns;
        bool racy;
} walker;

static int64_t ns_of(const struct timespec *t) { return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec; }

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names in the directory |fd| (closed), sorted: a listing of the same
 * /etc is the same text. NULL-terminated, or NULL. */
static char **sorted_names(int fd, size_t *ret_n)
{
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return NULL;
        }
        char **v = NULL;
        size_t n = 0, cap = 0;
        bool ok = true;
        for (struct dirent *e; ok && (e = readdir(d));) {
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (n + 2 > cap) {
                        cap = cap ? cap * 2 : 32;
                        char **nv = realloc(v, cap * sizeof(*nv));
                        ok = nv != NULL;
                        v = ok ? nv : v;
                }
                if (ok)
                        ok = (v[n++] = strdup(e->d_name)) != NULL;
        }
        closedir(d);
        if (!ok || !v) {
                strv_free(v);
                *ret_n = 0;
                return ok ? calloc(1, sizeof(char *)) : NULL;
        }
        v[n] = NULL;
        qsort(v, n, sizeof(*v), cmp_names);
        *ret_n = n;
        return v;
}

/* Is the file of a credential kind one that holds a credential? Read it
 * (as the host shows it to others: it is world-readable). Unreadable:
 * treated as holding one. */
static bool file_has_credential(int dfd, const char *name, const char *rel)
{
        if (!credential_kind(rel))
                return false;
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        _cleanup_free_ char *data = fd >= 0 ? malloc(MAX_SCAN_READ) : NULL;
        ssize_t n = data ? read(fd, data, MAX_SCAN_READ) : -1;
        return n < 0 || etc_holds_credential(rel, data, (size_t)n);
}

static bool plain_text(const char *s) { return !strpbrk(s, "\t\n"); }

static bool walk_dir(walker *w, int fd, const char *rel, int depth);

/* One entry |name| of the directory |dfd| (at |rel|): listed when the view
 * holds it. Returns whether all of it is in the view; |*ret_file| when it
 * is a regular file (the landlock rule for it is a file's). */
static bool walk_entry(walker *w, int dfd, const char *name, const char *rel, int depth, bool *ret_file)
{
        struct stat st;
        *ret_file = false;
        if (!plain_text(rel) || etc_denied(rel) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        if (S_ISLNK(st.st_mode)) {
                char target[PATH_MAX];
                ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
                if (n <= 0)
                        return false;
                target[n] = '\0';
                if (!plain_text(target))
                        return false;
                buf_printf(&w->list, "l\t%s\t%s\n", rel, target);
                return true;
        }
        if (S_ISDIR(st.st_mode)) {
                if ((st.st_mode & 0005) != 0005 || depth >= MAX_DEPTH)
                        return false;
                int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return false;
                buf_printf(&w->list, "d\t%s\n", rel);
                return walk_dir(w, fd, rel, depth + 1);
        }
        if (!S_ISREG(st.st_mode) || !(st.st_mode & 0004) || st.st_size > MAX_FILE ||
            file_has_credential(dfd, name, rel))
                return false;
        bool racy = w->now_ns - ns_of(&st.st_mtim) < RACY_NS || w->now_ns - ns_of(&st.st_ctim) < RACY_NS;
        w->racy |= racy;
        buf_printf(&w->list, "f\t%s\t%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %o%s\n", rel,
                   (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size, ns_of(&st.st_mtim),
                   ns_of(&st.st_ctim), (unsigned)st.st_mode, racy ? " racy" : "");
        *ret_file = true;
        return true;
}

/* The directory |fd| (closed) at |rel| ("." for /etc): its entries
 * listed; when not all of it is in the view, the landlock rules of those
 * of its entries that are wholly in it. Returns whether all of it is. */
static bool walk_dir(walker *w, int fd, const char *rel, int depth)
{
        int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        size_t n = 0;
        char **names = dfd >= 0 ? sorted_names(fd, &n) : NULL;
        if (dfd < 0)
                close(fd);
        bool *whole = names ? calloc(n + 1, sizeof(bool)) : NULL, *file = names ? calloc(n + 1, sizeof(bool)) : NULL;
        bool all = whole && file, top = streq(rel, ".");
        for (size_t i = 0; all && i < n; i++) {
                _cleanup_free_ char *child = top ? strdup(names[i]) : strjoin3(rel, "/", names[i]);
                whole[i] = child && walk_entry(w, dfd, names[i], child, depth, &file[i]);
                all = child != NULL;
        }
        bool every = all;
        for (size_t i = 0; every && i < n; i++)
                every = whole[i];
        for (size_t i = 0; all && !every && i < n; i++)
                if (whole[i])
                        buf_printf(&w->rules, "r\t%s%s%s\t%s\n", top ? "" : rel, top ? "" : "/", names[i],
                                   file[i] ? "f" : "d");
        if (dfd >= 0)
                close(dfd);
        free(whole);
        free(file);
        strv_free(names);
        return every;
}

/* The listing of the host's /etc, walked now. */
static int walk_etc(etc_tree *ret, bool *ret_racy)
{
        struct timespec now;
        walker w = {0};
        if (clock_gettime(CLOCK_REALTIME, &now) < 0)
                return -errno;
        w.now_ns = ns_of(&now);
        int fd = open_nofollow("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (walk_dir(&w, fd, ".", 0))
                buf_printf(&w.rules, "r\t.\td\n");
        size_t n_rules = w.rules.len;
        _cleanup_free_ char *list = buf_steal(&w.list);
        if (list)
                buf_put(&w.rules, list, strlen(list));
        ret->text = list ? buf_steal(&w.rules) : NULL;
        if (!list)
                free(buf_steal(&w.rules));
        if (!ret->text)
                return -ENOMEM;
        ret->rules_len = n_rules;
        ret->hash = 14695981039346656037ULL; /* FNV-1a */
        for (const unsigned char *c = (const unsigned char *)ret->text; *c; c++)
                ret->hash = (ret->hash ^ *c) * 1099511628211ULL;
        *ret_racy = w.racy;
        return 0;
}

/* ---- the saved listing ------------------------------------------------------------------- */

int etc_view_dir_open(const char *instance_root)
{
        _cleanup_close_ int root = openat(AT_FDCWD, instance_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int logs = root >= 0 ? openat(root, "logs", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        if (logs < 0)
                return -1;
        int fd = openat(logs, "view", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 || errno != ENOENT)
                return fd;
        if (mkdirat(logs, "view", 0700) < 0 && errno != EEXIST)
                return -1;
        return openat(logs, "view", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

void etc_tree_clear(etc_tree *t)
{
        free(t->text);
        *t = (etc_tree){0};
}

/* The header of a saved listing: its hash and /etc's identity then. */
static void format_head(char *out, size_t size, uint64_t hash, size_t rules_len, const struct stat *etc)
{
        snprintf(out, size, TREE_HEAD " %016" PRIx64 " %zu %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 "\n", hash,
                 rules_len, (uint64_t)etc->st_dev, (uint64_t)etc->st_ino, ns_of(&etc->st_mtim),
                 ns_of(&etc->st_ctim));
}

/* The saved listing when fresh: its hash, and as much of the text as
 * |part| asks for. */
static bool read_saved(int view, const struct stat *etc, etc_part part, etc_tree *ret)
{
        _cleanup_close_ int fd = openat(view, TREE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        time_t now = time(NULL);
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_mtime > now + CHECK_S ||
            now - st.st_mtime >= CHECK_S || st.st_size > (off_t)64 * 1024 * 1024)
                return false;
        char head[192];
        /* the header, and the rules that follow it when asked: guessed
         * in one read, a second when they are longer */
        size_t want = part == ETC_ALL ? (size_t)st.st_size : part == ETC_RULES ? 16384 : sizeof(head) - 1;
        want = want < (size_t)st.st_size ? want : (size_t)st.st_size;
        _cleanup_free_ char *data = malloc(want + 1);
        ssize_t n = data ? read(fd, data, want) : -1;
        if (n <= 0)
                return false;
        data[n] = '\0';
        const char *nl = strchr(data, '\n');
        /* TREE_HEAD, the hash, the rules' length: formatted back below and
         * compared whole, so a header cordon did not write is refused */
        char *end = NULL;
        if (!nl || strncmp(data, TREE_HEAD " ", strlen(TREE_HEAD " ")) != 0)
                return false;
        unsigned long long hash = strtoull(data + strlen(TREE_HEAD " "), &end, 16);
        size_t rules_len = end && *end == ' ' ? (size_t)strtoull(end + 1, &end, 10) : 0;
        format_head(head, sizeof(head), (uint64_t)hash, rules_len, etc);
        size_t hlen = (size_t)(nl + 1 - data);
        if (strlen(head) != hlen || strncmp(data, head, hlen) != 0 || hlen + rules_len > (size_t)st.st_size)
                return false;
        size_t need = part == ETC_ALL ? (size_t)st.st_size - hlen : part == ETC_RULES ? rules_len : 0;
        if (need && (ret->text = malloc(need + 1))) {
                size_t have = (size_t)n - hlen < need ? (size_t)n - hlen : need;
                memcpy(ret->text, nl + 1, have);
                ssize_t m = have < need ? pread(fd, ret->text + have, need - have, (off_t)(hlen + have)) : 0;
                if (m < 0 || have + (size_t)m != need)
                        return false;
                ret->text[need] = '\0';
        } else if (need) {
                return false;
        }
        ret->hash = (uint64_t)hash;
        ret->rules_len = rules_len;
        return true;
}

/* Save |t| as |view|/tree, whole or not at all; stale at once when |racy|
 * (the next run walks again, and sees the files' settled timestamps). */
static void save(int view, const etc_tree *t, const struct stat *etc, bool racy)
{
        char head[192];
        format_head(head, sizeof(head), t->hash, t->rules_len, etc);
        whole_file f;
        if (!whole_file_begin(&f, view))
                return;
        bool ok = sys_write_all(f.fd, head, strlen(head)) && sys_write_all(f.fd, t->text, strlen(t->text));
        if (ok && racy) {
                const struct timespec old[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1}};
                ok = futimens(f.fd, old) == 0;
        }
        (void)whole_file_end(&f, TREE_NAME, true, ok);
}

void etc_tree_invalidate(int view)
{
        const struct timespec old[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1}};
        (void)utimensat(view, TREE_NAME, old, AT_SYMLINK_NOFOLLOW);
}

int etc_tree_get(int view, etc_part part, etc_tree *ret)
{
        *ret = (etc_tree){0};
        struct stat etc;
        if (stat("/etc", &etc) < 0)
                return -errno;
        if (view >= 0 && read_saved(view, &etc, part, ret))
                return 0;
        etc_tree_clear(ret);
        bool racy = false;
        int r = walk_etc(ret, &racy);
        if (r < 0)
                return r;
        if (view >= 0)
                save(view, ret, &etc, racy);
        if (part == ETC_HASH) {
                free(ret->text);
                ret->text = NULL;
        } else if (part == ETC_RULES) {
                ret->text[ret->rules_len] = '\0';
        }
        return 0;
}
