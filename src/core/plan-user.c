/* SPDX-License-Identifier: MIT */
/* Who the command runs as (isolation.user). Root without a user namespace
 * (the landlock backend, a container's root) would run the command as
 * root: exempt from RLIMIT_NPROC (so --pids binds nothing without a pids
 * cgroup), the owner of root's 0600 files, a peer of root's processes for
 * signals and ptrace. There the command runs as a sandbox user instead:
 *
 * - one uid per instance, the gid the same number: an unused id (in no
 *   /etc/passwd or /etc/group entry) picked from the instance root's path
 *   in 0x7E000000..0x7EFFFFFE, above the ranges systemd assigns to users,
 *   dynamic users and containers (systemd.io/UIDS-GIDS) and below 2^31.
 *   Per instance rather than one for all: without a user namespace a
 *   container's uid is the host's, so a fixed one would share its
 *   RLIMIT_NPROC count (and its files, its signals) with every other
 *   sandbox of every container of the machine; per run, files would change
 *   hands between runs. Two runs of one instance share the count.
 * - no supplementary groups, no capabilities, no entry in /etc/passwd
 *   (getpwuid finds none: `id` prints the number).
 * - what it may write it gets by POSIX ACLs (src/linux/sandbox-user.c),
 *   never by a change of owner, so the host's git keeps trusting the
 *   user's own repositories.
 * Root of a user namespace that maps no other id (a rootless container's)
 * stays itself: it is not the host's root, and has no other id to be.
 * "caller" keeps root root, as cordon did before. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "error.h"
#include "plan-internal.h"

#define SANDBOX_ID_BASE 0x7E000000u
#define SANDBOX_ID_SPAN 0x00FFFFFFu

static uint32_t fnv1a(const char *s)
{
        uint32_t h = 2166136261u;
        for (; *s; s++)
                h = (h ^ (uint8_t)*s) * 16777619u;
        return h;
}

/* Whether |id| is the third field of a line of |root|/|file| (a passwd or
 * group file: name:x:ID:...). Unreadable counts as no. */
static bool id_listed(const char *root, const char *file, uint32_t id)
{
        char path[4096], line[4096];
        snprintf(path, sizeof(path), "%s%s", root ? root : "", file);
        FILE *f = fopen(path, "re");
        bool found = false;
        while (f && !found && fgets(line, sizeof(line), f)) {
                const char *p = strchr(line, ':');
                p = p ? strchr(p + 1, ':') : NULL;
                char *end = NULL;
                unsigned long v = p ? strtoul(p + 1, &end, 10) : 0;
                found = p && end != p + 1 && *end == ':' && v == id;
        }
        if (f)
                fclose(f);
        return found;
}

/* Whether |id| is mapped in |root|/|file| (/proc/self/uid_map: "inside
 * outside count" lines). Root in a user namespace of its own (a rootless
 * runtime's) has no other id to become, and is not the host's root. An
 * unreadable map counts as the initial namespace's, which maps all. */
static bool id_mapped(const char *root, const char *file, uint32_t id)
{
        char path[4096];
        snprintf(path, sizeof(path), "%s%s", root ? root : "", file);
        FILE *f = fopen(path, "re");
        if (!f)
                return true;
        char line[256];
        bool found = false;
        while (!found && fgets(line, sizeof(line), f)) {
                char *p = line, *end = NULL;
                unsigned long long v[3];
                int k = 0;
                for (; k < 3; k++, p = end) {
                        v[k] = strtoull(p, &end, 10);
                        if (end == p)
                                break;
                }
                found = k == 3 && id >= v[0] && id - v[0] < v[2];
        }
        fclose(f);
        return found;
}

uint32_t plan_sandbox_id(const char *root, const char *instance_root)
{
        uint32_t off = fnv1a(instance_root) % SANDBOX_ID_SPAN;
        for (uint32_t tries = 0; tries < 1024; tries++, off = (off + 1) % SANDBOX_ID_SPAN) {
                uint32_t id = SANDBOX_ID_BASE + off;
                if (!id_listed(root, "/etc/passwd", id) && !id_listed(root, "/etc/group", id))
                        return id;
        }
        return SANDBOX_ID_BASE + off; /* a thousand taken in a row: no such file is real */
}

int plan_user_env(cordon_plan *p)
{
        if (!p->sandbox_user)
                return 0;
        /* the user's repositories keep their owner (root): the command's git
         * refuses them as another user's ("dubious ownership") unless told
         * they are safe, by configuration from the environment (git reads
         * it as the command line's, which may say so) after the caller's */
        const char *count = NULL;
        size_t n = 0;
        for (size_t i = 0; p->env && p->env[i]; i++)
                if (!strncmp(p->env[i], "GIT_CONFIG_COUNT=", 17))
                        count = p->env[i] + 17;
        char *end = NULL;
        unsigned long k = count ? strtoul(count, &end, 10) : 0;
        if (count && (end == count || *end || k > 1000))
                return 0; /* git refuses such a count: so would it ours */
        n = (size_t)k;
        char key[40], value[40], next[24];
        snprintf(key, sizeof(key), "GIT_CONFIG_KEY_%zu", n);
        snprintf(value, sizeof(value), "GIT_CONFIG_VALUE_%zu", n);
        snprintf(next, sizeof(next), "%zu", n + 1);
        int r = env_set(&p->env, key, "safe.directory");
        if (r == 0)
                r = env_set(&p->env, value, "*");
        return r == 0 ? env_set(&p->env, "GIT_CONFIG_COUNT", next) : r;
}

int plan_user(const cordon_config *c, const host_info *h, cordon_plan *p, cordon_error **ret_error)
{
        p->run_uid = p->uid;
        p->run_gid = p->gid;
        bool root_without_userns = p->uid == 0 && p->backend == BACKEND_LANDLOCK;
        if (c->user == USER_CALLER || p->backend == BACKEND_NONE || (c->user == USER_AUTO && !root_without_userns))
                return 0;
        if (!root_without_userns)
                return error_set(ret_error, EINVAL, "isolation.user \"sandbox\": %s",
                                 p->uid != 0 ? "only root can run the command as another user, and cordon does not "
                                               "run as root: the command runs as you (\"auto\")"
                                 : p->backend == BACKEND_LINUX
                                         ? "the linux backend runs the command as you, mapped into a user namespace "
                                           "of its own, with no capability; the sandbox user is the landlock "
                                           "backend's, for root without one"
                                         : "the sandbox user is the landlock backend's");
        uint32_t id = plan_sandbox_id(h->root, p->instance_root);
        if (!id_mapped(h->root, "/proc/self/uid_map", id) || !id_mapped(h->root, "/proc/self/gid_map", id)) {
                if (c->user == USER_AUTO)
                        return 0; /* root of a user namespace: not the host's root */
                return error_set(ret_error, EINVAL,
                                 "isolation.user \"sandbox\": cordon runs as root of a user namespace that maps no "
                                 "other id (a rootless container's): the command runs as that root, which is not "
                                 "the host's (\"auto\")");
        }
        p->sandbox_user = true;
        p->run_uid = p->run_gid = id;
        return 0;
}
