/* SPDX-License-Identifier: MIT */
/* HTTP on the proxy: the client's head, CONNECT HOST:PORT (then a
 * tunnel) or a plain http:// request forwarded in origin form, whose body
 * alone is sent upstream (http_frame_new: what follows it is dropped);
 * and the HTTP errors the proxy answers. The parsing itself is
 * net/request.c's. Called by the connections (proxy-conn.c) and the
 * tunnel (proxy-tunnel.c). */
#include <stdio.h>
#include <string.h>

#include "net/proxy-internal.h"

static const char *status_text(int status)
{
        switch (status) {
        case 400: return "Bad Request";
        case 403: return "Forbidden";
        case 405: return "Method Not Allowed";
        case 414: return "URI Too Long";
        case 431: return "Request Header Fields Too Large";
        case 501: return "Not Implemented";
        case 502: return "Bad Gateway";
        case 504: return "Gateway Timeout";
        default: return "Error";
        }
}

/* An HTTP error with a one-line body; |denied|: the X-Cordon-Denied header. */
void http_error(conn *c, int status, const char *denied, const char *body)
{
        char msg[1024];
        int n = snprintf(msg, sizeof(msg),
                         "HTTP/1.1 %d %s\r\n%s%s%sContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                         "Connection: close\r\n\r\n%s\n",
                         status, status_text(status), denied ? "X-Cordon-Denied: " : "", denied ? denied : "",
                         denied ? "\r\n" : "", strlen(body) + 1, body);
        conn_finish_with(c, msg, n < 0 ? 0 : (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

void http_head(proxy *p, conn *c)
{
        http_request req;
        char out[HTTP_OUT_MAX];
        size_t out_len = 0;
        int r = http_parse_head((const char *)c->up.b, c->up.len, &req, out, sizeof(out), &out_len);
        if (r == 0)
                return;
        c->proto = r > 0 && req.connect ? P_CONNECT : P_HTTP;
        if (r < 0) {
                const uint8_t *sp = memchr(c->up.b, ' ', c->up.len);
                bool origin_form = sp && (size_t)(sp - c->up.b) + 1 < c->up.len && sp[1] == '/';
                const char *why = -r == 501 ? "cordon: only http:// URIs are forwarded; use CONNECT (HTTPS_PROXY) "
                                              "for https"
                                  : origin_form ? "cordon: a request to the proxy names its target in full (GET "
                                                  "http://HOST/PATH)"
                                                : "cordon: the proxy could not read this request";
                http_error(c, -r, NULL, why);
                return;
        }
        snprintf(c->host, sizeof(c->host), "%s", req.host);
        c->port = req.port;
        size_t rest = c->up.len - req.head_len;
        if (c->proto == P_CONNECT) {
                consume_up(c, req.head_len);
        } else { /* the head in origin form, then what followed it of the body */
                c->body = req.body;
                c->up.frame = &c->body;
                long body = http_body_scan(&c->body, c->up.b + req.head_len, rest);
                if (body < 0) {
                        http_error(c, 400, NULL, "cordon: the proxy could not read this request's chunked body");
                        return;
                }
                c->up.after = (size_t)body < rest;
                memmove(c->up.b + out_len, c->up.b + req.head_len, (size_t)body);
                memcpy(c->up.b, out, out_len);
                c->up.len = out_len + (size_t)body;
        }
        upstream_request(p, c);
}

/* Keep of the bytes flow_fill() just added to |f| (beyond |had| pending ones)
 * only those of the request's body: what the client sends after it (a
 * second request, smuggled or pipelined) is dropped, never forwarded to
 * this upstream; the client asks again on a new connection, checked
 * again. False when the framing is invalid. */
bool http_frame_new(flow *f, size_t had)
{
        size_t got = f->len - f->off - had;
        long body = http_body_scan(f->frame, f->b + f->len - got, got);
        if (body < 0)
                return false;
        f->after |= (size_t)body < got;
        f->len -= got - (size_t)body;
        if (f->off == f->len)
                f->off = f->len = 0;
        return true;
}
