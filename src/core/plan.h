/* SPDX-License-Identifier: MIT */
/* config + command + host -> plan: pure data that a backend executes. */
#pragma once

#include <sched.h>
#include <sys/types.h>

#include "config.h"

/* A linux plan's namespaces are clone(2) flags: their values where
 * <sched.h> lacks them (other systems, POSIX-only builds). */
#ifndef CLONE_NEWNS
#define CLONE_NEWNS 0x00020000
#define CLONE_NEWCGROUP 0x02000000
#define CLONE_NEWUTS 0x04000000
#define CLONE_NEWIPC 0x08000000
#define CLONE_NEWUSER 0x10000000
#define CLONE_NEWPID 0x20000000
#define CLONE_NEWNET 0x40000000
#endif

/* ---- the command (cordon_command) ---- */
struct cordon_command {
        char **argv;
        char *cwd;          /* host path, NULL: the caller's cwd */
        env_kv *extra_env;
        size_t n_extra_env;
        char **base_env;    /* NULL: the process environment */
        int stdio[3];       /* fd or CORDON_STDIO_* */
        cordon_pty pty;
};

/* ---- the plan ---- */
typedef enum mount_type {
        MOUNT_BIND,    /* host source -> target */
        MOUNT_TMPFS,   /* empty tmpfs (rw: scratch, ro: hides what is below) */
        MOUNT_PROC,    /* fresh proc of the new pid namespace */
        MOUNT_DEV,     /* minimal /dev */
        MOUNT_SYMLINK, /* target is a symlink to source (link text) */
        MOUNT_FILE,    /* a generated file with |content| */
} mount_type;

typedef enum mount_origin {
        ORIGIN_SYSTEM,
        ORIGIN_INSTANCE,
        ORIGIN_WORKSPACE,
        ORIGIN_EXPOSE,
        ORIGIN_PROTECT,
        ORIGIN_EXE,
        ORIGIN_CWD,
        ORIGIN_ARG,
        ORIGIN_GENERATED,
} mount_origin;

typedef struct plan_mount {
        mount_type type;
        char *source;  /* bind: resolved host path; symlink: link text; else NULL */
        char *target;  /* path inside the sandbox */
        bool writable;
        bool is_dir;   /* bind: the source is a directory */
        bool missing;  /* protect: absent; cordon_start creates a placeholder */
        /* bind of /etc (linux, landlock): the rest of the host's /etc, what
         * others may read less cordon's deny list, as the backend prepares
         * it (src/linux/etc-scan.c); never bound as it is */
        bool etc_view;
        /* bind: the source lies inside a writable mount, where the command
         * may have swapped it since planning: the child checks that it is
         * still the inode planned (when |ino| is not 0) and not a link */
        bool untrusted;
        dev_t dev;
        ino_t ino;
        mount_origin origin;
        char *content; /* file: its content; missing bind: the placeholder's (NULL: empty) */
        /* bind: the source as the plan saw it (lstat of the resolved path;
         * mode 0 when absent), what a prepared copy of it is checked against */
        struct plan_identity {
                uint64_t dev, ino, size;
                int64_t mtime_ns, ctime_ns;
                uint32_t mode;
        } seen;
} plan_mount;

/* Read-only and masked parts of the sandbox's /proc. */
extern const char *const PROC_READ_ONLY[] HIDDEN;
extern const char *const PROC_MASKED[] HIDDEN;

typedef enum backend_kind {
        BACKEND_NONE,     /* isolation disabled */
        BACKEND_LINUX,
        BACKEND_LANDLOCK,
        BACKEND_SEATBELT, /* macOS: an SBPL profile run by sandbox-exec (src/seatbelt/) */
        BACKEND_WINDOWS,  /* a restricted token and a job object (src/windows/) */
} backend_kind;

/* A step of the backend this host cannot take and the run goes on
 * without: never a security property (the hostname; the landlock
 * backend's supervised connect, which then fails closed). The backend's
 * prepare finds them; `cordon plan`, `cordon check` and the --stats
 * record say so. */
typedef struct plan_degraded {
        char *step; /* "hostname" */
        char *why;  /* what the run does without it, why, and the fix */
} plan_degraded;

/* What enforces the process limit; cordon_prepare asks the host. */
typedef enum pids_by {
        PIDS_BY_UNKNOWN, /* not asked: no limit, or a plan built without the host */
        PIDS_BY_CGROUP,  /* the pids controller */
        PIDS_BY_RLIMIT,  /* RLIMIT_NPROC in the sandbox's own user namespace */
        PIDS_BY_NONE,    /* nothing here: cordon_start fails, or warns (best effort) */
} pids_by;

struct cordon_plan {
        backend_kind backend;
        char *disabled_by;
        cordon_network network;
        char **network_allow;     /* "proxy": the allowlist (canonical entries) */
        unsigned long namespaces; /* CLONE_NEW* flags */
        plan_mount *mounts;       /* sorted: parents before children */
        size_t n_mounts;
        char **argv;              /* NULL for an environment-only plan */
        char *exe;                /* path to execve, inside the sandbox */
        /* The executable lies inside a writable mount: the child executes
         * only this inode (dev/ino of the file the plan saw). */
        bool exe_untrusted, exe_is_script;
        dev_t exe_dev;
        ino_t exe_ino;
        char **env;
        char *cwd;                /* inside the sandbox */
        char *host_cwd;
        char *instance_root, *workspace;
        char *hostname;
        uid_t uid;
        gid_t gid;
        /* who the command runs as (plan-user.c): uid/gid above, or the
         * instance's sandbox user (landlock backend, as root) */
        bool sandbox_user;
        uid_t run_uid;
        gid_t run_gid;
        double limits[CORDON_LIMIT__MAX];
        pids_by pids_by;           /* for limits[CORDON_LIMIT_PIDS] */
        bool limits_best_effort;
        bool log_plan;
        bool die_with_parent;
        bool explain, explain_on_failure; /* isolation.explain, .explain_on_failure */
        landlock_mode landlock;
        int stdio[3];
        cordon_pty pty;
        cordon_log_fn log_fn;
        void *log_userdata;
        /* The user's own git config files (system, XDG, global: what git
         * reads for every repository, existing or not) and the home "~/"
         * means in them: for the post-run git check (gitmodel.h). */
        char **git_configs;
        char *git_home;
        char *helper_exe; /* cordon's helper program (`cordon --cordon-helper ...`) */
        /* a path a protected repository's config names was left writable
         * (a link on the way): the check after the run looks at them all */
        bool git_named_open;
        char **warnings;           /* said at every start (log callback) */
        char **notices;            /* said at the first start of the instance only (CORDON_LOG_NOTICE) */
        plan_degraded *degraded;   /* what the run goes without here (not said at the start) */
        size_t n_degraded;
        char **hints;              /* for people, not said by the library (cordon_plan_hints) */
        int *hint_exit;            /* per hint: the command's exit status it explains */
        /* The PATH note is named with the profiles that would show each
         * hidden entry only when the notes are first asked for: reading
         * every profile costs more than the rest of the plan, and the note
         * is shown only when the command is not found. */
        struct path_note {
                size_t hint;          /* its index in hints */
                char **hidden;        /* the hidden PATH entries */
                char **profile_dirs;  /* where the profiles were looked for */
                char *home;           /* the caller's, for "~/" in them */
                bool no_view;         /* left out of the command's PATH */
        } *path_note;
        int (*name_path_note)(cordon_plan *p); /* plan-hints.c */
        /* The hidden PATH entries, for the record's "denied" on exit 127
         * (the note's list goes when it is named), or NULL. */
        char **path_hidden;
        char *caller_home;         /* the caller's home (what suggestions never name), or NULL */
        /* The PATH note's index, and whether the command names a program
         * only the hidden entries hold (1 yes, -1 no, 0 not asked yet):
         * cordon_plan_hint_explains */
        size_t path_hint;
        int names_hidden;
        /* CORDON_DEBUG=word,word (read from the caller's environment; whole
         * words only, an unknown one is a warning):
         * timing: print how long each setup phase took;
         * classic-mounts: use mount(2) even where the new mount API exists;
         * fork-init: the init gets a copy of the launcher's memory instead of
         * sharing it (what sanitizer builds always do; for valgrind);
         * rw-binds: mount read-only binds writable, leaving Landlock alone to
         * deny writes (a test hook; every run warns; never protected paths
         * nor cordon's instance root). */
        bool debug_timing, debug_classic_mounts, debug_fork_init, debug_rw_binds;
        bool debug_etc_binds;      /* each /etc file bound on its own (no prepared /etc, src/linux/view.c) */
        double prepare_s;          /* time cordon_prepare took */
        /* seatbelt: the caller already runs in a seatbelt sandbox of
         * cordon's (CORDON_SANDBOX=seatbelt), where sandbox-exec fails */
        bool nested_seatbelt;
};

void path_note_free(struct path_note *n) HIDDEN;
/* Note that the run goes without |step| (plan_degraded); takes |why|
 * (NULL: ENOMEM). 0 or -ENOMEM. */
int plan_add_degraded(cordon_plan *p, const char *step, char *why) HIDDEN;
/* The plan's degraded steps as a JSON array of {step, why} (plan-output.c). */
json_t *plan_degraded_json(const cordon_plan *p) HIDDEN;

/* Everything the plan reads about the host, in one place so that tests can
 * inject a fixture tree (|root| is prefixed to every path read). */
typedef struct host_info {
        const char *root;       /* "" for the real host */
        uid_t uid;
        gid_t gid;
        const char *user;       /* login name, NULL: unknown */
        const char *group;      /* group name, NULL: unknown */
        const char *home;       /* the user's home directory ($HOME), NULL: unknown */
        const char *passwd_home; /* the home directory of the user's passwd entry, NULL: unknown */
        const char *cwd;        /* the caller's working directory */
        char *const *environ;   /* the caller's environment */
        struct stat_cache *cache; /* lstat results while one plan is built (plan_build's own) */
        struct writable_roots *writable; /* plan_build's own: no symlink below these is followed */
} host_info;

/* Build the plan. Reads the host (through |h->root|), changes nothing. */
int plan_build(const cordon_config *c, const cordon_command *cmd, const host_info *h, cordon_plan **ret,
               cordon_error **ret_error) HIDDEN;

/* Gather host_info for the real host (reads $HOME, /etc/passwd, getcwd). The
 * strings live in |storage| (free with host_info_free). */
typedef struct host_storage {
        char *user, *group, *home, *passwd_home, *cwd;
        char **env; /* the Windows build's: the environment in UTF-8 (src/windows/plan-host.c) */
} host_storage;
int host_info_read(host_info *h, host_storage *storage, char *const *env, cordon_error **ret_error) HIDDEN;
void host_info_free(host_storage *storage) HIDDEN;

const char *mount_type_name(mount_type t) HIDDEN;
const char *mount_origin_name(mount_origin o) HIDDEN;
const char *backend_name(backend_kind b) HIDDEN;
/* Free what |m| owns (plan-data.c). */
void plan_mount_clear(plan_mount *m) HIDDEN;
