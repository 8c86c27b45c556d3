/* SPDX-License-Identifier: MIT */
/* What a sandboxed client sends cordon's proxy: HTTP request heads and
 * SOCKS5 greetings and requests (net/request.c), then the policy's host
 * normalisation and allowlist matching on what they yield. */
#include <stdio.h>

#include "fuzz.h"
#include "net/allowlist.h"
#include "net/request.h"

static void check_policy(const char *host_in, uint16_t port)
{
        char host[NET_HOST_MAX + 3];
        snprintf(host, sizeof(host), "%s", host_in);
        if (!net_host_normalize(host))
                return;
        static const char *const LIST[] = {"example.org", "*.example.org:443", "10.0.0.0/8", "[2001:db8::/32]:443"};
        net_entry e[4];
        net_policy p = {.e = e};
        for (size_t i = 0; i < 4; i++) {
                const char *why;
                FUZZ_ASSERT(net_entry_parse(LIST[i], &e[p.n], &why) == 0);
                p.n++;
        }
        char why[256];
        bool ip;
        const char *r = net_policy_check_host(&p, host, port, &ip, why, sizeof(why));
        FUZZ_ASSERT(!r || strlen(r) < sizeof(why));
        net_addr a;
        if (ip) {
                FUZZ_ASSERT(net_addr_parse(host, &a));
                r = net_policy_check_addr(&p, &a, port, why, sizeof(why));
                FUZZ_ASSERT(!r || strlen(r) < sizeof(why));
        }
}

static void fuzz_http(const uint8_t *data, size_t size)
{
        http_request req;
        char out[HTTP_OUT_MAX];
        size_t out_len = 0;
        int r = http_parse_head((const char *)data, size, &req, out, sizeof(out), &out_len);
        if (r <= 0)
                return;
        FUZZ_ASSERT(req.head_len <= size);
        FUZZ_ASSERT(req.host[0] && strlen(req.host) < sizeof(req.host));
        FUZZ_ASSERT(req.port > 0);
        if (!req.connect) {
                FUZZ_ASSERT(out_len <= sizeof(out));
                FUZZ_ASSERT(out_len >= 4 && memcmp(out + out_len - 4, "\r\n\r\n", 4) == 0);
                long body = http_body_scan(&req.body, data + req.head_len, size - req.head_len);
                FUZZ_ASSERT(body <= (long)(size - req.head_len));
                FUZZ_ASSERT(body < 0 || (size_t)body == size - req.head_len || req.body.state == BODY_DONE);
        }
        check_policy(req.host, req.port);
}

static void fuzz_socks(const uint8_t *data, size_t size)
{
        bool no_auth = false;
        int g = socks_parse_greeting(data, size, &no_auth);
        if (g <= 0)
                return;
        FUZZ_ASSERT((size_t)g <= size);
        socks_request req;
        uint8_t rep = 0;
        int r = socks_parse_request(data + g, size - (size_t)g, &req, &rep);
        FUZZ_ASSERT(r <= 0 || (size_t)r <= size - (size_t)g);
        if (r < 0)
                FUZZ_ASSERT(rep != SOCKS_REP_OK);
        if (r > 0) {
                FUZZ_ASSERT(req.port > 0 && strlen(req.host) < sizeof(req.host));
                check_policy(req.host, req.port);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > 0 && data[0] == SOCKS_VERSION)
                fuzz_socks(data, size);
        else
                fuzz_http(data, size);
        return 0;
}
