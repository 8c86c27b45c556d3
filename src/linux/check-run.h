/* SPDX-License-Identifier: MIT */
/* `cordon check`'s run of a backend (check-run.c), step by step. */
#pragma once

#include "config.h"

typedef enum check_state {
        CHECK_OK,
        CHECK_FAILED,
        CHECK_NOT_TRIED,  /* after a failure */
        CHECK_WITHOUT,    /* refused here, and runs go without it (plan_degraded) */
} check_state;

typedef struct check_step_result {
        const char *name;  /* static: "user namespace", "a fresh /proc", ... */
        check_state state;
        int err;           /* CHECK_FAILED: the errno, or 0 */
        char *detail;      /* CHECK_FAILED: the run's error; CHECK_WITHOUT: why; else NULL */
} check_step_result;

typedef struct check_run {
        check_step_result steps[16];
        size_t n;
        int failed;        /* the first failed step's index, -1: none (it can run) */
        bool sandbox_user; /* the run's command is the sandbox user (plan-user.c) */
} check_run;

/* Runs what a run of |c| on |backend| ("linux" or "landlock") runs, in a
 * throwaway sandbox, into *run (check_run_free). 0 or -ENOMEM. */
int check_run_backend(const cordon_config *c, const char *backend, check_run *run) HIDDEN;
void check_run_free(check_run *run) HIDDEN;
