/* SPDX-License-Identifier: MIT */
/* The plan as an SBPL profile.
 *
 * Seatbelt evaluates the rules of a profile in order and the last one that
 * matches an operation decides (Apple's profiles and both peers' generators
 * rely on it: the Claude Code sandbox runtime re-allows paths inside denied
 * regions by writing the allow after the deny). So the profile is written
 * like the mount plan is applied: parents before children, each rule
 * overriding what came before it for its subtree, and the denials that must
 * always hold (protected paths, hidden logs, no renaming of their parents)
 * last of all.
 *
 * Paths are never pasted into the text: each is a parameter, (param "NAME"),
 * defined on the sandbox-exec command line with -D NAME=PATH, so no path
 * (quotes, parentheses, backslashes, newlines) can change the profile. */
#include "seatbelt/render.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* What programs need from the system to start and run on macOS: the
 * executables and libraries, the dyld shared cache (in the Cryptexes since
 * macOS 13, /private/var/db/dyld before), the command line tools that the
 * /usr/bin shims of git, clang, make run, Rosetta's runtime. Not /System
 * as a whole: /System/Volumes/Data is the data volume, users' homes
 * included. */
static const char *const SYSTEM_SUBPATHS[] = {
        "/usr",
        "/bin",
        "/sbin",
        "/System/Library",
        "/System/Cryptexes",
        "/System/Volumes/Preboot/Cryptexes",
        "/Library/Apple",
        "/Library/Developer/CommandLineTools",
        "/private/var/db/dyld",
        "/private/var/db/timezone",
        "/private/var/select",
        NULL,
};

/* From /private/etc only what programs read to run (as the Linux view's
 * /etc), and the shells' start-up files. */
static const char *const ETC_ENTRIES[] = {
        "hosts",   "resolv.conf", "services", "protocols", "passwd", "group", "localtime", "shells",
        "paths",   "profile",     "bashrc",   "zshenv",    "zprofile", "zshrc", "gitconfig", NULL,
};
static const char *const ETC_DIRS[] = {"ssl", "paths.d", NULL};

/* Files outside those directories, and the root symlinks into /private. */
static const char *const SYSTEM_LITERALS[] = {
        "/etc", "/tmp", "/var", "/private/var/run/resolv.conf", "/private/var/db/xcode_select_link", NULL,
};

/* Devices every program may open (read, write, ioctl). */
static const char *const DEVICES[] = {
        "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/dtracehelper", NULL,
};

/* sysctls programs read to learn about the machine and themselves. Not
 * kern.* as a whole: kern.proc.all and kern.procargs2 list every process of
 * the host with its command line. */
static const char *const SYSCTL_PREFIXES[] = {"hw.", "machdep.cpu.", "kern.proc.pid.", "kern.proc.pgrp.", NULL};
static const char *const SYSCTL_NAMES[] = {
        "kern.argmax",     "kern.hostname",         "kern.maxfiles",      "kern.maxfilesperproc",
        "kern.maxproc",    "kern.ngroups",          "kern.osproductversion", "kern.osrelease",
        "kern.ostype",     "kern.osvariant_status", "kern.osversion",     "kern.secure_kernel",
        "kern.usrstack64", "kern.version",          "kern.boottime",      "vm.loadavg",
        "vm.pagesize",     "sysctl.proc_cputype",   "security.mac.lockdown_mode_state", NULL,
};

/* Mach services of the base system: logging, notifications, user and group
 * lookups (getpwuid goes through opendirectoryd), the per-user temporary
 * directory helper, power assertions. Not launchservicesd nor lsd: through
 * them a command could have apps started outside the sandbox. */
static const char *const MACH_SERVICES[] = {
        "com.apple.system.logger",
        "com.apple.logd",
        "com.apple.system.notification_center",
        "com.apple.system.opendirectoryd.libinfo",
        "com.apple.system.opendirectoryd.membership",
        "com.apple.bsd.dirhelper",
        "com.apple.PowerManagement.control",
        NULL,
};
/* TLS certificate checks (Security.framework), wherever TLS can get out. */
static const char *const MACH_TLS[] = {
        "com.apple.SecurityServer", "com.apple.trustd.agent", "com.apple.ocspd", NULL,
};
/* Name resolution and network configuration: the full network only. */
static const char *const MACH_NETWORK[] = {
        "com.apple.dnssd.service",
        "com.apple.networkd",
        "com.apple.SystemConfiguration.DNSConfiguration",
        "com.apple.SystemConfiguration.configd",
        NULL,
};

typedef struct render {
        const cordon_plan *p;
        const seatbelt_options *o;
        buf b;
        char **params;
        char **writable;  /* canonical paths of the writable rules so far */
        char **writable_names; /* ... and their parameters */
        char **confined;  /* canonical paths denied inside a writable rule */
        char **no_move;   /* canonical directories that may not be renamed */
        unsigned counts[ORIGIN_GENERATED + 1];
        bool oom;
} render;

char *seatbelt_canonical(const char *path)
{
        static const char *const LINKED[] = {"/var", "/tmp", "/etc"};
        for (size_t i = 0; i < ARRAY_SIZE(LINKED); i++)
                if (path_startswith(path, LINKED[i]))
                        return strjoin2("/private", path);
        return strdup(path);
}

void seatbelt_profile_clear(seatbelt_profile *sp)
{
        free(sp->text);
        sp->text = NULL;
        sp->params = strv_free(sp->params);
}

static void put(render *r, const char *s) { buf_put(&r->b, s, strlen(s)); }

/* Define the parameter NAME=canonical(path); |name| gets its name. */
static void param(render *r, const char *name, const char *path)
{
        _cleanup_free_ char *canon = seatbelt_canonical(path);
        if (!canon || strv_consume(&r->params, strjoin3(name, "=", canon)) < 0)
                r->oom = true;
}

static bool strv_has(char *const *v, const char *s)
{
        for (size_t i = 0; v && v[i]; i++)
                if (streq(v[i], s))
                        return true;
        return false;
}

static bool below_writable(const render *r, const char *canon)
{
        for (size_t i = 0; r->writable && r->writable[i]; i++)
                if (path_startswith(canon, r->writable[i]))
                        return true;
        return false;
}

static void push(render *r, char ***v, const char *canon)
{
        if (!strv_has(*v, canon) && strv_push(v, canon) < 0)
                r->oom = true;
}

/* A list of (FILTER "x") lines, one per entry, with |prefix| before each. */
static void filters(render *r, const char *filter, const char *prefix, const char *const *v)
{
        for (size_t i = 0; v[i]; i++)
                buf_printf(&r->b, "  (%s \"%s%s\")\n", filter, prefix, v[i]);
}

static void section_process(render *r)
{
        put(r, "; processes: fork and exec freely (children inherit the profile); signals and\n"
               "; process information only within this sandbox\n"
               "(allow process-fork)\n"
               "(allow process-exec)\n"
               "(allow signal (target same-sandbox))\n"
               "(allow process-info* (target same-sandbox))\n"
               "; host_processor_info() (os.cpus() in Node.js)\n"
               "(allow mach-host*)\n"
               "; POSIX semaphores (Python's multiprocessing locks); not POSIX shared memory,\n"
               "; whose names are global to the host\n"
               "(allow ipc-posix-sem)\n\n");
}

static void section_system(render *r)
{
        put(r, "; the machine and the base system's services\n(allow sysctl-read\n");
        filters(r, "sysctl-name-prefix", "", SYSCTL_PREFIXES);
        filters(r, "sysctl-name", "", SYSCTL_NAMES);
        put(r, ")\n(allow mach-lookup\n");
        filters(r, "global-name", "", MACH_SERVICES);
        put(r, ")\n\n; system files, read-only\n(allow file-read*\n");
        filters(r, "subpath", "", SYSTEM_SUBPATHS);
        filters(r, "literal", "/private/etc/", ETC_ENTRIES);
        filters(r, "subpath", "/private/etc/", ETC_DIRS);
        filters(r, "literal", "", SYSTEM_LITERALS);
        put(r, ")\n; stat() of any directory, so that getcwd() and realpath() can walk up from\n"
               "; what is visible (listing one is file-read-data, not allowed)\n"
               "(allow file-read-metadata (vnode-type DIRECTORY))\n\n"
               "; devices\n(allow file-read* file-write-data file-ioctl\n");
        filters(r, "literal", "", DEVICES);
        put(r, ")\n(allow file-read* file-write* (subpath \"/dev/fd\"))\n"
               "; pseudo-terminals: openpty() in the sandbox, and the terminal it inherits\n"
               "(allow pseudo-tty)\n"
               "(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\"))\n"
               "(allow file-read* file-write*\n"
               "  (require-all (regex #\"^/dev/ttys[0-9]+$\") (extension \"com.apple.sandbox.pty\")))\n"
               "(allow file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n\n");
}

/* The parameter name of a plan rule. */
static void rule_name(render *r, const plan_mount *m, char name[48])
{
        const cordon_plan *p = r->p;
        if (m->origin == ORIGIN_INSTANCE && m->type == MOUNT_TMPFS) {
                snprintf(name, 48, "LOGS");
        } else if (m->origin == ORIGIN_INSTANCE && streq(m->target, p->instance_root)) {
                snprintf(name, 48, "INSTANCE");
        } else if (m->origin == ORIGIN_INSTANCE && path_startswith(m->target, p->instance_root) &&
                   streq(path_skip_prefix(m->target, p->instance_root), "skills")) {
                snprintf(name, 48, "SKILLS");
        } else if (m->origin == ORIGIN_WORKSPACE) {
                snprintf(name, 48, "WORKSPACE");
        } else {
                const char *o = mount_origin_name(m->origin);
                size_t k = 0;
                for (; k < 20 && o[k]; k++)
                        name[k] = (char)(o[k] >= 'a' && o[k] <= 'z' ? o[k] - 'a' + 'A' : o[k]);
                snprintf(name + k, 48 - k, "_%u", r->counts[m->origin]++);
        }
}

/* The ancestors of the confined path |canon| that lie in a writable rule:
 * renaming one would carry |canon| to a path no rule denies. */
static void add_no_move(render *r, const char *canon)
{
        _cleanup_free_ char *a = path_dirname(canon);
        while (a && !streq(a, "/") && below_writable(r, a)) {
                push(r, &r->no_move, a);
                char *up = path_dirname(a);
                free(a);
                a = up;
        }
        if (!a)
                r->oom = true;
}

/* Name |m|'s rule in |name| and define its parameter. Returns the
 * canonical path of its target (caller frees), NULL when out of memory. */
static char *rule_param(render *r, const plan_mount *m, char name[48])
{
        rule_name(r, m, name);
        param(r, name, m->target);
        char *canon = seatbelt_canonical(m->target);
        if (!canon)
                r->oom = true;
        return canon;
}

/* One rule of the plan, as the mount it stands for would act. */
static void plan_rule(render *r, const plan_mount *m)
{
        if (m->origin == ORIGIN_SYSTEM || m->origin == ORIGIN_GENERATED || m->origin == ORIGIN_PROTECT)
                return; /* the planning host's system; protected paths come last */
        if (m->type != MOUNT_BIND && m->type != MOUNT_TMPFS)
                return;
        char name[48];
        _cleanup_free_ char *canon = rule_param(r, m, name);
        if (!canon)
                return;
        const char *filter = m->type == MOUNT_TMPFS || m->is_dir || m->missing ? "subpath" : "literal";
        const char *origin = mount_origin_name(m->origin);
        if (m->type == MOUNT_TMPFS) { /* hidden (the instance's logs/) */
                buf_printf(&r->b, "; hidden (%s)\n(deny file-read* file-write* (%s (param \"%s\")))\n", origin,
                           filter, name);
                push(r, &r->confined, canon);
        } else if (m->writable) {
                buf_printf(&r->b, "; read-write (%s)\n(allow file-read* file-write* (%s (param \"%s\")))\n",
                           origin, filter, name);
                push(r, &r->writable, canon);
                push(r, &r->writable_names, name);
        } else {
                buf_printf(&r->b, "; read-only (%s)\n(allow file-read* (%s (param \"%s\")))\n", origin, filter,
                           name);
                if (below_writable(r, canon)) {
                        buf_printf(&r->b, "(deny file-write* (%s (param \"%s\")))\n", filter, name);
                        push(r, &r->confined, canon);
                }
        }
}

/* Protected paths (the .git control files): never written, created, hard
 * linked elsewhere to be written there, nor moved away with a parent. */
static void section_protect(render *r)
{
        bool any = false;
        for (size_t i = 0; i < r->p->n_mounts; i++) {
                const plan_mount *m = &r->p->mounts[i];
                if (m->origin != ORIGIN_PROTECT || m->type != MOUNT_BIND || m->writable)
                        continue;
                char name[48];
                _cleanup_free_ char *canon = rule_param(r, m, name);
                if (!canon)
                        return;
                if (!any)
                        put(r, "\n; protected: never writable, whatever allowed it above (the last match wins)\n");
                any = true;
                buf_printf(&r->b, "(deny file-write* file-link (subpath (param \"%s\")))%s\n", name,
                           m->missing ? " ; absent: creating it is denied" : "");
                push(r, &r->confined, canon);
        }
}

static void section_no_move(render *r)
{
        for (size_t i = 0; r->confined && r->confined[i]; i++)
                add_no_move(r, r->confined[i]);
        if (!r->no_move)
                return;
        put(r, "\n; the directories above read-only, hidden and protected paths may not be renamed\n");
        for (size_t i = 0; r->no_move[i]; i++) {
                char name[48];
                snprintf(name, sizeof(name), "NO_MOVE_%zu", i);
                param(r, name, r->no_move[i]);
                buf_printf(&r->b, "(deny file-write-unlink (literal (param \"%s\")))\n", name);
        }
}

/* Unix sockets: only in the writable directories, as on Linux, where only
 * the sockets of the sandbox's own view can be reached. */
static void section_unix_sockets(render *r)
{
        put(r, "\n; unix sockets, only inside the writable directories\n"
               "(allow system-socket (socket-domain AF_UNIX))\n");
        for (size_t i = 0; r->writable_names && r->writable_names[i]; i++) {
                const char *name = r->writable_names[i];
                buf_printf(&r->b, "(allow network-bind (local unix-socket (subpath (param \"%s\"))))\n", name);
                buf_printf(&r->b, "(allow network-outbound (remote unix-socket (subpath (param \"%s\"))))\n", name);
        }
}

static void mach_rule(render *r, const char *const *names)
{
        put(r, "(allow mach-lookup\n");
        filters(r, "global-name", "", names);
        put(r, ")\n");
}

/* Seatbelt's ip filters take only "localhost" or "*" as the host; localhost
 * is 127.0.0.1 and ::1 (not ::ffff:127.0.0.1: a dual-stack socket bound to
 * 127.0.0.1 is refused). */
static void section_network(render *r)
{
        cordon_network n = r->p->network;
        if (n == CORDON_NETWORK_PROXY) {
                char port[32];
                snprintf(port, sizeof(port), "%d", r->o ? r->o->proxy_port : 0);
                param(r, "PROXY_PORT", r->o && r->o->proxy_port > 0 ? port : SEATBELT_PORT_AT_START);
                put(r, "\n; network: proxy: only cordon's proxy on the loopback port PROXY_PORT\n"
                       "(allow system-socket (socket-domain AF_INET) (socket-domain AF_INET6))\n"
                       "(allow network-outbound (remote ip (string-append \"localhost:\" (param \"PROXY_PORT\"))))\n");
                mach_rule(r, MACH_TLS);
        } else if (n == CORDON_NETWORK_LOOPBACK) {
                put(r, "\n; network: loopback only\n"
                       "(allow system-socket (socket-domain AF_INET) (socket-domain AF_INET6))\n"
                       "(allow network-bind network-inbound (local ip \"localhost:*\"))\n"
                       "(allow network-outbound (remote ip \"localhost:*\"))\n");
        } else if (n == CORDON_NETWORK_FULL) {
                put(r, "\n; network: full (IP; unix sockets stay as above, but for name resolution)\n"
                       "(allow system-socket (socket-domain AF_INET) (socket-domain AF_INET6) (socket-domain "
                       "AF_SYSTEM))\n"
                       "(allow network-bind network-inbound (local ip))\n"
                       "(allow network-outbound (remote ip))\n"
                       "(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))\n"
                       "(allow sysctl-read (sysctl-name-prefix \"net.routetable.\"))\n");
                mach_rule(r, MACH_TLS);
                mach_rule(r, MACH_NETWORK);
        } else {
                put(r, "\n; network: none (denied by default)\n");
        }
}

int seatbelt_render(const cordon_plan *p, const seatbelt_options *o, seatbelt_profile *ret)
{
        render r = {.p = p, .o = o};
        put(&r, "(version 1)\n"
                "; cordon's seatbelt profile, generated from the plan: every path is a\n"
                "; parameter (-D NAME=PATH), none is written in this text\n"
                "(deny default)\n\n");
        section_process(&r);
        section_system(&r);
        put(&r, "; the plan: parents before children, the last matching rule wins\n");
        for (size_t i = 0; i < p->n_mounts; i++)
                plan_rule(&r, &p->mounts[i]);
        section_unix_sockets(&r);
        section_network(&r);
        section_protect(&r);
        section_no_move(&r);
        strv_free(r.writable);
        strv_free(r.writable_names);
        strv_free(r.confined);
        strv_free(r.no_move);
        char *text = buf_steal(&r.b);
        if (r.oom || !text) {
                free(text);
                strv_free(r.params);
                return -ENOMEM;
        }
        *ret = (seatbelt_profile){.text = text, .params = r.params};
        return 0;
}
