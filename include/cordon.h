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
 * Each step returns 0 or a negative errno; check it (the pattern above
 * leaves that out). Build with `pkg-config --cflags --libs cordon`.
 *
 * Conventions:
 * - Functions that can fail return 0 (or a non-negative value) on success and
 *   a negative errno on failure. When |ret_error| is not NULL, a failure also
 *   stores a new error object there (caller frees it with cordon_error_free);
 *   an error already stored there is freed and replaced. Functions without a
 *   |ret_error| parameter report only through the return value (-EINVAL for
 *   an invalid argument, -ENOMEM).
 * - Output parameters ret_* are set only on success; on failure they keep
 *   what the caller put there.
 * - A failing setter leaves its object unchanged.
 * - Strings and arrays passed in are copied: the caller keeps ownership and
 *   may free them when the call returns. Strings returned as "const char *"
 *   are owned by the object they come from and live as long as it. Strings
 *   returned as "char *" are the caller's, to release with free().
 * - Destructors accept NULL and return NULL (p = cordon_plan_free(p)).
 * - No global state: objects are independent. One object must not be used
 *   from two threads at once; different objects may. cordon_start is safe to
 *   call from any thread of a multi-threaded program (see cordon_start).
 * - Not fork-safe: after fork(), use cordon objects only in the process that
 *   created them (only the launcher can wait for or kill its sandbox).
 * - The library never prints; warnings go to the log callback of the config.
 * - The process environment is read in one place, cordon_prepare, unless the
 *   command has its own (cordon_command_set_base_env). Reading environ while
 *   another thread calls setenv() is unsafe in C: threaded programs that
 *   change their environment should pass a base environment.
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

/* An error: what failed and why, which path, what to do about it. The
 * strings the accessors return belong to |e| and live until
 * cordon_error_free(e). Every accessor accepts NULL ("unknown error", 0,
 * NULL, 125). */

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
/* An error of the caller's own (errno EINVAL, exit status 125, no
 * location), e.g. a bad command-line argument, to report as the library's
 * are (cordon_error_stats_json). Copies |message|. NULL on ENOMEM. */
CORDON_API cordon_error *cordon_error_new(const char *message);

/* ---- configuration ------------------------------------------------------ */

typedef struct cordon_config cordon_config;

typedef enum cordon_network {
        CORDON_NETWORK_NONE = 0,  /* empty network namespace */
        CORDON_NETWORK_LOOPBACK,  /* own namespace, only lo (up) */
        CORDON_NETWORK_FULL,      /* the host network */
        CORDON_NETWORK_PROXY,     /* own namespace (lo), out only through cordon's
                                     proxy to the hosts of the allowlist */
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
        CORDON_LOG_DENIED,  /* the network proxy refused a host (once per host and port), or the
                             * landlock backend a path outside the writable ones (once per call and path) */
        CORDON_LOG_NOTICE,  /* a limit of the backend worth knowing, said once per instance root
                             * (the landlock backend cannot keep git's config read-only) */
} cordon_log_level;

typedef void (*cordon_log_fn)(cordon_log_level level, const char *message, void *userdata);

/* A config with cordon's defaults (isolation enabled, network none, ...).
 * It reads nothing from the environment or the filesystem yet. Returns NULL
 * when out of memory. */
CORDON_API cordon_config *cordon_config_new(void);
CORDON_API cordon_config *cordon_config_free(cordon_config *c);

/* Apply one JSON layer on top of |c|: later layers win field by field and
 * expose_paths are merged by target. Only the "isolation" and
 * "shell_environment_policy" objects are read; they are validated strictly.
 * On failure |c| is left unchanged: the error names the file (|path|, or
 * |name|), line, column and key (cordon_error_file/line/column/key), errno
 * EINVAL; a file that cannot be read fails with its errno (no location). */
CORDON_API int cordon_config_load_file(cordon_config *c, const char *path, cordon_error **ret_error);
/* Same from a string; |name| is used in error messages (NULL: "<string>"). */
CORDON_API int cordon_config_load_string(cordon_config *c, const char *json, const char *name,
                                         cordon_error **ret_error);

/* Apply the profile |name|: a config layer shipped with cordon or the
 * user's own, looked for as NAME.json in $CORDON_PROFILE_PATH (colon-
 * separated), $XDG_CONFIG_HOME/cordon/profiles (else
 * ~/.config/cordon/profiles), then the installed share/cordon/profiles.
 * Errors as cordon_config_load_file (an unknown name: -EINVAL, the message
 * says where it looked). */
CORDON_API int cordon_config_add_profile(cordon_config *c, const char *name, cordon_error **ret_error);
/* A description of every profile |c| can find (name, file, what it exposes
 * and sets), in |ret_text| (caller frees with free()). Returns 0 or -ENOMEM. */
CORDON_API int cordon_profiles_describe(const cordon_config *c, char **ret_text);

/* Programmatic setters: a last layer on top of the loaded files (a later call
 * wins, as a later layer does). They return 0, or -EINVAL for an invalid
 * value (with an error naming it, for those that take |ret_error|), or
 * -ENOMEM. On failure |c| is unchanged. Strings are copied. */
CORDON_API int cordon_config_set_enabled(cordon_config *c, bool enabled);
/* What to call the values of the setter calls that follow, in their errors:
 * what the user typed (a CLI passes "--workspace /x" before calling
 * cordon_config_set_workspace). The errors cordon_prepare finds in those
 * values later (a workspace that is the caller's home, a network that
 * conflicts with the allowlist) name it too. NULL (the default): the
 * config key and the value, as in isolation.workspace "/x". Copies
 * |origin|. Returns 0 or -ENOMEM. */
CORDON_API int cordon_config_set_origin(cordon_config *c, const char *origin);
/* "auto", "linux", "landlock", "seatbelt" or "windows" ("auto": linux, seatbelt on
 * macOS, windows on Windows; "bwrap" is a reserved name, refused by cordon_prepare). */
CORDON_API int cordon_config_set_backend(cordon_config *c, const char *name, cordon_error **ret_error);
CORDON_API int cordon_config_set_network(cordon_config *c, cordon_network network);
/* Parse "none", "loopback", "full" or "proxy". */
CORDON_API int cordon_config_set_network_name(cordon_config *c, const char *name, cordon_error **ret_error);
/* Add entries to the network allowlist (isolation.network_allow): one
 * HOST[:PORT] or a comma-separated list of them. HOST is a name, a
 * wildcard for subdomains ("*.example.org"), an IP address or a CIDR
 * (IPv6 with a port in brackets: "[2001:db8::/32]:443"); no port means 80
 * and 443; a URL is refused (give its host). A non-empty list selects the
 * network "proxy": a network set to anything else (by a setter or a layer)
 * is then an error of cordon_prepare, naming both. -EINVAL names the bad
 * entry. */
CORDON_API int cordon_config_add_network_allow(cordon_config *c, const char *spec, cordon_error **ret_error);
/* Instance root and workspace; absolute paths. Neither may be "/", a
 * kernel interface (/proc, /sys, /dev) or a system directory (/etc, /usr,
 * ...); the workspace must exist (the default <home>/workspace is created),
 * and cordon_prepare refuses one that is the caller's home or above it, or
 * above the instance root. */
CORDON_API int cordon_config_set_home(cordon_config *c, const char *dir, cordon_error **ret_error);
CORDON_API int cordon_config_set_workspace(cordon_config *c, const char *dir, cordon_error **ret_error);
/* Add an exposed path (replaces a rule with the same target). |target| NULL
 * means the same as |source|. Both absolute, or |source| "~/..." (the
 * caller's home) and |target| "~/..." or "$NAME/..." (a variable of the
 * command's environment), as in isolation.expose_paths; an absolute
 * |source| must exist (else the errno of stat(), e.g. -ENOENT) and lie
 * outside /proc; |target| may not be "/", under /proc, nor contain "..". A
 * |writable| source is checked as the workspace is. */
CORDON_API int cordon_config_add_expose(cordon_config *c, const char *source, const char *target,
                                        bool writable, cordon_error **ret_error);
/* Same, from a "SRC[:TARGET][:ro|rw]" spec (default ro). In SRC and TARGET,
 * "\:" is a literal colon and "\\" a literal backslash. */
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
/* The launcher dies with its parent (isolation.die_with_parent, default
 * false; the CLI's --die-with-parent): when the process that started the
 * launcher dies, the launcher ends the sandbox as on SIGTERM and runs its
 * post-run checks. The library records the choice in the plan
 * (cordon_plan_die_with_parent); the launcher process acts on it with
 * cordon_parent_watch and cordon_parent_gone (below), as the CLI does. A
 * sandbox always dies with the thread that started it, whatever this says
 * (see cordon_start). */
CORDON_API int cordon_config_set_die_with_parent(cordon_config *c, bool die);
/* Explain the refusals (isolation.explain, default false; the CLI's
 * --explain): the run also observes the command's calls that take a path
 * (seccomp user notification, answered "continue": the kernel decides as
 * without it), so that cordon_process_denied_json names the reads,
 * writes and executions the view refused; and the calls cordon's seccomp
 * filter refuses are refused by the observer instead, with the same
 * errno, and named (kind syscall). Costs time per such call
 * (docs/performance.md); never changes what the command may do. */
CORDON_API int cordon_config_set_explain(cordon_config *c, bool explain);
/* isolation.explain_on_failure (default false; --explain-on-failure): the
 * plan records the wish (cordon_plan_explain_on_failure) for the launcher,
 * which then writes a few lines on what was refused when the command
 * fails (the CLI does). */
CORDON_API int cordon_config_set_explain_on_failure(cordon_config *c, bool explain);
/* Landlock requirement: "required", "best_effort" (default) or "off". */
CORDON_API int cordon_config_set_landlock(cordon_config *c, const char *mode, cordon_error **ret_error);
/* Who the command runs as (isolation.user): "auto" (the default: a
 * sandbox user of its own where cordon runs as root without a user
 * namespace, the landlock backend; else the caller), "sandbox" (that user,
 * or an error where there is none) or "caller" (root stays root). */
CORDON_API int cordon_config_set_user(cordon_config *c, const char *mode, cordon_error **ret_error);

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
/* Pass the variable |name| (an exact name; shell_environment_policy.pass,
 * --pass-env) from the environment cordon_prepare reads, even when
 * inherit, the default excludes, an exclude or include_only would drop it;
 * "set" (or cordon_command_setenv) for the same name still wins. For one
 * secret on purpose (GITHUB_TOKEN) without --ignore-default-excludes.
 * -EINVAL for an empty name or one with "=" (that is set's NAME=VALUE). */
CORDON_API int cordon_config_env_pass(cordon_config *c, const char *name, cordon_error **ret_error);

/* Warnings (isolation disabled, best-effort limits, ...) and, with
 * log_plan, the plan text go to |fn|. Without a callback they are dropped.
 * Plans prepared from |c| keep |fn| and |userdata|: they must stay valid as
 * long as those plans are started. |fn| runs in the thread that calls
 * cordon_start, except CORDON_LOG_DENIED messages, which come from the
 * network proxy's thread while the sandbox runs, and on the landlock
 * backend from the thread that performs the command's metadata and connect
 * calls (make |fn| thread-safe for those); |message| is valid during the
 * call only. */
CORDON_API void cordon_config_set_log(cordon_config *c, cordon_log_fn fn, void *userdata);

/* ---- the command --------------------------------------------------------- */

typedef struct cordon_command cordon_command;

/* stdio choices for cordon_command_set_stdio(), besides a file descriptor. */
#define CORDON_STDIO_INHERIT (-1) /* the caller's own fd 0/1/2 (default) */
#define CORDON_STDIO_PIPE (-2)    /* a pipe; the caller's end: cordon_process_stdio() */
#define CORDON_STDIO_NULL (-3)    /* /dev/null */

/* Copies |argv| (NULL-terminated, at least one element; argv[0] is looked
 * up in the sandbox's PATH unless it contains a "/"). NULL on ENOMEM or a
 * NULL or empty argv. The command's defaults: the caller's working
 * directory, the caller's stdio, no extra environment. */
CORDON_API cordon_command *cordon_command_new(const char *const *argv);
CORDON_API cordon_command *cordon_command_free(cordon_command *cmd);
/* Working directory (a host path; NULL: the caller's cwd; a relative one is
 * relative to the caller's cwd, read by cordon_prepare). It is exposed
 * read-only unless a rule covers it (auto_expose.cwd); cordon_prepare fails
 * when it cannot be. Returns 0 or -ENOMEM. */
CORDON_API int cordon_command_set_cwd(cordon_command *cmd, const char *cwd);
/* Extra environment for this command, applied after the policy's "set"
 * (include_only still filters it). Copies both. Returns 0, -EINVAL for an
 * invalid name (empty, or with "=") or a NULL value, or -ENOMEM. */
CORDON_API int cordon_command_setenv(cordon_command *cmd, const char *name, const char *value);
/* The environment the policy starts from ("NAME=VALUE", NULL-terminated;
 * default: the process environment, read by cordon_prepare). Copies
 * |envp|. Returns 0 or -ENOMEM. */
CORDON_API int cordon_command_set_base_env(cordon_command *cmd, const char *const *envp);
/* |which| is 0, 1 or 2; |fd| a descriptor or one of CORDON_STDIO_*. A
 * descriptor is not taken over: the caller keeps it, and it must stay open
 * until cordon_start has returned (the plan records its number; the sandbox
 * gets its own copy). CORDON_STDIO_PIPE makes cordon_start create a new
 * pipe for each sandbox; use it with cordon_start, not cordon_run (nothing
 * would read or write the caller's end). Returns 0 or -EINVAL. */
CORDON_API int cordon_command_set_stdio(cordon_command *cmd, int which, int fd);
/* A terminal of the command's own (linux backend): a new pseudo-terminal
 * of the sandbox's devpts, its controlling terminal, on each of 0..2 whose
 * descriptor is a terminal (CORDON_PTY_ON: on all that are not a pipe or
 * /dev/null, when none is). The caller relays through its master,
 * cordon_process_pty(). AUTO: only when the command's stdin is a terminal
 * and the backend is linux; ON: cordon_prepare fails on other backends. */
typedef enum cordon_pty {
        CORDON_PTY_OFF, /* default */
        CORDON_PTY_AUTO,
        CORDON_PTY_ON,
} cordon_pty;
/* Returns 0 or -EINVAL. */
CORDON_API int cordon_command_set_pty(cordon_command *cmd, cordon_pty mode);

/* ---- the plan ------------------------------------------------------------ */

typedef struct cordon_plan cordon_plan;

/* Compute the plan: config + environment + command -> mounts, namespaces,
 * env, argv, cwd, limits. Reads the host filesystem, changes nothing, starts
 * nothing. |cmd| may be NULL for an environment-only plan (cordon env):
 * cordon_plan_env works on it, cordon_start fails with -EINVAL. The plan
 * holds copies: |c| and |cmd| may be changed or freed afterwards (but see
 * cordon_config_set_log), and one plan may be started several times.
 * Fails with -ENOENT (cordon_error_exit_status 127) when the command is not
 * found, -EACCES (126) when it is not executable, and otherwise (125) with an
 * error that names the path or setting at fault (a working directory that
 * cannot be exposed, a mount point that would have to be created on the
 * host, ...). */
CORDON_API int cordon_prepare(const cordon_config *c, const cordon_command *cmd, cordon_plan **ret_plan,
                              cordon_error **ret_error);
CORDON_API cordon_plan *cordon_plan_free(cordon_plan *plan);
/* The plan as JSON (its keys: cordon(1), "THE PLAN") or as the text of the
 * "linux isolation mount plan" log. The caller frees the string with free();
 * NULL on ENOMEM. */
CORDON_API char *cordon_plan_to_json(const cordon_plan *plan);
CORDON_API char *cordon_plan_to_text(const cordon_plan *plan);
/* Hints for people about the plan (PATH entries not visible inside, and the
 * profile that would bring each), NULL-terminated or NULL; owned by the
 * plan. The library never prints them. */
CORDON_API const char *const *cordon_plan_hints(const cordon_plan *plan);
/* The command's exit status whose failure hint |i| explains (127: a
 * command not found, for the PATH entries the sandbox hides; 128: git's
 * fatal error, for an identity the sandbox does not show;
 * CORDON_HINT_ANY_FAILURE: every failure, for a working directory the
 * sandbox does not show, replaced by the workspace), so that a caller can
 * say it then rather than on every run; -1 for no such hint. */
#define CORDON_HINT_ANY_FAILURE 256
CORDON_API int cordon_plan_hint_exit_status(const cordon_plan *plan, size_t i);
/* Does hint |i| explain this plan's command ending with exit status
 * |status|: its status, and for the PATH note, a word of the command line
 * names a program that only a hidden PATH entry holds (`sh -c 'exit 127'`
 * names none: no lookup of a hidden program failed). */
CORDON_API bool cordon_plan_hint_explains(const cordon_plan *plan, size_t i, int status);
/* The child environment ("NAME=VALUE", sorted by name, NULL-terminated);
 * owned by the plan. */
CORDON_API const char *const *cordon_plan_env(const cordon_plan *plan);
/* The backend the plan runs on ("linux", "landlock", or "none" when
 * isolation is disabled). Owned by the plan. */
CORDON_API const char *cordon_plan_backend(const cordon_plan *plan);
/* Whether the plan's config asked for isolation.die_with_parent. */
CORDON_API bool cordon_plan_die_with_parent(const cordon_plan *plan);
/* Whether the plan's config asked for isolation.explain_on_failure, and
 * for isolation.explain. */
CORDON_API bool cordon_plan_explain_on_failure(const cordon_plan *plan);
CORDON_API bool cordon_plan_explain(const cordon_plan *plan);
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
 * this returns 0, or the command never ran and nothing is left running.
 * Creates the instance directories first. Setup failures are reported as
 * errors naming the step and path (exit status 125); exec failures return
 * -ENOENT (127) / -EACCES (126). |plan| may be freed once this returns: the
 * process does not refer to it. Free |*ret_proc| with cordon_process_free.
 *
 * Thread safety: the child only makes system calls on data prepared before
 * clone(), so this may be called from any thread of a multi-threaded
 * process, concurrently. The sandbox is tied to the calling thread through
 * PR_SET_PDEATHSIG: if that thread exits, the sandbox is killed; call
 * cordon_start from a thread that outlives the sandbox. The calling thread
 * blocks every signal for the duration of the clone() only.
 *
 * Children: the sandbox is a child process of the caller. Do not reap it
 * yourself (waitpid(-1, ...) in a SIGCHLD handler, SIGCHLD set to SIG_IGN):
 * cordon_wait would then fail with ECHILD and lose the status. */
CORDON_API int cordon_start(const cordon_plan *plan, cordon_process **ret_proc, cordon_error **ret_error);
/* Pid (in the caller's pid namespace) of the sandbox's init process (linux
 * backend), of the supervisor of the command's process tree (landlock
 * backend) or of the command (isolation disabled). For signals, use
 * cordon_kill / cordon_signal_command. */
CORDON_API pid_t cordon_process_pid(const cordon_process *p);
/* A pidfd for that process (owned by |p|, closed by cordon_process_free: do
 * not close it): poll it for POLLIN to learn when the sandbox ended, then
 * call cordon_wait. -1 when the kernel has no pidfds. */
CORDON_API int cordon_process_pidfd(const cordon_process *p);
/* The master of the command's own terminal (cordon_command_set_pty), owned
 * by |p| (closed by cordon_process_free), or -1 when it has none. Reading
 * it fails with EIO once the command's processes are gone. */
CORDON_API int cordon_process_pty(const cordon_process *p);
/* The caller's end of a CORDON_STDIO_PIPE stream (0: write end of stdin,
 * 1/2: read ends), owned by |p| (close it early with cordon_process_close_stdio),
 * or -1. */
CORDON_API int cordon_process_stdio(const cordon_process *p, int which);
CORDON_API void cordon_process_close_stdio(cordon_process *p, int which);
/* Wait for the command. |timeout_ms| < 0 waits forever, 0 only polls;
 * otherwise returns -ETIMEDOUT when the sandbox still runs after that long.
 * -ETIMEDOUT is not a failure: the sandbox keeps running, no error object is
 * stored and |ret_result| is untouched; call cordon_wait again (or
 * cordon_kill). The configured wall_time_s is enforced while waiting (SIGTERM
 * to the whole sandbox, SIGKILL kill_after_s later). On 0, fills
 * |ret_result| (may be NULL); once the sandbox was reaped, further calls
 * return 0 and the same result. Read CORDON_STDIO_PIPE outputs while waiting
 * (poll them with a timeout, or from another thread): a sandbox blocked on a
 * full pipe never ends. */
CORDON_API int cordon_wait(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error);
/* Send |sig| to every process of the sandbox, the command and whatever it
 * started (SIGKILL ends the sandbox at once). Returns 0, -ESRCH once the
 * sandbox was reaped, or another negative errno. Then call cordon_wait. */
CORDON_API int cordon_kill(cordon_process *p, int sig);
/* Send |sig| to the command only (what a terminal's ^C would do); when the
 * command exits, the rest of the sandbox is killed. Returns 0 or a negative
 * errno (-ESRCH once reaped). Async-signal-safe: a signal handler may call
 * it to forward signals. */
CORDON_API int cordon_signal_command(cordon_process *p, int sig);
/* Kills the sandbox if it still runs (SIGKILL), reaps it, closes the
 * caller's pipe ends and the pidfd, and frees |p|. Returns NULL. */
CORDON_API cordon_process *cordon_process_free(cordon_process *p);

/* Live grants, the approval loop (denied, ask, grant, retry): add the
 * allowlist entry |entry| (one, as --allow-net takes it: "pypi.org",
 * "api.example.com:8443", "10.0.0.0/8:5432") to the running sandbox of
 * |p|, or remove one it holds (given at start or granted). Every
 * connection checked after the call returns sees the change, at once;
 * tunnels already open stay open. Each change is listed, in order, in the
 * --stats record's "network_grants". Only the proxy's policy changes: on
 * the linux backend a loopback service granted live is reached through
 * the proxy (not a client that skips it), on the landlock backend not at
 * all (Landlock's ports are fixed at start). Thread-safe: any thread, while
 * another waits. Returns 0, or a negative errno with |ret_error| set:
 * -EINVAL (not an entry, or the run has no network "proxy"), -ENOENT
 * (remove: not in the list), -ESRCH (the sandbox ended), -ENOTSUP (a
 * backend without a proxy). */
CORDON_API int cordon_process_allow_net(cordon_process *p, const char *entry, cordon_error **ret_error);
CORDON_API int cordon_process_remove_net(cordon_process *p, const char *entry, cordon_error **ret_error);

/* After cordon_wait returned 0: whether the checks after the run left the
 * host as safe as before it. Returns 0, or -EIO with an error (exit
 * status 125) that names what the post-run git check found the command
 * left for the host's git and could not make inert (the record's
 * "git_check.not_set_aside"): do not run git there before removing it.
 * The CLI exits 125 with that error; the command's own status is in the
 * --stats record. */
CORDON_API int cordon_process_check_error(const cordon_process *p, cordon_error **ret_error);

/* The post-run git check of earlier runs of |c|'s instance whose launcher
 * and its clean-up helper both died (a kill of their whole cgroup): each
 * killed run's journal in <home>/logs/ is checked now, before anything
 * else may plan in its workspace (a planted link there makes the next
 * plan refuse). The CLI calls it before each `cordon run`; a library
 * caller calls it before cordon_prepare. Warnings through |c|'s log
 * callback. Returns 0 (also when there is no instance yet), or -EIO with
 * an error when something could not be made inert. */
CORDON_API int cordon_recover(const cordon_config *c, cordon_error **ret_error);

/* cordon_start + cordon_wait(-1) + cordon_process_free. |ret_result| may be
 * NULL. Errors as cordon_start's. */
CORDON_API int cordon_run(const cordon_plan *plan, cordon_result *ret_result, cordon_error **ret_error);

/* Writes |r| as one JSON object (the --stats format). The caller frees it
 * with free(); NULL on ENOMEM. */
CORDON_API char *cordon_result_to_json(const cordon_result *r);

/* The --stats JSON: cordon_result_to_json's object plus "network_denied",
 * the hosts the network proxy refused ([{"host", "port", "reason"}], each
 * host and port once; [] without a proxy), and "denied" (as
 * cordon_process_denied_json; "denied_omitted": how many more the bound
 * left out, when any). Complete once cordon_wait
 * returned 0. The caller frees it with free(); NULL on ENOMEM. */
CORDON_API char *cordon_process_stats_json(const cordon_process *p, const cordon_result *r);

/* What the boundary refused that cordon saw in |p|'s run (the record's
 * "denied"), as a JSON array, each distinct refusal once: {"kind" (read,
 * write, exec, connect, resolve, syscall), "target" (a path, HOST:PORT or
 * a call), "rule" (what refused it), "host_has" (for a path: whether the
 * host has it; else null), "suggestion" (the flag that would allow it:
 * "--expose PATH", "--expose PATH:rw", "--allow-net HOST:PORT", or
 * "cannot be allowed"), "seen_by"}. At most 64 entries of at most 512
 * bytes of text each. |r| (NULL: none yet) leaves out what counts only
 * for another exit status (a hidden PATH entry: on 127). Complete once
 * cordon_wait returned 0. The caller frees it with free(); NULL on
 * ENOMEM. */
CORDON_API char *cordon_process_denied_json(const cordon_process *p, const cordon_result *r);
/* At most |max_lines| lines for people (each ending in a newline) on what
 * cordon_process_denied_json holds: "refused KIND TARGET (RULE): allow it
 * with FLAG", then one that counts the rest; the command's text in them
 * escaped for a terminal; "" when nothing was refused. What the CLI's
 * --explain-on-failure prints after "cordon: ". The caller frees it with
 * free(); NULL on ENOMEM. */
CORDON_API char *cordon_process_denied_summary(const cordon_process *p, const cordon_result *r, size_t max_lines);
/* cordon learn: a config layer (JSON, the keys of a config file) with the
 * exposures and network_allow entries that |p|'s refusals suggest, each
 * exposure the narrowest that was used, with a "comment" saying why (the
 * network entries' in the top-level "comment" array, which cordon
 * ignores); never a secret, the home, or what cordon would refuse. For
 * the user to review. The caller frees it with free(); NULL on ENOMEM. */
CORDON_API char *cordon_process_learned_layer(const cordon_process *p, const cordon_result *r);
/* How many entries cordon_process_denied_json would hold (0 for NULL). */
CORDON_API size_t cordon_process_denied_count(const cordon_process *p, const cordon_result *r);

/* The --stats record of a run that cordon refused before the command ran
 * (a bad setting, a command not found, a sandbox that could not start):
 * {"error": {"message", "code" (the exit status, 125, 126 or 127), and
 * "flag" (|flag|, e.g. "--timeout", when not NULL), "file", "line",
 * "column", "key" where |e| has a config location}, "status"}, one line.
 * It has no "exit_code": that is how a caller tells cordon's 125 from the
 * command's own. |e| may be NULL ("unknown error", 125). The caller frees
 * the string with free(); NULL on ENOMEM. */
CORDON_API char *cordon_error_stats_json(const cordon_error *e, const char *flag);

/* ---- the launcher's parent ---------------------------------------------------- */

/* For a launcher process that runs sandboxes for the process that started
 * it (the CLI for an agent; a C helper that an agent spawns), so that the
 * agent's death, even a SIGKILL, ends the sandbox with its post-run checks
 * done, instead of leaving it running:
 *
 *   pid_t parent = getppid();   at the very start of main (or the pid the
 *                               parent passed down: that closes the window
 *                               before main too)
 *   ... install a handler for SIG; plan ...
 *   if (cordon_plan_die_with_parent(plan) && cordon_parent_watch(parent, SIG) == -ESRCH)
 *           the parent is already gone: start nothing
 *   in SIG's handler: if (cordon_parent_gone(parent)) end the sandbox as
 *           on SIGTERM: cordon_signal_command(p, SIGTERM), then, if it
 *           still runs kill_after_s later, cordon_kill(p, SIGKILL); the
 *           main thread's cordon_wait then returns and runs the checks.
 *
 * cordon_parent_watch arms |sig| as the calling process's parent death
 * signal (PR_SET_PDEATHSIG), then checks that the parent is still
 * |parent|: 0, -ESRCH when it is already gone (the process was handed to
 * another parent, a death before the signal was armed), -EINVAL for a bad
 * |sig|, -ENOTSUP where the system has no parent death signal (only
 * Linux has). The kernel sends |sig| also when the thread of the parent
 * that started this process exits while the parent lives on:
 * cordon_parent_gone tells the two apart (async-signal-safe; true when the
 * parent is no longer |parent|, or when |parent| is 0: a parent outside
 * the caller's pid namespace, whose death cannot be told otherwise). */
CORDON_API int cordon_parent_watch(pid_t parent, int sig);
CORDON_API bool cordon_parent_gone(pid_t parent);

/* ---- the host --------------------------------------------------------------- */

/* Describe what this host offers (user namespaces, Landlock ABI, seccomp,
 * cgroups) and whether the backend |c| selects (NULL: the default) can run.
 * Stores a human-readable report (or JSON when |json|) in |ret_report|
 * (the caller frees it with free()). Returns 1 when the backend can run, 0
 * when not, or a negative errno. */
CORDON_API int cordon_host_check(const cordon_config *c, bool json, char **ret_report);

CORDON_API const char *cordon_version(void);

/* ---- cordon's own helper processes ----------------------------------------- */

/* Should a launcher die before its run is checked (a SIGKILL), the run's
 * clean-up helper executes cordon's helper program as
 * `PROGRAM --cordon-helper git-check FD JOURNAL` to check the run from
 * its journal. The CLI is that program: its main() calls
 * cordon_helper_main when argv[1] is CORDON_HELPER_ARG, and it sets
 * itself with cordon_config_set_helper_program(c, "/proc/self/exe").
 * Without the setter, the installed CLI (BINDIR/cordon) is used, where it
 * exists; else the next run on the workspace checks for the killed one.
 * |path| must be absolute. Returns 0 or -EINVAL/-ENOMEM (with an error). */
#define CORDON_HELPER_ARG "--cordon-helper"
CORDON_API int cordon_config_set_helper_program(cordon_config *c, const char *path, cordon_error **ret_error);
/* The helper's entry point: runs what argv asks, prints warnings on
 * stderr, returns the exit status (0, or 125). */
CORDON_API int cordon_helper_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
