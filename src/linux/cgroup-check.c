/* SPDX-License-Identifier: MIT */
/* cgroup limits for `cordon check` and the planner: where a cgroup of
 * each controller would go or why it cannot (without creating one), and
 * whether RLIMIT_NPROC can stand in for the pids controller. Called by
 * check.c, host.c and cgroup_prepare (cgroup.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-internal.h"
#include "host.h"

/* Where a cgroup for controller |c| would go (*ret_where, the parent
 * directory without env->root), or why it cannot (*ret_why). Both are the
 * caller's to free. Returns 0 or -errno. */
static int dry_plan(const cgroup_env *env, const probe *pr, int c, char **ret_where, char **ret_why)
{
        *ret_where = *ret_why = NULL;
        if (!pr->version[c]) {
                *ret_why = xasprintf("no cgroup hierarchy here has the %s controller", CGROUP_CTRL[c]);
                return -ENOTSUP;
        }
        if (pr->ro[c]) {
                *ret_why = xasprintf("%s is read-only", pr->mount[c] + strlen(env->root ? env->root : ""));
                return -EROFS;
        }
        hier h = {.version = pr->version[c], .ctrls = 1u << c, .mount = xstrdup(pr->mount[c]), .own = xstrdup(pr->own[c])};
        int r = !h.mount ? -ENOMEM : h.version == 1 ? cg_plan_v1(env, &h, ret_why) : cg_plan_v2(env, &h, ret_why);
        if (r == 0)
                *ret_where = xstrdup(h.parent + strlen(env->root ? env->root : ""));
        cg_hier_free(&h);
        return r;
}

/* "5.14.0-rc1" -> 5, 14; false when it is not a version. */
static bool kernel_version(const char *release, unsigned *major, unsigned *minor)
{
        char *end = NULL;
        unsigned long a = strtoul(release, &end, 10);
        if (end == release || *end != '.')
                return false;
        const char *m = end + 1;
        unsigned long b = strtoul(m, &end, 10);
        if (end == m)
                return false;
        *major = (unsigned)a;
        *minor = (unsigned)b;
        return true;
}

/* The id of the parent namespace that |id| maps to in a uid_map text, or
 * -1 when it maps to none. */
static long long map_outside(const char *map, unsigned id)
{
        for (const char *l = map; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                unsigned long long v[3];
                const char *p = l;
                int n = 0;
                for (char *end = NULL; n < 3; n++, p = end) {
                        while (*p == ' ' || *p == '\t')
                                p++;
                        if (*p < '0' || *p > '9')
                                break;
                        v[n] = strtoull(p, &end, 10);
                }
                if (n == 3 && id >= v[0] && id - v[0] < v[2])
                        return (long long)(v[1] + (id - v[0]));
        }
        return -1;
}

bool cgroup_nproc_rlimit(const cgroup_env *env, char **ret_why)
{
        *ret_why = NULL;
        _cleanup_free_ char *rel_path = cg_at_root(env, "/proc/sys/kernel/osrelease");
        _cleanup_free_ char *map_path = cg_at_root(env, "/proc/self/uid_map");
        _cleanup_free_ char *rel = rel_path ? cg_read_text(rel_path) : NULL;
        _cleanup_free_ char *map = map_path ? cg_read_text(map_path) : NULL;
        unsigned major = 0, minor = 0;
        if (!rel || !kernel_version(rel, &major, &minor)) {
                *ret_why = xasprintf("the kernel's version is unknown (/proc/sys/kernel/osrelease), and before "
                                     "Linux 5.14 it counts the user's processes on the whole host");
                return false;
        }
        if (major < 5 || (major == 5 && minor < 14)) {
                *ret_why = xasprintf("Linux %u.%u counts it per user on the whole host (per user namespace only "
                                     "since 5.14)",
                                     major, minor);
                return false;
        }
        /* The kernel exempts the host's root (and CAP_SYS_RESOURCE, which
         * the command never has). A uid that maps to 0 outside, or an
         * unreadable map, counts as root. */
        long long outside = map ? map_outside(map, (unsigned)env->uid) : 0;
        if (outside == 0) {
                *ret_why = xasprintf("root (uid 0 of the host) is exempt from it");
                return false;
        }
        return true;
}

int cgroup_pids_mechanism(const cgroup_env *env, bool own_userns, bool sandbox_user, char **ret_text)
{
        *ret_text = NULL;
        probe pr;
        if (cg_probe_read(env, &pr) < 0)
                return -ENOMEM;
        _cleanup_free_ char *where = NULL, *why = NULL, *nproc_why = NULL;
        int r = dry_plan(env, &pr, C_PIDS, &where, &why);
        cg_probe_free(&pr);
        if (r == -ENOMEM && !why)
                return -ENOMEM;
        pids_by by;
        if (r == 0) {
                by = PIDS_BY_CGROUP;
                *ret_text = xasprintf("the pids cgroup (in %s)", where ? where : "?");
        } else if (sandbox_user) {
                by = PIDS_BY_RLIMIT;
                *ret_text = xasprintf("RLIMIT_NPROC of the sandbox user, whose uid is the instance's alone (no "
                                      "pids cgroup: %s)",
                                      why ? why : strerror(-r));
        } else if (own_userns && cgroup_nproc_rlimit(env, &nproc_why)) {
                by = PIDS_BY_RLIMIT;
                *ret_text = xasprintf("RLIMIT_NPROC in the sandbox's user namespace (no pids cgroup: %s)",
                                      why ? why : strerror(-r));
        } else {
                by = PIDS_BY_NONE;
                *ret_text = xasprintf("cannot be enforced: no pids cgroup (%s), and RLIMIT_NPROC cannot stand in (%s)",
                                      why ? why : strerror(-r),
                                      nproc_why ? nproc_why : "only in the linux backend's user namespace");
        }
        return *ret_text ? (int)by : -ENOMEM;
}

char *cgroup_summary(const cgroup_env *env)
{
        probe pr;
        if (cg_probe_read(env, &pr) < 0)
                return NULL;
        buf b = {0};
        bool any = false;
        for (int c = 0; c < C__MAX; c++)
                any |= pr.version[c] != 0;
        if (!any) {
                buf_printf(&b, "none (no memory, pids or cpu controller mounted): --memory, --pids and --cpus "
                               "cannot be enforced");
        } else {
                /* One clause per controller: version and whether this user can use it. */
                for (int c = 0; c < C__MAX; c++) {
                        buf_printf(&b, "%s%s: ", c ? "; " : "", CGROUP_CTRL[c]);
                        if (!pr.version[c]) {
                                buf_printf(&b, "missing");
                                continue;
                        }
                        char *where = NULL, *w = NULL;
                        int r = dry_plan(env, &pr, c, &where, &w);
                        if (r == 0)
                                buf_printf(&b, "v%d, usable (in %s)", pr.version[c], where ? where : "?");
                        else
                                buf_printf(&b, "v%d, not usable: %s", pr.version[c], w ? w : strerror(-r));
                        free(where);
                        free(w);
                }
                if (pr.v2_mount && pr.version[C_MEMORY] != 2 && pr.version[C_PIDS] != 2 && pr.version[C_CPU] != 2)
                        buf_printf(&b, "; cgroup v2 at %s holds none of them (hybrid host)",
                                   pr.v2_mount + strlen(env->root ? env->root : ""));
        }
        cg_probe_free(&pr);
        return buf_steal(&b);
}

char *host_cgroup_summary(void)
{
        cgroup_env env = cgroup_env_host();
        return cgroup_summary(&env);
}

int host_pids_mechanism(bool own_userns, bool sandbox_user, char **ret_text)
{
        cgroup_env env = cgroup_env_host();
        return cgroup_pids_mechanism(&env, own_userns, sandbox_user, ret_text);
}
