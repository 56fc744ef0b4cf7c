#include "http-parser.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "basic/macro.h"
#include "http-client.h"

#define HTTP_SHOWN_MAX     64 /* bytes of a bad line quoted in p->why */
#define HTTP_LENGTH_DIGITS 18 /* decimal digits of a Content-Length: under 10^18 */

static int fail(struct http_parser *p, const char *fmt, ...) _printf_(2, 3);
static int fail(struct http_parser *p, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(p->why, sizeof(p->why), fmt, ap);
        va_end(ap);
        p->state = HTTP_PARSE_FAILED;
        p->err = -EPROTO;
        return -EPROTO;
}

static int oom(struct http_parser *p) {
        snprintf(p->why, sizeof(p->why), "out of memory");
        p->state = HTTP_PARSE_FAILED;
        p->err = -ENOMEM;
        return -ENOMEM;
}

static const char *shown(char *buf, size_t size, const char *s, size_t len) {
        http_one_line(buf, size, s, len);
        return buf;
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static int hex_value(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* RFC 9110 tchar: the characters of a header name. */
static bool is_tchar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
               (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

/* Field values and reason phrases: no control characters but HT. */
static bool has_ctl(const char *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                if ((c < 0x20 && c != '\t') || c == 0x7f)
                        return true;
        }
        return false;
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t';
}

void http_parser_init(struct http_parser *p, size_t max_body, bool head_request) {
        *p = (struct http_parser){
                .head_request = head_request,
                .body = STRBUF_INIT(max_body ? max_body : HTTP_BODY_MAX_DEFAULT),
        };
}

void http_parser_done(struct http_parser *p) {
        free(p->line);
        strbuf_done(&p->body);
        *p = (struct http_parser){ 0 };
}

char *http_parser_steal_body(struct http_parser *p, size_t *ret_len) {
        size_t len = p->body.len;
        char *body = strbuf_steal(&p->body);

        if (body)
                *ret_len = len;
        return body;
}

static int parse_status(struct http_parser *p, const char *s, size_t n) {
        char buf[HTTP_SHOWN_MAX];

        /* "HTTP/1.1 200 OK": the reason phrase may be empty, and so may the blank before it. */
        if (n < 12 || memcmp(s, "HTTP/1.", 7) != 0 || (s[7] != '0' && s[7] != '1') || s[8] != ' ' ||
            !is_digit(s[9]) || !is_digit(s[10]) || !is_digit(s[11]) || (n > 12 && s[12] != ' ') ||
            has_ctl(s, n))
                return fail(p, "not an HTTP/1.x status line: '%s'", shown(buf, sizeof(buf), s, n));
        int status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
        if (status < 100 || status > 599)
                return fail(p, "status %d is not an HTTP status", status);
        p->status = status;
        p->state = HTTP_PARSE_HEADER;
        return 0;
}

static int parse_content_length(struct http_parser *p, const char *v, size_t n) {
        char buf[HTTP_SHOWN_MAX];
        uint64_t x = 0;

        if (n == 0 || n > HTTP_LENGTH_DIGITS)
                return fail(p, "bad Content-Length '%s'", shown(buf, sizeof(buf), v, n));
        for (size_t i = 0; i < n; i++) {
                if (!is_digit(v[i]))
                        return fail(p, "bad Content-Length '%s'", shown(buf, sizeof(buf), v, n));
                x = x * 10 + (uint64_t)(v[i] - '0');
        }
        if (p->seen_length && x != p->content_length)
                return fail(p, "two different Content-Length headers");
        p->seen_length = true;
        p->content_length = x;
        return 0;
}

static int parse_transfer_encoding(struct http_parser *p, const char *v, size_t n) {
        char buf[HTTP_SHOWN_MAX];

        /* We send no TE header, so the only coding a server may use is chunked, once. */
        if (n != 7 || strncasecmp(v, "chunked", 7) != 0 || p->seen_chunked)
                return fail(p, "unsupported Transfer-Encoding '%s'", shown(buf, sizeof(buf), v, n));
        p->seen_chunked = true;
        return 0;
}

/* "Name: value", or a trailer line in the same shape (checked, then dropped). */
static int parse_header(struct http_parser *p, const char *s, size_t n, bool trailer) {
        char buf[HTTP_SHOWN_MAX];
        const char *colon = memchr(s, ':', n);

        if (is_blank(s[0]))
                return fail(p, "folded header line: '%s'", shown(buf, sizeof(buf), s, n));
        if (!colon || colon == s)
                return fail(p, "header line without a name: '%s'", shown(buf, sizeof(buf), s, n));
        for (const char *c = s; c < colon; c++)
                if (!is_tchar(*c))
                        return fail(p, "bad header name: '%s'", shown(buf, sizeof(buf), s, n));
        if (has_ctl(s, n))
                return fail(p, "control character in a header line: '%s'", shown(buf, sizeof(buf), s, n));
        if (++p->headers > HTTP_HEADERS_MAX)
                return fail(p, "more than %d header lines", HTTP_HEADERS_MAX);
        if (trailer)
                return 0;

        size_t name_len = (size_t)(colon - s);
        const char *v = colon + 1, *end = s + n;
        while (v < end && is_blank(*v))
                v++;
        while (end > v && is_blank(end[-1]))
                end--;
        if (name_len == 14 && strncasecmp(s, "Content-Length", 14) == 0)
                return parse_content_length(p, v, (size_t)(end - v));
        if (name_len == 17 && strncasecmp(s, "Transfer-Encoding", 17) == 0)
                return parse_transfer_encoding(p, v, (size_t)(end - v));
        return 0;
}

/* The blank line after the headers: decides how the body is framed. */
static int end_of_head(struct http_parser *p) {
        if (p->status < 200) {
                if (p->status == 101)
                        return fail(p, "the server switched protocols (HTTP 101) unasked");
                if (++p->interim > HTTP_INTERIM_MAX)
                        return fail(p, "more than %d interim (1xx) replies", HTTP_INTERIM_MAX);
                p->seen_length = p->seen_chunked = false;
                p->content_length = 0;
                p->status = 0;
                p->state = HTTP_PARSE_STATUS;
                return 0;
        }
        if (p->seen_length && p->seen_chunked)
                return fail(p, "both Content-Length and Transfer-Encoding");
        if (p->head_request || p->status == 204 || p->status == 304) {
                p->framing = HTTP_FRAMING_NONE;
                p->state = HTTP_PARSE_DONE;
        } else if (p->seen_chunked) {
                p->framing = HTTP_FRAMING_CHUNKED;
                p->state = HTTP_PARSE_CHUNK_SIZE;
        } else if (p->seen_length) {
                p->framing = HTTP_FRAMING_LENGTH;
                p->left = p->content_length;
                p->state = p->left > 0 ? HTTP_PARSE_BODY : HTTP_PARSE_DONE;
        } else {
                p->framing = HTTP_FRAMING_CLOSE;
                p->state = HTTP_PARSE_BODY;
        }
        return 0;
}

static bool body_full(const struct http_parser *p) {
        return p->body.len == p->body.max;
}

/* "1a2b", optionally followed by blanks and ";extension". */
static int parse_chunk_size(struct http_parser *p, const char *s, size_t n) {
        char buf[HTTP_SHOWN_MAX];
        uint64_t size = 0;
        size_t i = 0;

        for (; i < n && hex_value(s[i]) >= 0; i++) {
                if (i == HTTP_CHUNK_DIGITS)
                        return fail(p, "chunk size '%s' is too large", shown(buf, sizeof(buf), s, n));
                size = size * 16 + (uint64_t)hex_value(s[i]);
        }
        size_t digits = i;
        while (i < n && is_blank(s[i]))
                i++;
        if (digits == 0 || (i < n && s[i] != ';') || has_ctl(s, n))
                return fail(p, "bad chunk size line: '%s'", shown(buf, sizeof(buf), s, n));
        if (size == 0) {
                p->state = HTTP_PARSE_TRAILER;
                return 0;
        }
        p->left = size;
        p->state = HTTP_PARSE_CHUNK_DATA;
        if (body_full(p)) {
                /* More is due than fits: stop here rather than read what would be dropped. */
                p->truncated = true;
                p->state = HTTP_PARSE_DONE;
        }
        return 0;
}

/* One complete line, its line end removed. */
static int parse_line(struct http_parser *p, const char *s, size_t n) {
        char buf[HTTP_SHOWN_MAX];

        if (memchr(s, '\r', n) || memchr(s, '\0', n))
                return fail(p, "stray CR or NUL in a line: '%s'", shown(buf, sizeof(buf), s, n));
        switch (p->state) {
        case HTTP_PARSE_STATUS: return parse_status(p, s, n);
        case HTTP_PARSE_HEADER: return n == 0 ? end_of_head(p) : parse_header(p, s, n, false);
        case HTTP_PARSE_CHUNK_SIZE: return parse_chunk_size(p, s, n);
        case HTTP_PARSE_TRAILER:
                if (n > 0)
                        return parse_header(p, s, n, true);
                p->state = HTTP_PARSE_DONE;
                return 0;
        default: return fail(p, "internal error: a line in state %d", (int)p->state);
        }
}

/* Collects up to one line; parses it once its LF came. */
static int feed_line(struct http_parser *p, const char *data, size_t len, size_t *ret_used) {
        size_t room = HTTP_LINE_MAX - p->line_len;
        const char *lf = memchr(data, '\n', MIN(len, room));
        size_t used = lf ? (size_t)(lf - data) + 1 : MIN(len, room);

        if (!p->line) {
                p->line = malloc(HTTP_LINE_MAX);
                if (!p->line)
                        return oom(p);
        }
        if (!lf && used == room)
                return fail(p, "a line longer than %d bytes", HTTP_LINE_MAX);
        if (p->state != HTTP_PARSE_CHUNK_SIZE) {
                p->head_len += used;
                if (p->head_len > HTTP_HEAD_MAX)
                        return fail(p, "the headers exceed %d bytes", HTTP_HEAD_MAX);
        }
        memcpy(p->line + p->line_len, data, used);
        p->line_len += used;
        *ret_used = used;
        if (!lf)
                return 0;

        size_t n = p->line_len - 1;
        if (n > 0 && p->line[n - 1] == '\r')
                n--;
        p->line_len = 0;
        return parse_line(p, p->line, n);
}

/* Keeps what fits under body.max of n body bytes; returns how many it kept. */
static int keep(struct http_parser *p, const char *data, size_t n, size_t *ret_kept) {
        size_t take = MIN(n, p->body.max - p->body.len);

        if (take > 0 && strbuf_append(&p->body, data, take) < 0)
                return oom(p);
        *ret_kept = take;
        return 0;
}

static int feed_body(struct http_parser *p, const char *data, size_t len, size_t *ret_used) {
        size_t n = p->framing == HTTP_FRAMING_CLOSE ? len : (size_t)MIN((uint64_t)len, p->left), kept;

        int r = keep(p, data, n, &kept);
        if (r < 0)
                return r;
        *ret_used = kept;
        if (p->framing == HTTP_FRAMING_CLOSE) {
                if (kept < n) {
                        p->truncated = true;
                        p->state = HTTP_PARSE_DONE;
                }
                return 0;
        }
        p->left -= kept;
        if (p->left == 0)
                p->state = p->framing == HTTP_FRAMING_CHUNKED ? HTTP_PARSE_CHUNK_END : HTTP_PARSE_DONE;
        else if (body_full(p)) {
                /* More is due than fits: stop here rather than read what would be dropped. */
                p->truncated = true;
                p->state = HTTP_PARSE_DONE;
        }
        return 0;
}

/* The CRLF (or LF) after a chunk's data; line_len says whether the CR came. */
static int feed_chunk_end(struct http_parser *p, char c) {
        char buf[8];

        if (c == '\r' && p->line_len == 0) {
                p->line_len = 1;
                return 0;
        }
        if (c != '\n')
                return fail(p, "no CRLF after a chunk's data: '%s'", shown(buf, sizeof(buf), &c, 1));
        p->line_len = 0;
        p->state = HTTP_PARSE_CHUNK_SIZE;
        return 0;
}

int http_parser_feed(struct http_parser *p, const char *data, size_t len) {
        size_t i = 0;

        for (;;) {
                size_t used = 0;
                int r = 0;

                if (p->state == HTTP_PARSE_DONE)
                        return 1;
                if (p->state == HTTP_PARSE_FAILED)
                        return p->err;
                if (i == len)
                        return 0;
                switch (p->state) {
                case HTTP_PARSE_STATUS:
                case HTTP_PARSE_HEADER:
                case HTTP_PARSE_CHUNK_SIZE:
                case HTTP_PARSE_TRAILER: r = feed_line(p, data + i, len - i, &used); break;
                case HTTP_PARSE_BODY:
                case HTTP_PARSE_CHUNK_DATA: r = feed_body(p, data + i, len - i, &used); break;
                case HTTP_PARSE_CHUNK_END:
                        r = feed_chunk_end(p, data[i]);
                        used = 1;
                        break;
                default: return fail(p, "internal error: state %d", (int)p->state);
                }
                if (r < 0)
                        return r;
                i += used;
        }
}

int http_parser_eof(struct http_parser *p) {
        switch (p->state) {
        case HTTP_PARSE_DONE: return 1;
        case HTTP_PARSE_FAILED: return p->err;
        case HTTP_PARSE_STATUS:
                if (p->head_len == 0)
                        return fail(p, "empty reply: the connection closed before a status line");
                if (p->line_len == 0)
                        return fail(p, "the connection closed after an interim (1xx) reply");
                return fail(p, "the connection closed in the status line");
        case HTTP_PARSE_HEADER: return fail(p, "the connection closed in the headers");
        case HTTP_PARSE_BODY:
                if (p->framing == HTTP_FRAMING_CLOSE) {
                        p->state = HTTP_PARSE_DONE;
                        return 1;
                }
                return fail(
                        p, "the connection closed after %llu of %llu body bytes",
                        (unsigned long long)(p->content_length - p->left),
                        (unsigned long long)p->content_length);
        case HTTP_PARSE_TRAILER: return fail(p, "the connection closed in the trailers");
        default: return fail(p, "the connection closed in a chunked body after %zu bytes", p->body.len);
        }
}
