/* SPDX-License-Identifier: MIT */
/* The one validator of config values, shared by the config file
 * (config-parse.c) and the setters (config-setters.c, which the CLI's flags
 * call): pure checks that return why a value is refused, as a static phrase
 * the caller puts after the key ("isolation.home: PHRASE"), or NULL; and the
 * names of the enums' values. writable_path_problem is in config.h. */
#pragma once

#include "config.h"

/* The names config values take, NULL-terminated, in enum order. BACKENDS
 * holds reserved names too (accepted so that plan_build can say they are not
 * available in this version); USABLE_BACKENDS what errors list. */
extern const char *const BACKENDS[] HIDDEN;
extern const char *const USABLE_BACKENDS[] HIDDEN;
extern const char *const NETWORKS[] HIDDEN;
extern const char *const EXPOSE_MODES[] HIDDEN;
extern const char *const LANDLOCK_MODES[] HIDDEN;
extern const char *const USER_MODES[] HIDDEN; /* user_mode's names, in its order */
extern const char *const INHERITS[] HIDDEN;
extern const char *const LIMIT_NAMES[CORDON_LIMIT__MAX] HIDDEN;

/* The index of |name| in |names|, or -1 (also for a NULL |name|). */
int name_index(const char *const *names, const char *name) HIDDEN;

/* "\"a\" or \"b\"", "one of \"a\", \"b\" or \"c\"" (caller frees; NULL: out of memory). */
char *enum_list(const char *const *names) HIDDEN;

/* An absolute directory without "..": NULL with the normalised path in
 * |*ret| (caller frees), else why not, |problem|'s reason included (NULL:
 * no further check). */
const char *dir_problem(const char *dir, const char *(*problem)(const char *), char **ret) HIDDEN;

/* Whether a config path has no "~/" or "$NAME/" prefix left to expand. */
bool config_path_is_expanded(const char *path) HIDDEN;
/* "~/x" and "$NAME/x" (|vars|) normalised after the prefix; else like
 * path_normalize. 0, -EINVAL or -ENOMEM. */
int normalize_config_path(const char *path, bool vars, char **ret) HIDDEN;
/* An exposure's target and source as written. */
const char *target_problem(const char *target) HIDDEN;
const char *source_problem(const char *source) HIDDEN;
/* An exposure's normalised source, as the workspace when |writable|. */
const char *expose_source_problem(const char *source, bool writable) HIDDEN;

/* Limits: which take fractions, which take size strings ("512M"), and why
 * |d| is not a value for |which|. */
bool limit_is_fractional(cordon_limit l) HIDDEN;
bool limit_is_size(cordon_limit l) HIDDEN;
const char *limit_problem(cordon_limit which, double d) HIDDEN;

/* A name to pass (shell_environment_policy.pass, --pass-env,
 * cordon_config_env_pass). */
const char *pass_name_problem(const char *name) HIDDEN;
