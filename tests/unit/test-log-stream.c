#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/log-stream.h"

/* The parser of GET /containers/{id}/logs bodies: every line it hands on,
 * with its stream, timestamp and whether it was cut, as "1|ts|text|cut". */

struct seen {
        char text[16][96];
        size_t n;
};

static int keep(const struct log_line *l, void *userdata) {
        struct seen *s = userdata;
        if (s->n < 16)
                snprintf(
                        s->text[s->n++], sizeof(s->text[0]), "%d|%s|%.*s|%d", (int)l->stream, l->ts,
                        (int)l->len, l->text, (int)l->cut);
        return 0;
}

/* A multiplexed frame: header (stream, 0, 0, 0, size big-endian) and payload. */
static size_t frame(char *out, int stream, const char *payload) {
        size_t n = strlen(payload);
        unsigned char h[8] = { (unsigned char)stream,
                               0,
                               0,
                               0,
                               (unsigned char)(n >> 24),
                               (unsigned char)(n >> 16),
                               (unsigned char)(n >> 8),
                               (unsigned char)n };
        memcpy(out, h, 8);
        memcpy(out + 8, payload, n);
        return 8 + n;
}

static struct log_stream_stats parse(const char *b, size_t len, bool mux, size_t max, struct seen *s) {
        struct log_stream_stats st;
        *s = (struct seen){ 0 };
        assert_int_equal(log_stream_parse(b, len, mux, max, true, keep, s, &st), 0);
        return st;
}

static void test_frames_and_streams(void **state) {
        char b[512];
        struct seen s;
        size_t n = frame(b, 1, "2026-12-03T17:00:00.1Z hello\n");
        n += frame(b + n, 2, "2026-12-03T17:00:01Z ERROR boom\n");
        struct log_stream_stats st = parse(b, n, true, 4096, &s);
        assert_int_equal(st.lines, 2);
        assert_false(st.garbage);
        assert_string_equal(s.text[0], "1|2026-12-03T17:00:00.1Z|hello|0");
        assert_string_equal(s.text[1], "2|2026-12-03T17:00:01Z|ERROR boom|0");
}

/* One line split over two frames of the same stream is one line; a stream
 * change ends the partial line. */
static void test_split_frames(void **state) {
        char b[512];
        struct seen s;
        size_t n = frame(b, 1, "2026-12-03T17:00:00Z par");
        n += frame(b + n, 1, "tial\n");
        n += frame(b + n, 1, "2026-12-03T17:00:00Z open");
        n += frame(b + n, 2, "2026-12-03T17:00:00Z err\n");
        struct log_stream_stats st = parse(b, n, true, 4096, &s);
        assert_int_equal(st.lines, 3);
        assert_string_equal(s.text[0], "1|2026-12-03T17:00:00Z|partial|0");
        assert_string_equal(s.text[1], "1|2026-12-03T17:00:00Z|open|0");
        assert_string_equal(s.text[2], "2|2026-12-03T17:00:00Z|err|0");
}

/* A line over the cap is cut to it and says so; a frame that claims more
 * than the body holds is cut at the body's end. */
static void test_caps(void **state) {
        char b[512];
        struct seen s;
        size_t n = frame(b, 1, "2026-12-03T17:00:00Z 0123456789abcdef\nnext\n");
        struct log_stream_stats st = parse(b, n, true, 25, &s);
        assert_int_equal(st.lines, 2);
        assert_int_equal(st.cut, 1);
        assert_string_equal(s.text[0], "1|2026-12-03T17:00:00Z|0123|1");
        assert_string_equal(s.text[1], "1||next|0");
        st = parse(b, n - 10, true, 4096, &s); /* the header says 10 more bytes */
        assert_true(st.short_frame);
        assert_int_equal(st.lines, 1); /* the last line, without its newline */
        assert_string_equal(s.text[0], "1|2026-12-03T17:00:00Z|0123456789ab|0");
}

static void test_garbage_header(void **state) {
        char b[512];
        struct seen s;
        size_t n = frame(b, 1, "2026-12-03T17:00:00Z good\n");
        memcpy(b + n, "\x07\x01\x00\x00garbage", 11);
        struct log_stream_stats st = parse(b, n + 11, true, 4096, &s);
        assert_true(st.garbage);
        assert_int_equal(st.lines, 1);
        st = parse("abc", 3, true, 4096, &s); /* shorter than a header */
        assert_true(st.garbage);
        assert_int_equal(st.lines, 0);
}

/* A TTY's raw text: one stream, \r\n endings, no trailing newline. */
static void test_raw_tty(void **state) {
        static const char body[] = "2026-12-03T17:00:00Z one\r\n2026-12-03T17:00:01Z two";
        struct seen s;
        struct log_stream_stats st = parse(body, sizeof(body) - 1, false, 4096, &s);
        assert_int_equal(st.lines, 2);
        assert_string_equal(s.text[0], "1|2026-12-03T17:00:00Z|one|0");
        assert_string_equal(s.text[1], "1|2026-12-03T17:00:01Z|two|0");
        st = parse("", 0, false, 4096, &s);
        assert_int_equal(st.lines, 0);
}

static int stop_at_one(const struct log_line *l, void *userdata) {
        return -ECANCELED;
}

static void test_callback_stops(void **state) {
        assert_int_equal(
                log_stream_parse("a\nb\n", 4, false, 16, false, stop_at_one, NULL, NULL), -ECANCELED);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_frames_and_streams),
                cmocka_unit_test(test_split_frames),
                cmocka_unit_test(test_caps),
                cmocka_unit_test(test_garbage_header),
                cmocka_unit_test(test_raw_tty),
                cmocka_unit_test(test_callback_stops),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
