/* SPDX-License-Identifier: MIT */
#include <jansson.h>

#include "tap.h"
#include "util.h"

static void test_path_normalize(void)
{
        static const struct {
                const char *in, *out;
                bool dotdot;
        } T[] = {
                {"/", "/", false},           {"//", "/", false},          {"/a//b/", "/a/b", false},
                {"/a/./b", "/a/b", false},   {"/a/b/..", NULL, false},    {"/a/b/..", "/a", true},
                {"/../a", "/a", true},       {"a/b", NULL, false},        {"", NULL, false},
                {"/a/b/../../c", "/c", true}, {"/a/.../b", "/a/.../b", false},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char *out = NULL;
                int r = path_normalize(T[i].in, T[i].dotdot, &out);
                if (!T[i].out)
                        CHECK(r < 0);
                else {
                        CHECK_INTEQ(r, 0);
                        CHECK_STREQ(out, T[i].out);
                }
                free(out);
        }
}

static void test_path_startswith(void)
{
        CHECK(path_startswith("/a/b", "/a"));
        CHECK(path_startswith("/a", "/a"));
        CHECK(!path_startswith("/ab", "/a"));
        CHECK(path_startswith("/anything", "/"));
        CHECK(!path_startswith("/a", "/a/b"));
        CHECK_STREQ(path_skip_prefix("/a/b/c", "/a"), "b/c");
        CHECK_STREQ(path_skip_prefix("/a", "/a"), "");
}

/* On Linux a Windows path is a relative one (cordon.exe takes it: windows.sh). */
static void test_path_is_absolute(void)
{
        CHECK(path_is_absolute("/x"));
        CHECK(!path_is_absolute("C:\\x"));
        CHECK(!path_is_absolute("x"));
        CHECK(!path_is_absolute(NULL));
        CHECK(path_is_root("/"));
        CHECK(!path_is_root("/a"));
        char *n = NULL;
        CHECK(path_normalize("C:\\x", false, &n) < 0);
}

static void test_path_compare(void)
{
        /* parents sort before children, children before siblings */
        CHECK(path_compare("/a", "/a/b") < 0);
        CHECK(path_compare("/a/b", "/a-b") < 0);
        CHECK(path_compare("/a/b", "/a.b") < 0);
        CHECK(path_compare("/a", "/a") == 0);
        CHECK(path_compare("/b", "/a/z") > 0);
}

static void test_path_join_dirname(void)
{
        char *s = path_join("/a/", "/b");
        CHECK_STREQ(s, "/a/b");
        free(s);
        s = path_join("/a", "");
        CHECK_STREQ(s, "/a");
        free(s);
        s = path_dirname("/a/b");
        CHECK_STREQ(s, "/a");
        free(s);
        s = path_dirname("/a");
        CHECK_STREQ(s, "/");
        free(s);
}

static void test_parse_size(void)
{
        uint64_t v = 0;
        CHECK(parse_size("512M", &v) == 0 && v == 512ULL << 20);
        CHECK(parse_size("1G", &v) == 0 && v == 1ULL << 30);
        CHECK(parse_size("1.5K", &v) == 0 && v == 1536);
        CHECK(parse_size("100", &v) == 0 && v == 100);
        CHECK(parse_size("2GiB", &v) == 0 && v == 2ULL << 30);
        CHECK(parse_size("-1", &v) < 0);
        CHECK(parse_size("12Q", &v) < 0);
        CHECK(parse_size("", &v) < 0);
        CHECK(parse_size("0.3", &v) < 0); /* not a whole number of bytes */
}

static void test_parse_seconds(void)
{
        double d = 0;
        CHECK(parse_seconds("1.5", &d) == 0 && d == 1.5);
        CHECK(parse_seconds(".25", &d) == 0 && d == 0.25);
        CHECK(parse_seconds("-1", &d) < 0);
        CHECK(parse_seconds("inf", &d) < 0);
        CHECK(parse_seconds("1s", &d) < 0);
}

static void test_format_size(void)
{
        char out[32];
        format_size(512ULL << 20, out);
        CHECK_STREQ(out, "512M");
        format_size(1000, out);
        CHECK_STREQ(out, "1000");
        format_size(3ULL << 30, out);
        CHECK_STREQ(out, "3G");
}

static void test_strv(void)
{
        char **v = NULL;
        CHECK(strv_push(&v, "b") == 0);
        CHECK(strv_push(&v, "a") == 0);
        CHECK_INTEQ(strv_len(v), 2);
        strv_sort(v);
        CHECK_STREQ(v[0], "a");
        char **c = strv_copy((const char *const *)v);
        CHECK_STREQ(c[1], "b");
        strv_free(c);
        strv_free(v);
}

/* Formatting takes one pass where the result fits and a second where it
 * does not: both give the whole string, at every length around the limits
 * (xasprintf's 256-byte stack buffer, buf_printf's 127 bytes of room). */
static void test_formatting(void)
{
        char want[2000];
        for (int len = 0; len < 1500; len += len < 300 ? 1 : 97) {
                memset(want, 'x', (size_t)len);
                want[len] = '\0';
                char *s = xasprintf("%s", want);
                CHECK_STREQ(s, want);
                free(s);
                buf b = {0};
                buf_put(&b, "ab", 2);
                for (int i = 0; i < 3; i++)
                        buf_printf(&b, "%d%s", i, want);
                char *got = buf_steal(&b);
                char *expect = xasprintf("ab0%s1%s2%s", want, want, want);
                CHECK_STREQ(got, expect);
                free(got);
                free(expect);
        }
        buf e = {0};
        buf_printf(&e, "%s", "");
        char *empty = buf_steal(&e);
        CHECK_STREQ(empty, "");
        free(empty);
}

/* UTF-8 stays as it is, every byte that is not part of it becomes \xNN. */
static void test_json_text(void)
{
        static const struct {
                const char *in, *want;
        } T[] = {
                {"b\xc3\xbc" "cher.example", "\"b\xc3\xbc" "cher.example\""},
                {"\xe2\x82\xac \xf0\x9f\x98\x80", "\"\xe2\x82\xac \xf0\x9f\x98\x80\""},
                {"a\xff" "b", "\"a\\\\xFFb\""},
                {"\xc3", "\"\\\\xC3\""},                       /* cut short */
                {"\xc0\xaf", "\"\\\\xC0\\\\xAF\""},            /* overlong "/" */
                {"\xed\xa0\x80", "\"\\\\xED\\\\xA0\\\\x80\""}, /* a UTF-16 surrogate */
                {"\xf4\x90\x80\x80", "\"\\\\xF4\\\\x90\\\\x80\\\\x80\""}, /* above U+10FFFF */
                {"q\"\\\n\x01", "\"q\\\"\\\\\\n\\u0001\""},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                json_t *v = json_text(T[i].in);
                char *got = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
                CHECK_STREQ(got, T[i].want);
                free(got);
                json_decref(v);
        }
        json_t *n = json_text(NULL);
        CHECK(json_is_null(n));
        json_decref(n);
}

/* What a hostile name or path could hold to act on the operator's
 * terminal: each control escaped, printable text (UTF-8 too) kept. */
static void test_str_escape(void)
{
        static const struct {
                const char *in, *out, *out_lines;
        } T[] = {
                {"example.org", "example.org", "example.org"},
                {"", "", ""},
                {"\x1b]0;title\x07", "\\x1b]0;title\\x07", "\\x1b]0;title\\x07"},
                {"\x1b]52;c;aGk=\x1b\\", "\\x1b]52;c;aGk=\\x1b\\", "\\x1b]52;c;aGk=\\x1b\\"},
                {"a\nb\tc\r", "a\\x0ab\\x09c\\x0d", "a\nb\\x09c\\x0d"},
                {"del\x7f", "del\\x7f", "del\\x7f"},
                {"c1 raw \x9b" "31m", "c1 raw \\x9b31m", "c1 raw \\x9b31m"},
                {"c1 utf8 \xc2\x9b" "31m", "c1 utf8 \\xc2\\x9b31m", "c1 utf8 \\xc2\\x9b31m"},
                {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
                {"\xc2\xa0nbsp", "\xc2\xa0nbsp", "\xc2\xa0nbsp"},
                {"rlo \xe2\x80\xae txt", "rlo \\xe2\\x80\\xae txt", "rlo \\xe2\\x80\\xae txt"},
                {"fsi \xe2\x81\xa8", "fsi \\xe2\\x81\\xa8", "fsi \\xe2\\x81\\xa8"},
                {"overlong \xc0\xaf", "overlong \\xc0\\xaf", "overlong \\xc0\\xaf"},
                {"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80", "surrogate \\xed\\xa0\\x80"},
                {"cut \xe2\x82", "cut \\xe2\\x82", "cut \\xe2\\x82"},
                {"big \xf4\x90\x80\x80", "big \\xf4\\x90\\x80\\x80", "big \\xf4\\x90\\x80\\x80"},
                {"C:\\Users\\x1b", "C:\\Users\\x1b", "C:\\Users\\x1b"},
        };
        for (size_t i = 0; i < ARRAY_SIZE(T); i++) {
                char *e = str_escape(T[i].in, false), *l = str_escape(T[i].in, true);
                CHECK_STREQ(e, T[i].out);
                CHECK_STREQ(l, T[i].out_lines);
                CHECK_INTEQ(str_needs_escape(T[i].in, false), !streq(T[i].in, T[i].out));
                char *twice = str_escape(e, false);
                CHECK_STREQ(twice, e); /* idempotent */
                free(twice);
                free(e);
                free(l);
        }
        /* every single byte: the output holds no control byte */
        for (int c = 1; c < 256; c++) {
                char in[2] = {(char)c, 0};
                char *e = str_escape(in, false);
                bool clean = e != NULL;
                for (const unsigned char *u = (const unsigned char *)e; e && *u; u++)
                        clean &= *u >= 0x20 && *u < 0x7f;
                if (!clean)
                        printf("# byte 0x%02x: %s\n", c, e ? e : "(null)");
                CHECK(clean);
                free(e);
        }
}

int main(void)
{
        RUN(test_path_normalize);
        RUN(test_path_startswith);
        RUN(test_path_is_absolute);
        RUN(test_path_compare);
        RUN(test_path_join_dirname);
        RUN(test_parse_size);
        RUN(test_parse_seconds);
        RUN(test_format_size);
        RUN(test_strv);
        RUN(test_formatting);
        RUN(test_json_text);
        RUN(test_str_escape);
        return TAP_DONE();
}
