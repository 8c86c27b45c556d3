/* SPDX-License-Identifier: MIT */
/* The neutral plan's paths -> Windows access rules. The command runs with a
 * write-restricted token whose only restricting SID is the instance's: a
 * write passes only where the DACL grants that SID too (reads are checked
 * as the user's, unrestricted), and at low integrity, which cannot write to
 * an object labelled higher (unlabelled objects count as medium). So a
 * writable path gets both: a grant for the instance SID and a low label. */
#include <errno.h>
#include <string.h>

#include "windows/win.h"

/* FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE:
 * what Explorer calls "Modify" (no WRITE_DAC, no WRITE_OWNER). */
#define WIN_MODIFY_MASK "0x1301bf"

static uint64_t fnv1a(const char *s, uint64_t h)
{
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;
                if (c == '/')
                        c = '\\';
                if (c >= 'A' && c <= 'Z')
                        c = (unsigned char)(c - 'A' + 'a');
                h = (h ^ c) * 0x100000001b3ULL;
        }
        return h;
}

char *win_instance_sid(const char *instance_root)
{
        _cleanup_free_ char *root = xstrdup(instance_root);
        if (!root)
                return NULL;
        size_t n = strlen(root);
        while (n > 1 && (root[n - 1] == '\\' || root[n - 1] == '/'))
                root[--n] = '\0';
        /* Two FNV-1a hashes with different offsets: 128 bits in four
         * sub-authorities of the resource manager authority (S-1-9), which
         * no account or group uses. */
        uint64_t a = fnv1a(root, 0xcbf29ce484222325ULL);
        uint64_t b = fnv1a(root, 0x84222325cbf29ce4ULL);
        return xasprintf("S-1-9-%u-%u-%u-%u", (unsigned)(a >> 32), (unsigned)a, (unsigned)(b >> 32),
                         (unsigned)b);
}

char *win_grant_ace(const char *sid)
{
        return xasprintf("(A;OICI;" WIN_MODIFY_MASK ";;;%s)", sid);
}

static char *grant_sddl(const char *sid)
{
        _cleanup_free_ char *ace = win_grant_ace(sid);
        return ace ? xasprintf("D:%s%s", ace, WIN_LABEL_LOW) : NULL;
}

void win_rules_clear(win_rules *r)
{
        for (size_t i = 0; i < r->n_rules; i++) {
                free(r->rules[i].path);
                free(r->rules[i].sddl);
        }
        free(r->rules);
        free(r->sid);
        *r = (win_rules){0};
}

/* The rule already made for |path|, or NULL. */
static win_rule *find_rule(const win_rules *r, const char *path)
{
        for (size_t i = 0; i < r->n_rules; i++)
                if (streq(r->rules[i].path, path))
                        return &r->rules[i];
        return NULL;
}

static int add_rule(win_rules *r, const win_path *p)
{
        win_rule *old = find_rule(r, p->source);
        if (old && (old->kind == WIN_RULE_GRANT || !p->writable))
                return 0;
        char *sddl = p->writable ? grant_sddl(r->sid) : NULL;
        if (p->writable && !sddl)
                return -ENOMEM;
        if (old) { /* a read that a later rule makes writable */
                old->kind = WIN_RULE_GRANT;
                old->sddl = sddl;
                old->origin = p->origin;
                return 0;
        }
        win_rule *v = realloc(r->rules, (r->n_rules + 1) * sizeof(*v));
        if (v)
                r->rules = v;
        char *path = v ? xstrdup(p->source) : NULL;
        if (!path) {
                free(sddl);
                return -ENOMEM;
        }
        v[r->n_rules++] = (win_rule){p->writable ? WIN_RULE_GRANT : WIN_RULE_READ, path, p->origin, sddl};
        return 0;
}

int win_rules_build(const char *instance_root, const win_path *paths, size_t n, win_rules *ret, char **ret_reason)
{
        for (size_t i = 0; i < n; i++)
                if (paths[i].target && !streq(paths[i].target, paths[i].source)) {
                        *ret_reason = xasprintf("%s -> %s (%s): the windows backend cannot remap a path: Windows "
                                                "has no per-process file system view to put it at another "
                                                "path; expose it at its own path (target = source) or not at all",
                                                paths[i].source, paths[i].target, paths[i].origin);
                        return -EINVAL;
                }
        win_rules r = {0};
        if (!(r.sid = win_instance_sid(instance_root)))
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (add_rule(&r, &paths[i]) < 0) {
                        win_rules_clear(&r);
                        return -ENOMEM;
                }
        *ret = r;
        return 0;
}

char *win_rules_text(const win_rules *r)
{
        buf b = {0};
        buf_printf(&b, "windows isolation access rules\n");
        buf_printf(&b, "  token: write-restricted (restricting SID %s), every privilege removed, "
                       "integrity low (%s)\n", r->sid, WIN_SID_LOW_INTEGRITY);
        buf_printf(&b, "  job: kill on close, no breakaway, no clipboard, desktop or global atoms\n");
        for (size_t i = 0; i < r->n_rules; i++) {
                const win_rule *w = &r->rules[i];
                if (w->kind == WIN_RULE_GRANT)
                        buf_printf(&b, "  write  %s  (%s)  %s\n", w->path, w->origin, w->sddl);
                else
                        buf_printf(&b, "  read   %s  (%s)  no grant: reads are the user's\n", w->path, w->origin);
        }
        buf_printf(&b, "  elsewhere: writes denied (no grant for %s), reads as the user's\n", r->sid);
        return buf_steal(&b);
}
