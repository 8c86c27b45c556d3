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

/* Field |field| (0-based) of the line of a colon-separated database whose
 * field |key_field| is |key|. Reads the file directly: no NSS, no dlopen. */
static char *db_lookup(const char *file, unsigned key, int key_field, int field)
{
        FILE *f = fopen(file, "re");
        if (!f)
                return NULL;
        char line[1024];
        char *found = NULL;
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
                if (n > key_field && n > field && parse_uint64(fields[key_field], &v) == 0 && v == key)
                        found = strdup(fields[field]);
        }
        fclose(f);
        return found;
}

int host_info_read(host_info *h, host_storage *s, char *const *env, cordon_error **ret_error)
{
        *s = (host_storage){0};
        *h = (host_info){.root = "", .uid = getuid(), .gid = getgid(), .environ = env};
        s->user = db_lookup("/etc/passwd", h->uid, 2, 0);
        if (!s->user && env_get(env, "USER"))
                s->user = strdup(env_get(env, "USER"));
        s->group = db_lookup("/etc/group", h->gid, 2, 0);
        const char *home = env_get(env, "HOME");
        s->passwd_home = db_lookup("/etc/passwd", h->uid, 2, 5);
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
