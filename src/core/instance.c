/* SPDX-License-Identifier: MIT */
#include "instance.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

const char *const INSTANCE_SUBDIRS[] = {
        "skills", "logs", "cache", "state", "workspace", "runtime-user-env",
        "runtime-user-env/home", "runtime-user-env/tmp", "runtime-user-env/config",
        "runtime-user-env/cache", "runtime-user-env/state", NULL,
};

const char *const INSTANCE_OWN[] = {"logs", "skills", INSTANCE_RECORD, NULL};

#define ROOT_HINT "set --home, $CORDON_HOME or $HOME to an absolute path"

int instance_resolve_root(const char *configured, const char *env_cordon_home, const char *env_home, char **ret,
                          cordon_error **ret_error)
{
        _cleanup_free_ char *raw = NULL;
        if (configured && *configured)
                raw = strdup(configured);
        else if (env_cordon_home && *env_cordon_home)
                raw = strdup(env_cordon_home);
        else if (env_home && *env_home)
                raw = path_join(env_home, ".cordon");
        else
                return error_set(ret_error, EINVAL, "cannot find the instance root: %s", ROOT_HINT);
        if (!raw)
                return error_set(ret_error, ENOMEM, "out of memory");
        if (streq(raw, ".") || streq(raw, "./.cordon"))
                return error_set(ret_error, EINVAL, "the instance root resolves to \"%s\" (the current directory): %s",
                                 raw, ROOT_HINT);
        if (raw[0] != '/')
                return error_set(ret_error, EINVAL, "the instance root \"%s\" is a relative path: %s", raw, ROOT_HINT);
        char *n = NULL;
        if (path_normalize(raw, false, &n) < 0)
                return error_set(ret_error, EINVAL, "the instance root \"%s\" contains \"..\": %s", raw, ROOT_HINT);
        if (streq(n, "/")) {
                free(n);
                return error_set(ret_error, EINVAL, "the instance root must not be \"/\": %s", ROOT_HINT);
        }
        *ret = n;
        return 0;
}

char *instance_workspace(const char *root, const char *configured)
{
        return configured ? strdup(configured) : path_join(root, "workspace");
}

/* mkdir -p with mode 0700 for what it creates. */
static int mkdir_parents(const char *path)
{
        /* deepest first: when it exists (the usual case), one system call */
        if (mkdir(path, 0700) == 0 || errno == EEXIST)
                return 0;
        if (errno != ENOENT || streq(path, "/"))
                return -errno;
        _cleanup_free_ char *parent = path_dirname(path);
        if (!parent)
                return -ENOMEM;
        int r = mkdir_parents(parent);
        if (r < 0)
                return r;
        return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -errno;
}

static int ensure_subdir(int rootfd, const char *root, const char *sub, cordon_error **ret_error)
{
        /* Usually it exists: one system call. */
        struct stat st;
        if (fstatat(rootfd, sub, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno != ENOENT)
                        return error_set(ret_error, errno, "cannot inspect %s/%s: %s", root, sub, strerror(errno));
                if (mkdirat(rootfd, sub, 0700) == 0)
                        return 0;
                if (errno != EEXIST)
                        return error_set(ret_error, errno, "cannot create %s/%s: %s", root, sub, strerror(errno));
                if (fstatat(rootfd, sub, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return error_set(ret_error, errno, "cannot inspect %s/%s: %s", root, sub, strerror(errno));
        }
        if (!S_ISDIR(st.st_mode))
                return error_set(ret_error, ENOTDIR,
                                 "%s/%s is %s, not a directory: cordon will not follow it (remove it)", root, sub,
                                 S_ISLNK(st.st_mode) ? "a symlink" : "a file");
        return 0;
}

/* ---- cordon's own directories ---------------------------------------------------------- */

/* logs/ (the journals cordon acts on, its audit trail) and skills/ (what
 * the host agent reads as its own) must be the directories cordon made:
 * real directories (opened without following a link), the caller's, not
 * writable by others, on the instance root's file system, and the very
 * inodes recorded in <root>/instance-id when they were first seen. A
 * command cannot write any of them in the layouts cordon allows (plan.c
 * refuses an instance inside a writable mount); this catches a swap by
 * anything else, or a layout an older cordon allowed. */

#define RECORD_HEAD "cordon instance 1\n"

typedef struct own_dir {
        const char *name;
        mode_t forbidden; /* mode bits it may not have */
        bool same_fs;     /* must be on the root's file system (skills/ may be a mount of yours) */
        uint64_t ino;
} own_dir;

/* Opens |d|->name in |rootfd| and checks it (not the record); its fd. */
static int own_dir_open(int rootfd, const struct stat *root_st, const char *root, own_dir *d,
                        cordon_error **ret_error)
{
        int fd = openat(rootfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0) {
                int e = errno;
                return error_set(ret_error, e, "cannot open %s/%s: %s%s", root, d->name, strerror(e),
                                 e == ELOOP || e == ENOTDIR ? " (it is not a directory: cordon will not follow "
                                                              "it; remove it)"
                                                            : "");
        }
        const char *open_to = d->forbidden == 077 ? "is open to other users" : "is writable by other users";
        bool inspected = fstat(fd, &st) == 0;
        bool other_fs = inspected && d->same_fs && st.st_dev != root_st->st_dev;
        const char *problem = !inspected                          ? "cannot be inspected"
                              : st.st_uid != geteuid()            ? "belongs to another user"
                              : (st.st_mode & d->forbidden) != 0 ? open_to
                              : other_fs                          ? "is on another file system than the instance root"
                                                                  : NULL;
        if (problem) {
                close(fd);
                return error_set(ret_error, EPERM,
                                 "%s/%s %s: it is cordon's own directory, not to be shared; "
                                 "fix it (chown, chmod %s) or remove it",
                                 root, d->name, problem, d->forbidden == 077 ? "700" : "go-w");
        }
        d->ino = (uint64_t)st.st_ino;
        return fd;
}

/* The inodes recorded in |rootfd|'s instance-id: 1 read, 0 none yet, or
 * -errno with an error. */
static int record_read(int rootfd, const char *root, uint64_t *logs, uint64_t *skills, cordon_error **ret_error)
{
        _cleanup_close_ int fd = openat(rootfd, INSTANCE_RECORD, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
                return 0;
        char text[256] = "";
        struct stat st;
        bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
                  (st.st_mode & 022) == 0;
        ssize_t n = ok ? read(fd, text, sizeof(text) - 1) : -1;
        int used = 0;
        if (n > 0) {
                text[n] = '\0';
                /* an overflowing number cannot match a real inode: refused below */
                ok = sscanf(text, RECORD_HEAD // NOLINT(cert-err34-c)
                             "logs %" SCNu64 "\nskills %" SCNu64 "\n%n", logs, skills, &used) == 2 &&
                     used == n;
        }
        if (!ok || n <= 0)
                return error_set(ret_error, EINVAL,
                                 "%s/%s is not the record cordon writes (a file of yours, not writable by "
                                 "others, naming the inodes of logs/ and skills/): remove it if you trust "
                                 "%s/logs and %s/skills",
                                 root, INSTANCE_RECORD, root, root);
        return 1;
}

/* Writes the record, whole or not at all (a temporary file renamed). */
static int record_write(int rootfd, const char *root, uint64_t logs, uint64_t skills, cordon_error **ret_error)
{
        char tmp[64], text[128];
        snprintf(tmp, sizeof(tmp), "%s.%ld", INSTANCE_RECORD, (long)getpid());
        int len = snprintf(text, sizeof(text), RECORD_HEAD "logs %" PRIu64 "\nskills %" PRIu64 "\n", logs, skills);
        (void)unlinkat(rootfd, tmp, 0);
        _cleanup_close_ int fd = openat(rootfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
        int e = fd < 0                                    ? errno
                : write(fd, text, (size_t)len) != len       ? (errno ? errno : EIO)
                : renameat(rootfd, tmp, rootfd, INSTANCE_RECORD) < 0 ? errno
                                                                     : 0;
        if (e == 0)
                return 0;
        (void)unlinkat(rootfd, tmp, 0);
        return error_set(ret_error, e, "cannot write %s/%s: %s", root, INSTANCE_RECORD, strerror(e));
}

/* Checks logs/ and skills/ (recording them the first time); the fd of
 * logs/ in |ret_logs| (or NULL). */
static int own_dirs_check(int rootfd, const char *root, int *ret_logs, cordon_error **ret_error)
{
        struct stat root_st;
        if (fstat(rootfd, &root_st) < 0)
                return error_set(ret_error, errno, "cannot inspect the instance root %s: %s", root, strerror(errno));
        own_dir logs = {"logs", 077, true, 0}, skills = {"skills", 022, false, 0};
        _cleanup_close_ int logs_fd = own_dir_open(rootfd, &root_st, root, &logs, ret_error);
        if (logs_fd < 0)
                return logs_fd;
        int skills_fd = own_dir_open(rootfd, &root_st, root, &skills, ret_error);
        if (skills_fd < 0)
                return skills_fd;
        close(skills_fd);
        uint64_t want_logs = 0, want_skills = 0;
        int r = record_read(rootfd, root, &want_logs, &want_skills, ret_error);
        if (r == 0)
                r = record_write(rootfd, root, logs.ino, skills.ino, ret_error);
        if (r < 0)
                return r;
        const own_dir *bad = r == 1 && want_logs != logs.ino       ? &logs
                             : r == 1 && want_skills != skills.ino ? &skills
                                                                   : NULL;
        if (bad)
                return error_set(ret_error, EPERM,
                                 "%s/%s is not the directory cordon recorded in %s/%s (inode %" PRIu64
                                 ", now %" PRIu64 "): something replaced it, and cordon will not trust it; if "
                                 "you moved or restored it yourself, remove %s/%s",
                                 root, bad->name, root, INSTANCE_RECORD, bad == &logs ? want_logs : want_skills,
                                 bad->ino, root, INSTANCE_RECORD);
        if (ret_logs)
                *ret_logs = TAKE_FD(logs_fd);
        return 0;
}

int instance_open_logs(const char *root, cordon_error **ret_error)
{
        _cleanup_close_ int fd = open(root, O_DIRFD | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return error_set(ret_error, errno, "cannot open the instance root %s: %s", root, strerror(errno));
        int logs = -1;
        int r = own_dirs_check(fd, root, &logs, ret_error);
        return r < 0 ? r : logs;
}

int instance_create(const char *root, const char *workspace, int *ret_logs, cordon_error **ret_error)
{
        if (ret_logs)
                *ret_logs = -1;
        int r = mkdir_parents(root);
        if (r < 0)
                return error_set(ret_error, -r, "cannot create the instance root %s: %s", root, strerror(-r));
        _cleanup_close_ int fd = open(root, O_DIRFD | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return error_set(ret_error, errno, "cannot open the instance root %s: %s", root, strerror(errno));
        for (size_t i = 0; INSTANCE_SUBDIRS[i]; i++) {
                r = ensure_subdir(fd, root, INSTANCE_SUBDIRS[i], ret_error);
                if (r < 0)
                        return r;
        }
        _cleanup_close_ int logs = -1;
        r = own_dirs_check(fd, root, ret_logs ? &logs : NULL, ret_error);
        if (r < 0)
                return r;
        if (workspace && !path_startswith(workspace, root)) {
                r = mkdir_parents(workspace);
                if (r < 0)
                        return error_set(ret_error, -r, "cannot create the workspace %s: %s", workspace, strerror(-r));
        }
        if (ret_logs)
                *ret_logs = TAKE_FD(logs);
        return 0;
}
