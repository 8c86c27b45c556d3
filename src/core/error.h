/* SPDX-License-Identifier: MIT */
/* The one error type: message, errno, config location, exit status. */
#pragma once

#include "cordon.h"
#include "util.h"

struct cordon_error {
        char *message;
        int errnum;
        char *file;
        int line, column;
        char *key;
        int exit_status;
};

/* Store a new error in |*ret| (when |ret| is not NULL) and return -|errnum|
 * (-EINVAL when |errnum| is 0). Allocation failures degrade to a static
 * "out of memory" message; they never lose the return code. */
int error_set(cordon_error **ret, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4))) HIDDEN;
/* Same, with a config location; the message becomes "FILE:LINE:COL: KEY: ...". */
int error_set_at(cordon_error **ret, int errnum, const char *file, int line, int column, const char *key,
                 const char *fmt, ...) __attribute__((format(printf, 7, 8))) HIDDEN;
/* Prefix the message of an existing error with "what: ". */
void error_prefix(cordon_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3))) HIDDEN;
