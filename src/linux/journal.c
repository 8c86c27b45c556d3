/* SPDX-License-Identifier: MIT */
/* Finding the journals of other runs in logs/ (journal.h). */
#include "journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

void journal_each(int logs, const char *prefix, const char *skip, int oflags, int lock, bool when_free,
                  journal_fn fn, void *userdata)
{
        /* its own open file: a copy's offset is the original's, which an
         * earlier listing left at the end */
        int fd = openat(logs, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        for (struct dirent *e; (e = readdir(d));) {
                if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || (skip && streq(e->d_name, skip)))
                        continue;
                int j = openat(logs, e->d_name, oflags | O_NOFOLLOW | O_CLOEXEC);
                if (j < 0)
                        continue;
                bool got = flock(j, lock | LOCK_NB) == 0;
                if (got == when_free)
                        fn(j, e->d_name, userdata);
                close(j);
        }
        closedir(d);
}
