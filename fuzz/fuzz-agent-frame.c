/* Feeds arbitrary bytes through the agent's frame reader and JSON-RPC parser,
 * as they would arrive on the agent's stdin.
 *
 * The reader is built here with 1 KiB frames, not 1 MiB (fuzz/meson.build):
 * the code is the same, and an input reaching every limit is kilobytes, not
 * megabytes, which is most of the speed.
 *
 * Input layout: byte 0 picks the number of cuts (bits 0-1) and whether run
 * expansion is on (bit 7); the next three bytes place the cuts. With
 * expansion, "\xff\xfe" C X in the rest stands for X repeated
 * (C + 1) * RPC_FRAME_MAX / 128 times, so short inputs reach the frame limit.
 *
 * Checks: the same bytes fed in one piece and cut into several give the same
 * frames and errors; every frame is at most RPC_FRAME_MAX bytes of valid
 * UTF-8 without a newline; feeding RPC_FRAME_MAX bytes after a drain never
 * fails; every frame parses or yields an error that serialises to one line
 * and parses back as the same error; a result line round-trips too. */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/rpc-frame.h"
#include "agent/rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EXPAND_UNIT  (RPC_FRAME_MAX / 128u)
#define EXPANDED_MAX (4u * RPC_FRAME_MAX)

struct events {
        uint8_t *data;
        size_t len, cap;
};

static void events_add(struct events *e, int k, const char *line, size_t len) {
        size_t need = sizeof(int) + sizeof(size_t) + (k == 1 ? len : 0);

        if (e->len + need > e->cap) {
                size_t cap = (e->cap ? e->cap * 2 : 4096) + need;
                uint8_t *d = realloc(e->data, cap);
                assert(d);
                e->data = d;
                e->cap = cap;
        }
        memcpy(e->data + e->len, &k, sizeof(int));
        e->len += sizeof(int);
        if (k != 1)
                len = 0;
        memcpy(e->data + e->len, &len, sizeof(size_t));
        e->len += sizeof(size_t);
        if (len > 0) {
                memcpy(e->data + e->len, line, len);
                e->len += len;
        }
}

static void check_error_line(const json_t *eid, int code, const char *msg) {
        char *line = rpc_error_line(eid, code, msg, NULL);
        json_int_t id = 0;
        json_t *result = NULL;
        int got = 0;
        char back[512];
        size_t n;

        assert(line);
        n = strlen(line);
        assert(n > 0 && line[n - 1] == '\n' && memchr(line, '\n', n - 1) == NULL);
        assert(utf8_valid(line, n));
        int r = rpc_response_parse(line, n - 1, &id, &result, &got, back, sizeof(back));
        if (json_is_string(eid)) {
                assert(r == -EBADMSG); /* the client only uses integer ids */
        } else {
                assert(r == 0);
                assert(got == code && !result);
                assert(id == (json_is_integer(eid) ? json_integer_value(eid) : -1));
                n = strlen(msg);
                if (utf8_valid(msg, n) && n < sizeof(back)) {
                        /* Control characters come back as spaces. */
                        for (size_t i = 0; i < n; i++) {
                                unsigned char c = (unsigned char)msg[i];
                                assert(back[i] == (c < 0x20 || c == 0x7f ? ' ' : msg[i]));
                        }
                        assert(back[n] == '\0');
                }
        }
        free(line);
}

static void check_frame(const char *line, size_t len) {
        struct rpc_request req;
        json_t *eid = NULL;
        char msg[256];

        assert(len <= RPC_FRAME_MAX);
        assert(utf8_valid(line, len));
        assert(!memchr(line, '\n', len));

        memset(msg, 'Z', sizeof(msg));
        int code = rpc_request_parse(line, len, &req, &eid, msg, sizeof(msg));
        if (code < 0) {
                assert(code == RPC_PARSE_ERROR || code == RPC_INVALID_REQUEST ||
                       code == RPC_INVALID_PARAMS || code == RPC_INTERNAL_ERROR);
                assert(eid);
                assert(json_is_null(eid) || json_is_string(eid) || json_is_integer(eid));
                assert(memchr(msg, '\0', sizeof(msg)) && msg[0]);
                for (const char *p = msg; *p; p++)
                        assert((unsigned char)*p >= 0x20 && *p != 0x7f);
                check_error_line(eid, code, msg);
                json_decref(eid);
                return;
        }
        assert(!eid);
        assert(req.root && req.method && json_is_object(req.params));
        assert(req.id ? json_is_string(req.id) || json_is_integer(req.id)
                      : rpc_method_is_notification(req.method));
        if (!rpc_method_is_notification(req.method)) {
                assert(json_string_length(json_object_get(req.params, "run_id")) > 0);
                assert(json_string_length(json_object_get(req.params, "agent_id")) > 0);
        }
        if (json_is_integer(req.id)) {
                char *out = rpc_result_line(req.id, json_incref(req.params));
                json_int_t id;
                json_t *result = NULL;
                int got = -1;
                assert(out);
                assert(rpc_response_parse(out, strlen(out), &id, &result, &got, msg, sizeof(msg)) == 0);
                assert(got == 0 && id == json_integer_value(req.id));
                assert(json_equal(result, req.params));
                json_decref(result);
                free(out);
        }
        check_error_line(req.id, RPC_METHOD_NOT_FOUND, req.method);
        rpc_request_done(&req);
}

/* Takes frames until the reader wants more; with check, each frame goes
 * through the RPC parser (done for one of the two readers only). */
static int drain(struct frame_reader *r, struct events *ev, bool check) {
        for (;;) {
                const char *line = NULL;
                size_t len = 0;
                int k = frame_reader_next(r, &line, &len);

                if (k == -EAGAIN)
                        return k;
                assert(k == 1 || k == 0 || k == -EMSGSIZE || k == -EILSEQ);
                events_add(ev, k, line, len);
                if (k == 0)
                        return k;
                if (k == 1 && check)
                        check_frame(line, len);
        }
}

/* Feeds [p, p + n) in pieces of at most RPC_FRAME_MAX bytes, draining after
 * each: the reader promises such a piece always fits. */
static void feed_drained(struct frame_reader *r, const uint8_t *p, size_t n, struct events *ev, bool check) {
        while (n > 0) {
                size_t k = n < RPC_FRAME_MAX ? n : RPC_FRAME_MAX;
                assert(frame_reader_feed(r, p, k) == 0);
                assert(drain(r, ev, check) == -EAGAIN);
                p += k;
                n -= k;
        }
}

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct events one = { 0 }, cut = { 0 };
        struct frame_reader *a, *b;
        uint8_t *buf = NULL;
        const uint8_t *in;
        size_t len, cuts[3], n_cuts;

        if (size < 4)
                return 0;
        n_cuts = data[0] & 3;
        if (data[0] & 0x80) {
                buf = expand(data + 4, size - 4, &len);
                in = buf;
        } else {
                in = data + 4;
                len = size - 4;
        }
        for (size_t i = 0; i < n_cuts; i++)
                cuts[i] = len * data[1 + i] / 255;
        for (size_t i = 1; i < n_cuts; i++) /* sort the few cut points */
                for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
                        size_t t = cuts[j];
                        cuts[j] = cuts[j - 1];
                        cuts[j - 1] = t;
                }

        a = frame_reader_new(-1);
        b = frame_reader_new(-1);
        assert(a && b);

        feed_drained(a, in, len, &one, true);
        frame_reader_feed_eof(a);
        assert(drain(a, &one, true) == 0);
        assert(drain(a, &one, false) == 0); /* stays at the end */
        assert(frame_reader_feed(a, "x", 1) == -EPIPE);

        size_t at = 0;
        for (size_t i = 0; i <= n_cuts; i++) {
                size_t to = i < n_cuts ? cuts[i] : len;
                feed_drained(b, in + at, to - at, &cut, false);
                at = to;
        }
        frame_reader_feed_eof(b);
        assert(drain(b, &cut, false) == 0);
        assert(drain(b, &cut, false) == 0);

        assert(one.len == cut.len && memcmp(one.data, cut.data, one.len) == 0);

        /* The whole input as one frame, and as an error message quoting
         * arbitrary bytes. */
        if (len <= 65536) {
                struct rpc_request req;
                json_t *eid = NULL;
                char msg[128];
                if (rpc_request_parse((const char *)in, len, &req, &eid, msg, sizeof(msg)) == 0)
                        rpc_request_done(&req);
                else
                        json_decref(eid);

                char *s = malloc(len + 1);
                assert(s);
                memcpy(s, in, len);
                s[len] = '\0';
                char *line = rpc_error_line(NULL, RPC_PARSE_ERROR, s, NULL);
                assert(line && utf8_valid(line, strlen(line)));
                free(line);
                free(s);
        }

        frame_reader_free(a);
        frame_reader_free(b);
        free(one.data);
        free(cut.data);
        free(buf);
        return 0;
}
