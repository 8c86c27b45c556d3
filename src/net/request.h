/* SPDX-License-Identifier: MIT */
/* What a client asks the proxy: an HTTP/1.x request head (absolute-URI
 * forwarding or CONNECT) or a SOCKS5 greeting and request. Pure parsers of
 * untrusted bytes (fuzzed: fuzz/fuzz-request.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "net/allowlist.h"

/* The longest request head read before it must be complete. */
#define HTTP_HEAD_MAX 16384

typedef struct http_request {
        bool connect;                /* CONNECT host:port, else forwarding */
        char host[NET_HOST_MAX + 3]; /* as written (IPv6 in brackets), not normalised */
        uint16_t port;
        size_t head_len;             /* bytes of the client's head, blank line included */
} http_request;

/* Parse the head at the start of |buf|. Returns 1 when complete (|req|
 * filled; for forwarding, the head to send upstream, in origin form with
 * "Connection: close" and without proxy headers, in |out| of |out_cap|
 * bytes, its length in |*out_len|), 0 when more bytes are needed, or a
 * negative HTTP status (-400, -405 method, -414 too long, -431 headers too
 * large, -501 a scheme other than http). */
int http_parse_head(const char *head, size_t len, http_request *req, char *out, size_t out_cap,
                    size_t *out_len) HIDDEN;

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
