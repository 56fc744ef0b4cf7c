#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent/capabilities.h"
#include "agent/rpc-frame.h"
#include "agent/rpc.h"
#include "basic/macro.h"
#include "basic/strbuf.h"

/* ---- frames ---- */

/* Takes frames until the reader wants more input, writing one line per
 * event: the frame itself (or its size, when long), <EMSGSIZE>, <EILSEQ>,
 * <EOF>. Returns the last result. */
static int drain(struct frame_reader *r, struct strbuf *out) {
        for (;;) {
                const char *line = NULL;
                size_t len = 0;
                int k = frame_reader_next(r, &line, &len);

                switch (k) {
                case 1:
                        assert_true(len <= RPC_FRAME_MAX);
                        assert_non_null(line);
                        if (len > 64)
                                assert_int_equal(strbuf_printf(out, "<%zu bytes>\n", len), 0);
                        else
                                assert_int_equal(strbuf_printf(out, "%.*s\n", (int)len, line), 0);
                        continue;
                case 0: assert_int_equal(strbuf_puts(out, "<EOF>\n"), 0); return k;
                case -EAGAIN: return k;
                case -EMSGSIZE: assert_int_equal(strbuf_puts(out, "<EMSGSIZE>\n"), 0); continue;
                case -EILSEQ: assert_int_equal(strbuf_puts(out, "<EILSEQ>\n"), 0); continue;
                default: assert_int_equal(strbuf_printf(out, "<error %d>\n", k), 0); return k;
                }
        }
}

static void feed(struct frame_reader *r, const void *data, size_t len) {
        assert_int_equal(frame_reader_feed(r, data, len), 0);
}

/* Feeds the input cut at the given points, draining after each piece. */
static char *feed_split(const char *in, size_t len, const size_t *cuts, size_t n_cuts) {
        _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(-1);
        struct strbuf out = STRBUF_INIT(1u << 20);
        size_t at = 0;

        assert_non_null(r);
        for (size_t i = 0; i <= n_cuts; i++) {
                size_t to = i < n_cuts ? cuts[i] : len;
                feed(r, in + at, to - at);
                assert_int_equal(drain(r, &out), -EAGAIN);
                at = to;
        }
        frame_reader_feed_eof(r);
        assert_int_equal(drain(r, &out), 0);
        assert_int_equal(drain(r, &out), 0); /* stays at EOF */
        return strbuf_steal(&out);
}

static const char split_input[] = "{\"a\":1}\n"
                                  "\n"
                                  "  \t\r\n"
                                  "{\"b\":\"\xe2\x82\xac\"}\r\n"
                                  "bad\xc0\xaf\n"
                                  "x\n"
                                  "last";
static const char split_expect[] = "{\"a\":1}\n"
                                   "{\"b\":\"\xe2\x82\xac\"}\n"
                                   "<EILSEQ>\n"
                                   "x\n"
                                   "last\n"
                                   "<EOF>\n"
                                   "<EOF>\n";

static void test_frame_split_every_boundary(void **state) {
        size_t len = sizeof(split_input) - 1;

        for (size_t i = 0; i <= len; i++) {
                _cleanup_free_ char *t = feed_split(split_input, len, &i, 1);
                assert_string_equal(t, split_expect);
        }
        for (size_t i = 0; i <= len; i++)
                for (size_t j = i; j <= len; j++) {
                        size_t cuts[] = { i, j };
                        _cleanup_free_ char *t = feed_split(split_input, len, cuts, 2);
                        assert_string_equal(t, split_expect);
                }
}

static void test_frame_byte_at_a_time(void **state) {
        size_t len = sizeof(split_input) - 1;
        size_t cuts[sizeof(split_input)];

        for (size_t i = 0; i < len; i++)
                cuts[i] = i;
        _cleanup_free_ char *t = feed_split(split_input, len, cuts, len);
        assert_string_equal(t, split_expect);
}

static int memfd_with(const void *data, size_t len) {
        int fd = memfd_create("frames", MFD_CLOEXEC);
        const char *p = data;

        assert_true(fd >= 0);
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                assert_true(n > 0);
                p += n;
                len -= (size_t)n;
        }
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        return fd;
}

static void test_frame_many_per_read(void **state) {
        struct strbuf in = STRBUF_INIT(1u << 24), expect = STRBUF_INIT(1u << 24),
                      out = STRBUF_INIT(1u << 24);
        _cleanup_close_ int fd = -EBADF;

        for (unsigned i = 0; i < 20000; i++) {
                assert_int_equal(strbuf_printf(&in, "{\"n\":%u}\n", i), 0);
                assert_int_equal(strbuf_printf(&expect, "{\"n\":%u}\n", i), 0);
        }
        assert_int_equal(strbuf_puts(&expect, "<EOF>\n"), 0);

        /* From an fd: 64 KiB reads, thousands of frames each. */
        fd = memfd_with(in.data, in.len);
        _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(fd);
        assert_non_null(r);
        assert_int_equal(drain(r, &out), 0);
        assert_string_equal(out.data, expect.data);

        /* Fed all at once. */
        strbuf_done(&out);
        out = STRBUF_INIT(1u << 24);
        _cleanup_(frame_reader_freep) struct frame_reader *m = frame_reader_new(-1);
        feed(m, in.data, in.len);
        frame_reader_feed_eof(m);
        assert_int_equal(drain(m, &out), 0);
        assert_string_equal(out.data, expect.data);

        strbuf_done(&in);
        strbuf_done(&expect);
        strbuf_done(&out);
}

static void test_frame_pipe_nonblocking(void **state) {
        int p[2];
        const char *line;
        size_t len;
        const char msg[] = "{\"jsonrpc\":\"2.0\"}\n{\"x\":1}";

        assert_int_equal(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(p[0]);
        assert_non_null(r);
        assert_int_equal(frame_reader_next(r, &line, &len), -EAGAIN);

        /* One byte per read: the frame arrives across many reads. */
        for (size_t i = 0; i < sizeof(msg) - 1; i++) {
                assert_int_equal(write(p[1], msg + i, 1), 1);
                int k = frame_reader_next(r, &line, &len);
                if (msg[i] == '\n') {
                        assert_int_equal(k, 1);
                        assert_int_equal(len, 17);
                        assert_memory_equal(line, "{\"jsonrpc\":\"2.0\"}", 17);
                } else {
                        assert_int_equal(k, -EAGAIN);
                }
        }
        close(p[1]);
        assert_int_equal(frame_reader_next(r, &line, &len), 1); /* the unterminated last line */
        assert_int_equal(len, 7);
        assert_memory_equal(line, "{\"x\":1}", 7);
        assert_int_equal(frame_reader_next(r, &line, &len), 0);
        assert_int_equal(frame_reader_next(r, &line, &len), 0);
        close(p[0]);
}

static void test_frame_eof(void **state) {
        static const struct {
                const char *in, *expect;
        } cases[] = {
                { "", "<EOF>\n" },
                { "a\n", "a\n<EOF>\n" },
                { "a\nb", "a\nb\n<EOF>\n" },
                { "a\nb\r", "a\nb\n<EOF>\n" },
                { "a\n  ", "a\n<EOF>\n" },
                { "\n\n\n", "<EOF>\n" },
                { "a\n\xff", "a\n<EILSEQ>\n<EOF>\n" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct strbuf out = STRBUF_INIT(4096);
                char expect[64];
                _cleanup_close_ int fd = memfd_with(cases[i].in, strlen(cases[i].in));
                _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(fd);

                snprintf(expect, sizeof(expect), "%s<EOF>\n", cases[i].expect);
                assert_int_equal(drain(r, &out), 0);
                assert_int_equal(drain(r, &out), 0);
                assert_string_equal(out.data, expect);
                strbuf_done(&out);

                /* The same, fed. */
                _cleanup_free_ char *t = feed_split(cases[i].in, strlen(cases[i].in), NULL, 0);
                assert_string_equal(t, expect);
        }
}

static void test_frame_blank_lines(void **state) {
        static const char in[] = "\n\n   \n\t\r\n{}\n\r\n \t \n[]\n\n";
        _cleanup_free_ char *t = feed_split(in, sizeof(in) - 1, NULL, 0);
        assert_string_equal(t, "{}\n[]\n<EOF>\n<EOF>\n");
}

static void test_frame_crlf(void **state) {
        static const char in[] = "{\"a\":1}\r\n{\"b\":2}\r\r\n";
        _cleanup_free_ char *t = feed_split(in, sizeof(in) - 1, NULL, 0);
        /* Only one '\r' is stripped; the second is the frame's own. */
        assert_string_equal(t, "{\"a\":1}\n{\"b\":2}\r\n<EOF>\n<EOF>\n");
}

/* A line of n bytes of 'a', then what follows. */
static char *long_line(size_t n, const char *after, size_t *ret_len) {
        size_t k = strlen(after);
        char *s = malloc(n + k + 1);

        assert_non_null(s);
        memset(s, 'a', n);
        memcpy(s + n, after, k + 1);
        *ret_len = n + k;
        return s;
}

static void test_frame_max_accepted(void **state) {
        size_t len;
        _cleanup_free_ char *in = long_line(RPC_FRAME_MAX, "\n{}\n", &len);
        char expect[64];

        snprintf(expect, sizeof(expect), "<%u bytes>\n{}\n<EOF>\n<EOF>\n", RPC_FRAME_MAX);
        for (size_t off = 0; off < 3; off++) {
                size_t cuts[] = { 1, RPC_FRAME_MAX - 1 + off };
                _cleanup_free_ char *t = feed_split(in, len, cuts, ELEMENTSOF(cuts));
                assert_string_equal(t, expect);
        }

        /* From an fd, in 64 KiB reads; and unterminated at EOF. */
        struct strbuf out = STRBUF_INIT(4096);
        _cleanup_close_ int fd = memfd_with(in, len);
        _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(fd);
        assert_int_equal(drain(r, &out), 0);
        assert_int_equal(drain(r, &out), 0);
        assert_string_equal(out.data, expect);
        strbuf_done(&out);

        _cleanup_close_ int fd2 = memfd_with(in, RPC_FRAME_MAX);
        _cleanup_(frame_reader_freep) struct frame_reader *r2 = frame_reader_new(fd2);
        out = STRBUF_INIT(4096);
        assert_int_equal(drain(r2, &out), 0);
        snprintf(expect, sizeof(expect), "<%u bytes>\n<EOF>\n", RPC_FRAME_MAX);
        assert_string_equal(out.data, expect);
        strbuf_done(&out);
}

static void test_frame_too_long(void **state) {
        static const size_t sizes[] = { RPC_FRAME_MAX + 1, RPC_FRAME_MAX + 2, 3 * RPC_FRAME_MAX + 17 };

        for (size_t s = 0; s < ELEMENTSOF(sizes); s++) {
                size_t len;
                _cleanup_free_ char *in = long_line(sizes[s], "\r\n{\"next\":1}\n", &len);
                const char *expect = "<EMSGSIZE>\n{\"next\":1}\n<EOF>\n<EOF>\n";

                /* Fed at once, and cut around the limit. */
                _cleanup_free_ char *t0 = feed_split(in, len, NULL, 0);
                assert_string_equal(t0, expect);
                for (size_t c = RPC_FRAME_MAX - 1; c <= RPC_FRAME_MAX + 3; c++) {
                        size_t late = MAX(c + 2, sizes[s]);
                        size_t cuts[] = { c, c + 1, late, late + 1 };
                        _cleanup_free_ char *t = feed_split(in, len, cuts, ELEMENTSOF(cuts));
                        assert_string_equal(t, expect);
                }

                /* From an fd. */
                struct strbuf out = STRBUF_INIT(4096);
                _cleanup_close_ int fd = memfd_with(in, len);
                _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(fd);
                assert_int_equal(drain(r, &out), 0);
                assert_string_equal(out.data, "<EMSGSIZE>\n{\"next\":1}\n<EOF>\n");
                strbuf_done(&out);
        }

        /* Over-long and unterminated at EOF. */
        size_t len;
        _cleanup_free_ char *in = long_line(RPC_FRAME_MAX + 1, "", &len);
        _cleanup_free_ char *t = feed_split(in, len, NULL, 0);
        assert_string_equal(t, "<EMSGSIZE>\n<EOF>\n<EOF>\n");
}

static void test_frame_bounded_feed(void **state) {
        _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(-1);
        _cleanup_free_ char *big = malloc(RPC_FRAME_MAX);
        struct strbuf out = STRBUF_INIT(4096);

        /* 8 MiB of one line, in 1 MiB pieces, never drained in between:
         * only RPC_FRAME_MAX + 1 bytes of it are kept. */
        assert_non_null(big);
        memset(big, 'b', RPC_FRAME_MAX);
        for (int i = 0; i < 8; i++)
                feed(r, big, RPC_FRAME_MAX);
        feed(r, "\n{}\n", 4);
        assert_int_equal(drain(r, &out), -EAGAIN);
        assert_string_equal(out.data, "<EMSGSIZE>\n{}\n");
        strbuf_done(&out);

        /* Complete frames that were not taken are not dropped: past the
         * bound, feed refuses and takes nothing. */
        memset(big, ' ', RPC_FRAME_MAX);
        big[RPC_FRAME_MAX - 2] = '1';
        big[RPC_FRAME_MAX - 1] = '\n';
        feed(r, big, RPC_FRAME_MAX);
        feed(r, big, RPC_FRAME_MAX);
        assert_int_equal(frame_reader_feed(r, "2\n", 2), -ENOBUFS);
        out = STRBUF_INIT(4096);
        assert_int_equal(drain(r, &out), -EAGAIN);
        assert_int_equal(strbuf_printf(&out, "|"), 0);
        feed(r, "2\n", 2);
        assert_int_equal(drain(r, &out), -EAGAIN);
        frame_reader_feed_eof(r);
        assert_int_equal(drain(r, &out), 0);
        assert_int_equal(frame_reader_feed(r, "x", 1), -EPIPE);
        assert_string_equal(out.data, "<1048575 bytes>\n<1048575 bytes>\n|2\n<EOF>\n");
        strbuf_done(&out);
}

static void test_frame_invalid_utf8(void **state) {
        static const char *const bad[] = {
                "\xc0\xaf",         /* overlong '/' */
                "\xc1\xbf",         /* overlong */
                "\xe0\x80\xaf",     /* overlong, 3 bytes */
                "\xe0\x9f\xbf",     /* overlong, highest */
                "\xf0\x80\x80\xaf", /* overlong, 4 bytes */
                "\xf0\x8f\xbf\xbf", /* overlong, highest */
                "\xed\xa0\x80",     /* U+D800, surrogate */
                "\xed\xbf\xbf",     /* U+DFFF, surrogate */
                "\xf4\x90\x80\x80", /* U+110000 */
                "\xf5\x80\x80\x80", /* > U+10FFFF lead byte */
                "\xff",             /* never valid */
                "\xe2\x82",         /* truncated at the end */
                "\xe2\x82x",        /* truncated in the middle */
                "\xf0\x9f\x98",     /* truncated 4-byte */
                "\x80",             /* stray continuation */
                "a\xbf",            /* stray continuation after ASCII */
                "\xe2\x82\xac\x80", /* stray continuation after a sequence */
        };
        static const char *const good[] = {
                "",
                "plain",
                "\xc2\x80",         /* U+0080 */
                "\xdf\xbf",         /* U+07FF */
                "\xe0\xa0\x80",     /* U+0800 */
                "\xe2\x82\xac",     /* U+20AC */
                "\xed\x9f\xbf",     /* U+D7FF */
                "\xee\x80\x80",     /* U+E000 */
                "\xef\xbf\xbf",     /* U+FFFF */
                "\xf0\x90\x80\x80", /* U+10000 */
                "\xf0\x9f\x98\x80", /* U+1F600 */
                "\xf4\x8f\xbf\xbf", /* U+10FFFF */
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char in[64];
                int n = snprintf(in, sizeof(in), "{\"s\":\"%s\"}\n{\"ok\":%zu}\n", bad[i], i);
                char expect[64];
                snprintf(expect, sizeof(expect), "<EILSEQ>\n{\"ok\":%zu}\n<EOF>\n<EOF>\n", i);

                assert_false(utf8_valid(bad[i], strlen(bad[i])));
                _cleanup_free_ char *t = feed_split(in, (size_t)n, NULL, 0);
                assert_string_equal(t, expect);
        }
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                assert_true(utf8_valid(good[i], strlen(good[i])));
        assert_true(utf8_valid("a\0b", 3)); /* NUL is a character */
        assert_true(utf8_valid(NULL, 0));
}

static void test_frame_read_error(void **state) {
        _cleanup_close_ int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *line;
        size_t len;

        assert_true(fd >= 0);
        _cleanup_(frame_reader_freep) struct frame_reader *r = frame_reader_new(fd);
        assert_int_equal(frame_reader_next(r, &line, &len), -EISDIR);
        assert_null(frame_reader_free(NULL));
}

/* ---- requests ---- */

struct parse_case {
        const char *in;
        int code;
        const char *msg;    /* exact, or a prefix when ending in '*' */
        const char *err_id; /* the error id, serialised */
};

static void check_parse_error(const struct parse_case *c, size_t len) {
        struct rpc_request req;
        json_t *eid = (json_t *)0x1;
        char msg[256];

        memset(&req, 0x5a, sizeof(req));
        memset(msg, 'Z', sizeof(msg));
        int k = rpc_request_parse(c->in, len, &req, &eid, msg, sizeof(msg));
        if (k != c->code)
                fail_msg("%s: got %d (%s), expected %d", c->in, k, k < 0 ? msg : "", c->code);
        assert_non_null(memchr(msg, '\0', sizeof(msg)));
        for (const char *p = msg; *p; p++)
                assert_true((unsigned char)*p >= 0x20);
        size_t m = strlen(c->msg);
        if (m > 0 && c->msg[m - 1] == '*')
                assert_true(strncmp(msg, c->msg, m - 1) == 0);
        else
                assert_string_equal(msg, c->msg);
        assert_non_null(eid);
        _cleanup_free_ char *s = json_dumps(eid, JSON_ENCODE_ANY | JSON_COMPACT);
        assert_string_equal(s, c->err_id);
        json_decref(eid);
}

#define CTX "\"run_id\":\"r-1\",\"agent_id\":\"ag-1\""

static void test_request_errors(void **state) {
        static const struct parse_case cases[] = {
                { "not json", RPC_PARSE_ERROR, "bad json: *", "null" },
                { "", RPC_PARSE_ERROR, "bad json: *", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1", RPC_PARSE_ERROR, "bad json: *", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"x\",\"params\":{" CTX "}}",
                  RPC_PARSE_ERROR, "bad json: duplicate object key*", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{" CTX ",\"run_id\":\"r\"}}",
                  RPC_PARSE_ERROR, "bad json: duplicate object key*", "null" },
                { "{\"a\":\"\\u0000\"}", RPC_PARSE_ERROR, "bad json: *", "null" },
                { "{} {}", RPC_PARSE_ERROR, "bad json: *", "null" },
                { "[1]", RPC_INVALID_REQUEST, "request must be a JSON object", "null" },
                { "\"hello\"", RPC_INVALID_REQUEST, "request must be a JSON object", "null" },
                { "42", RPC_INVALID_REQUEST, "request must be a JSON object", "null" },
                { "null", RPC_INVALID_REQUEST, "request must be a JSON object", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\",\"params\":{" CTX "}}",
                  RPC_INVALID_REQUEST, "id must be a string or an integer", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"x\",\"params\":{" CTX "}}",
                  RPC_INVALID_REQUEST, "id must be a string or an integer", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"x\",\"params\":{" CTX "}}",
                  RPC_INVALID_REQUEST, "id must be a string or an integer", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\",\"params\":{" CTX "}}",
                  RPC_INVALID_REQUEST, "id must be a string or an integer", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"x\",\"params\":{" CTX "}}",
                  RPC_INVALID_REQUEST, "id must be a string or an integer", "null" },
                { "{\"id\":7,\"method\":\"x\",\"params\":{" CTX "}}", RPC_INVALID_REQUEST,
                  "jsonrpc must be \"2.0\"", "7" },
                { "{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"x\"}", RPC_INVALID_REQUEST,
                  "jsonrpc must be \"2.0\"", "\"a\"" },
                { "{\"jsonrpc\":2.0,\"id\":7,\"method\":\"x\"}", RPC_INVALID_REQUEST,
                  "jsonrpc must be \"2.0\"", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"params\":{" CTX "}}", RPC_INVALID_REQUEST,
                  "method must be a string", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}", RPC_INVALID_REQUEST,
                  "method must be a string", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":null}", RPC_INVALID_REQUEST,
                  "method must be a string", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":[\"r-1\",\"ag-1\"]}",
                  RPC_INVALID_PARAMS, "params must be an object, not an array", "7" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"event.emit\",\"params\":[]}", RPC_INVALID_PARAMS,
                  "params must be an object, not an array", "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":\"p\"}", RPC_INVALID_REQUEST,
                  "params must be an object", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":null}", RPC_INVALID_REQUEST,
                  "params must be an object", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":3}", RPC_INVALID_REQUEST,
                  "params must be an object", "7" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"health.ping\",\"params\":{" CTX "}}",
                  RPC_INVALID_REQUEST, "missing id", "null" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"events.emit\"}", RPC_INVALID_REQUEST, "missing id",
                  "null" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"health.ping\"}", RPC_INVALID_PARAMS,
                  "params missing correlation context: run_id", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"health.ping\",\"params\":{}}",
                  RPC_INVALID_PARAMS, "params missing correlation context: run_id", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"task.execute\",\"params\":{\"agent_id\":"
                  "\"a\"}}",
                  RPC_INVALID_PARAMS, "params missing correlation context: run_id", "\"q\"" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"health.ping\",\"params\":{\"run_id\":\"r\"}}",
                  RPC_INVALID_PARAMS, "params missing correlation context: agent_id", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":{\"run_id\":1,\"agent_id\":"
                  "\"a\"}}",
                  RPC_INVALID_PARAMS, "params missing correlation context: run_id", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":{\"run_id\":\"\",\"agent_id\":"
                  "\"a\"}}",
                  RPC_INVALID_PARAMS, "params missing correlation context: run_id", "7" },
                { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":{\"run_id\":\"r\",\"agent_id\":"
                  "null}}",
                  RPC_INVALID_PARAMS, "params missing correlation context: agent_id", "7" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                check_parse_error(&cases[i], strlen(cases[i].in));

        /* Raw NUL and control bytes: no crash, and a one-line message. */
        static const char nul[] = "{\"jsonrpc\":\"2.0\",\0\"id\":1}";
        check_parse_error(
                &(struct parse_case){ nul, RPC_PARSE_ERROR, "bad json: *", "null" }, sizeof(nul) - 1);
        static const char ctl[] = "{\"a\":\x01\n\x02}";
        check_parse_error(
                &(struct parse_case){ ctl, RPC_PARSE_ERROR, "bad json: *", "null" }, sizeof(ctl) - 1);
        /* The length is what counts, not a NUL. */
        static const char ok[] = "{\"jsonrpc\":\"2.0\",\"method\":\"log.emit\"}garbage";
        struct rpc_request req;
        char msg[128];
        assert_int_equal(rpc_request_parse(ok, strlen(ok) - 7, &req, NULL, msg, sizeof(msg)), 0);
        rpc_request_done(&req);
        assert_int_equal(rpc_request_parse(ok, strlen(ok), &req, NULL, msg, sizeof(msg)), RPC_PARSE_ERROR);
        /* No message buffer. */
        assert_int_equal(rpc_request_parse("x", 1, &req, NULL, NULL, 0), RPC_PARSE_ERROR);
}

static void test_request_ok(void **state) {
        struct rpc_request req;
        json_t *eid = (json_t *)0x1;
        char msg[128];
        const char *in = "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"task.execute\",\"params\":{" CTX
                         ",\"fault_id\":\"proc.pause\"},\"extra\":1}";

        assert_int_equal(rpc_request_parse(in, strlen(in), &req, &eid, msg, sizeof(msg)), 0);
        assert_null(eid);
        assert_string_equal(json_string_value(req.id), "abc");
        assert_string_equal(req.method, "task.execute");
        assert_true(json_is_object(req.params));
        assert_string_equal(json_string_value(json_object_get(req.params, "fault_id")), "proc.pause");
        rpc_request_done(&req);
        assert_null(req.root);
        rpc_request_done(&req); /* twice is harmless */

        in = "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"health.ping\",\"params\":{" CTX "}}";
        assert_int_equal(rpc_request_parse(in, strlen(in), &req, NULL, msg, sizeof(msg)), 0);
        assert_true(json_integer_value(req.id) == 9007199254740993LL);
        rpc_request_done(&req);

        in = "{\"jsonrpc\":\"2.0\",\"id\":-1,\"method\":\"\",\"params\":{" CTX "}}";
        assert_int_equal(rpc_request_parse(in, strlen(in), &req, NULL, msg, sizeof(msg)), 0);
        assert_string_equal(req.method, "");
        rpc_request_done(&req);

        /* Notifications: no id, no correlation context needed, params default to {}. */
        in = "{\"jsonrpc\":\"2.0\",\"method\":\"event.emit\"}";
        assert_int_equal(rpc_request_parse(in, strlen(in), &req, &eid, msg, sizeof(msg)), 0);
        assert_null(req.id);
        assert_null(eid);
        assert_true(json_is_object(req.params));
        assert_int_equal(json_object_size(req.params), 0);
        rpc_request_done(&req);

        in = "{\"method\":\"log.emit\",\"params\":{\"line\":\"x\"},\"jsonrpc\":\"2.0\"}";
        assert_int_equal(rpc_request_parse(in, strlen(in), &req, NULL, msg, sizeof(msg)), 0);
        assert_null(req.id);
        assert_string_equal(req.method, "log.emit");
        rpc_request_done(&req);

        /* A notification method sent with an id is a request, still exempt. */
        in = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"log.emit\"}";
        assert_int_equal(rpc_request_parse(in, strlen(in), &req, NULL, msg, sizeof(msg)), 0);
        assert_int_equal(json_integer_value(req.id), 3);
        rpc_request_done(&req);

        assert_true(rpc_method_is_notification("event.emit"));
        assert_true(rpc_method_is_notification("log.emit"));
        assert_false(rpc_method_is_notification("event.emitx"));
        assert_false(rpc_method_is_notification(NULL));
}

/* ---- responses ---- */

static void check_line(char *line, const char *expect) {
        assert_non_null(line);
        assert_string_equal(line, expect);
        assert_ptr_equal(strchr(line, '\n'), line + strlen(line) - 1);
        free(line);
}

static void test_response_lines(void **state) {
        json_t *id7 = json_integer(7), *ids = json_string("a\"b");

        check_line(
                rpc_result_line(id7, json_pack("{s:b}", "pong", 1)),
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"pong\":true}}\n");
        check_line(
                rpc_result_line(ids, json_pack("{s:i,s:n}", "n", 1, "z")),
                "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":{\"n\":1,\"z\":null}}\n");
        check_line(rpc_result_line(NULL, NULL), "{\"jsonrpc\":\"2.0\"}\n");
        check_line(rpc_result_line(json_null(), json_null()), "{\"jsonrpc\":\"2.0\"}\n");
        check_line(rpc_result_line(id7, json_array()), "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":[]}\n");

        check_line(
                rpc_error_line(json_null(), RPC_PARSE_ERROR, "bad json: x", NULL),
                "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"bad json: x\"}}\n");
        check_line(
                rpc_error_line(NULL, RPC_INVALID_REQUEST, "missing id", json_null()),
                "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"missing id\"}}\n");
        check_line(
                rpc_error_line(id7, RPC_SAFETY_REFUSED, "no", json_pack("{s:s}", "k", "v")),
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32001,\"message\":\"no\",\"data\":{"
                "\"k\":"
                "\"v\"}}}\n");
        check_line(
                rpc_error_line(ids, RPC_TASK_FAILED, "two\nlines", NULL),
                "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"error\":{\"code\":-32000,\"message\":"
                "\"two\\nlines\"}}\n");
        check_line(
                rpc_error_line(id7, RPC_INTERNAL_ERROR, NULL, NULL),
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"\"}}\n");
        /* Bad UTF-8 in a message (quoting input) still makes a line. */
        check_line(
                rpc_error_line(id7, RPC_PARSE_ERROR, "x\xc0\xafy\xe2\x82\xac\xe2\x82", NULL),
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32700,\"message\":\"x??y\xe2\x82\xac??"
                "\"}}\n");

        check_line(
                rpc_request_line(3, "health.ping", json_pack("{s:s,s:s}", "run_id", "r", "agent_id", "a")),
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"health.ping\",\"params\":{\"run_id\":\"r\","
                "\"agent_id\":"
                "\"a\"}}\n");
        check_line(
                rpc_request_line(4, "handshake", NULL),
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"handshake\"}\n");
        assert_null(rpc_request_line(5, "bad\xff", json_object()));

        json_decref(id7);
        json_decref(ids);
}

static void test_response_parse(void **state) {
        json_int_t id;
        json_t *result;
        int code;
        char msg[128];
        json_t *id7 = json_integer(7);
        _cleanup_free_ char *ok = rpc_result_line(id7, json_pack("{s:b}", "pong", 1));
        _cleanup_free_ char *err = rpc_error_line(id7, RPC_SAFETY_REFUSED, "not authorized", NULL);
        _cleanup_free_ char *noid = rpc_error_line(NULL, RPC_PARSE_ERROR, "bad json: x", NULL);
        _cleanup_free_ char *nores = rpc_result_line(id7, NULL);

        assert_int_equal(rpc_response_parse(ok, strlen(ok), &id, &result, &code, msg, sizeof(msg)), 0);
        assert_int_equal(id, 7);
        assert_int_equal(code, 0);
        assert_true(json_is_true(json_object_get(result, "pong")));
        json_decref(result);

        assert_int_equal(rpc_response_parse(err, strlen(err), &id, &result, &code, msg, sizeof(msg)), 0);
        assert_int_equal(id, 7);
        assert_null(result);
        assert_int_equal(code, RPC_SAFETY_REFUSED);
        assert_string_equal(msg, "not authorized");

        assert_int_equal(rpc_response_parse(noid, strlen(noid), &id, &result, &code, msg, sizeof(msg)), 0);
        assert_int_equal(id, -1);
        assert_int_equal(code, RPC_PARSE_ERROR);

        assert_int_equal(rpc_response_parse(nores, strlen(nores), &id, &result, &code, msg, sizeof(msg)), 0);
        assert_true(json_is_null(result));
        assert_int_equal(code, 0);
        json_decref(id7);

        static const struct {
                const char *in;
                int r;
                const char *msg;
        } bad[] = {
                { "nope", -EBADMSG, "bad json: *" },
                { "[]", -EBADMSG, "response must be a JSON object" },
                { "{\"jsonrpc\":\"2.0\",\"method\":\"event.emit\"}", -ENOMSG,
                  "not a response: the frame has a method" },
                { "{\"id\":1,\"result\":{}}", -EBADMSG, "jsonrpc must be \"2.0\"" },
                { "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}", -EBADMSG,
                  "response id must be an integer" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}",
                  -EBADMSG, "response has both result and error" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":[]}", -EBADMSG,
                  "response error must be an object" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"m\"}}", -EBADMSG,
                  "response error code must be an integer" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":0,\"message\":\"m\"}}", -EBADMSG,
                  "response error code 0 is out of range" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":4294967296,\"message\":\"m\"}}",
                  -EBADMSG, "response error code 4294967296 is out of range" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1}}", -EBADMSG,
                  "response error message must be a string" },
                { "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"result\":{}}", -EBADMSG,
                  "bad json: duplicate*" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                id = 99;
                result = (json_t *)0x1;
                code = 99;
                int r = rpc_response_parse(
                        bad[i].in, strlen(bad[i].in), &id, &result, &code, msg, sizeof(msg));
                if (r != bad[i].r)
                        fail_msg("%s: got %d (%s)", bad[i].in, r, msg);
                size_t m = strlen(bad[i].msg);
                if (bad[i].msg[m - 1] == '*')
                        assert_true(strncmp(msg, bad[i].msg, m - 1) == 0);
                else
                        assert_string_equal(msg, bad[i].msg);
                /* Output parameters untouched on failure. */
                assert_int_equal(id, 99);
                assert_ptr_equal(result, (json_t *)0x1);
                assert_int_equal(code, 99);
        }
}

/* ---- capabilities ---- */

static const struct fault_def *F(const char *id) {
        const struct fault_def *f = catalog_find(id);
        if (!f)
                fail_msg("no fault %s", id);
        return f;
}

static char *caps_text(const struct agent_capabilities *c, const char *key) {
        json_t *j = agent_capabilities_json(c);
        assert_non_null(j);
        char *s = json_dumps(json_object_get(j, key), JSON_COMPACT);
        json_decref(j);
        return s;
}

static void test_caps_default(void **state) {
        struct agent_capabilities c;
        char msg[256];

        assert_int_equal(agent_capabilities_from_roles(NULL, &c, msg, sizeof(msg)), 0);
        assert_int_equal(c.roles, ROLE_BIT(AGENT_ROLE_PROC) | ROLE_BIT(AGENT_ROLE_FS));
        assert_true(agent_capabilities_has(&c, CAP_FAULT_INJECT));
        assert_true(agent_capabilities_has(&c, CAP_FAULT_UNDO));
        assert_true(agent_capabilities_has(&c, CAP_PROBE_RUN));
        assert_true(agent_capabilities_has(&c, CAP_RESOURCE_ACCESS));
        assert_false(agent_capabilities_has(&c, CAP_NETWORK_ACCESS));
        assert_false(agent_capabilities_has(&c, CAP_SHELL_EXEC));
        assert_false(agent_capabilities_has(&c, _AGENT_CAPABILITY_MAX));
        _cleanup_free_ char *roles = caps_text(&c, "roles"), *caps = caps_text(&c, "capabilities"),
                            *res = caps_text(&c, "allowed_resources"),
                            *faults = caps_text(&c, "allowed_faults");
        assert_string_equal(roles, "[\"proc\",\"fs\"]");
        /* The default set reaches containers only: no plain host process. */
        assert_false(agent_can_reach_host(&c));
        assert_false(agent_can_inject_on(&c, F("proc.pause"), true));
        assert_true(agent_can_inject_on(&c, F("proc.pause"), false));
        json_t *j = agent_capabilities_json(&c);
        assert_true(json_is_false(json_object_get(j, "host_targets")));
        json_decref(j);
        assert_string_equal(caps, "[\"fault_inject\",\"fault_undo\",\"probe_run\",\"resource_access\"]");
        /* process.thread_exhaust and child_exhaust are the proc role's: their payload joins the cgroup. */
        assert_string_equal(res, "[\"process\",\"cgroup\",\"mount\"]");
        /* fd.exhaust is the fs role's: its resource (the target's process) comes with it. */
        assert_non_null(strstr(faults, "\"fd.exhaust\""));
        assert_non_null(strstr(faults, "\"proc.pause\""));
        assert_null(strstr(faults, "\"fs.corrupt\"")); /* catalog-only: no mechanism */

        struct agent_capabilities d;
        assert_int_equal(agent_capabilities_from_roles(AGENT_ROLES_DEFAULT, &d, msg, sizeof(msg)), 0);
        assert_memory_equal(&c, &d, sizeof(c));
}

static void test_caps_roles(void **state) {
        struct agent_capabilities c;
        char msg[256];

        assert_int_equal(agent_capabilities_from_roles("proc,container,cpu", &c, msg, sizeof(msg)), 0);
        _cleanup_free_ char *res = caps_text(&c, "allowed_resources");
        assert_string_equal(res, "[\"process\",\"container\",\"cgroup\"]");
        assert_true(agent_can_inject(&c, F("process.crash_loop")));
        assert_true(agent_can_inject(&c, F("cpu.throttle")));
        assert_false(agent_can_inject(&c, F("net.latency")));

        assert_int_equal(agent_capabilities_from_roles(" net ,\tload, ,", &c, msg, sizeof(msg)), 0);
        assert_int_equal(c.roles, ROLE_BIT(AGENT_ROLE_NETWORK) | ROLE_BIT(AGENT_ROLE_LOAD));
        assert_true(agent_capabilities_has(&c, CAP_NETWORK_ACCESS));
        assert_true(agent_can_inject(&c, F("net.load")));
        assert_true(agent_can_inject(&c, F("dns.nxdomain")));
        assert_false(agent_can_inject(&c, F("proc.pause")));

        assert_int_equal(
                agent_capabilities_from_roles(
                        "memory,mem,storage,node,process,proc,proc", &c, msg, sizeof(msg)),
                0);
        assert_int_equal(
                c.roles, ROLE_BIT(AGENT_ROLE_MEMORY) | ROLE_BIT(AGENT_ROLE_FS) |
                                 ROLE_BIT(AGENT_ROLE_CONTAINER) | ROLE_BIT(AGENT_ROLE_PROC));

        /* host: plain host processes, together with a fault's own role; alone it grants no fault. */
        assert_int_equal(agent_capabilities_from_roles("proc,host", &c, msg, sizeof(msg)), 0);
        assert_true(agent_can_reach_host(&c));
        assert_true(agent_can_inject_on(&c, F("proc.pause"), true));
        assert_true(agent_can_undo_on(&c, F("process.kill"), true));
        assert_false(agent_can_inject_on(&c, F("cpu.throttle"), true));
        json_t *j = agent_capabilities_json(&c);
        assert_true(json_is_true(json_object_get(j, "host_targets")));
        json_decref(j);
        assert_int_equal(agent_capabilities_from_roles("host", &c, msg, sizeof(msg)), 0);
        assert_true(agent_can_reach_host(&c));
        assert_false(agent_can_inject_on(&c, F("proc.pause"), true));
        _cleanup_free_ char *none = caps_text(&c, "allowed_faults");
        assert_string_equal(none, "[]");

        /* fuzz touches nothing of the target: no resource access at all. */
        assert_int_equal(agent_capabilities_from_roles("fuzz", &c, msg, sizeof(msg)), 0);
        assert_false(agent_capabilities_has(&c, CAP_RESOURCE_ACCESS));
        assert_false(agent_can_access(&c, RESOURCE_CONTAINER));
        assert_true(agent_can_inject(&c, F("fuzz.protocol_abuse")));
        assert_false(agent_can_inject(&c, F("load.spike")));
}

/* The agent's role checks are the catalog's, by construction: for every
 * set of roles, a fault may be injected and undone exactly when its
 * catalog entry names one of them. */
static void test_caps_equal_the_catalog(void **state) {
        const char *names[_AGENT_ROLE_MAX];
        for (unsigned set = 1; set < (1u << _AGENT_ROLE_MAX); set++) {
                char csv[256] = "", msg[256];
                size_t n = 0, len = 0;
                struct agent_capabilities c;
                for (int r = 0; r < _AGENT_ROLE_MAX; r++)
                        if (set & ROLE_BIT(r))
                                names[n++] = agent_role_to_string(r);
                for (size_t i = 0; i < n; i++)
                        len += (size_t)snprintf(
                                csv + len, sizeof(csv) - len, "%s%s", i ? "," : "", names[i]);
                assert_int_equal(agent_capabilities_from_roles(csv, &c, msg, sizeof(msg)), 0);
                for (size_t i = 0; i < catalog_size(); i++) {
                        const struct fault_def *f = catalog_at(i);
                        bool want = set & ROLE_BIT(f->role);
                        if (agent_can_inject(&c, f) != want || agent_can_undo(&c, f) != want)
                                fail_msg(
                                        "--roles %s and %s (role %s): agent says %d", csv, f->id,
                                        agent_role_to_string(f->role), !want);
                        /* On a plain host process: the fault's role and the host role, both. */
                        unsigned need = fault_roles_on(f, true);
                        bool host = (set & need) == need;
                        if (agent_can_inject_on(&c, f, true) != host ||
                            agent_can_undo_on(&c, f, true) != host ||
                            agent_can_inject_on(&c, f, false) != want)
                                fail_msg(
                                        "--roles %s and %s on a host process: agent says %d", csv, f->id,
                                        !host);
                }
                if (agent_can_reach_host(&c) != !!(set & ROLE_BIT(AGENT_ROLE_HOST)))
                        fail_msg("--roles %s: host targets %d", csv, agent_can_reach_host(&c));
        }
        struct agent_capabilities net;
        char msg[256];
        assert_int_equal(agent_capabilities_from_roles("network", &net, msg, sizeof(msg)), 0);
        for (size_t i = 0; i < catalog_size(); i++)
                if (catalog_at(i)->net.action != NET_ACTION_NONE && !agent_can_inject(&net, catalog_at(i)))
                        fail_msg("--roles network cannot inject %s", catalog_at(i)->id);
}

static void test_caps_shell_never(void **state) {
        struct agent_capabilities c;
        char msg[256];

        assert_int_equal(
                agent_capabilities_from_roles(
                        "proc,process,container,node,cpu,memory,mem,fs,storage,network,net,load,fuzz,host",
                        &c, msg, sizeof(msg)),
                0);
        assert_false(agent_capabilities_has(&c, CAP_SHELL_EXEC));
        assert_int_equal(c.roles, (1u << _AGENT_ROLE_MAX) - 1);
        _cleanup_free_ char *s = caps_text(&c, "capabilities"), *res = caps_text(&c, "allowed_resources");
        assert_string_equal(
                s, "[\"fault_inject\",\"fault_undo\",\"probe_run\",\"resource_access\",\"network_access\"]");
        assert_string_equal(res, "[\"process\",\"container\",\"cgroup\",\"mount\",\"netns\"]");
}

static void test_caps_unknown_role(void **state) {
        struct agent_capabilities c, sentinel;
        char msg[512];

        memset(&c, 0x5a, sizeof(c));
        sentinel = c;
        assert_int_equal(agent_capabilities_from_roles("proc,prc", &c, msg, sizeof(msg)), -EINVAL);
        assert_string_equal(
                msg, "unknown role 'prc', did you mean 'proc'? (known roles: proc, process, container, "
                     "node, cpu, "
                     "memory, mem, fs, storage, network, net, load, fuzz, host)");
        assert_memory_equal(&c, &sentinel, sizeof(c));

        assert_int_equal(agent_capabilities_from_roles("Proc", &c, msg, sizeof(msg)), -EINVAL);
        assert_true(strncmp(msg, "unknown role 'Proc'", 19) == 0);
        assert_int_equal(agent_capabilities_from_roles("kubernetes", &c, msg, sizeof(msg)), -EINVAL);
        assert_true(strncmp(msg, "unknown role 'kubernetes' (known roles: proc, ", 46) == 0);
        assert_int_equal(agent_capabilities_from_roles("shell", &c, msg, sizeof(msg)), -EINVAL);

        /* A long or odd name is shown bounded and on one line. */
        char longname[300];
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        longname[3] = '\n';
        assert_int_equal(agent_capabilities_from_roles(longname, &c, msg, sizeof(msg)), -EINVAL);
        assert_true(strncmp(msg, "unknown role 'xxx...' (known roles:", 35) == 0);
        assert_null(strchr(msg, '\n'));

        assert_int_equal(agent_capabilities_from_roles("", &c, msg, sizeof(msg)), -EINVAL);
        assert_true(strncmp(msg, "no role given (known roles: proc, ", 34) == 0);
        assert_int_equal(agent_capabilities_from_roles(" , ,", &c, msg, sizeof(msg)), -EINVAL);
        assert_int_equal(agent_capabilities_from_roles("nope", &c, NULL, 0), -EINVAL);
        assert_memory_equal(&c, &sentinel, sizeof(c));
}

static void test_caps_matching(void **state) {
        struct agent_capabilities c;
        char msg[256];

        assert_int_equal(agent_capabilities_from_roles("proc", &c, msg, sizeof(msg)), 0);
        assert_true(agent_can_inject(&c, F("proc.pause")));
        assert_true(agent_can_undo(&c, F("process.stop")));
        assert_false(agent_can_inject(&c, F("process.crash_loop"))); /* the container role's */
        assert_false(agent_can_inject(&c, NULL));
        assert_true(agent_can_access(&c, RESOURCE_PROCESS));
        assert_false(agent_can_access(&c, RESOURCE_NETNS));
        assert_false(agent_can_access(&c, _RESOURCE_KIND_MAX));
        assert_false(agent_can_access(NULL, RESOURCE_NONE));

        /* The capability bits hold too: a role without fault_undo undoes nothing. */
        struct agent_capabilities h = c;
        h.caps &= ~(1u << CAP_FAULT_UNDO);
        assert_true(agent_can_inject(&h, F("proc.pause")));
        assert_false(agent_can_undo(&h, F("proc.pause")));
        h.caps &= ~(1u << CAP_RESOURCE_ACCESS);
        assert_false(agent_can_inject(&h, F("proc.pause")));
        struct agent_capabilities none = { 0 };
        assert_false(agent_can_inject(&none, F("proc.pause")));
        assert_false(agent_can_access(&none, RESOURCE_PROCESS));
}

static void test_caps_strings(void **state) {
        static const char *const names[] = { "fault_inject",    "fault_undo",     "probe_run",
                                             "resource_access", "network_access", "shell_exec" };

        for (int i = 0; i < _AGENT_CAPABILITY_MAX; i++) {
                assert_string_equal(agent_capability_to_string(i), names[i]);
                assert_int_equal(agent_capability_from_string(names[i]), i);
        }
        assert_null(agent_capability_to_string(_AGENT_CAPABILITY_MAX));
        assert_int_equal(agent_capability_from_string("root"), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_frame_split_every_boundary),
                cmocka_unit_test(test_frame_byte_at_a_time),
                cmocka_unit_test(test_frame_many_per_read),
                cmocka_unit_test(test_frame_pipe_nonblocking),
                cmocka_unit_test(test_frame_eof),
                cmocka_unit_test(test_frame_blank_lines),
                cmocka_unit_test(test_frame_crlf),
                cmocka_unit_test(test_frame_max_accepted),
                cmocka_unit_test(test_frame_too_long),
                cmocka_unit_test(test_frame_bounded_feed),
                cmocka_unit_test(test_frame_invalid_utf8),
                cmocka_unit_test(test_frame_read_error),
                cmocka_unit_test(test_request_errors),
                cmocka_unit_test(test_request_ok),
                cmocka_unit_test(test_response_lines),
                cmocka_unit_test(test_response_parse),
                cmocka_unit_test(test_caps_default),
                cmocka_unit_test(test_caps_roles),
                cmocka_unit_test(test_caps_equal_the_catalog),
                cmocka_unit_test(test_caps_shell_never),
                cmocka_unit_test(test_caps_unknown_role),
                cmocka_unit_test(test_caps_matching),
                cmocka_unit_test(test_caps_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
