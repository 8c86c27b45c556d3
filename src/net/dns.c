/* SPDX-License-Identifier: MIT */
/* The resolver's DNS messages. Every length is checked against the bytes
 * at hand; nothing is read beyond |len| nor written beyond |cap|. */
#include "net/dns.h"

#include <errno.h>
#include <string.h>

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static void put16(uint8_t *p, uint16_t v)
{
        p[0] = (uint8_t)(v >> 8);
        p[1] = (uint8_t)v;
}

static bool host_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

bool dns_name_valid(const char *name)
{
        size_t label = 0, total = 0;
        bool digits = true;
        for (const char *c = name;; c++) {
                if (*c == '.' || *c == '\0') {
                        if (label == 0 || label > DNS_LABEL_MAX)
                                return false;
                        if (*c == '\0')
                                return !digits;
                        label = 0;
                        digits = true;
                } else if (!host_char(*c)) {
                        return false;
                } else {
                        label++;
                        digits = digits && *c >= '0' && *c <= '9';
                }
                if (++total > DNS_NAME_MAX)
                        return false;
        }
}

/* The question's name at |*off|, as text into |name| (lower case).
 * Returns 0 (|*off| past it), or -EBADMSG for a truncated name, a
 * compression pointer or an extended label type (RFC 6891 5), a name over
 * 253 bytes. |*bad| is set when a label has a byte no host name has: the
 * text is then not the name (a label "a.b" would read as two). */
static int read_name(const uint8_t *msg, size_t len, size_t *off, char name[DNS_NAME_MAX + 1], bool *bad)
{
        size_t p = *off, n = 0;
        for (;;) {
                if (p >= len)
                        return -EBADMSG;
                uint8_t l = msg[p++];
                if (l == 0)
                        break;
                if (l & 0xc0 || l > len - p || n + (n > 0) + l > DNS_NAME_MAX)
                        return -EBADMSG;
                if (n > 0)
                        name[n++] = '.';
                for (size_t i = 0; i < l; i++) {
                        char c = (char)msg[p + i];
                        if (c >= 'A' && c <= 'Z')
                                c = (char)(c - 'A' + 'a');
                        *bad = *bad || !host_char(c);
                        name[n++] = c;
                }
                p += l;
        }
        name[n] = '\0';
        *off = p;
        return 0;
}

/* The one additional record a query may have: an OPT (RFC 6891 6.1.2: the
 * root name, type 41, then CLASS, TTL, RDLEN, RDATA of whole options),
 * which ends the message. Returns 0 (|*off| past it), -ENOTSUP for another
 * record, -EBADMSG. */
static int skip_opt(const uint8_t *msg, size_t len, size_t *off)
{
        size_t p = *off;
        if (len - p < 11)
                return -EBADMSG;
        if (msg[p] != 0 || get16(msg + p + 1) != DNS_TYPE_OPT)
                return -ENOTSUP;
        size_t rdlen = get16(msg + p + 9);
        p += 11;
        if (rdlen > len - p)
                return -EBADMSG;
        for (size_t end = p + rdlen; p < end;) {
                if (end - p < 4 || get16(msg + p + 2) > end - p - 4)
                        return -EBADMSG;
                p += 4 + get16(msg + p + 2);
        }
        *off = p;
        return 0;
}

int dns_parse_query(const uint8_t *msg, size_t len, dns_query *q)
{
        if (len < DNS_HEADER_LEN)
                return -EBADMSG;
        uint16_t flags = get16(msg + 2);
        if (flags & DNS_FLAG_QR)
                return -EBADMSG;
        if (DNS_OPCODE(flags) != 0 || get16(msg + 4) != 1 || get16(msg + 6) != 0 || get16(msg + 8) != 0 ||
            get16(msg + 10) > 1)
                return -ENOTSUP;
        size_t p = DNS_HEADER_LEN;
        bool bad = false;
        int r = read_name(msg, len, &p, q->name, &bad);
        if (r < 0)
                return r;
        if (len - p < 4)
                return -EBADMSG;
        q->id = get16(msg);
        q->flags = flags;
        q->qtype = get16(msg + p);
        q->qclass = get16(msg + p + 2);
        q->question_end = p += 4;
        if (get16(msg + 10) == 1 && (r = skip_opt(msg, len, &p)) < 0)
                return r;
        if (p != len)
                return -EBADMSG;
        if (bad || !dns_name_valid(q->name)) {
                q->name[0] = '\0';
                return -EINVAL;
        }
        return 0;
}

bool dns_query_header_only(const uint8_t *msg, size_t len, uint16_t *id, uint16_t *flags)
{
        if (len < DNS_HEADER_LEN || (get16(msg + 2) & DNS_FLAG_QR))
                return false;
        *id = get16(msg);
        *flags = get16(msg + 2);
        return true;
}

static void put_header(uint8_t *out, uint16_t id, uint16_t flags, uint16_t qd, uint16_t an)
{
        put16(out, id);
        put16(out + 2, flags);
        put16(out + 4, qd);
        put16(out + 6, an);
        put16(out + 8, 0);
        put16(out + 10, 0);
}

ssize_t dns_build_answer(const dns_query *q, const uint8_t *msg, const struct in_addr *a,
                         const struct in6_addr *aaaa, uint32_t ttl, uint8_t *out, size_t cap)
{
        /* the shortest question: the root name, type, class */
        if (q->question_end < DNS_HEADER_LEN + 5)
                return -EINVAL;
        size_t qlen = q->question_end - DNS_HEADER_LEN;
        const void *rdata = NULL;
        uint16_t rdlen = 0;
        if (q->qclass == DNS_CLASS_IN && q->qtype == DNS_TYPE_A && a)
                rdata = a, rdlen = 4;
        else if (q->qclass == DNS_CLASS_IN && q->qtype == DNS_TYPE_AAAA && aaaa)
                rdata = aaaa, rdlen = 16;
        size_t n = DNS_HEADER_LEN + qlen + (rdata ? 12u + rdlen : 0u);
        if (n > cap)
                return -ENOSPC;
        uint16_t flags = DNS_FLAG_QR | DNS_FLAG_AA | (q->flags & DNS_FLAG_RD) | DNS_FLAG_RA;
        put_header(out, q->id, flags, 1, rdata ? 1 : 0);
        memcpy(out + DNS_HEADER_LEN, msg + DNS_HEADER_LEN, qlen);
        if (rdata) {
                uint8_t *rr = out + DNS_HEADER_LEN + qlen;
                put16(rr, 0xc000 | DNS_HEADER_LEN); /* the question's name */
                put16(rr + 2, q->qtype);
                put16(rr + 4, DNS_CLASS_IN);
                /* a TTL with the top bit set reads as 0 (RFC 2181 8) */
                ttl &= 0x7fffffff;
                put16(rr + 6, (uint16_t)(ttl >> 16));
                put16(rr + 8, (uint16_t)ttl);
                put16(rr + 10, rdlen);
                memcpy(rr + 12, rdata, rdlen);
        }
        return (ssize_t)n;
}

ssize_t dns_build_error(uint16_t id, uint16_t flags, const uint8_t *question, size_t qlen, int rcode,
                        uint8_t *out, size_t cap)
{
        if (rcode < 1 || rcode > 15 || (!question && qlen > 0))
                return -EINVAL;
        if (!question)
                qlen = 0;
        if (qlen > cap || DNS_HEADER_LEN > cap - qlen)
                return -ENOSPC;
        uint16_t f = DNS_FLAG_QR | (flags & (0xf << 11)) | (flags & DNS_FLAG_RD) | DNS_FLAG_RA | (uint16_t)rcode;
        if (rcode == DNS_RCODE_NXDOMAIN)
                f |= DNS_FLAG_AA;
        put_header(out, id, f, qlen ? 1 : 0, 0);
        if (qlen)
                memcpy(out + DNS_HEADER_LEN, question, qlen);
        return (ssize_t)(DNS_HEADER_LEN + qlen);
}
