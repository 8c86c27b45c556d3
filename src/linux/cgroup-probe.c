/* SPDX-License-Identifier: MIT */
/* What the host offers: which hierarchy (cgroup v1, or the v2 root) holds
 * each controller, where it is mounted, whether it is read-only, and the
 * caller's own cgroup in it, read from /proc/self/mountinfo and
 * /proc/self/cgroup. Called by cgroup_create (cgroup.c) and `cordon check`
 * (cgroup-check.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-internal.h"

void cg_probe_free(probe *pr)
{
        for (int c = 0; c < C__MAX; c++) {
                free(pr->mount[c]);
                free(pr->own[c]);
        }
        free(pr->v2_mount);
        free(pr->v2_own);
        *pr = (probe){0};
}

/* Undo the octal escapes of /proc/self/mountinfo (\040 for a space). */
static void unescape_octal(char *s)
{
        char *o = s;
        for (char *i = s; *i; i++) {
                if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' && i[3] >= '0' &&
                    i[3] <= '7') {
                        *o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
                        i += 3;
                } else
                        *o++ = *i;
        }
        *o = '\0';
}

/* The caller's cgroup path in the hierarchy whose /proc/self/cgroup
 * controller list contains |ctrl| (v1), or the "0::" line (|ctrl| NULL). */
static const char *own_path(char *const *lines, const char *ctrl)
{
        for (size_t i = 0; lines && lines[i]; i++) {
                const char *l = lines[i];
                const char *c1 = strchr(l, ':');
                const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                        continue;
                _cleanup_free_ char *list = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
                if (!list)
                        return NULL;
                if (ctrl ? cg_has_word(list, ctrl, ",") : (strncmp(l, "0:", 2) == 0 && !list[0]))
                        return c2 + 1;
        }
        return NULL;
}

/* mount point + (caller's path - mount root), or NULL when the caller's
 * cgroup is outside what the mount shows. */
static char *own_dir(const char *mount, const char *mount_root, const char *path)
{
        if (!path)
                return NULL;
        const char *rel = path_skip_prefix(path, mount_root);
        if (!rel)
                return NULL;
        return *rel ? path_join(mount, rel) : strdup(mount);
}

static char **split_lines(char *text)
{
        char **v = NULL;
        for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                if (strv_push(&v, l) < 0)
                        return strv_free(v);
        return v ? v : calloc(1, sizeof(char *));
}

/* Read /proc/self/mountinfo and /proc/self/cgroup (under env->root). A host
 * without them simply has no cgroups. Returns 0 or -ENOMEM. */
int cg_probe_read(const cgroup_env *env, probe *pr)
{
        *pr = (probe){0};
        _cleanup_free_ char *mi_path = cg_at_root(env, "/proc/self/mountinfo");
        _cleanup_free_ char *cg_path = cg_at_root(env, "/proc/self/cgroup");
        if (!mi_path || !cg_path)
                return -ENOMEM;
        _cleanup_free_ char *mi = cg_read_text(mi_path);
        _cleanup_free_ char *cgt = cg_read_text(cg_path);
        if (!mi || !cgt)
                return errno == ENOMEM ? -ENOMEM : 0;
        _cleanup_strv_ char **own = split_lines(cgt);
        _cleanup_strv_ char **lines = split_lines(mi);
        if (!own || !lines)
                return -ENOMEM;
        for (size_t i = 0; lines[i]; i++) {
                /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
                char *f[64];
                int n = 0;
                for (char *save = NULL, *t = strtok_r(lines[i], " ", &save); t && n < 64;
                     t = strtok_r(NULL, " ", &save))
                        f[n++] = t;
                int sep = -1;
                for (int k = 6; k < n; k++)
                        if (streq(f[k], "-")) {
                                sep = k;
                                break;
                        }
                if (sep < 0 || sep + 3 >= n)
                        continue;
                const char *fstype = f[sep + 1], *super = f[sep + 3];
                bool ro = cg_has_word(f[5], "ro", ",");
                unescape_octal(f[3]);
                unescape_octal(f[4]);
                _cleanup_free_ char *mnt = cg_at_root(env, f[4]);
                if (!mnt)
                        return -ENOMEM;
                if (streq(fstype, "cgroup2") && !pr->v2_mount) {
                        pr->v2_mount = TAKE_PTR(mnt);
                        pr->v2_own = own_dir(pr->v2_mount, f[3], own_path(own, NULL));
                        pr->v2_ro = ro;
                } else if (streq(fstype, "cgroup")) {
                        for (int c = 0; c < C__MAX; c++) {
                                if (pr->version[c] || !cg_has_word(super, CGROUP_CTRL[c], ","))
                                        continue;
                                pr->version[c] = 1;
                                pr->mount[c] = strdup(mnt);
                                pr->own[c] = own_dir(mnt, f[3], own_path(own, CGROUP_CTRL[c]));
                                pr->ro[c] = ro;
                                if (!pr->mount[c])
                                        return -ENOMEM;
                        }
                }
        }
        /* A controller not bound to a v1 hierarchy is v2's when the v2
         * root offers it (a hybrid host's empty "unified" mount does not). */
        _cleanup_free_ char *avail = pr->v2_mount ? cg_read_file2(pr->v2_mount, "cgroup.controllers") : NULL;
        for (int c = 0; c < C__MAX; c++)
                if (!pr->version[c] && avail && cg_has_word(avail, CGROUP_CTRL[c], " \n")) {
                        pr->version[c] = 2;
                        pr->mount[c] = strdup(pr->v2_mount);
                        pr->own[c] = xstrdup(pr->v2_own);
                        pr->ro[c] = pr->v2_ro;
                        if (!pr->mount[c])
                                return -ENOMEM;
                }
        return 0;
}
