/* SPDX-License-Identifier: MIT */
/* Placeholders for protected paths that do not exist yet: an empty
 * directory or file is created on the host so that it can be bound
 * read-only over itself (a mount point must exist), and removed after the
 * run when it is still empty. */
#include "protect.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

int protect_placeholders_create(const cordon_plan *p, char ***ret, cordon_error **ret_error)
{
        *ret = NULL;
        if (p->backend != BACKEND_LINUX)
                return 0;
        for (size_t i = 0; i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                if (!m->missing)
                        continue;
                int r = m->is_dir ? mkdir(m->source, 0755) : mknod(m->source, S_IFREG | 0444, 0);
                if (r < 0 && errno == EEXIST)
                        continue; /* created meanwhile: the bind covers it as it is */
                if (r < 0) {
                        r = error_set(ret_error, errno, "cannot create a placeholder for the protected path %s: %s",
                                      m->source, strerror(errno));
                        protect_placeholders_remove(ret);
                        return r;
                }
                if (strv_push(ret, m->source) < 0) {
                        protect_placeholders_remove(ret);
                        return error_set(ret_error, ENOMEM, "out of memory");
                }
        }
        return 0;
}

void protect_placeholders_remove(char ***list)
{
        for (size_t i = 0; *list && (*list)[i]; i++) {
                const char *path = (*list)[i];
                struct stat st;
                if (lstat(path, &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode))
                        rmdir(path); /* fails, and keeps it, when not empty */
                else if (S_ISREG(st.st_mode) && st.st_size == 0)
                        unlink(path);
        }
        *list = strv_free(*list);
}
