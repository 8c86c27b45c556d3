/* SPDX-License-Identifier: MIT */
/* cli_parse(): subcommands, every flag, "--", errors. */
#include "args.h"
#include "tap.h"
#include "util.h"

#define MAX_ARGS 24

/* Parses the NULL-terminated |words| (without the program name). */
static int parse(cli_args *a, const char *const *words)
{
        static char *argv[MAX_ARGS + 2];
        int argc = 0;
        argv[argc++] = (char *)"cordon";
        for (size_t i = 0; words[i] && argc <= MAX_ARGS; i++)
                argv[argc++] = (char *)words[i];
        argv[argc] = NULL;
        return cli_parse(argc, argv, a);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static char *join_argv(char *const *argv)
{
        buf b = {0};
        buf_put(&b, "", 0);
        for (size_t i = 0; argv && argv[i]; i++)
                buf_printf(&b, "%s[%s]", i ? " " : "", argv[i]);
        return buf_steal(&b);
}

static void test_subcommands(void)
{
        static const struct {
                const char *word;
                cli_command command;
        } T[] = {
                {"--help", CLI_HELP},       {"-h", CLI_HELP},         {"help", CLI_HELP},
                {"--version", CLI_VERSION}, {"version", CLI_VERSION},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                cli_args a;
                CHECK_INTEQ(parse(&a, ARGS(T[i].word)), 0);
                CHECK_INTEQ(a.command, T[i].command);
                CHECK(a.error == NULL);
                cli_args_free(&a);
        }
        cli_args a;
        CHECK_INTEQ(parse(&a, ARGS("run", "--", "true")), 0);
        CHECK_INTEQ(a.command, CLI_RUN);
        cli_args_free(&a);
        CHECK_INTEQ(parse(&a, ARGS("plan", "--", "true")), 0);
        CHECK_INTEQ(a.command, CLI_PLAN);
        cli_args_free(&a);
        CHECK_INTEQ(parse(&a, ARGS("env")), 0);
        CHECK_INTEQ(a.command, CLI_ENV);
        CHECK(a.argv && a.argv[0] == NULL);
        cli_args_free(&a);
        CHECK_INTEQ(parse(&a, ARGS("check")), 0);
        CHECK_INTEQ(a.command, CLI_CHECK);
        CHECK(!a.json);
        cli_args_free(&a);
}

/* The command: after "--", or at the first word that is not an option;
 * what follows belongs to the command, options included. */
static void test_command_words(void)
{
        const struct {
                const char *const *words;
                const char *argv;
                size_t n_flags;
        } T[] = {
                {ARGS("run", "--", "ls", "-l"), "[ls] [-l]", 0},
                {ARGS("run", "ls", "-l"), "[ls] [-l]", 0},
                {ARGS("run", "--network", "full", "--", "curl", "--network", "x"), "[curl] [--network] [x]", 1},
                {ARGS("run", "--network", "full", "ls", "--network", "none"), "[ls] [--network] [none]", 1},
                {ARGS("run", "--", "--network"), "[--network]", 0},
                {ARGS("run", "--", "--"), "[--]", 0},
                {ARGS("run", "--", "ls", "--"), "[ls] [--]", 0},
                {ARGS("plan", "--json", "--", "sh", "-c", "echo $HOME"), "[sh] [-c] [echo $HOME]", 0},
                {ARGS("run", "ls", "--help"), "[ls] [--help]", 0},
                {ARGS("run", "-C", "/tmp", "pwd"), "[pwd]", 0},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                cli_args a;
                int r = parse(&a, T[i].words);
                if (r < 0)
                        printf("# %s\n", a.error);
                CHECK_INTEQ(r, 0);
                _cleanup_free_ char *got = join_argv(a.argv);
                CHECK_STREQ(got, T[i].argv);
                CHECK_INTEQ(a.n_flags, T[i].n_flags);
                CHECK(!a.help);
                cli_args_free(&a);
        }
}

/* Every flag that sets part of the config, with the subcommands that take
 * it: kept as (id, name, value) for cordon to apply in order. */
static void test_every_config_flag(void)
{
        static const struct {
                const char *flag, *value;
                int opt;
                bool run, plan, env, check;
        } T[] = {
                {"--expose", "/srv:/data:rw", OPT_EXPOSE, true, true, true, false},
                {"--expose-ro", "/srv/x:rw", OPT_EXPOSE_RO, true, true, true, false},
                {"--expose-rw", "/srv/x:ro", OPT_EXPOSE_RW, true, true, true, false},
                {"--network", "loopback", OPT_NETWORK, true, true, true, false},
                {"--home", "/h", OPT_HOME, true, true, true, false},
                {"--workspace", "/w", OPT_WORKSPACE, true, true, true, false},
                {"--backend", "landlock", OPT_BACKEND, true, true, true, true},
                {"--inherit", "all", OPT_INHERIT, true, true, true, false},
                {"--set", "A=1", OPT_SET, true, true, true, false},
                {"--pass-env", "GITHUB_TOKEN", OPT_PASS_ENV, true, true, true, false},
                {"--exclude", "AWS_*", OPT_EXCLUDE, true, true, true, false},
                {"--include-only", "PATH", OPT_INCLUDE_ONLY, true, true, true, false},
                {"--keep-default-excludes", NULL, OPT_KEEP_DEFAULT_EXCLUDES, true, true, true, false},
                {"--ignore-default-excludes", NULL, OPT_IGNORE_DEFAULT_EXCLUDES, true, true, true, false},
                {"--protect", "/w/.env", OPT_PROTECT, true, true, true, false},
                {"--landlock", "required", OPT_LANDLOCK, true, true, true, false},
                {"--log-plan", NULL, OPT_LOG_PLAN, true, false, false, false},
                {"--timeout", "1.5", OPT_TIMEOUT, true, true, false, false},
                {"--kill-after", "3", OPT_KILL_AFTER, true, true, false, false},
                {"--memory", "512M", OPT_MEMORY, true, true, false, false},
                {"--pids", "64", OPT_PIDS, true, true, false, false},
                {"--cpus", "1.5", OPT_CPUS, true, true, false, false},
                {"--cpu-time", "10", OPT_CPU_TIME, true, true, false, false},
                {"--nofile", "256", OPT_NOFILE, true, true, false, false},
                {"--fsize", "1G", OPT_FSIZE, true, true, false, false},
                {"--tmp-size", "64M", OPT_TMP_SIZE, true, true, false, false},
                {"--limits-best-effort", NULL, OPT_LIMITS_BEST_EFFORT, true, true, false, false},
                {"--die-with-parent", NULL, OPT_DIE_WITH_PARENT, true, true, false, false},
        };
        static const char *const SUBS[] = {"run", "plan", "env", "check"};
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                for (size_t s = 0; s < ARRAY_SIZE(SUBS); s++) {
                        bool takes = s == 0 ? T[i].run : s == 1 ? T[i].plan : s == 2 ? T[i].env : T[i].check;
                        bool wants_cmd = s < 2;
                        const char *w[8] = {SUBS[s], T[i].flag};
                        size_t n = 2;
                        if (T[i].value)
                                w[n++] = T[i].value;
                        if (wants_cmd) {
                                w[n++] = "--";
                                w[n++] = "true";
                        }
                        cli_args a;
                        int r = parse(&a, w);
                        if (!takes) {
                                CHECK_INTEQ(r, -1);
                                _cleanup_free_ char *want =
                                        xasprintf("%s: unknown option \"%s\" (see cordon %s --help)", SUBS[s],
                                                  T[i].flag, SUBS[s]);
                                CHECK_STREQ(a.error, want);
                                cli_args_free(&a);
                                continue;
                        }
                        if (r < 0)
                                printf("# cordon %s %s: %s\n", SUBS[s], T[i].flag, a.error);
                        CHECK_INTEQ(r, 0);
                        CHECK_INTEQ(a.n_flags, 1);
                        if (a.n_flags == 1) {
                                CHECK_INTEQ(a.flags[0].opt, T[i].opt);
                                CHECK_STREQ(a.flags[0].name, T[i].flag + 2);
                                if (T[i].value)
                                        CHECK_STREQ(a.flags[0].value, T[i].value);
                                else
                                        CHECK(a.flags[0].value == NULL);
                        }
                        cli_args_free(&a);

                        /* the --flag=value form */
                        if (!T[i].value)
                                continue;
                        _cleanup_free_ char *joined = xasprintf("%s=%s", T[i].flag, T[i].value);
                        const char *w2[6] = {SUBS[s], joined, wants_cmd ? "true" : NULL};
                        CHECK_INTEQ(parse(&a, w2), 0);
                        CHECK(a.n_flags == 1 && streq(a.flags[0].value, T[i].value));
                        cli_args_free(&a);
                }
        }
}

/* Flags that the CLI uses itself rather than passing to the config. */
static void test_cli_own_flags(void)
{
        cli_args a;
        CHECK_INTEQ(parse(&a, ARGS("run", "--config", "a.json", "--config=b.json", "--quiet", "--stats", "s.json",
                                   "--stats-fd", "3", "-C", "/tmp", "--", "true")),
                    0);
        CHECK_INTEQ(a.n_configs, 2);
        CHECK(a.n_configs == 2 && streq(a.configs[0], "a.json") && streq(a.configs[1], "b.json"));
        CHECK(a.quiet);
        CHECK_STREQ(a.stats_file, "s.json");
        CHECK_INTEQ(a.stats_fd, 3);
        CHECK_STREQ(a.cwd, "/tmp");
        CHECK_STREQ(a.cwd_flag, "-C"); /* the working directory's errors name the flag as typed */
        CHECK_INTEQ(a.n_flags, 0);
        cli_args_free(&a);

        CHECK_INTEQ(parse(&a, ARGS("plan", "--cwd=/srv", "--json", "--", "true")), 0);
        CHECK_STREQ(a.cwd, "/srv");
        CHECK_STREQ(a.cwd_flag, "--cwd");
        CHECK(a.json);
        CHECK_INTEQ(a.stats_fd, -1);
        CHECK_INTEQ(a.pty, -1); /* the default: when stdin is a terminal */
        cli_args_free(&a);

        CHECK_INTEQ(parse(&a, ARGS("run", "--pty", "--", "true")), 0);
        CHECK_INTEQ(a.pty, 1);
        cli_args_free(&a);
        CHECK_INTEQ(parse(&a, ARGS("run", "--pty", "--no-pty", "--", "true")), 0);
        CHECK_INTEQ(a.pty, 0); /* the last one wins */
        cli_args_free(&a);
        CHECK(parse(&a, ARGS("plan", "--pty", "--", "true")) < 0); /* run only */
        cli_args_free(&a);

        CHECK_INTEQ(parse(&a, ARGS("check", "--json", "--config", "c.json", "--backend", "bwrap")), 0);
        CHECK(a.json);
        CHECK_INTEQ(a.n_configs, 1);
        CHECK(a.n_flags == 1 && a.flags[0].opt == OPT_BACKEND && streq(a.flags[0].value, "bwrap"));
        cli_args_free(&a);

        CHECK_INTEQ(parse(&a, ARGS("env", "--config", "c.json")), 0);
        CHECK_INTEQ(a.n_configs, 1);
        cli_args_free(&a);

        /* --die-with-parent[=PID]: the setter's flag, and the parent the CLI watches */
        CHECK_INTEQ(parse(&a, ARGS("run", "--die-with-parent=4242", "--", "true")), 0);
        CHECK_INTEQ(a.parent_pid, 4242);
        CHECK(a.n_flags == 1 && a.flags[0].opt == OPT_DIE_WITH_PARENT && a.flags[0].value == NULL);
        cli_args_free(&a);
        CHECK_INTEQ(parse(&a, ARGS("run", "--die-with-parent", "--", "true")), 0);
        CHECK_INTEQ(a.parent_pid, 0);
        cli_args_free(&a);
        /* the plan's refusal record, as run's */
        CHECK_INTEQ(parse(&a, ARGS("plan", "--stats-fd", "4", "--", "true")), 0);
        CHECK_INTEQ(a.stats_fd, 4);
        cli_args_free(&a);
}

/* Repeatable flags are kept, in command-line order, interleaved. */
static void test_repeatable_in_order(void)
{
        cli_args a;
        CHECK_INTEQ(parse(&a, ARGS("run", "--expose", "/a", "--set", "X=1", "--expose=/b:rw", "--network", "full",
                                   "--set", "X=2", "--network", "none", "--exclude", "A*", "--include-only", "P*",
                                   "--exclude", "B*", "--protect", "/p", "--", "true")),
                    0);
        static const struct {
                int opt;
                const char *value;
        } want[] = {
                {OPT_EXPOSE, "/a"},  {OPT_SET, "X=1"},      {OPT_EXPOSE, "/b:rw"}, {OPT_NETWORK, "full"},
                {OPT_SET, "X=2"},    {OPT_NETWORK, "none"}, {OPT_EXCLUDE, "A*"},   {OPT_INCLUDE_ONLY, "P*"},
                {OPT_EXCLUDE, "B*"}, {OPT_PROTECT, "/p"},
        };
        CHECK_INTEQ(a.n_flags, ARRAY_SIZE(want));
        for (size_t i = 0; i < a.n_flags && i < ARRAY_SIZE(want); i++) {
                CHECK_INTEQ(a.flags[i].opt, want[i].opt);
                CHECK_STREQ(a.flags[i].value, want[i].value);
        }
        cli_args_free(&a);
}

static void test_help(void)
{
        static const char *const SUBS[] = {"run", "plan", "env", "check"};
        static const cli_command CMDS[] = {CLI_RUN, CLI_PLAN, CLI_ENV, CLI_CHECK};
        for (size_t s = 0; s < ARRAY_SIZE(SUBS); s++) {
                cli_args a;
                /* --help needs no command, and wins over a missing one */
                CHECK_INTEQ(parse(&a, ARGS(SUBS[s], "--help")), 0);
                CHECK(a.help);
                CHECK_INTEQ(a.command, CMDS[s]);
                cli_args_free(&a);
                CHECK_INTEQ(parse(&a, ARGS(SUBS[s], "-h")), 0);
                CHECK(a.help);
                cli_args_free(&a);
                /* the usage text names the subcommand */
                _cleanup_free_ char *want = xasprintf("usage: cordon %s ", SUBS[s]);
                CHECK(strncmp(cli_usage(CMDS[s]), want, strlen(want)) == 0);
        }
        CHECK(strncmp(cli_usage(CLI_NONE), "usage: cordon COMMAND", 21) == 0);
        /* every flag of a subcommand is in its usage text */
        CHECK(strstr(cli_usage(CLI_RUN), "--limits-best-effort") != NULL);
        CHECK(strstr(cli_usage(CLI_RUN), "--stats-fd") != NULL);
        for (int cmd = CLI_RUN; cmd <= CLI_ENV; cmd++) {
                CHECK(strstr(cli_usage((cli_command)cmd), "--expose-ro PATH") != NULL);
                CHECK(strstr(cli_usage((cli_command)cmd), "--expose-rw PATH") != NULL);
                CHECK(strstr(cli_usage((cli_command)cmd), "\\: is a colon") != NULL);
        }
        CHECK(strstr(cli_usage(CLI_PLAN), "--json") != NULL);
        CHECK(strstr(cli_usage(CLI_ENV), "--include-only") != NULL);
        CHECK(strstr(cli_usage(CLI_CHECK), "--backend") != NULL);
}

static void test_errors(void)
{
        const struct {
                const char *const *words;
                const char *error;
        } T[] = {
                {ARGS(NULL), "missing command (run, plan, env, check, profiles, learn)"},
                {ARGS("frob"), "unknown command \"frob\" (run, plan, env, check, profiles, learn)"},
                {ARGS("--frob"), "unknown command \"--frob\" (run, plan, env, check, profiles, learn)"},
                {ARGS("run"), "run: missing the command to run (cordon run [flags] -- CMD [ARGS...])"},
                {ARGS("run", "--"), "run: missing the command to run (cordon run [flags] -- CMD [ARGS...])"},
                {ARGS("plan", "--json"), "plan: missing the command to run (cordon plan [flags] -- CMD [ARGS...])"},
                {ARGS("learn", "--explain"), "learn: missing the command to run (cordon learn [flags] -- CMD [ARGS...])"},
                {ARGS("plan", "--explain-on-failure", "--json"),
                 "plan: missing the command to run (cordon plan [flags] -- CMD [ARGS...])"},
                {ARGS("env", "ls"), "env: unexpected argument \"ls\""},
                {ARGS("env", "--", "ls"), "env: unexpected argument \"ls\""},
                {ARGS("check", "extra"), "check: unexpected argument \"extra\""},
                {ARGS("run", "--bogus", "--", "ls"), "run: unknown option \"--bogus\" (see cordon run --help)"},
                {ARGS("run", "--bogus=1", "--", "ls"), "run: unknown option \"--bogus=1\" (see cordon run --help)"},
                {ARGS("run", "-x", "--", "ls"), "run: unknown option \"-x\" (see cordon run --help)"},
                {ARGS("run", "-xy", "--", "ls"), "run: unknown option \"-x\" (see cordon run --help)"},
                {ARGS("run", "-Cx"), "run: missing the command to run (cordon run [flags] -- CMD [ARGS...])"},
                {ARGS("env", "-C", "/tmp"), "env: unknown option \"-C\" (see cordon env --help)"},
                {ARGS("check", "-C", "/tmp"), "check: unknown option \"-C\" (see cordon check --help)"},
                {ARGS("run", "--json", "--", "ls"), "run: unknown option \"--json\" (see cordon run --help)"},
                {ARGS("run", "--version"), "run: unknown option \"--version\" (see cordon run --help)"},
                {ARGS("run", "--network"), "run: option \"--network\" needs a value"},
                {ARGS("run", "-C"), "run: option \"-C\" needs a value"},
                {ARGS("plan", "--expose"), "plan: option \"--expose\" needs a value"},
                {ARGS("run", "--quiet=1", "--", "ls"), "run: option \"--quiet=1\" takes no value"},
                {ARGS("run", "--stats-fd", "x", "--", "ls"), "--stats-fd: not a file descriptor: \"x\""},
                {ARGS("run", "--stats-fd", "-1", "--", "ls"), "--stats-fd: not a file descriptor: \"-1\""},
                {ARGS("run", "--stats-fd", "", "--", "ls"), "--stats-fd: not a file descriptor: \"\""},
                {ARGS("run", "--die-with-parent=x", "--", "ls"),
                 "--die-with-parent=x: not a process id (the caller's own, as --die-with-parent=$$)"},
                {ARGS("run", "--die-with-parent=0", "--", "ls"),
                 "--die-with-parent=0: not a process id (the caller's own, as --die-with-parent=$$)"},
                {ARGS("run", "--die-with-parent=", "--", "ls"),
                 "--die-with-parent=: not a process id (the caller's own, as --die-with-parent=$$)"},
                {ARGS("env", "--die-with-parent"), "env: unknown option \"--die-with-parent\" (see cordon env --help)"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                cli_args a;
                CHECK_INTEQ(parse(&a, T[i].words), -1);
                CHECK_STREQ(a.error, T[i].error);
                cli_args_free(&a);
        }
}

/* The flag a parse failed on (for the --stats record of the refusal), and
 * a --stats FILE given after the error is still taken. */
static void test_error_flag(void)
{
        const struct {
                const char *const *words;
                const char *flag, *stats;
        } T[] = {
                {ARGS("run", "--bogus=1", "--", "ls"), "--bogus", NULL},
                {ARGS("run", "-xy", "--", "ls"), "-x", NULL},
                {ARGS("run", "--stats", "s.json", "--network"), "--network", "s.json"},
                {ARGS("run", "--quiet=1", "--stats", "s.json", "--", "ls"), "--quiet", "s.json"},
                {ARGS("run", "--stats-fd", "x", "--stats=t.json", "--", "ls"), "--stats-fd", "t.json"},
                {ARGS("run", "--stats", "s.json"), NULL, "s.json"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                cli_args a;
                CHECK_INTEQ(parse(&a, T[i].words), -1);
                if (T[i].flag)
                        CHECK_STREQ(a.error_flag, T[i].flag);
                else
                        CHECK(a.error_flag == NULL);
                if (T[i].stats)
                        CHECK_STREQ(a.stats_file, T[i].stats);
                cli_args_free(&a);
        }
        cli_args a;
        CHECK_INTEQ(parse(&a, ARGS("run", "--verbose", "--", "ls")), 0);
        CHECK(a.verbose && !a.quiet);
        cli_args_free(&a);
}

/* cli_args_free leaves a reusable, empty struct; parsing twice works
 * (getopt is reinitialised). */
static void test_reparse(void)
{
        cli_args a;
        for (int k = 0; k < 3; k++) {
                CHECK_INTEQ(parse(&a, ARGS("run", "--network", "full", "--", "ls")), 0);
                CHECK(a.n_flags == 1 && streq(a.flags[0].value, "full"));
                cli_args_free(&a);
                CHECK(a.flags == NULL && a.n_flags == 0 && a.error == NULL);
                CHECK_INTEQ(parse(&a, ARGS("run", "--bogus")), -1);
                cli_args_free(&a);
        }
}

int main(void)
{
        RUN(test_subcommands);
        RUN(test_command_words);
        RUN(test_every_config_flag);
        RUN(test_cli_own_flags);
        RUN(test_error_flag);
        RUN(test_repeatable_in_order);
        RUN(test_help);
        RUN(test_errors);
        RUN(test_reparse);
        return TAP_DONE();
}
