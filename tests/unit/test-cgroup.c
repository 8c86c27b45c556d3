/* SPDX-License-Identifier: MIT */
/* cgroup detection and writes against fixture trees (cgroup_env.root), and
 * one real round trip on the host when run as root. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "error.h"
#include "tap.h"

#define UID 4000 /* an unprivileged uid that owns nothing in the fixtures */
#define PID 4242

static char root[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)st;
        (void)flag;
        (void)ftw;
        return remove(path);
}

static void fixture_new(void)
{
        if (root[0])
                nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        snprintf(root, sizeof(root), "/tmp/test-cgroup.XXXXXX");
        if (!mkdtemp(root))
                abort();
}

static void mkdirs(const char *rel, mode_t mode)
{
        char path[512];
        snprintf(path, sizeof(path), "%s%s", root, rel);
        for (char *p = path + strlen(root) + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        mkdir(path, 0755);
                        *p = '/';
                }
        mkdir(path, mode);
        chmod(path, mode);
}

/* Write |content| to root+|rel| (creating directories), mode |mode|. */
static void put(const char *rel, mode_t mode, const char *content)
{
        char path[512];
        snprintf(path, sizeof(path), "%s%s", root, rel);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        mkdirs(path + strlen(root), 0755);
        *slash = '/';
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
        if (fd < 0 || write(fd, content, strlen(content)) != (ssize_t)strlen(content))
                abort();
        close(fd);
        chmod(path, mode);
}

/* The content of root+|rel| (static buffer), or "<missing>". */
static const char *get(const char *rel)
{
        static char text[4096];
        char path[512];
        snprintf(path, sizeof(path), "%s%s", root, rel);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
                return "<missing>";
        ssize_t n = read(fd, text, sizeof(text) - 1);
        close(fd);
        text[n > 0 ? n : 0] = '\0';
        return text;
}

static bool exists(const char *rel)
{
        char path[512];
        snprintf(path, sizeof(path), "%s%s", root, rel);
        return access(path, F_OK) == 0;
}

/* root + relative path, for comparing with what cgroup_dir returns. */
static const char *rooted(const char *rel)
{
        static char path[4][512];
        static int k;
        k = (k + 1) % 4;
        snprintf(path[k], sizeof(path[k]), "%s%s", root, rel);
        return path[k];
}

static cgroup_env env_as(uid_t uid)
{
        return (cgroup_env){.root = root, .uid = uid, .gid = uid, .pid = PID};
}

static int n_logs;
static char last_log[2048];
static void on_log(cordon_log_level level, const char *message, void *userdata)
{
        (void)userdata;
        CHECK(level == CORDON_LOG_WARNING);
        n_logs++;
        snprintf(last_log, sizeof(last_log), "%s", message);
}

static cgroup_request request(double mem, double pids, double cpus)
{
        n_logs = 0;
        last_log[0] = '\0';
        return (cgroup_request){.memory_bytes = mem,
                                .pids = pids,
                                .cpu_quota = cpus,
                                .private_tmp = true,
                                .count_init = true,
                                .log_fn = on_log};
}

/* A hybrid v1 host like Debian 10 / this test machine: v1 memory, pids and
 * cpu,cpuacct, an empty cgroup2 at unified; the caller sits in a memory
 * cgroup of its own and in the root of the others. */
static void v1_host(mode_t mode)
{
        put("/proc/self/mountinfo", 0644,
            "22 1 0:20 / /sys rw,nosuid - sysfs sysfs rw\n"
            "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
            "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
            "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
            "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
            "39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
            "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
        put("/proc/self/cgroup", 0644, "9:name=systemd:/\n8:pids:/\n4:memory:/sess/a\n1:cpu,cpuacct:/\n0::/\n");
        mkdirs("/sys/fs/cgroup/memory", 0755);
        mkdirs("/sys/fs/cgroup/memory/sess/a", mode);
        mkdirs("/sys/fs/cgroup/pids", mode);
        mkdirs("/sys/fs/cgroup/cpu,cpuacct", mode);
        put("/sys/fs/cgroup/unified/cgroup.controllers", 0444, "");
}

static void test_v1_root(void)
{
        fixture_new();
        v1_host(0755);
        cgroup_env env = env_as(0);
        cgroup_request req = request(100 << 20, 32, 1.5);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK(cg != NULL);
        CHECK_INTEQ(n_logs, 0);
        CHECK_STREQ(cgroup_dir(cg, "memory"), rooted("/sys/fs/cgroup/memory/sess/a/cordon-4242-0"));
        CHECK_STREQ(cgroup_dir(cg, "pids"), rooted("/sys/fs/cgroup/pids/cordon/cordon-4242-0"));
        CHECK_STREQ(cgroup_dir(cg, "cpu"), rooted("/sys/fs/cgroup/cpu,cpuacct/cordon/cordon-4242-0"));
        CHECK_STREQ(get("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/memory.limit_in_bytes"), "104857600");
        CHECK_STREQ(get("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/memory.memsw.limit_in_bytes"), "104857600");
        /* one more than asked: the init is cordon's */
        CHECK_STREQ(get("/sys/fs/cgroup/pids/cordon/cordon-4242-0/pids.max"), "33");
        CHECK_STREQ(get("/sys/fs/cgroup/cpu,cpuacct/cordon/cordon-4242-0/cpu.cfs_period_us"), "100000");
        CHECK_STREQ(get("/sys/fs/cgroup/cpu,cpuacct/cordon/cordon-4242-0/cpu.cfs_quota_us"), "150000");
        CHECK(!exists("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/pids.max"));

        CHECK_INTEQ(cgroup_attach(cg, 777, &err), 0);
        CHECK_STREQ(get("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/cgroup.procs"), "777");
        CHECK_STREQ(get("/sys/fs/cgroup/pids/cordon/cordon-4242-0/cgroup.procs"), "777");
        CHECK_STREQ(get("/sys/fs/cgroup/cpu,cpuacct/cordon/cordon-4242-0/cgroup.procs"), "777");

        put("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/memory.oom_control", 0644,
            "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
        put("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/memory.max_usage_in_bytes", 0644, "104857600\n");
        put("/sys/fs/cgroup/pids/cordon/cordon-4242-0/pids.events", 0644, "max 5\n");
        put("/sys/fs/cgroup/pids/cordon/cordon-4242-0/pids.peak", 0644, "33\n");
        cordon_result res = {.max_rss_bytes = 1000, .signal = SIGKILL};
        cgroup_collect(cg, &res);
        CHECK(res.oom_killed);
        CHECK(res.pids_limited);
        CHECK_INTEQ(res.pids_peak, 32);
        CHECK_INTEQ(res.max_rss_bytes, 104857600);
        cgroup_free(cg);
        cordon_error_free(err);
}

static void test_v1_collect_quiet(void)
{
        /* no OOM, no fork failure: nothing is flagged; the larger rss stays */
        fixture_new();
        v1_host(0755);
        cgroup_env env = env_as(0);
        cgroup_request req = request(1 << 30, 10, 0);
        cgroup *cg = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, NULL), 0);
        CHECK(cgroup_dir(cg, "cpu") == NULL);
        CHECK(!exists("/sys/fs/cgroup/cpu,cpuacct/cordon"));
        put("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/memory.oom_control", 0644,
            "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
        put("/sys/fs/cgroup/memory/sess/a/cordon-4242-0/memory.max_usage_in_bytes", 0644, "4096\n");
        put("/sys/fs/cgroup/pids/cordon/cordon-4242-0/pids.events", 0644, "max 0\n");
        cordon_result res = {.max_rss_bytes = 1 << 20};
        cgroup_collect(cg, &res);
        CHECK(!res.oom_killed);
        CHECK(!res.pids_limited);
        CHECK_INTEQ(res.pids_peak, 0); /* no pids.peak: unknown */
        CHECK_INTEQ(res.max_rss_bytes, 1 << 20);
        cgroup_free(cg);
}

static void test_v1_unprivileged_fails_closed(void)
{
        fixture_new();
        v1_host(0755);
        cgroup_env env = env_as(UID);
        cgroup_request req = request(100 << 20, 0, 0);
        cgroup *cg = (cgroup *)1;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -EPERM);
        CHECK(cg == NULL);
        char want[2048];
        snprintf(want, sizeof(want),
                 "cannot enforce the memory limit 100M (--memory): the cgroup v1 hierarchy "
                 "%s/sys/fs/cgroup/memory/sess/a is not writable by uid 4000 (v1 cgroups are normally root's). "
                 "cgroup limits need root, or a delegated cgroup v2 subtree (e.g. run cordon under `systemd-run "
                 "--user --scope -p Delegate=yes`); to run without these limits, pass --limits-best-effort "
                 "(config: \"isolation\": {\"limits_best_effort\": true})",
                 root);
        CHECK_STREQ(err ? cordon_error_message(err) : NULL, want);
        CHECK_INTEQ(err ? cordon_error_exit_status(err) : 0, 125);
        CHECK(!exists("/sys/fs/cgroup/memory/sess/a/cordon-4242-0"));
        CHECK_INTEQ(n_logs, 0);
        cordon_error_free(err);
}

static void test_v1_unprivileged_best_effort(void)
{
        fixture_new();
        v1_host(0755);
        mkdirs("/sys/fs/cgroup/pids", 0777); /* pids usable, memory not */
        cgroup_env env = env_as(UID);
        cgroup_request req = request(100 << 20, 8, 0);
        req.best_effort = true;
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK(err == NULL);
        CHECK(cg != NULL);
        CHECK(cgroup_dir(cg, "memory") == NULL);
        CHECK_STREQ(cgroup_dir(cg, "pids"), rooted("/sys/fs/cgroup/pids/cordon/cordon-4242-0"));
        CHECK_STREQ(get("/sys/fs/cgroup/pids/cordon/cordon-4242-0/pids.max"), "9");
        CHECK_INTEQ(n_logs, 1);
        char want[1024];
        snprintf(want, sizeof(want),
                 "limits_best_effort: running without the memory limit 100M (--memory): the cgroup v1 "
                 "hierarchy %s/sys/fs/cgroup/memory/sess/a is not writable by uid 4000 (v1 cgroups are "
                 "normally root's)",
                 root);
        CHECK_STREQ(last_log, want);
        cgroup_free(cg);

        /* nothing enforceable at all: no cgroup, still one warning */
        mkdirs("/sys/fs/cgroup/pids", 0755);
        req = request(100 << 20, 8, 0);
        req.best_effort = true;
        cg = (cgroup *)1;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK(cg == NULL);
        CHECK_INTEQ(n_logs, 1);
        CHECK(strstr(last_log, "the process limit 8 (--pids)") != NULL);
        CHECK(strstr(last_log, "the memory limit 100M (--memory)") != NULL);
}

static void test_no_limits_no_cgroup(void)
{
        fixture_new(); /* not even a mountinfo */
        cgroup_env env = env_as(UID);
        cgroup_request req = request(0, 0, 0);
        cgroup *cg = (cgroup *)1;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, NULL), 0);
        CHECK(cg == NULL);
        CHECK_INTEQ(n_logs, 0);
}

static void test_no_controller(void)
{
        fixture_new();
        put("/proc/self/mountinfo", 0644, "22 1 0:20 / /sys rw,nosuid - sysfs sysfs rw\n");
        put("/proc/self/cgroup", 0644, "0::/\n");
        cgroup_env env = env_as(0);
        cgroup_request req = request(0, 0, 2);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -ENOTSUP);
        CHECK_STREQ(err ? cordon_error_message(err) : NULL,
                    "cannot enforce the CPU limit 2 (--cpus): no cgroup hierarchy here has the cpu controller "
                    "(neither a cgroup v1 mount nor the cgroup v2 root). cgroup limits need root, or a delegated "
                    "cgroup v2 subtree (e.g. run cordon under `systemd-run --user --scope -p Delegate=yes`); to "
                    "run without these limits, pass --limits-best-effort (config: \"isolation\": "
                    "{\"limits_best_effort\": true})");
        cordon_error_free(err);
}

static void test_read_only_mount(void)
{
        fixture_new();
        put("/proc/self/mountinfo", 0644, "38 30 0:35 / /sys/fs/cgroup/pids ro,relatime - cgroup cgroup rw,pids\n");
        put("/proc/self/cgroup", 0644, "8:pids:/\n");
        mkdirs("/sys/fs/cgroup/pids", 0755);
        cgroup_env env = env_as(0);
        cgroup_request req = request(0, 5, 0);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -EROFS);
        CHECK(err && strstr(cordon_error_message(err), "the process limit 5 (--pids): ") &&
              strstr(cordon_error_message(err), "/sys/fs/cgroup/pids is mounted read-only"));
        cordon_error_free(err);
}

static void test_tmp_size_needs_private_tmp(void)
{
        fixture_new();
        cgroup_env env = env_as(UID);
        cgroup_request req = request(0, 0, 0);
        req.tmp_size_bytes = 1 << 20;
        req.private_tmp = false;
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -ENOTSUP);
        CHECK_STREQ(err ? cordon_error_message(err) : NULL,
                    "cannot enforce the /tmp size 1M (--tmp-size): only the linux backend mounts a private /tmp. "
                    "to run without these limits, pass --limits-best-effort (config: \"isolation\": "
                    "{\"limits_best_effort\": true})");
        cordon_error_free(err);
        req.private_tmp = true; /* the linux backend: nothing for cgroups to do */
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, NULL), 0);
        CHECK(cg == NULL);
}

/* mountinfo escapes and a mount whose root is not the hierarchy's root
 * (a container without a cgroup namespace). */
static void test_mount_root_and_escapes(void)
{
        fixture_new();
        put("/proc/self/mountinfo", 0644,
            "38 30 0:35 /docker/abc /sys/fs/cgroup/my\\040pids rw - cgroup cgroup rw,pids\n");
        put("/proc/self/cgroup", 0644, "8:pids:/docker/abc/job\n");
        mkdirs("/sys/fs/cgroup/my pids/job", 0755);
        cgroup_env env = env_as(0);
        cgroup_request req = request(0, 5, 0);
        cgroup *cg = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, NULL), 0);
        CHECK_STREQ(cgroup_dir(cg, "pids"), rooted("/sys/fs/cgroup/my pids/job/cordon-4242-0"));
        cgroup_free(cg);

        put("/proc/self/cgroup", 0644, "8:pids:/elsewhere\n");
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -ENOTSUP);
        CHECK(err && strstr(cordon_error_message(err), "this process's cgroup is not visible under"));
        cordon_error_free(err);
}

/* cgroup v2, caller in the root cgroup (root on a v2 host, or in a
 * container with its own cgroup namespace). */
static void v2_root_host(const char *subtree)
{
        put("/proc/self/mountinfo", 0644,
            "30 22 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
            "rw,nsdelegate,memory_recursiveprot\n");
        put("/proc/self/cgroup", 0644, "0::/\n");
        put("/sys/fs/cgroup/cgroup.controllers", 0444, "cpuset cpu io memory hugetlb pids rdma misc\n");
        put("/sys/fs/cgroup/cgroup.subtree_control", 0644, subtree);
        put("/sys/fs/cgroup/cgroup.procs", 0644, "1\n");
}

static void test_v2_root(void)
{
        fixture_new();
        v2_root_host("");
        cgroup_env env = env_as(0);
        cgroup_request req = request(512 << 20, 100, 0.5);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK(err == NULL);
        const char *d = "/sys/fs/cgroup/cordon/cordon-4242-0";
        CHECK_STREQ(cgroup_dir(cg, "memory"), rooted(d));
        CHECK_STREQ(cgroup_dir(cg, "pids"), rooted(d));
        CHECK_STREQ(cgroup_dir(cg, "cpu"), rooted(d));
        CHECK_STREQ(get("/sys/fs/cgroup/cgroup.subtree_control"), "+memory +pids +cpu");
        CHECK_STREQ(get("/sys/fs/cgroup/cordon/cgroup.subtree_control"), "+memory +pids +cpu");
        char p[256];
        snprintf(p, sizeof(p), "%s/memory.max", d);
        CHECK_STREQ(get(p), "536870912");
        snprintf(p, sizeof(p), "%s/memory.swap.max", d);
        CHECK_STREQ(get(p), "0");
        snprintf(p, sizeof(p), "%s/pids.max", d);
        CHECK_STREQ(get(p), "101");
        snprintf(p, sizeof(p), "%s/cpu.max", d);
        CHECK_STREQ(get(p), "50000 100000");
        CHECK_INTEQ(cgroup_attach(cg, 99, &err), 0);
        snprintf(p, sizeof(p), "%s/cgroup.procs", d);
        CHECK_STREQ(get(p), "99");

        snprintf(p, sizeof(p), "%s/memory.events", d);
        put(p, 0644, "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n");
        snprintf(p, sizeof(p), "%s/memory.peak", d);
        put(p, 0644, "536866816\n");
        snprintf(p, sizeof(p), "%s/pids.peak", d);
        put(p, 0644, "7\n");
        cordon_result res = {0};
        cgroup_collect(cg, &res);
        CHECK(res.oom_killed);
        CHECK(!res.pids_limited);
        CHECK_INTEQ(res.pids_peak, 6);
        CHECK_INTEQ(res.max_rss_bytes, 536866816);
        cgroup_free(cg);

        /* Controllers already enabled: subtree_control is left alone; a
         * second sandbox of the same process gets the next name. */
        fixture_new();
        v2_root_host("cpu memory pids\n");
        mkdirs("/sys/fs/cgroup/cordon/cordon-4242-0", 0755);
        put("/sys/fs/cgroup/cordon/cgroup.subtree_control", 0644, "cpu memory pids\n");
        req = request(0, 10, 0);
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK_STREQ(cgroup_dir(cg, "pids"), rooted("/sys/fs/cgroup/cordon/cordon-4242-1"));
        CHECK_STREQ(get("/sys/fs/cgroup/cgroup.subtree_control"), "cpu memory pids\n");
        CHECK_STREQ(get("/sys/fs/cgroup/cordon/cgroup.subtree_control"), "cpu memory pids\n");
        CHECK_STREQ(get("/sys/fs/cgroup/cordon/cordon-4242-1/pids.max"), "11");
        CHECK(!exists("/sys/fs/cgroup/cordon/cordon-4242-1/memory.max"));
        cgroup_free(cg);
        cordon_error_free(err);
}

static void test_v2_root_unprivileged(void)
{
        fixture_new();
        v2_root_host("");
        cgroup_env env = env_as(UID);
        cgroup_request req = request(1 << 30, 0, 0);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -EPERM);
        char want[1024];
        snprintf(want, sizeof(want), "the cgroup v2 root %s/sys/fs/cgroup is not writable by uid 4000", root);
        CHECK(err && strstr(cordon_error_message(err), want));
        CHECK_STREQ(get("/sys/fs/cgroup/cgroup.subtree_control"), "");
        cordon_error_free(err);
}

/* A systemd user session: the caller runs in a scope inside the user's
 * delegated user@4000.service; the scope's parent (app.slice) belongs to
 * the user. cordon creates its cgroup beside the scope. */
#define APP "/sys/fs/cgroup/user.slice/user-4000.slice/user@4000.service/app.slice"
static void v2_user_host(mode_t app_mode, const char *app_controllers, const char *app_subtree)
{
        put("/proc/self/mountinfo", 0644, "30 22 0:27 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n");
        put("/proc/self/cgroup", 0644, "0::/user.slice/user-4000.slice/user@4000.service/app.slice/run-r1.scope\n");
        put("/sys/fs/cgroup/cgroup.controllers", 0444, "cpuset cpu io memory pids\n");
        put("/sys/fs/cgroup/cgroup.subtree_control", 0644, "cpu io memory pids\n");
        put(APP "/cgroup.controllers", 0444, app_controllers);
        put(APP "/cgroup.subtree_control", app_mode == 0777 ? 0666 : 0644, app_subtree);
        put(APP "/cgroup.procs", app_mode == 0777 ? 0666 : 0644, "");
        mkdirs(APP, app_mode);
        put(APP "/run-r1.scope/cgroup.controllers", 0444, "memory pids\n");
        put(APP "/run-r1.scope/cgroup.subtree_control", 0666, "");
        put(APP "/run-r1.scope/cgroup.procs", 0666, "1234\n");
        mkdirs(APP "/run-r1.scope", 0777);
}

static void test_v2_user_delegated(void)
{
        fixture_new();
        v2_user_host(0777, "cpu memory pids\n", "memory pids\n");
        cgroup_env env = env_as(UID);
        cgroup_request req = request(256 << 20, 64, 0);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK(err == NULL);
        CHECK_STREQ(cgroup_dir(cg, "memory"), rooted(APP "/cordon-4242-0"));
        CHECK_STREQ(get(APP "/cgroup.subtree_control"), "memory pids\n"); /* already there */
        CHECK_STREQ(get(APP "/cordon-4242-0/memory.max"), "268435456");
        CHECK_STREQ(get(APP "/cordon-4242-0/pids.max"), "65");
        CHECK_STREQ(get(APP "/run-r1.scope/cgroup.subtree_control"), ""); /* the caller's: untouched */
        cgroup_free(cg);

        /* cpu is delegated but not yet enabled in app.slice: enabled there */
        req = request(0, 0, 1);
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK_STREQ(get(APP "/cgroup.subtree_control"), "+cpu");
        CHECK_STREQ(get(APP "/cordon-4242-1/cpu.max"), "100000 100000");
        cgroup_free(cg);
        cordon_error_free(err);
}

static void test_v2_user_not_delegated(void)
{
        /* an ssh session scope: its parent belongs to root */
        fixture_new();
        v2_user_host(0755, "cpu memory pids\n", "memory pids\n");
        cgroup_env env = env_as(UID);
        cgroup_request req = request(256 << 20, 0, 0);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -EPERM);
        char want[1024];
        snprintf(want, sizeof(want),
                 "the memory limit 256M (--memory): this process's cgroup %s" APP "/run-r1.scope holds processes, "
                 "so cgroup v2 lets no controller below it, and its parent %s" APP " is not writable by uid 4000 "
                 "(not a delegated subtree).",
                 root, root);
        CHECK(err && strstr(cordon_error_message(err), want));
        cordon_error_free(err);

        /* delegated, but without the memory controller */
        fixture_new();
        v2_user_host(0777, "cpu pids\n", "pids\n");
        err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -ENOTSUP);
        snprintf(want, sizeof(want), "%s" APP " is not delegated the memory controller (see its cgroup.controllers)",
                 root);
        CHECK(err && strstr(cordon_error_message(err), want));
        cordon_error_free(err);
}

/* A launcher killed by SIGKILL leaves an empty cgroup behind: the next run
 * removes it when its pid is gone and it is old. */
static void test_sweep_stale(void)
{
        fixture_new();
        v2_root_host("cpu memory pids\n");
        put("/sys/fs/cgroup/cordon/cgroup.subtree_control", 0644, "cpu memory pids\n");
        mkdirs("/sys/fs/cgroup/cordon/cordon-999999999-0", 0755); /* beyond pid_max: gone */
        mkdirs("/sys/fs/cgroup/cordon/cordon-999999999-1", 0755); /* gone, but young */
        mkdirs("/sys/fs/cgroup/cordon/cordon-1-0", 0755);         /* pid 1 lives */
        mkdirs("/sys/fs/cgroup/cordon/other", 0755);
        struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
        utimensat(AT_FDCWD, rooted("/sys/fs/cgroup/cordon/cordon-999999999-0"), old, 0);
        utimensat(AT_FDCWD, rooted("/sys/fs/cgroup/cordon/cordon-1-0"), old, 0);
        utimensat(AT_FDCWD, rooted("/sys/fs/cgroup/cordon/other"), old, 0);
        cgroup_env env = env_as(0);
        cgroup_request req = request(0, 10, 0);
        cgroup *cg = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, NULL), 0);
        CHECK(!exists("/sys/fs/cgroup/cordon/cordon-999999999-0"));
        CHECK(exists("/sys/fs/cgroup/cordon/cordon-999999999-1"));
        CHECK(exists("/sys/fs/cgroup/cordon/cordon-1-0"));
        CHECK(exists("/sys/fs/cgroup/cordon/other"));
        cgroup_free(cg);
}

static void test_summary(void)
{
        fixture_new();
        v1_host(0755);
        cgroup_env env = env_as(0);
        char *s = cgroup_summary(&env);
        CHECK_STREQ(s, "memory: v1, usable (in /sys/fs/cgroup/memory/sess/a); pids: v1, usable (in "
                       "/sys/fs/cgroup/pids/cordon); cpu: v1, usable (in /sys/fs/cgroup/cpu,cpuacct/cordon); "
                       "cgroup v2 at /sys/fs/cgroup/unified holds none of them (hybrid host)");
        free(s);
        env = env_as(UID);
        s = cgroup_summary(&env);
        CHECK(s && strstr(s, "memory: v1, not usable: the cgroup v1 hierarchy ") &&
              strstr(s, "/sys/fs/cgroup/memory/sess/a is not writable by uid 4000"));
        free(s);

        fixture_new();
        v2_user_host(0777, "cpu memory pids\n", "memory pids\n");
        s = cgroup_summary(&env);
        CHECK_STREQ(s, "memory: v2, usable (in " APP "); pids: v2, usable (in " APP "); cpu: v2, usable (in " APP ")");
        free(s);

        fixture_new();
        put("/proc/self/mountinfo", 0644, "22 1 0:20 / /sys rw,nosuid - sysfs sysfs rw\n");
        put("/proc/self/cgroup", 0644, "0::/\n");
        s = cgroup_summary(&env);
        CHECK_STREQ(s, "none (no memory, pids or cpu controller mounted): --memory, --pids and --cpus cannot be "
                       "enforced");
        free(s);
}

/* RLIMIT_NPROC as the process limit: usable from Linux 5.14 on, for a
 * uid that is not the host's root. */
static void test_nproc_rlimit(void)
{
        static const struct {
                const char *release, *uid_map;
                uid_t uid;
                bool usable;
                const char *why; /* a part of it */
        } T[] = {
                {"6.18.44-fc\n", "         0          0 4294967295\n", UID, true, NULL},
                {"5.14.0-rc1\n", "0 0 4294967295\n", UID, true, NULL},
                {"5.13.19\n", "0 0 4294967295\n", UID, false, "Linux 5.13 counts it per user on the whole host"},
                {"4.19.0-21-amd64\n", "0 0 4294967295\n", UID, false, "Linux 4.19"},
                {"6.1.0\n", "0 0 4294967295\n", 0, false, "root (uid 0 of the host) is exempt"},
                /* root of a container whose uid 0 is 100000 outside */
                {"6.1.0\n", "0 100000 65536\n", 0, true, NULL},
                {"6.1.0\n", "0 100000 1000\n1000 0 1\n", 1000, false, "exempt"},
                {"garbage\n", "0 0 4294967295\n", UID, false, "version is unknown"},
                {NULL, "0 0 4294967295\n", UID, false, "version is unknown"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                fixture_new();
                if (T[i].release)
                        put("/proc/sys/kernel/osrelease", 0444, T[i].release);
                put("/proc/self/uid_map", 0444, T[i].uid_map);
                cgroup_env env = env_as(T[i].uid);
                char *why = NULL;
                bool usable = cgroup_nproc_rlimit(&env, &why);
                bool right = usable == T[i].usable && (T[i].usable ? why == NULL : why && strstr(why, T[i].why));
                if (!right)
                        printf("# case %zu (%s): usable %d, why \"%s\"\n", i, T[i].release ? T[i].release : "-",
                               usable, why ? why : "(null)");
                CHECK(right);
                free(why);
        }
}

/* Where no pids cgroup can be had, RLIMIT_NPROC stands in: no failure, no
 * warning for it; the other limits fail (or warn) as before. */
static void test_pids_fall_to_rlimit(void)
{
        fixture_new();
        v1_host(0755); /* root's: uid 4000 may not write there */
        cgroup_env env = env_as(UID);
        cgroup_request req = request(0, 16, 0);
        bool by_rlimit = false;
        req.pids_rlimit_ok = true;
        req.ret_pids_by_rlimit = &by_rlimit;
        cgroup *cg = (cgroup *)1;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK(cg == NULL);
        CHECK(by_rlimit);
        CHECK(err == NULL);
        CHECK_INTEQ(n_logs, 0);

        /* with memory too: memory still fails closed, and the message says
         * nothing of the process limit */
        req = request(100 << 20, 16, 0);
        by_rlimit = false;
        req.pids_rlimit_ok = true;
        req.ret_pids_by_rlimit = &by_rlimit;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -EPERM);
        CHECK(by_rlimit);
        CHECK(err && strstr(cordon_error_message(err), "the memory limit 100M (--memory)") &&
              !strstr(cordon_error_message(err), "--pids"));
        cordon_error_free(err);
        err = NULL;

        /* RLIMIT_NPROC cannot stand in: the failure says why */
        req = request(0, 16, 0);
        by_rlimit = false;
        req.pids_rlimit_why = "Linux 5.10 counts it per user on the whole host";
        req.ret_pids_by_rlimit = &by_rlimit;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), -EPERM);
        CHECK(!by_rlimit);
        CHECK(err && strstr(cordon_error_message(err), "the process limit 16 (--pids): the cgroup v1 hierarchy ") &&
              strstr(cordon_error_message(err), "; RLIMIT_NPROC cannot stand in: Linux 5.10 counts it"));
        cordon_error_free(err);
        err = NULL;

        /* a usable pids cgroup is preferred */
        env = env_as(0);
        req = request(0, 16, 0);
        by_rlimit = false;
        req.pids_rlimit_ok = true;
        req.ret_pids_by_rlimit = &by_rlimit;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        CHECK(!by_rlimit);
        CHECK_STREQ(cgroup_dir(cg, "pids"), rooted("/sys/fs/cgroup/pids/cordon/cordon-4242-0"));
        cgroup_free(cg);
}

static void test_pids_mechanism(void)
{
        fixture_new();
        v1_host(0755);
        put("/proc/sys/kernel/osrelease", 0444, "6.1.0\n");
        put("/proc/self/uid_map", 0444, "0 0 4294967295\n");
        cgroup_env env = env_as(0);
        char *text = NULL;
        CHECK_INTEQ(cgroup_pids_mechanism(&env, true, false, &text), PIDS_BY_CGROUP);
        CHECK_STREQ(text, "the pids cgroup (in /sys/fs/cgroup/pids/cordon)");
        free(text);
        env = env_as(UID);
        CHECK_INTEQ(cgroup_pids_mechanism(&env, true, false, &text), PIDS_BY_RLIMIT);
        CHECK(text && strstr(text, "RLIMIT_NPROC in the sandbox's user namespace (no pids cgroup: the cgroup v1 "
                                   "hierarchy "));
        free(text);
        /* no user namespace of its own (the landlock backend) */
        CHECK_INTEQ(cgroup_pids_mechanism(&env, false, false, &text), PIDS_BY_NONE);
        CHECK(text && strstr(text, "cannot be enforced: no pids cgroup (") &&
              strstr(text, "RLIMIT_NPROC cannot stand in (only in the linux backend's user namespace)"));
        free(text);
        /* ... but for root's sandbox user, whose uid is the instance's */
        CHECK_INTEQ(cgroup_pids_mechanism(&env, false, true, &text), PIDS_BY_RLIMIT);
        CHECK(text && strstr(text, "RLIMIT_NPROC of the sandbox user"));
        free(text);
        put("/proc/sys/kernel/osrelease", 0444, "5.4.0\n");
        CHECK_INTEQ(cgroup_pids_mechanism(&env, true, false, &text), PIDS_BY_NONE);
        CHECK(text && strstr(text, "RLIMIT_NPROC cannot stand in (Linux 5.4 counts it per user"));
        free(text);
}

/* The real host, as root: create, check the kernel took the value, attach
 * a child, read its counters, remove. */
static void test_host_round_trip(void)
{
        cgroup_env env = cgroup_env_host();
        cgroup_request req = request(64 << 20, 4, 0);
        cgroup *cg = NULL;
        cordon_error *err = NULL;
        CHECK_INTEQ(cgroup_create(&env, &req, &cg, &err), 0);
        if (err)
                printf("# %s\n", cordon_error_message(err));
        const char *mem = cgroup_dir(cg, "memory");
        const char *pids = cgroup_dir(cg, "pids");
        CHECK(mem && pids);
        if (!mem || !pids) {
                cgroup_free(cg);
                cordon_error_free(err);
                return;
        }
        char path[512], *dir = strdup(mem);
        snprintf(path, sizeof(path), "%s/memory.max", mem);
        if (access(path, F_OK) != 0)
                snprintf(path, sizeof(path), "%s/memory.limit_in_bytes", mem);
        FILE *f = fopen(path, "r");
        unsigned long long v = 0;
        CHECK(f && fscanf(f, "%llu", &v) == 1);
        if (f)
                fclose(f);
        CHECK_INTEQ(v, 64 << 20);
        pid_t child = fork();
        if (child == 0) {
                pause();
                _exit(0);
        }
        CHECK_INTEQ(cgroup_attach(cg, child, &err), 0);
        snprintf(path, sizeof(path), "%s/cgroup.procs", pids);
        f = fopen(path, "r");
        long got = 0;
        CHECK(f && fscanf(f, "%ld", &got) == 1);
        if (f)
                fclose(f);
        CHECK_INTEQ(got, child);
        cordon_result res = {0};
        cgroup_collect(cg, &res);
        CHECK_INTEQ(res.pids_peak, 0); /* count_init: the one process is "the init" */
        CHECK(!res.oom_killed);
        cgroup_free(cg); /* kills the child */
        int st = 0;
        CHECK_INTEQ(waitpid(child, &st, 0), child);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        CHECK(access(dir, F_OK) != 0);
        free(dir);
        cordon_error_free(err);
}

int main(void)
{
        RUN(test_v1_root);
        RUN(test_v1_collect_quiet);
        RUN(test_v1_unprivileged_fails_closed);
        RUN(test_v1_unprivileged_best_effort);
        RUN(test_no_limits_no_cgroup);
        RUN(test_no_controller);
        RUN(test_read_only_mount);
        RUN(test_tmp_size_needs_private_tmp);
        RUN(test_mount_root_and_escapes);
        RUN(test_v2_root);
        RUN(test_v2_root_unprivileged);
        RUN(test_v2_user_delegated);
        RUN(test_v2_user_not_delegated);
        RUN(test_sweep_stale);
        RUN(test_summary);
        RUN(test_nproc_rlimit);
        RUN(test_pids_fall_to_rlimit);
        RUN(test_pids_mechanism);
        if (geteuid() != 0)
                tap_skip("test_host_round_trip", "needs root to create a cgroup on this host");
        else
                RUN(test_host_round_trip);
        if (root[0])
                nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        return TAP_DONE();
}
