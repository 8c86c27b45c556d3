/* SPDX-License-Identifier: MIT */
/* What the planner's files share, for them alone: plan.c (the view, the
 * exposures, the environment, network and limits; the order of the
 * steps), host-view.c (reading the host through the host root),
 * plan-command.c (the executable, working directory and arguments),
 * plan-writable.c (the checks of the instance root and the writable
 * paths), plan-git.c (repositories in writable mounts and their
 * protection), plan-hints.c (notes for people: hidden PATH entries, the
 * git identity), plan-user.c (who the command runs as). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "plan.h"

#define MAX_SYMLINKS 40

typedef struct builder {
        const cordon_config *c;
        const cordon_command *cmd;
        const host_info *h;
        cordon_plan *p;
        cordon_error **err;
        /* the home directories ($HOME and the passwd entry's) with their
         * symlinks resolved, or NULL */
        char *home_real, *passwd_home_real;
        char *exe_host;  /* the host file the executable is, canonical */
        bool exe_visible; /* ... already visible in the sandbox: nothing to expose */
        int scan_budget;  /* directory entries left to read looking for repositories */
        const char *root_shown; /* the instance root as given (and resolved), for errors */
} builder;

/* ---- host-view.c: the host through the host root ---- */

/* lstat() results while one plan is built (host-view.c). */
struct stat_entry;
struct stat_cache {
        struct stat_entry *e;
        size_t n, cap;
        uint32_t *slots; /* index + 1 into e, 0 for a free slot */
        size_t n_slots;  /* 0 or a power of two */
};

/* Canonical host paths of the writable mounts (the threat model in
 * DESIGN.md): the command controls everything at and below them, during
 * and between runs, so no resolution follows a symlink there. */
struct writable_roots {
        char **roots;
        char *refused; /* the symlink the last refusal met (host path) */
};

/* Frees the entries of |c| and empties it. */
void stat_cache_clear(struct stat_cache *c) HIDDEN;
/* |path| below the host root (caller frees), NULL: ENOMEM. */
char *host_path(const host_info *h, const char *path) HIDDEN;
/* lstat() through the host root (not following a link at the end),
 * cached: 0 or -errno. */
int host_lstat(const host_info *h, const char *path, struct stat *st) HIDDEN;
/* The text of the symlink |path| (caller frees), NULL on failure (errno). */
char *host_readlink(const host_info *h, const char *path) HIDDEN;
/* The writable root at or above the canonical host path |path|, or NULL. */
const char *writable_root_of(const host_info *h, const char *path) HIDDEN;
/* A symlink at |link| inside a writable root: remembers it, -ELOOP. */
int refuse_link(const host_info *h, const char *link) HIDDEN;

/* One component of a path walk (walk_path): 0 to go on, with |*ret_link|
 * set when it is a symlink (its text, which the walk then follows); 1 to
 * stop there and take the rest as is (a missing tail); -errno to fail. */
typedef int (*walk_step)(void *ctx, const char *cand, bool more, char **ret_link);
/* Resolves |path| one component at a time through |step|, "." and ".."
 * lexically, into |*ret| (caller frees). 0, -ELOOP (too many links),
 * -ENOMEM or what |step| returned. */
int walk_path(const char *path, walk_step step, void *ctx, char **ret) HIDDEN;
/* Canonical form of |path| on the host: every symlink resolved, relative
 * to the host root, except that a symlink inside a writable root fails
 * with -ELOOP (h->writable->refused names it). With |allow_missing|, a
 * missing tail is appended as is. */
int host_resolve(const host_info *h, const char *path, bool allow_missing, char **ret) HIDDEN;
/* stat() through the host root: follows symlinks inside it. */
int host_stat(const host_info *h, const char *path, struct stat *st) HIDDEN;

/* ---- plan.c: the mount list and the sandbox's view ---- */

/* The rule for |target|, or NULL. */
plan_mount *find_target(cordon_plan *p, const char *target) HIDDEN;
/* Adds a mount; takes ownership of the strings (also on failure). Keeps
 * the stronger origin when the target already has a rule. 0 or -ENOMEM. */
int add_mount(cordon_plan *p, plan_mount m) HIDDEN;
/* Binds |source| (a host path, resolved here) at |target|. 0 or -errno,
 * with |b->err| set for a refused link. */
int add_bind(builder *b, const char *source, const char *target, bool writable, mount_origin o,
             bool allow_missing) HIDDEN;
/* The refusal of a symlink met inside a writable mount, as an error:
 * "|what| |path|: ... ; |hint|". Returns -ELOOP. */
int link_error(builder *b, const char *what, const char *path, const char *hint) HIDDEN;
/* Where the sandbox path |path| comes from on the host (caller frees), or
 * NULL (not backed by the host, not visible). */
char *sandbox_to_host(const cordon_plan *p, const char *path, int depth) HIDDEN;
/* Is the sandbox path |path| backed by an existing host file? */
bool sandbox_visible(builder *b, const char *path) HIDDEN;
/* The caller's real home, for "~/" in config paths, or NULL. */
const char *caller_home(const host_info *h) HIDDEN;

/* Where the canonical host path |path| is visible in the sandbox (caller
 * frees), or NULL. */
char *host_to_sandbox(const cordon_plan *p, const char *path) HIDDEN;
/* Resolves the sandbox path |path| as the sandbox will; |*ret_host| the
 * host file behind it. 0, -ENXIO (not backed by a host bind), -ENOENT. */
int sandbox_resolve(builder *b, const char *path, char **ret_host) HIDDEN;
/* Why |path| may not be exposed automatically, or NULL. */
const char *auto_expose_problem(const builder *b, const char *path) HIDDEN;
/* The same by the name and by what it resolves to: false when it may not,
 * or is missing. */
bool auto_exposable_resolved(const builder *b, const char *path) HIDDEN;
/* The variable |name| of the environment |env| (NULL: none), or NULL. */
const char *env_value(char *const *env, const char *name) HIDDEN;

/* ---- plan-command.c: what the command needs to start ---- */

/* The working directory, the executable (and a script's interpreter) and
 * the arguments' paths, exposed as auto_expose says. 0 or -errno (|b->err|
 * set, with the exit status 126 or 127 for a command not found). */
int plan_command(builder *b) HIDDEN;

/* ---- plan-writable.c: the instance root and the writable paths ---- */

/* The workspace and the read-write exposures the user chose may be made
 * writable. 0 or -EINVAL (|b->err| set). */
int plan_check_writable(builder *b) HIDDEN;
/* No config file nor profile was read from a path this run makes writable. */
int plan_check_config_files(builder *b) HIDDEN;
/* The writable roots the config asks for, canonical, into h->writable. */
int plan_writable_roots(builder *b) HIDDEN;
/* No writable mount holds the instance root, nor lies inside it but in
 * its workspace/. 0 or -errno (|b->err| set). */
int plan_instance_layout(builder *b) HIDDEN;

/* ---- plan-git.c: protected paths ---- */

/* Protects what git executes in every repository found in the writable
 * binds, and the config's protect paths. 0 or -errno (|b->err| set). */
int plan_protect(builder *b) HIDDEN;

/* ---- plan-hints.c: notes for people ---- */

/* The PATH entries the sandbox hides, each with what would show it, in
 * |*ret_list| ("" for none), and PATH without them in |*ret_kept|. */
int hidden_path_entries(builder *b, char **ret_list, char **ret_kept) HIDDEN;
/* The hint on hidden PATH entries (and, without a view of its own, PATH
 * without them). 0 or -ENOMEM. */
int plan_path_hint(builder *b) HIDDEN;
int plan_exe_hint(builder *b) HIDDEN;
/* Add a note for people that explains exit status |status| (or
 * CORDON_HINT_ANY_FAILURE); takes |text| (NULL: ENOMEM). */
int plan_add_hint(cordon_plan *p, char *text, int status) HIDDEN;
/* The hint on a git identity the sandbox does not show. 0 or -ENOMEM. */
int plan_git_hint(builder *b) HIDDEN;
/* The hint on a repository config git cannot write inside. 0 or -ENOMEM. */
int plan_git_config_hint(builder *b) HIDDEN;

/* ---- plan-user.c: who the command runs as ---- */

/* p->run_uid/run_gid and p->sandbox_user for c->user (after the backend
 * and the instance root); an error for "sandbox" where there is none. */
int plan_user(const cordon_config *c, const host_info *h, cordon_plan *p, cordon_error **ret_error) HIDDEN;
/* The sandbox user's id for |instance_root| (uid and gid), not in
 * |root|/etc/passwd nor /etc/group. */
uint32_t plan_sandbox_id(const char *root, const char *instance_root) HIDDEN;
/* The sandbox user's environment: git told the user's repositories are
 * safe (after the environment is built). 0 or -ENOMEM. */
int plan_user_env(cordon_plan *p) HIDDEN;
