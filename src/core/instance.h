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
 * directory is an error. */
int instance_create(const char *root, const char *workspace, cordon_error **ret_error) HIDDEN;

/* Subdirectories of the root, "runtime-user-env/..." included. */
extern const char *const INSTANCE_SUBDIRS[] HIDDEN;
