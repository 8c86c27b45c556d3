/* SPDX-License-Identifier: MIT */
/* The seatbelt renderer: golden profiles (tests/data/seatbelt/NAME.sb and
 * NAME.params) for plans written out by hand as macOS would have them, and
 * a well-formedness check of every profile: balanced, only the operations
 * and filters listed here, every (param "X") defined, no path of the plan
 * in the text.
 *
 *   UPDATE_GOLDEN=1 build/tests/test-seatbelt    rewrites the golden files
 *
 * The profiles have not been run on a Mac by this project's CI: these tests
 * pin what cordon writes, not what macOS does with it. */
#include <errno.h>

#include "plan.h"
#include "seatbelt/render.h"
#include "tap.h"

#ifndef TEST_DATA
#error "TEST_DATA must name tests/data (set in tests/meson.build)"
#endif
#define GOLDEN_DIR TEST_DATA "/seatbelt"

/* ---- the well-formedness check ------------------------------------------------------ */

static const char *const OPERATIONS[] = {
        "default",          "process-fork",       "process-exec",  "signal",          "process-info*",
        "mach-host*",       "ipc-posix-sem",      "sysctl-read",   "mach-lookup",     "file-read*",
        "file-read-metadata", "file-write*",      "file-write-data", "file-ioctl",    "file-link",
        "file-write-unlink", "pseudo-tty",        "system-socket", "network-bind",    "network-inbound",
        "network-outbound", NULL,
};
static const char *const FILTERS[] = {
        "subpath",   "literal", "regex",     "param",         "sysctl-name", "sysctl-name-prefix", "global-name",
        "target",    "vnode-type", "require-all", "extension", "socket-domain", "local",  "remote",
        "string-append", NULL,
};
static const char *const VALUES[] = {"same-sandbox", "DIRECTORY", "AF_UNIX", "AF_INET",  "AF_INET6",
                                     "AF_SYSTEM",    "unix-socket", "ip",     NULL};

static bool listed(const char *const *v, const char *s, size_t n)
{
        for (size_t i = 0; v[i]; i++)
                if (strlen(v[i]) == n && strncmp(v[i], s, n) == 0)
                        return true;
        return false;
}

typedef struct checker {
        const char *s;
        size_t i;
        char *const *params;
        char err[256];
} checker;

static void skip_space(checker *c)
{
        for (;;) {
                while (c->s[c->i] == ' ' || c->s[c->i] == '\n' || c->s[c->i] == '\t')
                        c->i++;
                if (c->s[c->i] != ';')
                        return;
                while (c->s[c->i] && c->s[c->i] != '\n')
                        c->i++;
        }
}

/* A string literal at c->i ("..." or #"..."): its contents' start and length. */
static bool string_at(checker *c, size_t *start, size_t *len)
{
        if (c->s[c->i] == '#')
                c->i++;
        if (c->s[c->i] != '"')
                return false;
        *start = ++c->i;
        while (c->s[c->i] && c->s[c->i] != '"')
                c->i += c->s[c->i] == '\\' && c->s[c->i + 1] ? 2 : 1;
        if (!c->s[c->i])
                return false;
        *len = c->i++ - *start;
        return true;
}

static bool param_defined(const checker *c, const char *name, size_t n)
{
        for (size_t i = 0; c->params && c->params[i]; i++)
                if (strncmp(c->params[i], name, n) == 0 && c->params[i][n] == '=')
                        return true;
        return false;
}

static bool fail(checker *c, const char *what, size_t at, size_t n)
{
        snprintf(c->err, sizeof(c->err), "%s at %zu: \"%.*s\"", what, at, (int)n, c->s + at);
        return false;
}

/* One list at c->i: |depth| 0 is a top-level form, 1 a filter of a rule. */
static bool check_list(checker *c, int depth)
{
        c->i++; /* ( */
        skip_space(c);
        size_t h = c->i;
        while (c->s[c->i] && !strchr(" \n\t()\";", c->s[c->i]))
                c->i++;
        size_t hn = c->i - h;
        bool rule = depth == 0 && (listed((const char *const[]){"allow", "deny", NULL}, c->s + h, hn));
        if (depth == 0 && !rule && !listed((const char *const[]){"version", NULL}, c->s + h, hn))
                return fail(c, "unknown form", h, hn);
        if (depth > 0 && !listed(FILTERS, c->s + h, hn))
                return fail(c, "unknown filter", h, hn);
        bool is_param = hn == 5 && strncmp(c->s + h, "param", 5) == 0;
        for (int arg = 0;; arg++) {
                skip_space(c);
                size_t a = c->i, start, len;
                char ch = c->s[c->i];
                if (ch == ')') {
                        c->i++;
                        return !is_param || arg == 1 ? true : fail(c, "param takes one name", h, hn);
                }
                if (!ch)
                        return fail(c, "unbalanced: missing )", h, hn);
                if (ch == '(') {
                        if (!check_list(c, depth + 1))
                                return false;
                } else if (ch == '"' || ch == '#') {
                        if (!string_at(c, &start, &len))
                                return fail(c, "unterminated string", a, 10);
                        if (is_param && !param_defined(c, c->s + start, len))
                                return fail(c, "undefined parameter", start, len);
                } else {
                        while (c->s[c->i] && !strchr(" \n\t()\";", c->s[c->i]))
                                c->i++;
                        size_t n = c->i - a;
                        bool number = strspn(c->s + a, "0123456789") >= n;
                        if (rule && !listed(OPERATIONS, c->s + a, n))
                                return fail(c, "unknown operation", a, n);
                        if (!rule && !number && !listed(VALUES, c->s + a, n))
                                return fail(c, "unknown value", a, n);
                }
        }
}

/* NULL when |text| is well formed, else why (static storage). */
static const char *check_profile(const char *text, char *const *params)
{
        static checker c;
        c = (checker){.s = text, .params = params};
        for (;;) {
                skip_space(&c);
                if (!text[c.i])
                        return NULL;
                if (text[c.i] != '(') {
                        fail(&c, "text outside a form (or an extra \")\")", c.i, 10);
                        return c.err;
                }
                if (!check_list(&c, 0))
                        return c.err;
        }
}

/* ---- plans as macOS would have them ----------------------------------------------- */

#define HOME_DIR "/Users/me"
#define INSTANCE HOME_DIR "/.cordon"
#define WORKSPACE HOME_DIR "/src/app"

static void add(cordon_plan *p, mount_type t, const char *path, bool rw, bool dir, mount_origin o, bool missing)
{
        p->mounts = realloc(p->mounts, (p->n_mounts + 1) * sizeof(plan_mount));
        p->mounts[p->n_mounts++] = (plan_mount){.type = t,
                                                .source = t == MOUNT_BIND ? strdup(path) : NULL,
                                                .target = strdup(path),
                                                .writable = rw,
                                                .is_dir = dir,
                                                .missing = missing,
                                                .origin = o};
}

/* The instance and the workspace, and system rules of the planning host
 * that the profile must ignore. */
static cordon_plan *base_plan(const char *instance, const char *workspace)
{
        cordon_plan *p = calloc(1, sizeof(*p));
        p->backend = BACKEND_SEATBELT;
        p->instance_root = strdup(instance);
        p->workspace = strdup(workspace);
        add(p, MOUNT_BIND, "/lib64", false, true, ORIGIN_SYSTEM, false);
        add(p, MOUNT_BIND, "/etc/ld.so.cache", false, false, ORIGIN_SYSTEM, false);
        add(p, MOUNT_BIND, instance, true, true, ORIGIN_INSTANCE, false);
        _cleanup_free_ char *logs = path_join(instance, "logs"), *skills = path_join(instance, "skills");
        add(p, MOUNT_TMPFS, logs, false, true, ORIGIN_INSTANCE, false);
        add(p, MOUNT_BIND, skills, false, true, ORIGIN_INSTANCE, false);
        add(p, MOUNT_BIND, workspace, true, true, ORIGIN_WORKSPACE, false);
        return p;
}

static cordon_plan *plan_default(void) { return base_plan(INSTANCE, WORKSPACE); }

/* As plan_build leaves them: parents before children. */
static int cmp_mounts(const void *a, const void *b)
{
        return path_compare(((const plan_mount *)a)->target, ((const plan_mount *)b)->target);
}
static cordon_plan *sorted(cordon_plan *p)
{
        qsort(p->mounts, p->n_mounts, sizeof(plan_mount), cmp_mounts);
        return p;
}

static cordon_plan *plan_expose(void)
{
        cordon_plan *p = base_plan(INSTANCE, WORKSPACE);
        add(p, MOUNT_BIND, "/opt/homebrew", false, true, ORIGIN_EXPOSE, false);
        add(p, MOUNT_BIND, HOME_DIR "/.gitconfig", false, false, ORIGIN_EXPOSE, false);
        add(p, MOUNT_BIND, HOME_DIR "/data", true, true, ORIGIN_EXPOSE, false);
        add(p, MOUNT_BIND, WORKSPACE "/vendor", false, true, ORIGIN_EXPOSE, false);
        add(p, MOUNT_BIND, HOME_DIR "/tools/bin", false, true, ORIGIN_EXE, false);
        return p;
}

static cordon_plan *plan_protect(void)
{
        cordon_plan *p = base_plan(INSTANCE, WORKSPACE);
        add(p, MOUNT_BIND, WORKSPACE "/.git", true, true, ORIGIN_PROTECT, false);
        add(p, MOUNT_BIND, WORKSPACE "/.git/config", false, false, ORIGIN_PROTECT, false);
        add(p, MOUNT_BIND, WORKSPACE "/.git/config.worktree", false, false, ORIGIN_PROTECT, true);
        add(p, MOUNT_BIND, WORKSPACE "/.git/hooks", false, true, ORIGIN_PROTECT, false);
        add(p, MOUNT_BIND, WORKSPACE "/.git/info", false, true, ORIGIN_PROTECT, false);
        return p;
}

static cordon_plan *plan_network(cordon_network n)
{
        cordon_plan *p = base_plan(INSTANCE, WORKSPACE);
        p->network = n;
        return p;
}
static cordon_plan *plan_loopback(void) { return plan_network(CORDON_NETWORK_LOOPBACK); }
static cordon_plan *plan_full(void) { return plan_network(CORDON_NETWORK_FULL); }
static cordon_plan *plan_proxy(void) { return plan_network(CORDON_NETWORK_PROXY); }

#define ODD_WORKSPACE HOME_DIR "/we\"ird) (deny default) \\ \"name"
static cordon_plan *plan_quotes(void)
{
        cordon_plan *p = base_plan(INSTANCE, ODD_WORKSPACE);
        add(p, MOUNT_BIND, HOME_DIR "/a (b) \"c\"", false, true, ORIGIN_EXPOSE, false);
        return p;
}

static cordon_plan *plan_var(void)
{
        cordon_plan *p = base_plan("/var/folders/xy/abc/T/cordon", "/tmp/ws");
        add(p, MOUNT_BIND, "/etc/hosts.d", false, true, ORIGIN_EXPOSE, false);
        add(p, MOUNT_BIND, "/variable", false, true, ORIGIN_EXPOSE, false); /* not /var */
        return p;
}

static const struct {
        const char *name;
        cordon_plan *(*make)(void);
        int proxy_port;
} CASES[] = {
        {"default", plan_default, 0},   {"expose", plan_expose, 0},     {"protect", plan_protect, 0},
        {"network-none", plan_default, 0}, {"network-loopback", plan_loopback, 0}, {"network-full", plan_full, 0},
        {"network-proxy", plan_proxy, 3128}, /* a fixed port: cordon run's is chosen at start */ {"quotes", plan_quotes, 0}, {"var", plan_var, 0},
};

/* ---- golden files -------------------------------------------------------------------- */

static char *params_text(char *const *params)
{
        buf b = {0};
        for (size_t i = 0; params && params[i]; i++)
                buf_printf(&b, "%s\n", params[i]);
        return b.len ? buf_steal(&b) : strdup("");
}

static void compare_golden(const char *name, const char *ext, const char *got)
{
        _cleanup_free_ char *path = xasprintf("%s/%s.%s", GOLDEN_DIR, name, ext);
        if (getenv("UPDATE_GOLDEN")) {
                FILE *f = fopen(path, "we");
                CHECK(f && fputs(got, f) >= 0);
                if (f)
                        fclose(f);
                return;
        }
        _cleanup_free_ char *want = tap_read_file(path);
        if (!want)
                printf("# %s missing (UPDATE_GOLDEN=1 writes it)\n", path);
        CHECK(want != NULL);
        if (want && strcmp(want, got) != 0) {
                printf("# %s differs; got:\n", path);
                for (const char *l = got; *l;) {
                        size_t n = strcspn(l, "\n");
                        printf("#   %.*s\n", (int)n, l);
                        l += n + (l[n] == '\n');
                }
                CHECK(false);
        }
}

static void test_golden_profiles(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(CASES); i++) {
                cordon_plan *p = sorted(CASES[i].make());
                seatbelt_options o = {.proxy_port = CASES[i].proxy_port};
                seatbelt_profile sp = {0};
                CHECK_INTEQ(seatbelt_render(p, &o, &sp), 0);
                const char *why = sp.text ? check_profile(sp.text, sp.params) : "no profile";
                if (why)
                        printf("# %s: %s\n", CASES[i].name, why);
                CHECK(why == NULL);
                _cleanup_free_ char *params = params_text(sp.params);
                compare_golden(CASES[i].name, "sb", sp.text ? sp.text : "");
                compare_golden(CASES[i].name, "params", params);
                seatbelt_profile_clear(&sp);
                cordon_plan_free(p);
        }
}

/* ---- properties ------------------------------------------------------------------------ */

static char *render(cordon_plan *p, int proxy_port, char ***ret_params)
{
        seatbelt_options o = {.proxy_port = proxy_port};
        seatbelt_profile sp = {0};
        CHECK_INTEQ(seatbelt_render(sorted(p), &o, &sp), 0);
        cordon_plan_free(p);
        *ret_params = sp.params;
        return sp.text;
}

static const char *param_value(char *const *params, const char *name)
{
        size_t n = strlen(name);
        for (size_t i = 0; params && params[i]; i++)
                if (strncmp(params[i], name, n) == 0 && params[i][n] == '=')
                        return params[i] + n + 1;
        return NULL;
}

/* No path reaches the text: the odd ones are parameters, verbatim. */
static void test_paths_only_in_parameters(void)
{
        _cleanup_strv_ char **params = NULL;
        _cleanup_free_ char *text = render(plan_quotes(), 0, &params);
        CHECK_STREQ(param_value(params, "WORKSPACE"), ODD_WORKSPACE);
        CHECK_STREQ(param_value(params, "EXPOSE_0"), HOME_DIR "/a (b) \"c\"");
        CHECK(text && !strstr(text, "we\\\"ird") && !strstr(text, "we\"ird") && !strstr(text, HOME_DIR));
        /* the control: the checker does see a path written into a profile */
        CHECK(check_profile("(version 1)\n(allow file-read* (subpath \"/Users/we\"ird\"))\n", NULL) != NULL);
}

/* A deny must come after the allow it overrides: the last match wins. */
static void test_protect_after_allow(void)
{
        _cleanup_strv_ char **params = NULL;
        _cleanup_free_ char *text = render(plan_protect(), 0, &params);
        const char *allow = text ? strstr(text, "(allow file-read* file-write* (subpath (param \"WORKSPACE\")))") : NULL;
        CHECK_STREQ(param_value(params, "PROTECT_2"), WORKSPACE "/.git/hooks");
        CHECK_STREQ(param_value(params, "PROTECT_1"), WORKSPACE "/.git/config.worktree"); /* absent */
        const char *deny = text ? strstr(text, "(deny file-write* file-link (subpath (param \"PROTECT_2\")))") : NULL;
        CHECK(allow && deny && deny > allow);
        /* .git and the workspace cannot be renamed away from their rules */
        CHECK(text && strstr(text, "(deny file-write-unlink (literal (param \"NO_MOVE_"));
        bool git = false, ws = false;
        for (size_t i = 0; params && params[i]; i++) {
                bool no_move = strncmp(params[i], "NO_MOVE_", 8) == 0;
                const char *v = strchr(params[i], '=');
                git = git || (no_move && streq(v, "=" WORKSPACE "/.git"));
                ws = ws || (no_move && streq(v, "=" WORKSPACE));
        }
        CHECK(git && ws);
        /* the writable .git (the mount the linux backend stacks on) grants nothing more */
        CHECK(!param_value(params, "PROTECT_4") && !strstr(text ? text : "", "read-write (protect)"));
        /* the control: without protection nothing is denied below the workspace */
        _cleanup_strv_ char **params0 = NULL;
        _cleanup_free_ char *text0 = render(plan_default(), 0, &params0);
        CHECK(text0 && !strstr(text0, "PROTECT_"));
}

static void test_network_modes(void)
{
        _cleanup_strv_ char **p0 = NULL, **p1 = NULL, **p2 = NULL, **p3 = NULL;
        _cleanup_free_ char *none = render(plan_default(), 0, &p0), *lo = render(plan_loopback(), 0, &p1),
                            *full = render(plan_full(), 0, &p2), *proxy = render(plan_proxy(), 8080, &p3);
        CHECK(none && !strstr(none, "(remote ip") && !strstr(none, "(local ip"));
        CHECK(lo && strstr(lo, "(remote ip \"localhost:*\")") && !strstr(lo, "(remote ip)"));
        CHECK(full && strstr(full, "(remote ip)"));
        CHECK(proxy && strstr(proxy, "(param \"PROXY_PORT\")") && !strstr(proxy, "localhost:*"));
        CHECK_STREQ(param_value(p3, "PROXY_PORT"), "8080");
        CHECK(!param_value(p0, "PROXY_PORT"));
        /* a port is for the proxy network only; without one (cordon plan) the rule says it is chosen at start */
        _cleanup_strv_ char **p4 = NULL, **p5 = NULL;
        _cleanup_free_ char *none_port = render(plan_default(), 8080, &p4), *planned = render(plan_proxy(), 0, &p5);
        CHECK(none_port && !strstr(none_port, "(remote ip") && !param_value(p4, "PROXY_PORT"));
        CHECK(planned && strstr(planned, "(param \"PROXY_PORT\")"));
        CHECK_STREQ(param_value(p5, "PROXY_PORT"), SEATBELT_PORT_AT_START);
}

static void test_canonical(void)
{
        static const char *const T[][2] = {
                {"/var", "/private/var"},         {"/var/folders/x", "/private/var/folders/x"},
                {"/tmp/a", "/private/tmp/a"},      {"/etc/hosts", "/private/etc/hosts"},
                {"/variable", "/variable"},       {"/private/var/x", "/private/var/x"},
                {"/Users/me/var", "/Users/me/var"}, {"/etcetera", "/etcetera"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                _cleanup_free_ char *c = seatbelt_canonical(T[i][0]);
                CHECK_STREQ(c, T[i][1]);
        }
}

/* The checker itself: each of these must be refused. */
static void test_checker_refuses(void)
{
        char *params[] = {"A=/x", NULL};
        static const char *const BAD[] = {
                "(version 1)\n(allow file-read* (subpath (param \"A\"))",   /* unbalanced */
                "(version 1)\n(allow file-read* (subpath (param \"A\"))))", /* extra ) */
                "(allow file-frobnicate (subpath (param \"A\")))",         /* unknown operation */
                "(allow file-read* (frob (param \"A\")))",                 /* unknown filter */
                "(allow file-read* (subpath (param \"B\")))",              /* undefined parameter */
                "(allow signal (target everyone))",                        /* unknown value */
                "(launch-missiles)",                                       /* unknown form */
                "(allow file-read* (literal \"/x))",                       /* unterminated string */
        };
        for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
                const char *why = check_profile(BAD[i], params);
                if (!why)
                        printf("# accepted: %s\n", BAD[i]);
                CHECK(why != NULL);
        }
        CHECK(check_profile("(version 1)\n(allow file-read* (subpath (param \"A\"))) ; (\n", params) == NULL);
}

int main(void)
{
        RUN(test_golden_profiles);
        RUN(test_paths_only_in_parameters);
        RUN(test_protect_after_allow);
        RUN(test_network_modes);
        RUN(test_canonical);
        RUN(test_checker_refuses);
        return TAP_DONE();
}
