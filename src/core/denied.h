/* SPDX-License-Identifier: MIT */
/* What the boundary refused in one run, as data (the record's "denied",
 * cordon_process_denied_json): each distinct refusal once, with its kind,
 * what it named, the rule that refused it, whether the host has it and
 * what would allow it. Bounded in count and size. Noted by the backends'
 * observers (the landlock backend's call supervisor, on its thread; the
 * process's start, for what the plan knows); read by the launcher's
 * thread after the run (stats.c). denied.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define DENIED_MAX 64         /* entries kept; more are counted */
#define DENIED_TEXT_MAX 512   /* bytes of a target or rule kept (then "...") */
#define DENIED_NOT_ALLOWABLE "cannot be allowed"

typedef enum {
        DENIED_READ,
        DENIED_WRITE,
        DENIED_EXEC,
        DENIED_CONNECT,
        DENIED_RESOLVE,
        DENIED_SYSCALL,
        DENIED__KIND_MAX,
} denied_kind;

/* Whether the host has a path: a tri-state (the kinds without one). */
typedef enum { HOST_HAS_UNKNOWN = -1, HOST_HAS_NO = 0, HOST_HAS_YES = 1 } host_has;

typedef struct denied_list denied_list;

/* A new empty list, or NULL on ENOMEM (noting into NULL does nothing). */
denied_list *denied_list_new(void) HIDDEN;
denied_list *denied_list_free(denied_list *l) HIDDEN;

/* Note one refusal (copied; each text cut at DENIED_TEXT_MAX). |seen_by|
 * says who saw it ("supervisor", "proxy", "exit-status", "explain").
 * |only_status| >= 0: it counts only when the command's status is that
 * (what the plan foresaw: a PATH entry it hides, on exit 127). A second
 * note of the same kind and target is dropped. Thread-safe. */
void denied_note(denied_list *l, denied_kind kind, const char *target, const char *rule, host_has has,
                 const char *suggestion, const char *seen_by, int only_status) HIDDEN;

/* The caller's home (copied; NULL: unknown), for the suggestions of
 * denied_note_path. */
void denied_list_set_home(denied_list *l, const char *home) HIDDEN;
/* The home set, or NULL. */
const char *denied_list_home(const denied_list *l) HIDDEN;
/* denied_note for a path of the host's, with its suggestion
 * (denied_path_suggestion; |writable|: the flag that makes it writable). */
void denied_note_path(denied_list *l, denied_kind kind, const char *path, const char *rule, host_has has,
                      bool writable, const char *seen_by) HIDDEN;

/* How many notes count for the command's |status| (-1: all). */
size_t denied_count(const denied_list *l, int status) HIDDEN;

/* The suggestion for a refused |path| (a host path): "--expose PATH" or
 * "--expose PATH:rw" (|writable|), or DENIED_NOT_ALLOWABLE when no entry
 * point would accept it (the one validator: config-validate.h) or it is a
 * secret cordon never suggests (denied_path_is_secret). Caller frees;
 * NULL on ENOMEM. */
char *denied_path_suggestion(const char *path, bool writable, const char *home) HIDDEN;
/* Whether |path| is a secret no suggestion and no learned layer names:
 * private keys, credentials stores, /etc/shadow-like files, a directory
 * holding a store (/etc, ~/.config), the home itself or above it. */
bool denied_path_is_secret(const char *path, const char *home) HIDDEN;
/* "--allow-net HOST:PORT" (port 0: "HOST") when |host| is an entry as written
 * (allowlist.h), else DENIED_NOT_ALLOWABLE. Caller frees. */
char *denied_net_suggestion(const char *host, unsigned port) HIDDEN;

/* The kind's name in the record. */
const char *denied_kind_name(denied_kind k) HIDDEN;

/* The notes that count for |status| (-1: all) as a JSON array, with
 * |extra| (proxy denials already in the record's form, taken; NULL: none)
 * first; *|ret_omitted|: how many were left out by the bound. NULL on
 * ENOMEM. */
json_t *denied_json(const denied_list *l, int status, json_t *extra, size_t *ret_omitted) HIDDEN;

/* At most |max| lines for people on the entries of |denied| (the record's
 * array; |omitted|: how many the bound left out), "refused KIND TARGET (RULE): SUGGESTION", and one that counts
 * the rest; each line ends in a newline, has no "cordon: " prefix, and
 * the command's text in it is escaped for a terminal. "" for none; NULL
 * on ENOMEM. */
char *denied_summary(const json_t *denied, size_t omitted, size_t max) HIDDEN;

/* learn.c: a config layer (JSON text, caller frees; NULL on ENOMEM) with
 * the exposures and allowlist entries that |denied| (the record's array)
 * suggests, "~/" for |home|, each with a "comment". */
char *denied_learned_layer(const json_t *denied, const char *home) HIDDEN;

/* One entry in the record's form (for the proxy's denials). */
json_t *denied_entry_json(denied_kind kind, const char *target, const char *rule, host_has has,
                          const char *suggestion, const char *seen_by) HIDDEN;
