/* SPDX-License-Identifier: MIT */
/* Parsers for what clients send the proxy. Every length is checked against
 * the bytes at hand; nothing is read beyond |len|. */
#include "net/request.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

/* The end of the head (the byte after the blank line), or 0. Accepts bare
 * LF line ends, as RFC 9112 allows recipients to. */
static size_t head_end(const char *b, size_t len)
{
        for (size_t i = 0; i + 1 < len; i++) {
                if (b[i] != '\n')
                        continue;
                if (b[i + 1] == '\n')
                        return i + 2;
                if (b[i + 1] == '\r' && i + 2 < len && b[i + 2] == '\n')
                        return i + 3;
        }
        return 0;
}

/* One line of [p, end): its length without CR LF; *next after it. */
static size_t line_at(const char *p, const char *end, const char **next)
{
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
                nl = end;
        *next = nl < end ? nl + 1 : end;
        size_t n = (size_t)(nl - p);
        return n > 0 && p[n - 1] == '\r' ? n - 1 : n;
}

static bool is_tchar(char c)
{
        return isalnum((unsigned char)c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* "host[:port]" or "[v6][:port]" of |n| bytes; |need_port| for CONNECT. */
static int parse_authority(const char *a, size_t n, bool need_port, http_request *req)
{
        const char *port = NULL;
        size_t host_n = n;
        if (n > 0 && a[0] == '[') {
                const char *close = memchr(a, ']', n);
                if (!close)
                        return -400;
                host_n = (size_t)(close - a) + 1;
                if (host_n < n) {
                        if (a[host_n] != ':')
                                return -400;
                        port = a + host_n + 1;
                }
        } else {
                const char *colon = memchr(a, ':', n);
                if (colon) {
                        host_n = (size_t)(colon - a);
                        port = colon + 1;
                }
        }
        if (host_n == 0 || host_n >= sizeof(req->host) || memchr(a, '@', n) || memchr(a, '\0', host_n))
                return -400;
        memcpy(req->host, a, host_n);
        req->host[host_n] = '\0';
        req->port = need_port ? 0 : 80;
        if (!port)
                return need_port ? -400 : 0;
        size_t pn = (size_t)(a + n - port);
        unsigned long v = 0;
        if (pn == 0 || pn > 5)
                return -400;
        for (size_t i = 0; i < pn; i++) {
                if (!isdigit((unsigned char)port[i]))
                        return -400;
                v = v * 10 + (unsigned long)(port[i] - '0');
        }
        if (v < 1 || v > 65535)
                return -400;
        req->port = (uint16_t)v;
        return 0;
}

static bool put(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
        if (*len + n > cap)
                return false;
        memcpy(out + *len, s, n);
        *len += n;
        return true;
}

/* Headers a proxy consumes or that would keep the upstream connection
 * open (each forwarded request gets its own connection). */
static bool hop_header(const char *line, size_t n)
{
        static const char *const DROP[] = {"connection", "proxy-connection", "keep-alive", "proxy-authorization",
                                           "proxy-authenticate", "upgrade"};
        for (size_t i = 0; i < ARRAY_SIZE(DROP); i++) {
                size_t k = strlen(DROP[i]);
                if (n > k && line[k] == ':' && strncasecmp(line, DROP[i], k) == 0)
                        return true;
        }
        return false;
}

/* The header lines from |p| to |end| (the blank line excluded). */
static int copy_headers(const char *p, const char *end, char *out, size_t cap, size_t *len)
{
        while (p < end) {
                const char *next;
                size_t n = line_at(p, end, &next);
                if (n == 0)
                        break;
                const char *colon = memchr(p, ':', n);
                /* obs-fold and nameless lines are rejected (RFC 9112 5.2) */
                if (!colon || colon == p || !is_tchar(p[0]) || memchr(p, '\0', n))
                        return -400;
                for (const char *c = p; c < colon; c++)
                        if (!is_tchar(*c))
                                return -400;
                if (!hop_header(p, n) && (!put(out, cap, len, p, n) || !put(out, cap, len, "\r\n", 2)))
                        return -431;
                p = next;
        }
        static const char CLOSE[] = "Connection: close\r\n\r\n";
        return put(out, cap, len, CLOSE, sizeof(CLOSE) - 1) ? 0 : -431;
}

/* "http://authority/path" -> host, port, and the origin-form path. */
static int parse_uri(const char *t, size_t n, http_request *req, const char **path, size_t *path_n)
{
        static const char HTTP[] = "http://";
        if (n < sizeof(HTTP) - 1 || strncasecmp(t, HTTP, sizeof(HTTP) - 1) != 0) {
                const char *colon = memchr(t, ':', n);
                return colon && colon > t ? -501 : -400;
        }
        const char *a = t + sizeof(HTTP) - 1, *end = t + n;
        const char *slash = a;
        while (slash < end && *slash != '/' && *slash != '?' && *slash != '#')
                slash++;
        int r = parse_authority(a, (size_t)(slash - a), false, req);
        if (r < 0)
                return r;
        *path = slash;
        *path_n = (size_t)(end - slash);
        return 0;
}

int http_parse_head(const char *head, size_t len, http_request *req, char *out, size_t out_cap, size_t *out_len)
{
        size_t hl = head_end(head, len);
        if (hl == 0)
                return len >= HTTP_HEAD_MAX ? -431 : 0;
        memset(req, 0, sizeof(*req));
        req->head_len = hl;
        const char *end = head + hl, *next;
        size_t n = line_at(head, end, &next);
        const char *sp1 = memchr(head, ' ', n);
        const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(head + n - sp1 - 1)) : NULL;
        if (!sp1 || !sp2 || sp1 == head || sp2 == sp1 + 1)
                return -400;
        const char *version = sp2 + 1;
        size_t vn = (size_t)(head + n - version);
        if (vn != 8 || strncmp(version, "HTTP/1.", 7) != 0 || (version[7] != '0' && version[7] != '1'))
                return -400;
        for (const char *c = head; c < sp1; c++)
                if (!is_tchar(*c))
                        return -400;
        const char *target = sp1 + 1;
        size_t tn = (size_t)(sp2 - target);
        for (size_t i = 0; i < tn; i++)
                if ((unsigned char)target[i] <= ' ' || target[i] == 0x7f)
                        return -400;
        if ((size_t)(sp1 - head) == 7 && strncmp(head, "CONNECT", 7) == 0) {
                req->connect = true;
                return parse_authority(target, tn, true, req) < 0 ? -400 : 1;
        }
        const char *path;
        size_t path_n;
        int r = parse_uri(target, tn, req, &path, &path_n);
        if (r < 0)
                return r;
        *out_len = 0;
        if (!put(out, out_cap, out_len, head, (size_t)(target - head)) ||
            (path_n == 0 || path[0] != '/' ? !put(out, out_cap, out_len, "/", 1) : false) ||
            !put(out, out_cap, out_len, path, path_n) || !put(out, out_cap, out_len, " ", 1) ||
            !put(out, out_cap, out_len, version, vn) || !put(out, out_cap, out_len, "\r\n", 2))
                return -414;
        r = copy_headers(next, end, out, out_cap, out_len);
        return r < 0 ? r : 1;
}

int socks_parse_greeting(const uint8_t *b, size_t n, bool *no_auth)
{
        if (n < 2)
                return n == 1 && b[0] != SOCKS_VERSION ? -1 : 0;
        if (b[0] != SOCKS_VERSION || b[1] == 0)
                return -1;
        size_t len = 2 + (size_t)b[1];
        if (n < len)
                return 0;
        *no_auth = memchr(b + 2, 0x00, b[1]) != NULL;
        return (int)len;
}

int socks_parse_request(const uint8_t *b, size_t n, socks_request *req, uint8_t *ret_rep)
{
        if (n < 5)
                return 0;
        if (b[0] != SOCKS_VERSION || b[2] != 0) {
                *ret_rep = SOCKS_REP_FAILURE;
                return -1;
        }
        size_t addr_n;
        switch (b[3]) {
        case 1: addr_n = 4; break;
        case 4: addr_n = 16; break;
        case 3: addr_n = 1 + (size_t)b[4]; break;
        default: *ret_rep = SOCKS_REP_ADDRESS_TYPE; return -1;
        }
        size_t len = 4 + addr_n + 2;
        if (n < len)
                return 0;
        if (b[1] != 1) { /* only CONNECT: no BIND, no UDP ASSOCIATE */
                *ret_rep = SOCKS_REP_COMMAND;
                return -1;
        }
        const uint8_t *a = b + 4;
        if (b[3] == 3) {
                if (b[4] == 0 || memchr(a + 1, '\0', b[4])) {
                        *ret_rep = SOCKS_REP_HOST_UNREACHABLE;
                        return -1;
                }
                memcpy(req->host, a + 1, b[4]);
                req->host[b[4]] = '\0';
        } else if (!inet_ntop(b[3] == 1 ? AF_INET : AF_INET6, a, req->host, sizeof(req->host))) {
                *ret_rep = SOCKS_REP_FAILURE;
                return -1;
        }
        req->port = (uint16_t)((b[len - 2] << 8) | b[len - 1]);
        if (req->port == 0) {
                *ret_rep = SOCKS_REP_NOT_ALLOWED;
                return -1;
        }
        return (int)len;
}
