/* SPDX-License-Identifier: MIT */
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int exit_status_for(int errnum)
{
        /* Only the exec step maps to 126/127; callers set those explicitly. */
        (void)errnum;
        return 125;
}

static int error_store(cordon_error **ret, int errnum, const char *file, int line, int column,
                       const char *key, char *message)
{
        if (errnum <= 0)
                errnum = EINVAL;
        if (!ret) {
                free(message);
                return -errnum;
        }
        cordon_error *e = calloc(1, sizeof(*e));
        if (!e) {
                free(message);
                *ret = NULL;
                return -errnum;
        }
        e->message = message ? message : strdup("out of memory");
        e->errnum = errnum;
        e->file = xstrdup(file);
        e->line = line;
        e->column = column;
        e->key = xstrdup(key);
        e->exit_status = exit_status_for(errnum);
        cordon_error_free(*ret);
        *ret = e;
        return -errnum;
}

int error_set(cordon_error **ret, int errnum, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        char *m = xvasprintf(fmt, ap);
        va_end(ap);
        return error_store(ret, errnum, NULL, 0, 0, NULL, m);
}

int error_set_at(cordon_error **ret, int errnum, const char *file, int line, int column, const char *key,
                 const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *m = xvasprintf(fmt, ap);
        va_end(ap);
        char *full = NULL;
        if (line > 0 && key)
                full = xasprintf("%s:%d:%d: %s: %s", file, line, column, key, m ? m : "");
        else if (line > 0)
                full = xasprintf("%s:%d:%d: %s", file, line, column, m ? m : "");
        else if (key)
                full = xasprintf("%s: %s: %s", file, key, m ? m : "");
        else
                full = xasprintf("%s: %s", file, m ? m : "");
        return error_store(ret, errnum, file, line, column, key, full);
}

void error_prefix(cordon_error *e, const char *fmt, ...)
{
        if (!e)
                return;
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *p = xvasprintf(fmt, ap);
        va_end(ap);
        char *m = p ? xasprintf("%s: %s", p, e->message) : NULL;
        if (m) {
                free(e->message);
                e->message = m;
        }
}

const char *cordon_error_message(const cordon_error *e) { return e && e->message ? e->message : "unknown error"; }
int cordon_error_errno(const cordon_error *e) { return e ? e->errnum : 0; }
const char *cordon_error_file(const cordon_error *e) { return e ? e->file : NULL; }
int cordon_error_line(const cordon_error *e) { return e ? e->line : 0; }
int cordon_error_column(const cordon_error *e) { return e ? e->column : 0; }
const char *cordon_error_key(const cordon_error *e) { return e ? e->key : NULL; }
int cordon_error_exit_status(const cordon_error *e) { return e ? e->exit_status : 125; }

cordon_error *cordon_error_new(const char *message)
{
        cordon_error *e = NULL;
        char *m = message ? strdup(message) : NULL;
        if (message && !m)
                return NULL;
        error_store(&e, EINVAL, NULL, 0, 0, NULL, m);
        return e;
}

cordon_error *cordon_error_free(cordon_error *e)
{
        if (e) {
                free(e->message);
                free(e->file);
                free(e->key);
                free(e);
        }
        return NULL;
}
