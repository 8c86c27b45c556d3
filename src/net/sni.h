/* SPDX-License-Identifier: MIT */
/* The server name (RFC 6066 3) of a TLS ClientHello (RFC 8446 4.1.2): what
 * the proxy reads of an intercepted connection before it decides where it
 * may go. Pure: no system calls, no allocation; untrusted bytes (fuzzed:
 * fuzz/fuzz-sni.c).
 *
 * Only a ClientHello in the first record is read: one split over records
 * (legal, but no client sends one that needs to be: a ClientHello fits in
 * 16 KiB) is SNI_MALFORMED, refused. With ECH (Encrypted Client Hello) the
 * name found is the outer, public one. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The most bytes tls_client_hello_sni needs: one record (a 5-byte header
 * and at most 2^14 bytes, RFC 8446 5.1). */
#define TLS_RECORD_MAX (16384 + 5)

enum {
        SNI_MALFORMED = -2, /* TLS, but a length or field is inconsistent, or no host name */
        SNI_NOT_TLS = -1,   /* not a TLS handshake record (first byte not 0x16, major version not 3) */
        SNI_NEED_MORE = 0,  /* the first record is not complete yet */
        SNI_FOUND = 1,      /* the name is in |name| */
        SNI_NONE = 2,       /* a whole ClientHello without server_name */
};

/* Read the first |len| bytes a client sent. Returns one of SNI_*: with
 * SNI_FOUND, the host name (lower case, as dns_name_valid has it; a
 * trailing dot, an IP literal or a byte no host name has is SNI_MALFORMED)
 * is copied into |name| of |cap| bytes (SNI_MALFORMED when it does not
 * fit: 254 bytes always do). SNI_NEED_MORE only while |len| is less than
 * the record's end, at most TLS_RECORD_MAX. Bytes after the first record
 * are not looked at. */
int tls_client_hello_sni(const uint8_t *data, size_t len, char *name, size_t cap) HIDDEN;
