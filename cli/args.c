/* SPDX-License-Identifier: MIT */
#include "args.h"

#include <getopt.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which subcommands take a flag. */
#define F_RUN (1 << 0)
#define F_PLAN (1 << 1)
#define F_ENV (1 << 2)
#define F_CHECK (1 << 3)
#define F_PROFILES (1 << 4)
#define F_CONFIG (F_RUN | F_PLAN | F_ENV | F_CHECK | F_PROFILES)
#define F_VIEW (F_RUN | F_PLAN | F_ENV)

typedef struct flag_spec {
        struct option opt;
        int where;
} flag_spec;

static const flag_spec FLAGS[] = {
        {{"config", required_argument, NULL, OPT_CONFIG}, F_CONFIG},
        {{"profile", required_argument, NULL, OPT_PROFILE}, F_VIEW},
        {{"expose", required_argument, NULL, OPT_EXPOSE}, F_VIEW},
        {{"expose-ro", required_argument, NULL, OPT_EXPOSE_RO}, F_VIEW},
        {{"expose-rw", required_argument, NULL, OPT_EXPOSE_RW}, F_VIEW},
        {{"network", required_argument, NULL, OPT_NETWORK}, F_VIEW},
        {{"allow-net", required_argument, NULL, OPT_ALLOW_NET}, F_VIEW},
        {{"home", required_argument, NULL, OPT_HOME}, F_VIEW},
        {{"workspace", required_argument, NULL, OPT_WORKSPACE}, F_VIEW},
        {{"backend", required_argument, NULL, OPT_BACKEND}, F_CONFIG},
        {{"inherit", required_argument, NULL, OPT_INHERIT}, F_VIEW},
        {{"set", required_argument, NULL, OPT_SET}, F_VIEW},
        {{"pass-env", required_argument, NULL, OPT_PASS_ENV}, F_VIEW},
        {{"exclude", required_argument, NULL, OPT_EXCLUDE}, F_VIEW},
        {{"include-only", required_argument, NULL, OPT_INCLUDE_ONLY}, F_VIEW},
        {{"keep-default-excludes", no_argument, NULL, OPT_KEEP_DEFAULT_EXCLUDES}, F_VIEW},
        {{"ignore-default-excludes", no_argument, NULL, OPT_IGNORE_DEFAULT_EXCLUDES}, F_VIEW},
        {{"protect", required_argument, NULL, OPT_PROTECT}, F_VIEW},
        {{"landlock", required_argument, NULL, OPT_LANDLOCK}, F_VIEW},
        {{"user", required_argument, NULL, OPT_USER}, F_VIEW | F_CHECK},
        {{"log-plan", no_argument, NULL, OPT_LOG_PLAN}, F_RUN},
        {{"timeout", required_argument, NULL, OPT_TIMEOUT}, F_RUN | F_PLAN},
        {{"kill-after", required_argument, NULL, OPT_KILL_AFTER}, F_RUN | F_PLAN},
        {{"memory", required_argument, NULL, OPT_MEMORY}, F_RUN | F_PLAN},
        {{"pids", required_argument, NULL, OPT_PIDS}, F_RUN | F_PLAN},
        {{"cpus", required_argument, NULL, OPT_CPUS}, F_RUN | F_PLAN},
        {{"cpu-time", required_argument, NULL, OPT_CPU_TIME}, F_RUN | F_PLAN},
        {{"nofile", required_argument, NULL, OPT_NOFILE}, F_RUN | F_PLAN},
        {{"fsize", required_argument, NULL, OPT_FSIZE}, F_RUN | F_PLAN},
        {{"tmp-size", required_argument, NULL, OPT_TMP_SIZE}, F_RUN | F_PLAN},
        {{"limits-best-effort", no_argument, NULL, OPT_LIMITS_BEST_EFFORT}, F_RUN | F_PLAN},
        {{"die-with-parent", optional_argument, NULL, OPT_DIE_WITH_PARENT}, F_RUN | F_PLAN},
        {{"stats", required_argument, NULL, OPT_STATS}, F_RUN | F_PLAN},
        {{"stats-fd", required_argument, NULL, OPT_STATS_FD}, F_RUN | F_PLAN},
        {{"explain", no_argument, NULL, OPT_EXPLAIN}, F_RUN | F_PLAN},
        {{"explain-on-failure", no_argument, NULL, OPT_EXPLAIN_ON_FAILURE}, F_RUN | F_PLAN},
        {{"control-fd", required_argument, NULL, OPT_CONTROL_FD}, F_RUN},
        {{"quiet", no_argument, NULL, OPT_QUIET}, F_RUN},
        {{"verbose", no_argument, NULL, OPT_VERBOSE}, F_RUN},
        {{"pty", no_argument, NULL, OPT_PTY}, F_RUN},
        {{"no-pty", no_argument, NULL, OPT_NO_PTY}, F_RUN},
        {{"json", no_argument, NULL, OPT_JSON}, F_PLAN | F_CHECK},
        {{"cwd", required_argument, NULL, OPT_CWD}, F_RUN | F_PLAN},
        {{"help", no_argument, NULL, OPT_HELP}, F_CONFIG},
};

static const struct {
        const char *name;
        cli_command command;
        int mask;
} COMMANDS[] = {
        {"run", CLI_RUN, F_RUN},
        {"plan", CLI_PLAN, F_PLAN},
        {"env", CLI_ENV, F_ENV},
        {"check", CLI_CHECK, F_CHECK},
        {"profiles", CLI_PROFILES, F_PROFILES},
        {"learn", CLI_LEARN, F_RUN},
};

static int fail(cli_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(cli_args *a, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        free(a->error);
        if (vasprintf(&a->error, fmt, ap) < 0)
                a->error = NULL;
        va_end(ap);
        return -1;
}

/* The flag as typed, without "=VALUE". */
static void error_flag(cli_args *a, const char *word)
{
        free(a->error_flag);
        a->error_flag = strndup(word, strcspn(word, "="));
}

static bool push(void **arr, size_t *n, size_t size, const void *item)
{
        void *na = realloc(*arr, (*n + 1) * size);
        if (!na)
                return false;
        memcpy((char *)na + *n * size, item, size);
        *arr = na;
        (*n)++;
        return true;
}

static const char *flag_name(int id)
{
        for (size_t i = 0; i < sizeof(FLAGS) / sizeof(FLAGS[0]); i++)
                if (FLAGS[i].opt.val == id)
                        return FLAGS[i].opt.name;
        return "?";
}

/* Options valid for |mask|, for getopt_long. */
static struct option *options_for(int mask)
{
        size_t n = sizeof(FLAGS) / sizeof(FLAGS[0]), k = 0;
        struct option *o = calloc(n + 1, sizeof(*o));
        for (size_t i = 0; o && i < n; i++)
                if (FLAGS[i].where & mask)
                        o[k++] = FLAGS[i].opt;
        return o;
}

static int take_option(cli_args *a, int c, const char *arg)
{
        switch (c) {
        case OPT_HELP: a->help = true; return 0;
        case OPT_JSON: a->json = true; return 0;
        case OPT_QUIET: a->quiet = true; return 0;
        case OPT_VERBOSE: a->verbose = true; return 0;
        case OPT_PTY: a->pty = 1; return 0;
        case OPT_NO_PTY: a->pty = 0; return 0;
        case OPT_CWD: a->cwd = arg; return 0;
        case OPT_STATS: a->stats_file = arg; return 0;
        case OPT_STATS_FD: {
                char *end = NULL;
                long v = strtol(arg, &end, 10);
                if (!*arg || *end || v < 0 || v > 1 << 20) {
                        error_flag(a, "--stats-fd");
                        return fail(a, "--stats-fd: not a file descriptor: \"%s\"", arg);
                }
                a->stats_fd = (int)v;
                return 0;
        }
        case OPT_CONTROL_FD: {
                char *end = NULL;
                long v = strtol(arg, &end, 10);
                if (!*arg || *end || v < 0 || v > 1 << 20) {
                        error_flag(a, "--control-fd");
                        return fail(a, "--control-fd: not a file descriptor: \"%s\"", arg);
                }
                /* the command shares 0, 1 and 2: a terminal's input it could fake */
                if (v <= 2) {
                        error_flag(a, "--control-fd");
                        return fail(a, "--control-fd: %ld is the command's standard %s, which it shares: pass "
                                    "a descriptor of its own (3 or above)",
                                    v, v == 0 ? "input" : v == 1 ? "output" : "error");
                }
                a->control_fd = (int)v;
                return 0;
        }
        case OPT_DIE_WITH_PARENT: {
                char *end = NULL;
                long v = arg ? strtol(arg, &end, 10) : 0;
                if (arg && (!*arg || *end || v < 1 || v > INT32_MAX)) {
                        error_flag(a, "--die-with-parent");
                        return fail(a, "--die-with-parent=%s: not a process id (the caller's own, as --die-with-parent=$$)", arg);
                }
                a->parent_pid = (int)v;
                cli_flag f = {c, flag_name(c), NULL};
                return push((void **)&a->flags, &a->n_flags, sizeof(f), &f) ? 0 : fail(a, "out of memory");
        }
        case OPT_CONFIG:
                return push((void **)&a->configs, &a->n_configs, sizeof(char *), &arg) ? 0 : fail(a, "out of memory");
        default: {
                cli_flag f = {c, flag_name(c), arg};
                return push((void **)&a->flags, &a->n_flags, sizeof(f), &f) ? 0 : fail(a, "out of memory");
        }
        }
}

int cli_parse(int argc, char **argv, cli_args *a)
{
        *a = (cli_args){.stats_fd = -1, .control_fd = -1, .pty = -1};
        if (argc < 2)
                return fail(a, "missing command (run, plan, env, check, profiles, learn)");
        const char *sub = argv[1];
        if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
                a->command = CLI_HELP;
                return 0;
        }
        if (!strcmp(sub, "--version") || !strcmp(sub, "version")) {
                a->command = CLI_VERSION;
                return 0;
        }
        int mask = 0;
        for (size_t i = 0; i < sizeof(COMMANDS) / sizeof(COMMANDS[0]); i++)
                if (!strcmp(sub, COMMANDS[i].name)) {
                        a->command = COMMANDS[i].command;
                        mask = COMMANDS[i].mask;
                }
        if (!mask)
                return fail(a, "unknown command \"%s\" (run, plan, env, check, profiles, learn)", sub);
        struct option *opts = options_for(mask);
        if (!opts)
                return fail(a, "out of memory");
        optind = 0; /* reinitialise getopt */
        opterr = 0;
        int c, r = 0;
        int sub_argc = argc - 1;
        char **sub_argv = argv + 1;
        /* -C is --cwd: only where --cwd is accepted */
        const char *shortopts = mask & (F_RUN | F_PLAN) ? "+:hC:" : "+:h";
        while ((c = getopt_long(sub_argc, sub_argv, shortopts, opts, NULL)) != -1) {
                if (c == 'h')
                        c = OPT_HELP;
                if (c == OPT_CWD || c == 'C')
                        a->cwd_flag = c == 'C' ? "-C" : "--cwd";
                if (c == 'C')
                        c = OPT_CWD;
                if (r < 0) { /* the refusal is reported there too */
                        if (c == OPT_STATS)
                                a->stats_file = optarg;
                        continue;
                }
                if (c == '?' || c == ':')
                        error_flag(a, optopt > 0 && optopt < 256 ? (char[]){'-', (char)optopt, '\0'}
                                                                 : sub_argv[optind - 1]);
                /* getopt sets optopt to the unknown short option ("-xy":
                 * optind has not moved past the word yet), to the id of a
                 * long option given a value it does not take, and to 0 for
                 * an unknown long option */
                if (c == '?' && optopt > 0 && optopt < 256)
                        r = fail(a, "%s: unknown option \"-%c\" (see cordon %s --help)", sub, optopt, sub);
                else if (c == '?' && optopt >= OPT_CONFIG)
                        r = fail(a, "%s: option \"%s\" takes no value", sub, sub_argv[optind - 1]);
                else if (c == '?')
                        r = fail(a, "%s: unknown option \"%s\" (see cordon %s --help)", sub,
                                 sub_argv[optind - 1], sub);
                else if (c == ':')
                        r = fail(a, "%s: option \"%s\" needs a value", sub, sub_argv[optind - 1]);
                else
                        r = take_option(a, c, optarg);
        }
        free(opts);
        if (r < 0 || a->help)
                return r;
        a->argv = sub_argv + optind;
        bool wants_command = a->command == CLI_RUN || a->command == CLI_PLAN || a->command == CLI_LEARN;
        if (wants_command && !a->argv[0])
                return fail(a, "%s: missing the command to run (cordon %s [flags] -- CMD [ARGS...])", sub, sub);
        if (!wants_command && a->argv[0])
                return fail(a, "%s: unexpected argument \"%s\"", sub, a->argv[0]);
        return 0;
}

void cli_args_free(cli_args *a)
{
        free(a->configs);
        free(a->flags);
        free(a->error);
        free(a->error_flag);
        *a = (cli_args){0};
}

#define CONFIG_FLAGS                                                                                   \
        "  --config FILE              a JSON config layer (repeatable; later files win)\n"             \
        "  --profile NAME             a named config layer (`cordon profiles` lists them; repeatable)\n" \
        "  --expose SRC[:TARGET][:ro|rw]  show a host path inside (repeatable, default ro;\n"          \
        "                             in a path, \\: is a colon and \\\\ a backslash)\n"               \
        "  --expose-ro PATH, --expose-rw PATH  show PATH at the same path, read-only or\n"            \
        "                             read-write (the whole argument is the path; repeatable)\n"     \
        "  --network none|loopback|full|proxy  network access (default none)\n"                        \
        "  --allow-net HOST[:PORT]    allow HOST (name, *.domain, IP, CIDR; default ports 80 and\n"  \
        "                             443) through cordon's proxy (repeatable, or a,b,c)\n"          \
        "  --home DIR                 instance root (default $CORDON_HOME, else $HOME/.cordon)\n"      \
        "  --workspace DIR            the read-write workspace (default <home>/workspace)\n"           \
        "  --backend auto|linux|landlock|seatbelt|windows  isolation backend (default auto = linux)\n"    \
        "  --protect PATH             keep PATH read-only inside a writable mount (repeatable)\n"      \
        "  --landlock required|best_effort|off  Landlock requirement (default best_effort)\n"          \
        "  --user auto|sandbox|caller the command's user (default auto: a sandbox user of its\n"        \
        "                             own as root without a user namespace, else the caller)\n"       \
        "  --inherit core|all|none    environment template (default core)\n"                           \
        "  --set NAME=VALUE           set a variable (repeatable; always wins)\n"                      \
        "  --pass-env NAME            pass NAME from this environment even when an exclude\n"          \
        "                             matches it (a secret on purpose; repeatable)\n"                  \
        "  --exclude GLOB             drop matching variables (repeatable)\n"                          \
        "  --include-only GLOB        keep only matching variables (repeatable)\n"                     \
        "  --ignore-default-excludes  keep variables named *KEY*, *SECRET*, *TOKEN*, *PASSWORD*,\n"     \
        "                             *PASSWD*, *CREDENTIAL*, *PRIVATE*, *_PAT\n"                      \
        "  --keep-default-excludes    drop them (the default)\n"

#define LIMIT_FLAGS                                                                                    \
        "  --timeout SECONDS          wall-clock limit: SIGTERM, then SIGKILL; exit status 124\n"      \
        "  --kill-after SECONDS       grace between SIGTERM and SIGKILL (default 2)\n"                 \
        "  --memory SIZE              memory limit (512M, 2G)\n"                                       \
        "  --pids N                   process limit\n"                                                 \
        "  --cpus N                   CPU share (1.5 = one and a half CPUs)\n"                         \
        "  --cpu-time SECONDS         CPU time limit (RLIMIT_CPU)\n"                                   \
        "  --nofile N                 open files limit (RLIMIT_NOFILE)\n"                              \
        "  --fsize SIZE               file size limit (RLIMIT_FSIZE)\n"                               \
        "  --tmp-size SIZE            size of /tmp (default 25% of RAM)\n"                             \
        "  --limits-best-effort       warn instead of failing when a limit cannot be enforced\n"

const char *cli_usage(cli_command command)
{
        switch (command) {
        case CLI_RUN:
                return "usage: cordon run [flags] [--] CMD [ARGS...]\n"
                       "Run CMD inside the isolation boundary, or not at all.\n\n" CONFIG_FLAGS LIMIT_FLAGS
                       "  -C, --cwd DIR              working directory (default: the current one)\n"
                       "  --log-plan                 print the mount plan to stderr and <home>/logs/cordon.log\n"
                       "  --stats FILE, --stats-fd N write a JSON usage report after the run (FILE: never\n"
                       "                             through a symlink)\n"
                       "  --control-fd N             change the allowlist while the command runs: one JSON\n"
                       "                             line per change on N, {\"allow_net\": \"HOST[:PORT]\"} or\n"
                       "                             {\"remove_net\": ...}, each answered with one line on N\n"
                       "  --die-with-parent[=PID]    when the process that started cordon (PID: checked at\n"
                       "                             the start) dies, end the sandbox as on SIGTERM\n"
                       "  --explain-on-failure       when the command fails, what the sandbox refused and the\n"
                       "                             flag that would allow it, on stderr after its output\n"
                       "  --explain                  also observe the command's path calls (costs time), so\n"
                       "                             that refused reads, writes, executions and system calls\n"
                       "                             are named\n"
                       "  --quiet                    no notes, no denials, no message when a limit killed\n"
                       "                             the command (errors and warnings stay)\n"
                       "  --verbose                  notes (PATH entries not visible inside) also when stderr\n"
                       "                             is not a terminal (default: only on a terminal, or on\n"
                       "                             exit 127)\n"
                       "  --pty, --no-pty            a terminal of the command's own, relayed to the caller's\n"
                       "                             (default: when stdin is a terminal, linux and landlock\n"
                       "                             backends)\n\n"
                       "Exit status: the command's, 128+N if it died of signal N, 124 on timeout,\n"
                       "125 for cordon's own failures, 126 not executable, 127 not found.\n";
        case CLI_LEARN:
                return "usage: cordon learn [run's flags] [--] CMD [ARGS...]\n"
                       "Run CMD as cordon run --explain does, then print on stdout a config layer (JSON)\n"
                       "with the exposures and network entries its refusals name, each the narrowest\n"
                       "that was used, with a comment saying why; never a private key, /etc/shadow or\n"
                       "your whole home. The command's stdout goes to stderr. Review the layer, then:\n"
                       "cordon run --config LAYER -- CMD. Exit status: the command's.\n";
        case CLI_PLAN:
                return "usage: cordon plan [flags] [--json] [--] CMD [ARGS...]\n"
                       "Print the isolation plan for CMD without running anything.\n\n" CONFIG_FLAGS LIMIT_FLAGS
                       "  -C, --cwd DIR              working directory (default: the current one)\n"
                       "  --json                     one JSON object (its keys: cordon(1), THE PLAN)\n"
                       "  --stats FILE, --stats-fd N on a refusal, its JSON record (as cordon run's)\n";
        case CLI_ENV:
                return "usage: cordon env [flags]\n"
                       "Print the environment a sandboxed command gets, NAME=VALUE sorted by name.\n\n" CONFIG_FLAGS;
        case CLI_PROFILES:
                return "usage: cordon profiles [--config FILE]\n"
                       "List the profiles (--profile NAME, isolation.profiles) with what each exposes and sets.\n";
        case CLI_CHECK:
                return "usage: cordon check [--config FILE] [--backend NAME] [--json]\n"
                       "Report what this host offers (user namespaces, Landlock, seccomp, cgroups).\n"
                       "Exit status 0 when the backend can run, 1 when not (with the fix).\n";
        default:
                return "usage: cordon COMMAND [flags] ...\n"
                       "Run an agent's child processes inside an isolation boundary.\n\n"
                       "commands:\n"
                       "  run [flags] -- CMD...   run CMD sandboxed\n"
                       "  plan [flags] -- CMD...  print the plan (mounts, namespaces, env, argv, cwd)\n"
                       "  env [flags]             print the child environment\n"
                       "  check                   what this host supports\n"
                       "  profiles                the profiles, with what each exposes\n"
                       "  learn [flags] -- CMD... run CMD, print a config layer from what was refused\n"
                       "  --version, --help\n\n"
                       "See `cordon COMMAND --help`.\n";
        }
}
