/* SPDX-License-Identifier: MIT */
/* The ClientHello walked field by field, each length checked against what
 * encloses it; nothing is read beyond the first record. */
#include "net/sni.h"

#include <string.h>

#include "net/dns.h"

#define TLS_HANDSHAKE 0x16
#define TLS_CLIENT_HELLO 1
#define TLS_EXT_SERVER_NAME 0
#define SNI_HOST_NAME 0

/* A cursor over [p, end): every take fails instead of reading past end. */
typedef struct cursor {
        const uint8_t *p, *end;
} cursor;

static size_t left(const cursor *c) { return (size_t)(c->end - c->p); }

/* Take an |n|-byte big-endian number. */
static bool take_num(cursor *c, size_t n, size_t *v)
{
        if (left(c) < n)
                return false;
        *v = 0;
        for (size_t i = 0; i < n; i++)
                *v = *v << 8 | *c->p++;
        return true;
}

/* Take a vector with an |n|-byte length of at least |min| bytes: its
 * contents in |*sub|. */
static bool take_vec(cursor *c, size_t n, size_t min, cursor *sub)
{
        size_t l;
        if (!take_num(c, n, &l) || l < min || l > left(c))
                return false;
        *sub = (cursor){c->p, c->p + l};
        c->p += l;
        return true;
}

static bool skip(cursor *c, size_t n)
{
        if (left(c) < n)
                return false;
        c->p += n;
        return true;
}

/* The server_name extension's data: a ServerNameList of exactly one
 * host_name (RFC 6066 3 allows one name per type, and defines one type). */
static int server_name(cursor ext, char *name, size_t cap)
{
        cursor list, host;
        size_t type;
        if (!take_vec(&ext, 2, 1, &list) || left(&ext) != 0 || !take_num(&list, 1, &type) ||
            type != SNI_HOST_NAME || !take_vec(&list, 2, 1, &host) || left(&list) != 0)
                return SNI_MALFORMED;
        size_t n = left(&host);
        if (n > DNS_NAME_MAX || n >= cap)
                return SNI_MALFORMED;
        for (size_t i = 0; i < n; i++) {
                char ch = (char)host.p[i];
                name[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
        }
        name[n] = '\0';
        /* a NUL inside would hide the rest from dns_name_valid */
        if (memchr(name, '\0', n) || !dns_name_valid(name))
                return SNI_MALFORMED;
        return SNI_FOUND;
}

/* The extensions block: each whole, server_name at most once (RFC 8446
 * 4.2: no type twice; two names would let the proxy and the server each
 * read another one). */
static int extensions(cursor exts, char *name, size_t cap)
{
        int r = SNI_NONE;
        while (left(&exts) > 0) {
                size_t type;
                cursor data;
                if (!take_num(&exts, 2, &type) || !take_vec(&exts, 2, 0, &data))
                        return SNI_MALFORMED;
                if (type != TLS_EXT_SERVER_NAME)
                        continue;
                if (r != SNI_NONE)
                        return SNI_MALFORMED;
                r = server_name(data, name, cap);
                if (r != SNI_FOUND)
                        return r;
        }
        return r;
}

/* The ClientHello's body (RFC 8446 4.1.2). */
static int client_hello(cursor ch, char *name, size_t cap)
{
        size_t major;
        cursor v, exts;
        if (!take_num(&ch, 1, &major) || major != 3 || !skip(&ch, 1 + 32) || /* version's minor, random */
            !take_vec(&ch, 1, 0, &v) || left(&v) > 32 ||                      /* legacy_session_id */
            !take_vec(&ch, 2, 2, &v) || left(&v) % 2 != 0 ||                  /* cipher_suites */
            !take_vec(&ch, 1, 1, &v))                                         /* compression_methods */
                return SNI_MALFORMED;
        if (left(&ch) == 0) /* no extensions at all (before TLS 1.2, allowed) */
                return SNI_NONE;
        if (!take_vec(&ch, 2, 0, &exts) || left(&ch) != 0)
                return SNI_MALFORMED;
        return extensions(exts, name, cap);
}

int tls_client_hello_sni(const uint8_t *data, size_t len, char *name, size_t cap)
{
        if (len >= 1 && data[0] != TLS_HANDSHAKE)
                return SNI_NOT_TLS;
        if (len >= 2 && data[1] != 3)
                return SNI_NOT_TLS;
        if (len < 5)
                return SNI_NEED_MORE;
        size_t rec = (size_t)data[3] << 8 | data[4];
        if (rec < 4 || rec > TLS_RECORD_MAX - 5)
                return SNI_MALFORMED;
        if (len < 5 + rec)
                return SNI_NEED_MORE;
        cursor c = {data + 5, data + 5 + rec}, body;
        size_t type;
        /* the handshake message fills the record exactly: longer is a
         * ClientHello split over records, shorter one followed by another */
        if (!take_num(&c, 1, &type) || type != TLS_CLIENT_HELLO || !take_vec(&c, 3, 0, &body) || left(&c) != 0)
                return SNI_MALFORMED;
        return client_hello(body, name, cap);
}
