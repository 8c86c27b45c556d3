/* SPDX-License-Identifier: MIT */
/* What the host is: user, home, cwd (the plan's inputs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon.h"
#include "env.h"
#include "error.h"
#include "plan.h"
#include "util.h"

/* ---- host_info ------------------------------------------------------------------ */

/* Fields |field| and |field2| (0-based; |field2| when |ret2|) of the
 * line of a colon-separated database whose field |key_field| is |key|,
 * into |ret| and |ret2|. Reads the file directly: no NSS, no dlopen. */
static void db_lookup(const char *file, unsigned key, int key_field, int field, char **ret, int field2, char **ret2)
{
        FILE *f = fopen(file, "re");
        if (!f)
                return;
        char line[1024];
        bool found = false;
        while (!found && fgets(line, sizeof(line), f)) {
                char *fields[7] = {0};
                int n = 0;
                line[strcspn(line, "\n")] = '\0';
                char *p = line;
                while (n < 7 && p) {
                        fields[n++] = p;
                        p = strchr(p, ':');
                        if (p)
                                *p++ = '\0';
                }
                uint64_t v;
                found = n > key_field && n > field && parse_uint64(fields[key_field], &v) == 0 && v == key;
                if (found)
                        *ret = strdup(fields[field]);
                if (found && ret2 && n > field2)
                        *ret2 = strdup(fields[field2]);
        }
        fclose(f);
}

int host_info_read(host_info *h, host_storage *s, char *const *env, cordon_error **ret_error)
{
        *s = (host_storage){0};
        *h = (host_info){.root = "", .uid = getuid(), .gid = getgid(), .environ = env};
        db_lookup("/etc/passwd", h->uid, 2, 0, &s->user, 5, &s->passwd_home);
        if (!s->user && env_get(env, "USER"))
                s->user = strdup(env_get(env, "USER"));
        db_lookup("/etc/group", h->gid, 2, 0, &s->group, 0, NULL);
        const char *home = env_get(env, "HOME");
        s->home = home && home[0] == '/' ? strdup(home) : xstrdup(s->passwd_home);
        s->cwd = getcwd(NULL, 0);
        if (!s->cwd) {
                int r = error_set(ret_error, errno, "cannot read the working directory: %s", strerror(errno));
                host_info_free(s);
                return r;
        }
        h->user = s->user;
        h->group = s->group;
        h->home = s->home;
        h->passwd_home = s->passwd_home;
        h->cwd = s->cwd;
        return 0;
}

void host_info_free(host_storage *s)
{
        free(s->user);
        free(s->group);
        free(s->home);
        free(s->passwd_home);
        free(s->cwd);
        *s = (host_storage){0};
}

const char *cordon_version(void) { return CORDON_VERSION; }
