/* SPDX-License-Identifier: MIT */
/* What a sandboxed client sends the resolver: DNS queries (net/dns.c).
 * Invariants: a parsed name is a host name; every answer and error built
 * from a query is a response to it (its id, its question, well-formed
 * records) whose question parses back to the same name. */
#include <arpa/inet.h>
#include <stdio.h>

#include "fuzz.h"
#include "net/dns.h"

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* |r| (|n| bytes) answers the query with |id| and the question |qlen|
 * bytes at |question|, with |rcode|. */
static void check_response(const uint8_t *r, ssize_t n, uint16_t id, const uint8_t *question, size_t qlen,
                           int rcode)
{
        FUZZ_ASSERT(n >= DNS_HEADER_LEN + (ssize_t)qlen);
        FUZZ_ASSERT(get16(r) == id);
        FUZZ_ASSERT(get16(r + 2) & DNS_FLAG_QR);
        FUZZ_ASSERT((get16(r + 2) & 0xf) == rcode);
        FUZZ_ASSERT(get16(r + 4) == (qlen ? 1 : 0) && get16(r + 8) == 0 && get16(r + 10) == 0);
        FUZZ_ASSERT(qlen == 0 || memcmp(r + DNS_HEADER_LEN, question, qlen) == 0);
        size_t end = DNS_HEADER_LEN + qlen;
        if (get16(r + 6) == 1) {
                FUZZ_ASSERT(rcode == 0 && (size_t)n >= end + 12);
                const uint8_t *rr = r + end;
                FUZZ_ASSERT(get16(rr) == 0xc00c && get16(rr + 4) == DNS_CLASS_IN);
                FUZZ_ASSERT(get16(rr + 2) == get16(r + end - 4)); /* the type asked for */
                uint16_t rdlen = get16(rr + 10);
                FUZZ_ASSERT(rdlen == (get16(rr + 2) == DNS_TYPE_A ? 4 : 16));
                end += 12 + rdlen;
        } else {
                FUZZ_ASSERT(get16(r + 6) == 0);
        }
        FUZZ_ASSERT((size_t)n == end);
}

/* The response's header and question made a query again: it parses to
 * |q|'s name and type. */
static void check_reparse(const uint8_t *r, const dns_query *q)
{
        uint8_t m[DNS_HEADER_LEN + 512];
        size_t qlen = q->question_end - DNS_HEADER_LEN;
        FUZZ_ASSERT(qlen <= 512);
        memcpy(m, r, DNS_HEADER_LEN + qlen);
        m[2] &= 0x7f;
        m[6] = m[7] = 0;
        dns_query back;
        FUZZ_ASSERT(dns_parse_query(m, DNS_HEADER_LEN + qlen, &back) == 0);
        FUZZ_ASSERT(strcmp(back.name, q->name) == 0 && back.qtype == q->qtype && back.id == q->id);
}

static void fuzz_answer(const uint8_t *data, size_t size, const dns_query *q)
{
        FUZZ_ASSERT(dns_name_valid(q->name) && strlen(q->name) <= DNS_NAME_MAX);
        FUZZ_ASSERT(q->question_end >= DNS_HEADER_LEN + 5 && q->question_end <= size);
        struct in_addr a = {.s_addr = htonl(0xc6120001)};
        struct in6_addr aaaa = {.s6_addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}};
        uint8_t out[1024];
        ssize_t n = dns_build_answer(q, data, &a, &aaaa, 60, out, sizeof(out));
        check_response(out, n, q->id, data + DNS_HEADER_LEN, q->question_end - DNS_HEADER_LEN, 0);
        check_reparse(out, q);
        /* one byte short: no room, nothing half written is claimed */
        FUZZ_ASSERT(dns_build_answer(q, data, &a, &aaaa, 60, out, (size_t)n - 1) == -ENOSPC);
        n = dns_build_answer(q, data, NULL, NULL, 60, out, sizeof(out));
        check_response(out, n, q->id, data + DNS_HEADER_LEN, q->question_end - DNS_HEADER_LEN, 0);
        FUZZ_ASSERT(get16(out + 6) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        dns_query q;
        uint8_t out[1024];
        int r = dns_parse_query(data, size, &q);
        FUZZ_ASSERT(r == 0 || r == -EBADMSG || r == -ENOTSUP || r == -EINVAL);
        if (r == 0) {
                fuzz_answer(data, size, &q);
        } else if (r == -EINVAL) {
                FUZZ_ASSERT(q.name[0] == '\0' && q.question_end <= size);
                size_t qlen = q.question_end - DNS_HEADER_LEN;
                ssize_t n = dns_build_error(q.id, q.flags, data + DNS_HEADER_LEN, qlen, DNS_RCODE_NXDOMAIN, out,
                                            sizeof(out));
                check_response(out, n, q.id, data + DNS_HEADER_LEN, qlen, DNS_RCODE_NXDOMAIN);
        } else {
                uint16_t id, flags;
                if (!dns_query_header_only(data, size, &id, &flags)) {
                        FUZZ_ASSERT(size < DNS_HEADER_LEN || (data[2] & 0x80));
                        return 0;
                }
                int rcode = r == -ENOTSUP ? DNS_RCODE_REFUSED : DNS_RCODE_FORMERR;
                ssize_t n = dns_build_error(id, flags, NULL, 0, rcode, out, sizeof(out));
                check_response(out, n, id, NULL, 0, rcode);
        }
        return 0;
}
