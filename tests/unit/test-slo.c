#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "plan/plan.h"
#include "run/run-internal.h"

/* The SLO evaluator (slo.c) on recorded series: the run's steps end at
 * t = 100 s; a sample at t_ms counts when it lies in (100 s - window, 100 s]. */

#define END_MS 100000.0

/* 20 latency samples of api-poll.latency_ms, 1 s apart in the last 20 s:
 * 10, 20, ..., 200 ms; p95 (nearest rank) = 190, max 200, mean 105. Two
 * older ones (outside a 20 s window) of 5000 ms, and the probe's boolean. */
static size_t latency_series(struct observation *o) {
        size_t n = 0;
        o[n++] = (struct observation){ "api-poll.latency_ms", OBS_VALUE_LATENCY, 5000, 70000, 70000, false };
        o[n++] = (struct observation){ "api-poll.latency_ms", OBS_VALUE_LATENCY, 5000, 75000, 75000, false };
        for (int i = 1; i <= 20; i++) {
                double t = 80000 + i * 1000.0;
                o[n++] = (struct observation){
                        "api-poll.latency_ms", OBS_VALUE_LATENCY, i * 10.0, t, t, false
                };
                o[n++] = (struct observation){ "api-poll", OBS_VALUE_BOOLEAN, i % 5 != 0, t, t, false };
        }
        return n;
}

static struct slo_result judge(
        const struct drill_slo *s, const struct observation *o, size_t n, double undone) {
        struct slo_result r;
        slo_judge(s, o, n, END_MS, undone, &r);
        return r;
}

static void test_latency_p95_and_operators(void **state) {
        struct observation o[64];
        size_t n = latency_series(o);
        struct drill_slo s = { .name = "latency:api-poll.latency_ms",
                               .metric = "api-poll.latency_ms",
                               .kind = SLO_LATENCY,
                               .op = SLO_OP_LTE,
                               .threshold = 300,
                               .unit = "ms",
                               .window_s = 20 };
        struct slo_result r = judge(&s, o, n, INFINITY);
        assert_true(r.passed);
        assert_true(r.observed == 190);
        assert_int_equal(r.samples, 20);
        assert_string_equal(r.detail, "p95=190ms lte 300ms (20 samples in 20s)");

        static const struct {
                enum slo_operator op;
                double threshold;
                bool passed;
        } ops[] = {
                { SLO_OP_LT, 190, false },   { SLO_OP_LT, 191, true },   { SLO_OP_LTE, 190, true },
                { SLO_OP_LTE, 189, false },  { SLO_OP_GT, 189, true },   { SLO_OP_GT, 190, false },
                { SLO_OP_GTE, 190, true },   { SLO_OP_GTE, 191, false }, { SLO_OP_EQ, 190, true },
                { SLO_OP_EQ, 190.5, false },
        };
        for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
                s.op = ops[i].op;
                s.threshold = ops[i].threshold;
                assert_int_equal(judge(&s, o, n, INFINITY).passed, ops[i].passed);
        }

        /* a 60 s window takes the two 5000 ms samples too: p95 of 22 = 5000 */
        s.op = SLO_OP_LT;
        s.threshold = 300;
        s.window_s = 60;
        r = judge(&s, o, n, INFINITY);
        assert_false(r.passed);
        assert_true(r.observed == 5000);
        assert_int_equal(r.samples, 22);
}

static void test_over_overrides(void **state) {
        struct observation o[64];
        size_t n = latency_series(o);
        struct drill_slo s = { .name = "x",
                               .metric = "api-poll.latency_ms",
                               .kind = SLO_LATENCY,
                               .op = SLO_OP_LTE,
                               .threshold = 300,
                               .unit = "ms",
                               .window_s = 20,
                               .has_over = true,
                               .over = CRITERION_OVER_MEAN };
        assert_true(judge(&s, o, n, INFINITY).observed == 105);
        s.over = CRITERION_OVER_P50;
        assert_true(judge(&s, o, n, INFINITY).observed == 100);
        s.over = CRITERION_OVER_MIN;
        assert_true(judge(&s, o, n, INFINITY).observed == 10);
        s.over = CRITERION_OVER_LAST;
        assert_true(judge(&s, o, n, INFINITY).observed == 200);
        s.kind = SLO_SATURATION;
        s.has_over = false;
        struct slo_result r = judge(&s, o, n, INFINITY);
        assert_true(r.observed == 200);
        assert_string_equal(r.detail, "max=200ms lte 300ms (20 samples in 20s)");
}

static void test_error_budget_absence(void **state) {
        struct observation o[64];
        size_t n = latency_series(o);
        /* the boolean failed on i = 5, 10, 15, 20: 4 of 20 */
        struct drill_slo s = { .name = "budget",
                               .metric = "api-poll",
                               .kind = SLO_ERROR_BUDGET,
                               .op = SLO_OP_LTE,
                               .threshold = 0.25,
                               .unit = "ratio",
                               .window_s = 20 };
        struct slo_result r = judge(&s, o, n, INFINITY);
        assert_true(r.passed);
        assert_true(r.observed == 0.2);
        assert_string_equal(r.detail, "failed_share=0.2 ratio lte 0.25 ratio (20 samples in 20s)");
        s.threshold = 0.1;
        assert_false(judge(&s, o, n, INFINITY).passed);
        /* a numeric source: its mean */
        s.metric = "api-poll.latency_ms";
        s.threshold = 105;
        r = judge(&s, o, n, INFINITY);
        assert_true(r.observed == 105 && r.passed);

        /* absence: the sum; a true boolean counts 1 (16 of 20 were true) */
        s.kind = SLO_ABSENCE;
        s.metric = "api-poll";
        s.op = SLO_OP_EQ;
        s.threshold = 0;
        r = judge(&s, o, n, INFINITY);
        assert_false(r.passed);
        assert_true(r.observed == 16);
        struct observation none[3] = {
                { "errs", OBS_VALUE_COUNT, 0, 95000, 95000, false },
                { "errs", OBS_VALUE_COUNT, 0, 96000, 96000, false },
                { "errs", OBS_VALUE_COUNT, 0, 97000, 97000, false },
        };
        s.metric = "errs";
        r = judge(&s, none, 3, INFINITY);
        assert_true(r.passed && r.observed == 0 && r.samples == 3);
}

static void test_unavailable(void **state) {
        struct observation o[64];
        size_t n = latency_series(o);
        struct drill_slo s = { .name = "x",
                               .metric = "nothing.latency_ms",
                               .kind = SLO_LATENCY,
                               .op = SLO_OP_LT,
                               .threshold = 300,
                               .unit = "ms",
                               .window_s = 20 };
        struct slo_result r = judge(&s, o, n, INFINITY);
        assert_false(r.passed);
        assert_true(isnan(r.observed));
        assert_string_equal(r.detail, "observation unavailable (missing) (0 samples in 20s)");
        /* samples exist, but all before the window */
        s.metric = "api-poll.latency_ms";
        s.window_s = 1;
        o[n++] = (struct observation){ "later", OBS_VALUE_LATENCY, 1, 99500, 100500, false };
        r = judge(&s, o, n - 1, INFINITY);
        assert_true(r.passed); /* t = 100 s is in (99 s, 100 s] */
        o[n - 3].error = true; /* the latency at t = 100 s: the probe could not connect */
        r = judge(&s, o, n, INFINITY);
        assert_false(r.passed);
        assert_string_equal(r.detail, "observation unavailable (error) (1 samples in 1s)");
}

static void test_recovery_time(void **state) {
        struct observation o[] = {
                { "api-poll", OBS_VALUE_BOOLEAN, 0, 40000, 40100, false },
                { "api-poll", OBS_VALUE_BOOLEAN, 0, 49000, 50500, false }, /* began before the undo */
                { "api-poll", OBS_VALUE_BOOLEAN, 0, 51000, 51100, false },
                { "api-poll", OBS_VALUE_BOOLEAN, 1, 52000, 52300, false },
                { "api-poll", OBS_VALUE_BOOLEAN, 1, 53000, 53100, false },
        };
        struct drill_slo s = { .name = "rt",
                               .metric = "api-poll",
                               .kind = SLO_RECOVERY_TIME,
                               .op = SLO_OP_LTE,
                               .threshold = 5000,
                               .unit = "ms",
                               .window_s = 60 };
        struct slo_result r = judge(&s, o, 5, 50000);
        assert_true(r.passed);
        assert_true(r.observed == 2300);
        assert_int_equal(r.samples, 2);
        assert_string_equal(r.detail, "recovery=2300ms lte 5000ms (2 samples after the undo)");
        s.threshold = 2000;
        assert_false(judge(&s, o, 5, 50000).passed);
        r = judge(&s, o, 3, 50000);
        assert_false(r.passed);
        assert_string_equal(r.detail, "not recovered: none of 1 samples after the undo held");
        r = judge(&s, o, 5, INFINITY);
        assert_false(r.passed);
        assert_string_equal(
                r.detail,
                "observation unavailable (missing: no fault of the run was undone) (0 samples in 60s)");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_latency_p95_and_operators),
                cmocka_unit_test(test_over_overrides),
                cmocka_unit_test(test_error_budget_absence),
                cmocka_unit_test(test_unavailable),
                cmocka_unit_test(test_recovery_time),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
