/* SPDX-License-Identifier: MIT */
/* Starting the command on Windows (Win32; built only for Windows). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <windows.h>

#include "error.h"
#include "windows/win.h"

typedef struct win_spec {
        const char *exe;        /* the program to run, a full path (a .bat/.cmd runs under cmd.exe) */
        char *const *argv;
        char *const *env;       /* from win_env_build: sorted */
        const char *cwd;        /* NULL: the caller's */
        /* isolation: the write-restricted, low-integrity token whose
         * restricting SID is win_instance_sid(instance_root); NULL: the
         * caller's token (isolation disabled), the job all the same */
        const char *instance_root;
        const win_rules *rules; /* applied before the process exists (win_apply_rules); NULL: none */
        uint64_t memory_bytes;  /* job memory, 0: none */
        uint32_t processes;     /* active processes, 0: none */
        double cpu_time_s;      /* user time of the whole job, 0: none */
        HANDLE stdio[3];        /* inherited as 0, 1, 2 (NULL: none); nothing else is */
        bool test_fail_assign;  /* tests only: AssignProcessToJobObject "fails" (the cleanup path) */
} win_spec;

typedef struct win_child {
        HANDLE process, job;
        DWORD pid;
} win_child;

/* Create the command's process suspended, put it in a new job object (kill
 * on close, no breakaway, the limits, UI restrictions), and only then let
 * it run. If a step fails, the process is terminated before it executed an
 * instruction. Returns 0 with |*ret| (win_child_close), or -errno with
 * |*ret_error| naming the step and the fix. */
int win_spawn(const win_spec *s, win_child *ret, cordon_error **ret_error) HIDDEN;
/* Wait for the command (at most |timeout_ms|, INFINITE: no limit; on
 * expiry the job is killed and |*ret_timed_out| set), then end whatever it
 * left running in its job. |*ret_status| is its exit code. */
int win_wait(win_child *c, DWORD timeout_ms, DWORD *ret_status, bool *ret_timed_out,
             cordon_error **ret_error) HIDDEN;
/* End every process of the job with |code|. Returns 0 or -errno. */
int win_kill(win_child *c, UINT code) HIDDEN;
void win_child_close(win_child *c) HIDDEN;

/* Give each GRANT path of |rules| the instance SID's inherited "modify"
 * entry and the low label (acl.c), on a handle opened without following
 * reparse points; a path that is one is refused (-ELOOP). An existing
 * grant is left as it is. Returns 0 or -errno with |*ret_error|. */
int win_apply_rules(const win_rules *rules, cordon_error **ret_error) HIDDEN;

/* A Win32 error code as an errno value, for the library's -errno returns. */
int win_errno(DWORD err) HIDDEN;
/* |s| as a new NUL-terminated wide string, or NULL (invalid UTF-8, ENOMEM). */
wchar_t *win_wide(const char *s) HIDDEN;
