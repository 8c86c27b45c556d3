/* SPDX-License-Identifier: MIT */
/* cordon_command: what to run, where, with which extra env and stdio. */
#include <errno.h>
#include <string.h>

#include "plan.h"

cordon_command *cordon_command_new(const char *const *argv)
{
        if (!argv || !argv[0])
                return NULL;
        cordon_command *cmd = calloc(1, sizeof(*cmd));
        if (!cmd)
                return NULL;
        cmd->argv = strv_copy(argv);
        for (int i = 0; i < 3; i++)
                cmd->stdio[i] = CORDON_STDIO_INHERIT;
        if (!cmd->argv)
                return cordon_command_free(cmd);
        return cmd;
}

cordon_command *cordon_command_free(cordon_command *cmd)
{
        if (!cmd)
                return NULL;
        strv_free(cmd->argv);
        free(cmd->cwd);
        for (size_t i = 0; i < cmd->n_extra_env; i++) {
                free(cmd->extra_env[i].name);
                free(cmd->extra_env[i].value);
        }
        free(cmd->extra_env);
        strv_free(cmd->base_env);
        free(cmd);
        return NULL;
}

int cordon_command_set_cwd(cordon_command *cmd, const char *cwd)
{
        char *c = xstrdup(cwd);
        if (cwd && !c)
                return -ENOMEM;
        free(cmd->cwd);
        cmd->cwd = c;
        return 0;
}

int cordon_command_setenv(cordon_command *cmd, const char *name, const char *value)
{
        if (!env_name_valid(name) || !value)
                return -EINVAL;
        char *v = strdup(value);
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < cmd->n_extra_env; i++)
                if (streq(cmd->extra_env[i].name, name)) {
                        free(cmd->extra_env[i].value);
                        cmd->extra_env[i].value = v;
                        return 0;
                }
        env_kv *n = realloc(cmd->extra_env, (cmd->n_extra_env + 1) * sizeof(*n));
        char *k = strdup(name);
        if (!n || !k) {
                free(v);
                free(k);
                if (n)
                        cmd->extra_env = n;
                return -ENOMEM;
        }
        cmd->extra_env = n;
        cmd->extra_env[cmd->n_extra_env++] = (env_kv){k, v};
        return 0;
}

int cordon_command_set_base_env(cordon_command *cmd, const char *const *envp)
{
        char **e = strv_copy(envp);
        if (!e)
                return -ENOMEM;
        strv_free(cmd->base_env);
        cmd->base_env = e;
        return 0;
}

int cordon_command_set_stdio(cordon_command *cmd, int which, int fd)
{
        if (which < 0 || which > 2 || fd < CORDON_STDIO_NULL)
                return -EINVAL;
        cmd->stdio[which] = fd;
        return 0;
}

int cordon_command_set_pty(cordon_command *cmd, cordon_pty mode)
{
        if (!cmd || (mode != CORDON_PTY_OFF && mode != CORDON_PTY_AUTO && mode != CORDON_PTY_ON))
                return -EINVAL;
        cmd->pty = mode;
        return 0;
}
