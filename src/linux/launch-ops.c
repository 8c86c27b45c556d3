/* SPDX-License-Identifier: MIT */
/* The plan's mounts as the init's mount ops (launch.h): each one's kind,
 * Landlock access, group for the timing, the enclosing op it is created
 * in, and the prepared /etc (view.h) bound in place of the files it holds.
 * Pure but for opening the prepared /etc. Called by prepare_launch
 * (launch.c) for the linux backend. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launch-internal.h"
#include "view.h"

static uint64_t access_for(const plan_mount *m, const landlock_rights *ll)
{
        switch (m->type) {
        case MOUNT_BIND:
        case MOUNT_TMPFS: return m->writable ? landlock_fs_write(ll->fs) : landlock_fs_read(ll->fs);
        case MOUNT_FILE: return ll->fs & LL_FS_READ_FILE;
        case MOUNT_DEV: return ll->fs;
        case MOUNT_PROC: return ll->fs & (LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_WRITE_FILE | LL_FS_TRUNCATE);
        default: return 0;
        }
}

static view_group group_for(const plan_mount *m)
{
        if (m->type == MOUNT_DEV)
                return GROUP_DEV;
        if (m->type == MOUNT_PROC)
                return GROUP_PROC;
        if (m->type == MOUNT_TMPFS && m->writable && m->origin == ORIGIN_SYSTEM)
                return GROUP_TMP;
        switch (m->origin) {
        case ORIGIN_SYSTEM:
        case ORIGIN_GENERATED: return GROUP_SYSTEM;
        case ORIGIN_INSTANCE: return GROUP_INSTANCE;
        case ORIGIN_PROTECT: return GROUP_GIT;
        default: return GROUP_WORKSPACE;
        }
}

static op_kind op_for(mount_type t)
{
        switch (t) {
        case MOUNT_TMPFS: return OP_TMPFS;
        case MOUNT_PROC: return OP_PROC;
        case MOUNT_DEV: return OP_DEV;
        case MOUNT_SYMLINK: return OP_SYMLINK;
        case MOUNT_FILE: return OP_FILE;
        default: return OP_BIND;
        }
}

/* Each op's nearest enclosing op, in one pass: the ops are sorted parents
 * first, so the enclosing ones are on a stack of open prefixes. */
static int link_parents(mount_op *ops, size_t n)
{
        _cleanup_free_ size_t *stack = calloc(n ? n : 1, sizeof(size_t));
        if (!stack)
                return -ENOMEM;
        size_t depth = 0;
        for (size_t i = 0; i < n; i++) {
                while (depth > 0 && !(path_startswith(ops[i].target, ops[stack[depth - 1]].target) &&
                                      !streq(ops[i].target, ops[stack[depth - 1]].target)))
                        depth--;
                ops[i].parent = depth > 0 ? (int)stack[depth - 1] : -1;
                stack[depth++] = i;
        }
        return 0;
}

/* CORDON_DEBUG=rw-binds mounts a read-only bind writable so that tests can
 * see Landlock deny writes on its own. Never a protected path (.git/hooks
 * and the like: what the host runs later stays read-only whatever the knob
 * says), nor a read-only part of cordon's own instance: a debug knob does
 * not weaken those boundaries. */
static bool debug_rw_bind(const cordon_plan *p, const plan_mount *m)
{
        return p->debug_rw_binds && m->type == MOUNT_BIND && m->origin != ORIGIN_PROTECT &&
               m->origin != ORIGIN_INSTANCE && m->origin != ORIGIN_WORKSPACE;
}

static mount_op op_of(const cordon_plan *p, const launch_storage *s, const plan_mount *m, const landlock_rights *ll)
{
        mount_op op = {
                .kind = op_for(m->type),
                .source = m->source,
                .target = m->target,
                .writable = m->writable || debug_rw_bind(p, m),
                .is_dir = m->is_dir,
                .host_mkdir_ok = m->type == MOUNT_BIND && (m->origin == ORIGIN_INSTANCE || m->origin == ORIGIN_WORKSPACE),
                .untrusted = m->untrusted,
                .dev = m->dev,
                .ino = m->ino,
                .access = access_for(m, ll),
                .group = group_for(m),
                .placeholder = m->missing,
        };
        if (m->type == MOUNT_SYMLINK)
                op.data = m->source;
        else if (m->type == MOUNT_FILE) {
                op.data = m->content;
                op.data_len = strlen(m->content);
        } else if (m->type == MOUNT_TMPFS)
                op.data = m->writable ? s->tmp_opts : s->logs_opts;
        return op;
}

/* The prepared /etc (view.h), bound by its path (checked against the
 * inode seen here) before the first mount below /etc; |covered| marks the
 * mounts it holds. */
static void prepare_etc(const cordon_plan *p, launch_storage *s, bool *covered)
{
        if (p->debug_etc_binds || !covered)
                return;
        s->view_path = view_etc_open(p, covered, &s->view_lock, &s->view_st);
}

int launch_build_ops(const cordon_plan *p, launch_storage *s, const landlock_rights *ll)
{
        s->ops = calloc(p->n_mounts + 1, sizeof(mount_op));
        _cleanup_free_ bool *covered = calloc(p->n_mounts + 1, sizeof(bool));
        if (!s->ops || !covered)
                return -ENOMEM;
        prepare_etc(p, s, covered);
        size_t n = 0;
        bool etc_pending = s->view_path != NULL;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (etc_pending && path_startswith(m->target, "/etc")) {
                        /* checked as a source in a writable mount is: the inode seen here */
                        s->ops[n++] = (mount_op){.kind = OP_BIND, .source = s->view_path, .target = "/etc",
                                                 .is_dir = true, .untrusted = true, .dev = s->view_st.st_dev,
                                                 .ino = s->view_st.st_ino, .access = landlock_fs_read(ll->fs),
                                                 .group = GROUP_SYSTEM};
                        etc_pending = false;
                }
                /* the rest of the host's /etc exists only as the prepared
                 * copy: without one, only the files of the list are shown */
                if (!covered[i] && !m->etc_view)
                        s->ops[n++] = op_of(p, s, m, ll);
        }
        if (link_parents(s->ops, n) < 0)
                return -ENOMEM;
        s->l.ops = s->ops;
        s->l.n_ops = n;
        return 0;
}
