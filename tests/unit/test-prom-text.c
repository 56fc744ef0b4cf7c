#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/prom-text.h"

/* The Prometheus text parser (basic/prom-text.h): what a selector sums, and
 * the malformed bodies it refuses with the line that was wrong. */

static const char body[] = "# HELP http_requests_total The total.\n"
                           "# TYPE http_requests_total counter\n"
                           "http_requests_total{code=\"500\",path=\"/a\"} 3\n"
                           "http_requests_total{ code = \"500\" , path=\"/b\", } 4.5e0 1700000000000\n"
                           "http_requests_total{code=\"200\"} 100\n"
                           "# a plain comment\n"
                           "\n"
                           "odd{v=\"a\\\"b\\\\c\\nd\"} +Inf\n"
                           "down -Inf\n"
                           "nan_one NaN -12\n"
                           "up 1";

static struct prom_match match(const char *text, const char *selector) {
        struct prom_selector sel;
        struct prom_match m;
        char why[256] = "";
        assert_int_equal(prom_selector_parse(selector, &sel, why, sizeof(why)), 0);
        int r = prom_text_match(text, strlen(text), &sel, &m, why, sizeof(why));
        if (r < 0)
                fail_msg("%s: %s", selector, why);
        return m;
}

static void test_sums_and_values(void **state) {
        struct prom_match m = match(body, "http_requests_total{code=\"500\"}");
        assert_int_equal(m.series, 2);
        assert_true(m.sum == 7.5);
        assert_int_equal(m.samples, 7);
        m = match(body, "http_requests_total");
        assert_int_equal(m.series, 3);
        assert_true(m.sum == 107.5);
        assert_true(
                isinf(match(body, "odd{v=\"a\\\"b\\\\c\\nd\"}").sum)); /* escapes unescaped on both sides */
        assert_true(match(body, "down").sum == -INFINITY);
        assert_true(isnan(match(body, "nan_one").sum));
        assert_true(match(body, "up").sum == 1); /* no trailing newline */
        assert_int_equal(match(body, "missing").series, 0);
        assert_int_equal(match(body, "http_requests_total{code=\"404\"}").series, 0);
}

static void refused(const char *text, const char *want) {
        struct prom_selector sel;
        struct prom_match m;
        char why[256] = "";
        assert_int_equal(prom_selector_parse("up", &sel, why, sizeof(why)), 0);
        assert_int_equal(prom_text_match(text, strlen(text), &sel, &m, why, sizeof(why)), -EINVAL);
        if (!strstr(why, want))
                fail_msg("'%s' said '%s', not '%s'", text, why, want);
}

static void test_malformed(void **state) {
        refused("up 1\nup{a=\"1\" 2\n", "line 2: expected ',' or '}'");
        refused("up{a=1} 2\n", "line 1: expected '\"'");
        refused("up{a=\"x\\q\"} 2\n", "unknown escape");
        refused("up{a=\"x} 2\n", "unterminated label value");
        refused("up one\n", "'one' is not a value");
        refused("up 1 x12\n", "expected an integer timestamp");
        refused("up 1 12x\n", "unexpected text after the timestamp");
        refused("up 1 12 13\n", "unexpected text after the timestamp");
        refused("# TYPE up countre\n", "'countre' is not a metric type");
        refused("9up 1\n", "expected a metric name");
        refused("up\n", "expected a value");
        char big[2048];
        int n = snprintf(big, sizeof(big), "up{");
        for (int i = 0; i < 20; i++)
                n += snprintf(big + n, sizeof(big) - (size_t)n, "l%d=\"v\",", i);
        snprintf(big + n, sizeof(big) - (size_t)n, "} 1\n");
        refused(big, "more than 16 labels");
}

static void test_selector(void **state) {
        struct prom_selector sel;
        char why[256];
        assert_int_equal(prom_selector_parse("a_b:c{x=\"1\", y=\"2\"}", &sel, why, sizeof(why)), 0);
        assert_string_equal(sel.name, "a_b:c");
        assert_int_equal(sel.n, 2);
        assert_string_equal(sel.m[1].value, "2");
        assert_int_equal(prom_selector_parse("a{x=1}", &sel, why, sizeof(why)), -EINVAL);
        assert_int_equal(prom_selector_parse("a b", &sel, why, sizeof(why)), -EINVAL);
        assert_int_equal(prom_selector_parse("", &sel, why, sizeof(why)), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sums_and_values),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_selector),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
