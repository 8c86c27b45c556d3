/* SPDX-License-Identifier: MIT */
/* The instance root (<home>) and its directories. */
#pragma once

#include "cordon.h"
#include "util.h"

/* Resolve the instance root: |configured| (--home / isolation.home), else
 * |env_cordon_home| ($CORDON_HOME), else |env_home|/.cordon. "." or a
 * relative result is an error. Pure. */
int instance_resolve_root(const char *configured, const char *env_cordon_home, const char *env_home, char **ret,
                          cordon_error **ret_error) HIDDEN;
/* The workspace: |configured|, else <root>/workspace. Pure. */
char *instance_workspace(const char *root, const char *configured) HIDDEN;
/* Create the root, its subdirectories and the workspace with mode 0700;
 * existing directories are kept. A subdirectory that is a symlink or not a
 * directory is an error, and so are a logs/ or skills/ that are not the
 * caller's own (not the inodes recorded in <root>/instance-id the first
 * time they were seen, writable by others, another owner's). With
 * |ret_logs|, logs/ as checked (instance_open_logs) is left open there. */
int instance_create(const char *root, const char *workspace, int *ret_logs, cordon_error **ret_error) HIDDEN;

/* Open <root>/logs, checked as instance_create checks it (its record);
 * the descriptor, or -errno with an error. */
int instance_open_logs(const char *root, cordon_error **ret_error) HIDDEN;

/* The record of logs/ and skills/ in the root (their inodes). */
#define INSTANCE_RECORD "instance-id"
/* What no command may write: logs/, skills/, the record. */
extern const char *const INSTANCE_OWN[] HIDDEN;

/* Subdirectories of the root, "runtime-user-env/..." included. */
extern const char *const INSTANCE_SUBDIRS[] HIDDEN;
