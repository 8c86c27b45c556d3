/* SPDX-License-Identifier: MIT */
/* Making what the command planted for the host's git inert (the post-run
 * check, gitcheck.c, decides what). Failing closed: the quarantine names
 * may all be taken in advance (then a name with random digits), the
 * directory may have lost its write bit (the launcher owns everything the
 * command made: it takes it back); what still cannot be renamed is
 * reported (git_check_json's "not_set_aside", and cordon_wait's error). */
#include "gitcheck-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "error.h"
#include "libc-compat.h"

#define FIXED_NAMES  10 /* NAME.cordon-quarantine, .1 ... .9 */
#define RANDOM_NAMES 16

/* Rename |name| to the |i|th quarantine name, never over anything: 0 or
 * -errno. */
static int rename_aside(int dfd, const char *name, int i, char aside[NAME_MAX + 1])
{
        int n;
        if (i == 0)
                n = snprintf(aside, NAME_MAX + 1, "%s" ASIDE_SUFFIX, name);
        else if (i < FIXED_NAMES)
                n = snprintf(aside, NAME_MAX + 1, "%s" ASIDE_SUFFIX ".%d", name, i);
        else {
                unsigned long long r = 0;
                if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
                        r = (unsigned long long)i * 0x9e3779b97f4a7c15ULL ^ (unsigned long long)getpid();
                n = snprintf(aside, NAME_MAX + 1, "%s" ASIDE_SUFFIX ".%016llx", name, r);
        }
        if (n < 0 || n > NAME_MAX) /* a name near NAME_MAX: a name of cordon's own */
                (void)snprintf(aside, NAME_MAX + 1, "cordon-quarantine.%d.%d", (int)getpid(), i);
        if (renameat2(dfd, name, dfd, aside, RENAME_NOREPLACE) == 0)
                return 0;
        if (errno != EINVAL)
                return -errno;
        /* a file system without RENAME_NOREPLACE */
        struct stat st;
        if (fstatat(dfd, aside, &st, AT_SYMLINK_NOFOLLOW) == 0)
                return -EEXIST;
        return renameat(dfd, name, dfd, aside) == 0 ? 0 : -errno;
}

/* Every name in turn; 0 or the last -errno (not -EEXIST but when all were). */
static int rename_any(int dfd, const char *name, char aside[NAME_MAX + 1])
{
        int r = -EEXIST;
        for (int i = 0; i < FIXED_NAMES + RANDOM_NAMES && r == -EEXIST; i++)
                r = rename_aside(dfd, name, i, aside);
        return r;
}

/* The directory |dfd| the run made unwritable, when the launcher owns it
 * (everything the command makes is the launcher's, in a user namespace
 * of it too): its owner's rights back, for the rename. Its mode, or 0. */
static mode_t take_write_back(int dfd)
{
        struct stat st;
        if (fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & S_IRWXU) == S_IRWXU)
                return 0;
        return fchmod(dfd, (st.st_mode & 07777) | S_IRWXU) == 0 ? (st.st_mode & 07777) | S_IFDIR : 0;
}

static void warn_aside(const git_check *gc, const char *path, const char *dir, const char *aside)
{
        _cleanup_free_ char *aside_path = path_join(dir, aside);
        _cleanup_free_ char *shown = str_escape(path, false), *shown_aside = str_escape(aside, false);
        _cleanup_free_ char *shown_back = aside_path ? str_escape(aside_path, false) : NULL;
        log_message(gc->log_fn, gc->log_userdata, CORDON_LOG_WARNING,
                    "git: set aside %s as %s: the command made or changed it, and git on the host would run what "
                    "it says; check it before you take it back (mv %s %s)",
                    shown ? shown : path, shown_aside ? shown_aside : aside, shown_back ? shown_back : aside,
                    shown ? shown : path);
}

void git_set_aside(git_check *gc, int dfd, const char *name, const char *dir)
{
        if (gc->recording)
                return;
        _cleanup_free_ char *path = path_join(dir, name);
        if (!path || strv_contains(gc->set_aside, path))
                return;
        char aside[NAME_MAX + 1];
        int r = rename_any(dfd, name, aside);
        if (r == -EACCES || r == -EPERM) {
                mode_t mode = take_write_back(dfd);
                if (mode) {
                        r = rename_any(dfd, name, aside);
                        (void)fchmod(dfd, mode & 07777);
                }
        }
        if (r == -ENOENT)
                return; /* gone meanwhile (a check of another run's) */
        if (r == 0) {
                warn_aside(gc, path, dir, aside);
                strv_push(&gc->set_aside, path);
                return;
        }
        _cleanup_free_ char *shown = str_escape(path, false);
        log_message(gc->log_fn, gc->log_userdata, CORDON_LOG_WARNING,
                    "git: cannot set aside %s, which the command made or changed and git on the host would run: "
                    "%s; do not run git there before you remove it",
                    shown ? shown : path, strerror(-r));
        if (!strv_contains(gc->not_set_aside, path))
                strv_push(&gc->not_set_aside, path);
}
