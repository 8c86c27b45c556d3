/* SPDX-License-Identifier: MIT */
/* DNS messages of the sandbox-internal resolver (RFC 1035): a strict
 * parser of the one kind of query it answers (one question, no records but
 * an EDNS OPT, RFC 6891) and builders of its answers. Pure: no system
 * calls, no allocation; untrusted bytes (fuzzed: fuzz/fuzz-dns.c).
 *
 *   dns_parse_query(msg, len, &q)       0: answer with dns_build_answer
 *                                       -EINVAL: dns_build_error NXDOMAIN
 *                                       -ENOTSUP: REFUSED or NOTIMP
 *                                       -EBADMSG: FORMERR, if
 *                                       dns_query_header_only says whom to */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

#define DNS_HEADER_LEN 12
#define DNS_NAME_MAX 253 /* as text, without the trailing dot */
#define DNS_LABEL_MAX 63

#define DNS_TYPE_A 1
#define DNS_TYPE_AAAA 28
#define DNS_TYPE_OPT 41
#define DNS_CLASS_IN 1

#define DNS_RCODE_NOERROR 0
#define DNS_RCODE_FORMERR 1
#define DNS_RCODE_SERVFAIL 2
#define DNS_RCODE_NXDOMAIN 3
#define DNS_RCODE_NOTIMP 4
#define DNS_RCODE_REFUSED 5

/* Header flag bits (of the 16 after the id). */
#define DNS_FLAG_QR 0x8000
#define DNS_FLAG_AA 0x0400
#define DNS_FLAG_TC 0x0200
#define DNS_FLAG_RD 0x0100
#define DNS_FLAG_RA 0x0080
#define DNS_OPCODE(flags) (((flags) >> 11) & 0xf)

typedef struct dns_query {
        uint16_t id, flags, qtype, qclass;
        char name[DNS_NAME_MAX + 1]; /* lower case, no trailing dot */
        size_t question_end;         /* offset of the byte after the question in the message */
} dns_query;

/* Is |name| a host name as the resolver serves it: labels of 1..63 of
 * [a-z0-9_-], at most 253 bytes in all, no trailing dot, the last label not
 * all digits (an IPv4 address in another notation: getaddrinfo reads
 * "127.1")? Lower case only. */
bool dns_name_valid(const char *name) HIDDEN;

/* Parse a query of |len| bytes. Returns 0 with |q| filled; -EBADMSG when
 * the message is malformed (short, truncated, a compression pointer or an
 * extended label type in the question, a name over 253 bytes, QR set,
 * bytes after the last record, a bad OPT record); -ENOTSUP when it is
 * well-formed but not a query this resolver answers (an opcode other than
 * QUERY, QDCOUNT other than 1, answer or authority records, more than one
 * additional record or one that is not OPT); -EINVAL when the one question
 * is well-formed but its name is no host name (dns_name_valid, after
 * lower-casing): |q| is then filled but for |q->name|, which is "", so an
 * NXDOMAIN can echo the question. Otherwise |q| is unspecified. */
int dns_parse_query(const uint8_t *msg, size_t len, dns_query *q) HIDDEN;

/* The id and flags of a message too bad to parse, for a FORMERR. False
 * when it has no whole header or is a response (QR set): nothing must be
 * sent back then (answering responses lets two resolvers loop). */
bool dns_query_header_only(const uint8_t *msg, size_t len, uint16_t *id, uint16_t *flags) HIDDEN;

/* The answer to |q| (parsed from |msg|, whose question it copies) into
 * |out| of |cap| bytes: QR, AA, RA set, RD copied, rcode NOERROR, one
 * answer record (name a pointer to the question's, class IN, |ttl|) when
 * |q| asks for class IN and type A and |a| is given, or type AAAA and
 * |aaaa| is given; else none (NODATA). No additional records (the query's
 * OPT is not echoed). Returns the length, or -ENOSPC. */
ssize_t dns_build_answer(const dns_query *q, const uint8_t *msg, const struct in_addr *a,
                         const struct in6_addr *aaaa, uint32_t ttl, uint8_t *out, size_t cap) HIDDEN;

/* An error response with |rcode| (DNS_RCODE_*: 1..15) to the query whose
 * header had |id| and |flags| (its opcode and RD are copied): QR, RA set,
 * AA for NXDOMAIN; the question of |qlen| bytes copied when |question| is
 * given and |qlen| > 0 (QDCOUNT 1), else none (QDCOUNT 0). Returns the length, -ENOSPC, or
 * -EINVAL for an rcode out of range or a |qlen| without |question|. */
ssize_t dns_build_error(uint16_t id, uint16_t flags, const uint8_t *question, size_t qlen, int rcode,
                        uint8_t *out, size_t cap) HIDDEN;
