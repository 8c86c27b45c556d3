/* SPDX-License-Identifier: MIT */
/* The windows backend (src/core/backend.h): the plan's rules (render.c)
 * checked, the instance's directories made, the environment block built,
 * then launch.c starts the command in its job. Win32; Windows build only. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <math.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "windows/launch.h"
#include "windows/render.h"

struct cordon_process {
        process_head head;
        win_child child;
        double started, wall_limit, cpu_limit;
        bool reaped;
        cordon_result result;
};

static int refuse_unenforceable(const cordon_plan *p, cordon_error **e)
{
        _cleanup_strv_ char **refused = win_plan_refusals(p);
        if (!refused)
                return error_set(e, ENOMEM, "out of memory");
        if (refused[0])
                return error_set(e, ENOTSUP, "windows backend: %s", refused[0]);
        return 0;
}

/* mkdir for one directory of the instance; an existing one must be a
 * directory, not a reparse point (the command may have left a junction). */
static int make_dir(const char *path, cordon_error **e)
{
        _cleanup_free_ wchar_t *w = win_wide(path);
        if (!w)
                return error_set(e, EILSEQ, "windows backend: %s: not valid UTF-8", path);
        if (CreateDirectoryW(w, NULL))
                return 0;
        DWORD err = GetLastError();
        DWORD a = GetFileAttributesW(w);
        if (err == ERROR_ALREADY_EXISTS && a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) &&
            !(a & FILE_ATTRIBUTE_REPARSE_POINT))
                return 0;
        if (err == ERROR_ALREADY_EXISTS)
                return error_set(e, ENOTDIR, "windows backend: %s is not a plain directory (a file, symlink or "
                                             "junction): move it away", path);
        return error_set(e, win_errno(err), "windows backend: cannot create the directory %s (Windows error %lu)",
                         path, (unsigned long)err);
}

static int make_instance(const cordon_plan *p, cordon_error **e)
{
        static const char *const DIRS[] = {"skills", "logs", "cache", "state", NULL};
        int r = make_dir(p->instance_root, e);
        for (size_t i = 0; r == 0 && DIRS[i]; i++) {
                _cleanup_free_ char *d = win_path_join(p->instance_root, DIRS[i]);
                r = d ? make_dir(d, e) : error_set(e, ENOMEM, "out of memory");
        }
        for (size_t i = 0; r == 0 && WIN_USER_ENV_DIRS[i]; i++) {
                _cleanup_free_ char *d = win_path_join(p->instance_root, WIN_USER_ENV_DIRS[i]);
                r = d ? make_dir(d, e) : error_set(e, ENOMEM, "out of memory");
        }
        return r == 0 && p->workspace ? make_dir(p->workspace, e) : r;
}

/* The plan's stdio (descriptors or CORDON_STDIO_*) as handles. */
static int stdio_handles(const cordon_plan *p, HANDLE h[3], cordon_error **e)
{
        static const DWORD STD[3] = {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE};
        for (int i = 0; i < 3; i++) {
                int fd = p->stdio[i];
                if (fd == CORDON_STDIO_INHERIT)
                        h[i] = GetStdHandle(STD[i]);
                else if (fd >= 0)
                        h[i] = (HANDLE)_get_osfhandle(fd);
                else if (fd == CORDON_STDIO_NULL)
                        h[i] = NULL;
                else
                        return error_set(e, ENOTSUP, "windows backend: CORDON_STDIO_PIPE is not supported yet: "
                                                     "pass a descriptor of your own pipe");
        }
        return 0;
}

/* --log-plan: the plan with its "windows isolation access rules", to the
 * log callback, before anything is changed. */
static void log_plan(const cordon_plan *p)
{
        _cleanup_free_ char *text = p->log_plan && p->log_fn ? cordon_plan_to_text(p) : NULL;
        if (text)
                p->log_fn(CORDON_LOG_INFO, text, p->log_userdata);
}

static int start(const cordon_plan *p, cordon_process **ret_proc, cordon_error **ret_error)
{
        log_plan(p);
        bool isolated = p->backend != BACKEND_NONE;
        win_rules rules = {0};
        _cleanup_free_ char *why = NULL;
        _cleanup_strv_ char **env = NULL;
        int r = isolated ? refuse_unenforceable(p, ret_error) : 0;
        if (r < 0)
                return r;
        if (isolated && (r = win_plan_rules(p, &rules, &why)) < 0)
                return r == -EINVAL ? error_set(ret_error, EINVAL, "windows backend: %s", why)
                                    : error_set(ret_error, -r, "out of memory");
        win_env_input in = {.instance_root = isolated ? p->instance_root : NULL,
                            .network_disabled = p->network != CORDON_NETWORK_FULL,
                            .markers = isolated};
        win_spec s = {.exe = p->exe, .argv = p->argv, .cwd = p->cwd,
                      .instance_root = isolated ? p->instance_root : NULL, .rules = isolated ? &rules : NULL,
                      .memory_bytes = (uint64_t)p->limits[CORDON_LIMIT_MEMORY_BYTES],
                      .processes = (uint32_t)p->limits[CORDON_LIMIT_PIDS],
                      .cpu_time_s = p->limits[CORDON_LIMIT_CPU_TIME_S]};
        if ((isolated && (r = make_instance(p, ret_error)) < 0) || (r = stdio_handles(p, s.stdio, ret_error)) < 0 ||
            (r = win_env_build(p->env, &in, &env)) < 0) {
                win_rules_clear(&rules);
                return r == -ENOMEM ? error_set(ret_error, ENOMEM, "out of memory") : r;
        }
        s.env = env;
        cordon_process *proc = calloc(1, sizeof(*proc));
        if (!proc) {
                win_rules_clear(&rules);
                return error_set(ret_error, ENOMEM, "out of memory");
        }
        process_head_init(&proc->head, &windows_backend_ops);
        proc->wall_limit = p->limits[CORDON_LIMIT_WALL_TIME_S];
        proc->cpu_limit = p->limits[CORDON_LIMIT_CPU_TIME_S];
        proc->started = monotonic_s();
        r = win_spawn(&s, &proc->child, ret_error);
        win_rules_clear(&rules);
        if (r < 0) {
                process_head_close(&proc->head);
                free(proc);
                return r;
        }
        proc->head.pid = (pid_t)proc->child.pid;
        *ret_proc = proc;
        return 0;
}

/* The job's accounting: CPU time of every process it had, peak memory. */
static void fill_result(cordon_process *p, DWORD code, bool timed_out)
{
        cordon_result *res = &p->result;
        res->wall_s = monotonic_s() - p->started;
        JOBOBJECT_BASIC_AND_IO_ACCOUNTING_INFORMATION acc;
        if (QueryInformationJobObject(p->child.job, JobObjectBasicAndIoAccountingInformation, &acc, sizeof(acc), NULL)) {
                res->user_s = (double)acc.BasicInfo.TotalUserTime.QuadPart / 1e7;
                res->sys_s = (double)acc.BasicInfo.TotalKernelTime.QuadPart / 1e7;
        }
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
        if (QueryInformationJobObject(p->child.job, JobObjectExtendedLimitInformation, &li, sizeof(li), NULL))
                res->max_rss_bytes = li.PeakJobMemoryUsed;
        res->exit_code = (int)code;
        res->status = (int)code;
        res->timed_out = timed_out;
        /* the job's user time limit ends every process with this code */
        res->cpu_limited = p->cpu_limit > 0 && code == ERROR_NOT_ENOUGH_QUOTA;
        if (timed_out)
                res->status = 124;
}

static int wait_command(cordon_process *p, int timeout_ms, cordon_result *ret_result, cordon_error **ret_error)
{
        while (!p->reaped) {
                double now = monotonic_s();
                double wall_left = p->wall_limit > 0 ? p->started + p->wall_limit - now : INFINITY;
                double caller_left = timeout_ms < 0 ? INFINITY : timeout_ms / 1000.0;
                double left = fmin(wall_left, caller_left);
                DWORD ms = isinf(left) ? INFINITE : (DWORD)(fmax(left, 0) * 1000);
                DWORD w = WaitForSingleObject(p->child.process, ms);
                if (w == WAIT_TIMEOUT && wall_left <= caller_left) {
                        DWORD code = 0;
                        bool timed_out = false;
                        int r = win_wait(&p->child, 0, &code, &timed_out, ret_error);
                        if (r < 0)
                                return r;
                        p->reaped = true;
                        fill_result(p, code, true);
                        break;
                }
                if (w == WAIT_TIMEOUT)
                        return -ETIMEDOUT;
                DWORD code = 0;
                bool timed_out = false;
                int r = win_wait(&p->child, INFINITE, &code, &timed_out, ret_error);
                if (r < 0)
                        return r;
                p->reaped = true;
                fill_result(p, code, false);
        }
        if (ret_result)
                *ret_result = p->result;
        return 0;
}

/* Windows has no signals: every "signal" ends the job, with 128+N as the
 * status, as a signal would on Linux. */
static int kill_job(cordon_process *p, int sig)
{
        if (p->reaped)
                return -ESRCH;
        return win_kill(&p->child, 128 + (UINT)sig);
}

static void free_process(cordon_process *p)
{
        if (!p->reaped)
                win_kill(&p->child, 137);
        win_child_close(&p->child);
        process_head_close(&p->head);
        free(p);
}

const backend_ops windows_backend_ops = {
        .name = "windows",
        .start = start,
        .wait = wait_command,
        .kill = kill_job,
        .signal_command = kill_job,
        .free = free_process,
};
