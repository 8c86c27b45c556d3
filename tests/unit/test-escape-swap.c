/* SPDX-License-Identifier: MIT */
/* Escape probe: a bind source swapped for a symlink between planning and
 * mounting must not redirect the mount (the source is opened with
 * RESOLVE_NO_SYMLINKS and bound through the fd). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon.h"
#include "tap.h"

static char base[64];

static void write_file(const char *dir, const char *name, const char *text)
{
        char p[256];
        snprintf(p, sizeof(p), "%s/%s", dir, name);
        FILE *f = fopen(p, "w");
        if (f) {
                fputs(text, f);
                fclose(f);
        }
}

/* Plan "cat /opt/src/file" with |source| exposed at /opt/src, run |swap|
 * between prepare and start; returns the start result and what was read. */
static int run_with_swap(const char *source, void (*swap)(void), char *out, size_t outlen, char *err_text,
                         size_t errlen)
{
        char home[128];
        snprintf(home, sizeof(home), "%s/home", base);
        cordon_config *c = cordon_config_new();
        cordon_error *err = NULL;
        cordon_config_set_home(c, home, NULL);
        cordon_config_add_expose(c, source, "/opt/src", false, NULL);
        const char *argv[] = {"/bin/cat", "/opt/src/file", NULL};
        cordon_command *cmd = cordon_command_new(argv);
        cordon_command_set_cwd(cmd, "/");
        cordon_command_set_stdio(cmd, 1, CORDON_STDIO_PIPE);
        cordon_plan *plan = NULL;
        cordon_config_set_auto_expose(c, CORDON_AUTO_EXPOSE_CWD, CORDON_EXPOSE_OFF);
        int r = cordon_prepare(c, cmd, &plan, &err);
        /* cwd "/" with auto_expose.cwd off: the plan fails unless / is
         * visible; use the exposed dir as cwd instead */
        if (r < 0) {
                cordon_error_free(err);
                err = NULL;
                cordon_command_set_cwd(cmd, source);
                r = cordon_prepare(c, cmd, &plan, &err);
        }
        out[0] = err_text[0] = '\0';
        if (r == 0) {
                if (swap)
                        swap();
                cordon_process *p = NULL;
                r = cordon_start(plan, &p, &err);
                if (r == 0) {
                        ssize_t n = read(cordon_process_stdio(p, 1), out, outlen - 1);
                        out[n > 0 ? n : 0] = '\0';
                        cordon_result res;
                        cordon_wait(p, -1, &res, NULL);
                        cordon_process_free(p);
                }
        }
        if (err)
                snprintf(err_text, errlen, "%s", cordon_error_message(err));
        cordon_error_free(err);
        cordon_plan_free(plan);
        cordon_command_free(cmd);
        cordon_config_free(c);
        return r;
}

static char src[128], src_orig[128], outside[128], deep_a[128], deep_a_orig[128], deep_src[128];

static void swap_final(void)
{
        rename(src, src_orig);
        CHECK(symlink(outside, src) == 0);
}

static void swap_parent(void)
{
        rename(deep_a, deep_a_orig);
        CHECK(symlink(outside, deep_a) == 0); /* deep_a/b now resolves into |outside| */
}

static void test_control_no_swap(void)
{
        char out[256], e[512];
        CHECK_INTEQ(run_with_swap(src, NULL, out, sizeof(out), e, sizeof(e)), 0);
        CHECK_STREQ(out, "inside\n");
}

static void test_final_component_swapped(void)
{
        char out[256], e[512];
        int r = run_with_swap(src, swap_final, out, sizeof(out), e, sizeof(e));
        printf("# %s\n", e);
        CHECK(r < 0);
        CHECK(strstr(out, "SECRET") == NULL);
        CHECK(strstr(e, "changed since planning") != NULL || strstr(e, "symlink") != NULL);
        /* the same path through the symlink, unsandboxed, does reach it */
        char p[256];
        snprintf(p, sizeof(p), "%s/file", src);
        FILE *f = fopen(p, "r");
        char got[64] = "";
        if (f) {
                CHECK(fgets(got, sizeof(got), f) != NULL);
                fclose(f);
        }
        CHECK_STREQ(got, "SECRET\n");
}

static void test_parent_component_swapped(void)
{
        char out[256], e[512];
        int r = run_with_swap(deep_src, swap_parent, out, sizeof(out), e, sizeof(e));
        printf("# %s\n", e);
        CHECK(r < 0);
        CHECK(strstr(out, "SECRET") == NULL);
}

int main(void)
{
        if (getuid() != 0 && access("/proc/self/ns/user", F_OK) < 0) {
                tap_skip("swap", "no user namespaces");
                return TAP_DONE();
        }
        strcpy(base, "/tmp/cordon-swap.XXXXXX");
        if (!mkdtemp(base))
                return 1;
        chmod(base, 0755);
        snprintf(src, sizeof(src), "%s/src", base);
        snprintf(src_orig, sizeof(src_orig), "%s/src.orig", base);
        snprintf(outside, sizeof(outside), "%s/outside", base);
        snprintf(deep_a, sizeof(deep_a), "%s/a", base);
        snprintf(deep_a_orig, sizeof(deep_a_orig), "%s/a.orig", base);
        snprintf(deep_src, sizeof(deep_src), "%s/a/b", base);
        mkdir(src, 0755);
        mkdir(outside, 0755);
        mkdir(deep_a, 0755);
        mkdir(deep_src, 0755);
        char b_in_outside[160];
        snprintf(b_in_outside, sizeof(b_in_outside), "%s/b", outside);
        mkdir(b_in_outside, 0755);
        write_file(src, "file", "inside\n");
        write_file(deep_src, "file", "inside\n");
        write_file(outside, "file", "SECRET\n");
        write_file(b_in_outside, "file", "SECRET\n");
        RUN(test_control_no_swap);
        RUN(test_final_component_swapped);
        RUN(test_parent_component_swapped);
        char cmd[200];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", base);
        return TAP_DONE();
}
