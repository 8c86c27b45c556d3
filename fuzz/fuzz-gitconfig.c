/* SPDX-License-Identifier: MIT */
/* The git config parser and what reads configs the command wrote
 * (src/core/gitmodel.c): any bytes, never a crash, and the same answers
 * twice. */
#include "fuzz.h"
#include "gitmodel.h"

static bool count(const char *key, const char *value, void *userdata)
{
        (void)value;
        *(size_t *)userdata += strlen(key);
        return true;
}

static void on_path(git_key_kind kind, const char *path, void *userdata)
{
        (void)kind;
        *(size_t *)userdata += strlen(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *text = (const char *)data;
        size_t a = 0, b = 0;
        int r1 = git_config_parse(text, size, count, &a);
        int r2 = git_config_parse(text, size, count, &b);
        if (r1 != r2 || a != b)
                __builtin_trap();
        (void)git_config_benign(text, size);
        git_config_origin o = {.file_dir = "/w/r/.git", .worktree = "/w/r", .gitdir = "/w/r/.git", .home = "/home/u"};
        git_config_paths(text, size, &o, on_path, &a);
        (void)git_todo_runs_program(text, size);
        (void)git_head_valid(text, size, size & 1);
        return 0;
}
