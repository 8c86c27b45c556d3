/* SPDX-License-Identifier: MIT */
/* What a client asks the proxy: an HTTP/1.x request head (absolute-URI
 * forwarding or CONNECT) or a SOCKS5 greeting and request. Pure parsers of
 * untrusted bytes (fuzzed: fuzz/fuzz-request.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "net/allowlist.h"

/* The longest request head read before it must be complete, and the
 * most the head sent upstream may grow to (a Host line, the framing). */
#define HTTP_HEAD_MAX 16384
#define HTTP_OUT_MAX (HTTP_HEAD_MAX + 512)

/* Where a forwarded request's body ends: the framing its head declared
 * (RFC 9112 6.3), followed byte by byte as it passes. */
typedef enum body_state {
        BODY_DONE,       /* complete (or none): what follows is not forwarded */
        BODY_LENGTH,     /* |left| bytes of a Content-Length body */
        BODY_CHUNK_SIZE, /* chunked: the hex size */
        BODY_CHUNK_EXT,  /* ";ext" up to the CR */
        BODY_CHUNK_SIZE_LF,
        BODY_CHUNK_DATA, /* |left| bytes of a chunk */
        BODY_CHUNK_DATA_CR,
        BODY_CHUNK_DATA_LF,
        BODY_TRAILER,    /* a trailer line, or the blank line that ends them */
        BODY_TRAILER_LF,
        BODY_FINAL_LF,
} body_state;

typedef struct http_body {
        body_state state;
        uint64_t left; /* BODY_LENGTH, BODY_CHUNK_DATA; the chunk size while reading it */
        unsigned digits;
        size_t line, trailers; /* bytes of the trailer line and of all trailers */
} http_body;

typedef struct http_request {
        bool connect;                /* CONNECT host:port, else forwarding */
        char host[NET_HOST_MAX + 3]; /* as written (IPv6 in brackets), not normalised */
        uint16_t port;
        size_t head_len;             /* bytes of the client's head, blank line included */
        http_body body;              /* forwarding: the body's framing */
} http_request;

/* Parse the head at the start of |buf|. Returns 1 when complete (|req|
 * filled; for forwarding, the head to send upstream in |out| of |out_cap|
 * bytes, its length in |*out_len|: in origin form, with a Host line made of
 * the target's authority in place of the client's (RFC 9112 3.2.2), the
 * body's framing restated, "Connection: close", and without hop-by-hop
 * headers nor those the Connection header names), 0 when more bytes are
 * needed, or a negative HTTP status (-400 a malformed or ambiguous head:
 * origin form, a bare CR or a control in a field, obs-fold, Content-Length
 * and Transfer-Encoding both or either twice, a coding other than chunked;
 * -414 too long, -431 headers too large, -501 a scheme other than http). */
int http_parse_head(const char *head, size_t len, http_request *req, char *out, size_t out_cap,
                    size_t *out_len) HIDDEN;

/* Follow |n| bytes of a body. Returns how many of them belong to it (all,
 * or fewer when it ends among them: |b|->state is then BODY_DONE), or -1
 * when the chunked framing is not exactly RFC 9112's (bare CR or LF, a
 * size of more than 15 hex digits, a control in an extension or trailer):
 * the bytes pass unchanged, so the upstream must read them the same way. */
long http_body_scan(http_body *b, const uint8_t *p, size_t n) HIDDEN;

#define SOCKS_VERSION 5
#define SOCKS_REP_OK 0x00
#define SOCKS_REP_FAILURE 0x01
#define SOCKS_REP_NOT_ALLOWED 0x02
#define SOCKS_REP_NET_UNREACHABLE 0x03
#define SOCKS_REP_HOST_UNREACHABLE 0x04
#define SOCKS_REP_REFUSED 0x05
#define SOCKS_REP_TTL 0x06
#define SOCKS_REP_COMMAND 0x07
#define SOCKS_REP_ADDRESS_TYPE 0x08

/* The greeting (05 N METHODS...). Returns its length (> 0), 0 when more
 * bytes are needed, -1 when it is no SOCKS5 greeting. |*no_auth|: the
 * client offers "no authentication". */
int socks_parse_greeting(const uint8_t *b, size_t n, bool *no_auth) HIDDEN;

typedef struct socks_request {
        char host[NET_HOST_MAX + 3]; /* a name, or an IP address as text */
        uint16_t port;
} socks_request;

/* The request (05 CMD 00 ATYP ADDR PORT). Returns its length (> 0), 0 when
 * more bytes are needed, or -1 with the reply code to send in |*ret_rep|. */
int socks_parse_request(const uint8_t *b, size_t n, socks_request *req, uint8_t *ret_rep) HIDDEN;
