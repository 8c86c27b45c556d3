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
        RUN(test_json_text);
        return TAP_DONE();
}
