/* SPDX-License-Identifier: MIT */
/* The server name of a TLS ClientHello (net/sni.c): real ClientHellos,
 * every prefix of them, and each of their lengths corrupted. */
#include "net/sni.h"
#include "tap.h"

/* Captured from `openssl s_client -connect 127.0.0.1:PORT -servername
 * Example.COM` (OpenSSL 3.0.19) by a python socket server that saved the
 * first record: TLS 1.3 offered, extensions 0 11 10 35 22 23 13 43 45 51. */
static const uint8_t CLIENT_HELLO[] = {
        0x16, 0x03, 0x01, 0x01, 0x38, 0x01, 0x00, 0x01, 0x34, 0x03, 0x03, 0xf7,
        0xcb, 0x23, 0x41, 0x48, 0x4f, 0x3f, 0x51, 0x2b, 0x0f, 0xdf, 0xa4, 0xf1,
        0x4d, 0xde, 0xe8, 0x9a, 0xe8, 0x61, 0x88, 0x97, 0x91, 0x1b, 0xd7, 0xd9,
        0x48, 0x75, 0x81, 0xac, 0xf8, 0x72, 0x60, 0x20, 0x0f, 0x92, 0x2f, 0xc3,
        0x2a, 0x52, 0xc4, 0x19, 0xb3, 0x82, 0xe1, 0xf3, 0x62, 0x1d, 0xe0, 0x88,
        0x81, 0xce, 0x6d, 0xcc, 0x2e, 0x15, 0x43, 0xe3, 0x1e, 0x7b, 0x21, 0xdd,
        0x10, 0xfc, 0x34, 0xfd, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
        0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
        0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
        0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
        0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
        0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xad,
        0x00, 0x00, 0x00, 0x10, 0x00, 0x0e, 0x00, 0x00, 0x0b, 0x45, 0x78, 0x61,
        0x6d, 0x70, 0x6c, 0x65, 0x2e, 0x43, 0x4f, 0x4d, 0x00, 0x0b, 0x00, 0x04,
        0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16, 0x00, 0x14, 0x00, 0x1d,
        0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x01, 0x00, 0x01, 0x01,
        0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x23, 0x00, 0x00, 0x00, 0x16,
        0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28,
        0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07, 0x08, 0x08, 0x08, 0x09,
        0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01,
        0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02,
        0x05, 0x02, 0x06, 0x02, 0x00, 0x2b, 0x00, 0x09, 0x08, 0x03, 0x04, 0x03,
        0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00, 0x02, 0x01, 0x01, 0x00,
        0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00, 0x20, 0x45, 0x7e, 0x9d,
        0x77, 0xa9, 0x67, 0xe6, 0x38, 0x34, 0x90, 0x43, 0x9b, 0x95, 0xa8, 0xc0,
        0xdb, 0x09, 0x0f, 0xdf, 0x95, 0x7a, 0x82, 0x44, 0x2b, 0x6d, 0x79, 0xe3,
        0x11, 0xc0, 0x08, 0x66, 0x58
};

/* The same with -noservername. */
static const uint8_t CLIENT_HELLO_NO_SNI[] = {
        0x16, 0x03, 0x01, 0x01, 0x24, 0x01, 0x00, 0x01, 0x20, 0x03, 0x03, 0x2b,
        0x35, 0x03, 0x66, 0x9c, 0x46, 0x68, 0xc2, 0x14, 0xfc, 0xd3, 0xcb, 0xb0,
        0xb8, 0x2d, 0x12, 0xbd, 0x9b, 0x97, 0xb3, 0x12, 0xcb, 0x23, 0x80, 0x53,
        0xa8, 0xa6, 0xeb, 0xf5, 0x52, 0x0c, 0xd8, 0x20, 0x68, 0xc4, 0x23, 0x61,
        0x08, 0x5e, 0x94, 0xb7, 0x62, 0x9d, 0xc4, 0xb3, 0xe4, 0x69, 0xfa, 0x2d,
        0x4a, 0x11, 0x16, 0xe5, 0x7b, 0x9a, 0xfb, 0xa2, 0xeb, 0x70, 0xab, 0xdb,
        0x68, 0xd9, 0x9f, 0x5e, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
        0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
        0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
        0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
        0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
        0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0x99,
        0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x16,
        0x00, 0x14, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18,
        0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x01, 0x03, 0x01, 0x04, 0x00, 0x23,
        0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d,
        0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07,
        0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05,
        0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01,
        0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02, 0x00, 0x2b, 0x00, 0x09,
        0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01, 0x00, 0x2d, 0x00,
        0x02, 0x01, 0x01, 0x00, 0x33, 0x00, 0x26, 0x00, 0x24, 0x00, 0x1d, 0x00,
        0x20, 0xdd, 0xf7, 0xfb, 0x88, 0xd3, 0xd6, 0xb7, 0xc0, 0x98, 0x92, 0xed,
        0x1c, 0xd0, 0x60, 0x11, 0xe3, 0x2a, 0xd1, 0xe5, 0x83, 0xa3, 0xb8, 0xb1,
        0xce, 0xe7, 0xa5, 0xec, 0x72, 0xc3, 0xd7, 0x30, 0x6a
};

/* Offsets and widths of every length field of CLIENT_HELLO (found by
 * walking the capture). */
static const struct {
        const char *what;
        size_t at, width;
} LENGTHS[] = {
        {"record", 3, 2},        {"handshake", 6, 3},     {"legacy_session_id", 43, 1},
        {"cipher_suites", 76, 2}, {"compression", 140, 1}, {"extensions", 142, 2},
        {"server_name", 146, 2}, {"server_name_list", 148, 2}, {"host_name", 151, 2},
        {"ec_point_formats", 166, 2}, {"supported_groups", 174, 2}, {"session_ticket", 200, 2},
        {"encrypt_then_mac", 204, 2}, {"extended_master_secret", 208, 2}, {"signature_algorithms", 212, 2},
        {"supported_versions", 258, 2}, {"psk_key_exchange_modes", 271, 2}, {"key_share", 277, 2},
};
#define NAME_AT 153 /* "Example.COM" */

static int sni(const uint8_t *b, size_t n)
{
        char name[256];
        return tls_client_hello_sni(b, n, name, sizeof(name));
}

static void test_captured(void)
{
        char name[256] = "";
        CHECK_INTEQ(tls_client_hello_sni(CLIENT_HELLO, sizeof(CLIENT_HELLO), name, sizeof(name)), SNI_FOUND);
        CHECK_STREQ(name, "example.com");
        CHECK_INTEQ(sni(CLIENT_HELLO_NO_SNI, sizeof(CLIENT_HELLO_NO_SNI)), SNI_NONE);
        /* what follows the first record is not read */
        uint8_t more[sizeof(CLIENT_HELLO) + 6];
        memcpy(more, CLIENT_HELLO, sizeof(CLIENT_HELLO));
        memcpy(more + sizeof(CLIENT_HELLO), "\x14\x03\x03\x00\x01\x01", 6);
        CHECK_INTEQ(sni(more, sizeof(more)), SNI_FOUND);
        /* the name must fit, its NUL too */
        CHECK_INTEQ(tls_client_hello_sni(CLIENT_HELLO, sizeof(CLIENT_HELLO), name, 11), SNI_MALFORMED);
        CHECK_INTEQ(tls_client_hello_sni(CLIENT_HELLO, sizeof(CLIENT_HELLO), name, 12), SNI_FOUND);
}

static void test_prefixes(void)
{
        for (size_t n = 0; n < sizeof(CLIENT_HELLO); n++)
                if (sni(CLIENT_HELLO, n) != SNI_NEED_MORE) {
                        printf("# prefix of %zu bytes\n", n);
                        CHECK(false);
                }
        for (size_t n = 0; n < sizeof(CLIENT_HELLO_NO_SNI); n++)
                if (sni(CLIENT_HELLO_NO_SNI, n) != SNI_NEED_MORE) {
                        printf("# prefix of %zu bytes\n", n);
                        CHECK(false);
                }
}

/* Each length one more and one less than it is: malformed, never another
 * name nor none. */
static void test_lengths_corrupted(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(LENGTHS); i++)
                for (int delta = -1; delta <= 1; delta += 2) {
                        uint8_t b[sizeof(CLIENT_HELLO) + 1];
                        memcpy(b, CLIENT_HELLO, sizeof(CLIENT_HELLO));
                        b[sizeof(CLIENT_HELLO)] = 0; /* a longer record is then whole */
                        size_t last = LENGTHS[i].at + LENGTHS[i].width - 1;
                        b[last] = (uint8_t)(b[last] + delta);
                        int r = sni(b, sizeof(b));
                        if (r != SNI_MALFORMED)
                                printf("# %s %+d: %d\n", LENGTHS[i].what, delta, r);
                        CHECK(r == SNI_MALFORMED);
                }
}

/* One byte of CLIENT_HELLO set to |v|. */
static int with_byte(size_t at, uint8_t v, char *name, size_t cap)
{
        uint8_t b[sizeof(CLIENT_HELLO)];
        memcpy(b, CLIENT_HELLO, sizeof(b));
        b[at] = v;
        return tls_client_hello_sni(b, sizeof(b), name, cap);
}

static void test_fields(void)
{
        static const struct {
                size_t at;
                uint8_t value;
                int ret;
        } T[] = {
                {0, 0x17, SNI_NOT_TLS},          /* application data */
                {1, 0x02, SNI_NOT_TLS},          /* SSL 2 */
                {5, 0x02, SNI_MALFORMED},        /* a ServerHello */
                {9, 0x02, SNI_MALFORMED},        /* legacy_version 2.x */
                {150, 0x01, SNI_MALFORMED},      /* a name type that is not host_name */
                {165, 0x00, SNI_MALFORMED},      /* ec_point_formats made a second server_name */
                {NAME_AT + 10, '.', SNI_MALFORMED}, /* "example.co.": a trailing dot */
                {NAME_AT + 1, 0, SNI_MALFORMED}, /* a NUL */
                {NAME_AT + 1, ' ', SNI_MALFORMED},
                {NAME_AT + 1, 0xc3, SNI_MALFORMED},
                {NAME_AT, '.', SNI_MALFORMED},
                {NAME_AT + 7, '_', SNI_FOUND},   /* "example_com" */
                {2, 0x03, SNI_FOUND},            /* the record's minor version is not looked at */
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char name[256];
                int r = with_byte(T[i].at, T[i].value, name, sizeof(name));
                if (r != T[i].ret)
                        printf("# byte %zu = 0x%02x: %d, expected %d\n", T[i].at, T[i].value, r, T[i].ret);
                CHECK(r == T[i].ret);
        }
        /* a legacy_session_id of 33 bytes, every length adjusted */
        uint8_t sid[sizeof(CLIENT_HELLO) + 1];
        memcpy(sid, CLIENT_HELLO, 44);
        sid[44] = 0;
        memcpy(sid + 45, CLIENT_HELLO + 44, sizeof(CLIENT_HELLO) - 44);
        sid[43]++, sid[4]++, sid[8]++;
        CHECK_INTEQ(sni(sid, sizeof(sid)), SNI_MALFORMED);
        /* "example.123": the last label all digits, an address */
        uint8_t b[sizeof(CLIENT_HELLO)];
        memcpy(b, CLIENT_HELLO, sizeof(b));
        memcpy(b + NAME_AT + 8, "123", 3);
        CHECK_INTEQ(sni(b, sizeof(b)), SNI_MALFORMED);
}

/* CLIENT_HELLO with a second server_name extension after the first, whose
 * name's last byte is |last|: the proxy and the server could each read
 * another name. */
static void test_two_names(void)
{
        uint8_t b[sizeof(CLIENT_HELLO) + 20];
        const size_t ext = 144, ext_n = 20; /* type, length, 16 bytes of data */
        memcpy(b, CLIENT_HELLO, ext + ext_n);
        memcpy(b + ext + ext_n, CLIENT_HELLO + ext, ext_n);
        memcpy(b + ext + 2 * ext_n, CLIENT_HELLO + ext + ext_n, sizeof(CLIENT_HELLO) - ext - ext_n);
        b[4] = (uint8_t)(b[4] + ext_n), b[8] = (uint8_t)(b[8] + ext_n), b[143] = (uint8_t)(b[143] + ext_n);
        CHECK_INTEQ(sni(b, sizeof(b)), SNI_MALFORMED);
        b[ext + ext_n + 4 + 5 + 10] = 'T'; /* "Example.COT" */
        CHECK_INTEQ(sni(b, sizeof(b)), SNI_MALFORMED);
        /* the control: the copy made another extension type, it is found */
        b[ext + ext_n + 1] = 0x99;
        CHECK_INTEQ(sni(b, sizeof(b)), SNI_FOUND);
}

static void test_not_tls(void)
{
        CHECK_INTEQ(sni((const uint8_t *)"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", 37), SNI_NOT_TLS);
        CHECK_INTEQ(sni((const uint8_t *)"G", 1), SNI_NOT_TLS);
        CHECK_INTEQ(sni((const uint8_t *)"\x16\x04", 2), SNI_NOT_TLS);
        /* an SSL 2 ClientHello */
        CHECK_INTEQ(sni((const uint8_t *)"\x80\x2e\x01\x00\x02", 5), SNI_NOT_TLS);
        CHECK_INTEQ(sni((const uint8_t *)"\x16", 1), SNI_NEED_MORE);
        CHECK_INTEQ(sni((const uint8_t *)"", 0), SNI_NEED_MORE);
}

static void test_records(void)
{
        /* a record over 2^14 bytes is refused at once, not waited for */
        CHECK_INTEQ(sni((const uint8_t *)"\x16\x03\x01\x40\x01", 5), SNI_MALFORMED);
        CHECK_INTEQ(sni((const uint8_t *)"\x16\x03\x01\x40\x00", 5), SNI_NEED_MORE);
        CHECK_INTEQ(sni((const uint8_t *)"\x16\x03\x01\x00\x03\x01\x00\x00", 8), SNI_MALFORMED);
        CHECK_INTEQ(sni((const uint8_t *)"\x16\x03\x01\x00\x04\x01\x00\x00\x00", 9), SNI_MALFORMED);
        /* the ClientHello split over two records */
        uint8_t b[sizeof(CLIENT_HELLO) + 5];
        size_t first = 100;
        memcpy(b, CLIENT_HELLO, 5 + first);
        b[3] = 0, b[4] = (uint8_t)first;
        memcpy(b + 5 + first, "\x16\x03\x01", 3);
        size_t rest = sizeof(CLIENT_HELLO) - 5 - first;
        b[8 + first] = (uint8_t)(rest >> 8), b[9 + first] = (uint8_t)rest;
        memcpy(b + 10 + first, CLIENT_HELLO + 5 + first, rest);
        CHECK_INTEQ(sni(b, sizeof(b)), SNI_MALFORMED);
        /* no extensions at all: the capture up to its compression methods */
        uint8_t old[142];
        memcpy(old, CLIENT_HELLO, sizeof(old));
        old[3] = 0, old[4] = sizeof(old) - 5;
        old[6] = 0, old[7] = 0, old[8] = sizeof(old) - 9;
        CHECK_INTEQ(sni(old, sizeof(old)), SNI_NONE);
        /* an extensions length of 0 with nothing after */
        uint8_t empty[144];
        memcpy(empty, old, sizeof(old));
        empty[142] = empty[143] = 0;
        empty[4] = sizeof(empty) - 5, empty[8] = sizeof(empty) - 9;
        CHECK_INTEQ(sni(empty, sizeof(empty)), SNI_NONE);
        /* one byte of an extensions length */
        CHECK_INTEQ(sni(empty, sizeof(empty) - 1), SNI_NEED_MORE);
        empty[4]--, empty[8]--;
        CHECK_INTEQ(sni(empty, sizeof(empty) - 1), SNI_MALFORMED);
}

int main(void)
{
        RUN(test_captured);
        RUN(test_prefixes);
        RUN(test_lengths_corrupted);
        RUN(test_fields);
        RUN(test_two_names);
        RUN(test_not_tls);
        RUN(test_records);
        return TAP_DONE();
}
