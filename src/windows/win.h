/* SPDX-License-Identifier: MIT */
/* The windows backend's pure parts: the command line, the environment block,
 * the access rules. No system calls but allocation, so they are unit-tested
 * on Linux and `cordon plan --backend windows` renders on any host. Strings
 * are UTF-8; win_utf16 converts what goes to the Win32 API. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* ---- command line (cmdline.c) ---- */

/* |argv| as one command line that CommandLineToArgvW and the Microsoft C
 * runtime split back into exactly |argv|: argv[0] by the program-name rule
 * (quoted when it has blanks; it may not contain '"'), the others by the
 * backslash-quote rules. Sets |*ret| (caller frees). Returns 0, -EINVAL
 * (|*ret_reason| says why) or -ENOMEM. */
int win_cmdline(char *const *argv, char **ret, const char **ret_reason) HIDDEN;

/* True when CreateProcess would run |path| through cmd.exe: its name ends in
 * .bat or .cmd, in any case, once trailing dots and spaces (which Windows
 * drops) are ignored. */
bool win_is_batch(const char *path) HIDDEN;

/* The command line that runs batch file |script| with |argv[1..]| under
 * |cmd_exe| ("cmd.exe /d /e:on /v:off /s /c \"...\""), which parses by its own
 * rules, not CommandLineToArgvW's (CVE-2024-24576): every argument is quoted,
 * and one cmd.exe would still read specially (a '"' or '%', a line break, a
 * trailing backslash) is refused. Returns 0, -EINVAL with |*ret_reason|, or
 * -ENOMEM. */
int win_cmdline_batch(const char *cmd_exe, const char *script, char *const *argv, char **ret,
                      const char **ret_reason) HIDDEN;

/* ---- UTF-16 (cmdline.c) ---- */

/* |n| bytes of UTF-8 |s| (embedded NULs kept) as UTF-16 with one more 0
 * unit at the end; |*ret_units| counts the units without it. Returns 0,
 * -EILSEQ on invalid UTF-8 (overlong, surrogates, > U+10FFFF) or -ENOMEM. */
int win_utf16(const char *s, size_t n, uint16_t **ret, size_t *ret_units) HIDDEN;

/* ---- environment block (envblock.c) ---- */

typedef struct win_env_input {
        const char *instance_root; /* redirect into <root>\runtime-user-env; NULL: don't */
        bool network_disabled;     /* CORDON_SANDBOX_NETWORK_DISABLED=1 */
        bool markers;              /* CORDON_SANDBOX=windows (and the network marker) */
} win_env_input;

/* The variables the redirection sets, with their directory below
 * runtime-user-env ("" for the directory itself). */
typedef struct win_env_redirect {
        const char *name, *dir;
} win_env_redirect;
extern const win_env_redirect WIN_ENV_REDIRECT[] HIDDEN;
/* What the "core" template keeps on Windows besides the neutral names
 * (compared without case): the system's locations and facts, which many
 * programs fail without (Winsock needs SystemRoot), never the user's. */
extern const char *const WIN_ENV_CORE[] HIDDEN;
/* The directories below the instance root the redirection needs (NULL
 * terminated, parents first). */
extern const char *const WIN_USER_ENV_DIRS[] HIDDEN;

/* |env| ("NAME=VALUE", the policy's result) with the redirection and the
 * markers applied, names compared without case as Windows does (a later
 * entry replaces an earlier one of the same name), sorted the way
 * CreateProcess expects (by name, upper-cased, ordinal). Returns 0,
 * -EINVAL (an entry without '=' or with an empty name) or -ENOMEM. */
int win_env_build(char *const *env, const win_env_input *in, char ***ret) HIDDEN;
/* "A=1\0B=2\0\0": the block for CreateProcess (before win_utf16). Sets
 * |*ret_len| to its length with both final NULs. NULL on ENOMEM. */
char *win_env_block(char *const *env, size_t *ret_len) HIDDEN;

/* |root| + separator + |rel| (whose '/' become the separator): '\' when
 * |root| is a Windows path (a drive, a '\'), else '/' (planning on a POSIX
 * host). NULL on ENOMEM. */
char *win_path_join(const char *root, const char *rel) HIDDEN;

/* ---- access rules (rules.c) ---- */

typedef enum win_rule_kind {
        WIN_RULE_GRANT, /* the instance SID may modify it; low integrity label */
        WIN_RULE_READ,  /* read as the user: no grant needed */
} win_rule_kind;

/* A path of the neutral plan. */
typedef struct win_path {
        const char *source; /* on the host */
        const char *target; /* where the command sees it; NULL: the same */
        bool writable;
        const char *origin; /* "workspace", "instance", "expose", ... */
} win_path;

typedef struct win_rule {
        win_rule_kind kind;
        char *path;
        const char *origin;
        char *sddl; /* what is added to the path's security descriptor; NULL for READ */
} win_rule;

typedef struct win_rules {
        char *sid; /* the per-instance SID, "S-1-9-..." */
        win_rule *rules;
        size_t n_rules;
} win_rules;

/* The SID the command's writes are checked against (the restricting SID of
 * its write-restricted token), derived from |instance_root| (compared
 * without case and separator style) so that grants made for an instance
 * stay valid for its later runs and no other instance's. Caller frees;
 * NULL on ENOMEM. */
char *win_instance_sid(const char *instance_root) HIDDEN;
/* The low mandatory level (S-1-16-4096) and the label a writable path gets:
 * children inherit it, writes from low integrity allowed (no-write-up only). */
#define WIN_SID_LOW_INTEGRITY "S-1-16-4096"
#define WIN_LABEL_LOW         "S:(ML;OICI;NW;;;LW)"
/* The DACL entry for |sid|: modify (read, write, execute, delete), inherited
 * by files and directories. Caller frees; NULL on ENOMEM. */
char *win_grant_ace(const char *sid) HIDDEN;

/* The rules for |paths|: a grant for each writable path, nothing for the
 * read-only ones (reported as READ). A path whose target differs from its
 * source is refused (-EINVAL with |*ret_reason|): Windows has no
 * per-process view to remap it into. Fills |ret| (win_rules_clear). Returns
 * 0, -EINVAL or -ENOMEM. */
int win_rules_build(const char *instance_root, const win_path *paths, size_t n, win_rules *ret,
                    char **ret_reason) HIDDEN;
void win_rules_clear(win_rules *r) HIDDEN;
/* Text for `cordon plan --backend windows` ("windows isolation access
 * rules"). NULL on ENOMEM. */
char *win_rules_text(const win_rules *r) HIDDEN;
