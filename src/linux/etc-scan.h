/* SPDX-License-Identifier: MIT */
/* The host's /etc as the system view shows it (etc-scan.c): what others
 * may read, less a deny list and files that hold a credential, as one
 * listing kept in the instance's logs/view. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* The listing: the landlock backend's rules first, then one line an
 * entry, paths relative to /etc, parents first, fields separated by tabs:
 *   d <rel>                   a directory
 *   f <rel> <identity>        a regular file: dev ino size mtime ctime mode
 *                             (" racy" after it when changed too recently
 *                             to trust its timestamps)
 *   l <rel> <target>          a symlink, its text
 *   r <rel> d|f               the landlock backend's read rules: a largest
 *                             subtree wholly in the view, a file of it */
typedef struct etc_tree {
        char *text;       /* the listing, or as much of it as was asked for */
        uint64_t hash;    /* of the listing */
        size_t rules_len; /* the length of its "r" lines, which come first */
} etc_tree;

typedef enum etc_part {
        ETC_HASH,  /* only the hash */
        ETC_RULES, /* the "r" lines */
        ETC_ALL,   /* the whole listing */
} etc_part;

/* <instance root>/logs/view, made when missing, each step opened without
 * following a symlink; -1 on failure. */
int etc_view_dir_open(const char *instance_root) HIDDEN;

/* The current listing of the host's /etc: the one saved in |view|/tree
 * while it is fresh (younger than a few seconds, /etc itself unchanged),
 * else a new walk (saved there for the next runs). |view| -1: walked,
 * not saved. |part|: how much of the listing the caller needs. 0 or
 * -errno. */
int etc_tree_get(int view, etc_part part, etc_tree *ret) HIDDEN;
void etc_tree_clear(etc_tree *t) HIDDEN;

/* The saved listing is stale from now on (a copy found the host changed). */
void etc_tree_invalidate(int view) HIDDEN;

/* Is the /etc entry |rel| (relative, as in the listing) on cordon's deny
 * list: identifiers of the host and its user databases? */
bool etc_denied(const char *rel) HIDDEN;

/* Does |data| (a file of |len| bytes named |rel|) hold a credential: a
 * file of a kind known to carry them (npmrc, pip.conf, environment, ...)
 * with a token, password or secret outside its comments? */
bool etc_holds_credential(const char *rel, const char *data, size_t len) HIDDEN;
