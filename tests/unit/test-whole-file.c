/* SPDX-License-Identifier: MIT */
/* whole-file.c: a file of cordon's own directories is written whole or not
 * at all, and a writer killed midway leaves nothing behind (the lifecycle
 * suite's property for logs/view, here without a launcher). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "whole-file.h"

static char dir[] = "/tmp/cordon-whole-XXXXXX";
static int dfd = -1;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names in the directory, sorted, joined by spaces: "a b". */
static char *names(void)
{
        static char out[1024];
        char *v[16];
        size_t n = 0;
        out[0] = '\0';
        DIR *d = opendir(dir);
        for (struct dirent *e; d && n < 16 && (e = readdir(d));)
                if (e->d_name[0] != '.')
                        v[n++] = strdup(e->d_name);
        if (d)
                closedir(d);
        qsort(v, n, sizeof(*v), by_name);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        strcat(out, " ");
                strncat(out, v[i], sizeof(out) - strlen(out) - 2);
                free(v[i]);
        }
        return out;
}

static char *content(const char *name)
{
        static char text[256];
        int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
        if (fd >= 0)
                close(fd);
        text[n > 0 ? n : 0] = 0;
        return text;
}

static bool put(const char *name, const char *text, bool replace, bool ok)
{
        whole_file f;
        if (!whole_file_begin(&f, dfd))
                return false;
        ok = ok && write(f.fd, text, strlen(text)) == (ssize_t)strlen(text);
        return whole_file_end(&f, name, replace, ok);
}

static void test_written_whole(void)
{
        CHECK(put("t", "one", true, true));
        CHECK_STREQ(content("t"), "one");
        CHECK_STREQ(names(), "t");
}

static void test_replaced(void)
{
        CHECK(put("t", "two", true, true));
        CHECK_STREQ(content("t"), "two");
        CHECK_STREQ(names(), "t");
}

static void test_kept_without_replace(void)
{
        /* true: the name holds a whole file, the one written first */
        CHECK(put("t", "three", false, true));
        CHECK_STREQ(content("t"), "two");
        CHECK_STREQ(names(), "t");
}

static void test_dropped(void)
{
        CHECK(!put("u", "never", true, false));
        CHECK_STREQ(names(), "t");
}

/* A writer killed (SIGKILL) after writing, before naming: |named| makes
 * the file the old way (a temporary name, renamed at the end), the
 * control that shows what the test would see if a name were left. */
static void killed_writer(bool named)
{
        pid_t pid = fork();
        if (pid == 0) {
                whole_file f = {.fd = -1};
                if (named)
                        f.fd = openat(dfd, "tmp-named.t", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                else if (!whole_file_begin(&f, dfd))
                        _exit(1);
                if (f.fd < 0 || write(f.fd, "partial", 7) != 7)
                        _exit(1);
                raise(SIGKILL);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void test_killed_leaves_nothing(void)
{
        killed_writer(false);
        CHECK_STREQ(names(), "t");
        CHECK_STREQ(content("t"), "two");
}

static void test_control_named_writer_leaves_its_file(void)
{
        killed_writer(true);
        CHECK_STREQ(names(), "t tmp-named.t");
        unlinkat(dfd, "tmp-named.t", 0);
}

int main(void)
{
        if (!mkdtemp(dir) || (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
                printf("not ok 1 - a scratch directory\n");
                return 1;
        }
        RUN(test_written_whole);
        RUN(test_replaced);
        RUN(test_kept_without_replace);
        RUN(test_dropped);
        RUN(test_killed_leaves_nothing);
        RUN(test_control_named_writer_leaves_its_file);
        unlinkat(dfd, "t", 0);
        rmdir(dir);
        return TAP_DONE();
}
