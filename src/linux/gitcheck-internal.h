/* SPDX-License-Identifier: MIT */
/* What the post-run git check's files share, for them alone: gitcheck.c
 * (its life and the walk), gitcheck-config.c (what a repository's config
 * names), gitcheck-journal.c (the journal that describes a check, for a
 * later run or the clean-up helper), gitcheck-aside.c (making a file
 * inert). */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "config.h"
#include "gitcheck.h"

typedef struct identity {
        dev_t dev;
        ino_t ino;
} identity;

struct git_check {
        /* what to check: all of it is in the journal */
        struct timespec t0;
        identity *known; /* git directories the plan protected (landlock: found before the run) */
        size_t n_known;
        identity *kept; /* files kept read-only (a --protect DIR/.git/config too) */
        size_t n_kept;
        char **walk;      /* writable mounts to search (host paths) */
        char **worktrees; /* of the protected repositories (DIR of DIR/.git) */
        char **writable;  /* every writable mount */
        char *home;       /* the caller's home, for "~/" in configs, or NULL */
        char **configs;   /* the user's own config files git reads (the plan's git_configs) */
        bool unprotected; /* landlock: nothing was read-only, the known ones are checked too */
        bool named_open;  /* the plan left a path a known config names writable */
        /* what it found and did */
        char **set_aside;
        char **not_set_aside; /* what could not be made inert */
        size_t budget;
        bool partial, done;
        bool recording;         /* the search before the run: note the git directories, set nothing aside */
        struct timespec newest; /* then: the newest status change of their control files */
        /* the journals */
        int logs;    /* <instance>/logs, or -1 */
        int journal; /* logs/gitcheck.*: this run's, flock'ed while it lives, or -1 */
        char name[64];
        char **dead; /* the journals of killed runs this one checks for */
        cordon_log_fn log_fn;
        void *log_userdata;
        char *dirbuf; /* DIRBUF_SIZE bytes for getdents64, or NULL */
        struct git_globals *globals; /* the user's own config files, read once (gitcheck-config.c) */
};

#define ASIDE_SUFFIX ".cordon-quarantine"
#define POINTER_MAX 4096            /* bytes of a gitfile or commondir read */
#define CONFIG_MAX  ((size_t)1 << 20) /* bytes of a config read; a larger one is not benign */

/* gitcheck.c */
git_check *git_check_new(cordon_log_fn log_fn, void *log_userdata);
/* The search after the run, and the journals closed. */
void git_check_search_all(git_check *gc);
bool git_changed(const git_check *gc, const struct stat *st);
bool git_not_before(const struct timespec *a, const struct timespec *b);
int git_add_identity(identity **v, size_t *n, dev_t dev, ino_t ino);
/* Has the directory |name| in |dfd| (or any entry below it, to a bound)
 * been made or changed during the run? True also when it cannot tell. */
bool git_tree_changed(const git_check *gc, int dfd, const char *name);
/* The same, the newest status change noted into |newest| (before the run). */
void git_tree_note(int dfd, const char *name, struct timespec *newest);
/* The whole small file |name| of |dfd| (a regular file, not followed),
 * NUL-terminated, its length in |*len|; NULL when missing, another type,
 * or larger than |max|. */
char *git_read_small(int dfd, const char *name, size_t max, size_t *len);

/* gitcheck-aside.c: make |name| in |dfd| (|dir| on the host) inert: renamed
 * to NAME.cordon-quarantine[.N|.random], the directory's write bit taken
 * back first when the run took it and the launcher owns it; what cannot
 * be is in not_set_aside. Each is a warning. */
void git_set_aside(git_check *gc, int dfd, const char *name, const char *dir);

/* gitcheck-config.c: the files the config of the git directory |gfd|
 * (|path|, work tree |worktree| or NULL) and the user's own config files
 * name (include.path, includeIf, core.hooksPath, the programs of
 * GIT_KEY_PROGRAM keys) that the run made or changed, or moved a
 * directory on their way, are set aside; every one that exists when
 * |touched| (the git directory is the run's). */
void git_check_named(git_check *gc, int gfd, const char *path, const char *worktree, bool touched);
void git_globals_free(struct git_globals *g);

/* gitcheck-journal.c */
void git_journal_open(git_check *gc);
void git_journal_take_over_dead(git_check *gc);
void git_journals_close(git_check *gc);
