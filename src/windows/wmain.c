/* SPDX-License-Identifier: MIT */
/* cordon.exe's entry point: the C runtime's wide arguments (as it splits
 * the UTF-16 command line) in UTF-8 for the CLI's main, which this build
 * compiles as cordon_main. The ANSI argv would lose what the code page
 * cannot spell. */
#include <stdio.h>
#include <windows.h>

#include "windows/host.h"

int wmain(int argc, wchar_t **wargv);
int wmain(int argc, wchar_t **wargv)
{
        char **argv = calloc((size_t)argc + 1, sizeof(*argv));
        for (int i = 0; argv && i < argc; i++)
                if (!(argv[i] = win_narrow(wargv[i]))) {
                        fprintf(stderr, "cordon: argument %d is not valid UTF-16\n", i);
                        return 125;
                }
        if (!argv) {
                fprintf(stderr, "cordon: out of memory\n");
                return 125;
        }
        /* the console's output as UTF-8, like the arguments */
        SetConsoleOutputCP(CP_UTF8);
        return cordon_main(argc, argv);
}
