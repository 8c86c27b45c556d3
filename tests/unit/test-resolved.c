/* SPDX-License-Identifier: MIT */
/* The fake-address pool (net/resolved.c): one address per name, the same
 * each time, names found from addresses, the pool's bounds. */
#include <arpa/inet.h>
#include <errno.h>

#include "net/resolved.h"
#include "tap.h"

static struct in_addr addr(const char *s)
{
        struct in_addr a;
        inet_pton(AF_INET, s, &a);
        return a;
}

static const char *text(struct in_addr a, char txt[INET_ADDRSTRLEN])
{
        return inet_ntop(AF_INET, &a, txt, INET_ADDRSTRLEN);
}

static void test_new(void)
{
        static const struct {
                uint32_t base;
                unsigned prefix;
                size_t max;
        } BAD[] = {
                {RESOLVED_BASE, 0, 10},  {RESOLVED_BASE, 31, 10},     {RESOLVED_BASE, 32, 10},
                {RESOLVED_BASE, 15, 0},  {RESOLVED_BASE | 1, 15, 10}, {0xc6130000, 15, 10}, /* 198.19.0.0/15 */
        };
        for (size_t i = 0; i < ARRAY_SIZE(BAD); i++) {
                errno = 0;
                resolved *r = resolved_new(BAD[i].base, BAD[i].prefix, BAD[i].max);
                CHECK(!r && errno == EINVAL);
                resolved_free(r);
        }
        CHECK(resolved_free(NULL) == NULL);
}

static void test_addresses(void)
{
        resolved *r = resolved_new(RESOLVED_BASE, RESOLVED_PREFIX, 1000);
        CHECK(r);
        struct in_addr a, b, again;
        char txt[INET_ADDRSTRLEN];
        CHECK_INTEQ(resolved_address(r, "example.org", &a), 0);
        CHECK_STREQ(text(a, txt), "198.18.0.1");
        CHECK_INTEQ(resolved_address(r, "www.example.org", &b), 0);
        CHECK_STREQ(text(b, txt), "198.18.0.2");
        CHECK_INTEQ(resolved_address(r, "example.org", &again), 0);
        CHECK(again.s_addr == a.s_addr);
        CHECK_STREQ(resolved_name(r, a), "example.org");
        CHECK_STREQ(resolved_name(r, b), "www.example.org");
        CHECK(resolved_name(r, addr("198.18.0.3")) == NULL); /* no name yet */
        CHECK(resolved_name(r, addr("198.18.0.0")) == NULL); /* the network address */
        CHECK(resolved_name(r, addr("93.184.215.14")) == NULL);
        /* names as the resolver hands them over only */
        struct in_addr untouched = {.s_addr = 0x01020304};
        CHECK_INTEQ(resolved_address(r, "Example.org", &untouched), -EINVAL);
        CHECK_INTEQ(resolved_address(r, "", &untouched), -EINVAL);
        CHECK_INTEQ(resolved_address(r, "example.org.", &untouched), -EINVAL);
        CHECK_INTEQ(resolved_address(r, "10.0.0.1", &untouched), -EINVAL);
        CHECK(untouched.s_addr == 0x01020304);
        resolved_free(r);
}

static void test_in_pool(void)
{
        resolved *r = resolved_new(RESOLVED_BASE, RESOLVED_PREFIX, 10);
        CHECK(resolved_in_pool(r, addr("198.18.0.0")));
        CHECK(resolved_in_pool(r, addr("198.18.0.200")));
        CHECK(resolved_in_pool(r, addr("198.19.255.255")));
        CHECK(!resolved_in_pool(r, addr("198.17.255.255")));
        CHECK(!resolved_in_pool(r, addr("198.20.0.0")));
        CHECK(!resolved_in_pool(r, addr("127.0.0.1")));
        resolved_free(r);
}

static void test_full(void)
{
        /* |max| bounds it */
        resolved *r = resolved_new(RESOLVED_BASE, RESOLVED_PREFIX, 3);
        struct in_addr a;
        CHECK_INTEQ(resolved_address(r, "a.test", &a), 0);
        CHECK_INTEQ(resolved_address(r, "b.test", &a), 0);
        CHECK_INTEQ(resolved_address(r, "c.test", &a), 0);
        CHECK_INTEQ(resolved_address(r, "d.test", &a), -ENOSPC);
        CHECK_INTEQ(resolved_address(r, "b.test", &a), 0); /* the names it has still resolve */
        CHECK_INTEQ(ntohl(a.s_addr), RESOLVED_BASE + 2);
        resolved_free(r);
        /* so does the prefix: a /30 has two, never the broadcast address */
        r = resolved_new(0xc0000200, 30, 100); /* 192.0.2.0/30 */
        char txt[INET_ADDRSTRLEN];
        CHECK_INTEQ(resolved_address(r, "a.test", &a), 0);
        CHECK_STREQ(text(a, txt), "192.0.2.1");
        CHECK_INTEQ(resolved_address(r, "b.test", &a), 0);
        CHECK_STREQ(text(a, txt), "192.0.2.2");
        CHECK_INTEQ(resolved_address(r, "c.test", &a), -ENOSPC);
        CHECK(resolved_name(r, addr("192.0.2.3")) == NULL);
        resolved_free(r);
}

/* Many names (the tables grow): each keeps its own address. */
static void test_many(void)
{
        enum { N = 20000 };
        resolved *r = resolved_new(RESOLVED_BASE, RESOLVED_PREFIX, N);
        char name[32];
        struct in_addr a;
        int bad = 0;
        for (int pass = 0; pass < 2; pass++)
                for (int i = 0; i < N; i++) {
                        snprintf(name, sizeof(name), "host%d.example", i);
                        if (resolved_address(r, name, &a) != 0 || ntohl(a.s_addr) != RESOLVED_BASE + 1 + (uint32_t)i)
                                bad++;
                        const char *back = resolved_name(r, a);
                        if (!back || strcmp(back, name) != 0)
                                bad++;
                }
        CHECK_INTEQ(bad, 0);
        CHECK_INTEQ(resolved_address(r, "one.more", &a), -ENOSPC);
        resolved_free(r);
}

int main(void)
{
        RUN(test_new);
        RUN(test_addresses);
        RUN(test_in_pool);
        RUN(test_full);
        RUN(test_many);
        return TAP_DONE();
}
