/* SPDX-License-Identifier: MIT */
/* What `cordon check` tells a user whose AppArmor restricts user namespaces
 * (the host's sysctl cannot be set here: the text is tested as pure data). */
#include "host.h"
#include "tap.h"

/* apparmor/cordon.in with @BINARY@ replaced, as meson's configure_file does */
static char *template_for(const char *exe)
{
        _cleanup_free_ char *in = tap_read_file(TEST_DATA "/../../apparmor/cordon.in");
        buf b = {0};
        for (const char *p = in; p && *p;) {
                const char *at = strstr(p, "@BINARY@");
                size_t n = at ? (size_t)(at - p) : strlen(p);
                buf_printf(&b, "%.*s%s", (int)n, p, at ? exe : "");
                p = at ? at + strlen("@BINARY@") : p + n;
        }
        return buf_steal(&b);
}

static void test_profile_is_the_template(void)
{
        _cleanup_free_ char *want = template_for("/usr/local/bin/cordon");
        _cleanup_free_ char *got = host_apparmor_profile("/usr/local/bin/cordon");
        CHECK(want && strstr(want, "profile cordon /usr/local/bin/cordon flags=(unconfined) {\n  userns,\n"));
        CHECK_STREQ(got, want);
}

static void test_profile_only_for_plain_paths(void)
{
        static const char *const BAD[] = {"cordon", "/opt/my tools/cordon", "/opt/*/cordon", "/opt/{a,b}/cordon",
                                          "/opt/c[1]/cordon", "/opt/x?/cordon", "/opt/a\"b/cordon", ""};
        for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
                char *p = host_apparmor_profile(BAD[i]);
                CHECK(p == NULL);
                free(p);
        }
        _cleanup_free_ char *ok = host_apparmor_profile("/home/u/src/cordon-0.1_x+y/build/cordon");
        CHECK(ok != NULL);
}

#define SYSCTL_LINES                                                                      \
        "  or, bluntly, lift the restriction for every program until the next boot:\n" \
        "    sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"

static void test_fix_installed(void)
{
        _cleanup_free_ char *t = host_apparmor_fix("/usr/local/bin/cordon", "/usr/local/share/cordon/apparmor/cordon");
        CHECK(t && strstr(t, "AppArmor restricts unprivileged user namespaces "
                             "(kernel.apparmor_restrict_unprivileged_userns = 1, Ubuntu 23.10+)"));
        CHECK(t && strstr(t, "/usr/local/bin/cordon has no such profile loaded"));
        CHECK(t && strstr(t, ":\n    sudo install -m 644 /usr/local/share/cordon/apparmor/cordon /etc/apparmor.d/cordon"
                             " && sudo apparmor_parser -r /etc/apparmor.d/cordon\n" SYSCTL_LINES));
        CHECK(t && !strstr(t, "<<'EOF'"));
}

static void test_fix_writes_profile(void)
{
        const char *exe = "/home/u/cordon/build/cordon";
        _cleanup_free_ char *profile = template_for(exe);
        _cleanup_free_ char *t = host_apparmor_fix(exe, NULL);
        _cleanup_free_ char *want = xasprintf("    sudo tee /etc/apparmor.d/cordon >/dev/null <<'EOF'\n%sEOF\n"
                                              "    sudo apparmor_parser -r /etc/apparmor.d/cordon\n" SYSCTL_LINES,
                                              profile);
        CHECK(t && strstr(t, want));
        CHECK(t && strstr(t, "/home/u/cordon/build/cordon has no such profile loaded"));
}

static void test_fix_pattern_path(void)
{
        _cleanup_free_ char *t = host_apparmor_fix("/opt/my tools/cordon", NULL);
        CHECK(t && strstr(t, "AppArmor would read it as a pattern"));
        CHECK(t && !strstr(t, "tee") && strstr(t, SYSCTL_LINES));
}

int main(void)
{
        RUN(test_profile_is_the_template);
        RUN(test_profile_only_for_plain_paths);
        RUN(test_fix_installed);
        RUN(test_fix_writes_profile);
        RUN(test_fix_pattern_path);
        return TAP_DONE();
}
