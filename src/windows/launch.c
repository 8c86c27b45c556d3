/* SPDX-License-Identifier: MIT */
/* The windows backend's launcher. Order, and why:
 *  1. the job object and its limits, before any process exists, and the
 *     access rules (acl.c);
 *  2. the token: the caller's, write-restricted to the instance SID, every
 *     privilege removed, low integrity, a default DACL the command can use;
 *  3. the process, CREATE_SUSPENDED: its first thread has run no
 *     instruction (not even the loader's), inheriting only the stdio
 *     handles (PROC_THREAD_ATTRIBUTE_HANDLE_LIST);
 *  4. AssignProcessToJobObject: from here on it and every process it
 *     creates are in the job (no breakaway is allowed);
 *  5. ResumeThread.
 * A failure after 3 terminates the process before 5: it never ran. The job
 * handle stays with the launcher only: when the launcher dies, the handle
 * closes and KILL_ON_JOB_CLOSE ends the command's whole tree. */
#include "windows/launch.h"

#include <errno.h>
#include <sddl.h>
#include <string.h>

int win_errno(DWORD err)
{
        switch (err) {
        case ERROR_FILE_NOT_FOUND:
        case ERROR_PATH_NOT_FOUND:
        case ERROR_INVALID_NAME: return ENOENT;
        case ERROR_ACCESS_DENIED: return EACCES;
        case ERROR_PRIVILEGE_NOT_HELD: return EPERM;
        case ERROR_NOT_ENOUGH_MEMORY:
        case ERROR_OUTOFMEMORY: return ENOMEM;
        case ERROR_BAD_EXE_FORMAT: return ENOEXEC;
        case ERROR_INVALID_PARAMETER: return EINVAL;
        case ERROR_NOT_SUPPORTED:
        case ERROR_CALL_NOT_IMPLEMENTED: return ENOSYS;
        default: return EIO;
        }
}

wchar_t *win_wide(const char *s)
{
        uint16_t *w = NULL;
        size_t n = 0;
        if (!s || win_utf16(s, strlen(s), &w, &n) < 0)
                return NULL;
        return (wchar_t *)w;
}

/* The step that failed, GetLastError()'s code and text, and what to do. */
static int fail(cordon_error **e, const char *step, const char *fix)
{
        DWORD err = GetLastError();
        char text[256] = "";
        DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, err, 0, text,
                                 sizeof(text), NULL);
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ' || text[n - 1] == '.'))
                text[--n] = '\0';
        return error_set(e, win_errno(err), "windows backend: %s: %s (Windows error %lu)%s%s", step,
                         n ? text : "failed", (unsigned long)err, fix ? "; " : "", fix ? fix : "");
}

static void close_handle(HANDLE *h)
{
        if (*h && *h != INVALID_HANDLE_VALUE)
                CloseHandle(*h);
        *h = NULL;
}

static void local_freep(void *p)
{
        if (*(HLOCAL *)p)
                LocalFree(*(HLOCAL *)p);
}
#define _cleanup_local_ _cleanup_(local_freep)
#define _cleanup_handle_ _cleanup_(close_handle)

/* ---- 1. the job ---- */

static int make_job(const win_spec *s, HANDLE *ret, cordon_error **e)
{
        _cleanup_handle_ HANDLE job = CreateJobObjectW(NULL, NULL);
        if (!job)
                return fail(e, "CreateJobObject", NULL);
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
        /* neither BREAKAWAY_OK nor SILENT_BREAKAWAY_OK: no process leaves */
        DWORD flags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
        if (s->processes) {
                flags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
                li.BasicLimitInformation.ActiveProcessLimit = s->processes;
        }
        if (s->memory_bytes) {
                flags |= JOB_OBJECT_LIMIT_JOB_MEMORY;
                li.JobMemoryLimit = (SIZE_T)s->memory_bytes;
        }
        if (s->cpu_time_s > 0) {
                flags |= JOB_OBJECT_LIMIT_JOB_TIME; /* 100 ns units */
                li.BasicLimitInformation.PerJobUserTimeLimit.QuadPart = (LONGLONG)(s->cpu_time_s * 1e7);
        }
        li.BasicLimitInformation.LimitFlags = flags;
        if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li)))
                return fail(e, "SetInformationJobObject (limits)", "drop --pids/--memory/--cpu-time to find the one refused");
        /* No clipboard, no other desktop, no global atoms, no handles of
         * other processes' windows, no system-wide settings, no log-off. */
        JOBOBJECT_BASIC_UI_RESTRICTIONS ui = {
                JOB_OBJECT_UILIMIT_DESKTOP | JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | JOB_OBJECT_UILIMIT_EXITWINDOWS |
                JOB_OBJECT_UILIMIT_GLOBALATOMS | JOB_OBJECT_UILIMIT_HANDLES | JOB_OBJECT_UILIMIT_READCLIPBOARD |
                JOB_OBJECT_UILIMIT_WRITECLIPBOARD | JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS};
        if (!SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof(ui)))
                return fail(e, "SetInformationJobObject (UI restrictions)", NULL);
        *ret = job;
        job = NULL;
        return 0;
}

/* ---- 2. the token ---- */

/* The token's privileges (caller frees), or NULL. */
static TOKEN_PRIVILEGES *token_privileges(HANDLE tok)
{
        DWORD len = 0;
        GetTokenInformation(tok, TokenPrivileges, NULL, 0, &len);
        TOKEN_PRIVILEGES *tp = len ? malloc(len) : NULL;
        if (tp && !GetTokenInformation(tok, TokenPrivileges, tp, len, &len)) {
                free(tp);
                return NULL;
        }
        return tp;
}

static int set_low_integrity(HANDLE tok, cordon_error **e)
{
        _cleanup_local_ PSID low = NULL;
        if (!ConvertStringSidToSidA(WIN_SID_LOW_INTEGRITY, &low))
                return fail(e, "ConvertStringSidToSid (low integrity)", NULL);
        TOKEN_MANDATORY_LABEL tml = {{low, SE_GROUP_INTEGRITY}};
        if (!SetTokenInformation(tok, TokenIntegrityLevel, &tml, sizeof(tml) + GetLengthSid(low)))
                return fail(e, "SetTokenInformation (low integrity level)", NULL);
        return 0;
}

/* What the command creates (its own pipes, events, threads) is writable
 * to it: the owner, SYSTEM and the instance SID get full access. */
static int set_default_dacl(HANDLE tok, const char *sid, cordon_error **e)
{
        _cleanup_free_ char *sddl = xasprintf("D:(A;;GA;;;OW)(A;;GA;;;SY)(A;;GA;;;%s)", sid);
        _cleanup_local_ PSECURITY_DESCRIPTOR sd = NULL;
        if (!sddl)
                return error_set(e, ENOMEM, "out of memory");
        if (!ConvertStringSecurityDescriptorToSecurityDescriptorA(sddl, SDDL_REVISION_1, &sd, NULL))
                return fail(e, "ConvertStringSecurityDescriptorToSecurityDescriptor (default DACL)", NULL);
        BOOL present = FALSE, defaulted = FALSE;
        PACL dacl = NULL;
        if (!GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted))
                return fail(e, "GetSecurityDescriptorDacl", NULL);
        TOKEN_DEFAULT_DACL tdd = {dacl};
        if (!SetTokenInformation(tok, TokenDefaultDacl, &tdd, sizeof(tdd)))
                return fail(e, "SetTokenInformation (default DACL)", NULL);
        return 0;
}

static int make_token(const char *instance_root, HANDLE *ret, cordon_error **e)
{
        _cleanup_handle_ HANDLE self = NULL;
        if (!OpenProcessToken(GetCurrentProcess(),
                              TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY | TOKEN_ADJUST_DEFAULT, &self))
                return fail(e, "OpenProcessToken", NULL);
        _cleanup_free_ TOKEN_PRIVILEGES *tp = token_privileges(self);
        if (!tp)
                return fail(e, "GetTokenInformation (privileges)", NULL);
        int r;
        _cleanup_free_ char *sid_text = win_instance_sid(instance_root);
        _cleanup_local_ PSID sid = NULL;
        if (!sid_text)
                return error_set(e, ENOMEM, "out of memory");
        if (!ConvertStringSidToSidA(sid_text, &sid))
                return fail(e, "ConvertStringSidToSid (instance SID)", NULL);
        SID_AND_ATTRIBUTES restricting = {sid, 0};
        _cleanup_handle_ HANDLE tok = NULL;
        /* WRITE_RESTRICTED: the restricting SID is checked for write access
         * only; every privilege the caller holds is deleted */
        if (!CreateRestrictedToken(self, WRITE_RESTRICTED, 0, NULL, tp->PrivilegeCount, tp->Privileges, 1,
                                   &restricting, &tok))
                return fail(e, "CreateRestrictedToken", NULL);
        if ((r = set_low_integrity(tok, e)) < 0 || (r = set_default_dacl(tok, sid_text, e)) < 0)
                return r;
        *ret = tok;
        tok = NULL;
        return 0;
}

/* ---- 3. the process ---- */

typedef struct startup {
        STARTUPINFOEXW si;
        HANDLE inherit[3];
        DWORD n_inherit;
} startup;

static void startup_clear(startup *st)
{
        for (DWORD i = 0; i < st->n_inherit; i++)
                close_handle(&st->inherit[i]);
        if (st->si.lpAttributeList) {
                DeleteProcThreadAttributeList(st->si.lpAttributeList);
                free(st->si.lpAttributeList);
        }
        *st = (startup){0};
}

/* Inheritable duplicates of the stdio handles (the caller's stay as they
 * are), and the list that lets the child inherit those and nothing else. */
static int startup_init(startup *st, const HANDLE stdio[3], cordon_error **e)
{
        HANDLE *slot[3] = {&st->si.StartupInfo.hStdInput, &st->si.StartupInfo.hStdOutput,
                           &st->si.StartupInfo.hStdError};
        st->si.StartupInfo.cb = sizeof(st->si);
        st->si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
        for (int i = 0; i < 3; i++) {
                if (!stdio[i] || stdio[i] == INVALID_HANDLE_VALUE)
                        continue;
                HANDLE d = NULL;
                if (!DuplicateHandle(GetCurrentProcess(), stdio[i], GetCurrentProcess(), &d, 0, TRUE,
                                     DUPLICATE_SAME_ACCESS))
                        return fail(e, "DuplicateHandle (stdio)", NULL);
                *slot[i] = st->inherit[st->n_inherit++] = d;
        }
        if (!st->n_inherit)
                return 0;
        SIZE_T size = 0;
        InitializeProcThreadAttributeList(NULL, 1, 0, &size);
        st->si.lpAttributeList = malloc(size);
        if (!st->si.lpAttributeList)
                return error_set(e, ENOMEM, "out of memory");
        if (!InitializeProcThreadAttributeList(st->si.lpAttributeList, 1, 0, &size)) {
                free(st->si.lpAttributeList);
                st->si.lpAttributeList = NULL;
                return fail(e, "InitializeProcThreadAttributeList", NULL);
        }
        if (!UpdateProcThreadAttribute(st->si.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, st->inherit,
                                       st->n_inherit * sizeof(HANDLE), NULL, NULL))
                return fail(e, "UpdateProcThreadAttribute (handle list)", NULL);
        return 0;
}

/* The application and command line: a batch file runs under cmd.exe, by
 * its full path in the system directory (never %COMSPEC%). */
static int command_line(const win_spec *s, char **ret_app, char **ret_line, cordon_error **e)
{
        const char *why = NULL;
        int r;
        if (!win_is_batch(s->exe)) {
                if ((r = win_cmdline(s->argv, ret_line, &why)) == -EINVAL)
                        return error_set(e, EINVAL, "windows backend: command line: %s", why);
                if (r < 0)
                        return error_set(e, -r, "out of memory");
                *ret_app = xstrdup(s->exe);
                return *ret_app ? 0 : error_set(e, ENOMEM, "out of memory");
        }
        char sys[MAX_PATH];
        UINT n = GetSystemDirectoryA(sys, sizeof(sys));
        if (!n || n >= sizeof(sys))
                return fail(e, "GetSystemDirectory (for cmd.exe)", NULL);
        _cleanup_free_ char *cmd = xasprintf("%s\\cmd.exe", sys);
        if (!cmd)
                return error_set(e, ENOMEM, "out of memory");
        r = win_cmdline_batch(cmd, s->exe, s->argv, ret_line, &why);
        if (r == -EINVAL)
                return error_set(e, EINVAL,
                                 "windows backend: batch file %s: an argument %s; cordon refuses what cmd.exe "
                                 "would parse as more than text (CVE-2024-24576): run a program (.exe) instead, "
                                 "or pass the value in the environment (--env)", s->exe, why);
        if (r < 0)
                return error_set(e, -r, "out of memory");
        *ret_app = TAKE_PTR(cmd);
        return 0;
}

typedef struct wide_args {
        wchar_t *app, *line, *cwd, *env;
} wide_args;

static void wide_args_clear(wide_args *w)
{
        free(w->app);
        free(w->line);
        free(w->cwd);
        free(w->env);
}

static int wide_args_init(const win_spec *s, wide_args *w, cordon_error **e)
{
        _cleanup_free_ char *app = NULL, *line = NULL, *block = NULL;
        int r = command_line(s, &app, &line, e);
        if (r < 0)
                return r;
        size_t len = 0, units = 0;
        if (!(block = win_env_block(s->env, &len)))
                return error_set(e, ENOMEM, "out of memory");
        w->app = win_wide(app);
        w->line = win_wide(line);
        w->cwd = s->cwd ? win_wide(s->cwd) : NULL;
        r = win_utf16(block, len, (uint16_t **)&w->env, &units);
        if (!w->app || !w->line || (s->cwd && !w->cwd) || r < 0)
                return error_set(e, EILSEQ, "windows backend: the command, its directory or its environment "
                                            "is not valid UTF-8");
        return 0;
}

static int create_suspended(const win_spec *s, HANDLE token, PROCESS_INFORMATION *pi, cordon_error **e)
{
        _cleanup_(wide_args_clear) wide_args w = {0};
        _cleanup_(startup_clear) startup st = {0};
        int r = wide_args_init(s, &w, e);
        if (r < 0 || (r = startup_init(&st, s->stdio, e)) < 0)
                return r;
        DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT;
        BOOL inherit = st.n_inherit > 0; /* and then only the list */
        BOOL ok = token ? CreateProcessAsUserW(token, w.app, w.line, NULL, NULL, inherit, flags, w.env, w.cwd,
                                               &st.si.StartupInfo, pi)
                        : CreateProcessW(w.app, w.line, NULL, NULL, inherit, flags, w.env, w.cwd,
                                         &st.si.StartupInfo, pi);
        if (!ok)
                return fail(e, token ? "CreateProcessAsUser" : "CreateProcess",
                            "check that the program exists, is an executable, and the working directory exists");
        return 0;
}

int win_spawn(const win_spec *s, win_child *ret, cordon_error **ret_error)
{
        _cleanup_handle_ HANDLE job = NULL, token = NULL;
        int r = make_job(s, &job, ret_error);
        if (r < 0 || (s->rules && (r = win_apply_rules(s->rules, ret_error)) < 0) ||
            (s->instance_root && (r = make_token(s->instance_root, &token, ret_error)) < 0))
                return r;
        PROCESS_INFORMATION pi = {0};
        if ((r = create_suspended(s, token, &pi, ret_error)) < 0)
                return r;
        /* From here a failure terminates the process: it has not run. */
        if (s->test_fail_assign) {
                SetLastError(ERROR_ACCESS_DENIED);
                r = fail(ret_error, "AssignProcessToJobObject", "(a failure injected by a test)");
        } else if (!AssignProcessToJobObject(job, pi.hProcess))
                r = fail(ret_error, "AssignProcessToJobObject",
                         "the launcher's own job may forbid nested jobs (Windows 8 or later allows them)");
        else if (ResumeThread(pi.hThread) == (DWORD)-1)
                r = fail(ret_error, "ResumeThread", NULL);
        CloseHandle(pi.hThread);
        if (r < 0) {
                TerminateProcess(pi.hProcess, 125);
                WaitForSingleObject(pi.hProcess, INFINITE);
                CloseHandle(pi.hProcess);
                return r;
        }
        *ret = (win_child){pi.hProcess, job, pi.dwProcessId};
        job = NULL;
        return 0;
}

int win_wait(win_child *c, DWORD timeout_ms, DWORD *ret_status, bool *ret_timed_out, cordon_error **ret_error)
{
        DWORD w = WaitForSingleObject(c->process, timeout_ms);
        *ret_timed_out = w == WAIT_TIMEOUT;
        if (w == WAIT_TIMEOUT) {
                win_kill(c, 124);
                w = WaitForSingleObject(c->process, INFINITE);
        }
        if (w != WAIT_OBJECT_0)
                return fail(ret_error, "WaitForSingleObject", NULL);
        DWORD code = 0;
        if (!GetExitCodeProcess(c->process, &code))
                return fail(ret_error, "GetExitCodeProcess", NULL);
        /* as on Linux, the run ends with the command: nothing it started
         * stays behind */
        win_kill(c, code);
        *ret_status = code;
        return 0;
}

int win_kill(win_child *c, UINT code)
{
        if (c->job && !TerminateJobObject(c->job, code))
                return -win_errno(GetLastError());
        return 0;
}

void win_child_close(win_child *c)
{
        close_handle(&c->process);
        close_handle(&c->job);
        c->pid = 0;
}
