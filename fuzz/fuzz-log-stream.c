/* Feeds arbitrary bytes through the container-logs parser
 * (engine/log-stream.h), as GET /containers/{id}/logs would send them.
 *
 * Input layout: byte 0 picks multiplexed (bit 0), timestamps (bit 1) and
 * the line cap (bits 2-7: 1 + that many bytes, so cutting is reached); the
 * rest is the body.
 *
 * Checks: every line is at most the cap, NUL-terminated at its length,
 * its stream stdout or stderr (raw text: stdout only), its timestamp
 * shorter than LOG_TS_MAX; the counts add up (cut <= lines, lines no more
 * than the body has bytes plus one); raw text never reports garbage. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engine/log-stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
        size_t max, lines, cut;
        bool mux;
};

static int check_line(const struct log_line *l, void *userdata) {
        struct check *c = userdata;
        assert(l->len <= c->max);
        assert(l->text[l->len] == 0);
        assert(strlen(l->ts) < LOG_TS_MAX);
        assert(l->stream == LOG_STREAM_STDOUT || (c->mux && l->stream == LOG_STREAM_STDERR));
        c->lines++;
        c->cut += l->cut;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        struct check c = { .max = 1 + (data[0] >> 2), .mux = data[0] & 1 };
        struct log_stream_stats st;
        int r = log_stream_parse(
                (const char *)data + 1, size - 1, c.mux, c.max, data[0] & 2, check_line, &c, &st);
        assert(r == 0);
        assert(st.lines == c.lines && st.cut == c.cut && st.cut <= st.lines);
        assert(st.lines <= size);
        assert(c.mux || (!st.garbage && !st.short_frame));
        return 0;
}
