/* SPDX-License-Identifier: MIT */
/* What glibc 2.36 declares and musl 1.2.3 does not (the static CLI is built
 * with musl where it is installed, see docs/performance.md): the mount API
 * of Linux 5.2 and renameat2. Include after <sys/mount.h>. */
#pragma once

#ifndef __GLIBC__
#include <linux/mount.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static inline int open_tree(int dfd, const char *path, unsigned flags)
{
        return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static inline int move_mount(int from_dfd, const char *from, int to_dfd, const char *to, unsigned flags)
{
        return (int)syscall(SYS_move_mount, from_dfd, from, to_dfd, to, flags);
}

static inline int mount_setattr(int dfd, const char *path, unsigned flags, struct mount_attr *attr, size_t size)
{
        return (int)syscall(SYS_mount_setattr, dfd, path, flags, attr, size);
}

static inline int renameat2(int olddfd, const char *old, int newdfd, const char *new_name, unsigned flags)
{
        return (int)syscall(SYS_renameat2, olddfd, old, newdfd, new_name, flags);
}
#endif
