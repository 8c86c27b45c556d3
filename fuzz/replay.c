/* SPDX-License-Identifier: MIT */
/* Replays a fuzz target over its committed corpus and regressions (the
 * crashers fuzzing found), as a TAP test in `make check`. */
#include <dirent.h>
#include <stdio.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        return 0;
}

static int replay_dir(const char *dir, int *count)
{
        DIR *d = opendir(dir);
        if (!d)
                return 0;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                FILE *f = fopen(path, "rb");
                if (!f)
                        continue;
                static uint8_t buf[1 << 20];
                size_t n = fread(buf, 1, sizeof(buf), f);
                fclose(f);
                LLVMFuzzerTestOneInput(buf, n);
                (*count)++;
        }
        closedir(d);
        return 0;
}

int main(void)
{
        LLVMFuzzerInitialize(NULL, NULL);
        int corpus = 0, regressions = 0;
        replay_dir(FUZZ_DIR "/corpus/" FUZZ_NAME, &corpus);
        replay_dir(FUZZ_DIR "/regressions/" FUZZ_NAME, &regressions);
        /* reaching here means no input crashed (an invariant aborts) */
        printf("ok 1 - fuzz target %s: %d corpus inputs and %d regressions replayed\n", FUZZ_NAME, corpus, regressions);
        printf("1..1\n");
        return corpus > 0 ? 0 : 1;
}
