/* SPDX-License-Identifier: MIT */
/* The environment block: the policy's result (core/env.c), the Windows user
 * environment redirected into the instance, the markers, sorted. */
#include <errno.h>
#include <string.h>

#include "windows/win.h"

/* USERPROFILE and HOME are runtime-user-env itself, so that programs that
 * derive AppData from the profile find the same directories. */
const win_env_redirect WIN_ENV_REDIRECT[] = {
        {"USERPROFILE", ""},
        {"HOME", ""},
        {"APPDATA", "AppData/Roaming"},
        {"LOCALAPPDATA", "AppData/Local"},
        {"TEMP", "tmp"},
        {"TMP", "tmp"},
        {NULL, NULL},
};

const char *const WIN_ENV_CORE[] = {
        "SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "OS", "NUMBER_OF_PROCESSORS",
        "PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER", "PROCESSOR_LEVEL", "PROCESSOR_REVISION",
        "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "CommonProgramFiles", "CommonProgramFiles(x86)",
        "CommonProgramW6432", "ProgramData", "ALLUSERSPROFILE", "PUBLIC", "COMPUTERNAME", "USERDOMAIN",
        NULL,
};

const char *const WIN_USER_ENV_DIRS[] = {
        "runtime-user-env",
        "runtime-user-env/AppData",
        "runtime-user-env/AppData/Roaming",
        "runtime-user-env/AppData/Local",
        "runtime-user-env/tmp",
        NULL,
};

static size_t name_len(const char *entry)
{
        const char *eq = strchr(entry, '=');
        return eq ? (size_t)(eq - entry) : strlen(entry);
}

static int upper(int c)
{
        return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* Names as CreateProcess orders them: upper-cased, then ordinal. (Beyond
 * ASCII, Windows upper-cases more letters; names there are rare.) */
static int name_cmp(const char *a, const char *b)
{
        size_t na = name_len(a), nb = name_len(b);
        for (size_t i = 0; i < na && i < nb; i++) {
                int d = upper((unsigned char)a[i]) - upper((unsigned char)b[i]);
                if (d)
                        return d;
        }
        return na < nb ? -1 : na > nb ? 1 : 0;
}

static int entry_cmp(const void *a, const void *b)
{
        return name_cmp(*(char *const *)a, *(char *const *)b);
}

/* Put |entry| (owned) in |*v|, replacing an entry of the same name. */
static int env_put(char ***v, char *entry)
{
        for (size_t i = 0; *v && (*v)[i]; i++)
                if (name_cmp((*v)[i], entry) == 0) {
                        free((*v)[i]);
                        (*v)[i] = entry;
                        return 0;
                }
        return strv_consume(v, entry);
}

char *win_path_join(const char *root, const char *rel)
{
        bool win = strchr(root, '\\') || (root[0] && root[1] == ':');
        char sep = win ? '\\' : '/';
        size_t n = strlen(root);
        while (n > 1 && (root[n - 1] == '\\' || root[n - 1] == '/'))
                n--;
        char *s = xasprintf("%.*s%c%s", (int)n, root, sep, rel);
        if (!s)
                return NULL;
        for (char *p = s + n; *p; p++)
                if (*p == '/' || *p == '\\')
                        *p = sep;
        size_t len = strlen(s);
        if (len > n + 1 && s[len - 1] == sep)
                s[len - 1] = '\0';
        return s;
}

static int put_redirect(char ***v, const char *root)
{
        _cleanup_free_ char *base = win_path_join(root, "runtime-user-env");
        if (!base)
                return -ENOMEM;
        for (size_t i = 0; WIN_ENV_REDIRECT[i].name; i++) {
                _cleanup_free_ char *dir = *WIN_ENV_REDIRECT[i].dir ? win_path_join(base, WIN_ENV_REDIRECT[i].dir)
                                                                   : xstrdup(base);
                char *e = dir ? xasprintf("%s=%s", WIN_ENV_REDIRECT[i].name, dir) : NULL;
                if (!e || env_put(v, e) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int put_markers(char ***v, bool network_disabled)
{
        char *e = xstrdup("CORDON_SANDBOX=windows");
        if (!e || env_put(v, e) < 0)
                return -ENOMEM;
        if (!network_disabled)
                return 0;
        e = xstrdup("CORDON_SANDBOX_NETWORK_DISABLED=1");
        return !e || env_put(v, e) < 0 ? -ENOMEM : 0;
}

int win_env_build(char *const *env, const win_env_input *in, char ***ret)
{
        _cleanup_strv_ char **v = NULL;
        for (size_t i = 0; env && env[i]; i++) {
                if (!strchr(env[i], '=') || name_len(env[i]) == 0)
                        return -EINVAL;
                char *e = xstrdup(env[i]);
                if (!e || env_put(&v, e) < 0)
                        return -ENOMEM;
        }
        if (in && in->instance_root && put_redirect(&v, in->instance_root) < 0)
                return -ENOMEM;
        if (in && in->markers && put_markers(&v, in->network_disabled) < 0)
                return -ENOMEM;
        if (!v && !(v = calloc(1, sizeof(*v))))
                return -ENOMEM;
        qsort(v, strv_len(v), sizeof(*v), entry_cmp);
        *ret = TAKE_PTR(v);
        return 0;
}

char *win_env_block(char *const *env, size_t *ret_len)
{
        buf b = {0};
        for (size_t i = 0; env && env[i]; i++)
                buf_put(&b, env[i], strlen(env[i]) + 1);
        /* an empty block is still two NULs */
        buf_put(&b, "\0", b.len ? 1 : 2);
        size_t len = b.len;
        char *s = buf_steal(&b);
        if (s)
                *ret_len = len;
        return s;
}
