/* SPDX-License-Identifier: MIT */
/* A stand-in for macOS's /usr/bin/sandbox-exec, for tests on Linux (built
 * into cordon only with -Dseatbelt_standin=true, and by test-seatbelt).
 * It does NOT isolate anything. It takes the same arguments,
 *   sandbox-exec -p PROFILE [-D NAME=VALUE]... [--] COMMAND [ARG]...
 * refuses a profile that uses a parameter no -D defines (as sandbox-exec
 * does), records what it got when $CORDON_STANDIN_RECORD names a path
 * prefix (PREFIX.profile: the profile; PREFIX.params: one NAME=VALUE a
 * line; PREFIX.argv: the command, one argument a line), then executes the
 * command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(const char *why)
{
        fprintf(stderr, "sandbox-exec stand-in: %s\n", why);
        return 64;
}

/* Is every (param "NAME") of |profile| among the -D definitions? */
static int params_defined(const char *profile, char **defs, int n)
{
        static const char KEY[] = "(param \"";
        for (const char *s = strstr(profile, KEY); s; s = strstr(s + 1, KEY)) {
                const char *name = s + strlen(KEY), *end = strchr(name, '"');
                int found = 0;
                for (int i = 0; end && i < n && !found; i++)
                        found = strncmp(defs[i], name, (size_t)(end - name)) == 0 && defs[i][end - name] == '=';
                if (!found) {
                        fprintf(stderr, "sandbox-exec stand-in: the profile uses an undefined parameter: %.*s\n",
                                end ? (int)(end - name) : 20, name);
                        return 0;
                }
        }
        return 1;
}

static int record(const char *prefix, const char *suffix, char **v, int n, const char *sep)
{
        size_t len = strlen(prefix) + strlen(suffix) + 1;
        char *path = malloc(len);
        if (!path)
                return -1;
        snprintf(path, len, "%s%s", prefix, suffix);
        FILE *f = fopen(path, "w");
        free(path);
        if (!f)
                return -1;
        for (int i = 0; i < n; i++)
                fprintf(f, "%s%s", v[i], sep);
        return fclose(f);
}

int main(int argc, char **argv)
{
        char *profile = NULL;
        char **defs = calloc((size_t)argc, sizeof(char *));
        int n = 0, i = 1;
        if (!defs)
                return 71;
        for (; i < argc && argv[i][0] == '-'; i++) {
                if (strcmp(argv[i], "--") == 0) {
                        i++;
                        break;
                }
                if (i + 1 >= argc)
                        return usage("an option without its value");
                if (strcmp(argv[i], "-p") == 0)
                        profile = argv[++i];
                else if (strcmp(argv[i], "-D") == 0 && strchr(argv[i + 1], '='))
                        defs[n++] = argv[++i];
                else
                        return usage("unknown option, or -D without NAME=VALUE");
        }
        if (!profile || i >= argc)
                return usage("usage: sandbox-exec -p PROFILE [-D NAME=VALUE]... [--] COMMAND [ARG]...");
        if (!params_defined(profile, defs, n))
                return 65;
        const char *prefix = getenv("CORDON_STANDIN_RECORD");
        if (prefix && (record(prefix, ".profile", &profile, 1, "") < 0 || record(prefix, ".params", defs, n, "\n") < 0 ||
                       record(prefix, ".argv", argv + i, argc - i, "\n") < 0)) {
                perror("sandbox-exec stand-in: cannot record");
                return 71;
        }
        execv(argv[i], argv + i);
        fprintf(stderr, "sandbox-exec stand-in: %s: ", argv[i]);
        perror("execv");
        return 71;
}
