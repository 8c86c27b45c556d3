/* SPDX-License-Identifier: MIT */
/* Called by etc-scan.c (the saved listing) and view.c (the manifests). */
#include "whole-file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "libc-compat.h"

void whole_temp_name(char *out, size_t size, const char *suffix)
{
        uint64_t r = 0;
        if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
                r ^= (uint64_t)time(NULL) * 2654435761ULL;
        snprintf(out, size, "tmp-%ld-%016" PRIx64 "%s", (long)getpid(), r, suffix);
}

bool whole_file_begin(whole_file *f, int dfd)
{
        f->dfd = dfd;
        f->tmp[0] = '\0';
        f->fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        if (f->fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
                return f->fd >= 0;
        whole_temp_name(f->tmp, sizeof(f->tmp), ".t");
        f->fd = openat(dfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        return f->fd >= 0;
}

/* Link the unnamed |fd| in as |name|: by the descriptor (Linux 6.10, or
 * CAP_DAC_READ_SEARCH), else through /proc's link to it. */
static int link_unnamed(int fd, int dfd, const char *name)
{
        if (linkat(fd, "", dfd, name, AT_EMPTY_PATH) == 0)
                return 0;
        if (errno == EEXIST)
                return -1;
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        return linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW);
}

/* Name the unnamed file. Replacing is an unlink then a link: a reader in
 * between finds no file (as before the first save), never a part of one;
 * a writer that links first wins, and its file is as whole as ours. */
static bool publish_unnamed(int fd, int dfd, const char *name, bool replace)
{
        if (link_unnamed(fd, dfd, name) == 0)
                return true;
        if (errno != EEXIST)
                return false;
        if (!replace || (unlinkat(dfd, name, 0) < 0 && errno != ENOENT))
                return !replace;
        return link_unnamed(fd, dfd, name) == 0 || errno == EEXIST;
}

bool whole_file_end(whole_file *f, const char *name, bool replace, bool ok)
{
        if (f->tmp[0]) {
                ok = ok && (replace ? renameat(f->dfd, f->tmp, f->dfd, name) == 0
                                    : renameat2(f->dfd, f->tmp, f->dfd, name, RENAME_NOREPLACE) == 0 ||
                                              errno == EEXIST);
                (void)unlinkat(f->dfd, f->tmp, 0);
        } else {
                ok = ok && publish_unnamed(f->fd, f->dfd, name, replace);
        }
        close(f->fd);
        f->fd = -1;
        return ok;
}
