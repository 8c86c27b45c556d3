/* SPDX-License-Identifier: MIT */
/* `cordon check` runs what `cordon run` runs (check.c reports it): the
 * plan a run would get here from the same config, for a command at "/",
 * without what a run makes on the host (the instance and the workspace,
 * the protected paths' placeholders, the prepared /etc, cgroups), started
 * by the backend's own code (linux_trial_start) in a throwaway sandbox
 * whose executable does not exist: each step of the run up to the execve,
 * in the run's order, on this host. The steps a run goes without here
 * (plan_degraded) are the plan's. */
#include "check-run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "host.h"
#include "process.h"

/* Nothing the command could create: the new root is empty and read-only,
 * on the landlock backend "/" is the host's, where no one puts it. */
#define NO_SUCH_EXE "/.cordon-check-no-such-executable"

/* The steps of each backend as `cordon check` names them, in the run's
 * order, and the child steps (launch.h) each takes. */
typedef struct step_group {
        const char *name;
        child_step steps[12];
} step_group;

static const step_group LINUX_STEPS[] = {
        {"preparing the launch", {STEP_NONE}},
        {"user namespace", {STEP_CLONE}},
        {"uid/gid maps", {STEP_ID_MAPS, STEP_SYNC}},
        {"cgroup and network namespaces", {STEP_IDENTITY, STEP_NETNS}},
        {"hostname", {STEP_HOSTNAME}},
        {"pivot_root", {STEP_PRIVATE, STEP_ROOT, STEP_PIVOT}},
        {"mounts", {STEP_MOUNTPOINT, STEP_OPEN_SOURCE, STEP_SOURCE_CHANGED, STEP_BIND, STEP_READONLY, STEP_TMPFS,
                    STEP_DEV, STEP_SYMLINK, STEP_FILE, STEP_DETACH_OLDROOT, STEP_MOUNTPOINT_CHANGED,
                    STEP_PLACEHOLDERS}},
        {"a fresh /proc", {STEP_PROC, STEP_PROC_HARDEN}},
        {"loopback", {STEP_LOOPBACK, STEP_PROXY}},
        {"the command's process", {STEP_FORK, STEP_STDIO, STEP_PTY, STEP_CHDIR, STEP_RLIMIT, STEP_KEYRING}},
        {"capabilities, no_new_privs", {STEP_CAPS, STEP_NO_NEW_PRIVS}},
        {"Landlock", {STEP_LANDLOCK}},
        {"seccomp", {STEP_SECCOMP}},
};

static const step_group LANDLOCK_STEPS[] = {
        {"preparing the launch", {STEP_NONE}},
        {"starting the supervisor", {STEP_CLONE, STEP_SYNC}},
        {"the process tree's supervisor", {STEP_SUBREAPER}},
        {"the command's process", {STEP_FORK, STEP_STDIO, STEP_PTY, STEP_CHDIR, STEP_RLIMIT, STEP_KEYRING}},
        {"sandbox user", {STEP_IDENTITY}},
        {"capabilities, no_new_privs", {STEP_CAPS, STEP_NO_NEW_PRIVS}},
        {"Landlock", {STEP_LANDLOCK}},
        {"seccomp", {STEP_SECCOMP}},
        {"call supervisor", {STEP_SUPERVISE}},
        {"connect", {STEP_NONE}}, /* no step of the start: the plan's degraded note names it */
};

static bool group_has(const step_group *g, child_step s)
{
        for (size_t i = 0; i < ARRAY_SIZE(g->steps); i++)
                if (g->steps[i] == s && (i == 0 || s != STEP_NONE))
                        return true;
        return false;
}

/* The index of the group that takes |s|, or the first one's. */
static size_t group_of(const step_group *gs, size_t n, child_step s)
{
        for (size_t i = 0; i < n; i++)
                if (group_has(&gs[i], s))
                        return i;
        return 0;
}

/* Drops what a run makes or needs on the host before it starts, and
 * points the command at nothing. */
static int trial_plan(cordon_plan *p)
{
        size_t k = 0;
        for (size_t i = 0; i < p->n_mounts; i++) {
                plan_mount *m = &p->mounts[i];
                bool host_made = m->origin == ORIGIN_INSTANCE || m->origin == ORIGIN_WORKSPACE ||
                                 m->origin == ORIGIN_PROTECT || m->origin == ORIGIN_CWD || m->origin == ORIGIN_ARG;
                if (host_made)
                        plan_mount_clear(m);
                else
                        p->mounts[k++] = *m;
        }
        p->n_mounts = k;
        p->debug_etc_binds = true; /* no prepared /etc in the instance */
        p->log_plan = false;
        p->exe_untrusted = false;
        free(p->exe);
        p->exe = strdup(NO_SUCH_EXE);
        return p->exe ? 0 : -ENOMEM;
}

/* Without the fresh /proc (what the kernel refuses in many containers), to
 * learn whether the steps after it would pass. */
static void drop_proc(cordon_plan *p)
{
        size_t k = 0;
        for (size_t i = 0; i < p->n_mounts; i++) {
                plan_mount *m = &p->mounts[i];
                if (m->type == MOUNT_PROC || path_startswith(m->target, "/proc"))
                        plan_mount_clear(m);
                else
                        p->mounts[k++] = *m;
        }
        p->n_mounts = k;
}

/* The plan of a run of |c| on |backend| here, for the trial. */
static int plan_for(const cordon_config *c, const char *backend, cordon_plan **ret, cordon_error **ret_error)
{
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n <= 0)
                return error_set(ret_error, errno ? errno : EIO, "cannot read /proc/self/exe: %s", strerror(errno));
        exe[n] = '\0';
        cordon_config *defaults = c ? NULL : cordon_config_new(); /* NULL: the defaults */
        if (!c && !(c = defaults))
                return error_set(ret_error, ENOMEM, "out of memory");
        cordon_config trial = *c; /* shallow: plan_build only reads it */
        trial.backend = (char *)backend;
        trial.enabled = true;
        trial.log_fn = NULL;
        trial.log_plan = false;
        trial.limits[CORDON_LIMIT_PIDS] = trial.limits[CORDON_LIMIT_MEMORY_BYTES] =
                trial.limits[CORDON_LIMIT_CPU_QUOTA] = 0; /* cgroups: check's own lines */
        char *argv[] = {exe, NULL};
        cordon_command cmd = {.argv = argv,
                              .cwd = (char *)"/",
                              .stdio = {CORDON_STDIO_NULL, CORDON_STDIO_NULL, CORDON_STDIO_NULL},
                              .pty = CORDON_PTY_OFF};
        int r = cordon_prepare(&trial, &cmd, ret, ret_error);
        cordon_config_free(defaults);
        if (r == 0 && trial_plan(*ret) < 0) {
                *ret = cordon_plan_free(*ret);
                r = error_set(ret_error, ENOMEM, "out of memory");
        }
        return r;
}

static void result_set(check_step_result *res, check_state state, int err, char *detail)
{
        res->state = state;
        res->err = err;
        free(res->detail);
        res->detail = detail;
}

/* One start: the groups before the one it stopped at passed (from
 * |first| on), that one failed, those after were not reached. */
static void record_start(check_run *run, const step_group *gs, size_t first, int r, const child_report *rep,
                         cordon_error *e)
{
        bool reached_exec = rep->step == STEP_EXEC && (rep->err == ENOENT || rep->err == EACCES);
        size_t failed = r == 0 || reached_exec ? run->n : group_of(gs, run->n, (child_step)rep->step);
        for (size_t i = first; i < run->n; i++) {
                check_step_result *res = &run->steps[i];
                if (res->state == CHECK_WITHOUT)
                        continue;
                if (i < failed)
                        result_set(res, CHECK_OK, 0, NULL);
                else if (i == failed)
                        result_set(res, CHECK_FAILED, rep->err, xstrdup(cordon_error_message(e)));
                else
                        result_set(res, CHECK_NOT_TRIED, 0, NULL);
        }
        if (failed < run->n && run->failed < 0)
                run->failed = (int)failed;
}

int check_run_backend(const cordon_config *c, const char *backend, check_run *run)
{
        *run = (check_run){.failed = -1};
        bool linux_backend = streq(backend, "linux");
        const step_group *gs = linux_backend ? LINUX_STEPS : LANDLOCK_STEPS;
        run->n = linux_backend ? ARRAY_SIZE(LINUX_STEPS) : ARRAY_SIZE(LANDLOCK_STEPS);
        for (size_t i = 0; i < run->n; i++)
                run->steps[i] = (check_step_result){.name = gs[i].name, .state = CHECK_NOT_TRIED};
        cordon_error *e = NULL;
        cordon_plan *p = NULL;
        int r = plan_for(c, backend, &p, &e);
        if (r < 0) {
                record_start(run, gs, 0, r, &(child_report){.step = STEP_NONE, .err = -r}, e);
                cordon_error_free(e);
                return r == -ENOMEM ? r : 0;
        }
        run->sandbox_user = p->sandbox_user;
        for (size_t i = 0; i < p->n_degraded; i++)
                for (size_t g = 0; g < run->n; g++)
                        if (streq(run->steps[g].name, p->degraded[i].step))
                                result_set(&run->steps[g], CHECK_WITHOUT, 0, xstrdup(p->degraded[i].why));
        child_report rep;
        r = linux_trial_start(p, &rep, &e);
        record_start(run, gs, 0, r, &rep, e);
        cordon_error_free(e);
        e = NULL;
        /* /proc refused: does the rest pass? (the verdict stays "cannot") */
        size_t proc = linux_backend ? group_of(gs, run->n, STEP_PROC) : run->n;
        if (run->failed == (int)proc) {
                drop_proc(p);
                r = linux_trial_start(p, &rep, &e);
                record_start(run, gs, proc + 1, r, &rep, e);
                cordon_error_free(e);
        }
        cordon_plan_free(p);
        return 0;
}

void check_run_free(check_run *run)
{
        for (size_t i = 0; i < run->n; i++)
                free(run->steps[i].detail);
        *run = (check_run){.failed = -1};
}
