#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "evidence/evidence.h"
#include "run/steady-state.h"

/* The steady-state evaluator (steady-state.c) on recorded series: every
 * §4.4 verdict, insufficient, within, tolerance both ways. */

static const struct drill_ss_signal expect_lte = {
        .name = "p99", .source_id = "api-poll.latency_ms", .has_expect = true, .has_lte = true, .lte = 250
};
static const struct drill_ss_signal tol_abs = { .name = "lat",
                                                .source_id = "api-poll.latency_ms",
                                                .has_tolerance = true,
                                                .has_at_most = true,
                                                .at_most = 20 };
static const struct drill_ss_signal tol_rel = { .name = "lat",
                                                .source_id = "api-poll.latency_ms",
                                                .has_tolerance = true,
                                                .has_at_most_relative = true,
                                                .at_most_relative = 1.5 };

static struct ss_evaluation eval(
        const struct drill_ss_signal *s, enum ss_assertion a, double b, double d, bool has_within,
        double within) {
        struct ss_input in = { .signal = s,
                               .phase = a == SS_ASSERT_UNCHANGED  ? SS_PHASE_PRE
                                        : a == SS_ASSERT_DEGRADED ? SS_PHASE_DURING
                                                                  : SS_PHASE_POST,
                               .assertion = a,
                               .has_within = has_within,
                               .within = within,
                               .b = b,
                               .d = d,
                               .b_finite = 5,
                               .d_finite = 5,
                               .needed = 5 };
        struct ss_evaluation e;
        ss_evaluate(&in, &e);
        return e;
}

static void test_statistic(void **state) {
        /* a recorded capture: 12, 9, NaN (a probe that measured nothing), 15, 11 */
        double v[] = { 12, 9, NAN, 15, 11, INFINITY };
        size_t finite;
        assert_true(ss_statistic(v, 6, &finite) == 15);
        assert_int_equal(finite, 4);
        assert_true(isnan(ss_statistic(v + 2, 1, &finite)));
        assert_int_equal(finite, 0);
        assert_true(ss_delta_pct(30, 15) == 100);
        assert_true(ss_delta_pct(10, -20) == 150);
        assert_true(isnan(ss_delta_pct(3, 0)));
        assert_true(isnan(ss_delta_pct(3, NAN)));
}

static void test_unchanged(void **state) {
        struct ss_evaluation e = eval(&expect_lte, SS_ASSERT_UNCHANGED, 15, 40, false, 0);
        assert_int_equal(e.verdict, SS_VERDICT_AS_HYPOTHESISED);
        assert_true(e.passed);
        assert_string_equal(ss_verdict_to_string(e.verdict), "as-hypothesised");
        e = eval(&expect_lte, SS_ASSERT_UNCHANGED, 15, 251, false, 0);
        assert_int_equal(e.verdict, SS_VERDICT_DEGRADED_BEYOND);
        assert_false(e.passed);
}

static void test_tolerance_both_ways(void **state) {
        /* at_most 20 around b = 15: 35 holds, 35.5 and -5.5 move */
        assert_int_equal(
                eval(&tol_abs, SS_ASSERT_UNCHANGED, 15, 35, false, 0).verdict, SS_VERDICT_AS_HYPOTHESISED);
        assert_int_equal(
                eval(&tol_abs, SS_ASSERT_UNCHANGED, 15, -5, false, 0).verdict, SS_VERDICT_AS_HYPOTHESISED);
        assert_int_equal(
                eval(&tol_abs, SS_ASSERT_UNCHANGED, 15, 35.5, false, 0).verdict, SS_VERDICT_DEGRADED_BEYOND);
        assert_int_equal(
                eval(&tol_abs, SS_ASSERT_UNCHANGED, 15, -5.5, false, 0).verdict, SS_VERDICT_DEGRADED_BEYOND);
        /* relative 1.5 of |b| = 20: up to 50 and down to -10 hold */
        assert_true(ss_holds(&tol_rel, 50, 20));
        assert_true(ss_holds(&tol_rel, -10, 20));
        assert_false(ss_holds(&tol_rel, 50.1, 20));
        assert_false(ss_holds(&tol_rel, -10.1, 20));
        /* either suffices */
        struct drill_ss_signal both = tol_abs;
        both.has_at_most_relative = true;
        both.at_most_relative = 1.0;
        assert_true(ss_holds(&both, 130, 100)); /* relative: 30 <= 100 */
        assert_true(ss_holds(&both, 1.5, 0.5)); /* absolute: 1 <= 20 */
        assert_false(ss_holds(&both, 230, 100));
}

static void test_degraded(void **state) {
        /* without within a moved signal is within */
        struct ss_evaluation e = eval(&tol_abs, SS_ASSERT_DEGRADED, 15, 215, false, 0);
        assert_int_equal(e.verdict, SS_VERDICT_DEGRADED_WITHIN);
        assert_true(e.passed);
        assert_true(fabs(e.delta_pct - 1333.333) < 0.01);
        /* within 20 of b = 15: up to 300 */
        assert_int_equal(
                eval(&tol_abs, SS_ASSERT_DEGRADED, 15, 300, true, 20).verdict, SS_VERDICT_DEGRADED_WITHIN);
        e = eval(&tol_abs, SS_ASSERT_DEGRADED, 15, 301, true, 20);
        assert_int_equal(e.verdict, SS_VERDICT_DEGRADED_BEYOND);
        assert_false(e.passed);
        /* not moved */
        e = eval(&tol_abs, SS_ASSERT_DEGRADED, 15, 25, true, 20);
        assert_int_equal(e.verdict, SS_VERDICT_NO_EFFECT);
        assert_false(e.passed);
        /* with expect.lte the reference is lte: within 2 of 250 = 500 */
        assert_int_equal(
                eval(&expect_lte, SS_ASSERT_DEGRADED, 15, 500, true, 2).verdict, SS_VERDICT_DEGRADED_WITHIN);
        assert_int_equal(
                eval(&expect_lte, SS_ASSERT_DEGRADED, 15, 501, true, 2).verdict, SS_VERDICT_DEGRADED_BEYOND);
        assert_int_equal(
                eval(&expect_lte, SS_ASSERT_DEGRADED, 15, 200, true, 2).verdict, SS_VERDICT_NO_EFFECT);
}

static void test_recovered(void **state) {
        assert_int_equal(
                eval(&tol_abs, SS_ASSERT_RECOVERED, 15, 20, false, 0).verdict, SS_VERDICT_AS_HYPOTHESISED);
        struct ss_evaluation e = eval(&tol_abs, SS_ASSERT_RECOVERED, 15, 215, false, 0);
        assert_int_equal(e.verdict, SS_VERDICT_NOT_RECOVERED);
        assert_false(e.passed);
        assert_string_equal(ss_verdict_to_string(e.verdict), "not-recovered");
}

static void test_insufficient(void **state) {
        struct ss_input in = { .signal = &tol_abs,
                               .phase = SS_PHASE_DURING,
                               .assertion = SS_ASSERT_DEGRADED,
                               .b = 15,
                               .d = 300,
                               .b_finite = 4,
                               .d_finite = 5,
                               .needed = 5 };
        struct ss_evaluation e;
        ss_evaluate(&in, &e);
        assert_int_equal(e.verdict, SS_VERDICT_INSUFFICIENT);
        assert_null(ss_verdict_to_string(e.verdict));
        assert_false(e.passed);
        assert_string_equal(e.reason, "insufficient baseline: 4 finite samples of the 5 capture.samples");
        in.b_finite = 5;
        in.d_finite = 0;
        in.d = NAN;
        ss_evaluate(&in, &e);
        assert_int_equal(e.verdict, SS_VERDICT_INSUFFICIENT);
        assert_string_equal(e.reason, "insufficient: no finite sample in phase during");
}

/* --baseline-from: the baselines one run recorded grade another. A row per
 * signal, read back as written; a signal it has no row for, or whose
 * baseline was insufficient (NULL), is told apart; the b read back judges
 * a later run's values. */
static void test_baseline_from(void **state) {
        char dir[] = "/tmp/jd14-steady-XXXXXX", path[64];
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/e.db", dir);
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(evidence_open(path, &ev, &e), 0);
        struct evidence_run run = { .id = "r-a",
                                    .name = "d",
                                    .kind = "drill",
                                    .spec_json = "{}",
                                    .plan_json = "{}",
                                    .plan_fingerprint = "0123abcd",
                                    .engine = "docker",
                                    .controller_pid = 1 };
        assert_int_equal(evidence_run_begin(ev, &run, &e), 0);
        assert_int_equal(
                evidence_ss_baseline(ev, "r-a", "lat", "poll.latency_ms", 5, 15.25, "[1,15.25,3,4,2]", &e),
                0);
        assert_int_equal(
                evidence_ss_baseline(ev, "r-a", "thin", "poll.latency_ms", 2, NAN, "[1,null]", &e), 0);
        double b = 0;
        assert_int_equal(evidence_ss_baseline_get(ev, "r-a", "lat", &b, &e), 1);
        assert_true(b == 15.25);
        assert_int_equal(evidence_ss_baseline_get(ev, "r-a", "thin", &b, &e), 1);
        assert_true(isnan(b));
        assert_int_equal(evidence_ss_baseline_get(ev, "r-a", "other", &b, &e), 0);
        assert_int_equal(evidence_ss_baseline_get(ev, "r-none", "lat", &b, &e), 0);
        /* a row for a run that does not exist is refused */
        assert_true(evidence_ss_baseline(ev, "r-none", "lat", "x", 1, 1, "[1]", &e) < 0);

        assert_int_equal(evidence_ss_baseline_get(ev, "r-a", "lat", &b, &e), 1);
        struct ss_evaluation out = eval(&tol_abs, SS_ASSERT_RECOVERED, b, 30, false, 0);
        assert_int_equal(out.verdict, SS_VERDICT_AS_HYPOTHESISED); /* |30 - 15.25| <= 20 */
        out = eval(&tol_abs, SS_ASSERT_RECOVERED, b, 36, false, 0);
        assert_int_equal(out.verdict, SS_VERDICT_NOT_RECOVERED);
        evidence_close(ev);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char p[80];
                snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
                unlink(p);
        }
        rmdir(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_statistic),           cmocka_unit_test(test_unchanged),
                cmocka_unit_test(test_tolerance_both_ways), cmocka_unit_test(test_degraded),
                cmocka_unit_test(test_recovered),           cmocka_unit_test(test_baseline_from),
                cmocka_unit_test(test_insufficient),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
