/* SPDX-License-Identifier: MIT */
/* --control-fd N: live grants for the CLI's caller. A thread reads
 * descriptor N (a socket, or anything open for reading and writing), one
 * JSON object a line, {"allow_net": "HOST[:PORT]"} or {"remove_net":
 * "HOST[:PORT]"}, makes the change (cordon_process_allow_net / _remove_net:
 * at once, for every new connection) and answers each line on the same
 * descriptor with one: {"ok": true, "allow_net": ENTRY} or {"ok": false,
 * "error": MESSAGE}. The descriptor is close-on-exec and the sandbox's
 * child closes every descriptor it does not need: the command never holds
 * it. Started by cmd_run (main.c) once the sandbox runs, finished before
 * its process is freed. */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4096

static struct {
        pthread_t thread;
        bool started;
        int fd;
        int stop[2]; /* the pipe that ends the thread */
        cordon_process *p;
} ctl = {.stop = {-1, -1}};

static void reply(json_t *o)
{
        char *s = o ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT) : NULL;
        json_decref(o);
        if (!s)
                return;
        size_t n = strlen(s), off = 0;
        s[n++] = '\n'; /* in place of json_dumps's NUL: the line's end */
        while (off < n) {
                ssize_t w = write(ctl.fd, s + off, n - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        break; /* the caller stopped listening: the change was made all the same */
                off += (size_t)w;
        }
        free(s);
}

static void reply_error(const char *message)
{
        json_t *o = json_object();
        if (o && json_object_set_new(o, "ok", json_false()) == 0)
                json_object_set_new(o, "error", json_string(message));
        reply(o);
}

/* One request line. */
static void serve_line(const char *line, size_t len)
{
        json_error_t je;
        json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
        const char *key = NULL;
        json_t *value = NULL;
        if (json_is_object(req) && json_object_size(req) == 1) {
                void *it = json_object_iter(req);
                key = json_object_iter_key(it);
                value = json_object_iter_value(it);
        }
        bool allow = key && strcmp(key, "allow_net") == 0, remove = key && strcmp(key, "remove_net") == 0;
        if ((!allow && !remove) || !json_is_string(value)) {
                reply_error("a control line is one JSON object: {\"allow_net\": \"HOST[:PORT]\"} or "
                            "{\"remove_net\": \"HOST[:PORT]\"}");
                json_decref(req);
                return;
        }
        cordon_error *err = NULL;
        const char *entry = json_string_value(value);
        int r = allow ? cordon_process_allow_net(ctl.p, entry, &err) : cordon_process_remove_net(ctl.p, entry, &err);
        if (r < 0) {
                reply_error(err ? cordon_error_message(err) : strerror(-r));
                cordon_error_free(err);
        } else {
                json_t *o = json_object();
                if (o && json_object_set_new(o, "ok", json_true()) == 0)
                        json_object_set_new(o, key, json_string(entry));
                reply(o);
        }
        json_decref(req);
}

static void *control_main(void *arg)
{
        (void)arg;
        static char buf[LINE_MAX_BYTES + 1];
        size_t len = 0;
        bool skipping = false; /* a line too long: dropped up to its end */
        for (;;) {
                struct pollfd pf[2] = {{ctl.fd, POLLIN, 0}, {ctl.stop[0], POLLIN, 0}};
                if (poll(pf, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (pf[1].revents)
                        break;
                ssize_t n = read(ctl.fd, buf + len, LINE_MAX_BYTES - len);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n <= 0)
                        break; /* EOF: no more changes; the command goes on */
                len += (size_t)n;
                char *start = buf, *nl;
                while ((nl = memchr(start, '\n', len - (size_t)(start - buf)))) {
                        if (!skipping && nl > start)
                                serve_line(start, (size_t)(nl - start));
                        skipping = false;
                        start = nl + 1;
                }
                len -= (size_t)(start - buf);
                memmove(buf, start, len);
                if (len == LINE_MAX_BYTES) {
                        if (!skipping)
                                reply_error("a control line is longer than 4096 bytes");
                        skipping = true;
                        len = 0;
                }
        }
        return NULL;
}

int control_prepare(int fd) { return fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ? -errno : 0; }

int control_start(int fd, cordon_process *p)
{
        /* pipe() and F_SETFD: macOS has no pipe2 */
        if (pipe(ctl.stop) < 0)
                return -errno;
        fcntl(ctl.stop[0], F_SETFD, FD_CLOEXEC);
        fcntl(ctl.stop[1], F_SETFD, FD_CLOEXEC);
        ctl.fd = fd;
        ctl.p = p;
        int e = pthread_create(&ctl.thread, NULL, control_main, NULL);
        if (e) {
                close(ctl.stop[0]);
                close(ctl.stop[1]);
                ctl.stop[0] = ctl.stop[1] = -1;
                return -e;
        }
        ctl.started = true;
        return 0;
}

void control_finish(void)
{
        if (!ctl.started)
                return;
        ctl.started = false;
        (void)!write(ctl.stop[1], "x", 1);
        pthread_join(ctl.thread, NULL);
        close(ctl.stop[0]);
        close(ctl.stop[1]);
        ctl.stop[0] = ctl.stop[1] = -1;
}
