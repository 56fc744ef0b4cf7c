#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "basic/macro.h"
#include "basic/parse-number.h"
#include "basic/units.h"

/* One row per input: the expected return and, on success, the value. */
struct i64_case {
        const char *in;
        int r;
        int64_t v;
};

struct u64_case {
        const char *in;
        int r;
        uint64_t v;
};

struct dbl_case {
        const char *in;
        int r;
        double v;
};

#define SENTINEL_I64 INT64_C(-424242)
#define SENTINEL_U64 UINT64_C(424242)

static void check_i64(const struct i64_case *c, size_t n, int (*parse)(const char *, int64_t *)) {
        for (size_t i = 0; i < n; i++) {
                int64_t v = SENTINEL_I64;
                int r = parse(c[i].in, &v);
                if (r != c[i].r || (r == 0 && v != c[i].v) || (r < 0 && v != SENTINEL_I64))
                        fail_msg(
                                "'%s': got r=%d v=%" PRId64 ", want r=%d v=%" PRId64, c[i].in, r, v, c[i].r,
                                c[i].v);
        }
}

static void check_u64(const struct u64_case *c, size_t n, int (*parse)(const char *, uint64_t *)) {
        for (size_t i = 0; i < n; i++) {
                uint64_t v = SENTINEL_U64;
                int r = parse(c[i].in, &v);
                if (r != c[i].r || (r == 0 && v != c[i].v) || (r < 0 && v != SENTINEL_U64))
                        fail_msg(
                                "'%s': got r=%d v=%" PRIu64 ", want r=%d v=%" PRIu64, c[i].in, r, v, c[i].r,
                                c[i].v);
        }
}

static void check_dbl(const struct dbl_case *c, size_t n, int (*parse)(const char *, double *)) {
        for (size_t i = 0; i < n; i++) {
                double v = -4242.0;
                int r = parse(c[i].in, &v);
                if (r != c[i].r || (r == 0 && v != c[i].v) || (r < 0 && v != -4242.0))
                        fail_msg("'%s': got r=%d v=%g, want r=%d v=%g", c[i].in, r, v, c[i].r, c[i].v);
        }
}

static void test_parse_duration_ms(void **state) {
        static const struct i64_case cases[] = {
                { "500ms", 0, 500 },
                { "10s", 0, 10000 },
                { "5m", 0, 300000 },
                { "1.5h", 0, 5400000 },
                { "2d", 0, 172800000 },
                { "3", 0, 3000 },
                { "1.5", 0, 1500 },
                { "0.25s", 0, 250 },
                { "0", 0, 0 },
                { "0ms", 0, 0 },
                { "10S", 0, 10000 }, /* suffixes are case-insensitive */
                { "1.", 0, 1000 },
                { ".5s", 0, 500 },
                { "9223372036854775807ms", 0, INT64_MAX },
                { "", -EINVAL, 0 },
                { "s", -EINVAL, 0 },
                { ".", -EINVAL, 0 },
                { "-1s", -EINVAL, 0 },
                { "+1s", -EINVAL, 0 },
                { " 1s", -EINVAL, 0 },
                { "1s ", -EINVAL, 0 },
                { "1 s", -EINVAL, 0 },
                { "10x", -EINVAL, 0 },
                { "1.2.3s", -EINVAL, 0 },
                { "1e3ms", -EINVAL, 0 },
                { "0.0005s", -EDOM, 0 },
                { "1.5ms", -EDOM, 0 },
                { "9223372036854775808ms", -ERANGE, 0 },
                { "106751991168d", -ERANGE, 0 },
                { "99999999999999999999999s", -ERANGE, 0 },
        };
        check_i64(cases, ELEMENTSOF(cases), parse_duration_ms);
}

static void test_parse_bytes(void **state) {
        static const struct u64_case cases[] = {
                { "64k", 0, 65536 },         { "256M", 0, 256ull << 20 },
                { "1G", 0, 1ull << 30 },     { "1.5GiB", 0, 3ull << 29 },
                { "512", 0, 512 },           { "1kb", 0, 1024 },
                { "2t", 0, 2ull << 40 },     { "7b", 0, 7 },
                { "0.5k", 0, 512 },          { "18446744073709551615", 0, UINT64_MAX },
                { "1x", -EINVAL, 0 },        { "-1", -EINVAL, 0 },
                { "", -EINVAL, 0 },          { "k", -EINVAL, 0 },
                { "1kk", -EINVAL, 0 },       { "1.5", -EDOM, 0 },
                { "0.1k", -EDOM, 0 },        { "18446744073709551616", -ERANGE, 0 },
                { "16777216t", -ERANGE, 0 },
        };
        check_u64(cases, ELEMENTSOF(cases), parse_bytes);
}

static void test_parse_rate_bps(void **state) {
        static const struct u64_case cases[] = {
                { "10mbit", 0, 10000000 },
                { "2kbps", 0, 16000 },
                { "1gbit", 0, 1000000000 },
                { "100kibit", 0, 102400 },
                { "1bps", 0, 8 },
                { "5bit", 0, 5 },
                { "1.5mbit", 0, 1500000 },
                { "1MibPS", 0, 8ull << 20 },
                { "100", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "mbit", -EINVAL, 0 },
                { "10mb", -EINVAL, 0 },
                { "-1mbit", -EINVAL, 0 },
                { "0.5bit", -EDOM, 0 },
                { "18446744073709551615tbit", -ERANGE, 0 },
        };
        check_u64(cases, ELEMENTSOF(cases), parse_rate_bps);
}

static void test_parse_percent(void **state) {
        static const struct dbl_case cases[] = {
                { "50", 0, 50.0 },     { "12.5", 0, 12.5 },   { "50%", 0, 50.0 },     { "0%", 0, 0.0 },
                { "100", 0, 100.0 },   { "", -EINVAL, 0 },    { "%", -EINVAL, 0 },    { "50%%", -EINVAL, 0 },
                { "abc", -EINVAL, 0 }, { "5 %", -EINVAL, 0 }, { "nan%", -EINVAL, 0 },
        };
        check_dbl(cases, ELEMENTSOF(cases), parse_percent);
}

static void test_parse_go_duration_ms(void **state) {
        static const struct i64_case cases[] = {
                { "1m30s", 0, 90000 },
                { "500ms", 0, 500 },
                { "2h45m", 0, 9900000 },
                { "0", 0, 0 },
                { "1.5s", 0, 1500 },
                { "10s", 0, 10000 },
                { "1500us", 0, 1 }, /* sub-millisecond parts truncate */
                { "999999ns", 0, 0 },
                { "2µs", 0, 0 },
                { "1h1m1s1ms", 0, 3661001 },
                { "10", -EINVAL, 0 },
                { "1x", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "s", -EINVAL, 0 },
                { "-1s", -EINVAL, 0 },
                { "1s5", -EINVAL, 0 },
                { "1d", -EINVAL, 0 },
                { "0.5ns", -EINVAL, 0 },    /* below a nanosecond */
                { "5124096h", -ERANGE, 0 }, /* over 2^64 ns */
                { "99999999999999999999h", -ERANGE, 0 },
        };
        check_i64(cases, ELEMENTSOF(cases), parse_go_duration_ms);
}

static void test_format_duration_round_trip(void **state) {
        static const struct {
                int64_t ms;
                const char *text;
        } cases[] = {
                { 0, "0ms" },        { 1, "1ms" },
                { 1500, "1500ms" },  { 2000, "2s" },
                { 90000, "90s" },    { 300000, "5m" },
                { 5400000, "90m" },  { 3600000, "1h" },
                { 172800000, "2d" }, { INT64_MAX, "9223372036854775807ms" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[64];
                int64_t back;
                format_duration_ms(buf, sizeof(buf), cases[i].ms);
                assert_string_equal(buf, cases[i].text);
                assert_int_equal(parse_duration_ms(buf, &back), 0);
                assert_true(back == cases[i].ms);
        }
}

static void test_format_bytes_round_trip(void **state) {
        static const struct {
                uint64_t v;
                const char *text;
        } cases[] = {
                { 0, "0" },
                { 1, "1" },
                { 1536, "1536" },
                { 65536, "64k" },
                { 256ull << 20, "256M" },
                { 3ull << 29, "1536M" },
                { 1ull << 30, "1G" },
                { 5ull << 40, "5T" },
                { UINT64_MAX, "18446744073709551615" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[64];
                uint64_t back;
                format_bytes(buf, sizeof(buf), cases[i].v);
                assert_string_equal(buf, cases[i].text);
                assert_int_equal(parse_bytes(buf, &back), 0);
                assert_true(back == cases[i].v);
        }
}

static void test_format_rate_round_trip(void **state) {
        static const struct {
                uint64_t v;
                const char *text;
        } cases[] = {
                { 0, "0bit" },           { 999, "999bit" },          { 16000, "16kbit" },
                { 102400, "102400bit" }, { 10000000, "10mbit" },     { 1500000, "1500kbit" },
                { 1000000000, "1gbit" }, { 3000000000000, "3tbit" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[64];
                uint64_t back;
                format_rate_bps(buf, sizeof(buf), cases[i].v);
                assert_string_equal(buf, cases[i].text);
                assert_int_equal(parse_rate_bps(buf, &back), 0);
                assert_true(back == cases[i].v);
        }
}

static void test_format_truncates(void **state) {
        char buf[4];
        format_bytes(buf, sizeof(buf), 123456);
        assert_string_equal(buf, "123");
        format_duration_ms(buf, sizeof(buf), 123456);
        assert_string_equal(buf, "123");
}

static void test_parse_int64(void **state) {
        static const struct i64_case cases[] = {
                { "0", 0, 0 },
                { "42", 0, 42 },
                { "+5", 0, 5 },
                { "-0", 0, 0 },
                { "-17", 0, -17 },
                { "007", 0, 7 },
                { "9223372036854775807", 0, INT64_MAX },
                { "-9223372036854775808", 0, INT64_MIN },
                { "9223372036854775808", -ERANGE, 0 },
                { "-9223372036854775809", -ERANGE, 0 },
                { "18446744073709551616", -ERANGE, 0 },
                { "99999999999999999999999999", -ERANGE, 0 },
                { "", -EINVAL, 0 },
                { "+", -EINVAL, 0 },
                { "-", -EINVAL, 0 },
                { " 5", -EINVAL, 0 },
                { "5 ", -EINVAL, 0 },
                { "0x10", -EINVAL, 0 },
                { "1e3", -EINVAL, 0 },
                { "1.0", -EINVAL, 0 },
                { "--5", -EINVAL, 0 },
                { "+-5", -EINVAL, 0 },
        };
        check_i64(cases, ELEMENTSOF(cases), parse_int64);
}

static void test_parse_int64_null(void **state) {
        int64_t v = SENTINEL_I64;
        assert_int_equal(parse_int64(NULL, &v), -EINVAL);
        assert_true(v == SENTINEL_I64);
}

static void test_parse_double(void **state) {
        static const struct dbl_case cases[] = {
                { "0", 0, 0.0 },          { "1.5", 0, 1.5 },       { "-2.25", 0, -2.25 },
                { "+3", 0, 3.0 },         { ".5", 0, 0.5 },        { "5.", 0, 5.0 },
                { "1e3", 0, 1000.0 },     { "1E-2", 0, 0.01 },     { "2.5e+2", 0, 250.0 },
                { "1e308", 0, 1e308 },    { "", -EINVAL, 0 },      { ".", -EINVAL, 0 },
                { "-", -EINVAL, 0 },      { "e3", -EINVAL, 0 },    { "1e", -EINVAL, 0 },
                { "1e+", -EINVAL, 0 },    { "inf", -EINVAL, 0 },   { "-infinity", -EINVAL, 0 },
                { "nan", -EINVAL, 0 },    { "0x1p3", -EINVAL, 0 }, { " 1", -EINVAL, 0 },
                { "1 ", -EINVAL, 0 },     { "1,5", -EINVAL, 0 },   { "1e999", -ERANGE, 0 },
                { "-1e999", -ERANGE, 0 },
        };
        check_dbl(cases, ELEMENTSOF(cases), parse_double);
}

static void test_parse_decimal_scaled(void **state) {
        static const struct {
                const char *in;
                size_t len;
                uint64_t mult;
                int r;
                uint64_t v;
        } cases[] = {
                { "12", 2, 1, 0, 12 },
                { "1.5", 3, 1000, 0, 1500 },
                { "1.25", 4, 4, 0, 5 },
                { "0.001", 5, 1000, 0, 1 },
                { "1.500", 5, 2, 0, 3 },
                { "12abc", 2, 10, 0, 120 }, /* len bounds what is read */
                { "1.5xyz", 3, 10, 0, 15 },
                { "18446744073709551615", 20, 1, 0, UINT64_MAX },
                { "1.25", 4, 10, -EDOM, 0 },
                { "0.0001", 6, 1000, -EDOM, 0 },
                { "18446744073709551616", 20, 1, -ERANGE, 0 },
                { "9223372036854775808", 19, 2, -ERANGE, 0 },
                { "18446744073709551615.5", 22, 2, -ERANGE, 0 },
                { "", 0, 1, -EINVAL, 0 },
                { ".", 1, 1, -EINVAL, 0 },
                { "1a", 2, 1, -EINVAL, 0 },
                { "-1", 2, 1, -EINVAL, 0 },
                { "1.2.3", 5, 1, -EINVAL, 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = SENTINEL_U64;
                int r = parse_decimal_scaled(cases[i].in, cases[i].len, cases[i].mult, &v);
                if (r != cases[i].r || (r == 0 && v != cases[i].v) || (r < 0 && v != SENTINEL_U64))
                        fail_msg(
                                "'%.*s' * %" PRIu64 ": got r=%d v=%" PRIu64 ", want r=%d v=%" PRIu64,
                                (int)cases[i].len, cases[i].in, cases[i].mult, r, v, cases[i].r, cases[i].v);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_duration_ms),
                cmocka_unit_test(test_parse_bytes),
                cmocka_unit_test(test_parse_rate_bps),
                cmocka_unit_test(test_parse_percent),
                cmocka_unit_test(test_parse_go_duration_ms),
                cmocka_unit_test(test_format_duration_round_trip),
                cmocka_unit_test(test_format_bytes_round_trip),
                cmocka_unit_test(test_format_rate_round_trip),
                cmocka_unit_test(test_format_truncates),
                cmocka_unit_test(test_parse_int64),
                cmocka_unit_test(test_parse_int64_null),
                cmocka_unit_test(test_parse_double),
                cmocka_unit_test(test_parse_decimal_scaled),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
