/* SPDX-License-Identifier: MIT */
/* The seatbelt backend's rules: a neutral plan rendered as an SBPL profile
 * for /usr/bin/sandbox-exec, plus the parameters it is run with (-D).
 * Pure: no system calls but allocation, so `cordon plan --backend seatbelt`
 * shows the same profile on any host. Only POSIX and C11 here. */
#pragma once

#include "plan.h"

typedef struct seatbelt_options {
        /* The "proxy" network mode: the command may connect only to this
         * loopback port, where cordon's allowlist proxy listens; 0 (or no
         * options): the parameter is SEATBELT_PORT_AT_START (cordon plan) */
        int proxy_port;
} seatbelt_options;

/* PROXY_PORT's value in a profile rendered before the proxy listens (the
 * kernel picks the port at start); sandbox-exec would refuse it. */
#define SEATBELT_PORT_AT_START "(chosen at start)"

typedef struct seatbelt_profile {
        char *text;    /* the profile; it names paths only as (param "NAME") */
        char **params; /* "NAME=VALUE", one -D each, in the order the profile uses them */
} seatbelt_profile;

/* Render |p| (any backend's plan; the seatbelt rules use its instance,
 * workspace, exposures and protected paths, never its system mounts, which
 * are the planning host's). |o| may be NULL. Fills |ret| (free with
 * seatbelt_profile_clear). Returns 0 or -ENOMEM (|ret| untouched). */
int seatbelt_render(const cordon_plan *p, const seatbelt_options *o, seatbelt_profile *ret) HIDDEN;
void seatbelt_profile_clear(seatbelt_profile *sp) HIDDEN;

/* |path| as macOS names it once resolved: /var, /tmp and /etc are symlinks
 * into /private there, and Seatbelt matches the resolved path. A new
 * string (caller frees), or NULL on ENOMEM. */
char *seatbelt_canonical(const char *path) HIDDEN;
