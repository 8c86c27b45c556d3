/* SPDX-License-Identifier: MIT */
/* The plan as text (the "linux isolation mount plan" log) and as JSON. */
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "plan.h"
#include "net/proxy.h"

static const struct {
        unsigned long flag;
        const char *name;
} NAMESPACES[] = {
        {CLONE_NEWUSER, "user"}, {CLONE_NEWNS, "mount"},     {CLONE_NEWPID, "pid"}, {CLONE_NEWIPC, "ipc"},
        {CLONE_NEWUTS, "uts"},   {CLONE_NEWCGROUP, "cgroup"}, {CLONE_NEWNET, "net"},
};

static const char *const LIMIT_KEYS[CORDON_LIMIT__MAX] = {
        [CORDON_LIMIT_WALL_TIME_S] = "wall_time_s",       [CORDON_LIMIT_CPU_TIME_S] = "cpu_time_s",
        [CORDON_LIMIT_MEMORY_BYTES] = "memory_bytes",     [CORDON_LIMIT_PIDS] = "pids",
        [CORDON_LIMIT_OPEN_FILES] = "open_files",         [CORDON_LIMIT_FILE_SIZE_BYTES] = "file_size_bytes",
        [CORDON_LIMIT_TMP_SIZE_BYTES] = "tmp_size_bytes", [CORDON_LIMIT_CPU_QUOTA] = "cpu_quota",
        [CORDON_LIMIT_KILL_AFTER_S] = "kill_after_s",
};

static const char *plan_title(const cordon_plan *p)
{
        switch (p->backend) {
        case BACKEND_LANDLOCK: return "landlock isolation access rules";
        case BACKEND_SEATBELT: return "seatbelt isolation access rules";
        case BACKEND_WINDOWS: return "windows isolation plan";
        default: return "linux isolation mount plan";
        }
}

static void text_mount(buf *b, const plan_mount *m)
{
        const char *mode = m->writable ? "rw" : "ro";
        switch (m->type) {
        case MOUNT_BIND:
                buf_printf(b, "%s  %s%s -> %s  (%s)%s\n", mode, m->source,
                           m->etc_view ? " (what others may read, less cordon's deny list)" : "", m->target,
                           mount_origin_name(m->origin), m->missing ? "  [absent: creating it is denied]" : "");
                break;
        case MOUNT_SYMLINK:
                buf_printf(b, "ro  symlink %s -> %s  (%s)\n", m->source, m->target, mount_origin_name(m->origin));
                break;
        case MOUNT_FILE:
                buf_printf(b, "ro  generated -> %s  (%s)\n", m->target, mount_origin_name(m->origin));
                break;
        default:
                buf_printf(b, "%s  %s -> %s  (%s)\n", mode, mount_type_name(m->type), m->target,
                           mount_origin_name(m->origin));
                if (m->type == MOUNT_PROC) {
                        buf_printf(b, "      read-only:");
                        for (size_t i = 0; PROC_READ_ONLY[i]; i++)
                                buf_printf(b, " /proc/%s", PROC_READ_ONLY[i]);
                        buf_printf(b, "\n      masked:");
                        for (size_t i = 0; PROC_MASKED[i]; i++)
                                buf_printf(b, " /proc/%s", PROC_MASKED[i]);
                        buf_printf(b, "\n");
                }
                break;
        }
}

/* A limit for people: sizes as "512M" when exact, whole numbers in full
 * (not 1.07374e+09), fractions in the fewest digits that read back exactly. */
static void format_limit(int which, double v, char out[32])
{
        bool size = which == CORDON_LIMIT_MEMORY_BYTES || which == CORDON_LIMIT_FILE_SIZE_BYTES ||
                    which == CORDON_LIMIT_TMP_SIZE_BYTES;
        if (size && v == floor(v) && v < 18446744073709551616.0)
                format_size((uint64_t)v, out);
        else if (v == floor(v) && fabs(v) < 1e18)
                snprintf(out, 32, "%.0f", v);
        else {
                snprintf(out, 32, "%.15g", v);
                if (strtod(out, NULL) != v)
                        snprintf(out, 32, "%.17g", v);
        }
}

/* What enforces the process limit, in JSON and in the text form. */
static const char *pids_by_key(pids_by by)
{
        switch (by) {
        case PIDS_BY_CGROUP: return "cgroup";
        case PIDS_BY_RLIMIT: return "rlimit";
        case PIDS_BY_NONE: return "none";
        default: return NULL;
        }
}

static const char *pids_by_text(pids_by by)
{
        switch (by) {
        case PIDS_BY_CGROUP: return " (by the pids cgroup)";
        case PIDS_BY_RLIMIT: return " (by RLIMIT_NPROC in the sandbox's user namespace)";
        case PIDS_BY_NONE: return " (nothing here can enforce it: see cordon check)";
        default: return "";
        }
}

static void text_limits(buf *b, const cordon_plan *p)
{
        bool any = false;
        for (int i = 0; i < CORDON_LIMIT__MAX; i++) {
                if (i == CORDON_LIMIT_KILL_AFTER_S || p->limits[i] == 0)
                        continue;
                char v[32];
                format_limit(i, p->limits[i], v);
                buf_printf(b, "%s %s=%s%s", any ? "" : "limits:", LIMIT_KEYS[i], v,
                           i != CORDON_LIMIT_PIDS               ? ""
                           : p->sandbox_user && p->pids_by == PIDS_BY_RLIMIT ? " (by RLIMIT_NPROC of the sandbox user)"
                                                                             : pids_by_text(p->pids_by));
                any = true;
        }
        buf_printf(b, "%s\n", any ? "" : "limits: none");
}

static void text_network_allow(buf *b, const cordon_plan *p)
{
        if (p->backend == BACKEND_LANDLOCK || p->backend == BACKEND_SEATBELT)
                buf_printf(b, "network proxy: %s on the host, a port chosen at start (it replaces %d in the env) "
                              "(HTTP, CONNECT, SOCKS5), allow:",
                           PROXY_HOST, PROXY_PORT);
        else
                buf_printf(b, "network proxy: %s:%d inside (HTTP, CONNECT, SOCKS5), allow:", PROXY_HOST, PROXY_PORT);
        for (size_t i = 0; p->network_allow && p->network_allow[i]; i++)
                buf_printf(b, " %s", p->network_allow[i]);
        buf_printf(b, "%s\n", p->network_allow && p->network_allow[0] ? "" : " nothing");
}

char *cordon_plan_to_text(const cordon_plan *p)
{
        buf b = {0};
        if (p->backend == BACKEND_NONE) {
                buf_printf(&b, "isolation disabled%s%s: the command runs on the host, unisolated\n",
                           p->disabled_by ? " by " : "", p->disabled_by ? p->disabled_by : "");
        } else {
                buf_printf(&b, "%s\n", plan_title(p));
                for (size_t i = 0; i < p->n_mounts; i++)
                        text_mount(&b, &p->mounts[i]);
                buf_printf(&b, "namespaces:");
                for (size_t i = 0; i < ARRAY_SIZE(NAMESPACES); i++)
                        if (p->namespaces & NAMESPACES[i].flag)
                                buf_printf(&b, " %s", NAMESPACES[i].name);
                buf_printf(&b, "%s\n", p->namespaces ? "" : " none");
                buf_printf(&b, "network: %s\n", network_name(p->network));
                if (p->sandbox_user)
                        buf_printf(&b, "user: the sandbox user, uid %u gid %u (isolation.user: root without a user "
                                       "namespace; the writable paths are granted to it by ACLs)\n",
                                   (unsigned)p->run_uid, (unsigned)p->run_gid);
                if (p->network == CORDON_NETWORK_PROXY)
                        text_network_allow(&b, p);
                if (p->backend == BACKEND_LANDLOCK) /* src/linux/supervise.c */
                        buf_printf(&b,
                                   "supervised: mode, owner, times, xattrs only beneath the rw rules; connect: unix "
                                   "sockets beneath them or explicit exposures%s; listen: unix sockets with a path%s\n",
                                   p->network == CORDON_NETWORK_FULL    ? ", any other address"
                                   : p->network == CORDON_NETWORK_PROXY ? ", TCP to the proxy only (no TCP Fast Open)"
                                                                        : "",
                                   p->network == CORDON_NETWORK_FULL ? ", any other socket" : "");
                text_limits(&b, p);
        }
        buf_printf(&b, "env:\n");
        for (size_t i = 0; p->env && p->env[i]; i++)
                buf_printf(&b, "  %s\n", p->env[i]);
        if (p->argv) {
                _cleanup_free_ char *argv = NULL;
                json_t *a = json_array();
                for (size_t i = 0; p->argv[i]; i++)
                        json_array_append_new(a, json_text(p->argv[i]));
                argv = json_dumps(a, JSON_COMPACT);
                json_decref(a);
                buf_printf(&b, "argv: %s\n", argv ? argv : "?");
                buf_printf(&b, "exe: %s\n", p->exe ? p->exe : "?");
                buf_printf(&b, "cwd: %s\n", p->cwd ? p->cwd : "?");
        }
        for (size_t i = 0; p->warnings && p->warnings[i]; i++) /* what cordon run says at the start */
                buf_printf(&b, "warning: %s\n", p->warnings[i]);
        for (size_t i = 0; p->notices && p->notices[i]; i++) /* ... at the instance's first start */
                buf_printf(&b, "warning: %s\n", p->notices[i]);
        for (size_t i = 0; i < p->n_degraded; i++)
                buf_printf(&b, "without: %s: %s\n", p->degraded[i].step, p->degraded[i].why);
        const char *const *hints = cordon_plan_hints(p);
        for (size_t i = 0; hints && hints[i]; i++)
                buf_printf(&b, "note: %s\n", hints[i]);
        const backend_render *rules = backend_render_for(p->backend); /* seatbelt's, windows' own rules */
        if (rules)
                rules->text(&b, p);
        /* paths, argv and env are the caller's and the workspace's: escaped
         * for the terminal, the text's own lines kept */
        _cleanup_free_ char *text = buf_steal(&b);
        return text ? str_escape(text, true) : NULL;
}

static json_t *json_str_or_null(const char *s) { return s ? json_text(s) : json_null(); }

json_t *plan_degraded_json(const cordon_plan *p)
{
        json_t *a = json_array();
        for (size_t i = 0; i < p->n_degraded; i++) {
                json_t *o = json_object();
                json_object_set_new(o, "step", json_text(p->degraded[i].step));
                json_object_set_new(o, "why", json_text(p->degraded[i].why));
                json_array_append_new(a, o);
        }
        return a;
}

static json_t *json_mount(const plan_mount *m)
{
        json_t *o = json_object();
        json_object_set_new(o, "type", json_text(mount_type_name(m->type)));
        json_object_set_new(o, "source", json_str_or_null(m->source));
        json_object_set_new(o, "target", json_text(m->target));
        json_object_set_new(o, "mode", json_text(m->writable ? "rw" : "ro"));
        json_object_set_new(o, "origin", json_text(mount_origin_name(m->origin)));
        if (m->missing)
                json_object_set_new(o, "absent", json_true());
        if (m->etc_view)
                json_object_set_new(o, "view", json_text("world-readable"));
        return o;
}

static json_t *json_strv(char *const *v)
{
        json_t *a = json_array();
        for (size_t i = 0; v && v[i]; i++)
                json_array_append_new(a, json_text(v[i]));
        return a;
}

static json_t *json_env(char *const *env)
{
        json_t *o = json_object();
        for (size_t i = 0; env && env[i]; i++) {
                const char *eq = strchr(env[i], '=');
                _cleanup_free_ char *name = eq ? strndup(env[i], (size_t)(eq - env[i])) : NULL;
                json_t *key = name ? json_text(name) : NULL; /* a name need not be UTF-8 either */
                if (key)
                        json_object_set_new(o, json_string_value(key), json_text(eq + 1));
                json_decref(key);
        }
        return o;
}

static json_t *json_limits(const cordon_plan *p)
{
        json_t *o = json_object();
        for (int i = 0; i < CORDON_LIMIT__MAX; i++) {
                double v = p->limits[i];
                json_object_set_new(o, LIMIT_KEYS[i],
                                    v == (double)(long long)v ? json_integer((json_int_t)v) : json_real(v));
        }
        return o;
}

char *cordon_plan_to_json(const cordon_plan *p)
{
        json_t *o = json_object();
        json_object_set_new(o, "backend", json_text(backend_name(p->backend)));
        json_object_set_new(o, "enabled", json_boolean(p->backend != BACKEND_NONE));
        if (p->disabled_by)
                json_object_set_new(o, "disabled_by", json_text(p->disabled_by));
        json_object_set_new(o, "network", json_text(network_name(p->network)));
        if (p->network == CORDON_NETWORK_PROXY) {
                json_object_set_new(o, "network_allow", json_strv(p->network_allow));
                /* the landlock and seatbelt backends' port is chosen at start: 0 */
                bool on_host = p->backend == BACKEND_LANDLOCK || p->backend == BACKEND_SEATBELT;
                json_object_set_new(o, "network_proxy",
                                    json_text(on_host ? PROXY_HOST ":0" : PROXY_HOST ":" STR(PROXY_PORT)));
        }
        json_t *ns = json_array();
        for (size_t i = 0; i < ARRAY_SIZE(NAMESPACES); i++)
                if (p->namespaces & NAMESPACES[i].flag)
                        json_array_append_new(ns, json_text(NAMESPACES[i].name));
        json_object_set_new(o, "namespaces", ns);
        json_object_set_new(o, "argv", p->argv ? json_strv(p->argv) : json_null());
        json_object_set_new(o, "exe", json_str_or_null(p->exe));
        json_object_set_new(o, "cwd", json_str_or_null(p->cwd));
        json_object_set_new(o, "env", json_env(p->env));
        json_t *mounts = json_array();
        for (size_t i = 0; i < p->n_mounts; i++)
                json_array_append_new(mounts, json_mount(&p->mounts[i]));
        json_object_set_new(o, "mounts", mounts);
        if (p->backend == BACKEND_LINUX) {
                json_t *proc = json_object();
                json_object_set_new(proc, "read_only", json_strv((char *const *)PROC_READ_ONLY));
                json_object_set_new(proc, "masked", json_strv((char *const *)PROC_MASKED));
                json_object_set_new(o, "proc", proc);
        }
        json_object_set_new(o, "limits", json_limits(p));
        if (pids_by_key(p->pids_by))
                json_object_set_new(o, "pids_limit_by", json_text(pids_by_key(p->pids_by)));
        json_object_set_new(o, "instance_root", json_str_or_null(p->instance_root));
        json_object_set_new(o, "workspace", json_str_or_null(p->workspace));
        json_object_set_new(o, "uid", json_integer(p->uid));
        json_object_set_new(o, "gid", json_integer(p->gid));
        json_t *user = json_object();
        json_object_set_new(user, "uid", json_integer(p->run_uid));
        json_object_set_new(user, "gid", json_integer(p->run_gid));
        json_object_set_new(user, "sandbox", json_boolean(p->sandbox_user));
        json_object_set_new(o, "user", user);
        json_object_set_new(o, "hostname", json_str_or_null(p->backend == BACKEND_LINUX ? p->hostname : NULL));
        if ((p->warnings && p->warnings[0]) || (p->notices && p->notices[0])) {
                json_t *w = json_strv(p->warnings), *n = json_strv(p->notices);
                json_array_extend(w, n);
                json_decref(n);
                json_object_set_new(o, "warnings", w);
        }
        if (p->n_degraded)
                json_object_set_new(o, "degraded", plan_degraded_json(p));
        const char *const *hints = cordon_plan_hints(p);
        if (hints && hints[0])
                json_object_set_new(o, "notes", json_strv((char *const *)hints));
        const backend_render *rules = backend_render_for(p->backend);
        if (rules)
                json_object_set_new(o, rules->name, rules->json(p));
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(o);
        return s;
}
