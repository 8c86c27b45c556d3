/* SPDX-License-Identifier: MIT */
/* Probing what the host offers. */
#pragma once

#include "util.h"

/* 1 when this process can create the namespaces of the linux backend, 0 when
 * not (|ret_reason| then says why and how to fix it; caller frees), or a
 * negative errno when the probe itself failed. Forks a short-lived child. */
int host_probe_userns(char **ret_reason) HIDDEN;
/* Why creating namespaces failed with |err|, and the fix. Caller frees. */
char *host_userns_hint(int err) HIDDEN;
/* Which of the sysctls that limit user namespaces is the one in the way:
 * the first of these that is set. */
enum userns_limit { LIMIT_NONE, LIMIT_MAX_NAMESPACES, LIMIT_CLONE, LIMIT_APPARMOR };
enum userns_limit userns_limit(void) HIDDEN;
/* 1 when the kernel has seccomp filters, else 0. Installs nothing. */
int probe_seccomp(void) HIDDEN;
/* Whether this process runs under a seccomp filter (a container runtime's
 * profile, an outer sandbox): only then may the probes below find a call
 * refused that the kernel has. */
bool host_seccomp_filtered(void) HIDDEN;
/* The errno of sethostname in a new user and UTS namespace (a short-lived
 * child), as the linux backend's init calls it; 0 when it works, or when
 * the namespaces themselves cannot be made (the run fails there first). */
int host_probe_hostname(void) HIDDEN;
/* The errno of pidfd_getfd (the landlock backend's call supervisor takes
 * the command's socket with it) on this process's own descriptor, 0 when
 * it works. */
int host_probe_pidfd_getfd(void) HIDDEN;
/* The container engine this process runs under, by the file each leaves
 * in its containers ("docker": /.dockerenv, "podman": /run/.containerenv),
 * or NULL. */
const char *host_container_engine(void) HIDDEN;
/* The engine's flag that gives what |what| names, for a fix: "cap-add
 * SYS_PTRACE" becomes "--cap-add SYS_PTRACE", each engine's own spelling
 * where they differ (see host.c). Static text. */
const char *host_engine_flag(const char *what) HIDDEN;
/* The AppArmor profile (apparmor/cordon.in) that lets the binary |exe|
 * create user namespaces; NULL when |exe| is not a plain absolute path
 * (AppArmor would read it as a pattern) or on ENOMEM. Caller frees. */
char *host_apparmor_profile(const char *exe) HIDDEN;
/* What `cordon check` says when AppArmor restricts user namespaces: what is
 * restricted and the commands that allow them to |exe|: installing
 * |installed_profile| when not NULL, else writing host_apparmor_profile(exe);
 * and the sysctl that lifts the restriction. Pure. Caller frees. */
char *host_apparmor_fix(const char *exe, const char *installed_profile) HIDDEN;
/* One line on the cgroup setup ("v1 (memory pids cpu), writable" ...). */
char *host_cgroup_summary(void) HIDDEN;
/* How --pids would be enforced here (a pids_by of plan.h), with a
 * line for people in *ret_text (caller frees); -ENOMEM. */
int host_pids_mechanism(bool own_userns, bool sandbox_user, char **ret_text) HIDDEN;
