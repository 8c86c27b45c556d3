/* SPDX-License-Identifier: MIT */
/* Notes for people about a plan, shown when the command fails with the
 * exit status they explain: PATH entries of the host that the sandbox
 * does not show (with the profile or --expose that would), a git identity
 * it does not show. Reads the host, changes nothing. */
#include "plan-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "error.h"

/* The profiles found and, for each, the host paths it exposes: each
 * profile is read once per plan, however many PATH entries are hidden. */
typedef struct profile_exposes {
        char **names;
        char ***sources; /* [i]: profile names[i]'s expanded sources */
} profile_exposes;

static void profile_exposes_clear(profile_exposes *pe)
{
        for (size_t i = 0; pe->sources && pe->names && pe->names[i]; i++)
                strv_free(pe->sources[i]);
        free(pe->sources);
        strv_free(pe->names);
}

/* An empty config that looks for profiles in |dirs|, or NULL. */
static cordon_config *config_looking_in(char *const *dirs)
{
        cordon_config *c = cordon_config_new();
        if (c && !(c->profile_dirs = strv_copy((const char *const *)dirs)))
                c = cordon_config_free(c);
        return c;
}

static char **profile_sources(char *const *dirs, const char *home, const char *name)
{
        cordon_config *pc = config_looking_in(dirs);
        char **v = calloc(1, sizeof(char *));
        if (pc && v && cordon_config_add_profile(pc, name, NULL) == 0)
                for (size_t k = 0; v && k < pc->n_expose; k++) {
                        char *src = source_expand(pc->expose[k].source, home, NULL);
                        if (src && strv_consume(&v, src) < 0) {
                                strv_free(v);
                                v = NULL;
                        }
                }
        cordon_config_free(pc);
        return v;
}

/* The profiles in |dirs| and what each exposes. */
static int profile_exposes_load(char *const *dirs, const char *home, profile_exposes *pe)
{
        cordon_config *c = config_looking_in(dirs);
        pe->names = c ? config_profiles(c) : NULL;
        cordon_config_free(c);
        size_t n = strv_len(pe->names);
        pe->sources = pe->names ? calloc(n + 1, sizeof(char **)) : NULL;
        if (!pe->sources)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                pe->sources[i] = profile_sources(dirs, home, pe->names[i]);
        return 0;
}

/* The first profile that exposes |dir|, or NULL. */
static const char *profile_exposing(const profile_exposes *pe, const char *dir)
{
        for (size_t i = 0; pe->names && pe->names[i]; i++)
                for (size_t k = 0; pe->sources[i] && pe->sources[i][k]; k++)
                        if (path_startswith(dir, pe->sources[i][k]))
                                return pe->names[i];
        return NULL;
}

/* One line for people on the PATH entries that exist on the host but not
 * inside ("cargo: not found" while PATH lists ~/.cargo/bin), with the
 * profile that would bring each, else --expose. Where the sandbox has no
 * view of its own (landlock, seatbelt) such a directory is still there,
 * only refused: it is left out of the command's PATH, so that a lookup
 * (execvp, Python's sys.executable) goes on to the next entry rather
 * than to a program it may not run. */
/* Is PATH entry |dir| a directory of the host's that the sandbox does not show? */
static bool path_entry_hidden(builder *b, const char *dir)
{
        struct stat st;
        return dir[0] == '/' && host_stat(b->h, dir, &st) == 0 && S_ISDIR(st.st_mode) && !sandbox_visible(b, dir);
}

/* |hidden| as a list, each entry with what would show it: the profile in
 * |pe| that exposes it, else --expose. NULL: out of memory. */
static char *hidden_list(char *const *hidden, const profile_exposes *pe)
{
        buf m = {0};
        buf_put(&m, "", 0);
        for (size_t i = 0; hidden && hidden[i]; i++) {
                const char *prof = profile_exposing(pe, hidden[i]);
                if (prof)
                        buf_printf(&m, "%s%s (--profile %s)", i ? ", " : "", hidden[i], prof);
                else
                        buf_printf(&m, "%s%s (--expose %s)", i ? ", " : "", hidden[i], hidden[i]);
        }
        return buf_steal(&m);
}

/* The PATH entries the sandbox hides, each once, in |*ret_hidden|, and
 * PATH without them in |*ret_kept|. */
static int path_entries_hidden(builder *b, char ***ret_hidden, char **ret_kept)
{
        const char *path = env_get(b->p->env, "PATH");
        _cleanup_strv_ char **hidden = calloc(1, sizeof(char *));
        buf kept = {0};
        buf_put(&kept, "", 0);
        int r = hidden ? 0 : -ENOMEM;
        for (const char *s = path; r == 0 && s && *s;) {
                size_t n = strcspn(s, ":");
                _cleanup_free_ char *dir = strndup(s, n);
                s += n + (s[n] == ':');
                if (!dir)
                        r = -ENOMEM;
                else if (!path_entry_hidden(b, dir))
                        buf_printf(&kept, "%s%s", kept.len ? ":" : "", dir);
                else if (!strv_contains(hidden, dir))
                        r = strv_push(&hidden, dir);
        }
        _cleanup_free_ char *kept_path = buf_steal(&kept);
        if (r < 0 || !kept_path)
                return r < 0 ? r : -ENOMEM;
        *ret_hidden = TAKE_PTR(hidden);
        *ret_kept = TAKE_PTR(kept_path);
        return 0;
}

int hidden_path_entries(builder *b, char **ret_list, char **ret_kept)
{
        _cleanup_strv_ char **hidden = NULL, **dirs = NULL;
        int r = path_entries_hidden(b, &hidden, ret_kept);
        if (r < 0)
                return r;
        profile_exposes pe = {0};
        dirs = hidden[0] ? config_profile_dirs(b->c) : NULL;
        if (hidden[0] && (!dirs || profile_exposes_load(dirs, caller_home(b->h), &pe) < 0))
                r = -ENOMEM;
        *ret_list = r == 0 ? hidden_list(hidden, &pe) : NULL;
        profile_exposes_clear(&pe);
        if (*ret_list)
                return 0;
        free(*ret_kept);
        *ret_kept = NULL;
        return -ENOMEM;
}

/* Adds the hint |text| (taken; NULL: ENOMEM) for the exit status |status|. */
static int add_hint(cordon_plan *p, char *text, int status)
{
        size_t n = strv_len(p->hints);
        int *e = text ? realloc(p->hint_exit, (n + 1) * sizeof(int)) : NULL;
        if (!e) {
                free(text);
                return -ENOMEM;
        }
        p->hint_exit = e;
        e[n] = status;
        return strv_consume(&p->hints, text);
}

int plan_add_hint(cordon_plan *p, char *text, int status) { return add_hint(p, text, status); }

/* Does the command mention git (git itself, or a shell line running it)? */
static bool mentions_git(const cordon_plan *p)
{
        for (size_t i = 0; p->argv && p->argv[i]; i++)
                if (strstr(p->argv[i], "git"))
                        return true;
        return false;
}

/* Does the sandbox show a git config at |path|: a mount there (the git
 * profile), or a file of the instance's own with something in it (an empty
 * one is what a mount point of an earlier run leaves)? */
static bool git_config_shown(builder *b, const char *path)
{
        for (size_t i = 0; i < b->p->n_mounts; i++)
                if (streq(b->p->mounts[i].target, path))
                        return true;
        _cleanup_free_ char *hp = sandbox_to_host(b->p, path, 0);
        struct stat st;
        return hp && host_stat(b->h, hp, &st) == 0 && st.st_size > 0;
}

/* git commit without an identity ("Author identity unknown", exit 128)
 * while the caller's ~/.gitconfig holds one the sandbox does not show: the
 * git profile shows it where the command's git looks ($HOME/.gitconfig),
 * GIT_CONFIG_GLOBAL points git at it on every backend (landlock cannot
 * show a file at another path). */
int plan_git_hint(builder *b)
{
        const char *home = caller_home(b->h), *inner = env_get(b->p->env, "HOME");
        _cleanup_free_ char *host = home ? path_join(home, ".gitconfig") : NULL;
        _cleanup_free_ char *seen = inner ? path_join(inner, ".gitconfig") : NULL;
        struct stat st;
        if (!host || !seen || !mentions_git(b->p) || env_get(b->p->env, "GIT_CONFIG_GLOBAL") ||
            host_stat(b->h, host, &st) < 0 || !S_ISREG(st.st_mode) || git_config_shown(b, seen))
                return 0;
        _cleanup_strv_ char **profiles = b->p->backend == BACKEND_LINUX ? config_profiles(b->c) : NULL;
        char *text = profiles && strv_contains(profiles, "git")
                             ? xasprintf("git: %s (your identity) is not visible inside: --profile git shows it "
                                         "read-only",
                                         host)
                             : xasprintf("git: %s (your identity) is not visible inside: --expose-ro %s --set "
                                         "GIT_CONFIG_GLOBAL=%s shows it read-only",
                                         host, host, host);
        return add_hint(b->p, text, 128);
}

/* A repository config the plan keeps read-only (linux backend), or NULL. */
static const char *protected_config(const cordon_plan *p)
{
        for (size_t i = 0; p->backend == BACKEND_LINUX && i < p->n_mounts; i++) {
                const plan_mount *m = &p->mounts[i];
                size_t n = strlen(m->target);
                if (m->origin == ORIGIN_PROTECT && !m->writable && !m->is_dir && n > 7 &&
                    streq(m->target + n - 7, "/config"))
                        return m->target;
        }
        return NULL;
}

/* git inside cannot write a repository's config (git config, remote add,
 * push -u, submodule init fail with "Device or resource busy", status 4
 * or 128): why, and what works. */
int plan_git_config_hint(builder *b)
{
        const char *config = mentions_git(b->p) ? protected_config(b->p) : NULL;
        if (!config)
                return 0;
        static const int STATUS[] = {4, 128};
        for (size_t i = 0; i < ARRAY_SIZE(STATUS); i++) {
                int r = add_hint(b->p,
                                 xasprintf("git: %s is read-only inside (the host's git would run what the command "
                                           "writes there): set a value for one run with git -c KEY=VALUE or --set "
                                           "GIT_CONFIG_COUNT=1 --set GIT_CONFIG_KEY_0=KEY --set GIT_CONFIG_VALUE_0=VALUE; "
                                           "your identity: --profile git; or change it on the host, or let this run "
                                           "write it: --expose %s:rw",
                                           config, config),
                                 STATUS[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static char *path_note_text(const struct path_note *n, const profile_exposes *pe)
{
        _cleanup_free_ char *list = hidden_list(n->hidden, pe);
        _cleanup_free_ char *shown = list ? str_escape(list, false) : NULL; /* printed as it is: cli/main.c */
        return shown ? xasprintf("PATH entries not visible inside%s: %s", n->no_view ? " (left out of its PATH)" : "",
                                 shown)
                     : NULL;
}

/* The note with the profiles that would show each entry (see plan.h). */
static int name_path_note(cordon_plan *p)
{
        struct path_note *n = p->path_note;
        if (n->hint >= strv_len(p->hints))
                return -EINVAL;
        profile_exposes pe = {0};
        int r = profile_exposes_load(n->profile_dirs, n->home, &pe);
        char *text = r == 0 ? path_note_text(n, &pe) : NULL;
        profile_exposes_clear(&pe);
        if (!text)
                return -ENOMEM; /* the note without profiles stays */
        free(p->hints[n->hint]);
        p->hints[n->hint] = text;
        path_note_free(n);
        p->path_note = NULL;
        return 0;
}

/* The profile directories the note may name profiles from: not one the
 * command can write to (a profile it planted there must not be what
 * cordon suggests to whoever reads the note). NULL: out of memory. */
static char **note_profile_dirs(builder *b)
{
        _cleanup_strv_ char **all = config_profile_dirs(b->c);
        char **kept = all ? calloc(1, sizeof(char *)) : NULL;
        for (size_t i = 0; kept && all[i]; i++) {
                _cleanup_free_ char *canon = NULL;
                if (host_resolve(b->h, all[i], true, &canon) == 0 && !writable_root_of(b->h, canon) &&
                    strv_push(&kept, all[i]) < 0) {
                        strv_free(kept);
                        kept = NULL;
                }
        }
        return kept;
}

int plan_path_hint(builder *b)
{
        _cleanup_strv_ char **hidden = NULL;
        _cleanup_free_ char *kept_path = NULL;
        int r = path_entries_hidden(b, &hidden, &kept_path);
        if (r < 0 || !hidden[0])
                return r;
        bool no_view = b->p->backend == BACKEND_LANDLOCK || b->p->backend == BACKEND_SEATBELT;
        if (no_view && env_set(&b->p->env, "PATH", kept_path) < 0)
                return -ENOMEM;
        struct path_note *n = calloc(1, sizeof(*n));
        const char *home = caller_home(b->h);
        if (!n || !(n->profile_dirs = note_profile_dirs(b)) || (home && !(n->home = strdup(home)))) {
                path_note_free(n);
                return -ENOMEM;
        }
        if (!(b->p->path_hidden = strv_copy((const char *const *)hidden))) {
                path_note_free(n);
                return -ENOMEM;
        }
        b->p->path_hint = strv_len(b->p->hints);
        n->hidden = TAKE_PTR(hidden);
        n->no_view = no_view;
        n->hint = strv_len(b->p->hints);
        b->p->path_note = n;
        b->p->name_path_note = name_path_note;
        profile_exposes none = {0};
        return add_hint(b->p, path_note_text(n, &none), 127);
}

/* An executable exposed on its own (auto_expose.exe) from a directory a
 * profile exposes (cargo in ~/.cargo/bin: --profile rust) may need the
 * rest of that profile (~/.rustup, RUSTUP_HOME): a note names the
 * profile and what it would add, for any failure. Cordon does not apply
 * it by itself: the command line never widens access beyond the
 * executable. Profiles are read only when such an exposure was made. */
int plan_exe_hint(builder *b)
{
        const plan_mount *exe = NULL;
        for (size_t i = 0; i < b->p->n_mounts && !exe; i++)
                if (b->p->mounts[i].origin == ORIGIN_EXE && b->p->mounts[i].is_dir)
                        exe = &b->p->mounts[i];
        if (!exe || !exe->source)
                return 0;
        _cleanup_strv_ char **dirs = note_profile_dirs(b);
        const char *home = caller_home(b->h);
        profile_exposes pe = {0};
        int r = dirs ? profile_exposes_load(dirs, home, &pe) : -ENOMEM;
        const char *name = r == 0 ? profile_exposing(&pe, exe->source) : NULL;
        buf rest = {0};
        for (size_t i = 0; name && pe.names[i]; i++) {
                if (!streq(pe.names[i], name))
                        continue;
                for (size_t k = 0; pe.sources[i] && pe.sources[i][k]; k++) {
                        struct stat st;
                        const char *s = pe.sources[i][k];
                        if (!path_startswith(exe->source, s) && host_stat(b->h, s, &st) == 0 && !sandbox_visible(b, s))
                                buf_printf(&rest, "%s%s", rest.len ? ", " : "", s);
                }
        }
        char *list = rest.len ? buf_steal(&rest) : NULL;
        if (!list)
                free(buf_steal(&rest));
        _cleanup_free_ char *shown = list ? str_escape(list, false) : NULL, *dir = str_escape(exe->source, false);
        free(list);
        char *note = name && shown && dir ? xasprintf("%s was exposed for the command on its own: --profile %s "
                                                      "brings what it needs with it (%s)",
                                                      dir, name, shown)
                                          : NULL;
        profile_exposes_clear(&pe);
        if (r < 0)
                return r;
        return note ? add_hint(b->p, note, CORDON_HINT_ANY_FAILURE) : 0;
}
