/* SPDX-License-Identifier: MIT */
/* Landlock: the ABI -> rights function, and rulesets applied in a forked
 * child (the test runner itself stays unrestricted). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "landlock.h"
#include "sys.h"
#include "tap.h"

#define ABI1_FS 0x1fffULL

static void test_rights_per_abi(void)
{
        static const struct {
                int abi;
                uint64_t fs, net, scoped;
        } T[] = {
                {-38, 0, 0, 0},
                {0, 0, 0, 0},
                {1, ABI1_FS, 0, 0},
                {2, ABI1_FS | LL_FS_REFER, 0, 0},
                {3, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE, 0, 0},
                {4, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE, 3, 0},
                {5, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV, 3, 0},
                {6, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV, 3, 3},
                {7, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV, 3, 3},
                {8, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV, 3, 3},
                {9, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV | LL_FS_RESOLVE_UNIX, 3, 3},
                {42, ABI1_FS | LL_FS_REFER | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV | LL_FS_RESOLVE_UNIX, 3, 3}, /* newer: what we know */
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                landlock_rights r = landlock_rights_for_abi(T[i].abi);
                CHECK_INTEQ(r.fs, T[i].fs);
                CHECK_INTEQ(r.net, T[i].net);
                CHECK_INTEQ(r.scoped, T[i].scoped);
        }
}

static void test_read_write_sets(void)
{
        uint64_t all = landlock_rights_for_abi(7).fs;
        CHECK_INTEQ(landlock_fs_read(all), LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR);
        CHECK_INTEQ(landlock_fs_write(all), all);
        CHECK(!(landlock_fs_read(all) & (LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_MAKE_REG | LL_FS_REFER)));
        /* ABI 9: connecting to a unix socket is a right of the writable paths only */
        CHECK(!(landlock_fs_read(landlock_rights_for_abi(9).fs) & LL_FS_RESOLVE_UNIX));
        char *names = landlock_fs_names(LL_FS_READ_FILE | LL_FS_TRUNCATE);
        CHECK_STREQ(names, "read_file truncate");
        free(names);
}

/* Run |fn| in a child; returns its exit status. */
static int in_child(int (*fn)(const char *), const char *dir)
{
        pid_t pid = fork();
        if (pid == 0)
                _exit(fn(dir));
        int st = 0;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}

static char ro_dir[64], rw_dir[64];

static int try_writes(const char *dir)
{
        (void)dir;
        char p[128];
        snprintf(p, sizeof(p), "%s/new", ro_dir);
        int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        int ro_errno = fd < 0 ? errno : 0;
        if (fd >= 0) {
                close(fd);
                unlink(p);
        }
        snprintf(p, sizeof(p), "%s/new", rw_dir);
        fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        int rw_errno = fd < 0 ? errno : 0;
        if (fd >= 0) {
                close(fd);
                unlink(p);
        }
        snprintf(p, sizeof(p), "%s/file", ro_dir);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        int read_errno = fd < 0 ? errno : 0;
        if (fd >= 0)
                close(fd);
        /* 0: all allowed; 1: ro write denied (EACCES), the rest allowed */
        if (!ro_errno && !rw_errno && !read_errno)
                return 0;
        if (ro_errno == EACCES && !rw_errno && !read_errno)
                return 1;
        return 2;
}

static int restricted_writes(const char *dir)
{
        (void)dir;
        landlock_rights r = landlock_rights_for_abi(landlock_abi());
        r.net = r.scoped = 0;
        int rs = landlock_ruleset_new(&r);
        int ro = open(ro_dir, O_PATH | O_CLOEXEC), rw = open(rw_dir, O_PATH | O_CLOEXEC);
        if (rs < 0 || landlock_allow_fd(rs, ro, landlock_fs_read(r.fs), true) < 0 ||
            landlock_allow_fd(rs, rw, landlock_fs_write(r.fs), true) < 0)
                return 3;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sys_landlock_restrict_self(rs, 0) < 0)
                return 4;
        return try_writes(dir);
}

static void test_fs_rules_in_child(void)
{
        if (landlock_abi() < 1) {
                printf("# %s\n", landlock_hint(landlock_abi()));
                CHECK(getenv("CI") == NULL);
                return;
        }
        strcpy(ro_dir, "/tmp/cordon-ll-ro.XXXXXX");
        strcpy(rw_dir, "/tmp/cordon-ll-rw.XXXXXX");
        CHECK(mkdtemp(ro_dir) && mkdtemp(rw_dir));
        char p[128];
        snprintf(p, sizeof(p), "%s/file", ro_dir);
        int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        close(fd);
        CHECK_INTEQ(in_child(try_writes, NULL), 0);          /* control: no Landlock */
        CHECK_INTEQ(in_child(restricted_writes, NULL), 1);   /* ro denied, rw and reads allowed */
        unlink(p);
        rmdir(ro_dir);
        rmdir(rw_dir);
}

static int tcp_bind(void)
{
        int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        int r = s < 0 ? -1 : bind(s, (struct sockaddr *)&sa, sizeof(sa));
        int e = r < 0 ? errno : 0;
        if (s >= 0)
                close(s);
        return e;
}

static int restricted_bind(const char *dir)
{
        (void)dir;
        landlock_rights r = landlock_rights_for_abi(landlock_abi());
        r.fs = LL_FS_MAKE_REG; /* something must be handled */
        r.scoped = 0;
        int rs = landlock_ruleset_new(&r);
        if (rs < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sys_landlock_restrict_self(rs, 0) < 0)
                return 100;
        return tcp_bind();
}

static int plain_bind(const char *dir)
{
        (void)dir;
        return tcp_bind();
}

static void test_tcp_rules_in_child(void)
{
        if (landlock_abi() < 4) {
                printf("# Landlock ABI %d has no network rules\n", landlock_abi());
                CHECK(getenv("CI") == NULL);
                return;
        }
        CHECK_INTEQ(in_child(plain_bind, NULL), 0);
        CHECK_INTEQ(in_child(restricted_bind, NULL), EACCES);
}

int main(void)
{
        RUN(test_rights_per_abi);
        RUN(test_read_write_sets);
        RUN(test_fs_rules_in_child);
        RUN(test_tcp_rules_in_child);
        return TAP_DONE();
}
