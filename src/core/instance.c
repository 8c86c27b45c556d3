/* SPDX-License-Identifier: MIT */
#include "instance.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"

const char *const INSTANCE_SUBDIRS[] = {
        "skills", "logs", "cache", "state", "workspace", "runtime-user-env",
        "runtime-user-env/home", "runtime-user-env/tmp", "runtime-user-env/config",
        "runtime-user-env/cache", "runtime-user-env/state", NULL,
};

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

int instance_create(const char *root, const char *workspace, cordon_error **ret_error)
{
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
        if (workspace && !path_startswith(workspace, root)) {
                r = mkdir_parents(workspace);
                if (r < 0)
                        return error_set(ret_error, -r, "cannot create the workspace %s: %s", workspace, strerror(-r));
        }
        return 0;
}
