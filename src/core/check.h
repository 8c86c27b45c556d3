/* SPDX-License-Identifier: MIT */
/* What the backends' `cordon check` reports (cordon_host_check) share. */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "util.h"

/* Ends a report: with |json|, |o| gets "fix": |why| and is the report,
 * else |b| (the lines so far) gets "  fix: WHY"; |why| NULL: the backend
 * can run. Takes |o| and |b|'s text; sets |*ret_report| (caller frees).
 * Returns 1 (can run), 0 (cannot) or -ENOMEM. */
int check_report_end(bool json, json_t *o, buf *b, const char *why, char **ret_report) HIDDEN;
