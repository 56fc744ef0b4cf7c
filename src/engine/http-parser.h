#pragma once

/* An incremental parser of one HTTP/1.x response, fed whatever the socket
 * gave (one byte or a whole reply at a time, the result is the same), with
 * no I/O of its own so that fuzz/fuzz-http-response.c can drive it.
 *
 * It speaks the subset of RFC 9112 an Engine API server uses: a status line
 * "HTTP/1.0" or "HTTP/1.1", status 100-599; header lines "name: value" (no
 * folding, no control characters, no blank before the colon); a body framed
 * by Content-Length, by "Transfer-Encoding: chunked" (extensions ignored,
 * trailers read and dropped) or by the end of the connection; no body for a
 * HEAD request or a 1xx, 204 or 304 reply; interim 1xx replies are skipped.
 * Anything else is -EPROTO, with the reason in p->why. Lines end in CRLF or a
 * bare LF (as curl and Go's reader accept); a CR elsewhere is an error. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/strbuf.h"

#define HTTP_LINE_MAX     8192  /* one status, header, chunk-size or trailer line, line end included */
#define HTTP_HEAD_MAX     65536 /* all head lines of the exchange (interim replies and trailers too) */
#define HTTP_HEADERS_MAX  128   /* header and trailer lines of the exchange */
#define HTTP_INTERIM_MAX  8     /* 1xx replies skipped before the real one */
#define HTTP_CHUNK_DIGITS 15    /* hex digits of a chunk size: under 2^60 */
#define HTTP_WHY_MAX      200

enum http_parser_state {
        HTTP_PARSE_STATUS,
        HTTP_PARSE_HEADER,
        HTTP_PARSE_BODY,       /* Content-Length or up to the end of the connection */
        HTTP_PARSE_CHUNK_SIZE, /* "1a2b;ext\r\n" */
        HTTP_PARSE_CHUNK_DATA,
        HTTP_PARSE_CHUNK_END, /* the CRLF after a chunk's data */
        HTTP_PARSE_TRAILER,
        HTTP_PARSE_DONE,
        HTTP_PARSE_FAILED,
        _HTTP_PARSE_STATE_MAX,
};

enum http_framing {
        HTTP_FRAMING_NONE, /* no body */
        HTTP_FRAMING_LENGTH,
        HTTP_FRAMING_CHUNKED,
        HTTP_FRAMING_CLOSE, /* up to the end of the connection */
        _HTTP_FRAMING_MAX,
};

struct http_parser {
        enum http_parser_state state;
        enum http_framing framing;
        bool head_request; /* the request was HEAD: no body whatever the headers say */
        bool truncated;    /* more body than body.max: body holds the first body.max bytes */
        bool seen_length, seen_chunked;
        int status;
        int err; /* what feed and eof return once the state is HTTP_PARSE_FAILED */
        uint64_t content_length;
        uint64_t left;    /* body bytes still due: of Content-Length, or of the current chunk */
        size_t head_len;  /* head bytes so far, against HTTP_HEAD_MAX */
        unsigned headers; /* against HTTP_HEADERS_MAX */
        unsigned interim; /* against HTTP_INTERIM_MAX */
        size_t line_len;
        char *line;         /* HTTP_LINE_MAX bytes, allocated on first use */
        struct strbuf body; /* max: the caller's max_body */
        char why[HTTP_WHY_MAX];
};

/* Prepares p for one response of at most max_body body bytes kept (a larger
 * body is not an error: see http_parser_feed()). Nothing is allocated yet. */
void http_parser_init(struct http_parser *p, size_t max_body, bool head_request);

/* Consumes len bytes. Returns 0 when it wants more; 1 when the response is
 * complete, or when the body went past max_body (p->truncated is set: the
 * caller stops reading and drops the connection), the rest of data is then
 * ignored; -EPROTO when the peer does not speak HTTP (p->why says why, one
 * printable line); -ENOMEM. Once it returned non-zero it returns the same
 * again without looking at data. */
int http_parser_feed(struct http_parser *p, const char *data, size_t len);

/* The peer closed the connection: 1 when that ends the response (a body
 * framed by the connection, or one already complete), -EPROTO when it came
 * too early (an empty reply, in the head, mid-body). */
int http_parser_eof(struct http_parser *p);

/* Hands out the body (NUL-terminated, never NULL; free()) once feed or eof
 * returned 1; NULL when out of memory. */
char *http_parser_steal_body(struct http_parser *p, size_t *ret_len);

/* Frees what p holds; p can be initialised again. */
void http_parser_done(struct http_parser *p);
