/* SPDX-License-Identifier: MIT */
/* Golden plan dumps against fixture host trees.
 *
 * Two fixture hosts are built at run time in a temporary directory (a
 * merged-/usr layout, where /bin, /lib, /lib64 and /sbin are symlinks into
 * /usr, and a split-/usr one, where they are real directories), and
 * plan_build() reads them through host_info.root. The plans are compared
 * with tests/data/plan/NAME.golden (text) and NAME.json.golden (JSON).
 *
 *   UPDATE_GOLDEN=1 build/tests/test-plan    rewrites the golden files
 *
 * (then review them with git diff before committing). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "error.h"
#include "plan.h"
#include "tap.h"

#ifndef TEST_DATA
#error "TEST_DATA must name tests/data (set in tests/meson.build)"
#endif
#define GOLDEN_DIR TEST_DATA "/plan"

static char *fixture_base; /* the temporary directory holding both hosts */
static char *merged_root, *split_root;

/* ---- building the fixture hosts ------------------------------------------------------ */

static int mkdir_p(const char *path)
{
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -1;
        for (char *s = p + 1;; s++) {
                if (*s != '/' && *s != '\0')
                        continue;
                char c = *s;
                *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return -1;
                *s = c;
                if (c == '\0')
                        return 0;
        }
}

static bool fx_dir(const char *root, const char *path)
{
        _cleanup_free_ char *p = xasprintf("%s%s", root, path);
        return p && mkdir_p(p) == 0;
}

static bool fx_file(const char *root, const char *path, const char *content, mode_t mode)
{
        _cleanup_free_ char *p = xasprintf("%s%s", root, path);
        _cleanup_free_ char *dir = p ? path_dirname(p) : NULL;
        if (!dir || mkdir_p(dir) < 0)
                return false;
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (fd < 0)
                return false;
        size_t n = strlen(content);
        bool ok = write(fd, content, n) == (ssize_t)n && fchmod(fd, mode) == 0;
        return close(fd) == 0 && ok;
}

static bool fx_link(const char *root, const char *path, const char *target)
{
        _cleanup_free_ char *p = xasprintf("%s%s", root, path);
        _cleanup_free_ char *dir = p ? path_dirname(p) : NULL;
        return dir && mkdir_p(dir) == 0 && symlink(target, p) == 0;
}

#define EXE  0755
#define DATA 0644

/* What both layouts share. */
static bool fx_common(const char *r)
{
        return fx_file(r, "/usr/bin/sh", "ELF", EXE) && fx_file(r, "/usr/bin/ls", "ELF", EXE) &&
               fx_file(r, "/usr/bin/cat", "ELF", EXE) && fx_file(r, "/usr/bin/env", "ELF", EXE) &&
               fx_file(r, "/usr/bin/python3", "ELF", EXE) && fx_dir(r, "/usr/sbin") &&
               fx_file(r, "/usr/lib/x86_64-linux-gnu/libc.so.6", "ELF", DATA) &&
               fx_file(r, "/usr/lib64/ld-linux-x86-64.so.2", "ELF", EXE) &&
               fx_file(r, "/usr/share/zoneinfo/Europe/Paris", "TZif", DATA) &&
               /* PATH: a plain tool, a symlink into /opt, one without the x bit */
               fx_file(r, "/usr/local/bin/tool", "ELF", EXE) &&
               fx_link(r, "/usr/local/bin/node", "/opt/node/bin/node") &&
               fx_file(r, "/opt/node/bin/node", "ELF", EXE) && fx_file(r, "/opt/node/lib/node.so", "ELF", DATA) &&
               fx_file(r, "/usr/local/bin/noexec", "not executable", DATA) &&
               /* /etc: what the sandbox gets, some of it through symlinks, and what it must not get */
               fx_file(r, "/etc/hosts", "127.0.0.1 localhost\n", DATA) &&
               fx_file(r, "/etc/nsswitch.conf", "passwd: files\n", DATA) &&
               fx_file(r, "/etc/ld.so.cache", "cache", DATA) && fx_file(r, "/etc/ld.so.conf", "include", DATA) &&
               fx_file(r, "/etc/ld.so.conf.d/libc.conf", "/usr/local/lib\n", DATA) &&
               fx_link(r, "/etc/resolv.conf", "../run/systemd/resolve/stub-resolv.conf") &&
               fx_file(r, "/run/systemd/resolve/stub-resolv.conf", "nameserver 127.0.0.53\n", DATA) &&
               fx_link(r, "/etc/localtime", "/usr/share/zoneinfo/Europe/Paris") &&
               fx_file(r, "/etc/ssl/certs/ca.pem", "PEM", DATA) &&
               fx_link(r, "/etc/alternatives/python", "/usr/bin/python3") &&
               fx_link(r, "/etc/os-release", "../usr/lib/os-release") &&
               fx_file(r, "/usr/lib/os-release", "ID=debian\n", DATA) &&
               fx_file(r, "/etc/services", "https 443/tcp\n", DATA) &&
               fx_file(r, "/etc/profile.d/locale.sh", "true\n", DATA) &&
               fx_file(r, "/etc/sudoers", "root ALL=(ALL) ALL\n", 0440) &&
               fx_file(r, "/etc/passwd", "root:x:0:0::/root:/bin/sh\nada:x:1000:1000::/home/ada:/bin/sh\n", DATA) &&
               fx_file(r, "/etc/shadow", "secret", 0600) &&
               /* the user's home */
               fx_file(r, "/home/ada/.ssh/id_rsa", "PRIVATE KEY", 0600) &&
               fx_file(r, "/home/ada/project/src/main.c", "int main;", DATA) &&
               fx_file(r, "/home/ada/project/Makefile", "all:", DATA) &&
               fx_file(r, "/home/ada/direct-tool", "ELF", EXE) && fx_file(r, "/home/ada/bin/mytool", "ELF", EXE) &&
               fx_dir(r, "/home/ada/.cordon/workspace") &&
               fx_file(r, "/home/ada/.cordon/logs/cordon.log", "audit", DATA) &&
               fx_dir(r, "/home/ada/.cordon/logs/old") && fx_dir(r, "/home/bob") &&
               /* elsewhere on the host */
               fx_file(r, "/opt/tools/bin/gotool", "ELF", EXE) && fx_file(r, "/opt/data/file", "data", DATA) &&
               fx_dir(r, "/opt/data/sub") && fx_file(r, "/opt/py/bin/python3", "ELF", EXE) &&
               fx_file(r, "/srv/scripts/run.py", "#!/opt/py/bin/python3 -u\nprint(1)\n", EXE) &&
               fx_file(r, "/srv/scripts/env.sh", "#!/usr/bin/env sh\necho\n", EXE) &&
               fx_file(r, "/srv/data/notes.txt", "notes", DATA) && fx_file(r, "/srv/conf/app.toml", "x", DATA) &&
               fx_dir(r, "/srv/scratch") && fx_dir(r, "/srv/ws") && fx_file(r, "/srv/etc-ssl/ca.pem", "PEM", DATA) &&
               fx_dir(r, "/tmp/build") && fx_link(r, "/tmp/homelink", "/home/ada") &&
               fx_link(r, "/tmp/rootlink", "/") && fx_link(r, "/opt/homelink", "/home/ada") &&
               fx_link(r, "/users", "home") && fx_link(r, "/tmp/dangling", "/nonexistent/target") &&
               fx_file(r, "/proc/cpuinfo", "cpu", DATA) && fx_dir(r, "/var/lib");
}

static bool fx_merged(const char *r)
{
        return fx_common(r) && fx_link(r, "/bin", "usr/bin") && fx_link(r, "/sbin", "usr/sbin") &&
               fx_link(r, "/lib", "usr/lib") && fx_link(r, "/lib64", "usr/lib64");
}

static bool fx_split(const char *r)
{
        return fx_common(r) && fx_file(r, "/bin/sh", "ELF", EXE) && fx_file(r, "/bin/ls", "ELF", EXE) &&
               fx_dir(r, "/sbin") && fx_file(r, "/lib/x86_64-linux-gnu/libc.so.6", "ELF", DATA) &&
               fx_file(r, "/lib64/ld-linux-x86-64.so.2", "ELF", EXE);
}

static bool fixtures_build(void)
{
        char tmpl[] = "/tmp/cordon-test-plan.XXXXXX";
        if (!mkdtemp(tmpl))
                return false;
        fixture_base = strdup(tmpl);
        merged_root = xasprintf("%s/merged", tmpl);
        split_root = xasprintf("%s/split", tmpl);
        return fixture_base && merged_root && split_root && fx_merged(merged_root) && fx_split(split_root);
}

static void fixtures_remove(void)
{
        if (fixture_base) {
                _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", fixture_base);
                if (cmd && system(cmd) != 0)
                        printf("# cannot remove %s\n", fixture_base);
        }
        free(fixture_base);
        free(merged_root);
        free(split_root);
}

/* ---- building plans ------------------------------------------------------------------- */

static const char *const HOST_ENV[] = {
        "HOME=/home/ada", "PATH=/usr/local/bin:/usr/bin:/bin", "USER=ada",   "LOGNAME=ada", "SHELL=/bin/bash",
        "LANG=C.UTF-8",   "OPENAI_API_KEY=sk-secret",          "TERM=xterm", NULL,
};

typedef struct plan_case {
        const char *root;         /* merged_root or split_root */
        const char *json;         /* a config layer, or NULL */
        const char *expose[4][3]; /* source, target, "rw"/"ro": config rules in the fixture */
        const char *argv[10];     /* empty: an environment-only plan */
        const char *cwd;          /* default /home/ada/project */
        const char *home;         /* the user's home directory ($HOME), default /home/ada */
        const char *passwd_home;  /* the passwd entry's home directory, default /home/ada */
        const char *caller_cwd;   /* the caller's own (no cwd asked for), default /home/ada/project */
} plan_case;

/* Adds a rule directly: the public setters check the source on the real host,
 * not in the fixture. */
static void add_rule(cordon_config *c, const char *source, const char *target, bool writable)
{
        expose_rule *n = realloc(c->expose, (c->n_expose + 1) * sizeof(*n));
        if (!n)
                abort();
        c->expose = n;
        c->expose[c->n_expose++] =
                (expose_rule){strdup(source), strdup(target ? target : source), writable, false, NULL};
}

static int build(const plan_case *t, cordon_plan **ret, cordon_error **err)
{
        cordon_config *c = cordon_config_new();
        if (t->json && cordon_config_load_string(c, t->json, "t.json", err) < 0) {
                cordon_config_free(c);
                return -EINVAL;
        }
        for (size_t i = 0; i < ARRAY_SIZE(t->expose) && t->expose[i][0]; i++)
                add_rule(c, t->expose[i][0], t->expose[i][1], streq(t->expose[i][2], "rw"));
        cordon_command *cmd = t->argv[0] ? cordon_command_new(t->argv) : NULL;
        if (cmd && t->cwd)
                cordon_command_set_cwd(cmd, t->cwd);
        host_info h = {
                .root = t->root,
                .uid = 1000,
                .gid = 1000,
                .user = "ada",
                .group = "ada",
                .home = t->home ? t->home : "/home/ada",
                .passwd_home = t->passwd_home ? t->passwd_home : "/home/ada",
                .cwd = t->caller_cwd ? t->caller_cwd : "/home/ada/project",
                .environ = (char *const *)HOST_ENV,
        };
        int r = plan_build(c, cmd, &h, ret, err);
        cordon_command_free(cmd);
        cordon_config_free(c);
        return r;
}


static bool write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        if (!f)
                return false;
        bool ok = fputs(text, f) >= 0;
        return fclose(f) == 0 && ok;
}

/* Compares |got| with the golden file |name|, or rewrites it under
 * UPDATE_GOLDEN=1. Shows a diff on mismatch. */
static void check_golden(const char *name, const char *got)
{
        _cleanup_free_ char *path = xasprintf("%s/%s", GOLDEN_DIR, name);
        CHECK(got != NULL);
        if (!path || !got)
                return;
        const char *update = getenv("UPDATE_GOLDEN");
        if (update && streq(update, "1")) {
                CHECK(mkdir_p(GOLDEN_DIR) == 0 && write_file(path, got));
                printf("# updated %s\n", path);
                return;
        }
        _cleanup_free_ char *want = tap_read_file(path);
        if (!want) {
                printf("# %s is missing (UPDATE_GOLDEN=1 writes it)\n", path);
                CHECK(!"the golden file exists");
                return;
        }
        if (streq(want, got))
                return;
        printf("# %s differs from the plan (UPDATE_GOLDEN=1 rewrites it):\n", name);
        fflush(stdout);
        _cleanup_free_ char *tmp = xasprintf("%s/got", fixture_base);
        if (tmp && write_file(tmp, got)) {
                _cleanup_free_ char *cmd = xasprintf("diff -u '%s' '%s' | head -60 | sed 's/^/#   /'", path, tmp);
                if (cmd)
                        (void)!system(cmd);
        }
        CHECK(!"the plan matches its golden file");
}

/* Builds the plan of |t| and compares its text (and, with |json|, its JSON)
 * with NAME.golden / NAME.json.golden. */
static void golden(const char *name, const plan_case *t, bool json)
{
        cordon_plan *p = NULL;
        cordon_error *e = NULL;
        int r = build(t, &p, &e);
        if (r < 0)
                printf("# %s: %s\n", name, cordon_error_message(e));
        CHECK_INTEQ(r, 0);
        cordon_error_free(e);
        if (!p)
                return;
        _cleanup_free_ char *text = cordon_plan_to_text(p), *tname = xasprintf("%s.golden", name);
        check_golden(tname, text);
        if (json) {
                _cleanup_free_ char *js = cordon_plan_to_json(p), *jname = xasprintf("%s.json.golden", name);
                _cleanup_free_ char *jsn = js ? xasprintf("%s\n", js) : NULL;
                check_golden(jname, jsn);
        }
        cordon_plan_free(p);
}

/* The plan of |t| must fail with |err|, exit status |status| and |message|. */
static void fails(const plan_case *t, int err, int status, const char *message)
{
        cordon_plan *p = NULL;
        cordon_error *e = NULL;
        int r = build(t, &p, &e);
        CHECK_INTEQ(r, -err);
        CHECK(p == NULL);
        CHECK_STREQ(cordon_error_message(e), message);
        CHECK_INTEQ(cordon_error_errno(e), err);
        CHECK_INTEQ(cordon_error_exit_status(e), status);
        cordon_plan_free(p);
        cordon_error_free(e);
}

/* The mount of |p| at |target|, or NULL. */
static const plan_mount *mount_at(const cordon_plan *p, const char *target)
{
        for (size_t i = 0; p && i < p->n_mounts; i++)
                if (streq(p->mounts[i].target, target))
                        return &p->mounts[i];
        return NULL;
}

static size_t count_origin(const cordon_plan *p, mount_origin o)
{
        size_t n = 0;
        for (size_t i = 0; p && i < p->n_mounts; i++)
                n += p->mounts[i].origin == o;
        return n;
}

static cordon_plan *plan_ok(const plan_case *t)
{
        cordon_plan *p = NULL;
        cordon_error *e = NULL;
        if (build(t, &p, &e) < 0)
                printf("# %s\n", cordon_error_message(e));
        cordon_error_free(e);
        CHECK(p != NULL);
        return p;
}

#define M (merged_root)
#define S (split_root)

/* ---- the default view ------------------------------------------------------------------ */

static void test_default_merged(void)
{
        golden("merged-default", &(plan_case){.root = M, .argv = {"ls", "-l"}}, true);
}

static void test_default_split(void)
{
        golden("split-default", &(plan_case){.root = S, .argv = {"ls", "-l"}}, true);
}

static void test_env_only(void)
{
        golden("merged-env-only", &(plan_case){.root = M}, true);
}

/* Plans do not depend on where the fixture lives: no host root in them. */
static void test_no_fixture_paths_in_plans(void)
{
        cordon_plan *p = plan_ok(&(plan_case){.root = M, .argv = {"node", "/opt/data/file"}});
        _cleanup_free_ char *text = p ? cordon_plan_to_text(p) : NULL, *json = p ? cordon_plan_to_json(p) : NULL;
        CHECK(text && !strstr(text, fixture_base));
        CHECK(json && !strstr(json, fixture_base));
        cordon_plan_free(p);
}

/* What the default view must and must not hold, independently of the
 * golden files. */
static void test_default_view_properties(void)
{
        for (int layout = 0; layout < 2; layout++) {
                cordon_plan *p = plan_ok(&(plan_case){.root = layout ? S : M, .argv = {"ls"}});
                if (!p)
                        continue;
                const plan_mount *m = mount_at(p, "/bin");
                CHECK(m && m->type == (layout ? MOUNT_BIND : MOUNT_SYMLINK));
                CHECK(layout || (m && streq(m->source, "usr/bin")));
                CHECK(!mount_at(p, "/lib32")); /* absent on this host */
                m = mount_at(p, "/etc/resolv.conf");
                CHECK(m && m->type == MOUNT_BIND && streq(m->source, "/run/systemd/resolve/stub-resolv.conf"));
                m = mount_at(p, "/etc/localtime");
                CHECK(m && streq(m->source, "/usr/share/zoneinfo/Europe/Paris") && !m->writable);
                CHECK(!mount_at(p, "/etc/ca-certificates")); /* absent on this host */
                CHECK(!mount_at(p, "/etc/shadow"));
                CHECK(!mount_at(p, "/etc/sudoers"));
                /* the rest of /etc: the backend's prepared view of it, never bound as is */
                m = mount_at(p, "/etc");
                CHECK(m && m->etc_view && m->type == MOUNT_BIND && !m->writable && m->origin == ORIGIN_SYSTEM);
                m = mount_at(p, "/etc/mtab");
                CHECK(m && m->type == MOUNT_SYMLINK && streq(m->source, "/proc/self/mounts"));
                /* a link in /etc: its target, resolved on purpose, bound at its name */
                m = mount_at(p, "/etc/os-release");
                CHECK(m && m->type == MOUNT_BIND && streq(m->source, "/usr/lib/os-release") && !m->writable);
                m = mount_at(p, "/etc/services");
                CHECK(m && m->type == MOUNT_BIND && !m->is_dir && !m->writable && m->origin == ORIGIN_SYSTEM);
                m = mount_at(p, "/etc/profile.d");
                CHECK(m && m->type == MOUNT_BIND && m->is_dir && !m->writable);
                CHECK(!mount_at(p, "/etc/lsb-release")); /* absent on this host */
                m = mount_at(p, "/etc/passwd");
                CHECK(m && m->type == MOUNT_FILE && m->origin == ORIGIN_GENERATED);
                CHECK(m && streq(m->content, "ada:x:1000:1000:ada:/home/ada/.cordon/runtime-user-env/home:/bin/sh\n"));
                m = mount_at(p, "/etc/group");
                CHECK(m && streq(m->content, "ada:x:1000:\n"));
                m = mount_at(p, "/home/ada/.cordon");
                CHECK(m && m->type == MOUNT_BIND && m->writable && m->origin == ORIGIN_INSTANCE);
                m = mount_at(p, "/home/ada/.cordon/logs");
                CHECK(m && m->type == MOUNT_TMPFS && !m->writable);
                CHECK(!mount_at(p, "/home/ada/.cordon/workspace")); /* inside the root */
                CHECK(!mount_at(p, "/home/ada"));
                CHECK(!mount_at(p, "/home"));
                m = mount_at(p, "/home/ada/project");
                CHECK(m && m->origin == ORIGIN_CWD && !m->writable);
                CHECK_STREQ(p->cwd, "/home/ada/project");
                CHECK_STREQ(p->exe, "/usr/bin/ls");
                CHECK_INTEQ(count_origin(p, ORIGIN_EXE), 0); /* /usr/bin is visible already */
                /* parents before children */
                for (size_t i = 1; i < p->n_mounts; i++)
                        CHECK(path_compare(p->mounts[i - 1].target, p->mounts[i].target) < 0);
                CHECK_STREQ(cordon_plan_backend(p), "linux");
                CHECK(env_get(p->env, "OPENAI_API_KEY") == NULL);
                cordon_plan_free(p);
        }
}

/* ---- explicit exposure ------------------------------------------------------------------ */

static void test_expose(void)
{
        golden("merged-expose",
               &(plan_case){.root = M,
                            .expose = {{"/opt/data", NULL, "ro"},
                                       {"/srv/scratch", NULL, "rw"},
                                       {"/opt/tools/bin", "/tools", "ro"}},
                            .argv = {"/tools/gotool", "--in", "/opt/data/file"}},
               true);
}

/* A rule for a system target replaces it; system rules inside an explicit
 * exposure are dropped; explicit rules beat automatic ones. */
static void test_precedence(void)
{
        golden("merged-precedence",
               &(plan_case){.root = M,
                            .expose = {{"/srv/etc-ssl", "/etc/ssl", "ro"},
                                       {"/opt/node", NULL, "rw"},
                                       {"/home/ada/project", NULL, "rw"}},
                            .argv = {"node", "main.js"}},
               false);
        golden("merged-expose-etc", &(plan_case){.root = M, .expose = {{"/etc", NULL, "ro"}}, .argv = {"ls"}}, false);

        cordon_plan *p = plan_ok(&(plan_case){.root = M, .expose = {{"/etc", NULL, "ro"}}, .argv = {"ls"}});
        const plan_mount *m = mount_at(p, "/etc");
        CHECK(m && m->origin == ORIGIN_EXPOSE);
        CHECK(!mount_at(p, "/etc/hosts"));
        CHECK(!mount_at(p, "/etc/resolv.conf"));
        cordon_plan_free(p);

        p = plan_ok(&(plan_case){
                .root = M, .expose = {{"/opt/node", NULL, "rw"}, {"/home/ada/project", NULL, "rw"}}, .argv = {"node"}});
        CHECK_INTEQ(count_origin(p, ORIGIN_EXE), 0);
        CHECK_INTEQ(count_origin(p, ORIGIN_CWD), 0);
        m = mount_at(p, "/opt/node");
        CHECK(m && m->writable && m->origin == ORIGIN_EXPOSE);
        m = mount_at(p, "/home/ada/project");
        CHECK(m && m->writable && m->origin == ORIGIN_EXPOSE);
        cordon_plan_free(p);
}

/* ---- automatic exposure of what the command needs ------------------------------------------ */

static void test_auto_expose_exe(void)
{
        /* an executable found in PATH: its directory */
        golden("merged-exe-dir",
               &(plan_case){
                       .root = M,
                       .json = "{\"shell_environment_policy\": {\"set\": {\"PATH\": \"/opt/tools/bin:/usr/bin\"}}}",
                       .argv = {"gotool", "version"}},
               false);
        /* a symlink: the link's directory is visible (/usr), its target's is exposed */
        golden("merged-exe-symlink", &(plan_case){.root = M, .argv = {"node", "-e", "1"}}, false);
        golden("split-exe-symlink", &(plan_case){.root = S, .argv = {"node", "-e", "1"}}, false);
        /* a #! script: its directory and its interpreter's */
        golden("merged-exe-shebang", &(plan_case){.root = M, .argv = {"/srv/scripts/run.py"}}, false);
        /* an executable right in the home directory: only the file */
        golden("merged-exe-in-home", &(plan_case){.root = M, .argv = {"/home/ada/direct-tool"}}, false);

        cordon_plan *p = plan_ok(&(plan_case){.root = M, .argv = {"/home/ada/direct-tool"}});
        const plan_mount *m = mount_at(p, "/home/ada/direct-tool");
        CHECK(m && m->origin == ORIGIN_EXE && !m->is_dir && !m->writable);
        CHECK(!mount_at(p, "/home/ada"));
        cordon_plan_free(p);

        /* "#!/usr/bin/env sh": env is visible already, nothing more */
        p = plan_ok(&(plan_case){.root = M, .argv = {"/srv/scripts/env.sh"}});
        CHECK_INTEQ(count_origin(p, ORIGIN_EXE), 1);
        CHECK(mount_at(p, "/srv/scripts") != NULL);
        cordon_plan_free(p);

        /* auto_expose.exe rw */
        p = plan_ok(&(plan_case){.root = M,
                                 .json = "{\"isolation\": {\"auto_expose\": {\"exe\": \"rw\"}}}",
                                 .argv = {"/srv/scripts/run.py"}});
        m = mount_at(p, "/opt/py/bin");
        CHECK(m && m->writable && m->origin == ORIGIN_EXE);
        cordon_plan_free(p);

        /* a relative path runs from the cwd */
        p = plan_ok(&(plan_case){.root = M, .argv = {"../bin/mytool"}, .cwd = "/home/ada/project"});
        CHECK_STREQ(p ? p->exe : NULL, "/home/ada/bin/mytool");
        cordon_plan_free(p);
}

static void test_auto_expose_exe_errors(void)
{
        fails(&(plan_case){.root = M, .argv = {"no-such-command"}}, ENOENT, 127,
              "no-such-command: command not found in the sandbox's PATH");
        fails(&(plan_case){.root = M, .argv = {""}}, ENOENT, 127, "the command name is empty");
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"enabled\": false}}", .argv = {""}}, ENOENT, 127,
              "the command name is empty");
        fails(&(plan_case){.root = M, .argv = {"/opt/none/x"}}, ENOENT, 127,
              "/opt/none/x: command not found in the sandbox's PATH");
        fails(&(plan_case){.root = M, .argv = {"noexec"}}, EACCES, 126,
              "noexec: permission denied (not an executable file)");
        fails(&(plan_case){.root = M, .argv = {"/srv/data/notes.txt"}}, EACCES, 126,
              "/srv/data/notes.txt: permission denied (not an executable file)");
        fails(&(plan_case){.root = M, .argv = {"/srv/data"}}, EACCES, 126,
              "/srv/data: permission denied (not an executable file)");
        fails(&(plan_case){.root = M,
                           .json = "{\"isolation\": {\"auto_expose\": {\"exe\": \"off\"}}}",
                           .argv = {"/opt/tools/bin/gotool"}},
              EACCES, 125,
              "/opt/tools/bin/gotool is not visible in the sandbox (auto_expose.exe is \"off\" or it lies in your "
              "home directory): expose it with --expose");
}

/* ---- the working directory -------------------------------------------------------------------- */

#define CWD_HINT                                                                                                       \
        "run from the workspace, set the working directory to a path inside it, or expose a directory "                \
        "that holds it (--expose DIR or isolation.expose_paths)"

/* What cordon_prepare refuses of the paths the user chose, named where they
 * were set: the caller's home or above it, the instance root or above it
 * (by name or through a link), and an allowlist with a network that is not
 * "proxy". */
static void test_writable_choices(void)
{
        static const char HOME_WHY[] =
                "is your home directory or above it (the host runs its dotfiles; choose a directory inside it)";
        _cleanup_free_ char *ws_home = xasprintf("t.json:1:29: isolation.workspace: /home/ada %s", HOME_WHY);
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"workspace\": \"/home/ada\"}}", .argv = {"ls"}},
              EINVAL, 125, ws_home);
        _cleanup_free_ char *ws_above = xasprintf("t.json:1:29: isolation.workspace: /home %s", HOME_WHY);
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"workspace\": \"/home\"}}", .argv = {"ls"}}, EINVAL,
              125, ws_above);
        fails(&(plan_case){.root = M,
                           .json = "{\"isolation\": {\"workspace\": \"/home/ada/.cordon\"}}",
                           .argv = {"ls"}},
              EINVAL, 125,
              "t.json:1:29: isolation.workspace: /home/ada/.cordon is the instance root or above it (cordon's own "
              "logs/ and skills/ would be writable)");
        /* the instance root is mounted read-write: the same for it */
        _cleanup_free_ char *root_home = xasprintf("t.json:1:24: isolation.home: the instance root /home %s", HOME_WHY);
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"home\": \"/home\"}}", .argv = {"ls"}}, EINVAL, 125,
              root_home);
        _cleanup_free_ char *rw_home = xasprintf("a read-write exposure: /home %s", HOME_WHY);
        fails(&(plan_case){.root = M, .expose = {{"/home", "/h", "rw"}}, .argv = {"ls"}}, EINVAL, 125, rw_home);
        /* control: a project inside the home may be the workspace, and read-only the home may be shown */
        cordon_plan *p = plan_ok(&(plan_case){.root = M,
                                              .json = "{\"isolation\": {\"workspace\": \"/home/ada/project\"}}",
                                              .expose = {{"/home", "/h", "ro"}},
                                              .argv = {"ls"}});
        CHECK_STREQ(p ? p->workspace : NULL, "/home/ada/project");
        cordon_plan_free(p);

        fails(&(plan_case){.root = M,
                           .json = "{\"isolation\": {\"network\": \"loopback\", \"network_allow\": [\"example.org\"]}}",
                           .argv = {"ls"}},
              EINVAL, 125,
              "t.json:1:57: isolation.network_allow[0]: conflicts with t.json:1:27: isolation.network: an allowlist "
              "means network \"proxy\" (its hosts only, through cordon's proxy), \"loopback\" allows only the "
              "sandbox's own loopback; drop one of them");
        p = plan_ok(&(plan_case){.root = M, .json = "{\"isolation\": {\"network_allow\": [\"example.org\"]}}"});
        CHECK(p && p->network == CORDON_NETWORK_PROXY);
        cordon_plan_free(p);
}

static void test_cwd(void)
{
        /* inside an exposure: translated, no mount of its own */
        golden("merged-cwd-in-expose",
               &(plan_case){.root = M,
                            .expose = {{"/home/ada/project", "/work", "rw"}},
                            .argv = {"ls"},
                            .cwd = "/home/ada/project/src"},
               false);
        cordon_plan *p = plan_ok(&(plan_case){.root = M,
                                              .expose = {{"/home/ada/project", "/work", "rw"}},
                                              .argv = {"ls"},
                                              .cwd = "/home/ada/project/src"});
        CHECK_STREQ(p ? p->cwd : NULL, "/work/src");
        CHECK_STREQ(p ? p->host_cwd : NULL, "/home/ada/project/src");
        CHECK_INTEQ(count_origin(p, ORIGIN_CWD), 0);
        cordon_plan_free(p);

        /* relative: to the caller's cwd (/home/ada/project), as every tool */
        p = plan_ok(&(plan_case){
                .root = M, .expose = {{"/home/ada/project", "/work", "rw"}}, .argv = {"ls"}, .cwd = "src"});
        CHECK_STREQ(p ? p->cwd : NULL, "/work/src");
        CHECK_STREQ(p ? p->host_cwd : NULL, "/home/ada/project/src");
        cordon_plan_free(p);
        p = plan_ok(
                &(plan_case){.root = M, .expose = {{"/home/ada/project", "/work", "rw"}}, .argv = {"ls"}, .cwd = "."});
        CHECK_STREQ(p ? p->cwd : NULL, "/work");
        cordon_plan_free(p);

        /* inside the workspace */
        p = plan_ok(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/ada/.cordon/workspace"});
        CHECK_STREQ(p ? p->cwd : NULL, "/home/ada/.cordon/workspace");
        CHECK_INTEQ(count_origin(p, ORIGIN_CWD), 0);
        cordon_plan_free(p);

        /* a symlinked cwd is resolved first */
        p = plan_ok(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/usr/local/../share"});
        CHECK_STREQ(p ? p->cwd : NULL, "/usr/share");
        CHECK_INTEQ(count_origin(p, ORIGIN_CWD), 0);
        cordon_plan_free(p);

        /* auto_expose.cwd rw */
        p = plan_ok(&(plan_case){.root = M,
                                 .json = "{\"isolation\": {\"auto_expose\": {\"cwd\": \"rw\"}}}",
                                 .argv = {"ls"},
                                 .cwd = "/srv/scratch"});
        const plan_mount *m = mount_at(p, "/srv/scratch");
        CHECK(m && m->writable && m->origin == ORIGIN_CWD);
        cordon_plan_free(p);

        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/ada"}, EACCES, 125,
              "the working directory /home/ada is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home"}, EACCES, 125,
              "the working directory /home is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/tmp/homelink"}, EACCES, 125,
              "the working directory /home/ada is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        /* started from / (as MCP clients start servers): the sandbox's own
         * /, nothing exposed for it, whatever auto_expose.cwd says */
        static const char *const ROOT_CWD_JSON[] = {
                NULL, "{\"isolation\": {\"auto_expose\": {\"cwd\": \"off\"}}}",
                "{\"isolation\": {\"auto_expose\": {\"cwd\": \"rw\"}}}", "{\"isolation\": {\"backend\": \"landlock\"}}"};
        for (size_t i = 0; i < ARRAY_SIZE(ROOT_CWD_JSON); i++) {
                p = plan_ok(&(plan_case){.root = M, .json = ROOT_CWD_JSON[i], .argv = {"ls"}, .cwd = "/"});
                CHECK_STREQ(p ? p->cwd : NULL, "/");
                CHECK_STREQ(p ? p->host_cwd : NULL, "/");
                bool exposed = false;
                for (size_t k = 0; p && k < p->n_mounts; k++)
                        exposed |= p->mounts[k].origin == ORIGIN_CWD || streq(p->mounts[k].target, "/");
                CHECK(p && !exposed);
                cordon_plan_free(p);
        }
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/proc"}, EACCES, 125,
              "the working directory /proc is a kernel interface (the sandbox has its own /proc, /sys and /dev), "
              "which cordon never exposes automatically: " CWD_HINT);
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/ada/.cordon/logs/old"}, EACCES, 125,
              "the working directory /home/ada/.cordon/logs/old is inside cordon's logs/ (its audit trail stays "
              "hidden), which cordon never exposes automatically: " CWD_HINT);
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/ada/.cordon/logs"}, EACCES, 125,
              "the working directory /home/ada/.cordon/logs is inside cordon's logs/ (its audit trail stays "
              "hidden), which cordon never exposes automatically: " CWD_HINT);
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"auto_expose\": {\"cwd\": \"off\"}}}", .argv = {"ls"},
                           .cwd = "/home/ada/project"},
              EACCES, 125,
              "the working directory /home/ada/project is not visible in the sandbox and auto_expose.cwd is "
              "\"off\": " CWD_HINT);
        /* the caller's own working directory (none asked for: an MCP
         * client's $HOME) that the sandbox cannot show: the workspace
         * instead, with a note for any failure; one asked for stays an
         * error (above), and so does the sandbox's own /tmp, asked for or
         * not (a binding's cwd) */
        static const struct {
                const char *json, *cwd, *why;
        } FALLBACK[] = {
                {"{\"isolation\": {\"auto_expose\": {\"cwd\": \"off\"}}}", "/home/ada/project",
                 "not visible in the sandbox (auto_expose.cwd is \"off\")"},
                {NULL, "/home/ada", "your home directory or above it"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(FALLBACK); i++) {
                p = plan_ok(&(plan_case){.root = M, .json = FALLBACK[i].json, .argv = {"ls"},
                                         .caller_cwd = FALLBACK[i].cwd});
                CHECK_STREQ(p ? p->cwd : NULL, "/home/ada/.cordon/workspace");
                CHECK_STREQ(p ? p->host_cwd : NULL, "/home/ada/.cordon/workspace");
                const char *const *h = p ? cordon_plan_hints(p) : NULL;
                _cleanup_free_ char *want = xasprintf("the working directory %s is %s: the command started in the "
                                                      "workspace /home/ada/.cordon/workspace instead (-C DIR, or "
                                                      "--expose a directory that holds it)",
                                                      FALLBACK[i].cwd, FALLBACK[i].why);
                CHECK_STREQ(h ? h[0] : NULL, want);
                CHECK(p && cordon_plan_hint_explains(p, 0, 1) && !cordon_plan_hint_explains(p, 0, 0));
                bool exposed = false;
                for (size_t k = 0; p && k < p->n_mounts; k++)
                        exposed |= p->mounts[k].origin == ORIGIN_CWD;
                CHECK(p && !exposed);
                cordon_plan_free(p);
        }
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/nonexistent"}, ENOENT, 125,
              "the working directory /nonexistent does not exist");
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/tmp"}, EACCES, 125,
              "the working directory /tmp is the sandbox's own tmpfs, not the host's: " CWD_HINT);
        /* the home directory is recognised through symlinks ($HOME=/users/ada, /users -> home) */
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/ada", .home = "/users/ada"}, EACCES, 125,
              "the working directory /home/ada is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/users/ada", .home = "/users/ada"}, EACCES, 125,
              "the working directory /home/ada is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        /* a cwd elsewhere under the home directory is fine */
        p = plan_ok(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/bob"});
        CHECK(mount_at(p, "/home/bob") != NULL);
        cordon_plan_free(p);
}

/* $HOME comes from the caller's environment: pointing it elsewhere does not
 * make the passwd entry's home directory exposable. */
static void test_home_from_passwd(void)
{
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/bob", .home = "/home/ada",
                           .passwd_home = "/home/bob"},
              EACCES, 125,
              "the working directory /home/bob is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        /* ... through symlinks too (passwd home /users/bob, /users -> home) */
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/bob", .home = "/home/ada",
                           .passwd_home = "/users/bob"},
              EACCES, 125,
              "the working directory /home/bob is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        /* ... and its ancestors */
        fails(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/srv", .home = "/home/ada",
                           .passwd_home = "/srv/ws"},
              EACCES, 125,
              "the working directory /srv is your home directory or above it, which cordon never exposes "
              "automatically: " CWD_HINT);
        /* an argument naming it is not exposed either */
        cordon_plan *p = plan_ok(&(plan_case){.root = M,
                                              .json = "{\"isolation\": {\"auto_expose\": {\"args\": \"ro\"}}}",
                                              .argv = {"ls", "/home/bob", "/srv/data"},
                                              .home = "/home/ada",
                                              .passwd_home = "/home/bob"});
        CHECK(mount_at(p, "/home/bob") == NULL);
        CHECK(mount_at(p, "/srv/data") != NULL);
        cordon_plan_free(p);
        /* control: with the passwd home elsewhere, the same cwd and argument are exposed */
        p = plan_ok(&(plan_case){.root = M, .argv = {"ls"}, .cwd = "/home/bob", .home = "/home/ada",
                                 .passwd_home = "/home/ada"});
        CHECK(mount_at(p, "/home/bob") != NULL);
        cordon_plan_free(p);
        p = plan_ok(&(plan_case){.root = M,
                                 .json = "{\"isolation\": {\"auto_expose\": {\"args\": \"ro\"}}}",
                                 .argv = {"ls", "/home/bob"},
                                 .home = "/home/ada",
                                 .passwd_home = "/home/ada"});
        CHECK(mount_at(p, "/home/bob") != NULL);
        cordon_plan_free(p);
}

/* ---- arguments ------------------------------------------------------------------------------------ */

static void test_args(void)
{
        /* off by default: the command line never widens access by itself */
        golden("merged-args-off", &(plan_case){.root = M, .argv = {"cat", "/home/ada/.ssh/id_rsa"}}, false);
        cordon_plan *p = plan_ok(&(plan_case){.root = M, .argv = {"cat", "/home/ada/.ssh/id_rsa", "/opt/data/file"}});
        CHECK_INTEQ(count_origin(p, ORIGIN_ARG), 0);
        CHECK(!mount_at(p, "/home/ada/.ssh/id_rsa") && !mount_at(p, "/home/ada/.ssh"));
        cordon_plan_free(p);

        /* on: existing absolute paths, --opt=/abs/path too; missing paths
         * never, nor their parents; never the home directory, "/" or /proc */
        static const char *const ON = "{\"isolation\": {\"auto_expose\": {\"args\": \"ro\"}}}";
        golden("merged-args-on",
               &(plan_case){.root = M,
                            .json = ON,
                            .argv = {"cat", "/opt/data/file", "--config=/srv/conf/app.toml", "/srv/missing/file",
                                     "--out=/srv/ws/missing", "/home/ada", "/", "relative/path", "/proc/cpuinfo"}},
               false);
        p = plan_ok(&(plan_case){.root = M,
                                 .json = ON,
                                 .argv = {"cat", "/srv/missing/file", "--out=/srv/ws/missing", "/home/ada", "/",
                                          "/home", "/proc/cpuinfo", "-x/opt/data", "/opt/data/../data/file"}});
        CHECK_INTEQ(count_origin(p, ORIGIN_ARG), 0);
        cordon_plan_free(p);

        /* cordon's logs stay hidden, whatever the command line names */
        p = plan_ok(&(plan_case){.root = M,
                                 .json = ON,
                                 .argv = {"cat", "/home/ada/.cordon/logs/cordon.log", "--f=/home/ada/.cordon/logs"}});
        CHECK_INTEQ(count_origin(p, ORIGIN_ARG), 0);
        CHECK(!mount_at(p, "/home/ada/.cordon/logs/cordon.log"));
        cordon_plan_free(p);

        /* what is visible already gets no rule of its own */
        p = plan_ok(&(plan_case){.root = M, .json = ON, .argv = {"cat", "/usr/share/zoneinfo/Europe/Paris", "/tmp"}});
        CHECK_INTEQ(count_origin(p, ORIGIN_ARG), 0);
        cordon_plan_free(p);

        /* rw */
        p = plan_ok(&(plan_case){.root = M,
                                 .json = "{\"isolation\": {\"auto_expose\": {\"args\": \"rw\"}}}",
                                 .argv = {"cat", "/srv/conf/app.toml"}});
        const plan_mount *m = mount_at(p, "/srv/conf/app.toml");
        CHECK(m && m->writable && m->origin == ORIGIN_ARG && !m->is_dir);
        cordon_plan_free(p);
}

/* A symlink among the arguments is judged by what it points to: a link to
 * the home directory or to "/" exposes nothing, a dangling one is missing. */
static void test_args_symlinks(void)
{
        static const char *const ON = "{\"isolation\": {\"auto_expose\": {\"args\": \"ro\"}}}";
        cordon_plan *p = plan_ok(
                &(plan_case){.root = M, .json = ON, .argv = {"ls", "/tmp/homelink", "/tmp/rootlink", "/tmp/dangling"}});
        for (size_t i = 0; p && i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (m->origin == ORIGIN_ARG)
                        printf("# unexpected: %s -> %s\n", m->source, m->target);
        }
        CHECK_INTEQ(count_origin(p, ORIGIN_ARG), 0);
        cordon_plan_free(p);

        /* an executable reached through a link to the home directory: the
         * file alone, not the directory the link points to */
        p = plan_ok(&(plan_case){.root = M, .argv = {"/opt/homelink/direct-tool"}});
        const plan_mount *m = mount_at(p, "/opt/homelink/direct-tool");
        CHECK(m && m->origin == ORIGIN_EXE && streq(m->source, "/home/ada/direct-tool") && !m->is_dir);
        CHECK(!mount_at(p, "/opt/homelink"));
        CHECK(!mount_at(p, "/home/ada"));
        cordon_plan_free(p);

        /* a link to something exposable exposes its target at the link */
        p = plan_ok(&(plan_case){.root = M, .json = ON, .argv = {"ls", "/etc/alternatives/python"}});
        CHECK_INTEQ(count_origin(p, ORIGIN_ARG), 0); /* /usr/bin/python3 is visible already */
        cordon_plan_free(p);
}

/* ---- mount points, isolation off, instance root, workspace --------------------------------------- */

static void test_mountpoint_missing_in_ro_bind(void)
{
        fails(&(plan_case){.root = M,
                           .expose = {{"/opt/data", "/data", "ro"}, {"/srv/scratch", "/data/new/dir", "rw"}},
                           .argv = {"ls"}},
              ENOENT, 125,
              "cannot mount /data/new/dir: it lies inside /data (from /opt/data), where /opt/data/new/dir does not "
              "exist, and cordon does not create mount points on the host; choose another target");
        /* an existing directory is fine */
        cordon_plan *p =
                plan_ok(&(plan_case){.root = M,
                                     .expose = {{"/opt/data", "/data", "ro"}, {"/srv/scratch", "/data/sub", "rw"}},
                                     .argv = {"ls"}});
        const plan_mount *m = mount_at(p, "/data/sub");
        CHECK(m && m->writable);
        cordon_plan_free(p);
        /* a file over a directory is not */
        fails(&(plan_case){.root = M,
                           .expose = {{"/opt/data", "/data", "ro"}, {"/srv/conf/app.toml", "/data/sub", "ro"}},
                           .argv = {"ls"}},
              EINVAL, 125, "cannot mount /data/sub: /opt/data/sub is a directory, the source is not");
        /* inside the instance root, mount points may be created */
        p = plan_ok(
                &(plan_case){.root = M, .expose = {{"/srv/scratch", "/home/ada/.cordon/new", "rw"}}, .argv = {"ls"}});
        CHECK(mount_at(p, "/home/ada/.cordon/new") != NULL);
        cordon_plan_free(p);
        /* the instance root inside an exposure need not
         * exist yet (cordon_start creates them there) ... */
        p = plan_ok(
                &(plan_case){.root = M, .expose = {{"/home/bob", NULL, "ro"}}, .argv = {"ls"}, .home = "/home/bob"});
        m = mount_at(p, "/home/bob/.cordon");
        CHECK(m && m->origin == ORIGIN_INSTANCE && m->writable);
        cordon_plan_free(p);
        /* ... an explicit workspace must exist (a typo is no new tree) */
        fails(&(plan_case){.root = M,
                           .json = "{\"isolation\": {\"workspace\": \"/home/bob/ws\"}}",
                           .expose = {{"/home/bob", NULL, "ro"}},
                           .argv = {"ls"},
                           .home = "/home/bob"},
              ENOENT, 125,
              "t.json:1:29: isolation.workspace: /home/bob/ws does not exist: create it first (cordon creates only "
              "the default <home>/workspace)");
        /* ... but not when the exposure shows another host directory there */
        fails(&(plan_case){.root = M,
                           .expose = {{"/srv/scratch", "/home/bob", "rw"}},
                           .argv = {"ls"},
                           .home = "/home/bob"},
              ENOENT, 125,
              "cannot mount /home/bob/.cordon: it lies inside /home/bob (from /srv/scratch), where "
              "/srv/scratch/.cordon does not exist, and cordon does not create mount points on the host; choose "
              "another target");
        /* nothing is mounted through a symlink of the view */
        fails(&(plan_case){.root = M, .expose = {{"/srv/scratch", "/bin/x", "rw"}}, .argv = {"ls"}}, EINVAL, 125,
              "cannot mount /bin/x: /bin is a symlink in the sandbox");
}

static void test_disabled(void)
{
        golden("merged-disabled",
               &(plan_case){.root = M,
                            .json = "{\"isolation\": {\"enabled\": false}}",
                            .expose = {{"/opt/data", NULL, "ro"}},
                            .argv = {"cat", "/home/ada/.ssh/id_rsa"}},
               true);
        cordon_plan *p = plan_ok(&(plan_case){
                .root = M, .json = "{\"isolation\": {\"enabled\": false}}", .argv = {"ls"}, .cwd = "/home/ada"});
        CHECK_STREQ(p ? cordon_plan_backend(p) : NULL, "none");
        CHECK_INTEQ(p ? p->n_mounts : 99, 0);
        CHECK_INTEQ(p ? p->namespaces : 99, 0);
        CHECK_STREQ(p ? p->disabled_by : NULL, "t.json:1:27");
        CHECK_STREQ(p ? p->cwd : NULL, "/home/ada"); /* the home directory is fine: nothing is exposed */
        CHECK_STREQ(p ? p->exe : NULL, "/usr/bin/ls");
        CHECK(p && env_get(p->env, "CORDON_SANDBOX") == NULL);
        cordon_plan_free(p);
        /* the command must still exist */
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"enabled\": false}}", .argv = {"no-such"}}, ENOENT,
              127, "no-such: command not found in the sandbox's PATH");
}

static void test_workspace_outside_root(void)
{
        golden("merged-workspace",
               &(plan_case){.root = M,
                            .json = "{\"isolation\": {\"workspace\": \"/srv/ws\", \"home\": \"/srv/cordon\", "
                                    "\"network\": \"loopback\", \"limits\": {\"memory_bytes\": \"1G\", \"pids\": 64, "
                                    "\"wall_time_s\": 1.5}}}",
                            .argv = {"env", "-C", "/srv/ws", "ls"},
                            .cwd = "/srv/ws"},
               true);
}

static void test_instance_root(void)
{
        cordon_plan *p = plan_ok(&(plan_case){.root = M, .argv = {"ls"}});
        CHECK_STREQ(p ? p->instance_root : NULL, "/home/ada/.cordon");
        CHECK_STREQ(p ? p->workspace : NULL, "/home/ada/.cordon/workspace");
        const plan_mount *logs = mount_at(p, "/home/ada/.cordon/logs");
        CHECK(logs && logs->type == MOUNT_TMPFS && !logs->writable && logs->origin == ORIGIN_INSTANCE);
        cordon_plan_free(p);
        /* a missing instance root is planned all the same (cordon_start creates it) */
        p = plan_ok(&(plan_case){.root = M, .json = "{\"isolation\": {\"home\": \"/srv/new-home\"}}", .argv = {"ls"}});
        const plan_mount *m = mount_at(p, "/srv/new-home");
        CHECK(m && m->is_dir && m->writable && streq(m->source, "/srv/new-home"));
        cordon_plan_free(p);
}

/* An instance root the command could write, or holding a writable path
 * outside its workspace/: refused with the paths and the keys, whatever
 * names them (a symlink on the way), on every backend. */
static void test_instance_layout(void)
{
        CHECK(fx_link(M, "/srv/wslink", "/srv/ws"));
        fails(&(plan_case){.root = M,
                           .json = "{\"isolation\": {\"workspace\": \"/srv/ws\", \"home\": \"/srv/ws/a/b\"}}",
                           .argv = {"ls"}},
              EINVAL, 125,
              /* the writable-path check of the keys comes first and names the key */
              "t.json:1:29: isolation.workspace: /srv/ws is the instance root or above it (cordon's own logs/ "
              "and skills/ would be writable)");
        fails(&(plan_case){.root = M,
                           .json = "{\"isolation\": {\"backend\": \"landlock\", \"workspace\": \"/srv/ws\", "
                                   "\"home\": \"/srv/wslink\"}}",
                           .argv = {"ls"}},
              EINVAL, 125,
              "the instance root /srv/wslink (that is, /srv/ws) (--home or isolation.home) is or lies inside the "
              "writable path /srv/ws (--workspace or isolation.workspace): the command could rewrite cordon's own "
              "logs/ and skills/ there; put the instance root outside every writable path");
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"workspace\": \"/home/ada/.cordon/logs\"}}",
                           .argv = {"ls"}},
              EINVAL, 125,
              "the instance root /home/ada/.cordon (the default, $HOME/.cordon; set --home or isolation.home) holds "
              "the writable path /home/ada/.cordon/logs (--workspace or isolation.workspace) outside its "
              "workspace/ directory: the command could rewrite cordon's own logs/ and skills/; use a path outside "
              "the instance root, or its workspace/");
        fails(&(plan_case){.root = M,
                           .expose = {{"/srv", NULL, "rw"}},
                           .json = "{\"isolation\": {\"home\": \"/srv/new\"}}",
                           .argv = {"ls"}},
              EINVAL, 125,
              "a read-write exposure: /srv is the instance root or above it (cordon's own logs/ and skills/ "
              "would be writable)");
        /* the default layout, and paths in its workspace/ */
        cordon_plan *p = plan_ok(&(plan_case){
                .root = M,
                .expose = {{"/home/ada/.cordon/workspace", NULL, "rw"}},
                .json = "{\"isolation\": {\"workspace\": \"/home/ada/.cordon/workspace/x\"}}",
                .argv = {"ls"}});
        CHECK(p != NULL);
        cordon_plan_free(p);
}

static void test_network_and_namespaces(void)
{
        cordon_plan *p =
                plan_ok(&(plan_case){.root = M, .json = "{\"isolation\": {\"network\": \"full\"}}", .argv = {"ls"}});
        _cleanup_free_ char *text = p ? cordon_plan_to_text(p) : NULL;
        CHECK(text && strstr(text, "\nnamespaces: user mount pid ipc uts cgroup\nnetwork: full\n"));
        CHECK(p && env_get(p->env, "CORDON_SANDBOX_NETWORK_DISABLED") == NULL);
        cordon_plan_free(p);
}

/* ---- links and git inside writable mounts (the workspace is hostile) ------------------------- */

#define WS_JSON "{\"isolation\": {\"workspace\": \"/srv/ws\"}}"

static bool fx_hostile_workspace(const char *r)
{
        return fx_dir(r, "/srv/private") && fx_file(r, "/srv/private/secret", "s", 0644) &&
               fx_file(r, "/srv/private/tool", "ELF", 0755) && fx_dir(r, "/srv/ws/real") &&
               fx_link(r, "/srv/ws/sub", "/srv/private") && fx_link(r, "/srv/ws/conf.json", "/srv/private/secret") &&
               fx_link(r, "/srv/ws/tool", "/srv/private/tool") && fx_link(r, "/srv/ws/myls", "/usr/bin/ls") &&
               fx_dir(r, "/srv/ws/.git/hooks") && fx_file(r, "/srv/ws/.git/config", "", 0644) &&
               fx_file(r, "/srv/ws/.git/HEAD", "ref: refs/heads/main\n", 0644) &&
               fx_dir(r, "/srv/ws/.git/modules/m/hooks") && fx_file(r, "/srv/ws/.git/modules/m/HEAD", "x", 0644) &&
               fx_dir(r, "/srv/ws/real/nested/.git") && fx_dir(r, "/srv/ws2/.git") &&
               fx_link(r, "/srv/ws2/.git/config", "/srv/private/secret");
}

/* Does the plan have a mount of |type| origin at |target|, ro/rw? */
static bool has_mount(const cordon_plan *p, const char *target, mount_origin o, bool writable)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (streq(p->mounts[i].target, target) && p->mounts[i].origin == o &&
                    p->mounts[i].writable == writable)
                        return true;
        return false;
}

static bool mounts_source_under(const cordon_plan *p, const char *dir)
{
        for (size_t i = 0; i < p->n_mounts; i++)
                if (p->mounts[i].type == MOUNT_BIND && path_startswith(p->mounts[i].source, dir))
                        return true;
        return false;
}

static void test_links_in_writable_mounts(void)
{
        CHECK(fx_hostile_workspace(M));
        /* an explicit exposure through a planted link */
        fails(&(plan_case){.root = M, .json = WS_JSON, .expose = {{"/srv/ws/conf.json", NULL, "ro"}},
                           .argv = {"ls"}, .cwd = "/srv/ws"},
              ELOOP, 125,
              "cannot expose /srv/ws/conf.json: /srv/ws/conf.json is a symlink inside the writable mount /srv/ws, "
              "and cordon never follows links there (a command may have planted it); expose the link's target "
              "itself if you trust it");
        /* a writable root through a link inside another one */
        fails(&(plan_case){.root = M, .json = WS_JSON, .expose = {{"/srv/ws/sub", NULL, "rw"}}, .argv = {"ls"},
                           .cwd = "/srv/ws"},
              ELOOP, 125,
              "cannot use the writable path /srv/ws/sub: /srv/ws/sub is a symlink inside the writable mount "
              "/srv/ws, and cordon never follows links there (a command may have planted it); give the real path "
              "of the directory");
        /* the working directory */
        fails(&(plan_case){.root = M, .json = WS_JSON, .argv = {"ls"}, .cwd = "/srv/ws/sub"}, ELOOP, 125,
              "the working directory /srv/ws/sub: /srv/ws/sub is a symlink inside the writable mount /srv/ws, and "
              "cordon never follows links there (a command may have planted it); run from the real directory (the "
              "link's target must be exposed on purpose)");
        /* an executable pointing out of the view dangles; one pointing in works */
        fails(&(plan_case){.root = M, .json = WS_JSON, .argv = {"./tool"}, .cwd = "/srv/ws"}, ENOENT, 127,
              "./tool: command not found in the sandbox's PATH");
        cordon_plan *p = NULL;
        cordon_error *e = NULL;
        CHECK_INTEQ(build(&(plan_case){.root = M, .json = WS_JSON, .argv = {"./myls"}, .cwd = "/srv/ws"}, &p, &e), 0);
        CHECK(p && !mounts_source_under(p, "/srv/private"));
        CHECK(p && streq(p->exe, "/srv/ws/myls") && !p->exe_untrusted);
        /* git: the .git pinned, control files read-only, placeholders for the missing ones */
        CHECK(p && has_mount(p, "/srv/ws/.git", ORIGIN_PROTECT, true));
        CHECK(p && has_mount(p, "/srv/ws/.git/hooks", ORIGIN_PROTECT, false));
        CHECK(p && has_mount(p, "/srv/ws/.git/config", ORIGIN_PROTECT, false));
        CHECK(p && has_mount(p, "/srv/ws/.git/commondir", ORIGIN_PROTECT, false));
        CHECK(p && has_mount(p, "/srv/ws/.git/modules/m", ORIGIN_PROTECT, true));
        CHECK(p && has_mount(p, "/srv/ws/.git/modules/m/hooks", ORIGIN_PROTECT, false));
        CHECK(p && has_mount(p, "/srv/ws/real/nested/.git", ORIGIN_PROTECT, true));
        CHECK(p && has_mount(p, "/srv/ws/real/nested/.git/config", ORIGIN_PROTECT, false));
        const plan_mount *cd = NULL;
        for (size_t i = 0; p && i < p->n_mounts; i++)
                if (streq(p->mounts[i].target, "/srv/ws/.git/commondir"))
                        cd = &p->mounts[i];
        CHECK(cd && cd->missing && streq(cd->content, ".\n"));
        p = cordon_plan_free(p);
        cordon_error_free(e);
        /* a protected path that is a planted link */
        fails(&(plan_case){.root = M, .json = "{\"isolation\": {\"workspace\": \"/srv/ws2\"}}", .argv = {"ls"},
                           .cwd = "/srv/ws2"},
              ELOOP, 125,
              "cannot protect /srv/ws2/.git/config: /srv/ws2/.git/config is a symlink inside the writable mount "
              "/srv/ws2, and cordon never follows links there (a command may have planted it); cordon will not run "
              "with a link there: remove it, or put the real file in its place");
}

static void test_text_first_line(void)
{
        cordon_plan *p = plan_ok(&(plan_case){.root = S, .argv = {"ls"}});
        _cleanup_free_ char *text = p ? cordon_plan_to_text(p) : NULL;
        CHECK(text && strncmp(text, "linux isolation mount plan\n", 27) == 0);
        cordon_plan_free(p);
}

int main(void)
{
        if (!fixtures_build()) {
                printf("not ok 1 - build the fixture hosts: %s\n", strerror(errno));
                fixtures_remove();
                return 1;
        }
        RUN(test_default_merged);
        RUN(test_default_split);
        RUN(test_env_only);
        RUN(test_no_fixture_paths_in_plans);
        RUN(test_default_view_properties);
        RUN(test_expose);
        RUN(test_precedence);
        RUN(test_auto_expose_exe);
        RUN(test_auto_expose_exe_errors);
        RUN(test_cwd);
        RUN(test_writable_choices);
        RUN(test_home_from_passwd);
        RUN(test_args);
        RUN(test_args_symlinks);
        RUN(test_mountpoint_missing_in_ro_bind);
        RUN(test_disabled);
        RUN(test_workspace_outside_root);
        RUN(test_instance_root);
        RUN(test_instance_layout);
        RUN(test_network_and_namespaces);
        RUN(test_text_first_line);
        RUN(test_links_in_writable_mounts);
        fixtures_remove();
        return TAP_DONE();
}
