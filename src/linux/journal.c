/* SPDX-License-Identifier: MIT */
/* Finding the journals of other runs in logs/ (journal.h). */
#include "journal.h"

#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sys.h"

typedef struct journal_walk {
        int logs, oflags, lock;
        const char *prefix, *skip;
        bool when_free;
        journal_fn fn;
        void *userdata;
} journal_walk;

static bool journal_entry(void *ctx, const char *name, unsigned char type)
{
        const journal_walk *w = ctx;
        (void)type;
        if (strncmp(name, w->prefix, strlen(w->prefix)) != 0 || (w->skip && streq(name, w->skip)))
                return true;
        int j = openat(w->logs, name, w->oflags | O_NOFOLLOW | O_CLOEXEC);
        if (j < 0)
                return true;
        bool got = flock(j, w->lock | LOCK_NB) == 0;
        if (got == w->when_free)
                w->fn(j, name, w->userdata);
        close(j);
        return true;
}

void journal_each(int logs, const char *prefix, const char *skip, int oflags, int lock, bool when_free,
                  journal_fn fn, void *userdata)
{
        /* its own open file: a copy's offset is the original's, which an
         * earlier listing left at the end */
        int fd = openat(logs, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        uint64_t entries[512]; /* 4 KiB */
        journal_walk w = {logs, oflags, lock, prefix, skip, when_free, fn, userdata};
        (void)sys_dir_each(fd, entries, sizeof(entries), journal_entry, &w);
        close(fd);
}
