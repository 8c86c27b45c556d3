/* SPDX-License-Identifier: MIT */
/* Parsers for what clients send the proxy. Every length is checked against
 * the bytes at hand; nothing is read beyond |len|. */
#include "net/request.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
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

/* One header line: its name, and its value without the optional
 * whitespace around it. */
typedef struct field {
        const char *name, *value;
        size_t name_n, value_n;
} field;

static bool field_is(const field *f, const char *name)
{
        return f->name_n == strlen(name) && strncasecmp(f->name, name, f->name_n) == 0;
}

/* A value may hold SP, HTAB, VCHAR and obs-text: no NUL, no CR (a bare CR
 * ends a line for some servers), no other control (RFC 9112 2.2, 5.5). */
static int field_parse(const char *p, size_t n, field *f)
{
        const char *colon = memchr(p, ':', n);
        /* obs-fold and nameless lines are rejected (RFC 9112 5.2), and so is
         * whitespace before the colon (5.1) */
        if (!colon || colon == p)
                return -400;
        for (const char *c = p; c < colon; c++)
                if (!is_tchar(*c))
                        return -400;
        const char *v = colon + 1, *end = p + n;
        for (const char *c = v; c < end; c++)
                if (((unsigned char)*c < ' ' && *c != '\t') || *c == 0x7f)
                        return -400;
        while (v < end && (*v == ' ' || *v == '\t'))
                v++;
        while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        *f = (field){p, v, (size_t)(colon - p), (size_t)(end - v)};
        return 0;
}

/* Headers for this hop only (RFC 9110 7.6.1), or restated by the proxy. */
static bool hop_header(const field *f)
{
        static const char *const DROP[] = {"connection", "proxy-connection", "keep-alive", "proxy-authorization",
                                           "proxy-authenticate", "upgrade", "te", "host", "content-length",
                                           "transfer-encoding"};
        for (size_t i = 0; i < ARRAY_SIZE(DROP); i++)
                if (field_is(f, DROP[i]))
                        return true;
        return false;
}

#define CONNECTION_NAMES_MAX 16

/* What the head says of the connection and the body. */
typedef struct head_info {
        field named[CONNECTION_NAMES_MAX]; /* the names the Connection header lists */
        size_t n_named;
        int n_length, n_coding;
        uint64_t length;
        bool chunked;
} head_info;

/* The comma-separated tokens of a Connection header. */
static int connection_names(const field *f, head_info *h)
{
        const char *p = f->value, *end = f->value + f->value_n;
        while (p < end) {
                const char *comma = memchr(p, ',', (size_t)(end - p));
                const char *e = comma ? comma : end, *s = p;
                while (s < e && (*s == ' ' || *s == '\t'))
                        s++;
                const char *t = e;
                while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
                        t--;
                for (const char *c = s; c < t; c++)
                        if (!is_tchar(*c))
                                return -400;
                if (t > s) {
                        if (h->n_named == CONNECTION_NAMES_MAX)
                                return -431;
                        h->named[h->n_named++] = (field){.name = s, .name_n = (size_t)(t - s)};
                }
                p = comma ? comma + 1 : end;
        }
        return 0;
}

/* Content-Length: 1*DIGIT, at most 18 of them; once. */
static int content_length(const field *f, head_info *h)
{
        if (h->n_length++ || f->value_n == 0 || f->value_n > 18)
                return -400;
        uint64_t v = 0;
        for (size_t i = 0; i < f->value_n; i++) {
                if (!isdigit((unsigned char)f->value[i]))
                        return -400;
                v = v * 10 + (uint64_t)(f->value[i] - '0');
        }
        h->length = v;
        return 0;
}

/* The header lines up to the empty one (or |end|), one at a time: the
 * next in |*f| (its whole line is f->name, |*ret_n| long), |*p| moved past
 * it. 1 for a field, 0 at the end, -400 for an invalid line. */
static int next_field(const char **p, const char *end, field *f, size_t *ret_n)
{
        const char *next;
        size_t n = *p < end ? line_at(*p, end, &next) : 0;
        if (n == 0)
                return 0;
        if (field_parse(*p, n, f) < 0)
                return -400;
        *ret_n = n;
        *p = next;
        return 1;
}

/* The first pass: every line valid; the framing and the Connection names. */
static int scan_headers(const char *p, const char *end, bool http10, head_info *h)
{
        field f;
        size_t n;
        int more;
        while ((more = next_field(&p, end, &f, &n)) > 0) {
                int r = 0;
                if (field_is(&f, "connection"))
                        r = connection_names(&f, h);
                else if (field_is(&f, "content-length"))
                        r = content_length(&f, h);
                else if (field_is(&f, "transfer-encoding")) {
                        /* only "chunked", once; never in HTTP/1.0 (RFC 9112 6.1) */
                        h->chunked = f.value_n == 7 && strncasecmp(f.value, "chunked", 7) == 0;
                        r = h->n_coding++ || !h->chunked || http10 ? -400 : 0;
                }
                if (r < 0)
                        return r;
        }
        if (more < 0)
                return more;
        /* both: a request smuggling attempt (RFC 9112 6.3, 11.2) */
        return h->n_length && h->n_coding ? -400 : 0;
}

static bool named_by_connection(const head_info *h, const field *f)
{
        for (size_t i = 0; i < h->n_named; i++)
                if (f->name_n == h->named[i].name_n && strncasecmp(f->name, h->named[i].name, f->name_n) == 0)
                        return true;
        return false;
}

/* The second pass: the lines to forward, then the framing restated. */
static int copy_headers(const char *p, const char *end, const head_info *h, char *out, size_t cap, size_t *len)
{
        field f;
        size_t n;
        int more;
        while ((more = next_field(&p, end, &f, &n)) > 0)
                if (!hop_header(&f) && !named_by_connection(h, &f) &&
                    (!put(out, cap, len, f.name, n) || !put(out, cap, len, "\r\n", 2)))
                        return -431;
        if (more < 0)
                return more;
        char framing[48] = "";
        if (h->chunked)
                snprintf(framing, sizeof(framing), "Transfer-Encoding: chunked\r\n");
        else if (h->n_length)
                snprintf(framing, sizeof(framing), "Content-Length: %llu\r\n", (unsigned long long)h->length);
        static const char CLOSE[] = "Connection: close\r\n\r\n";
        bool fits = put(out, cap, len, framing, strlen(framing)) && put(out, cap, len, CLOSE, sizeof(CLOSE) - 1);
        return fits ? 0 : -431;
}

/* "Host: " the target's authority: the name normalised as the policy
 * checks it (an invalid one is denied before anything is sent), the port
 * unless it is 80. */
static bool put_host(const http_request *req, char *out, size_t cap, size_t *len)
{
        char name[NET_HOST_MAX + 3], line[NET_HOST_MAX + 32];
        snprintf(name, sizeof(name), "%s", req->host);
        net_addr a;
        if (!net_host_normalize(name))
                snprintf(name, sizeof(name), "%s", req->host);
        else if (net_addr_parse(name, &a))
                net_addr_format(&a, name);
        bool v6 = strchr(name, ':') != NULL;
        int n = snprintf(line, sizeof(line), "Host: %s%s%s", v6 ? "[" : "", name, v6 ? "]" : "");
        if (req->port != 80)
                n += snprintf(line + n, sizeof(line) - (size_t)n, ":%u", req->port);
        return put(out, cap, len, line, (size_t)n) && put(out, cap, len, "\r\n", 2);
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
        head_info h = {0};
        r = scan_headers(next, end, version[7] == '0', &h);
        if (r < 0)
                return r;
        *out_len = 0;
        if (!put(out, out_cap, out_len, head, (size_t)(target - head)) ||
            (path_n == 0 || path[0] != '/' ? !put(out, out_cap, out_len, "/", 1) : false) ||
            !put(out, out_cap, out_len, path, path_n) || !put(out, out_cap, out_len, " ", 1) ||
            !put(out, out_cap, out_len, version, vn) || !put(out, out_cap, out_len, "\r\n", 2))
                return -414;
        if (!put_host(req, out, out_cap, out_len))
                return -431;
        r = copy_headers(next, end, &h, out, out_cap, out_len);
        if (r < 0)
                return r;
        /* no Content-Length nor Transfer-Encoding: no body (RFC 9112 6.3) */
        req->body = (http_body){.state = BODY_DONE};
        if (h.chunked)
                req->body.state = BODY_CHUNK_SIZE;
        else if (h.length)
                req->body = (http_body){.state = BODY_LENGTH, .left = h.length};
        return 1;
}

#define TRAILERS_MAX 16384

static int hex_digit(uint8_t c)
{
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
}

/* One byte of the chunked framing (RFC 9112 7.1): false when invalid. */
static bool chunk_byte(http_body *b, uint8_t c)
{
        bool ctl = (c < ' ' && c != '\t') || c == 0x7f;
        switch (b->state) {
        case BODY_CHUNK_SIZE:
                if (hex_digit(c) >= 0 && b->digits < 15) {
                        b->left = b->left * 16 + (uint64_t)hex_digit(c);
                        b->digits++;
                        return true;
                }
                if (b->digits == 0 || (c != ';' && c != '\r'))
                        return false;
                b->state = c == ';' ? BODY_CHUNK_EXT : BODY_CHUNK_SIZE_LF;
                return true;
        case BODY_CHUNK_EXT:
                if (c == '\r')
                        b->state = BODY_CHUNK_SIZE_LF;
                return c == '\r' || !ctl;
        case BODY_CHUNK_SIZE_LF:
                b->state = b->left ? BODY_CHUNK_DATA : BODY_TRAILER;
                b->line = 0;
                return c == '\n';
        case BODY_CHUNK_DATA_CR:
                b->state = BODY_CHUNK_DATA_LF;
                return c == '\r';
        case BODY_CHUNK_DATA_LF:
                *b = (http_body){.state = BODY_CHUNK_SIZE, .trailers = b->trailers};
                return c == '\n';
        case BODY_TRAILER:
                if (c == '\r') {
                        b->state = b->line ? BODY_TRAILER_LF : BODY_FINAL_LF;
                        return true;
                }
                /* no obs-fold, no control; bounded */
                if (ctl || (b->line == 0 && (c == ' ' || c == '\t')) || ++b->trailers > TRAILERS_MAX)
                        return false;
                b->line++;
                return true;
        case BODY_TRAILER_LF:
                b->state = BODY_TRAILER;
                b->line = 0;
                return c == '\n';
        case BODY_FINAL_LF:
                b->state = BODY_DONE;
                return c == '\n';
        case BODY_DONE:
        case BODY_LENGTH:
        case BODY_CHUNK_DATA:
        default: return false;
        }
}

long http_body_scan(http_body *b, const uint8_t *p, size_t n)
{
        size_t i = 0;
        while (i < n && b->state != BODY_DONE) {
                if (b->state == BODY_LENGTH || b->state == BODY_CHUNK_DATA) {
                        size_t k = b->left < n - i ? (size_t)b->left : n - i;
                        i += k;
                        b->left -= k;
                        if (b->left == 0)
                                b->state = b->state == BODY_LENGTH ? BODY_DONE : BODY_CHUNK_DATA_CR;
                        continue;
                }
                if (!chunk_byte(b, p[i++]))
                        return -1;
        }
        return (long)i;
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
