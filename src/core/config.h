/* SPDX-License-Identifier: MIT */
/* The validated configuration: JSON layers and setters -> struct cordon_config. */
#pragma once

#include <stdarg.h>

#include "cordon.h"
#include "util.h"

/* Sources and targets may start with "~/" (the caller's real home) and
 * targets with "$NAME/" (that variable of the command's environment, e.g.
 * $HOME: the instance's); plan_build expands them. */
typedef struct expose_rule {
        char *source; /* absolute or "~/...", normalised; exists on the host unless optional */
        char *target; /* absolute, "~/..." or "$NAME/...", normalised, not "/" */
        bool writable;
        bool optional; /* skipped when the source is missing */
        char *from;    /* where it was set, for cordon_prepare's errors (config_from) */
} expose_rule;

typedef struct env_kv {
        char *name, *value;
} env_kv;

typedef enum landlock_mode {
        LANDLOCK_BEST_EFFORT = 0,
        LANDLOCK_REQUIRED,
        LANDLOCK_OFF,
} landlock_mode;

/* isolation.user: who the command runs as (plan-user.c). */
typedef enum user_mode {
        USER_AUTO = 0, /* the sandbox user where cordon runs as root without a user namespace, else the caller */
        USER_SANDBOX,  /* the sandbox user, or an error where there is none */
        USER_CALLER,   /* the caller (root stays root: what cordon did before the sandbox user) */
} user_mode;

struct cordon_config {
        /* isolation */
        bool enabled;
        char *disabled_by; /* "file:line:col" of the layer that set enabled=false */
        char **files;      /* the config files and profiles loaded, canonical */
        char *backend;     /* "auto", "linux", "landlock" */
        cordon_network network;
        char **network_allow; /* canonical entries (net/allowlist.h), merged across layers */
        char *home, *workspace;
        /* Where a value was set, for the errors cordon_prepare finds in it
         * (see config_from): NULL for the default. */
        char *home_from, *workspace_from, *network_from, *allow_from;
        /* Which layer set the network and last added to the allowlist: a
         * config file is an even number (2, 4, ... in load order), the
         * setters called after file k are 2k+1 (the CLI's flags are one
         * layer); between layers the later wins (config_network_chosen). */
        unsigned layer_seq, network_seq, allow_seq;
        cordon_expose_mode auto_expose[3];
        expose_rule *expose;
        size_t n_expose;
        char **protect;
        double limits[CORDON_LIMIT__MAX];
        bool limits_best_effort;
        bool log_plan;
        bool die_with_parent; /* the launcher ends the sandbox when its parent dies */
        bool explain;            /* observe the command's path calls (--explain) */
        bool explain_on_failure; /* the refusals on stderr when the command fails */
        landlock_mode landlock;
        char *helper_program; /* cordon_config_set_helper_program, or NULL: the installed CLI's */
        user_mode user;

        /* shell_environment_policy */
        cordon_inherit inherit;
        bool ignore_default_excludes;
        char **exclude;
        char **include_only;
        env_kv *set;
        size_t n_set;
        char **pass; /* names taken from the launcher's environment whatever the filters say */

        /* where profiles are looked for (NULL: profile_search_path) */
        char **profile_dirs;
        int profile_depth; /* profiles naming profiles: a bound against cycles */

        /* what the caller names the values of the next setter calls
         * (cordon_config_set_origin: a flag as typed), or NULL */
        char *origin;

        cordon_log_fn log_fn;
        void *log_userdata;
};

/* Why |path| (absolute and normalised) may not be written by the command
 * (the workspace, the instance root, the source of an rw exposure), as a
 * static phrase ("is the root directory"), or NULL. The one check for the
 * config file, the flags and the setters; cordon_prepare adds the caller's
 * home and the instance root. */
const char *writable_path_problem(const char *path) HIDDEN;
/* An error about the value that |from| (a *_from field) names: "FROM: MESSAGE".
 * Returns -|errnum|. */
int config_from_error(cordon_error **ret, int errnum, const char *from, const char *fmt, ...)
        __attribute__((format(printf, 4, 5))) HIDDEN;

/* The directories profiles are looked for in: $CORDON_PROFILE_PATH
 * (colon-separated), the user's ($XDG_CONFIG_HOME/cordon/profiles, else
 * ~/.config/cordon/profiles), then the installed ones. NULL: out of memory. */
char **profile_search_path(char *const *env) HIDDEN;
/* The directories |c| looks for profiles in, in order. NULL: out of memory. */
char **config_profile_dirs(const cordon_config *c) HIDDEN;
/* The names of the profiles |c| can find, each once (the first directory
 * that has it wins). NULL: out of memory. */
char **config_profiles(const cordon_config *c) HIDDEN;
/* The expansion of a config path (see expose_rule): "~/x" -> home/x,
 * "$NAME/x" -> the value of NAME in |env|/x, others copied. NULL with errno
 * set (ENOENT: no such home or variable, ENOMEM). */
char *config_path_expand(const char *path, const char *home, char *const *env) HIDDEN;
/* An exposure's source expanded: "~/x" with |home|, "$NAME" (a whole
 * variable) from |env|, cordon's own environment; NULL with errno
 * ENOENT (unset), EINVAL (not an absolute path) or ENOMEM. */
char *source_expand(const char *source, const char *home, char *const *env) HIDDEN;
/* Is |s| "$NAME", a whole variable (a source; its target defaults to it)? */
bool whole_variable(const char *s) HIDDEN;

/* Format a message for a log callback (nothing when |fn| is NULL). */
void log_message_v(cordon_log_fn fn, void *userdata, cordon_log_level level, const char *fmt, va_list ap)
        __attribute__((format(printf, 4, 0))) HIDDEN;
void log_message(cordon_log_fn fn, void *userdata, cordon_log_level level, const char *fmt, ...)
        __attribute__((format(printf, 4, 5))) HIDDEN;
/* Send a warning to the config's log callback, if any. */
void config_log(const cordon_config *c, cordon_log_level level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4))) HIDDEN;

/* Names for enums (for plan output). */
const char *network_name(cordon_network n) HIDDEN;
/* The network a plan gets: "proxy" when the allowlist is not empty (and
 * the network is not "full"). */
cordon_network config_effective_network(const cordon_config *c) HIDDEN;
const char *expose_mode_name(cordon_expose_mode m) HIDDEN;

/* Find the 1-based line/column of a JSON path in |text| (the key itself
 * when |at_key|, else its value). Components: "name" or "[3]". Returns
 * false when not found. Exposed for tests. */
bool json_locate(const char *text, const char *const *path, size_t n, bool at_key, int *line, int *column) HIDDEN;
/* Find the first duplicate key inside the top-level objects |sections|;
 * stores its dotted path (caller frees) and location. */
bool json_find_duplicate(const char *text, const char *const *sections, char **ret_path, int *line,
                         int *column) HIDDEN;
