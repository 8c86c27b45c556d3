/* SPDX-License-Identifier: MIT */
/* The one validator of config values: the config file (config-parse.c),
 * the setters and the CLI's flags through them (config-setters.c) accept
 * what these pure functions accept, and name the enums' values with these
 * tables. Each *_problem returns why a value is refused (a static phrase
 * the caller puts after the key) or NULL. */
#include "config-validate.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "error.h"

/* The length of a "~" or "$NAME" prefix that |path| starts with (followed
 * by '/'), or 0. |vars|: whether "$NAME" is accepted. */
static size_t prefix_len(const char *path, bool vars)
{
        if (path[0] == '~')
                return path[1] == '/' ? 1 : 0;
        if (!vars || path[0] != '$')
                return 0;
        size_t n = 1 + strspn(path + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
        return n > 1 && path[n] == '/' ? n : 0;
}

bool config_path_is_expanded(const char *path) { return path_is_absolute(path); }

char *config_path_expand(const char *path, const char *home, char *const *env)
{
        size_t n = prefix_len(path, true);
        if (n == 0)
                return strdup(path);
        _cleanup_free_ char *name = strndup(path + 1, n - 1);
        const char *base = n == 1 ? home : NULL;
        size_t len = name ? strlen(name) : 0;
        for (size_t i = 0; n > 1 && name && env && env[i]; i++)
                if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
                        base = env[i] + len + 1;
        if (!name || !base || !path_is_absolute(base)) {
                errno = name ? ENOENT : ENOMEM;
                return NULL;
        }
        _cleanup_free_ char *joined = path_join(base, path + n + 1);
        char *norm = NULL;
        if (!joined || path_normalize(joined, false, &norm) < 0) {
                errno = joined ? ENOENT : ENOMEM;
                return NULL;
        }
        return norm;
}

/* "$NAME": a whole variable of cordon's own environment (an agent's
 * socket: $SSH_AUTH_SOCK), as a source only. */
bool whole_variable(const char *s)
{
        size_t n = s[0] == '$' ? strspn(s + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") : 0;
        return n > 0 && s[1 + n] == '\0';
}

/* "~/x" and "$NAME/x" normalised after the prefix, "$NAME" (a source's
 * whole variable) as it is; else like path_normalize. */
int normalize_config_path(const char *path, bool vars, char **ret)
{
        if (whole_variable(path))
                return (*ret = strdup(path)) ? 0 : -ENOMEM;
        size_t n = prefix_len(path, vars);
        if (n == 0)
                return path_normalize(path, false, ret);
        _cleanup_free_ char *rest = NULL;
        int r = path_normalize(path + n, false, &rest);
        if (r < 0)
                return r;
        if (streq(rest, "/"))
                return -EINVAL;
        *ret = xasprintf("%.*s%s", (int)n, path, rest);
        return *ret ? 0 : -ENOMEM;
}

/* Checks an exposed target; returns NULL or a static reason. */
const char *target_problem(const char *target)
{
        if (target && prefix_len(target, true) > 0) {
                _cleanup_free_ char *n = NULL;
                return normalize_config_path(target, true, &n) < 0 ? "must name a path below it without \"..\"" : NULL;
        }
        if (!path_is_absolute(target))
                return "must be an absolute path (or start with ~/ or $NAME/)";
        _cleanup_free_ char *n = NULL;
        if (path_normalize(target, false, &n) < 0)
                return "must not contain \"..\"";
        if (path_is_root(n))
                return "must not be \"/\"";
        if (path_startswith(n, "/proc"))
                return "must not be under /proc (the sandbox has its own)";
        return NULL;
}

/* The host's own kernel interfaces: its /proc shows the host's processes
 * (and through /proc/PID/root their files), /sys and /dev its devices. */
static const char *const KERNEL_DIRS[] = {"/proc", "/sys", "/dev", NULL};
/* ... except the world-writable file systems of shared memory and message
 * queues (README: "--expose-rw /dev/shm" on the landlock backend). */
static const char *const SHARED_DEV_DIRS[] = {"/dev/shm", "/dev/mqueue", NULL};
/* What the host runs and trusts: never writable from inside. */
static const char *const SYSTEM_DIRS[] = {"/etc",   "/usr",   "/bin",    "/sbin", "/lib",
                                          "/lib32", "/lib64", "/libx32", "/boot", NULL};

static bool under_any(const char *path, const char *const *dirs)
{
        for (size_t i = 0; dirs[i]; i++)
                if (path_startswith(path, dirs[i]))
                        return true;
        return false;
}

/* /run, /var/run, /run/user or /run/user/UID (and their trailing-slash
 * forms): writable, every socket of the host's daemons and of the user's
 * session below them would be the command's to connect to. */
static bool holds_host_sockets(const char *path)
{
        _cleanup_free_ char *n = NULL;
        if (path_normalize(path, false, &n) < 0)
                return false; /* ".." is refused by the caller's checks */
        const char *rest = path_startswith(n, "/var/run") ? n + 8 : path_startswith(n, "/run") ? n + 4 : NULL;
        if (!rest || !*rest || streq(rest, "/user"))
                return rest != NULL;
        if (strncmp(rest, "/user/", 6) != 0)
                return false;
        rest += 6;
        return rest[0] && strspn(rest, "0123456789") == strlen(rest);
}

const char *writable_path_problem(const char *path)
{
        if (path[0] != '/')
                return NULL; /* "C:\\..." (windows backend): its access rules decide */
        if (path_is_root(path))
                return "must not be \"/\" (the whole host)";
        if (under_any(path, KERNEL_DIRS) && !under_any(path, SHARED_DEV_DIRS))
                return "must not be under /proc, /sys or /dev (the host's kernel interfaces; the sandbox has its "
                       "own)";
        if (under_any(path, SYSTEM_DIRS))
                return "must not be a system directory (/etc, /usr, /bin, /sbin, /lib*, /boot; the sandbox shows "
                       "them read-only)";
        if (holds_host_sockets(path))
                return "must not be /run, /run/user or /run/user/UID (the host's sockets: a container daemon, the "
                       "session bus; expose the one directory or socket meant, below them)";
        return NULL;
}

int config_from_error(cordon_error **ret, int errnum, const char *from, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *m = xvasprintf(fmt, ap);
        va_end(ap);
        return error_set(ret, errnum, "%s: %s", from ? from : "?", m ? m : "out of memory");
}

char *source_expand(const char *source, const char *home, char *const *env)
{
        if (!whole_variable(source))
                return config_path_expand(source, home, NULL);
        size_t len = strlen(source + 1);
        for (size_t i = 0; env && env[i]; i++) {
                const char *eq = strchr(env[i], '=');
                if (!eq || (size_t)(eq - env[i]) != len || memcmp(env[i], source + 1, len) != 0)
                        continue;
                {
                        char *norm = NULL;
                        if (path_is_absolute(env[i] + len + 1) && path_normalize(env[i] + len + 1, false, &norm) == 0)
                                return norm;
                        errno = EINVAL;
                        return NULL;
                }
        }
        errno = ENOENT;
        return NULL;
}

const char *source_problem(const char *source)
{
        if (whole_variable(source))
                return NULL;
        if (prefix_len(source, false) > 0) {
                _cleanup_free_ char *n = NULL;
                return normalize_config_path(source, false, &n) < 0 ? "must name a path below ~ without \"..\"" : NULL;
        }
        if (!path_is_absolute(source))
                return "must be an absolute path (or start with ~/)";
        _cleanup_free_ char *n = NULL;
        if (path_normalize(source, false, &n) < 0)
                return "must not contain \"..\"";
        if (path_startswith(n, "/proc"))
                return "must not be under /proc (the host's processes, and through /proc/PID/root their files; the "
                       "sandbox has its own)";
        return NULL;
}

/* An exposure's normalised source ("~/..." or absolute), as the workspace
 * when |writable|; NULL or why not. */
const char *expose_source_problem(const char *source, bool writable)
{
        return writable ? writable_path_problem(source) : NULL;
}

/* Limits: which ones take fractions, which take size strings. */
bool limit_is_fractional(cordon_limit l)
{
        return l == CORDON_LIMIT_WALL_TIME_S || l == CORDON_LIMIT_CPU_QUOTA || l == CORDON_LIMIT_KILL_AFTER_S;
}

bool limit_is_size(cordon_limit l)
{
        return l == CORDON_LIMIT_MEMORY_BYTES || l == CORDON_LIMIT_FILE_SIZE_BYTES ||
               l == CORDON_LIMIT_TMP_SIZE_BYTES;
}

/* 2^53: every whole number up to it is exact in a double, and it converts
 * to rlim_t, uint64_t and long long without overflow (beyond it those
 * conversions are undefined behaviour). */
#define LIMIT_MAX 9007199254740992.0

/* Why |d| is not a valid value for limit |which|, or NULL. */
const char *limit_problem(cordon_limit which, double d)
{
        if (!isfinite(d))
                return "must be a finite number";
        if (d < 0)
                return "must not be negative";
        if (d > LIMIT_MAX)
                return "must be at most 9007199254740992";
        if (!limit_is_fractional(which) && d != floor(d))
                return "must be a whole number";
        return NULL;
}

/* The one validator of a name to pass (shell_environment_policy.pass,
 * --pass-env, cordon_config_env_pass): why |name| is not one, or NULL. */
const char *pass_name_problem(const char *name)
{
        if (!name || !name[0])
                return "must be a variable name, not empty";
        if (strchr(name, '='))
                return "takes a variable name, whose value comes from cordon's environment (to give a "
                       "variable a value, use set: --set NAME=VALUE)";
        if (strpbrk(name, "*?["))
                return "takes exact variable names, not globs (a secret passes only by its name: list each "
                       "one, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)";
        return NULL;
}

/* The first four and the last can be chosen; the others are reserved names, accepted
 * here so that plan_build can say they are not available in this version. */
const char *const BACKENDS[] = {"auto", "linux", "landlock", "bwrap", "seatbelt", "windows", NULL};
const char *const USABLE_BACKENDS[] = {"auto", "linux", "landlock", "seatbelt", "windows", NULL};

const char *const NETWORKS[] = {"none", "loopback", "full", "proxy", NULL};
const char *const EXPOSE_MODES[] = {"off", "ro", "rw", NULL};
const char *const LANDLOCK_MODES[] = {"best_effort", "required", "off", NULL};
const char *const USER_MODES[] = {"auto", "sandbox", "caller", NULL};
const char *const INHERITS[] = {"core", "all", "none", NULL};

const char *const LIMIT_NAMES[CORDON_LIMIT__MAX] = {
        [CORDON_LIMIT_WALL_TIME_S] = "wall_time_s",     [CORDON_LIMIT_CPU_TIME_S] = "cpu_time_s",
        [CORDON_LIMIT_MEMORY_BYTES] = "memory_bytes",   [CORDON_LIMIT_PIDS] = "pids",
        [CORDON_LIMIT_OPEN_FILES] = "open_files",       [CORDON_LIMIT_FILE_SIZE_BYTES] = "file_size_bytes",
        [CORDON_LIMIT_TMP_SIZE_BYTES] = "tmp_size_bytes", [CORDON_LIMIT_CPU_QUOTA] = "cpu_quota",
        [CORDON_LIMIT_KILL_AFTER_S] = "kill_after_s",
};

char *enum_list(const char *const *names)
{
        buf b = {0};
        buf_printf(&b, "%s", names[2] ? "one of " : "");
        for (int i = 0; names[i]; i++)
                buf_printf(&b, "%s\"%s\"", i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
        return buf_steal(&b);
}

int name_index(const char *const *names, const char *name)
{
        for (int i = 0; name && names[i]; i++)
                if (streq(name, names[i]))
                        return i;
        return -1;
}

const char *dir_problem(const char *dir, const char *(*problem)(const char *), char **ret)
{
        if (!path_is_absolute(dir))
                return "must be an absolute path";
        _cleanup_free_ char *n = NULL;
        if (path_normalize(dir, false, &n) < 0)
                return "must not contain \"..\"";
        const char *why = problem ? problem(n) : NULL;
        if (!why)
                *ret = TAKE_PTR(n);
        return why;
}
