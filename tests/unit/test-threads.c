/* SPDX-License-Identifier: MIT */
/* cordon_prepare/cordon_start/cordon_wait from many threads of one process.
 *
 * The child of clone() in a multi-threaded process may not take a lock that
 * another thread could have held at the time of the clone: that lock is
 * copied locked and never released (malloc's arena locks, stdio's list lock,
 * glibc's stack-cache lock taken by pthread_create and by set*id calls). So
 * while THREADS threads start sandboxes at the same moment (a barrier per
 * round), a churn thread keeps exactly those locks busy: malloc/free of
 * varying sizes, fopen/fprintf/fclose, and pthread_create/pthread_join.
 *
 * Count: ROUNDS rounds of THREADS sandboxes: 100 x 8 = 800 sandboxes (about
 * 25 s on 2 cores), 25 x 8 = 200 under AddressSanitizer (cloning a process
 * with ASan's shadow memory costs two to three times as much); set
 * CORDON_THREADS_ROUNDS to change it. The deadlock this test found (glibc's
 * setgroups() in the child) showed in the first round. Each sandbox runs `sh -c 'exit N'` with
 * an N distinct among the sandboxes running at the same time, and checks it
 * gets N back; every third one also prints a line on stdout that is captured
 * through CORDON_STDIO_PIPE and compared. A watchdog thread fails the test
 * (instead of letting it hang) when the whole run takes longer than
 * WATCHDOG_S seconds. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cordon.h"

#define THREADS 8
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_ROUNDS 25
#else
#define DEFAULT_ROUNDS 100
#endif
#define WATCHDOG_S 150

static int rounds = DEFAULT_ROUNDS;
static char home[64] = "/tmp/cordon-threads.XXXXXX";
static char workspace[128];
static pthread_barrier_t barrier;
static atomic_bool stop_churn;
static atomic_int failures;
static atomic_int started_total;
static atomic_int piped_total;

/* Failure messages: one write(2) each, no stdio (the test must not depend on
 * locks that a deadlock could hold). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        if (n > 0)
                (void)!write(STDOUT_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        if (atomic_fetch_add(&failures, 1) < 20) /* enough to diagnose */
                say("# %s\n", line);
}

/* ---- the churn thread: keep malloc, stdio and thread-creation locks busy ---- */

static void *nothing(void *arg) { return arg; }

static void *churn(void *arg)
{
        (void)arg;
        unsigned seed = 1;
        void *held[64] = {0};
        unsigned long iter = 0;
        while (!atomic_load(&stop_churn)) {
                size_t i = (size_t)rand_r(&seed) % 64;
                free(held[i]);
                /* small (tcache/fastbins), medium, and mmap-sized blocks */
                size_t sz = (size_t[]){16, 200, 4096, 70000, 300000}[rand_r(&seed) % 5];
                held[i] = malloc(sz);
                if (held[i])
                        memset(held[i], 0x5a, sz < 256 ? sz : 256);
                if (++iter % 64 == 0) {
                        FILE *f = fopen("/dev/null", "we");
                        if (f) {
                                fprintf(f, "churn %lu\n", iter);
                                fclose(f);
                        }
                }
                if (iter % 256 == 0) {
                        pthread_t t;
                        if (pthread_create(&t, NULL, nothing, NULL) == 0)
                                pthread_join(t, NULL);
                }
        }
        for (size_t i = 0; i < 64; i++)
                free(held[i]);
        return NULL;
}

/* ---- the watchdog ---- */

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static bool done;

static void *watchdog(void *arg)
{
        (void)arg;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += WATCHDOG_S;
        pthread_mutex_lock(&done_lock);
        int r = 0;
        while (!done && r != ETIMEDOUT)
                r = pthread_cond_timedwait(&done_cond, &done_lock, &until);
        bool finished = done;
        pthread_mutex_unlock(&done_lock);
        if (!finished) {
                say("# watchdog: not finished after %d s (%d sandboxes started): deadlock or hang\n", WATCHDOG_S,
                    atomic_load(&started_total));
                say("not ok 2 - %d threads x %d rounds of sandboxes, with malloc/stdio/thread churn\n", THREADS,
                    rounds);
                say("1..2\n");
                _exit(1); /* the sandboxes die with us (PR_SET_PDEATHSIG) */
        }
        return NULL;
}

/* ---- one sandbox ---- */

/* Read |fd| to EOF into |buf| (NUL-terminated). */
static ssize_t read_all(int fd, char *buf, size_t size)
{
        size_t n = 0;
        for (;;) {
                ssize_t k = read(fd, buf + n, size - 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -1;
                if (k == 0 || n + (size_t)k >= size - 1) {
                        n += (size_t)(k > 0 ? k : 0);
                        break;
                }
                n += (size_t)k;
        }
        buf[n] = '\0';
        return (ssize_t)n;
}

static void one_sandbox(const cordon_config *cfg, int thread, int round)
{
        /* distinct among the THREADS sandboxes of a round, and varying */
        int want = 1 + thread + THREADS * (round % 15);
        bool pipe_it = (thread + round) % 3 == 0;
        char script[128], expect[64];
        snprintf(expect, sizeof(expect), "t%d r%d\n", thread, round);
        if (pipe_it)
                snprintf(script, sizeof(script), "echo t%d r%d; exit %d", thread, round, want);
        else
                snprintf(script, sizeof(script), "exit %d", want);
        const char *argv[] = {"sh", "-c", script, NULL};

        cordon_error *err = NULL;
        cordon_command *cmd = cordon_command_new(argv);
        cordon_plan *plan = NULL;
        cordon_process *proc = NULL;
        if (!cmd || cordon_command_set_cwd(cmd, workspace) < 0 ||
            (pipe_it && cordon_command_set_stdio(cmd, 1, CORDON_STDIO_PIPE) < 0)) {
                fail("thread %d round %d: command setup failed", thread, round);
                goto out;
        }
        if (cordon_prepare(cfg, cmd, &plan, &err) < 0) {
                fail("thread %d round %d: prepare: %s", thread, round, cordon_error_message(err));
                goto out;
        }
        /* all THREADS threads call cordon_start at the same moment */
        pthread_barrier_wait(&barrier);
        if (cordon_start(plan, &proc, &err) < 0) {
                fail("thread %d round %d: start: %s", thread, round, cordon_error_message(err));
                goto out;
        }
        atomic_fetch_add(&started_total, 1);
        if (cordon_process_pid(proc) <= 0)
                fail("thread %d round %d: no pid", thread, round);
        if (pipe_it) {
                char out[256];
                int fd = cordon_process_stdio(proc, 1);
                if (fd < 0 || read_all(fd, out, sizeof(out)) < 0)
                        fail("thread %d round %d: cannot read the stdout pipe", thread, round);
                else if (strcmp(out, expect) != 0)
                        fail("thread %d round %d: stdout \"%s\", expected \"%s\"", thread, round, out, expect);
                else
                        atomic_fetch_add(&piped_total, 1);
        }
        cordon_result res;
        int r = cordon_wait(proc, 60000, &res, &err);
        if (r == -ETIMEDOUT)
                fail("thread %d round %d: the sandbox still runs after 60 s", thread, round);
        else if (r < 0)
                fail("thread %d round %d: wait: %s", thread, round, cordon_error_message(err));
        else if (res.status != want || res.exit_code != want || res.signal != 0 || res.timed_out)
                fail("thread %d round %d: status %d (exit %d, signal %d), expected %d", thread, round, res.status,
                     res.exit_code, res.signal, want);
out:
        cordon_process_free(proc);
        cordon_plan_free(plan);
        cordon_command_free(cmd);
        cordon_error_free(err);
}

typedef struct worker_arg {
        const cordon_config *cfg;
        int thread;
} worker_arg;

static void *worker(void *arg)
{
        const worker_arg *w = arg;
        for (int round = 0; round < rounds; round++)
                one_sandbox(w->cfg, w->thread, round);
        return NULL;
}

static int rm_rf(const char *path)
{
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
        return system(cmd);
}

int main(void)
{
        const char *env = getenv("CORDON_THREADS_ROUNDS");
        if (env && atoi(env) > 0)
                rounds = atoi(env);
        if (!mkdtemp(home)) {
                printf("not ok 1 - mkdtemp: %s\n1..1\n", strerror(errno));
                return 1;
        }
        snprintf(workspace, sizeof(workspace), "%s/workspace", home);
        mkdir(workspace, 0700);

        cordon_error *err = NULL;
        cordon_config *cfg = cordon_config_new();
        if (!cfg || cordon_config_set_home(cfg, home, &err) < 0) {
                printf("not ok 1 - config: %s\n1..1\n", cordon_error_message(err));
                return 1;
        }
        /* A control: one sandbox from the main thread, before any thread. */
        {
                const char *argv[] = {"sh", "-c", "exit 7", NULL};
                cordon_command *cmd = cordon_command_new(argv);
                cordon_plan *plan = NULL;
                cordon_result res = {0};
                cordon_command_set_cwd(cmd, workspace);
                int r = cordon_prepare(cfg, cmd, &plan, &err);
                if (r == 0)
                        r = cordon_run(plan, &res, &err);
                bool good = r == 0 && res.status == 7;
                printf("%sok 1 - control: one sandbox from a single-threaded process exits 7\n", good ? "" : "not ");
                if (!good)
                        printf("# %s (status %d)\n", r < 0 ? cordon_error_message(err) : "wrong status", res.status);
                fflush(stdout);
                cordon_plan_free(plan);
                cordon_command_free(cmd);
                err = cordon_error_free(err);
                if (!good) {
                        printf("1..1\n");
                        return 1;
                }
        }

        pthread_barrier_init(&barrier, NULL, THREADS);
        pthread_t wd, ch, th[THREADS];
        worker_arg args[THREADS];
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pthread_create(&wd, NULL, watchdog, NULL);
        pthread_create(&ch, NULL, churn, NULL);
        for (int i = 0; i < THREADS; i++) {
                args[i] = (worker_arg){cfg, i};
                pthread_create(&th[i], NULL, worker, &args[i]);
        }
        for (int i = 0; i < THREADS; i++)
                pthread_join(th[i], NULL);
        atomic_store(&stop_churn, true);
        pthread_join(ch, NULL);
        pthread_mutex_lock(&done_lock);
        done = true;
        pthread_cond_signal(&done_cond);
        pthread_mutex_unlock(&done_lock);
        pthread_join(wd, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);

        int total = THREADS * rounds;
        int f = atomic_load(&failures);
        printf("# %d sandboxes (%d threads x %d rounds) in %.1f s, %d with captured stdout\n", total, THREADS, rounds,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, atomic_load(&piped_total));
        printf("%sok 2 - %d threads x %d rounds of sandboxes, with malloc/stdio/thread churn: every status right\n",
               f ? "not " : "", THREADS, rounds);
        if (f)
                printf("# %d failures\n", f);
        bool all_started = atomic_load(&started_total) == total;
        printf("%sok 3 - every one of the %d sandboxes started (%d)\n", all_started ? "" : "not ", total,
               atomic_load(&started_total));
        printf("1..3\n");
        cordon_config_free(cfg);
        pthread_barrier_destroy(&barrier);
        rm_rf(home);
        return f || !all_started;
}
