/* SPDX-License-Identifier: MIT */
/* What the host's git reads from a repository, and which of it can make
 * git run a program: one model, derived from git's source (2.39,
 * Debian 12's; docs/threat-model.md has the table and the source lines),
 * that the plan (what to keep read-only before a run, plan-git.c) and the
 * post-run check (what to set aside after it, src/linux/gitcheck.c) both
 * use. Pure: every function reads bytes it is given, nothing else; every
 * input may have been written by the sandboxed command. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* ---- the entries of a git directory ------------------------------------------------ */

typedef enum git_rule {
        GIT_RULE_CONFIG,  /* config syntax: run by the keys it sets (git_config_benign) */
        GIT_RULE_HOOKS,   /* each executable entry named after a hook runs */
        GIT_RULE_POINTER, /* commondir: where config and hooks are read from */
        GIT_RULE_DATA,    /* read, decides nothing that runs (info/: attributes pick drivers a config defines) */
        GIT_RULE_TODO,    /* sequencer state: `exec` lines, merge strategies (git_todo_runs_program) */
} git_rule;

typedef struct git_entry {
        const char *name;
        bool dir;
        /* read-only inside on the linux backend (else git writes it in
         * ordinary work: a rebase's state) */
        bool protect;
        git_rule rule;
        const char *placeholder; /* a missing file's placeholder content (NULL: empty) */
} git_entry;

/* config, config.worktree, hooks/, commondir, info/, rebase-merge/,
 * sequencer/; the subdirectories that hold more git directories
 * (modules/NAME at any depth, worktrees/ID) are GIT_NESTED. */
extern const git_entry GIT_ENTRIES[] HIDDEN;
extern const size_t GIT_N_ENTRIES HIDDEN;
extern const char *const GIT_NESTED[] HIDDEN; /* "modules", "worktrees", NULL */
/* The subdirectory of a git directory that holds no git directory git
 * would use, and is the large one: "objects". */
#define GIT_OBJECTS "objects"

/* Is |text| (|len| bytes of a file named HEAD) a HEAD git accepts
 * (validate_headref: "ref:", blanks, "refs/..."; or an object name of 40
 * or 64 hex digits at its start)? |link|: |text| is a symlink's target
 * (then it must start with "refs/"). */
bool git_head_valid(const char *text, size_t len, bool link) HIDDEN;

/* ---- config files ---------------------------------------------------------------------- */

/* Called for each variable in file order: |key| "section.name" or
 * "section.subsection.name" (section and name in lower case, as git keys
 * them), |value| (NULL: a key without "=", git's boolean true). Return
 * false to stop. */
typedef bool (*git_config_fn)(const char *key, const char *value, void *userdata);

/* Parse |len| bytes of git config syntax as git's parser does (sections,
 * "[a.b]" and '[a "b"]' headers, a header and a key on one line, quotes,
 * the escapes \n \t \b \\ \", line continuations, comments, a UTF-8 BOM,
 * CRLF), calling |fn|. Returns 0, 1 when |fn| stopped it, -EINVAL where
 * git would refuse the file (the calls before it stay made: git has read
 * those too), -ENOMEM. */
int git_config_parse(const char *data, size_t len, git_config_fn fn, void *userdata) HIDDEN;

/* What a key's value makes git read or run. */
typedef enum git_key_kind {
        GIT_KEY_DATA,    /* nothing git runs or reads as configuration */
        GIT_KEY_INCLUDE, /* include.path, includeIf.*.path: a config file */
        GIT_KEY_HOOKS,   /* core.hooksPath: the hooks directory */
        GIT_KEY_PROGRAM, /* a command git runs (core.fsmonitor, *.sshCommand, alias.X = !..., ...) */
        GIT_KEY_FILE,    /* a file that selects what runs (core.attributesFile) */
} git_key_kind;
git_key_kind git_key_classify(const char *key, const char *value) HIDDEN;

/* The path a command value of a GIT_KEY_PROGRAM key starts with (its
 * first word, when that names a file: it has a '/' or starts with "~/";
 * an alias's after its '!'), or NULL (a name looked up in PATH, a builtin,
 * ENOMEM). Caller frees. */
char *git_program_path(const char *key, const char *value) HIDDEN;

/* Can the config |data| make git run anything, or read anything but
 * itself? False only when every key is on a short list of what `git
 * init`, `git clone`, `git remote add`, `git config user.*` and `git
 * worktree add` write (docs/threat-model.md lists it) with values that
 * run nothing (a URL without a transport helper); a file git refuses is
 * not benign. */
bool git_config_benign(const char *data, size_t len) HIDDEN;

/* ---- the sequencer ------------------------------------------------------------------------ */

/* Does the todo list |data| (rebase-merge/git-rebase-todo, sequencer/todo)
 * hold a command that runs a program (exec, x), or a line git would parse
 * that this cannot? */
bool git_todo_runs_program(const char *data, size_t len) HIDDEN;
/* Is |name| one of git's own merge strategies (rebase-merge/strategy,
 * sequencer/opts' options.strategy; another is git-merge-NAME from PATH)? */
bool git_strategy_builtin(const char *name) HIDDEN;

/* ---- hooks ------------------------------------------------------------------------------------ */

/* A hooks directory entry git never runs: a "*.sample" regular file
 * (`git init`'s template). Any other entry may be a hook, now or for a
 * later git. */
bool git_hook_inert(const char *name, bool regular) HIDDEN;

/* ---- the paths a config names ------------------------------------------------------------ */

/* The absolute path |value| names as git takes it: "~/" from |home|, a
 * relative one from |base|, ".." and "." taken lexically. NULL for what
 * git would not take so (another user's "~user/", "%(prefix)/", no base)
 * or on ENOMEM. Caller frees. */
char *git_expand_path(const char *value, const char *base, const char *home) HIDDEN;

/* Where a config's relative paths start: its file's directory (includes),
 * the work tree (hooksPath, programs, the attributes file: git runs them
 * from its top; NULL for none) and the git directory (a bare repository's
 * hooks run there). */
typedef struct git_config_origin {
        const char *file_dir, *worktree, *gitdir, *home;
} git_config_origin;

/* Called with each path a config names, and its kind. */
typedef void (*git_path_fn)(git_key_kind kind, const char *path, void *userdata);

/* For each variable of the config |data| that names a path git reads as
 * config or runs (git_key_classify), |fn| with the absolute path (a
 * relative one from each of the work tree and the git directory). */
void git_config_paths(const char *data, size_t len, const git_config_origin *o, git_path_fn fn,
                      void *userdata) HIDDEN;

/* The work tree of the git directory |gitdir| that is not a ".git" (a
 * worktree's worktrees/ID, a submodule's modules/NAME): from its "gitdir"
 * file's text (|gitdir_file|, the path of the work tree's .git, or NULL),
 * else its config's core.worktree (|config|, or NULL), relative to
 * |gitdir|; NULL for none (a bare repository). Caller frees. */
char *git_worktree_of(const char *gitdir, const char *gitdir_file, size_t gitdir_len, const char *config,
                      size_t config_len) HIDDEN;
