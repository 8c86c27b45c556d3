/* SPDX-License-Identifier: MIT */
/* What the config's files share among themselves and with nothing else:
 * config.c (the object and the puts every layer makes), config-parse.c (the
 * JSON layers), config-setters.c (the programmatic layer) and
 * config-profiles.c (named layers). */
#pragma once

#include "config.h"

/* A deep copy of |c| (its log callback too), or NULL. */
cordon_config *config_dup(const cordon_config *c) HIDDEN;
/* Replace |*c| by |*n| and free |n|; |c| keeps its log callback. */
void config_swap_in(cordon_config *c, cordon_config *n) HIDDEN;

/* Add the canonical form of |spec| to the allowlist, once. Returns 0,
 * -EINVAL (|*why| says why) or -ENOMEM. */
int network_allow_put(cordon_config *c, const char *spec, const char **why) HIDDEN;
/* A layer |seq| set the network / added to the allowlist: the later layer
 * wins between the two (config.h, layer_seq). */
void config_network_chosen(cordon_config *c, unsigned seq) HIDDEN;
void config_allow_chosen(cordon_config *c, unsigned seq) HIDDEN;
/* Insert or replace the rule for |target|; takes ownership of the strings
 * (freed on failure, -ENOMEM; a NULL |from| is out of memory too). */
int expose_put(cordon_config *c, char *source, char *target, bool writable, bool optional, char *from) HIDDEN;
/* Set variable |name| to |value| (copied); 0 or -ENOMEM. */
int env_set_put(cordon_config *c, const char *name, const char *value) HIDDEN;
/* Add |name| (copied) to |*list| once; 0 or -ENOMEM. */
int pass_put(char ***list, const char *name) HIDDEN;

/* Why profile |name| cannot be loaded (caller frees; NULL and no path: out
 * of memory), or NULL with |*ret_path| set (caller frees). */
char *profile_locate(const cordon_config *c, const char *name, char **ret_path) HIDDEN;
/* Load profile file |path| into |c| as one layer, one level deeper. */
int profile_apply(cordon_config *c, const char *path, cordon_error **ret_error) HIDDEN;
