/* SPDX-License-Identifier: MIT */
/* exec-tool: what an agent's shell tool needs, on libcordon's public API.
 *
 *   exec-tool [--config FILE]... [--home DIR] [--workspace DIR] [--expose SPEC]...
 *             [--network none|loopback|full] [--cwd DIR] [--timeout SECONDS]
 *             [--max-bytes N] [--] 'SHELL COMMAND'
 *
 * Runs `sh -c 'SHELL COMMAND'` inside the sandbox the config describes,
 * captures stdout and stderr (each up to --max-bytes, default 65536; the
 * rest is read and dropped so the command never blocks on a full pipe),
 * kills the whole sandbox when --timeout (default 10 s) expires, and prints
 * one JSON object:
 *
 *   {"exit_code": 0, "signal": 0, "status": 0, "timed_out": false,
 *    "truncated": false, "stdout": "...", "stderr": "...", "wall_s": 0.01}
 *
 * "status" is shell-style (124 after a timeout, 128+N for signal N).
 * "truncated" is true when either stream exceeded the cap. Output that is not
 * valid UTF-8 is repaired with U+FFFD, so the JSON is always valid.
 *
 * Exit status: 0 when the command ran (whatever its own status), otherwise
 * cordon's (125 setup failure, 126/127 cannot execute / not found), with
 * {"error": "..."} on stdout. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cordon.h>
#include <jansson.h>

typedef struct capture {
        int fd;            /* -1 once at EOF */
        char *data;
        size_t len, cap;   /* cap: the byte limit */
        bool truncated;
} capture;

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- JSON output -------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at |s| (at most |n| bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
        if (s[0] < 0x80)
                return 1;
        size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
        if (len == 0 || len > n)
                return 0;
        for (size_t i = 1; i < len; i++)
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
        unsigned cp = len == 2 ? (s[0] & 0x1fu) : len == 3 ? (s[0] & 0x0fu) : (s[0] & 0x07u);
        for (size_t i = 1; i < len; i++)
                cp = cp << 6 | (s[i] & 0x3fu);
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
                return 0; /* overlong or surrogate */
        return len;
}

/* |n| bytes of |s| as a JSON string: valid UTF-8 as it is, each byte that
 * is not part of it as U+FFFD (jansson takes only UTF-8). NULL on ENOMEM. */
static json_t *json_text(const char *s, size_t n)
{
        char *fixed = malloc(n * 3 + 1);
        size_t o = 0;
        for (size_t i = 0; fixed && i < n;) {
                size_t k = utf8_len((const unsigned char *)s + i, n - i);
                if (k == 0) {
                        fixed[o++] = '\xef'; /* U+FFFD */
                        fixed[o++] = '\xbf';
                        fixed[o++] = '\xbd';
                        i++;
                } else {
                        memcpy(fixed + o, s + i, k);
                        o += k;
                        i += k;
                }
        }
        json_t *v = fixed ? json_stringn(fixed, o) : NULL;
        free(fixed);
        return v;
}

/* Prints |o| on one line and releases it. Returns 0, or -1 on ENOMEM. */
static int print_json(json_t *o)
{
        int r = o && json_dumpf(o, stdout, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) == 0 ? 0 : -1;
        json_decref(o);
        fputc('\n', stdout);
        return r;
}

static int print_error(const cordon_error *err)
{
        const char *m = cordon_error_message(err);
        json_t *o = json_object();
        json_object_set_new(o, "error", json_text(m, strlen(m)));
        json_object_set_new(o, "exit_status", json_integer(cordon_error_exit_status(err)));
        print_json(o);
        return cordon_error_exit_status(err);
}

/* ---- capturing ------------------------------------------------------------- */

/* Read what is available on |c->fd|; keep up to the cap, drop the rest. */
static void capture_read(capture *c)
{
        char chunk[16384];
        ssize_t n = read(c->fd, chunk, sizeof(chunk));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                c->fd = -1; /* EOF (or an error): nothing more will come */
                return;
        }
        size_t keep = (size_t)n;
        if (c->len + keep > c->cap) {
                keep = c->cap - c->len;
                c->truncated = true;
        }
        if (keep) {
                char *d = realloc(c->data, c->len + keep + 1);
                if (!d) {
                        c->truncated = true;
                        return;
                }
                c->data = d;
                memcpy(c->data + c->len, chunk, keep);
                c->len += keep;
        }
}

/* Read both streams until the sandbox closed them; kill the whole sandbox
 * at |deadline|. Returns true when the deadline expired. */
static bool pump(cordon_process *proc, capture *out, capture *err, double deadline)
{
        bool timed_out = false;
        while (out->fd >= 0 || err->fd >= 0) {
                struct pollfd pfd[2] = {{.fd = out->fd, .events = POLLIN}, {.fd = err->fd, .events = POLLIN}};
                int ms = -1;
                if (!timed_out) {
                        double left = deadline - now_s();
                        ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
                }
                int n = poll(pfd, 2, ms); /* a negative fd is ignored by poll */
                if (n < 0 && errno != EINTR)
                        break;
                if (n == 0 && !timed_out) {
                        /* Every process of the sandbox, not just the shell:
                         * its background jobs hold the pipes too. */
                        cordon_kill(proc, SIGKILL);
                        timed_out = true;
                        continue;
                }
                if (pfd[0].revents)
                        capture_read(out);
                if (pfd[1].revents)
                        capture_read(err);
        }
        return timed_out;
}

/* ---- main --------------------------------------------------------------------- */

static int usage(void)
{
        fprintf(stderr, "usage: exec-tool [--config FILE]... [--home DIR] [--workspace DIR] [--expose SPEC]...\n"
                        "                 [--network MODE] [--cwd DIR] [--timeout S] [--max-bytes N] [--] 'COMMAND'\n");
        return 2;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                {"config", required_argument, NULL, 'c'},  {"home", required_argument, NULL, 'h'},
                {"workspace", required_argument, NULL, 'w'}, {"expose", required_argument, NULL, 'e'},
                {"network", required_argument, NULL, 'n'}, {"cwd", required_argument, NULL, 'C'},
                {"timeout", required_argument, NULL, 't'}, {"max-bytes", required_argument, NULL, 'm'},
                {NULL, 0, NULL, 0},
        };
        cordon_error *err = NULL;
        cordon_config *cfg = cordon_config_new();
        const char *cwd = NULL;
        double timeout = 10;
        size_t max_bytes = 65536;
        char *end = NULL;
        int r = 0, opt;
        if (!cfg)
                return 125;
        /* Options apply in command-line order, as config layers: a later one wins. */
        while (r == 0 && (opt = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
                switch (opt) {
                case 'c': r = cordon_config_load_file(cfg, optarg, &err); break;
                case 'h': r = cordon_config_set_home(cfg, optarg, &err); break;
                case 'w': r = cordon_config_set_workspace(cfg, optarg, &err); break;
                case 'e': r = cordon_config_add_expose_spec(cfg, optarg, &err); break;
                case 'n': r = cordon_config_set_network_name(cfg, optarg, &err); break;
                case 'C': cwd = optarg; break;
                case 't': timeout = strtod(optarg, &end); break;
                case 'm': max_bytes = strtoull(optarg, &end, 10); break;
                default: cordon_config_free(cfg); return usage();
                }
                if ((opt == 't' || opt == 'm') && (*end || end == optarg || (opt == 't' && !(timeout > 0)))) {
                        cordon_config_free(cfg);
                        return usage();
                }
        }
        if (r < 0) {
                int status = print_error(err);
                cordon_error_free(err);
                cordon_config_free(cfg);
                return status;
        }
        if (optind != argc - 1) {
                cordon_config_free(cfg);
                return usage();
        }

        const char *sh_argv[] = {"sh", "-c", argv[optind], NULL};
        cordon_command *cmd = cordon_command_new(sh_argv);
        if (!cmd || (cwd && cordon_command_set_cwd(cmd, cwd) < 0) ||
            cordon_command_set_stdio(cmd, 0, CORDON_STDIO_NULL) < 0 ||
            cordon_command_set_stdio(cmd, 1, CORDON_STDIO_PIPE) < 0 ||
            cordon_command_set_stdio(cmd, 2, CORDON_STDIO_PIPE) < 0) {
                fprintf(stderr, "exec-tool: out of memory\n");
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
        /* The process needs neither the plan nor the command any more. */
        cordon_plan_free(plan);
        cordon_command_free(cmd);
        cordon_config_free(cfg);
        if (r < 0) {
                int status = print_error(err);
                cordon_error_free(err);
                return status;
        }

        capture out = {.fd = cordon_process_stdio(proc, 1), .cap = max_bytes};
        capture errc = {.fd = cordon_process_stdio(proc, 2), .cap = max_bytes};
        bool timed_out = pump(proc, &out, &errc, started + timeout);
        cordon_result res;
        r = cordon_wait(proc, -1, &res, &err);
        cordon_process_free(proc);
        if (r < 0) {
                int status = print_error(err);
                cordon_error_free(err);
                free(out.data);
                free(errc.data);
                return status;
        }
        json_t *o = json_object();
        json_object_set_new(o, "exit_code", json_integer(res.exit_code));
        json_object_set_new(o, "signal", json_integer(res.signal));
        json_object_set_new(o, "status", json_integer(timed_out ? 124 : res.status));
        json_object_set_new(o, "timed_out", json_boolean(timed_out));
        json_object_set_new(o, "truncated", json_boolean(out.truncated || errc.truncated));
        json_object_set_new(o, "stdout", json_text(out.data ? out.data : "", out.len));
        json_object_set_new(o, "stderr", json_text(errc.data ? errc.data : "", errc.len));
        json_object_set_new(o, "wall_s", json_real(res.wall_s));
        r = print_json(o);
        free(out.data);
        free(errc.data);
        return r == 0 && fflush(stdout) == 0 ? 0 : 125;
}
