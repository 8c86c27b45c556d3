/* SPDX-License-Identifier: MIT */
/* The plan as data: names, accessors, freeing, and whether a note explains
 * an exit status. Shared by every build (the Windows build plans with
 * src/windows/plan-host.c instead of plan.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan.h"

const char *const PROC_READ_ONLY[] = {"sys", "sysrq-trigger", "irq", "bus", "fs", NULL};
const char *const PROC_MASKED[] = {"kcore", "keys", "timer_list", "sched_debug", NULL};

const char *mount_type_name(mount_type t)
{
        static const char *const N[] = {"bind", "tmpfs", "proc", "dev", "symlink", "file"};
        return t <= MOUNT_FILE ? N[t] : "?";
}

const char *mount_origin_name(mount_origin o)
{
        static const char *const N[] = {"system", "instance", "workspace", "expose", "protect",
                                        "exe",    "cwd",      "arg",       "generated"};
        return o <= ORIGIN_GENERATED ? N[o] : "?";
}

const char *backend_name(backend_kind b)
{
        switch (b) {
        case BACKEND_LINUX: return "linux";
        case BACKEND_LANDLOCK: return "landlock";
        case BACKEND_SEATBELT: return "seatbelt";
        case BACKEND_WINDOWS: return "windows";
        default: return "none";
        }
}

void plan_mount_clear(plan_mount *m)
{
        free(m->source);
        free(m->target);
        free(m->content);
}

cordon_plan *cordon_plan_free(cordon_plan *p)
{
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_mounts; i++)
                plan_mount_clear(&p->mounts[i]);
        free(p->mounts);
        free(p->disabled_by);
        strv_free(p->argv);
        strv_free(p->network_allow);
        free(p->exe);
        strv_free(p->env);
        free(p->cwd);
        free(p->host_cwd);
        free(p->instance_root);
        free(p->workspace);
        free(p->hostname);
        strv_free(p->git_configs);
        free(p->git_home);
        free(p->helper_exe);
        strv_free(p->warnings);
        strv_free(p->notices);
        for (size_t i = 0; i < p->n_degraded; i++) {
                free(p->degraded[i].step);
                free(p->degraded[i].why);
        }
        free(p->degraded);
        strv_free(p->hints);
        free(p->hint_exit);
        path_note_free(p->path_note);
        strv_free(p->path_hidden);
        free(p->caller_home);
        free(p);
        return NULL;
}

int plan_add_degraded(cordon_plan *p, const char *step, char *why)
{
        plan_degraded *d = why ? realloc(p->degraded, (p->n_degraded + 1) * sizeof(*d)) : NULL;
        char *s = d ? strdup(step) : NULL;
        if (d)
                p->degraded = d;
        if (!s) {
                free(why);
                return -ENOMEM;
        }
        p->degraded[p->n_degraded++] = (plan_degraded){s, why};
        return 0;
}

void path_note_free(struct path_note *n)
{
        if (!n)
                return;
        strv_free(n->hidden);
        strv_free(n->profile_dirs);
        free(n->home);
        free(n);
}

const char *const *cordon_plan_env(const cordon_plan *p) { return (const char *const *)p->env; }
const char *cordon_plan_backend(const cordon_plan *p) { return backend_name(p->backend); }
bool cordon_plan_die_with_parent(const cordon_plan *p) { return p && p->die_with_parent; }
bool cordon_plan_explain_on_failure(const cordon_plan *p) { return p && p->explain_on_failure; }
bool cordon_plan_explain(const cordon_plan *p) { return p && p->explain; }
/* The notes are finished here, once: the plan is the caller's, not const
 * (one object is used from one thread at a time). */
const char *const *cordon_plan_hints(const cordon_plan *p)
{
        if (p->path_note && p->name_path_note)
                (void)p->name_path_note((cordon_plan *)p);
        return (const char *const *)p->hints;
}

int cordon_plan_hint_exit_status(const cordon_plan *p, size_t i)
{
        return p && p->hint_exit && i < strv_len(p->hints) ? p->hint_exit[i] : -1;
}

/* Does a word of the command line name a program that only a hidden PATH
 * entry holds (`cargo`, `sh -c 'cargo build'`)? Then exit 127 may be
 * that lookup failing; `sh -c 'exit 127'` names none, and gets no note.
 * Looked at on the host once, when first asked. */
static bool names_hidden_program(const cordon_plan *p)
{
        cordon_plan *mp = (cordon_plan *)p; /* a memo of the plan's, like the named note */
        if (p->names_hidden)
                return p->names_hidden > 0;
        mp->names_hidden = -1;
        size_t words = 0;
        for (size_t a = 0; p->argv && p->argv[a] && words < 256; a++) {
                const char *s = p->argv[a];
                while (*s && words < 256) {
                        size_t len = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-");
                        if (len == 0) {
                                s++;
                                continue;
                        }
                        _cleanup_free_ char *word = strndup(s, len);
                        s += len;
                        words++;
                        if (!word || word[0] == '-' || streq(word, ".") || streq(word, ".."))
                                continue;
                        for (size_t i = 0; p->path_hidden && p->path_hidden[i]; i++) {
                                _cleanup_free_ char *path = path_join(p->path_hidden[i], word);
                                struct stat st;
                                if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
                                        mp->names_hidden = 1;
                                        return true;
                                }
                        }
                }
        }
        return false;
}

bool cordon_plan_hint_explains(const cordon_plan *p, size_t i, int status)
{
        if (cordon_plan_hint_exit_status(p, i) == CORDON_HINT_ANY_FAILURE)
                return status > 0;
        if (cordon_plan_hint_exit_status(p, i) != status || status < 0)
                return false;
        return !p->path_hidden || p->path_hint != i || names_hidden_program(p);
}
