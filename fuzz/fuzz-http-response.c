/* Feeds arbitrary bytes through the engine's HTTP response parser
 * (engine/http-parser.h), as they would arrive on the engine's socket.
 *
 * Input layout: byte 0 picks the number of cuts (bits 0-1), whether the
 * request was HEAD (bit 2), max_body (bits 3-6: 0 is the default cap, else
 * 1 to 15 times 3 bytes, so that truncation is reached) and whether run
 * expansion is on (bit 7); the next three bytes place the cuts. With
 * expansion, "\xff\xfe" C X in the rest stands for X repeated (C + 1) * 128
 * times, so short inputs reach the line and head limits.
 *
 * Checks: the same bytes fed in one piece, cut in up to four and (for short
 * inputs) a byte at a time give the same outcome, status, body and reason;
 * the outcome is 1 or -EPROTO; a complete reply has a final status and at
 * most max_body bytes of body (exactly max_body when truncated), and a body
 * framed by Content-Length or by the connection is a piece of the input; a
 * failure has a one-line printable reason; a finished parser stays finished. */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/http-client.h"
#include "engine/http-parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER        4
#define EXPAND_UNIT   128u
#define EXPANDED_MAX  (4u * HTTP_HEAD_MAX)
#define BYTEWISE_MAX  4096u
#define MAX_BODY_UNIT 3u

struct outcome {
        int r;
        int status;
        bool truncated;
        enum http_framing framing;
        uint64_t content_length;
        char *body;
        size_t body_len;
        char why[HTTP_WHY_MAX];
};

static uint8_t *expand(const uint8_t *p, size_t n, size_t *ret_len) {
        size_t len = 0, cap = n + 1;
        uint8_t *out = malloc(cap);

        assert(out);
        for (size_t i = 0; i < n;) {
                size_t run = 1;
                uint8_t x = p[i];

                if (i + 3 < n && p[i] == 0xff && p[i + 1] == 0xfe) {
                        run = ((size_t)p[i + 2] + 1) * EXPAND_UNIT;
                        x = p[i + 3];
                        i += 4;
                } else {
                        i++;
                }
                if (len + run > EXPANDED_MAX)
                        break;
                if (len + run > cap) {
                        cap = (len + run) * 2 < EXPANDED_MAX ? (len + run) * 2 : EXPANDED_MAX;
                        out = realloc(out, cap);
                        assert(out);
                }
                memset(out + len, x, run);
                len += run;
        }
        *ret_len = len;
        return out;
}

/* Feeds in[0, len) cut at the sorted offsets cuts[0, n_cuts) (bytewise: one
 * byte at a time), then the end of the connection if it still wants more. */
static struct outcome run(
        const uint8_t *in, size_t len, const size_t *cuts, size_t n_cuts, bool bytewise, size_t max,
        bool head) {
        struct http_parser p;
        struct outcome o = { 0 };
        size_t at = 0;
        int r = 0;

        http_parser_init(&p, max, head);
        if (bytewise)
                for (; r == 0 && at < len; at++)
                        r = http_parser_feed(&p, (const char *)in + at, 1);
        else
                for (size_t i = 0; r == 0 && i <= n_cuts; i++) {
                        size_t to = i < n_cuts ? cuts[i] : len;
                        r = http_parser_feed(&p, (const char *)in + at, to - at);
                        at = to;
                }
        if (r == 0)
                r = http_parser_eof(&p);
        assert(r == 1 || r == -EPROTO);
        /* Finished stays finished, whatever comes. */
        assert(http_parser_feed(&p, "HTTP/1.1 200 OK\r\n", 17) == r);
        assert(http_parser_eof(&p) == r);

        o.r = r;
        o.status = p.status;
        o.truncated = p.truncated;
        o.framing = p.framing;
        o.content_length = p.content_length;
        memcpy(o.why, p.why, sizeof(o.why));
        if (r == 1) {
                o.body = http_parser_steal_body(&p, &o.body_len);
                assert(o.body);
                assert(o.body[o.body_len] == '\0');
        }
        http_parser_done(&p);
        return o;
}

static void check(const struct outcome *o, const uint8_t *in, size_t len, size_t max) {
        size_t cap = max ? max : HTTP_BODY_MAX_DEFAULT;

        if (o->r < 0) {
                size_t n = strnlen(o->why, sizeof(o->why));
                assert(n > 0 && n < sizeof(o->why));
                for (size_t i = 0; i < n; i++)
                        assert((unsigned char)o->why[i] >= 0x20 && o->why[i] != 0x7f);
                return;
        }
        assert(o->status >= 200 && o->status <= 599);
        assert(o->body_len <= cap);
        assert(!o->truncated || o->body_len == cap);
        if (o->framing == HTTP_FRAMING_NONE)
                assert(o->body_len == 0);
        if (o->framing == HTTP_FRAMING_LENGTH)
                assert(o->truncated ? o->content_length > cap : o->body_len == o->content_length);
        if ((o->framing == HTTP_FRAMING_LENGTH || o->framing == HTTP_FRAMING_CLOSE) && o->body_len > 0)
                assert(memmem(in, len, o->body, o->body_len));
}

static void same(const struct outcome *a, const struct outcome *b) {
        assert(a->r == b->r);
        assert(strcmp(a->why, b->why) == 0);
        if (a->r < 0)
                return;
        assert(a->status == b->status && a->truncated == b->truncated && a->framing == b->framing);
        assert(a->body_len == b->body_len && memcmp(a->body, b->body, a->body_len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *buf = NULL;
        const uint8_t *in;
        size_t len, cuts[3], n_cuts;

        if (size < HEADER)
                return 0;
        n_cuts = data[0] & 3;
        bool head = data[0] & 4;
        size_t max = ((data[0] >> 3) & 15) * MAX_BODY_UNIT;
        if (data[0] & 0x80) {
                buf = expand(data + HEADER, size - HEADER, &len);
                in = buf;
        } else {
                in = data + HEADER;
                len = size - HEADER;
        }
        for (size_t i = 0; i < n_cuts; i++)
                cuts[i] = len * data[1 + i] / 255;
        for (size_t i = 1; i < n_cuts; i++) /* sort the few cut points */
                for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                        size_t t = cuts[j];
                        cuts[j] = cuts[j - 1];
                        cuts[j - 1] = t;
                }

        struct outcome whole = run(in, len, NULL, 0, false, max, head);
        check(&whole, in, len, max);
        struct outcome cut = run(in, len, cuts, n_cuts, false, max, head);
        same(&whole, &cut);
        free(cut.body);
        if (len <= BYTEWISE_MAX) {
                struct outcome bytes = run(in, len, NULL, 0, true, max, head);
                same(&whole, &bytes);
                free(bytes.body);
        }
        free(whole.body);
        free(buf);
        return 0;
}
