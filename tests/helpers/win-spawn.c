/* SPDX-License-Identifier: MIT */
/* The windows backend's launcher, driven directly (a library test under
 * Wine, tests/integration/windows.sh):
 *   win-spawn [--root DIR] [--pids N] [--memory BYTES] [--env NAME=VALUE]
 *             [--inheritable FILE] [--grant DIR]... [--fail-assign] -- EXE ARG...
 * runs EXE through win_spawn with the caller's environment (plus --env)
 * redirected into DIR when given, and exits with its status (125 and the
 * error when cordon's part fails). */
#include <stdio.h>
#include <string.h>

#include "windows/host.h"
#include "windows/launch.h"

/* An inheritable handle of FILE, as the variable the probe reads: the
 * command must not get it. */
static char *inheritable(const char *file)
{
        SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
        HANDLE h = CreateFileA(file, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_ALWAYS, 0, NULL);
        return xasprintf("CORDON_TEST_HANDLE=%llu", (unsigned long long)(uintptr_t)h);
}

int main(void)
{
        int argc = 0;
        char **argv = win_host_argv(&argc);
        char **env = win_host_environ();
        if (!argv || !env)
                return 125;
        win_spec s = {.stdio = {GetStdHandle(STD_INPUT_HANDLE), GetStdHandle(STD_OUTPUT_HANDLE),
                                GetStdHandle(STD_ERROR_HANDLE)}};
        win_path grants[8];
        size_t n_grants = 0;
        int i = 1;
        for (; i + 1 < argc && strcmp(argv[i], "--") != 0; i += 2) {
                if (strcmp(argv[i], "--fail-assign") == 0) {
                        s.test_fail_assign = true;
                        i--;
                } else if (strcmp(argv[i], "--root") == 0)
                        s.instance_root = argv[i + 1];
                else if (strcmp(argv[i], "--pids") == 0)
                        s.processes = (uint32_t)strtoul(argv[i + 1], NULL, 10);
                else if (strcmp(argv[i], "--memory") == 0)
                        s.memory_bytes = strtoull(argv[i + 1], NULL, 10);
                else if (strcmp(argv[i], "--env") == 0)
                        strv_push(&env, argv[i + 1]);
                else if (strcmp(argv[i], "--grant") == 0)
                        grants[n_grants++ % 8] = (win_path){argv[i + 1], NULL, true, "test"};
                else if (strcmp(argv[i], "--inheritable") == 0)
                        strv_consume(&env, inheritable(argv[i + 1]));
        }
        if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
                fprintf(stderr, "usage: win-spawn [--root DIR] [--pids N] [--memory B] -- EXE ARG...\n");
                return 125;
        }
        s.exe = argv[i + 1];
        s.argv = argv + i + 1;
        win_env_input in = {.instance_root = s.instance_root, .markers = true, .network_disabled = false};
        char **block = NULL;
        if (win_env_build(env, &in, &block) < 0)
                return 125;
        s.env = block;
        cordon_error *e = NULL;
        win_child c = {0};
        win_rules rules = {0};
        char *why = NULL;
        if (n_grants && (!s.instance_root || win_rules_build(s.instance_root, grants, n_grants, &rules, &why) < 0))
                return 125;
        s.rules = n_grants ? &rules : NULL;
        if (win_spawn(&s, &c, &e) < 0) {
                fprintf(stderr, "cordon: %s\n", cordon_error_message(e));
                return 125;
        }
        DWORD status = 0;
        bool timed_out = false;
        if (win_wait(&c, INFINITE, &status, &timed_out, &e) < 0) {
                fprintf(stderr, "cordon: %s\n", cordon_error_message(e));
                return 125;
        }
        win_child_close(&c);
        return (int)status;
}
