/* SPDX-License-Identifier: MIT */
/* The sandbox dies with the thread that started it, and what the run made
 * on the host (a placeholder for a missing protected path; as root, its
 * cgroup) goes with it, within 2 s, while the process lives on:
 *   - a thread starts a sandbox and exits (pthread_exit);
 *   - a thread starts one and is cancelled while it waits for it;
 *   - a thread is cancelled while it starts one (cordon_start is not a
 *     cancellation point: it starts it, then the thread dies);
 *   - ROUNDS threads in a row start one each and exit after a random delay;
 *   - a thread on a stack of the test's own (glibc keeps its TLS there)
 *     starts one and exits, and the stack is unmapped at once: the clean-up
 *     helper, which shares the process's memory, reads nothing of that
 *     thread's (it would fault, and leave the placeholder).
 * The handle stays valid for the rest of the process: cordon_wait and
 * cordon_process_free on it from the main thread find the sandbox dead and
 * clean up what is left (nothing). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cordon.h"
#include "tap.h"

#define ROUNDS 20

static char home[64] = "/tmp/cordon-lifecycle.XXXXXX";
static char workspace[128], protected[192];

/* Processes on the host whose command line holds |marker|. */
static int count_marker(const char *marker)
{
        DIR *d = opendir("/proc");
        int n = 0;
        struct dirent *de;
        while (d && (de = readdir(d))) {
                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                char path[300], cmdline[512];
                snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                ssize_t k = fd >= 0 ? read(fd, cmdline, sizeof(cmdline) - 1) : -1;
                if (fd >= 0)
                        close(fd);
                for (ssize_t i = 0; i < k; i++)
                        if (cmdline[i] == '\0')
                                cmdline[i] = ' ';
                cmdline[k > 0 ? k : 0] = '\0';
                n += strstr(cmdline, marker) != NULL;
        }
        if (d)
                closedir(d);
        return n;
}

/* Is there a cgroup cordon-<our pid>-* (as root on a cgroup host)? */
static bool our_cgroup_exists(void)
{
        char cmd[256];
        snprintf(cmd, sizeof(cmd),
                 "find /sys/fs/cgroup -maxdepth 7 -type d -name 'cordon-%d-*' 2>/dev/null | grep -q .", (int)getpid());
        return system(cmd) == 0;
}

/* Wait up to |ms| for |cond| to hold. */
#define WAIT_FOR(cond, ms)                                                                   \
        ({                                                                                   \
                bool ok_ = false;                                                            \
                for (int t_ = 0; t_ < (ms) / 10 && !(ok_ = (cond)); t_++)                    \
                        nanosleep(&(struct timespec){0, 10000000L}, NULL);                   \
                ok_ || (cond);                                                               \
        })

typedef struct job {
        char marker[32];
        bool with_host_state; /* a protected placeholder, and a cgroup (--pids) */
        int how;              /* HOW_* */
        long delay_us;        /* HOW_EXIT: before exiting */
        bool own_stack;       /* the thread runs on a stack unmapped once it is joined */
        cordon_process *proc; /* set by the thread */
        atomic_int started;
} job;

enum { HOW_EXIT, HOW_CANCEL_IN_WAIT, HOW_CANCEL_IN_START };

static cordon_plan *plan_for(const job *j)
{
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "sleep 1000.%s & exec sleep 1000.%s", j->marker, j->marker);
        const char *argv[] = {"sh", "-c", cmd, NULL};
        cordon_config *c = cordon_config_new();
        cordon_command *command = cordon_command_new(argv);
        cordon_plan *plan = NULL;
        cordon_error *err = NULL;
        int r = c && command ? 0 : -ENOMEM;
        if (r == 0)
                r = cordon_config_set_home(c, home, &err);
        if (r == 0)
                r = cordon_command_set_cwd(command, workspace);
        if (r == 0 && j->with_host_state)
                r = cordon_config_add_protect(c, protected, &err);
        if (r == 0 && j->with_host_state)
                r = cordon_config_set_limit_text(c, CORDON_LIMIT_PIDS, "16", &err);
        if (r == 0 && j->with_host_state && geteuid() != 0)
                r = cordon_config_set_limits_best_effort(c, true);
        if (r == 0)
                r = cordon_prepare(c, command, &plan, &err);
        if (r < 0)
                printf("# prepare: %s\n", err ? cordon_error_message(err) : strerror(-r));
        cordon_error_free(err);
        cordon_command_free(command);
        cordon_config_free(c);
        return plan;
}

static void *starter(void *arg)
{
        job *j = arg;
        cordon_plan *plan = plan_for(j);
        cordon_error *err = NULL;
        if (j->how == HOW_CANCEL_IN_START)
                atomic_store(&j->started, 1); /* the main thread cancels us now */
        if (!plan || cordon_start(plan, &j->proc, &err) < 0) {
                printf("# start: %s\n", err ? cordon_error_message(err) : "no plan");
                j->proc = NULL;
        }
        cordon_error_free(err);
        cordon_plan_free(plan);
        atomic_store(&j->started, 2);
        if (j->how == HOW_CANCEL_IN_START)
                pthread_testcancel();
        if (j->how == HOW_CANCEL_IN_WAIT) {
                cordon_result res;
                cordon_wait(j->proc, -1, &res, NULL); /* cancelled in here */
                printf("# the wait returned\n");
        }
        if (j->delay_us > 0)
                nanosleep(&(struct timespec){0, j->delay_us * 1000}, NULL);
        return NULL;
}

/* Start |j| in a thread, let it die as it says, and check that nothing is
 * left within 2 s. Returns false on a failure. */
static bool run_job(job *j)
{
        pthread_t t;
        pthread_attr_t attr;
        const size_t stack_size = 1 << 20;
        void *stack = j->own_stack ? mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                   : MAP_FAILED;
        pthread_attr_init(&attr);
        if (stack != MAP_FAILED)
                pthread_attr_setstack(&attr, stack, stack_size);
        int created = j->own_stack && stack == MAP_FAILED ? -1 : pthread_create(&t, &attr, starter, j);
        pthread_attr_destroy(&attr);
        if (created != 0)
                return false;
        if (j->how != HOW_EXIT) {
                int want = j->how == HOW_CANCEL_IN_START ? 1 : 2;
                while (atomic_load(&j->started) < want)
                        nanosleep(&(struct timespec){0, 1000000L}, NULL);
                if (j->how == HOW_CANCEL_IN_WAIT) {
                        /* the sandbox runs, and what it made is there */
                        CHECK(WAIT_FOR(count_marker(j->marker) == 2, 2000));
                        if (j->with_host_state) {
                                struct stat st;
                                CHECK(stat(protected, &st) == 0);
                                if (geteuid() == 0)
                                        CHECK(our_cgroup_exists());
                        }
                        nanosleep(&(struct timespec){0, 20000000L}, NULL); /* into the poll */
                }
                pthread_cancel(t);
        }
        pthread_join(t, NULL);
        if (stack != MAP_FAILED)
                munmap(stack, stack_size); /* and with it the thread's TLS */
        bool ok = j->proc != NULL;
        CHECK(j->proc != NULL);
        /* the thread is gone: within 2 s so is everything it started */
        bool gone = WAIT_FOR(count_marker(j->marker) == 0, 2000);
        if (!gone)
                printf("# %d processes of %s left\n", count_marker(j->marker), j->marker);
        CHECK(gone);
        if (j->with_host_state) {
                struct stat st;
                bool removed = WAIT_FOR(stat(protected, &st) < 0 && errno == ENOENT, 2000);
                CHECK(removed);
                bool no_cgroup = WAIT_FOR(!our_cgroup_exists(), 2000);
                CHECK(no_cgroup);
                ok = ok && removed && no_cgroup;
        }
        if (j->proc) {
                /* the handle still works: the init died by SIGKILL */
                cordon_result res = {0};
                CHECK_INTEQ(cordon_wait(j->proc, 5000, &res, NULL), 0);
                CHECK_INTEQ(res.status, 137);
                cordon_process_free(j->proc);
        }
        return ok && gone;
}

static int next_marker;
static void job_init(job *j, int how, bool host_state)
{
        memset(j, 0, sizeof(*j));
        snprintf(j->marker, sizeof(j->marker), "%d%04d", (int)getpid() % 100000, next_marker++);
        j->how = how;
        j->with_host_state = host_state;
}

static void test_thread_exits(void)
{
        job j;
        job_init(&j, HOW_EXIT, false);
        run_job(&j);
}

static void test_thread_exits_with_host_state(void)
{
        job j;
        job_init(&j, HOW_EXIT, true);
        run_job(&j);
}

static void test_thread_cancelled_while_waiting(void)
{
        job j;
        job_init(&j, HOW_CANCEL_IN_WAIT, true);
        run_job(&j);
}

static void test_thread_cancelled_while_starting(void)
{
        job j;
        job_init(&j, HOW_CANCEL_IN_START, true);
        run_job(&j);
}

/* Several rounds: the helper faults only when it runs after the unmap
 * (without a thread control block of its own, one round in three here). */
static void test_thread_on_its_own_stack_exits(void)
{
        int failed = 0;
        for (int i = 0; i < 6 && failed == 0; i++) {
                job j;
                job_init(&j, HOW_EXIT, true);
                j.own_stack = true;
                failed += !run_job(&j);
        }
        CHECK_INTEQ(failed, 0);
}

static void test_threads_exit_at_random_instants(void)
{
        srand((unsigned)time(NULL));
        int failed = 0;
        for (int i = 0; i < ROUNDS && failed < 3; i++) {
                job j;
                job_init(&j, HOW_EXIT, i % 2 == 1);
                j.delay_us = rand() % 5000;
                failed += !run_job(&j);
        }
        CHECK_INTEQ(failed, 0);
}

int main(void)
{
        if (!mkdtemp(home)) {
                printf("not ok 1 - mkdtemp\n1..1\n");
                return 1;
        }
        snprintf(workspace, sizeof(workspace), "%s/workspace", home);
        mkdir(workspace, 0700);
        snprintf(protected, sizeof(protected), "%s/not-there-yet", workspace);
        RUN(test_thread_exits);
        RUN(test_thread_exits_with_host_state);
        RUN(test_thread_cancelled_while_waiting);
        RUN(test_thread_cancelled_while_starting);
        RUN(test_thread_on_its_own_stack_exits);
        RUN(test_threads_exit_at_random_instants);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
        if (system(cmd) != 0)
                printf("# could not remove %s\n", home);
        return TAP_DONE();
}
