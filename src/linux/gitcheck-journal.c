/* SPDX-License-Identifier: MIT */
/* The journal of a git check: a run whose launcher is killed checks
 * nothing itself, and what its command made is older than the next run's
 * start, so it would pass. Each run leaves logs/gitcheck.* (invisible to
 * the command) while it lives, under an flock: everything its check needs
 * (the start, the writable mounts, the git directories and files the plan
 * protected or the search before the run found, the user's config files).
 * It removes it after its check. Should the launcher die first, the
 * clean-up helper (undo.c) runs the check from it at once, in a process
 * of its own (git_check_recover); a later run that finds one unlocked on
 * a mount it searches takes its start for its own, should the helper have
 * died too.
 *
 * One item a line: "SEC NSEC" first, then "/PATH" (a mount to walk), and
 * "m PATH" (writable), "w PATH" (a work tree), "h PATH" (the home), "c
 * PATH" (a config file), "k DEV INO" (known), "p DEV INO" (kept), "u"
 * (nothing was read-only), "n" (a path a known config names was left
 * writable); '\\' and newlines in paths escaped. */
#include "gitcheck-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "sys.h"

#define JOURNAL_PREFIX "gitcheck."
#define JOURNAL_MAX    ((size_t)16 << 20)

static void put_path(buf *b, const char *tag, const char *path)
{
        buf_printf(b, "%s", tag);
        for (const char *c = path; *c; c++)
                if (*c == '\\' || *c == '\n')
                        buf_printf(b, "\\%c", *c == '\n' ? 'n' : '\\');
                else
                        buf_put(b, c, 1);
        buf_put(b, "\n", 1);
}

static char *unescape(const char *s)
{
        buf b = {0};
        for (; *s; s++) {
                char c = *s;
                if (c == '\\' && s[1])
                        c = *++s == 'n' ? '\n' : *s;
                buf_put(&b, &c, 1);
        }
        return buf_steal(&b);
}

static char *journal_text(const git_check *gc)
{
        buf b = {0};
        buf_printf(&b, "%lld %ld\n", (long long)gc->t0.tv_sec, gc->t0.tv_nsec);
        for (size_t i = 0; gc->walk && gc->walk[i]; i++)
                put_path(&b, "", gc->walk[i]);
        for (size_t i = 0; gc->writable && gc->writable[i]; i++)
                put_path(&b, "m ", gc->writable[i]);
        for (size_t i = 0; gc->worktrees && gc->worktrees[i]; i++)
                put_path(&b, "w ", gc->worktrees[i]);
        for (size_t i = 0; gc->configs && gc->configs[i]; i++)
                put_path(&b, "c ", gc->configs[i]);
        if (gc->home)
                put_path(&b, "h ", gc->home);
        for (size_t i = 0; i < gc->n_known; i++)
                buf_printf(&b, "k %" PRIu64 " %" PRIu64 "\n", (uint64_t)gc->known[i].dev, (uint64_t)gc->known[i].ino);
        for (size_t i = 0; i < gc->n_kept; i++)
                buf_printf(&b, "p %" PRIu64 " %" PRIu64 "\n", (uint64_t)gc->kept[i].dev, (uint64_t)gc->kept[i].ino);
        if (gc->unprotected)
                buf_printf(&b, "u\n");
        if (gc->named_open)
                buf_printf(&b, "n\n");
        return buf_steal(&b);
}

/* "DEV INO" */
static bool parse_pair(const char *s, uint64_t *a, uint64_t *b)
{
        char *end = NULL;
        errno = 0;
        *a = strtoull(s, &end, 10);
        if (errno || end == s || *end != ' ')
                return false;
        const char *t = end + 1;
        *b = strtoull(t, &end, 10);
        return !errno && end != t && *end == '\0';
}

/* One line of a journal into |gc|; -EINVAL for one it does not know. */
static int load_line(git_check *gc, char *line)
{
        uint64_t dev, ino;
        if (line[0] == '/')
                return strv_consume(&gc->walk, unescape(line));
        if (streq(line, "u") || streq(line, "n")) {
                *(line[0] == 'u' ? &gc->unprotected : &gc->named_open) = true;
                return 0;
        }
        if (line[0] && line[1] == ' ' && strchr("mwch", line[0])) {
                char *path = unescape(line + 2);
                if (!path || path[0] != '/') {
                        free(path);
                        return path ? -EINVAL : -ENOMEM;
                }
                if (line[0] == 'h') {
                        free(gc->home);
                        gc->home = path;
                        return 0;
                }
                return strv_consume(line[0] == 'm' ? &gc->writable : line[0] == 'w' ? &gc->worktrees : &gc->configs,
                                    path);
        }
        if ((line[0] == 'k' || line[0] == 'p') && line[1] == ' ' && parse_pair(line + 2, &dev, &ino))
                return line[0] == 'k' ? git_add_identity(&gc->known, &gc->n_known, (dev_t)dev, (ino_t)ino)
                                      : git_add_identity(&gc->kept, &gc->n_kept, (dev_t)dev, (ino_t)ino);
        return -EINVAL;
}

/* The journal |fd| into |gc|: its start and, with |all|, the rest (a
 * journal of an older cordon has only its mounts: they are all writable). */
static int journal_load(git_check *gc, int fd, bool all)
{
        size_t len = 0;
        _cleanup_free_ char *text = git_read_small(fd, "", JOURNAL_MAX, &len);
        long long sec = 0;
        long nsec = 0;
        /* a number out of range is the clock's extreme: it only widens what is checked */
        if (!text || sscanf(text, "%lld %ld", &sec, &nsec) != 2) // NOLINT(cert-err34-c)
                return -EINVAL;
        gc->t0 = (struct timespec){(time_t)sec, nsec};
        int r = 0;
        char *save = NULL;
        (void)strtok_r(text, "\n", &save);
        for (char *line = strtok_r(NULL, "\n", &save); r == 0 && line; line = strtok_r(NULL, "\n", &save))
                r = all || line[0] == '/' ? load_line(gc, line) : 0;
        if (r == 0 && !gc->writable)
                for (size_t i = 0; gc->walk && gc->walk[i] && r == 0; i++)
                        r = strv_push(&gc->writable, gc->walk[i]);
        return r;
}

static void merge(char ***into, char **from)
{
        for (size_t i = 0; from && from[i]; i++)
                if (!strv_contains(*into, from[i]))
                        strv_push(into, from[i]);
}

static bool shares_a_mount(const git_check *gc, char **roots)
{
        for (size_t i = 0; roots && roots[i]; i++)
                if (strv_contains(gc->walk, roots[i]))
                        return true;
        return false;
}

/* A journal still under its temporary name whose lock is free (|fd|
 * holds it): its run was killed while it wrote it, before any command of
 * its started. */
static void remove_unborn(int fd, const char *name, void *userdata)
{
        (void)fd;
        unlinkat(((git_check *)userdata)->logs, name, 0);
}

/* An unlocked journal (|fd| holds a shared lock) of a run that is gone:
 * when it shares a mount with this run, its start counts as ours. */
static void take_over_one(int fd, const char *name, void *userdata)
{
        git_check *gc = userdata;
        git_check *dead = git_check_new(NULL, NULL);
        if (dead && journal_load(dead, fd, true) == 0 && shares_a_mount(gc, dead->walk)) {
                if (!git_not_before(&dead->t0, &gc->t0))
                        gc->t0 = dead->t0;
                strv_push(&gc->dead, name);
                merge(&gc->walk, dead->walk); /* its other workspaces are checked with ours */
                merge(&gc->writable, dead->writable);
                merge(&gc->worktrees, dead->worktrees);
        }
        git_check_free(dead);
}

void git_journal_take_over_dead(git_check *gc)
{
        static const journal_kind kinds[] = {{"tmp-" JOURNAL_PREFIX, LOCK_EX, remove_unborn},
                                             {JOURNAL_PREFIX, LOCK_SH, take_over_one}};
        journal_each(gc->logs, kinds, ARRAY_SIZE(kinds), gc->name, O_RDONLY | O_NONBLOCK, true, gc);
}

/* This run's journal: written under a temporary name, locked, then renamed
 * into place, so that none is ever seen unlocked while its run lives. */
void git_journal_open(git_check *gc)
{
        char tmp[80];
        snprintf(gc->name, sizeof(gc->name), JOURNAL_PREFIX "%d.%ld", (int)getpid(), (long)gc->t0.tv_nsec);
        snprintf(tmp, sizeof(tmp), "tmp-%s", gc->name);
        int fd = openat(gc->logs, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return;
        _cleanup_free_ char *text = journal_text(gc);
        bool ok = text && flock(fd, LOCK_EX) == 0 && sys_write_all(fd, text, strlen(text)) &&
                  renameat(gc->logs, tmp, gc->logs, gc->name) == 0;
        if (!ok) {
                unlinkat(gc->logs, tmp, 0);
                close(fd);
                return;
        }
        gc->journal = fd;
}

void git_journals_close(git_check *gc)
{
        for (size_t i = 0; gc->done && gc->dead && gc->dead[i]; i++)
                unlinkat(gc->logs, gc->dead[i], 0);
        if (gc->journal >= 0) {
                unlinkat(gc->logs, gc->name, 0);
                close(gc->journal);
                gc->journal = -1;
        }
}

/* The journal |name| of |logs| locked for this check: its run (and any
 * process of its sandbox that held it) is gone once the lock is free; a
 * few tries, as the helper may start while the last of them exits. */
static int lock_journal(int logs, const char *name)
{
        if (strncmp(name, JOURNAL_PREFIX, strlen(JOURNAL_PREFIX)) != 0 || strchr(name, '/'))
                return -EINVAL;
        int fd = openat(logs, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        for (int i = 0; i < 1500; i++) { /* 30 s: the last process of the sandbox may be slow to go */
                if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
                        if (fstat(fd, &st) == 0 && st.st_nlink > 0)
                                return fd;
                        close(fd);
                        return -ENOENT; /* checked meanwhile by another */
                }
                nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
        close(fd);
        return -EBUSY;
}

int git_check_recover(int logs, const char *name, cordon_log_fn log_fn, void *log_userdata)
{
        int fd = lock_journal(logs, name);
        if (fd < 0)
                return fd;
        git_check *gc = git_check_new(log_fn, log_userdata);
        int r = gc ? journal_load(gc, fd, true) : -ENOMEM;
        if (r == 0) {
                gc->logs = sys_dup_cloexec(logs, 3);
                gc->journal = fd; /* removed when the check is done */
                snprintf(gc->name, sizeof(gc->name), "%s", name);
                fd = -1;
                git_check_search_all(gc);
        }
        if (fd >= 0)
                close(fd);
        r = r == 0 && git_check_not_set_aside(gc) ? -EIO : r;
        git_check_free(gc);
        return r;
}

static void collect_dead(int fd, const char *name, void *userdata)
{
        (void)fd;
        strv_push(userdata, name);
}

int git_check_recover_dead(int logs, cordon_log_fn log_fn, void *log_userdata)
{
        static const journal_kind kinds[] = {{JOURNAL_PREFIX, LOCK_EX, collect_dead}};
        _cleanup_strv_ char **dead = NULL;
        journal_each(logs, kinds, ARRAY_SIZE(kinds), NULL, O_RDONLY | O_NONBLOCK, true, &dead);
        int r = 0; /* each checked once the listing's locks are gone */
        for (size_t i = 0; dead && dead[i]; i++)
                if (git_check_recover(logs, dead[i], log_fn, log_userdata) == -EIO)
                        r = -EIO;
        return r;
}
