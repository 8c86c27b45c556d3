/* SPDX-License-Identifier: MIT */
/* Source locations for JSON paths. jansson reports positions only for syntax
 * errors, so this small scanner walks the text again when a validation error
 * needs a line and column (and to find duplicate keys, which jansson either
 * rejects without a path or silently merges). Only used on the error path
 * and for the duplicate check; the text has already parsed as JSON. */
#include "config.h"

#include <string.h>

#define MAX_DEPTH 64

typedef struct walker walker;
struct walker {
        const char *s;
        size_t i;
        int line, col;
        bool failed, stop;
        char *path[MAX_DEPTH];
        size_t depth;
        /* Called at each key (is_key) and each value start; returns true to stop. */
        bool (*visit)(walker *w, bool is_key, int line, int col);
        void *ud;
        bool find_dups;
};

static char peek(const walker *w) { return w->s[w->i]; }

static void adv(walker *w)
{
        unsigned char c = (unsigned char)w->s[w->i];
        if (!c)
                return;
        w->i++;
        if (c == '\n') {
                w->line++;
                w->col = 1;
        } else if ((c & 0xC0) != 0x80) {
                /* Columns count characters, not bytes, like jansson's. */
                w->col++;
        }
}

static void skip_ws(walker *w)
{
        while (peek(w) == ' ' || peek(w) == '\t' || peek(w) == '\n' || peek(w) == '\r')
                adv(w);
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

static unsigned read_u4(walker *w)
{
        unsigned v = 0;
        for (int k = 0; k < 4; k++) {
                int h = hexval(peek(w));
                if (h < 0) {
                        w->failed = true;
                        return 0;
                }
                v = v * 16 + (unsigned)h;
                adv(w);
        }
        return v;
}

static void put_utf8(buf *b, unsigned cp)
{
        char o[4];
        size_t n;
        if (cp < 0x80) {
                o[0] = (char)cp;
                n = 1;
        } else if (cp < 0x800) {
                o[0] = (char)(0xC0 | (cp >> 6));
                o[1] = (char)(0x80 | (cp & 0x3F));
                n = 2;
        } else if (cp < 0x10000) {
                o[0] = (char)(0xE0 | (cp >> 12));
                o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                o[2] = (char)(0x80 | (cp & 0x3F));
                n = 3;
        } else {
                o[0] = (char)(0xF0 | (cp >> 18));
                o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                o[3] = (char)(0x80 | (cp & 0x3F));
                n = 4;
        }
        buf_put(b, o, n);
}

static void read_escape(walker *w, buf *b)
{
        char c = peek(w);
        adv(w);
        switch (c) {
        case 'b': buf_put(b, "\b", 1); return;
        case 'f': buf_put(b, "\f", 1); return;
        case 'n': buf_put(b, "\n", 1); return;
        case 'r': buf_put(b, "\r", 1); return;
        case 't': buf_put(b, "\t", 1); return;
        case 'u': {
                unsigned cp = read_u4(w);
                if (cp >= 0xD800 && cp < 0xDC00 && peek(w) == '\\' && w->s[w->i + 1] == 'u') {
                        adv(w);
                        adv(w);
                        unsigned lo = read_u4(w);
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                put_utf8(b, cp);
                return;
        }
        default: buf_put(b, &c, 1); return;
        }
}

/* Reads a string at the cursor; returns it decoded when |want|. */
static char *read_string(walker *w, bool want)
{
        buf b = {0};
        adv(w); /* opening quote */
        while (peek(w) && peek(w) != '"') {
                if (peek(w) == '\\') {
                        adv(w);
                        read_escape(w, &b);
                } else {
                        if (want)
                                buf_put(&b, &w->s[w->i], 1);
                        adv(w);
                }
        }
        if (peek(w) != '"')
                w->failed = true;
        adv(w);
        if (!want) {
                free(b.data);
                return NULL;
        }
        return buf_steal(&b);
}

static void walk_value(walker *w);

static bool push(walker *w, char *comp)
{
        if (!comp || w->depth >= MAX_DEPTH) {
                free(comp);
                w->failed = true;
                return false;
        }
        w->path[w->depth++] = comp;
        return true;
}

static void pop(walker *w) { free(w->path[--w->depth]); }

static bool dup_checked_here(const walker *w)
{
        const char *const *sections = w->ud;
        if (!w->find_dups)
                return false;
        if (w->depth == 0)
                return true; /* the top level: only section names matter, checked below */
        for (size_t k = 0; sections[k]; k++)
                if (streq(w->path[0], sections[k]))
                        return true;
        return false;
}

static bool is_section(const walker *w, const char *key)
{
        const char *const *sections = w->ud;
        for (size_t k = 0; sections[k]; k++)
                if (streq(key, sections[k]))
                        return true;
        return false;
}

/* After a member or an element: true when a ',' says another follows;
 * otherwise |close| ends the container, or the input is malformed. */
static bool next_member(walker *w, char close)
{
        pop(w);
        skip_ws(w);
        if (peek(w) == ',') {
                adv(w);
                return true;
        }
        if (peek(w) == close)
                adv(w);
        else
                w->failed = true;
        return false;
}

static void walk_object(walker *w)
{
        _cleanup_strv_ char **seen = NULL;
        bool check = dup_checked_here(w);
        adv(w);
        skip_ws(w);
        if (peek(w) == '}') {
                adv(w);
                return;
        }
        while (!w->failed && !w->stop) {
                skip_ws(w);
                if (peek(w) != '"') {
                        w->failed = true;
                        return;
                }
                int kl = w->line, kc = w->col;
                char *key = read_string(w, true);
                bool dup = false;
                if (check && key && (w->depth > 0 || is_section(w, key))) {
                        for (size_t k = 0; seen && seen[k]; k++)
                                dup = dup || streq(seen[k], key);
                        if (strv_push(&seen, key) < 0)
                                w->failed = true;
                }
                if (!push(w, key))
                        return;
                if (dup) {
                        w->stop = true;
                        w->visit(w, true, kl, kc);
                        return;
                }
                if (w->visit(w, true, kl, kc)) {
                        w->stop = true;
                        return;
                }
                skip_ws(w);
                if (peek(w) != ':') {
                        w->failed = true;
                        return;
                }
                adv(w);
                walk_value(w);
                if (w->stop || w->failed || !next_member(w, '}'))
                        return;
        }
}

static void walk_array(walker *w)
{
        adv(w);
        skip_ws(w);
        if (peek(w) == ']') {
                adv(w);
                return;
        }
        for (size_t idx = 0; !w->failed && !w->stop; idx++) {
                if (!push(w, xasprintf("[%zu]", idx)))
                        return;
                walk_value(w);
                if (w->stop || w->failed || !next_member(w, ']'))
                        return;
        }
}

static void walk_value(walker *w)
{
        skip_ws(w);
        if (w->visit(w, false, w->line, w->col)) {
                w->stop = true;
                return;
        }
        switch (peek(w)) {
        case '{': walk_object(w); return;
        case '[': walk_array(w); return;
        case '"': free(read_string(w, false)); return;
        case '\0': w->failed = true; return;
        default:
                while (peek(w) && !strchr(",]} \t\r\n", peek(w)))
                        adv(w);
                return;
        }
}

static void walker_done(walker *w)
{
        while (w->depth > 0)
                pop(w);
}

typedef struct locate_ud {
        const char *const *path;
        size_t n;
        bool at_key;
        int line, col;
        bool found;
} locate_ud;

static bool path_matches(const walker *w, const char *const *path, size_t n)
{
        if (w->depth != n)
                return false;
        for (size_t k = 0; k < n; k++)
                if (!streq(w->path[k], path[k]))
                        return false;
        return true;
}

static bool locate_visit(walker *w, bool is_key, int line, int col)
{
        locate_ud *u = w->ud;
        if (is_key != u->at_key || !path_matches(w, u->path, u->n))
                return false;
        u->line = line;
        u->col = col;
        u->found = true;
        return true;
}

bool json_locate(const char *text, const char *const *path, size_t n, bool at_key, int *line, int *column)
{
        locate_ud u = {.path = path, .n = n, .at_key = at_key};
        walker w = {.s = text, .line = 1, .col = 1, .visit = locate_visit, .ud = &u};
        walk_value(&w);
        walker_done(&w);
        if (!u.found)
                return false;
        *line = u.line;
        *column = u.col;
        return true;
}

typedef struct dup_ud {
        int line, col;
        char *path;
} dup_ud;

/* The duplicate finder needs both the section list (for walk_object) and a
 * place for the result; keep them side by side. */
typedef struct dup_ctx {
        dup_ud result;
        walker w;
} dup_ctx;

static bool dup_visit_ctx(walker *w, bool is_key, int line, int col)
{
        if (!w->stop || !is_key)
                return false;
        dup_ctx *ctx = (dup_ctx *)((char *)w - offsetof(dup_ctx, w));
        buf b = {0};
        for (size_t k = 0; k < w->depth; k++) {
                if (k > 0 && w->path[k][0] != '[')
                        buf_put(&b, ".", 1);
                buf_put(&b, w->path[k], strlen(w->path[k]));
        }
        ctx->result.path = buf_steal(&b);
        ctx->result.line = line;
        ctx->result.col = col;
        return true;
}

bool json_find_duplicate(const char *text, const char *const *sections, char **ret_path, int *line, int *column)
{
        dup_ctx ctx = {.w = {.s = text, .line = 1, .col = 1, .visit = dup_visit_ctx,
                             .ud = (void *)sections, .find_dups = true}};
        walk_value(&ctx.w);
        walker_done(&ctx.w);
        if (!ctx.result.path)
                return false;
        *ret_path = ctx.result.path;
        *line = ctx.result.line;
        *column = ctx.result.col;
        return true;
}
