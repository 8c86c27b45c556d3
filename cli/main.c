/* SPDX-License-Identifier: MIT */
/* cordon: the CLI. Uses only the public API (cordon.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#ifndef _WIN32
#include <sys/time.h>
#endif
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include <unistd.h>

#include "args.h"
#include "control.h"
#include "relay.h"
#include "cordon.h"

#define EXIT_CORDON 125

/* For the signal forwarder. Volatile, like pending_signal: its store must
 * not move past the read of pending_signal after the start (a signal
 * between them would be neither forwarded nor kept). */
static cordon_process *volatile running;
static bool quiet;              /* --quiet: no denial reports */
static int stats_file = -1;     /* --stats FILE, once opened */
/* A forwarded signal that came before the command ran (0: none). */
static volatile sig_atomic_t pending_signal;
/* After a SIGTERM, what still runs this long later is killed. */
static double kill_after_s = 2;
#ifndef _WIN32
/* --die-with-parent: the process that started cordon (its pid noted at the
 * start, or the one --die-with-parent=PID gives). */
static pid_t started_by;
#endif

static void on_log(cordon_log_level level, const char *message, void *userdata)
{
        (void)userdata;
        if (level == CORDON_LOG_WARNING)
                fprintf(stderr, "cordon: warning: %s\n", message);
        else if (level == CORDON_LOG_NOTICE) {
                if (!quiet)
                        fprintf(stderr, "cordon: warning: %s\n", message);
        }
        else if (level == CORDON_LOG_DENIED) {
                if (!quiet)
                        fprintf(stderr, "cordon: %s\n", message);
        }
        else
                fprintf(stderr, "%s", message);
}

static int fail_with(cordon_error *err)
{
        fprintf(stderr, "cordon: %s\n", cordon_error_message(err));
        int status = cordon_error_exit_status(err);
        cordon_error_free(err);
        return status;
}

/* open(2) without following any symlink in |path| (openat2's
 * RESOLVE_NO_SYMLINKS; before Linux 5.6, the last component only). */
static int open_no_symlinks(const char *path, int flags)
{
#ifdef SYS_openat2
        struct {
                uint64_t flags, mode, resolve;
        } how = {.flags = (uint64_t)flags, .mode = 0600, .resolve = 0x04 | 0x02 /* NO_SYMLINKS, NO_MAGICLINKS */};
        int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
        if (fd >= 0 || errno != ENOSYS)
                return fd;
#endif
        return open(path, flags, 0600);
}

static int open_stats(const char *path);
static void write_record(const cli_args *a, const char *json);

/* cordon refuses the run: the error on stderr and, with --stats, in the
 * record (|flag|: the flag at fault, or NULL). Frees |err| (NULL: an error
 * already printed). Returns the exit status. */
static int refuse(const cli_args *a, cordon_error *err, const char *flag)
{
        if (err)
                fprintf(stderr, "cordon: %s\n", cordon_error_message(err));
        if (a->stats_file && stats_file < 0)
                stats_file = open_stats(a->stats_file);
        char *json = a->stats_file || a->stats_fd >= 0 ? cordon_error_stats_json(err, flag) : NULL;
        if (json)
                write_record(a, json);
        free(json);
        int status = cordon_error_exit_status(err);
        cordon_error_free(err);
        return status;
}

/* "NAME=VALUE" */
static int flag_set(cordon_config *c, const char *v, cordon_error **err)
{
        const char *eq = v ? strchr(v, '=') : NULL;
        if (!eq) { /* an empty NAME is the setter's to refuse, as the config key's */
                v = v ? v : "";
                char *m = NULL;
                *err = asprintf(&m, "--set %s: must be NAME=VALUE", v) < 0 ? NULL : cordon_error_new(m);
                free(m);
                return -EINVAL;
        }
        char *name = strndup(v, (size_t)(eq - v));
        if (!name)
                return -ENOMEM;
        int r = cordon_config_env_set(c, name, eq + 1, err);
        free(name);
        return r;
}

static int apply_flag(cordon_config *c, const cli_flag *f, cordon_error **err)
{
        const char *v = f->value;
        switch (f->opt) {
        case OPT_PROFILE: return cordon_config_add_profile(c, v, err);
        case OPT_EXPOSE: return cordon_config_add_expose_spec(c, v, err);
        case OPT_EXPOSE_RO: return cordon_config_add_expose(c, v, NULL, false, err);
        case OPT_EXPOSE_RW: return cordon_config_add_expose(c, v, NULL, true, err);
        case OPT_NETWORK: return cordon_config_set_network_name(c, v, err);
        case OPT_ALLOW_NET: return cordon_config_add_network_allow(c, v, err);
        case OPT_HOME: return cordon_config_set_home(c, v, err);
        case OPT_WORKSPACE: return cordon_config_set_workspace(c, v, err);
        case OPT_BACKEND: return cordon_config_set_backend(c, v, err);
        case OPT_INHERIT: return cordon_config_set_inherit_name(c, v, err);
        case OPT_SET: return flag_set(c, v, err);
        case OPT_PASS_ENV: return cordon_config_env_pass(c, v, err);
        case OPT_DIE_WITH_PARENT: return cordon_config_set_die_with_parent(c, true);
        case OPT_EXPLAIN: return cordon_config_set_explain(c, true);
        case OPT_EXPLAIN_ON_FAILURE: return cordon_config_set_explain_on_failure(c, true);
        case OPT_EXCLUDE: return cordon_config_env_exclude(c, v, err);
        case OPT_INCLUDE_ONLY: return cordon_config_env_include_only(c, v, err);
        case OPT_KEEP_DEFAULT_EXCLUDES: return cordon_config_set_ignore_default_excludes(c, false);
        case OPT_IGNORE_DEFAULT_EXCLUDES: return cordon_config_set_ignore_default_excludes(c, true);
        case OPT_PROTECT: return cordon_config_add_protect(c, v, err);
        case OPT_LANDLOCK: return cordon_config_set_landlock(c, v, err);
        case OPT_USER: return cordon_config_set_user(c, v, err);
        case OPT_LOG_PLAN: return cordon_config_set_log_plan(c, true);
        case OPT_LIMITS_BEST_EFFORT: return cordon_config_set_limits_best_effort(c, true);
        case OPT_TIMEOUT: return cordon_config_set_limit_text(c, CORDON_LIMIT_WALL_TIME_S, v, err);
        case OPT_KILL_AFTER: return cordon_config_set_limit_text(c, CORDON_LIMIT_KILL_AFTER_S, v, err);
        case OPT_MEMORY: return cordon_config_set_limit_text(c, CORDON_LIMIT_MEMORY_BYTES, v, err);
        case OPT_PIDS: return cordon_config_set_limit_text(c, CORDON_LIMIT_PIDS, v, err);
        case OPT_CPUS: return cordon_config_set_limit_text(c, CORDON_LIMIT_CPU_QUOTA, v, err);
        case OPT_CPU_TIME: return cordon_config_set_limit_text(c, CORDON_LIMIT_CPU_TIME_S, v, err);
        case OPT_NOFILE: return cordon_config_set_limit_text(c, CORDON_LIMIT_OPEN_FILES, v, err);
        case OPT_FSIZE: return cordon_config_set_limit_text(c, CORDON_LIMIT_FILE_SIZE_BYTES, v, err);
        case OPT_TMP_SIZE: return cordon_config_set_limit_text(c, CORDON_LIMIT_TMP_SIZE_BYTES, v, err);
        default: return 0;
        }
}

/* Config files, then flags in command-line order. On failure |*ret_flag|
 * is the flag at fault (caller frees), or NULL for a config file. */
static int build_config(const cli_args *a, cordon_config **ret, cordon_error **err, char **ret_flag)
{
        cordon_config *c = cordon_config_new();
        if (!c) {
                fprintf(stderr, "cordon: out of memory\n");
                return -ENOMEM;
        }
        cordon_config_set_log(c, on_log, NULL);
        /* this binary checks a run whose launcher was killed (cordon_helper_main) */
        int r = cordon_config_set_helper_program(c, "/proc/self/exe", err);
        for (size_t i = 0; r == 0 && i < a->n_configs; i++)
                r = cordon_config_load_file(c, a->configs[i], err);
        /* each flag's errors, also those cordon_prepare finds, name it as typed */
        for (size_t i = 0; r == 0 && i < a->n_flags; i++) {
                const cli_flag *f = &a->flags[i];
                char *typed = NULL;
                if (f->value ? asprintf(&typed, "--%s %s", f->name, f->value) < 0
                             : asprintf(&typed, "--%s", f->name) < 0)
                        typed = NULL;
                r = typed ? cordon_config_set_origin(c, typed) : -ENOMEM;
                free(typed);
                if (r == 0)
                        r = apply_flag(c, f, err);
                if (r < 0 && asprintf(ret_flag, "--%s", f->name) < 0)
                        *ret_flag = NULL;
        }
        if (r == 0)
                r = cordon_config_set_origin(c, NULL);
        if (r == -ENOMEM && !*err)
                *err = cordon_error_new("out of memory");
        if (r < 0) {
                cordon_config_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

/* A terminal of the command's own when stdin is a terminal and cordon is
 * in its foreground (a background job would stop at the raw mode). */
static cordon_pty default_pty(void)
{
        return isatty(0) && tcgetpgrp(0) == getpgrp() ? CORDON_PTY_AUTO : CORDON_PTY_OFF;
}

static int prepare(const cli_args *a, const cordon_config *c, bool with_command, cordon_plan **ret,
                   cordon_error **err)
{
        cordon_command *cmd = NULL;
        if (with_command) {
                cmd = cordon_command_new((const char *const *)a->argv);
                cordon_pty pty = a->pty < 0 ? default_pty() : a->pty ? CORDON_PTY_ON : CORDON_PTY_OFF;
                if (!cmd || (a->cwd && cordon_command_set_cwd(cmd, a->cwd) < 0) ||
                    ((a->command == CLI_RUN || a->command == CLI_LEARN) && cordon_command_set_pty(cmd, pty) < 0)) {
                        cordon_command_free(cmd);
                        fprintf(stderr, "cordon: out of memory\n");
                        return -ENOMEM;
                }
        }
        int r = cordon_prepare(c, cmd, ret, err);
        cordon_command_free(cmd);
        /* the working directory's errors name it "the working directory X":
         * say which flag gave X */
        const char *m = r < 0 && *err && a->cwd ? cordon_error_message(*err) : NULL;
        if (m && strncmp(m, "the working directory ", 22) == 0) {
                fprintf(stderr, "cordon: %s %s: %s\n", a->cwd_flag, a->cwd, m);
                *err = cordon_error_free(*err);
        }
        return r;
}

static int print_and_free(char *s)
{
        if (!s) {
                fprintf(stderr, "cordon: out of memory\n");
                return EXIT_CORDON;
        }
        fputs(s, stdout);
        if (s[0] && s[strlen(s) - 1] != '\n')
                fputc('\n', stdout);
        free(s);
        return fflush(stdout) == 0 ? 0 : EXIT_CORDON;
}

#ifndef _WIN32
/* A SIGTERM ends the sandbox in bounded time, as a container runtime's
 * stop does: the command gets it, and kill_after_s later whatever still
 * runs is killed (SIGALRM: on_kill_timer). cordon_wait then returns, and
 * the post-run checks run before cordon exits. */
static void on_kill_timer(int sig)
{
        (void)sig;
        int saved = errno;
        if (running)
                cordon_kill(running, SIGKILL);
        errno = saved;
}

static void arm_kill_timer(void)
{
        double s = kill_after_s > 0.001 ? kill_after_s : 0.001;
        struct itimerval t = {.it_value = {(time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6)}};
        setitimer(ITIMER_REAL, &t, NULL);
}
#else
static void arm_kill_timer(void) {}
#endif

/* Async-signal-safe: |sig| to the running command, or kept for it. */
static void forward(int sig)
{
        if (running) {
                cordon_signal_command(running, sig);
                if (sig == SIGTERM)
                        arm_kill_timer();
        } else if (sig != SIGWINCH)
                pending_signal = sig;
}

static void forward_signal(int sig)
{
        int saved = errno;
        if (sig == SIGWINCH && relay_resize())
                ; /* the kernel tells the command's terminal's foreground */
        else
                forward(sig);
        errno = saved;
}

#ifdef __linux__
/* The parent death signal (cordon_parent_watch): not one cordon forwards. */
#define PARENT_SIGNAL (SIGRTMAX)

/* The parent died (not only one of its threads): the sandbox ends as on
 * SIGTERM. Nobody reads cordon's output any more: a write to a closed
 * pipe must not kill cordon before its checks (the sandbox's processes
 * were started with their own dispositions). */
static void on_parent_signal(int sig)
{
        (void)sig;
        int saved = errno;
        if (cordon_parent_gone(started_by)) {
                struct sigaction ign = {.sa_handler = SIG_IGN};
                sigemptyset(&ign.sa_mask);
                sigaction(SIGPIPE, &ign, NULL);
                forward(SIGTERM);
        }
        errno = saved;
}
#endif

/* --die-with-parent: watch the process that started cordon from here on.
 * Returns 0, or the refusal's status when it is gone already or cannot be
 * watched. */
static int watch_parent(const cli_args *a)
{
#ifdef __linux__
        if (a->parent_pid > 0)
                started_by = a->parent_pid;
        struct sigaction sa = {.sa_handler = on_parent_signal, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(PARENT_SIGNAL, &sa, NULL);
        int r = cordon_parent_watch(started_by, PARENT_SIGNAL);
        char m[160];
        if (r == -ESRCH)
                snprintf(m, sizeof(m), "--die-with-parent: the process that started cordon (pid %d) is gone: nothing runs",
                         (int)started_by);
        else if (r < 0)
                snprintf(m, sizeof(m), "--die-with-parent: %s", strerror(-r));
        if (r == -ESRCH) {
                struct sigaction ign = {.sa_handler = SIG_IGN};
                sigemptyset(&ign.sa_mask);
                sigaction(SIGPIPE, &ign, NULL);
        }
        return r < 0 ? refuse(a, cordon_error_new(m), "--die-with-parent") : 0;
#else
        (void)a;
        return refuse(a, cordon_error_new("--die-with-parent: this system has no parent death signal"),
                      "--die-with-parent");
#endif
}

/* From the start of `cordon run`: a signal that would otherwise kill the
 * CLI (SIGTERM from a client, SIGINT from a terminal) while it plans, makes
 * the cgroup or starts the sandbox would leave what it made behind.
 * Before the command runs such a signal is kept and acted on as soon as
 * the command exists (forwarded, like any later one), or ends the run when
 * it came before the start. */
static void install_forwarding(void)
{
        static const int SIGS[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};
        struct sigaction sa = {.sa_handler = forward_signal, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < sizeof(SIGS) / sizeof(SIGS[0]); i++)
                sigaction(SIGS[i], &sa, NULL);
#ifndef _WIN32
        sa.sa_handler = on_kill_timer;
        sigaction(SIGALRM, &sa, NULL);
#endif
}

/* --stats FILE, opened before the command starts. The file may lie where
 * the command can write (the workspace), and a symlink it leaves there, as
 * the file or as a directory on its way (`ws/sub/x.json`, sub a link to
 * ~/.ssh), would make cordon, with the caller's rights, overwrite the
 * link's target: so no symlink in FILE is followed, and the report goes to
 * the file opened now, whatever the command does to the path. A fifo it
 * left would block the open (or the write) for good: only a regular file
 * of one link, or a device such as /dev/null. Returns the descriptor, or -1 with the
 * reason printed. */
static int open_stats(const char *path)
{
        int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
        int fd = open_no_symlinks(path, flags);
        struct stat st;
        bool linked = false; /* a hard link to another file: not truncated */
        if (fd >= 0 && fstat(fd, &st) == 0 &&
            (S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && !(linked = st.st_nlink > 1)))) {
                if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)
                        fprintf(stderr, "cordon: --stats %s: cannot truncate it: %s\n", path, strerror(errno));
                fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
                return fd;
        }
        int e = errno;
        if (fd >= 0) {
                close(fd);
                fprintf(stderr, "cordon: --stats %s: %s: remove it or choose another path\n", path,
                        linked ? "has other hard links (the report would overwrite them)" : "is not a regular file");
        } else if (e == ELOOP)
                fprintf(stderr,
                        "cordon: --stats %s: %s a symlink, which cordon does not follow (it would write the report "
                        "over the link's target): %s\n",
                        path, lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? "is" : "passes through",
                        "remove it or give the path without links");
        else if (e == ENXIO)
                fprintf(stderr, "cordon: --stats %s: is not a regular file (a fifo?): remove it or choose another "
                                "path\n",
                        path);
        else
                fprintf(stderr, "cordon: --stats %s: cannot open it: %s\n", path, strerror(e));
        return -1;
}

static void write_all(int fd, const char *s, const char *what)
{
        for (size_t n = strlen(s); n > 0;) {
                ssize_t w = write(fd, s, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        fprintf(stderr, "cordon: cannot write %s: %s\n", what, w < 0 ? strerror(errno) : "short write");
                        return;
                }
                s += w;
                n -= (size_t)w;
        }
}

static void write_record(const cli_args *a, const char *json)
{
        if (stats_file >= 0)
                write_all(stats_file, json, a->stats_file);
        if (a->stats_fd >= 0 && write(a->stats_fd, json, strlen(json)) < 0)
                fprintf(stderr, "cordon: cannot write the stats to fd %d: %s\n", a->stats_fd, strerror(errno));
}

static void write_stats(const cli_args *a, const cordon_process *p, const cordon_result *res)
{
        if (stats_file < 0 && a->stats_fd < 0) /* no --stats: no record to make */
                return;
        char *json = cordon_process_stats_json(p, res);
        if (json)
                write_record(a, json);
        free(json);
}

static int close_stats(const cli_args *a, int status)
{
        if (stats_file >= 0 && close(stats_file) < 0) {
                fprintf(stderr, "cordon: cannot write %s: %s\n", a->stats_file, strerror(errno));
                status = status ? status : EXIT_CORDON;
        }
        stats_file = -1;
        return status;
}

/* The plan's notes for people ("PATH entries not visible inside: ..."):
 * every one (|status| < 0), or those that explain the command's exit
 * status |status|, after "exit status N". */
static void print_notes(const cordon_plan *plan, int status)
{
        const char *const *h = cordon_plan_hints(plan);
        for (size_t i = 0; h && h[i]; i++)
                if (status < 0)
                        fprintf(stderr, "cordon: note: %s\n", h[i]);
                else if (cordon_plan_hint_explains(plan, i, status))
                        fprintf(stderr, "cordon: note: exit status %d%s: %s\n", status,
                                status == 127 ? " (a command not found)" : "", h[i]);
}

/* 536870912 -> "512M": exact binary multiples, else bytes. */
static void format_bytes(double v, char out[32])
{
        static const char units[] = "KMGT";
        unsigned long long b = (unsigned long long)v;
        int u = -1;
        while (b >= 1024 && b % 1024 == 0 && u < 3) {
                b /= 1024;
                u++;
        }
        if (u < 0)
                snprintf(out, 32, "%llu", b);
        else
                snprintf(out, 32, "%llu%c", b, units[u]);
}

/* One line naming the limit that ended the command, with its value. */
static void explain_limit(const cordon_result *res, const double *limits)
{
        char size[32];
        bool failed = res->signal != 0 || res->exit_code != 0;
        if (res->timed_out) {
                fprintf(stderr, "cordon: command exceeded time limit %gs\n", limits[CORDON_LIMIT_WALL_TIME_S]);
        } else if (res->oom_killed && failed) {
                format_bytes(limits[CORDON_LIMIT_MEMORY_BYTES], size);
                fprintf(stderr, "cordon: command exceeded memory limit %s\n", size);
        } else if (res->cpu_limited) {
                fprintf(stderr, "cordon: command exceeded CPU time limit %gs\n", limits[CORDON_LIMIT_CPU_TIME_S]);
        } else if (res->signal == SIGXFSZ && limits[CORDON_LIMIT_FILE_SIZE_BYTES] > 0) {
                format_bytes(limits[CORDON_LIMIT_FILE_SIZE_BYTES], size);
                fprintf(stderr, "cordon: command exceeded file size limit %s\n", size);
        } else if (res->pids_limited && failed) {
                fprintf(stderr, "cordon: command reached process limit %g\n", limits[CORDON_LIMIT_PIDS]);
        }
}

/* --explain-on-failure: a few lines on what the sandbox refused, after
 * the command's own output (which ended with it). */
#define EXPLAIN_LINES 5
static void explain_refusals(const cordon_process *p, const cordon_result *res)
{
        char *text = cordon_process_denied_summary(p, res, EXPLAIN_LINES);
        for (char *line = text, *nl; line && *line; line = nl + 1) {
                nl = strchr(line, '\n');
                if (!nl)
                        break;
                fprintf(stderr, "cordon: %.*s\n", (int)(nl - line), line);
        }
        free(text);
}

/* cordon learn: the layer goes where stdout was, the command's stdout to
 * stderr (cmd_learn). */
static int learned_out = -1;

static void print_learned(const cordon_process *p, const cordon_result *res)
{
        char *layer = cordon_process_learned_layer(p, res);
        FILE *f = layer ? fdopen(learned_out, "w") : NULL;
        if (!f || fputs(layer, f) < 0 || fclose(f) != 0)
                fprintf(stderr, "cordon: learn: cannot write the layer: %s\n", layer ? strerror(errno) : "out of memory");
        else
                learned_out = -1;
        free(layer);
}

/* Quiet by default: the caller is mostly a program that hands cordon's
 * stderr to a model. Notes are printed at the start on a terminal or with
 * --verbose, else only with the failure they explain (exit 127: a command
 * not found, maybe in a PATH entry the sandbox hides). Warnings that change
 * what the run means (isolation disabled, a limit not enforced) and errors
 * are always printed; denials when they happen, unless --quiet. */
static int cmd_run(const cli_args *a, cordon_config *c)
{
        cordon_error *err = NULL;
        cordon_plan *plan = NULL;
        install_forwarding();
        /* a killed run (its helper killed too) is checked before this one plans */
        if (cordon_recover(c, &err) < 0)
                return refuse(a, err, NULL);
        if (prepare(a, c, true, &plan, &err) < 0)
                return refuse(a, err, NULL);
        kill_after_s = cordon_plan_limit(plan, CORDON_LIMIT_KILL_AFTER_S);
        int st = cordon_plan_die_with_parent(plan) ? watch_parent(a) : 0;
        if (st) {
                cordon_plan_free(plan);
                return st;
        }
        bool noted = !a->quiet && (a->verbose || isatty(2));
        if (noted)
                print_notes(plan, -1);
        if (pending_signal) { /* nothing was made yet */
                cordon_plan_free(plan);
                return 128 + pending_signal;
        }
        double limits[CORDON_LIMIT__MAX];
        for (int i = 0; i < CORDON_LIMIT__MAX; i++)
                limits[i] = cordon_plan_limit(plan, (cordon_limit)i);
        if (a->stats_file && (stats_file = open_stats(a->stats_file)) < 0) {
                cordon_plan_free(plan);
                return EXIT_CORDON;
        }
        int cr = a->control_fd >= 0 ? control_prepare(a->control_fd) : 0;
        if (cr < 0) {
                fprintf(stderr, "cordon: --control-fd %d: %s\n", a->control_fd,
                        cr == -ENOTSUP ? "live grants need the network proxy, which this build has not"
                                         : "not an open file descriptor");
                cordon_plan_free(plan);
                return EXIT_CORDON;
        }
        cordon_process *p = NULL;
        int r = cordon_start(plan, &p, &err);
        if (r < 0) {
                cordon_plan_free(plan);
                return refuse(a, err, NULL);
        }
        running = p; /* from here on the handler forwards */
        if (pending_signal)
                forward(pending_signal);
        if (a->control_fd >= 0 && (r = control_start(a->control_fd, p)) < 0)
                fprintf(stderr, "cordon: cannot serve --control-fd %d: %s\n", a->control_fd, strerror(-r));
        if (cordon_process_pty(p) >= 0 && (r = relay_start(cordon_process_pty(p))) < 0)
                fprintf(stderr, "cordon: cannot relay the command's terminal: %s\n", strerror(-r));
        cordon_result res;
        r = cordon_wait(p, -1, &res, &err);
        control_finish(); /* no change after the end: the record holds them all */
        relay_finish(); /* the command's terminal closes with the sandbox */
        if (r < 0) {
                running = NULL;
                cordon_process_free(p);
                cordon_plan_free(plan);
                return refuse(a, err, NULL);
        }
        write_stats(a, p, &res);
        if (learned_out >= 0)
                print_learned(p, &res);
        /* what the git check could not make inert: the run failed (125) */
        int status = res.status;
        if (cordon_process_check_error(p, &err) < 0) {
                fprintf(stderr, "cordon: %s\n", cordon_error_message(err));
                err = cordon_error_free(err);
                status = EXIT_CORDON;
        }
        if (!a->quiet)
                explain_limit(&res, limits);
        if (res.status != 0 && cordon_plan_explain_on_failure(plan))
                explain_refusals(p, &res);
        if (!a->quiet && !noted && res.status != 0)
                print_notes(plan, res.status);
        cordon_plan_free(plan);
        /* Everything in the sandbox is dead; only its init may still be
         * tearing down the namespaces. The CLI exits without waiting for
         * that (the init is reaped by whoever inherits it); a library
         * caller reaps it in cordon_process_free. |running| keeps |p|
         * reachable for leak checkers. */
        return status;
}

/* cordon learn: cordon run --explain, its stdout on stderr, then the layer
 * on stdout. */
static int cmd_learn(const cli_args *a, cordon_config *c)
{
        fflush(stdout);
#ifdef F_DUPFD_CLOEXEC
        learned_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
#else
        learned_out = dup(1);
#endif
        if (learned_out < 0 || dup2(2, 1) < 0 || cordon_config_set_explain(c, true) < 0) {
                fprintf(stderr, "cordon: learn: %s\n", strerror(errno));
                return EXIT_CORDON;
        }
        return cmd_run(a, c);
}

/* With --stats FILE, the file is made (or emptied) first: a plan that
 * succeeds leaves it empty, not a record of an earlier refusal. */
static int cmd_plan(const cli_args *a, cordon_config *c)
{
        cordon_error *err = NULL;
        cordon_plan *plan = NULL;
        if (a->stats_file && (stats_file = open_stats(a->stats_file)) < 0)
                return EXIT_CORDON;
        if (prepare(a, c, true, &plan, &err) < 0)
                return refuse(a, err, NULL);
        int r = print_and_free(a->json ? cordon_plan_to_json(plan) : cordon_plan_to_text(plan));
        cordon_plan_free(plan);
        return r;
}

static int cmd_env(const cli_args *a, cordon_config *c)
{
        cordon_error *err = NULL;
        cordon_plan *plan = NULL;
        if (prepare(a, c, false, &plan, &err) < 0)
                return err ? fail_with(err) : EXIT_CORDON;
        for (const char *const *e = cordon_plan_env(plan); e && *e; e++)
                printf("%s\n", *e);
        cordon_plan_free(plan);
        return fflush(stdout) == 0 ? 0 : EXIT_CORDON;
}

static int cmd_check(const cli_args *a, cordon_config *c)
{
        char *report = NULL;
        int r = cordon_host_check(c, a->json, &report);
        if (r < 0) {
                fprintf(stderr, "cordon: check failed: %s\n", strerror(-r));
                return EXIT_CORDON;
        }
        fputs(report, stdout);
        free(report);
        return r == 1 ? 0 : 1;
}

static int cmd_profiles(const cordon_config *c)
{
        char *text = NULL;
        if (cordon_profiles_describe(c, &text) < 0) {
                fprintf(stderr, "cordon: out of memory\n");
                return EXIT_CORDON;
        }
        return print_and_free(text);
}

int main(int argc, char **argv)
{
#ifndef _WIN32
        started_by = getppid(); /* first: the parent --die-with-parent watches */
#endif
        if (argc >= 2 && strcmp(argv[1], CORDON_HELPER_ARG) == 0)
                return cordon_helper_main(argc, argv);
        cli_args a;
        if (cli_parse(argc, argv, &a) < 0) {
                cordon_error *e = cordon_error_new(a.error ? a.error : "invalid arguments");
                int r = close_stats(&a, refuse(&a, e, a.error_flag));
                cli_args_free(&a);
                return r;
        }
        if (a.command == CLI_HELP || a.help) {
                fputs(cli_usage(a.command == CLI_HELP ? CLI_NONE : a.command), stdout);
                cli_args_free(&a);
                return 0;
        }
        if (a.command == CLI_VERSION) {
                printf("cordon %s\n", cordon_version());
                cli_args_free(&a);
                return 0;
        }
        cordon_config *c = NULL;
        cordon_error *err = NULL;
        quiet = a.quiet;
        char *flag = NULL;
        if (build_config(&a, &c, &err, &flag) < 0) {
                int r = close_stats(&a, refuse(&a, err, flag));
                free(flag);
                cli_args_free(&a);
                return r;
        }
        int r;
        switch (a.command) {
        case CLI_RUN: r = close_stats(&a, cmd_run(&a, c)); break;
        case CLI_LEARN: r = close_stats(&a, cmd_learn(&a, c)); break;
        case CLI_PLAN: r = close_stats(&a, cmd_plan(&a, c)); break;
        case CLI_ENV: r = cmd_env(&a, c); break;
        case CLI_CHECK: r = cmd_check(&a, c); break;
        case CLI_PROFILES: r = cmd_profiles(c); break;
        default: r = EXIT_CORDON; break;
        }
        cordon_config_free(c);
        cli_args_free(&a);
        return r;
}
