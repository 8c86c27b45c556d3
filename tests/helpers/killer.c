/* SPDX-License-Identifier: MIT */
/* Fault injection for the launcher's lifecycle (tests/integration/lifecycle.sh,
 * bench/lifecycle): start a command, send it a signal after a random delay,
 * and check that nothing it started outlives it.
 *
 *   killer SIG MAX_US SEED GRACE_MS -- CMD [ARGS...]
 *
 * The delay is MAX_US * u^3 for a u uniform in [0, 1) drawn from SEED (or
 * exactly N microseconds for a MAX_US of "=N"), so
 * most kills land in the first milliseconds (planning, clone, id maps,
 * cgroup, mounts) and some while the command runs. The killer is a child
 * subreaper: whatever the command leaves behind when it dies (an init whose
 * launcher is gone, a helper) is reparented to it, so "nothing survives"
 * is exactly "no child left". It waits GRACE_MS after the signal for the
 * command and every orphan to end, then prints one line:
 *
 *   pid PID delay_us US status STATUS leaked N
 *
 * (STATUS as a shell's $?), one "leak: PID COMM CMDLINE" line per survivor
 * (which it then kills, unless KILLER_KEEP_LEAKS=1 is set: then they are
 * left running, for the caller to look at and kill), and exits 1 when
 * anything survived, else 0. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_us(long us)
{
        struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

/* Our children's pids, from /proc/self/task/TID/children (every thread). */
static int children(pid_t *out, int max)
{
        int n = 0;
        DIR *d = opendir("/proc/self/task");
        struct dirent *e;
        while (d && (e = readdir(d)) && n < max) {
                if (e->d_name[0] == '.')
                        continue;
                char path[300];
                snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
                FILE *f = fopen(path, "re");
                int pid;
                while (f && n < max && fscanf(f, "%d", &pid) == 1)
                        out[n++] = pid;
                if (f)
                        fclose(f);
        }
        if (d)
                closedir(d);
        return n;
}

static void describe(pid_t pid)
{
        char path[64], comm[64] = "?", cmd[512] = "";
        snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
        FILE *f = fopen(path, "re");
        if (f && fgets(comm, sizeof(comm), f))
                comm[strcspn(comm, "\n")] = '\0';
        if (f)
                fclose(f);
        snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, cmd, sizeof(cmd) - 1) : -1;
        if (fd >= 0)
                close(fd);
        for (ssize_t i = 0; i < n; i++)
                if (cmd[i] == '\0')
                        cmd[i] = ' ';
        cmd[n > 0 ? n : 0] = '\0';
        printf("leak: %d %s %s\n", (int)pid, comm, cmd);
}

int main(int argc, char **argv)
{
        if (argc < 7 || strcmp(argv[5], "--") != 0) {
                fprintf(stderr, "usage: killer SIG MAX_US SEED GRACE_MS -- CMD [ARGS...]\n");
                return 2;
        }
        int sig = atoi(argv[1]);
        long max_us = atol(argv[2]);
        srand48(atol(argv[3]));
        double grace = atof(argv[4]);
        double u = drand48();
        long delay = argv[2][0] == '=' ? atol(argv[2] + 1) : (long)((double)max_us * u * u * u);
        /* The command starts as from a terminal, with the default
         * dispositions (a shell's background job has SIGINT and SIGQUIT
         * ignored): set before the fork, a kill at once is not lost. */
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
                perror("killer: PR_SET_CHILD_SUBREAPER");
                return 2;
        }
        pid_t pid = fork();
        if (pid < 0) {
                perror("killer: fork");
                return 2;
        }
        if (pid == 0) {
                execvp(argv[6], argv + 6);
                perror("killer: exec");
                _exit(127);
        }
        sleep_us(delay);
        kill(pid, sig);
        double until = now_ms() + grace;
        int status = -1, ws;
        pid_t kids[256];
        int n = 0;
        for (;;) {
                pid_t r;
                while ((r = waitpid(-1, &ws, WNOHANG)) > 0)
                        if (r == pid)
                                status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
                n = children(kids, 256);
                if (n == 0 && status >= 0)
                        break;
                if (now_ms() >= until)
                        break;
                sleep_us(2000);
        }
        printf("pid %d delay_us %ld status %d leaked %d\n", (int)pid, delay, status, n);
        for (int i = 0; i < n; i++)
                describe(kids[i]);
        fflush(stdout);
        const char *keep = getenv("KILLER_KEEP_LEAKS");
        if (keep && strcmp(keep, "1") == 0)
                return n > 0 ? 1 : 0;
        for (int i = 0; i < n; i++)
                kill(kids[i], SIGKILL);
        while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
                ;
        return n > 0 ? 1 : 0;
}
