#include "log-stream.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The line being assembled: frames of one stream may split it. */
struct assembler {
        char *buf;
        size_t len, max;
        bool cut, open;
        enum log_stream_kind stream;
        bool timestamps;
        log_line_fn fn;
        void *userdata;
        struct log_stream_stats *st;
};

/* "2026-12-03T17:00:00.123456789Z text": the time is the first word when
 * it looks like one (starts with a digit, no longer than LOG_TS_MAX). */
static size_t split_ts(struct assembler *a, char *ts) {
        ts[0] = 0;
        if (!a->timestamps || a->len == 0 || a->buf[0] < '0' || a->buf[0] > '9')
                return 0;
        const char *sp = memchr(a->buf, ' ', a->len < LOG_TS_MAX ? a->len : LOG_TS_MAX);
        if (!sp)
                return 0;
        size_t n = (size_t)(sp - a->buf);
        memcpy(ts, a->buf, n);
        ts[n] = 0;
        return n + 1;
}

static int flush(struct assembler *a) {
        char ts[LOG_TS_MAX + 1];
        if (!a->open)
                return 0;
        if (a->len > 0 && a->buf[a->len - 1] == '\r' && !a->cut)
                a->len--;
        a->buf[a->len] = 0;
        size_t skip = split_ts(a, ts);
        struct log_line l = {
                .stream = a->stream, .ts = ts, .text = a->buf + skip, .len = a->len - skip, .cut = a->cut
        };
        a->st->lines++;
        a->st->cut += a->cut;
        a->open = a->cut = false;
        a->len = 0;
        return a->fn(&l, a->userdata);
}

static int feed(struct assembler *a, enum log_stream_kind stream, const char *p, size_t n) {
        int r;
        if (a->open && a->stream != stream && (r = flush(a)) < 0)
                return r;
        a->stream = stream;
        while (n > 0) {
                const char *nl = memchr(p, '\n', n);
                size_t take = nl ? (size_t)(nl - p) : n;
                size_t room = a->max - a->len;
                memcpy(a->buf + a->len, p, take < room ? take : room);
                a->len += take < room ? take : room;
                a->cut |= take > room;
                a->open = true;
                if (!nl)
                        return 0;
                if ((r = flush(a)) < 0)
                        return r;
                p = nl + 1;
                n -= take + 1;
        }
        return 0;
}

static int parse_frames(struct assembler *a, const unsigned char *p, size_t len) {
        int r;
        while (len > 0) {
                if (len < 8 || p[0] > 2 || p[1] || p[2] || p[3]) {
                        a->st->garbage = true;
                        return 0;
                }
                size_t size = (size_t)p[4] << 24 | (size_t)p[5] << 16 | (size_t)p[6] << 8 | p[7];
                p += 8;
                len -= 8;
                if (size > len) {
                        a->st->short_frame = true;
                        size = len;
                }
                /* stream 0 is stdin: never sent for logs; counted as stdout */
                r = feed(a, p[-8] == 2 ? LOG_STREAM_STDERR : LOG_STREAM_STDOUT, (const char *)p, size);
                if (r < 0)
                        return r;
                p += size;
                len -= size;
        }
        return 0;
}

int log_stream_parse(
        const char *body, size_t len, bool multiplexed, size_t line_max, bool timestamps, log_line_fn fn,
        void *userdata, struct log_stream_stats *ret_stats) {
        struct log_stream_stats st = { 0 };
        struct assembler a = { .max = line_max ? line_max : 1,
                               .timestamps = timestamps,
                               .fn = fn,
                               .userdata = userdata,
                               .st = &st };
        a.buf = malloc(a.max + 1);
        if (!a.buf)
                return -ENOMEM;
        int r = multiplexed ? parse_frames(&a, (const unsigned char *)body, len)
                            : feed(&a, LOG_STREAM_STDOUT, body, len);
        if (r >= 0)
                r = flush(&a);
        free(a.buf);
        if (ret_stats)
                *ret_stats = st;
        return r < 0 ? r : 0;
}
