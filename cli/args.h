/* SPDX-License-Identifier: MIT */
/* Command-line parsing for the cordon CLI (no side effects, testable). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef enum cli_command {
        CLI_NONE,
        CLI_RUN,
        CLI_PLAN,
        CLI_ENV,
        CLI_CHECK,
        CLI_PROFILES,
        CLI_LEARN,
        CLI_HELP,
        CLI_VERSION,
} cli_command;

/* A flag that sets part of the config, applied in command-line order after
 * every --config file. */
typedef struct cli_flag {
        int opt;           /* the option's id (OPT_*) */
        const char *name;  /* "--network" (for messages) */
        const char *value; /* its argument, or NULL */
} cli_flag;

typedef struct cli_args {
        cli_command command;
        const char **configs;
        size_t n_configs;
        cli_flag *flags;
        size_t n_flags;
        bool json, quiet, verbose, help;
        const char *cwd;
        const char *cwd_flag; /* "-C" or "--cwd", as typed */
        const char *stats_file;
        int stats_fd;
        int control_fd;    /* --control-fd N, or -1 */
        int parent_pid;    /* --die-with-parent=PID, or 0 */
        int pty;           /* -1: when stdin is a terminal (default), 0: --no-pty, 1: --pty */
        char **argv;       /* the command, NULL-terminated (points into the input argv) */
        char *error;       /* set when parsing failed (caller frees) */
        char *error_flag;  /* the flag it failed on ("--timeout"), or NULL (caller frees) */
} cli_args;

enum {
        OPT_CONFIG = 1000,
        OPT_EXPOSE,
        OPT_EXPOSE_RO,
        OPT_EXPOSE_RW,
        OPT_NETWORK,
        OPT_ALLOW_NET,
        OPT_CONTROL_FD,
        OPT_HOME,
        OPT_WORKSPACE,
        OPT_BACKEND,
        OPT_INHERIT,
        OPT_SET,
        OPT_EXCLUDE,
        OPT_INCLUDE_ONLY,
        OPT_KEEP_DEFAULT_EXCLUDES,
        OPT_IGNORE_DEFAULT_EXCLUDES,
        OPT_PROTECT,
        OPT_LANDLOCK,
        OPT_USER,
        OPT_LOG_PLAN,
        OPT_TIMEOUT,
        OPT_KILL_AFTER,
        OPT_MEMORY,
        OPT_PIDS,
        OPT_CPUS,
        OPT_CPU_TIME,
        OPT_NOFILE,
        OPT_FSIZE,
        OPT_TMP_SIZE,
        OPT_LIMITS_BEST_EFFORT,
        OPT_STATS,
        OPT_STATS_FD,
        OPT_QUIET,
        OPT_JSON,
        OPT_CWD,
        OPT_HELP,
        OPT_PROFILE,
        OPT_PTY,
        OPT_NO_PTY,
        OPT_VERBOSE,
        OPT_PASS_ENV,
        OPT_DIE_WITH_PARENT,
        OPT_EXPLAIN,
        OPT_EXPLAIN_ON_FAILURE,
};

/* Parse argv. Returns 0 (args filled) or -1 (args->error says why, and
 * args->error_flag on which flag; a --stats FILE after the error is still
 * taken, for the report of the refusal). */
int cli_parse(int argc, char **argv, cli_args *args);
void cli_args_free(cli_args *args);
/* Usage text for |command| (CLI_NONE: the overview). */
const char *cli_usage(cli_command command);
