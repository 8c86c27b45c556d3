/* SPDX-License-Identifier: MIT */
/* The resolver's DNS messages (net/dns.c): queries parsed strictly, answers
 * and errors built byte for byte. */
#include <arpa/inet.h>
#include <errno.h>

#include "net/dns.h"
#include "tap.h"

/* A query as dig sends it: id 0x1234, RD, "Example.COM" A, then an EDNS
 * OPT record (UDP size 1232) with a cookie option. */
static const uint8_t QUERY[] = {
        0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,       /* header */
        0x07, 'E',  'x',  'a',  'm',  'p',  'l',  'e',  0x03, 'C',  'O',  'M',  0x00, /* name */
        0x00, 0x01, 0x00, 0x01,                                                       /* A, IN */
        0x00, 0x00, 0x29, 0x04, 0xd0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0c,             /* OPT */
        0x00, 0x0a, 0x00, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,       /* cookie */
};
#define QUESTION_END 29

/* |QUERY| with no OPT record: ARCOUNT 0, the message ends after the question. */
static size_t plain_query(uint8_t *out)
{
        memcpy(out, QUERY, QUESTION_END);
        out[11] = 0;
        return QUESTION_END;
}

/* A query of |name| in wire form (|n| bytes, the root label included) for
 * |qtype|, into |out|. */
static size_t query_of(uint8_t *out, const void *name, size_t n, uint16_t qtype)
{
        static const uint8_t HEADER[] = {0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
        memcpy(out, HEADER, sizeof(HEADER));
        memcpy(out + 12, name, n);
        uint8_t *t = out + 12 + n;
        t[0] = (uint8_t)(qtype >> 8), t[1] = (uint8_t)qtype, t[2] = 0, t[3] = 1;
        return 12 + n + 4;
}

static void test_parse_query(void)
{
        dns_query q;
        CHECK_INTEQ(dns_parse_query(QUERY, sizeof(QUERY), &q), 0);
        CHECK_INTEQ(q.id, 0x1234);
        CHECK_INTEQ(q.flags, DNS_FLAG_RD);
        CHECK_INTEQ(q.qtype, DNS_TYPE_A);
        CHECK_INTEQ(q.qclass, DNS_CLASS_IN);
        CHECK_STREQ(q.name, "example.com");
        CHECK_INTEQ(q.question_end, QUESTION_END);

        uint8_t m[64];
        size_t n = plain_query(m);
        CHECK_INTEQ(dns_parse_query(m, n, &q), 0);
        CHECK_STREQ(q.name, "example.com");
        CHECK_INTEQ(q.question_end, n);
}

/* Every prefix of a valid query, and a byte more, is malformed. */
static void test_parse_truncated(void)
{
        dns_query q;
        for (size_t n = 0; n < sizeof(QUERY); n++)
                if (dns_parse_query(QUERY, n, &q) != -EBADMSG) {
                        printf("# prefix of %zu bytes\n", n);
                        CHECK(false);
                }
        uint8_t m[sizeof(QUERY) + 1];
        memcpy(m, QUERY, sizeof(QUERY));
        m[sizeof(QUERY)] = 0;
        CHECK_INTEQ(dns_parse_query(m, sizeof(m), &q), -EBADMSG);
        size_t p = plain_query(m);
        m[p] = 0;
        CHECK_INTEQ(dns_parse_query(m, p + 1, &q), -EBADMSG);
}

/* The header's fields: one byte of |QUERY| set to another value. */
static void test_parse_header(void)
{
        static const struct {
                size_t at;
                uint8_t value;
                int ret;
        } T[] = {
                {2, 0x81, -EBADMSG}, /* QR: a response */
                {2, 0x09, -ENOTSUP}, /* opcode 1 (IQUERY) */
                {2, 0x29, -ENOTSUP}, /* opcode 5 (UPDATE) */
                {5, 0, -ENOTSUP},    /* QDCOUNT 0 */
                {5, 2, -ENOTSUP},    /* QDCOUNT 2 */
                {4, 1, -ENOTSUP},    /* QDCOUNT 257 */
                {7, 1, -ENOTSUP},    /* ANCOUNT 1 */
                {9, 1, -ENOTSUP},    /* NSCOUNT 1 */
                {11, 2, -ENOTSUP},   /* ARCOUNT 2 */
                {11, 0, -EBADMSG},   /* ARCOUNT 0: the OPT is trailing bytes */
                {2, 0x00, 0},        /* RD clear */
                {3, 0x30, 0},        /* AD, CD set */
                {29, 0x07, -ENOTSUP}, /* the additional record is not the root's: not OPT */
                {31, 0xfa, -ENOTSUP}, /* type TSIG, not OPT */
                {39, 0x0d, -EBADMSG}, /* RDLEN beyond the message */
                {39, 0x0b, -EBADMSG}, /* RDLEN cuts the option */
                {43, 0x09, -EBADMSG}, /* the option's length beyond RDLEN */
                {43, 0x07, -EBADMSG}, /* the option's length short of RDLEN */
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                uint8_t m[sizeof(QUERY)];
                memcpy(m, QUERY, sizeof(m));
                m[T[i].at] = T[i].value;
                dns_query q;
                int r = dns_parse_query(m, sizeof(m), &q);
                if (r != T[i].ret)
                        printf("# byte %zu = 0x%02x: %d, expected %d\n", T[i].at, T[i].value, r, T[i].ret);
                CHECK(r == T[i].ret);
        }
}

static void test_parse_names(void)
{
        static const struct {
                const char *wire;
                size_t n;
                int ret;
                const char *name;
        } T[] = {
#define W(s) s, sizeof(s) - 1
                {W("\3www\7example\3org\0"), 0, "www.example.org"},
                {W("\4_dns\3A-B\0"), 0, "_dns.a-b"},
                {W("\1a\0"), 0, "a"},
                {W("\0010\1a\0"), 0, "0.a"},
                {W("\0"), -EINVAL, ""},               /* the root: no host name */
                {W("\3a b\3com\0"), -EINVAL, ""},      /* a space */
                {W("\3a.b\3com\0"), -EINVAL, ""},      /* a dot inside a label: not two labels */
                {W("\3a\0b\3com\0"), -EINVAL, ""},     /* a NUL inside a label */
                {W("\3a*b\3com\0"), -EINVAL, ""},
                {W("\3\xc3\xa9x\3com\0"), -EINVAL, ""}, /* not ASCII */
                {W("\0011\0012\0013\0014\0"), -EINVAL, ""}, /* 1.2.3.4: an address */
                {W("\003127\0011\0"), -EINVAL, ""},    /* 127.1 */
                {W("\xc0\x0c"), -EBADMSG, NULL},       /* a compression pointer */
                {W("\3www\xc0\x0c"), -EBADMSG, NULL},
                {W("\x40\0"), -EBADMSG, NULL},         /* an extended label type (01) */
                {W("\x80\0"), -EBADMSG, NULL},         /* (10) */
                {W("\3www"), -EBADMSG, NULL},          /* no root label: the type is read as one */
#undef W
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                uint8_t m[512];
                size_t n = query_of(m, T[i].wire, T[i].n, DNS_TYPE_AAAA);
                dns_query q;
                int r = dns_parse_query(m, n, &q);
                if (r != T[i].ret)
                        printf("# case %zu: %d, expected %d\n", i, r, T[i].ret);
                CHECK(r == T[i].ret);
                if (T[i].name && r == T[i].ret) {
                        CHECK_STREQ(q.name, T[i].name);
                        CHECK_INTEQ(q.question_end, n);
                        CHECK_INTEQ(q.qtype, DNS_TYPE_AAAA);
                        CHECK_INTEQ(q.id, 0xabcd);
                }
        }
}

/* |labels| labels of |len| bytes each ("aaa.aaa..."), in wire form. */
static size_t wire_labels(uint8_t *out, size_t labels, size_t len)
{
        size_t n = 0;
        for (size_t i = 0; i < labels; i++) {
                out[n++] = (uint8_t)len;
                memset(out + n, 'a', len);
                n += len;
        }
        out[n++] = 0;
        return n;
}

static void test_parse_lengths(void)
{
        uint8_t wire[400], m[500];
        dns_query q;
        size_t n = wire_labels(wire, 1, 63);
        CHECK_INTEQ(dns_parse_query(m, query_of(m, wire, n, 1), &q), 0);
        CHECK_INTEQ(strlen(q.name), 63);
        /* 64 and 192 bytes: the length's top bits are a label type, not a length */
        n = wire_labels(wire, 1, 64);
        CHECK_INTEQ(dns_parse_query(m, query_of(m, wire, n, 1), &q), -EBADMSG);
        n = wire_labels(wire, 1, 192);
        CHECK_INTEQ(dns_parse_query(m, query_of(m, wire, n, 1), &q), -EBADMSG);
        /* 4 labels of 62: 4 * 63 - 1 = 251 bytes; then one of 1 more: 253 */
        n = wire_labels(wire, 4, 62);
        memcpy(wire + n - 1, "\1b", 3);
        CHECK_INTEQ(dns_parse_query(m, query_of(m, wire, n + 2, 1), &q), 0);
        CHECK_INTEQ(strlen(q.name), 253);
        CHECK(dns_name_valid(q.name));
        /* 254 */
        memcpy(wire + n - 1, "\2bb", 4);
        CHECK_INTEQ(dns_parse_query(m, query_of(m, wire, n + 3, 1), &q), -EBADMSG);
        /* 5 labels of 62: far over */
        n = wire_labels(wire, 5, 62);
        CHECK_INTEQ(dns_parse_query(m, query_of(m, wire, n, 1), &q), -EBADMSG);
}

static void test_name_valid(void)
{
        static const struct {
                const char *name;
                bool valid;
        } T[] = {
                {"example.com", true}, {"a", true},        {"x-1_y.example", true}, {"1a", true},
                {"0.a", true},         {"", false},        {".", false},            {"example.com.", false},
                {".com", false},       {"a..b", false},    {"Example.com", false},  {"a b", false},
                {"1.2.3.4", false},    {"127.1", false},   {"a.123", false},        {"a/b", false},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++)
                if (dns_name_valid(T[i].name) != T[i].valid) {
                        printf("# \"%s\"\n", T[i].name);
                        CHECK(false);
                }
        char s[300];
        memset(s, 'a', 64);
        s[64] = '\0';
        CHECK(!dns_name_valid(s)); /* a label of 64 */
        s[63] = '\0';
        CHECK(dns_name_valid(s));
}

static void test_header_only(void)
{
        uint16_t id = 0, flags = 0;
        CHECK(!dns_query_header_only(QUERY, 11, &id, &flags));
        CHECK(dns_query_header_only(QUERY, 12, &id, &flags));
        CHECK_INTEQ(id, 0x1234);
        CHECK_INTEQ(flags, 0x0100);
        uint8_t m[12];
        memcpy(m, QUERY, 12);
        m[2] |= 0x80; /* a response: never answered */
        CHECK(!dns_query_header_only(m, 12, &id, &flags));
}

static void test_build_answer(void)
{
        dns_query q;
        CHECK_INTEQ(dns_parse_query(QUERY, sizeof(QUERY), &q), 0);
        struct in_addr a;
        struct in6_addr aaaa;
        inet_pton(AF_INET, "198.18.0.7", &a);
        inet_pton(AF_INET6, "2001:db8::1", &aaaa);
        uint8_t out[128];
        ssize_t n = dns_build_answer(&q, QUERY, &a, &aaaa, 60, out, sizeof(out));
        static const uint8_t WANT[] = {
                0x12, 0x34, 0x85, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, /* QR AA RD RA, 1 question, 1 answer */
                0x07, 'E',  'x',  'a',  'm', 'p', 'l', 'e', 0x03, 'C', 'O', 'M', 0x00, 0x00, 0x01, 0x00, 0x01,
                0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01, 0, 0, 0, 60, 0, 4, 198, 18, 0, 7,
        };
        CHECK_INTEQ(n, sizeof(WANT));
        CHECK(n == sizeof(WANT) && memcmp(out, WANT, sizeof(WANT)) == 0);
        for (size_t cap = 0; cap < sizeof(WANT); cap++)
                CHECK_INTEQ(dns_build_answer(&q, QUERY, &a, &aaaa, 60, out, cap), -ENOSPC);
        /* the answer is no query */
        dns_query back;
        CHECK_INTEQ(dns_parse_query(out, (size_t)n, &back), -EBADMSG);

        /* no address of the type asked for: NODATA */
        n = dns_build_answer(&q, QUERY, NULL, &aaaa, 60, out, sizeof(out));
        CHECK_INTEQ(n, QUESTION_END);
        CHECK(memcmp(out, WANT, 6) == 0 && out[7] == 0 && memcmp(out + 12, QUERY + 12, QUESTION_END - 12) == 0);
        q.qclass = 3; /* CHAOS */
        CHECK_INTEQ(dns_build_answer(&q, QUERY, &a, &aaaa, 60, out, sizeof(out)), QUESTION_END);
        q.qclass = DNS_CLASS_IN;
        q.qtype = 15; /* MX */
        CHECK_INTEQ(dns_build_answer(&q, QUERY, &a, &aaaa, 60, out, sizeof(out)), QUESTION_END);

        /* AAAA, RD clear, a TTL with the top bit set */
        uint8_t m[64];
        size_t mn = plain_query(m);
        m[2] = 0;
        m[26] = 28;
        CHECK_INTEQ(dns_parse_query(m, mn, &q), 0);
        n = dns_build_answer(&q, m, &a, &aaaa, 0x80000005, out, sizeof(out));
        CHECK_INTEQ(n, QUESTION_END + 12 + 16);
        CHECK_INTEQ(out[2], 0x84);
        CHECK_INTEQ(out[3], 0x80);
        static const uint8_t RR[] = {0xc0, 0x0c, 0, 28, 0, 1, 0, 0, 0, 5, 0, 16};
        CHECK(memcmp(out + QUESTION_END, RR, sizeof(RR)) == 0);
        CHECK(memcmp(out + QUESTION_END + 12, &aaaa, 16) == 0);
}

static void test_build_error(void)
{
        uint8_t out[64];
        ssize_t n = dns_build_error(0x1234, 0x0100, QUERY + 12, QUESTION_END - 12, DNS_RCODE_NXDOMAIN, out,
                                    sizeof(out));
        static const uint8_t NX[] = {0x12, 0x34, 0x85, 0x83, 0, 1, 0, 0, 0, 0, 0, 0};
        CHECK_INTEQ(n, QUESTION_END);
        CHECK(memcmp(out, NX, 12) == 0 && memcmp(out + 12, QUERY + 12, QUESTION_END - 12) == 0);
        /* FORMERR without a question; the opcode is copied, RD too */
        n = dns_build_error(0xbeef, 0x2900, NULL, 0, DNS_RCODE_FORMERR, out, sizeof(out));
        static const uint8_t FORMERR[] = {0xbe, 0xef, 0xa9, 0x81, 0, 0, 0, 0, 0, 0, 0, 0};
        CHECK_INTEQ(n, 12);
        CHECK(memcmp(out, FORMERR, 12) == 0);
        n = dns_build_error(1, 0, NULL, 0, DNS_RCODE_REFUSED, out, sizeof(out));
        CHECK(n == 12 && out[2] == 0x80 && out[3] == 0x85);
        n = dns_build_error(1, 0, NULL, 0, DNS_RCODE_SERVFAIL, out, sizeof(out));
        CHECK(n == 12 && out[3] == 0x82);
        CHECK_INTEQ(dns_build_error(1, 0, NULL, 0, 0, out, sizeof(out)), -EINVAL);
        CHECK_INTEQ(dns_build_error(1, 0, NULL, 0, 16, out, sizeof(out)), -EINVAL);
        CHECK_INTEQ(dns_build_error(1, 0, NULL, 5, 1, out, sizeof(out)), -EINVAL);
        CHECK_INTEQ(dns_build_error(1, 0, NULL, 0, 1, out, 11), -ENOSPC);
        CHECK_INTEQ(dns_build_error(1, 0, QUERY + 12, 17, 3, out, 28), -ENOSPC);
        CHECK_INTEQ(dns_build_error(1, 0, QUERY + 12, 17, 3, out, 29), 29);
}

int main(void)
{
        RUN(test_parse_query);
        RUN(test_parse_truncated);
        RUN(test_parse_header);
        RUN(test_parse_names);
        RUN(test_parse_lengths);
        RUN(test_name_valid);
        RUN(test_header_only);
        RUN(test_build_answer);
        RUN(test_build_error);
        return TAP_DONE();
}
