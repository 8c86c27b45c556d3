/* SPDX-License-Identifier: MIT */
/*
 * libcordon — run the child processes of an AI agent inside an isolation
 * boundary, or not at all.
 *
 * Usage pattern:
 *
 *   cordon_error *err = NULL;
 *   cordon_config *cfg = cordon_config_new();             1) load the config
 *   cordon_config_load_file(cfg, "agent.json", &err);        (0..n layers,
 *   cordon_config_set_network(cfg, CORDON_NETWORK_NONE);      then setters)
 *   const char *argv[] = {"ls", "-l", NULL};
 *   cordon_command *cmd = cordon_command_new(argv);        2) describe the command
 *   cordon_plan *plan = NULL;
 *   cordon_prepare(cfg, cmd, &plan, &err);                3) prepare: no process yet
 *   cordon_process *proc = NULL;
 *   cordon_start(plan, &proc, &err);                       4) start
 *   cordon_result res;
 *   cordon_wait(proc, -1, &res, &err);                     5) wait
 *   cordon_process_free(proc); cordon_plan_free(plan);     6) free
 *   cordon_command_free(cmd); cordon_config_free(cfg);
 *
 * Conventions:
 * - Functions that can fail return 0 (or a non-negative value) on success and
 *   a negative errno on failure. When |ret_error| is not NULL, a failure also
 *   stores a new error object there (caller frees it with cordon_error_free).
 * - Output parameters ret_* are set only on success.
 * - Destructors accept NULL and return NULL.
 * - No global state: objects are independent. One object must not be used
 *   from two threads at once; different objects may. cordon_start is safe to
 *   call from any thread of a multi-threaded program (see cordon_start).
 * - The library never prints; warnings go to the log callback of the config.
 */
#ifndef CORDON_H
#define CORDON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CORDON_API __attribute__((visibility("default")))
#else
#define CORDON_API
#endif

#define CORDON_VERSION "0.1.0"

/* ---- errors ------------------------------------------------------------ */

typedef struct cordon_error cordon_error;

/* The message, without a "cordon: " prefix. For config errors it starts with
 * "FILE:LINE:COLUMN: KEY: ". Never NULL. */
CORDON_API const char *cordon_error_message(const cordon_error *e);
/* The errno behind the failure, or 0. */
CORDON_API int cordon_error_errno(const cordon_error *e);
/* Config location, when the error comes from a config file or flag: the file
 * name (or "command line"), 1-based line and column (0 when unknown) and the
 * JSON path of the key (e.g. "isolation.expose_paths[1].mode"). NULL/0 when
 * the error has no config location. */
CORDON_API const char *cordon_error_file(const cordon_error *e);
CORDON_API int cordon_error_line(const cordon_error *e);
CORDON_API int cordon_error_column(const cordon_error *e);
CORDON_API const char *cordon_error_key(const cordon_error *e);
/* The exit status a CLI should use for this error: 127 when the command was
 * not found, 126 when it could not be executed, 125 otherwise. */
CORDON_API int cordon_error_exit_status(const cordon_error *e);
CORDON_API cordon_error *cordon_error_free(cordon_error *e);

/* ---- configuration ------------------------------------------------------ */

typedef struct cordon_config cordon_config;

typedef enum cordon_network {
        CORDON_NETWORK_NONE = 0,  /* empty network namespace */
        CORDON_NETWORK_LOOPBACK,  /* own namespace, only lo (up) */
        CORDON_NETWORK_FULL,      /* the host network */
} cordon_network;

typedef enum cordon_inherit {
        CORDON_INHERIT_CORE = 0,  /* HOME LOGNAME PATH SHELL USER USERNAME TMPDIR TEMP TMP */
        CORDON_INHERIT_ALL,
        CORDON_INHERIT_NONE,
} cordon_inherit;

typedef enum cordon_auto_expose {
        CORDON_AUTO_EXPOSE_EXE = 0,  /* the executable and its directory */
        CORDON_AUTO_EXPOSE_CWD,      /* the working directory */
        CORDON_AUTO_EXPOSE_ARGS,     /* existing absolute-path arguments */
} cordon_auto_expose;

typedef enum cordon_expose_mode {
        CORDON_EXPOSE_OFF = 0,
        CORDON_EXPOSE_RO,
        CORDON_EXPOSE_RW,
} cordon_expose_mode;

typedef enum cordon_limit {
        CORDON_LIMIT_WALL_TIME_S = 0,  /* seconds, fractions allowed */
        CORDON_LIMIT_CPU_TIME_S,       /* RLIMIT_CPU, whole seconds */
        CORDON_LIMIT_MEMORY_BYTES,     /* cgroup memory limit */
        CORDON_LIMIT_PIDS,             /* cgroup pids limit */
        CORDON_LIMIT_OPEN_FILES,       /* RLIMIT_NOFILE */
        CORDON_LIMIT_FILE_SIZE_BYTES,  /* RLIMIT_FSIZE */
        CORDON_LIMIT_TMP_SIZE_BYTES,   /* size of the /tmp tmpfs */
        CORDON_LIMIT_CPU_QUOTA,        /* CPUs, fractions allowed (1.5) */
        CORDON_LIMIT_KILL_AFTER_S,     /* grace between SIGTERM and SIGKILL */
        CORDON_LIMIT__MAX,
} cordon_limit;

/* Log levels for the log callback. */
typedef enum cordon_log_level {
        CORDON_LOG_WARNING = 0,
        CORDON_LOG_INFO,
} cordon_log_level;

typedef void (*cordon_log_fn)(cordon_log_level level, const char *message, void *userdata);

/* A config with cordon's defaults (isolation enabled, network none, ...).
 * Returns NULL when out of memory. */
CORDON_API cordon_config *cordon_config_new(void);
CORDON_API cordon_config *cordon_config_free(cordon_config *c);

/* Apply one JSON layer on top of |c|: later layers win field by field and
 * expose_paths are merged by target. Only the "isolation" and
 * "shell_environment_policy" objects are read; they are validated strictly.
 * On failure |c| is left unchanged. */
CORDON_API int cordon_config_load_file(cordon_config *c, const char *path, cordon_error **ret_error);
/* Same from a string; |name| is used in error messages (NULL: "<string>"). */
CORDON_API int cordon_config_load_string(cordon_config *c, const char *json, const char *name,
                                         cordon_error **ret_error);

/* Programmatic setters: a last layer on top of the loaded files. They return
 * 0 or -EINVAL (with an error naming the value). Strings are copied. */
CORDON_API int cordon_config_set_enabled(cordon_config *c, bool enabled);
/* "auto", "linux" or "landlock" ("bwrap", "seatbelt", "windows" are reserved). */
CORDON_API int cordon_config_set_backend(cordon_config *c, const char *name, cordon_error **ret_error);
CORDON_API int cordon_config_set_network(cordon_config *c, cordon_network network);
/* Parse "none", "loopback" or "full". */
CORDON_API int cordon_config_set_network_name(cordon_config *c, const char *name, cordon_error **ret_error);
/* Instance root and workspace; absolute paths. */
CORDON_API int cordon_config_set_home(cordon_config *c, const char *dir, cordon_error **ret_error);
CORDON_API int cordon_config_set_workspace(cordon_config *c, const char *dir, cordon_error **ret_error);
/* Add an exposed path (replaces a rule with the same target). |target| NULL
 * means the same as |source|. |source| must exist. */
CORDON_API int cordon_config_add_expose(cordon_config *c, const char *source, const char *target,
                                        bool writable, cordon_error **ret_error);
/* Same, from a "SRC[:TARGET][:ro|rw]" spec (default ro). */
CORDON_API int cordon_config_add_expose_spec(cordon_config *c, const char *spec, cordon_error **ret_error);
/* Add a path inside a writable mount to keep read-only (isolation.protect). */
CORDON_API int cordon_config_add_protect(cordon_config *c, const char *path, cordon_error **ret_error);
CORDON_API int cordon_config_set_auto_expose(cordon_config *c, cordon_auto_expose which, cordon_expose_mode mode);
/* Set a limit; 0 means none. Integer limits reject fractions. */
CORDON_API int cordon_config_set_limit(cordon_config *c, cordon_limit which, double value,
                                       cordon_error **ret_error);
/* Parse a limit from text: sizes take K/M/G/T suffixes (binary), times take
 * seconds with fractions. */
CORDON_API int cordon_config_set_limit_text(cordon_config *c, cordon_limit which, const char *text,
                                            cordon_error **ret_error);
CORDON_API int cordon_config_set_limits_best_effort(cordon_config *c, bool best_effort);
CORDON_API int cordon_config_set_log_plan(cordon_config *c, bool log_plan);
/* Landlock requirement: "required", "best_effort" (default) or "off". */
CORDON_API int cordon_config_set_landlock(cordon_config *c, const char *mode, cordon_error **ret_error);

/* Environment policy (shell_environment_policy). */
CORDON_API int cordon_config_set_inherit(cordon_config *c, cordon_inherit inherit);
CORDON_API int cordon_config_set_inherit_name(cordon_config *c, const char *name, cordon_error **ret_error);
CORDON_API int cordon_config_set_ignore_default_excludes(cordon_config *c, bool ignore);
/* Add NAME=VALUE to "set" (always wins), a glob to "exclude" or one to
 * "include_only". Globs are case-insensitive, with * and ?. */
CORDON_API int cordon_config_env_set(cordon_config *c, const char *name, const char *value,
                                     cordon_error **ret_error);
CORDON_API int cordon_config_env_exclude(cordon_config *c, const char *glob, cordon_error **ret_error);
CORDON_API int cordon_config_env_include_only(cordon_config *c, const char *glob, cordon_error **ret_error);

/* Warnings (isolation disabled, best-effort limits, ...) go to |fn|. Without
 * a callback they are dropped. */
CORDON_API void cordon_config_set_log(cordon_config *c, cordon_log_fn fn, void *userdata);

/* ---- the command --------------------------------------------------------- */

typedef struct cordon_command cordon_command;

/* stdio choices for cordon_command_set_stdio(), besides a file descriptor. */
#define CORDON_STDIO_INHERIT (-1) /* the caller's own fd 0/1/2 (default) */
#define CORDON_STDIO_PIPE (-2)    /* a pipe; the caller's end: cordon_process_stdio() */
#define CORDON_STDIO_NULL (-3)    /* /dev/null */

/* Copies |argv| (NULL-terminated, at least one element). NULL on ENOMEM or
 * an empty argv. */
CORDON_API cordon_command *cordon_command_new(const char *const *argv);
CORDON_API cordon_command *cordon_command_free(cordon_command *cmd);
/* Working directory (a host path; default: the caller's cwd). */
CORDON_API int cordon_command_set_cwd(cordon_command *cmd, const char *cwd);
/* Extra environment for this command; applied after the policy's "set". */
CORDON_API int cordon_command_setenv(cordon_command *cmd, const char *name, const char *value);
/* The environment the policy starts from (default: the process environment,
 * read once by cordon_prepare). Copies |envp|. */
CORDON_API int cordon_command_set_base_env(cordon_command *cmd, const char *const *envp);
/* |which| is 0, 1 or 2; |fd| a descriptor (not taken over: the caller keeps
 * it) or one of CORDON_STDIO_*. */
CORDON_API int cordon_command_set_stdio(cordon_command *cmd, int which, int fd);

/* ---- the plan ------------------------------------------------------------ */

typedef struct cordon_plan cordon_plan;

/* Compute the plan: config + environment + command -> mounts, namespaces,
 * env, argv, cwd, limits. Reads the host filesystem, changes nothing, starts
 * nothing. |cmd| may be NULL for an environment-only plan (cordon env).
 * Fails with -ENOENT (exit status 127) when the command is not found and
 * -EACCES (126) when it is not executable. */
CORDON_API int cordon_prepare(const cordon_config *c, const cordon_command *cmd, cordon_plan **ret_plan,
                              cordon_error **ret_error);
CORDON_API cordon_plan *cordon_plan_free(cordon_plan *plan);
/* The plan as JSON (see README for the schema) or as the text of the
 * "linux isolation mount plan" log. Caller frees the string; NULL on ENOMEM. */
CORDON_API char *cordon_plan_to_json(const cordon_plan *plan);
CORDON_API char *cordon_plan_to_text(const cordon_plan *plan);
/* The child environment ("NAME=VALUE", sorted by name, NULL-terminated);
 * owned by the plan. */
CORDON_API const char *const *cordon_plan_env(const cordon_plan *plan);
/* The backend the plan runs on ("linux", "landlock", or "none" when
 * isolation is disabled). Owned by the plan. */
CORDON_API const char *cordon_plan_backend(const cordon_plan *plan);
/* The value of limit |which| in the plan (0: none; a NaN for an unknown
 * |which|), e.g. to name the limit that ended a command. */
CORDON_API double cordon_plan_limit(const cordon_plan *plan, cordon_limit which);

/* ---- running -------------------------------------------------------------- */

typedef struct cordon_process cordon_process;

typedef struct cordon_result {
        int status;          /* shell-style: exit code, 128+N for signal N, 124 on timeout */
        int exit_code;       /* exit code, or -1 when killed by a signal */
        int signal;          /* signal that killed the command, or 0 */
        bool timed_out;      /* wall_time_s expired */
        bool oom_killed;     /* killed by the memory limit */
        bool pids_limited;   /* the pids limit was reached at least once */
        bool cpu_limited;    /* killed by cpu_time_s (SIGXCPU/SIGKILL) */
        double wall_s;       /* wall-clock time from start to exit */
        double user_s;       /* user CPU time of the sandbox */
        double sys_s;        /* system CPU time of the sandbox */
        uint64_t max_rss_bytes; /* peak memory: the memory cgroup's peak usage (page cache and
                                   /tmp included) when memory_bytes is set, else the largest
                                   RSS of one process; 0 if unknown */
        uint64_t pids_peak;     /* peak number of the command's processes (and threads), known
                                   when a pids limit is set; else 0 */
} cordon_result;

/* Start the planned command: the process is running inside the boundary when
 * this returns 0, or the command never ran. Setup failures are reported as
 * errors naming the step and path. Exec failures return -ENOENT / -EACCES.
 *
 * Thread safety: the child only makes system calls on data prepared before
 * clone(), so this may be called from any thread of a multi-threaded
 * process, concurrently. The sandbox is tied to the calling thread through
 * PR_SET_PDEATHSIG: if that thread exits, the sandbox is killed; call
 * cordon_start from a thread that outlives the sandbox. */
CORDON_API int cordon_start(const cordon_plan *plan, cordon_process **ret_proc, cordon_error **ret_error);
/* Pid (in the caller's pid namespace) of the sandbox's init process. */
CORDON_API pid_t cordon_process_pid(const cordon_process *p);
/* A pidfd for that process (owned by |p|): poll it for POLLIN to learn when
 * the sandbox ended. -1 when the kernel has no pidfds. */
CORDON_API int cordon_process_pidfd(const cordon_process *p);
/* The caller's end of a CORDON_STDIO_PIPE stream (0: write end of stdin,
 * 1/2: read ends), owned by |p| (close it early with cordon_process_close_stdio),
 * or -1. */
CORDON_API int cordon_process_stdio(const cordon_process *p, int which);
CORDON_API void cordon_process_close_stdio(cordon_process *p, int which);
/* Wait for the command. |timeout_ms| < 0 waits forever; otherwise returns
 * -ETIMEDOUT when the sandbox still runs after that long (it keeps running).
 * The configured wall_time_s is enforced while waiting. Fills |ret_result|. */
CORDON_API int cordon_wait(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error);
/* Send |sig| to every process of the sandbox (SIGKILL ends the sandbox).
 * Returns 0 or a negative errno. */
CORDON_API int cordon_kill(cordon_process *p, int sig);
/* Send |sig| to the command only (what a terminal's ^C would do). */
CORDON_API int cordon_signal_command(cordon_process *p, int sig);
/* Kills the sandbox if it still runs, reaps it and frees |p|. */
CORDON_API cordon_process *cordon_process_free(cordon_process *p);

/* cordon_start + cordon_wait. */
CORDON_API int cordon_run(const cordon_plan *plan, cordon_result *ret_result, cordon_error **ret_error);

/* Writes |r| as one JSON object (the --stats format). Caller frees. */
CORDON_API char *cordon_result_to_json(const cordon_result *r);

/* ---- the host --------------------------------------------------------------- */

/* Describe what this host offers (user namespaces, Landlock ABI, seccomp,
 * cgroups) and whether the backend |c| selects (NULL: the default) can run.
 * Stores a human-readable report (or JSON when |json|) in |ret_report|
 * (caller frees). Returns 1 when the backend can run, 0 when not, or a
 * negative errno. */
CORDON_API int cordon_host_check(const cordon_config *c, bool json, char **ret_report);

CORDON_API const char *cordon_version(void);

#ifdef __cplusplus
}
#endif
#endif
