/* SPDX-License-Identifier: MIT */
/* A Windows test program for tests/integration/windows.sh (run under Wine):
 *   win-probe job              whether it was in a job at its first code
 *                              (a TLS callback, before the C runtime), and
 *                              the job's limits as seen from inside
 *   win-probe touch FILE       creates FILE
 *   win-probe exit N           exits with status N
 *   win-probe out TEXT / err TEXT   TEXT to stdout / stderr
 *   win-probe env NAME...      NAME=VALUE or NAME unset, one a line
 *   win-probe heartbeat FILE   appends a line to FILE every 100 ms, 60 s
 *   win-probe tree FILE        starts "heartbeat FILE", then waits
 *   win-probe breakaway        tries CREATE_BREAKAWAY_FROM_JOB
 *   win-probe spawn N          starts N sleeping copies; how many started
 *   win-probe naive-bat FILE ARG   runs FILE ARG quoted the C runtime's way
 *   win-probe sddl PATH        PATH's DACL and label as SDDL
 *   win-probe handle           whether $CORDON_TEST_HANDLE is open here
 *   win-probe inherit-all FILE the control: a child inheriting every handle */
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

static int early_in_job = -1;

static void NTAPI tls_callback(PVOID module, DWORD reason, PVOID reserved)
{
        (void)module;
        (void)reserved;
        BOOL in = FALSE;
        if (reason == DLL_PROCESS_ATTACH && early_in_job < 0)
                early_in_job = IsProcessInJob(GetCurrentProcess(), NULL, &in) ? (in ? 1 : 0) : 2;
}
/* The loader runs the callbacks of .CRT$XL? before anything else of ours. */
__attribute__((section(".CRT$XLB"), used)) PIMAGE_TLS_CALLBACK cordon_tls_callback = tls_callback;
extern const IMAGE_TLS_DIRECTORY _tls_used;
__attribute__((used)) static const void *force_tls = &_tls_used;

static int job(void)
{
        printf("early: %s\n", early_in_job == 1 ? "in-job" : early_in_job == 0 ? "not-in-job" : "unknown");
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = {0};
        if (!QueryInformationJobObject(NULL, JobObjectExtendedLimitInformation, &li, sizeof(li), NULL)) {
                printf("limits: none (%lu)\n", (unsigned long)GetLastError());
                return 0;
        }
        DWORD f = li.BasicLimitInformation.LimitFlags;
        printf("kill-on-close: %d\nbreakaway-ok: %d\nactive-processes: %lu\njob-memory: %llu\n",
               !!(f & JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE),
               !!(f & (JOB_OBJECT_LIMIT_BREAKAWAY_OK | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK)),
               (f & JOB_OBJECT_LIMIT_ACTIVE_PROCESS) ? (unsigned long)li.BasicLimitInformation.ActiveProcessLimit : 0,
               (f & JOB_OBJECT_LIMIT_JOB_MEMORY) ? (unsigned long long)li.JobMemoryLimit : 0);
        JOBOBJECT_BASIC_UI_RESTRICTIONS ui = {0};
        if (QueryInformationJobObject(NULL, JobObjectBasicUIRestrictions, &ui, sizeof(ui), NULL))
                printf("ui: 0x%lx\n", (unsigned long)ui.UIRestrictionsClass);
        return 0;
}

static BOOL start_self(const char *args, DWORD flags, PROCESS_INFORMATION *pi)
{
        char exe[MAX_PATH], line[MAX_PATH + 600];
        GetModuleFileNameA(NULL, exe, sizeof(exe));
        snprintf(line, sizeof(line), "\"%s\" %s", exe, args);
        STARTUPINFOA si = {.cb = sizeof(si)};
        return CreateProcessA(exe, line, NULL, NULL, FALSE, flags, NULL, NULL, &si, pi);
}

static int heartbeat(const char *file)
{
        for (int i = 0; i < 600; i++) {
                FILE *f = fopen(file, "a");
                if (f) {
                        fprintf(f, "%d\n", i);
                        fclose(f);
                }
                Sleep(100);
        }
        return 0;
}

static int tree(const char *file)
{
        char args[600];
        snprintf(args, sizeof(args), "heartbeat \"%s\"", file);
        PROCESS_INFORMATION pi;
        if (!start_self(args, 0, &pi)) {
                printf("start failed: %lu\n", (unsigned long)GetLastError());
                return 1;
        }
        printf("started %lu\n", (unsigned long)pi.dwProcessId);
        fflush(stdout);
        Sleep(60000);
        return 0;
}

static int breakaway(void)
{
        PROCESS_INFORMATION pi;
        if (start_self("exit 0", CREATE_BREAKAWAY_FROM_JOB, &pi)) {
                printf("breakaway: allowed\n");
                WaitForSingleObject(pi.hProcess, INFINITE);
                return 0;
        }
        printf("breakaway: refused (%lu)\n", (unsigned long)GetLastError());
        return 0;
}

static int spawn(int n)
{
        int started = 0;
        PROCESS_INFORMATION pi[64];
        for (int i = 0; i < n && i < 64; i++)
                if (start_self("sleep", 0, &pi[started]))
                        started++;
        printf("started: %d of %d\n", started, n);
        for (int i = 0; i < started; i++)
                TerminateProcess(pi[i].hProcess, 0);
        return 0;
}

/* Is the handle value in $CORDON_TEST_HANDLE (an inheritable handle of
 * the launcher's) open here? */
static int handle(void)
{
        const char *v = getenv("CORDON_TEST_HANDLE");
        HANDLE h = v ? (HANDLE)(uintptr_t)strtoull(v, NULL, 10) : NULL;
        DWORD flags = 0;
        printf("handle: %s\n", h && GetHandleInformation(h, &flags) && GetFileType(h) == FILE_TYPE_DISK ? "inherited"
                                                                                                  : "not inherited");
        return 0;
}

/* The control: an inheritable file handle, and a child that inherits all
 * (no handle list), asked whether it has it. */
static int inherit_all(const char *file)
{
        SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
        HANDLE h = CreateFileA(file, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_ALWAYS, 0, NULL);
        if (h == INVALID_HANDLE_VALUE)
                return 1;
        char value[32];
        snprintf(value, sizeof(value), "%llu", (unsigned long long)(uintptr_t)h);
        SetEnvironmentVariableA("CORDON_TEST_HANDLE", value);
        char exe[MAX_PATH], line[MAX_PATH + 16];
        GetModuleFileNameA(NULL, exe, sizeof(exe));
        snprintf(line, sizeof(line), "\"%s\" handle", exe);
        STARTUPINFOA si = {.cb = sizeof(si)};
        PROCESS_INFORMATION pi;
        if (!CreateProcessA(exe, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi))
                return 1;
        WaitForSingleObject(pi.hProcess, INFINITE);
        return 0;
}

/* wmain: the arguments as the C runtime splits the UTF-16 command line,
 * turned into UTF-8; the output in binary mode (no "\r\n"). */
/* The control of the batch file test: FILE run with ARG quoted by the C
 * runtime's rules (\" for a quote), which cmd.exe does not know
 * (CVE-2024-24576): CreateProcess runs a .bat under cmd.exe by itself. */
static int naive_bat(const char *file, const char *arg)
{
        char line[2048];
        size_t n = (size_t)snprintf(line, sizeof(line), "\"%s\" \"", file);
        for (const char *p = arg; *p && n + 4 < sizeof(line); p++) {
                if (*p == '"')
                        line[n++] = '\\';
                line[n++] = *p;
        }
        line[n++] = '"';
        line[n] = '\0';
        STARTUPINFOA si = {.cb = sizeof(si)};
        PROCESS_INFORMATION pi;
        if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
                return 1;
        WaitForSingleObject(pi.hProcess, INFINITE);
        return 0;
}

/* PATH's DACL and label as SDDL. */
static int sddl(const char *path)
{
        PSECURITY_DESCRIPTOR sd = NULL;
        char *text = NULL;
        HANDLE h = CreateFileA(path, READ_CONTROL, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                               OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
        SECURITY_INFORMATION what = DACL_SECURITY_INFORMATION | LABEL_SECURITY_INFORMATION;
        if (h == INVALID_HANDLE_VALUE ||
            GetSecurityInfo(h, SE_FILE_OBJECT, what, NULL, NULL, NULL, NULL, &sd) != ERROR_SUCCESS ||
            !ConvertSecurityDescriptorToStringSecurityDescriptorA(sd, SDDL_REVISION_1, what, &text, NULL)) {
                printf("sddl: error %lu\n", (unsigned long)GetLastError());
                return 1;
        }
        printf("sddl: %s\n", text);
        return 0;
}

int wmain(int argc, wchar_t **wargv);
int wmain(int argc, wchar_t **wargv)
{
        char **argv = calloc((size_t)argc + 1, sizeof(*argv));
        if (!argv)
                return 2;
        for (int i = 0; i < argc; i++) {
                int n = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
                if (n <= 0 || !(argv[i] = malloc((size_t)n)))
                        return 2;
                WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, argv[i], n, NULL, NULL);
        }
        _setmode(_fileno(stdout), _O_BINARY);
        _setmode(_fileno(stderr), _O_BINARY);
        if (argc < 2)
                return 2;
        const char *m = argv[1];
        if (strcmp(m, "job") == 0)
                return job();
        if (strcmp(m, "touch") == 0 && argc > 2) {
                FILE *f = fopen(argv[2], "w");
                return f ? fclose(f) != 0 : 1;
        }
        if (strcmp(m, "exit") == 0 && argc > 2)
                return (int)strtol(argv[2], NULL, 10);
        if (strcmp(m, "out") == 0 && argc > 2)
                return printf("%s\n", argv[2]) < 0;
        if (strcmp(m, "err") == 0 && argc > 2)
                return fprintf(stderr, "%s\n", argv[2]) < 0;
        if (strcmp(m, "env") == 0) {
                for (int i = 2; i < argc; i++) {
                        const char *v = getenv(argv[i]);
                        if (v)
                                printf("%s=%s\n", argv[i], v);
                        else
                                printf("%s unset\n", argv[i]);
                }
                return 0;
        }
        if (strcmp(m, "args") == 0) {
                for (int i = 2; i < argc; i++)
                        printf("[%s]\n", argv[i]);
                return 0;
        }
        if (strcmp(m, "heartbeat") == 0 && argc > 2)
                return heartbeat(argv[2]);
        if (strcmp(m, "tree") == 0 && argc > 2)
                return tree(argv[2]);
        if (strcmp(m, "breakaway") == 0)
                return breakaway();
        if (strcmp(m, "spawn") == 0 && argc > 2)
                return spawn((int)strtol(argv[2], NULL, 10));
        if (strcmp(m, "naive-bat") == 0 && argc > 3)
                return naive_bat(argv[2], argv[3]);
        if (strcmp(m, "sddl") == 0 && argc > 2)
                return sddl(argv[2]);
        if (strcmp(m, "handle") == 0)
                return handle();
        if (strcmp(m, "inherit-all") == 0 && argc > 2)
                return inherit_all(argv[2]);
        if (strcmp(m, "sleep") == 0) {
                Sleep(60000);
                return 0;
        }
        return 2;
}
