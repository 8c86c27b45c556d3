/* SPDX-License-Identifier: MIT */
/* The child environment: the shell environment policy, then the user
 * environment redirection, then the sandbox markers. Pure. */
#pragma once

#include "config.h"

typedef struct env_input {
        const char *const *base;   /* the environment the policy starts from */
        const env_kv *extra;       /* per-command additions (after "set") */
        size_t n_extra;
        const char *instance_root; /* redirect into <root>/runtime-user-env; NULL: don't */
        const char *backend;       /* CORDON_SANDBOX value; NULL: no markers */
        const char *home;          /* the caller's real home, for "~/" in set values */
        /* the platform's own: names "core" keeps too (NULL: none), and
         * whether names are compared without case there (Windows) */
        const char *const *core_extra;
        bool names_casefold;
} env_input;

/* Builds "NAME=VALUE" strings sorted by name. Returns 0 or -ENOMEM. */
int env_build(const cordon_config *c, const env_input *in, char ***ret) HIDDEN;
/* A copy of |env| (from env_build) whose proxy variables name |port| on
 * the proxy's host instead of PROXY_PORT (the landlock backend's proxy
 * listens on a port the kernel picks at start). NULL: out of memory. */
char **env_with_proxy_port(const char *const *env, unsigned port) HIDDEN;
/* The value of |name| in |env|, or NULL. */
const char *env_get(char *const *env, const char *name) HIDDEN;
/* Sets |name| to |value| in |env|: in its place, else at the end. 0 or -ENOMEM. */
int env_set(char ***env, const char *name, const char *value) HIDDEN;
/* The variables the "core" template keeps. */
extern const char *const ENV_CORE_NAMES[] HIDDEN;
