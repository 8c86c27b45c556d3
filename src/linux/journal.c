/* SPDX-License-Identifier: MIT */
/* Finding the journals of other runs in logs/ (journal.h). */
#include "journal.h"

#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sys.h"

typedef struct journal_walk {
        int logs, oflags;
        const journal_kind *kinds;
        size_t n;
        const char *skip;
        bool when_free;
        void *userdata;
} journal_walk;

static bool journal_entry(void *ctx, const char *name, unsigned char type)
{
        const journal_walk *w = ctx;
        (void)type;
        const journal_kind *k = NULL;
        for (size_t i = 0; !k && i < w->n; i++)
                if (strncmp(name, w->kinds[i].prefix, strlen(w->kinds[i].prefix)) == 0)
                        k = &w->kinds[i];
        if (!k || (w->skip && streq(name, w->skip)))
                return true;
        int j = openat(w->logs, name, w->oflags | O_NOFOLLOW | O_CLOEXEC);
        if (j < 0)
                return true;
        bool got = flock(j, k->lock | LOCK_NB) == 0;
        if (got == w->when_free)
                k->fn(j, name, w->userdata);
        close(j);
        return true;
}

void journal_each(int logs, const journal_kind *kinds, size_t n, const char *skip, int oflags, bool when_free,
                  void *userdata)
{
        /* its own open file: a copy's offset is the original's, which an
         * earlier listing left at the end */
        int fd = openat(logs, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        uint64_t entries[512]; /* 4 KiB */
        journal_walk w = {logs, oflags, kinds, n, skip, when_free, userdata};
        (void)sys_dir_each(fd, entries, sizeof(entries), journal_entry, &w);
        close(fd);
}
