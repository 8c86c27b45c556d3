/* SPDX-License-Identifier: MIT */
/* hook: run an agent's hook script inside the sandbox, on libcordon's public
 * API. The agent sends the hook a JSON payload on stdin (the event: a tool
 * call about to run, a prompt, ...) and reads the hook's JSON answer from
 * its stdout (allow / deny / a rewritten input). The hook's stderr is passed
 * through to ours, for its logs.
 *
 *   hook [--config FILE]... [--home DIR] [--expose SPEC]... [--timeout S]
 *        (--payload JSON | --payload-file FILE) [--] HOOK [ARGS...]
 *
 * Prints one JSON object:
 *
 *   {"status": 0, "timed_out": false, "answer": {...}}
 *   {"status": 2, "timed_out": false, "answer": null, "error": "..."}
 *
 * Exit status: 0 when the hook exited 0 with a JSON object as its answer;
 * 1 when it failed, timed out or answered something else; cordon's status
 * (125, 126, 127) when the hook could not be started. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cordon.h>

#define MAX_ANSWER ((size_t)1 << 20)

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int print_result(int status, bool timed_out, json_t *answer, const char *error)
{
        json_t *o = json_object();
        json_object_set_new(o, "status", json_integer(status));
        json_object_set_new(o, "timed_out", json_boolean(timed_out));
        json_object_set(o, "answer", answer ? answer : json_null());
        if (error)
                json_object_set_new(o, "error", json_string(error));
        char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(o);
        if (!s)
                return 1;
        printf("%s\n", s);
        free(s);
        return 0;
}

static int cordon_failed(cordon_error *err)
{
        json_t *o = json_pack("{s:s, s:i}", "error", cordon_error_message(err), "exit_status",
                              cordon_error_exit_status(err));
        char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        if (s)
                printf("%s\n", s);
        free(s);
        json_decref(o);
        int status = cordon_error_exit_status(err);
        cordon_error_free(err);
        return status;
}

/* Write |payload| to the hook's stdin and read its stdout, both through
 * poll() so that neither side can block the other; kill the sandbox at
 * |deadline|. Returns true when the deadline expired. */
static bool converse(cordon_process *proc, const char *payload, char **answer, size_t *answer_len,
                     bool *too_long, double deadline)
{
        int in = cordon_process_stdio(proc, 0), out = cordon_process_stdio(proc, 1);
        size_t sent = 0, total = strlen(payload), len = 0;
        char *buf = malloc(MAX_ANSWER + 1);
        bool timed_out = false;
        fcntl(in, F_SETFL, fcntl(in, F_GETFL) | O_NONBLOCK);
        if (total == 0) {
                cordon_process_close_stdio(proc, 0);
                in = -1;
        }
        while (buf && out >= 0) {
                struct pollfd pfd[2] = {{.fd = in, .events = POLLOUT}, {.fd = out, .events = POLLIN}};
                int ms = -1;
                if (!timed_out) {
                        double left = deadline - now_s();
                        ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
                }
                int n = poll(pfd, 2, ms);
                if (n < 0 && errno != EINTR)
                        break;
                if (n == 0 && !timed_out) {
                        cordon_kill(proc, SIGKILL);
                        timed_out = true;
                        continue;
                }
                if (in >= 0 && pfd[0].revents) {
                        ssize_t k = write(in, payload + sent, total - sent);
                        if (k > 0)
                                sent += (size_t)k;
                        /* all sent, or the hook closed its stdin (EPIPE):
                         * either way it gets EOF */
                        if (sent == total || (k < 0 && errno != EAGAIN && errno != EINTR)) {
                                cordon_process_close_stdio(proc, 0);
                                in = -1;
                        }
                }
                if (pfd[1].revents) {
                        char chunk[16384];
                        ssize_t k = read(out, chunk, sizeof(chunk));
                        if (k < 0 && (errno == EINTR || errno == EAGAIN))
                                continue;
                        if (k <= 0)
                                break; /* EOF: the sandbox ended or closed stdout */
                        size_t keep = len + (size_t)k > MAX_ANSWER ? MAX_ANSWER - len : (size_t)k;
                        *too_long |= keep < (size_t)k;
                        memcpy(buf + len, chunk, keep);
                        len += keep;
                }
        }
        if (buf)
                buf[len] = '\0';
        *answer = buf;
        *answer_len = len;
        return timed_out;
}

/* The whole of |path| as a string (caller frees), or NULL with errno set. */
static char *read_file(const char *path)
{
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        size_t len = 0, cap = 65536;
        char *s = malloc(cap);
        size_t n;
        while (s && (n = fread(s + len, 1, cap - len - 1, f)) > 0) {
                len += n;
                if (len + 1 == cap) {
                        char *t = realloc(s, cap *= 2);
                        if (!t)
                                free(s);
                        s = t;
                }
        }
        fclose(f);
        if (s)
                s[len] = '\0';
        return s;
}

static int usage(void)
{
        fprintf(stderr, "usage: hook [--config FILE]... [--home DIR] [--expose SPEC]... [--timeout S] "
                        "(--payload JSON | --payload-file FILE) [--] HOOK [ARGS...]\n");
        return 2;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                {"config", required_argument, NULL, 'c'}, {"home", required_argument, NULL, 'h'},
                {"expose", required_argument, NULL, 'e'}, {"timeout", required_argument, NULL, 't'},
                {"payload", required_argument, NULL, 'p'}, {"payload-file", required_argument, NULL, 'f'},
                {NULL, 0, NULL, 0},
        };
        /* A hook never needs the network, and should be quick. */
        double timeout = 30;
        char *end = NULL;
        const char *payload = NULL;
        char *payload_buf = NULL;
        cordon_error *err = NULL;
        cordon_config *cfg = cordon_config_new();
        int r = 0, opt;
        if (!cfg)
                return 125;
        while (r == 0 && (opt = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
                switch (opt) {
                case 'c': r = cordon_config_load_file(cfg, optarg, &err); break;
                case 'h': r = cordon_config_set_home(cfg, optarg, &err); break;
                case 'e': r = cordon_config_add_expose_spec(cfg, optarg, &err); break;
                case 't':
                        timeout = strtod(optarg, &end);
                        if (*end || end == optarg || !(timeout > 0)) {
                                cordon_config_free(cfg);
                                return usage();
                        }
                        break;
                case 'p': payload = optarg; break;
                case 'f':
                        free(payload_buf);
                        payload = payload_buf = read_file(optarg);
                        if (!payload) {
                                fprintf(stderr, "hook: cannot read %s: %s\n", optarg, strerror(errno));
                                cordon_config_free(cfg);
                                return 2;
                        }
                        break;
                default: cordon_config_free(cfg); return usage();
                }
        }
        if (r < 0 || !payload || optind >= argc) {
                free(payload_buf);
                cordon_config_free(cfg);
                return r < 0 ? cordon_failed(err) : usage();
        }

        cordon_command *cmd = cordon_command_new((const char *const *)argv + optind);
        if (!cmd || cordon_command_set_stdio(cmd, 0, CORDON_STDIO_PIPE) < 0 ||
            cordon_command_set_stdio(cmd, 1, CORDON_STDIO_PIPE) < 0) {
                free(payload_buf);
                cordon_command_free(cmd);
                cordon_config_free(cfg);
                return 125;
        }
        cordon_plan *plan = NULL;
        cordon_process *proc = NULL;
        r = cordon_prepare(cfg, cmd, &plan, &err);
        double started = now_s();
        if (r == 0)
                r = cordon_start(plan, &proc, &err);
        cordon_plan_free(plan);
        cordon_command_free(cmd);
        cordon_config_free(cfg);
        if (r < 0) {
                free(payload_buf);
                return cordon_failed(err);
        }

        /* A hook that exits without reading its stdin must not kill us. */
        signal(SIGPIPE, SIG_IGN);
        char *text = NULL;
        size_t len = 0;
        bool too_long = false;
        bool timed_out = converse(proc, payload, &text, &len, &too_long, started + timeout);
        cordon_result res;
        r = cordon_wait(proc, -1, &res, &err);
        cordon_process_free(proc);
        free(payload_buf);
        if (r < 0) {
                free(text);
                return cordon_failed(err);
        }
        int status = timed_out ? 124 : res.status;
        json_error_t jerr;
        json_t *answer = NULL;
        char why[256] = "";
        if (timed_out)
                snprintf(why, sizeof(why), "the hook did not answer within %g s", timeout);
        else if (res.status != 0)
                snprintf(why, sizeof(why), "the hook failed with status %d", res.status);
        else if (too_long)
                snprintf(why, sizeof(why), "the hook's answer is longer than %zu bytes", MAX_ANSWER);
        else if (!text || !(answer = json_loadb(text, len, 0, &jerr)))
                snprintf(why, sizeof(why), "the hook's answer is not JSON: %s", text ? jerr.text : "out of memory");
        else if (!json_is_object(answer))
                snprintf(why, sizeof(why), "the hook's answer is not a JSON object");
        bool good = why[0] == '\0';
        print_result(status, timed_out, good ? answer : NULL, good ? NULL : why);
        json_decref(answer);
        free(text);
        return good ? 0 : 1;
}
