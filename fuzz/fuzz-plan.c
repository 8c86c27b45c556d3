/* SPDX-License-Identifier: MIT */
/* Plan building from a fuzzed config against a fixture host tree. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "plan.h"

static char root[64];

static void mk(const char *rel, bool dir)
{
        char p[256];
        snprintf(p, sizeof(p), "%s%s", root, rel);
        if (dir)
                mkdir(p, 0755);
        else {
                FILE *f = fopen(p, "w");
                if (f) {
                        fputs("#!/usr/bin/sh\n", f);
                        fclose(f);
                }
                chmod(p, 0755);
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        (void)argc;
        (void)argv;
        strcpy(root, "/tmp/cordon-fuzz-plan.XXXXXX");
        if (!mkdtemp(root))
                abort();
        static const char *const DIRS[] = {"/usr", "/usr/bin", "/usr/lib", "/etc", "/etc/ssl", "/home",
                                           "/home/u", "/home/u/proj", "/opt", "/opt/tool", "/data", "/tmp"};
        for (size_t i = 0; i < sizeof(DIRS) / sizeof(DIRS[0]); i++)
                mk(DIRS[i], true);
        mk("/usr/bin/sh", false);
        mk("/usr/bin/tool", false);
        mk("/etc/hosts", false);
        char p[256], t[256];
        snprintf(p, sizeof(p), "%s/bin", root);
        if (symlink("usr/bin", p) < 0)
                abort();
        snprintf(t, sizeof(t), "%s/lib", root);
        if (symlink("usr/lib", t) < 0)
                abort();
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (!root[0])
                LLVMFuzzerInitialize(NULL, NULL);
        char *text = fuzz_string(data, size);
        cordon_config *c = cordon_config_new();
        const char *argv[] = {"tool", "/data", "--x=/opt/tool", NULL};
        cordon_command *cmd = cordon_command_new(argv);
        char *const environ_[] = {"PATH=/usr/bin:/bin", "HOME=/home/u", "CORDON_HOME=/home/u/.cordon", NULL};
        host_info h = {.root = root, .uid = 1000, .gid = 1000, .user = "u", .home = "/home/u",
                       .passwd_home = "/srv/u", .cwd = "/home/u/proj", .environ = environ_};
        cordon_plan *p = NULL;
        /* config paths must exist on the real host to validate; most fuzzed
         * ones don't, which still exercises the rest */
        if (text && c && cmd && cordon_config_load_string(c, text, "fuzz", NULL) == 0 &&
            plan_build(c, cmd, &h, &p, NULL) == 0) {
                for (size_t i = 0; i < p->n_mounts; i++) {
                        FUZZ_ASSERT(p->mounts[i].target[0] == '/');
                        FUZZ_ASSERT(strcmp(p->mounts[i].target, "/") != 0);
                        if (i > 0) /* sorted, one rule per target */
                                FUZZ_ASSERT(path_compare(p->mounts[i - 1].target, p->mounts[i].target) < 0);
                        /* never the home directory ($HOME's or passwd's) or an
                         * ancestor, automatically */
                        mount_origin o = p->mounts[i].origin;
                        if (o == ORIGIN_EXE || o == ORIGIN_CWD || o == ORIGIN_ARG) {
                                FUZZ_ASSERT(!path_startswith("/home/u", p->mounts[i].target));
                                FUZZ_ASSERT(!path_startswith("/srv/u", p->mounts[i].target));
                        }
                }
                char *t = cordon_plan_to_text(p), *j = cordon_plan_to_json(p);
                FUZZ_ASSERT(t && j);
                free(t);
                free(j);
        }
        cordon_plan_free(p);
        cordon_command_free(cmd);
        cordon_config_free(c);
        free(text);
        return 0;
}
