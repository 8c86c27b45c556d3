/* SPDX-License-Identifier: MIT */
/* What the cgroup files share (cgroup*.c): a hierarchy of the sandbox's
 * cgroup, what the host offers, and each file's functions the others
 * call. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"

enum { C_MEMORY, C_PIDS, C_CPU, C__MAX };
/* The controllers' names, by C_*. */
extern const char *const CGROUP_CTRL[C__MAX] HIDDEN;

typedef struct hier {
        int version;    /* 1 or 2 */
        unsigned ctrls; /* 1 << C_* */
        char *mount;    /* mount point (prefixed) */
        char *own;      /* the caller's cgroup in it (prefixed) */
        /* the plan: */
        char *enable_first;    /* v2: enable ctrls in this dir's subtree_control first */
        char *parent;          /* where ours is created */
        bool mkdir_parent;     /* parent is a "cordon" directory created on demand */
        bool enable_in_parent; /* v2: enable ctrls in parent's subtree_control */
        /* the result: */
        char *dir; /* ours, once created */
} hier;

/* What the host offers, per controller. */
typedef struct probe {
        int version[C__MAX]; /* 0: none */
        char *mount[C__MAX];
        char *own[C__MAX]; /* NULL: the caller's cgroup is not visible there */
        bool ro[C__MAX];
        char *v2_mount; /* the cgroup2 mount, with or without controllers */
        char *v2_own;
        bool v2_ro;
} probe;

/* cgroup.c */
void cg_hier_free(hier *h) HIDDEN;

/* cgroup-files.c: the cgroup filesystem's files, through env->root. */
/* Store a reason in |*why| (caller frees) and return |r|. */
int cg_fail_why(char **why, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4))) HIDDEN;
/* The next pid of a cgroup.procs text, advancing |*p|; 0 at the end. */
pid_t cg_next_pid(const char **p) HIDDEN;
bool cg_is_fixture(const cgroup_env *env) HIDDEN;
/* |root| + |path|; caller frees. */
char *cg_at_root(const cgroup_env *env, const char *path) HIDDEN;
/* The whole of a small file, NUL-terminated; NULL with errno set. */
char *cg_read_text(const char *path) HIDDEN;
char *cg_read_file2(const char *dir, const char *name) HIDDEN;
/* Write |text| to |dir|/|name| in one write(2), created in a fixture.
 * Returns 0 or -errno. */
int cg_write_file2(bool fixture, const char *dir, const char *name, const char *text) HIDDEN;
bool cg_read_u64(const char *dir, const char *name, uint64_t *ret) HIDDEN;
/* The number after "|key| " in the "key value" file |dir|/|name|. */
bool cg_read_kv(const char *dir, const char *name, const char *key, uint64_t *ret) HIDDEN;
/* Is |word| one of the separator-separated words of |list|? */
bool cg_has_word(const char *list, const char *word, const char *seps) HIDDEN;
/* May |env|'s user create entries in (directory) or write (file) |path|? */
bool cg_may_write(const cgroup_env *env, const char *path) HIDDEN;
bool cg_may_write2(const cgroup_env *env, const char *dir, const char *name) HIDDEN;

/* cgroup-probe.c */
/* Read /proc/self/mountinfo and /proc/self/cgroup (under env->root): which
 * hierarchy holds each controller. Returns 0 or -ENOMEM. */
int cg_probe_read(const cgroup_env *env, probe *pr) HIDDEN;
void cg_probe_free(probe *pr) HIDDEN;

/* cgroup-v1.c and cgroup-v2.c: where the cgroup goes in a hierarchy of
 * that version (h->parent and what to create or enable first), or why it
 * cannot (*why, caller frees): 0 or -errno. (The files of the limits and
 * counters of each version are cgroup.c's, side by side.) */
int cg_plan_v1(const cgroup_env *env, hier *h, char **why) HIDDEN;
int cg_plan_v2(const cgroup_env *env, hier *h, char **why) HIDDEN;
/* v2: enable |ctrls| in |dir|'s cgroup.subtree_control where missing. */
int cg_enable_controllers(bool fixture, const char *dir, unsigned ctrls, char **why) HIDDEN;
