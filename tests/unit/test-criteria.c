#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "plan/plan.h"
#include "run/run-internal.h"

/* The reference's criteria rules (mayhem-spec.md §4.2), one row each. */
struct row {
        struct drill_criterion c;
        enum obs_kind_value kind;
        double value;
        bool satisfied;
        const char *detail;
};

static const struct row rows[] = {
        { { .type = CRITERION_STATUS, .expected = 200 },
          OBS_VALUE_STATUS,
          200,
          true,
          "status=200 expected=200" },
        { { .type = CRITERION_STATUS, .expected = 200 },
          OBS_VALUE_STATUS,
          503,
          false,
          "status=503 expected=200" },
        { { .type = CRITERION_STATUS, .expected = 1 }, OBS_VALUE_BOOLEAN, 1, false, "status=1 expected=1" },
        { { .type = CRITERION_LATENCY, .lt_ms = 500 },
          OBS_VALUE_LATENCY,
          31.2,
          true,
          "latency=31.2ms bound=<500.0ms" },
        { { .type = CRITERION_LATENCY, .lt_ms = 500 },
          OBS_VALUE_LATENCY,
          500,
          false,
          "latency=500.0ms bound=<500.0ms" },
        { { .type = CRITERION_METRIC, .has_gt = true, .gt = 1, .has_lt = true, .lt = 3 },
          OBS_VALUE_METRIC,
          2,
          true,
          "value=2" },
        { { .type = CRITERION_METRIC, .has_gt = true, .gt = 1 }, OBS_VALUE_METRIC, 1, false, "value=1" },
        { { .type = CRITERION_COUNT, .gte = 3 }, OBS_VALUE_COUNT, 3, true, "count=3 bound=>=3" },
        { { .type = CRITERION_COUNT, .gte = 3 }, OBS_VALUE_COUNT, 2, false, "count=2 bound=>=3" },
        { { .type = CRITERION_BOOLEAN, .value = true },
          OBS_VALUE_BOOLEAN,
          1,
          true,
          "value=true expected=true" },
        { { .type = CRITERION_BOOLEAN, .value = true },
          OBS_VALUE_BOOLEAN,
          0,
          false,
          "value=false expected=true" },
        { { .type = CRITERION_BOOLEAN, .value = false },
          OBS_VALUE_BOOLEAN,
          0,
          true,
          "value=false expected=false" },
        { { .type = CRITERION_BOOLEAN, .value = true },
          OBS_VALUE_COUNT,
          1,
          true,
          "value=true expected=true" },
        { { .type = CRITERION_BOOLEAN, .value = true },
          OBS_VALUE_STATUS,
          200,
          false,
          "value=true expected=true" },
};

static void test_criteria_rules(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                char detail[160];
                struct observation o = { .source = (char *)"s",
                                         .kind = rows[i].kind,
                                         .value = rows[i].value };
                bool got = criterion_judge(&rows[i].c, &o, detail, sizeof(detail));
                if (got != rows[i].satisfied || strcmp(detail, rows[i].detail) != 0)
                        fail_msg("row %zu: got %d '%s'", i, got, detail);
        }
}

/* The issue's probe: one slow spell, then a fast last sample (ms). */
static const double issue_series[] = { 4, 411, 404, 408, 404, 407, 408, 85 };

struct over_row {
        enum criterion_over over;
        bool has_over;
        bool satisfied;
        const char *detail;
};

static const struct over_row over_rows[] = {
        { CRITERION_OVER_LAST, false, true, "latency=85.0ms (last of 8; max 411, p95 411) bound=<300.0ms" },
        { CRITERION_OVER_LAST, true, true, "latency=85.0ms (last of 8; max 411, p95 411) bound=<300.0ms" },
        { CRITERION_OVER_MAX, true, false, "latency=411.0ms (max of 8) bound=<300.0ms" },
        { CRITERION_OVER_P95, true, false, "latency=411.0ms (p95 of 8) bound=<300.0ms" },
        { CRITERION_OVER_P99, true, false, "latency=411.0ms (p99 of 8) bound=<300.0ms" },
        { CRITERION_OVER_P50, true, false, "latency=404.0ms (p50 of 8) bound=<300.0ms" },
        { CRITERION_OVER_MIN, true, true, "latency=4.0ms (min of 8) bound=<300.0ms" },
        { CRITERION_OVER_MEAN, true, false, "latency=316.4ms (mean of 8) bound=<300.0ms" },
        { CRITERION_OVER_ALL, true, false,
          "latency=411.0ms (all of 8: 6 fail; max 411, p95 411) bound=<300.0ms" },
        { CRITERION_OVER_ANY, true, true,
          "latency=4.0ms (any of 8: 2 hold; max 411, p95 411) bound=<300.0ms" },
};

static void series(const double *v, size_t n, enum obs_kind_value kind, struct observation *ret) {
        for (size_t i = 0; i < n; i++)
                ret[i] = (struct observation){ .source = (char *)"api-poll.latency_ms",
                                               .kind = kind,
                                               .value = v[i],
                                               .began_ms = 1000.0 * (double)i,
                                               .t_ms = 1000.0 * (double)i + v[i] };
}

/* Issue 11: [4, 411, 404, 408, 404, 407, 408, 85] against lt_ms 300 passed
 * on the last sample alone. max and p95 fail it; last still passes it, and
 * says what it did not look at. */
static void test_criteria_over_issue_series(void **state) {
        struct observation s[ELEMENTSOF(issue_series)];
        series(issue_series, ELEMENTSOF(issue_series), OBS_VALUE_LATENCY, s);
        for (size_t i = 0; i < ELEMENTSOF(over_rows); i++) {
                struct drill_criterion c = { .type = CRITERION_LATENCY,
                                             .lt_ms = 300,
                                             .over = over_rows[i].over,
                                             .has_over = over_rows[i].has_over };
                char detail[256];
                bool got = criterion_judge_samples(&c, s, ELEMENTSOF(s), detail, sizeof(detail));
                if (got != over_rows[i].satisfied || strcmp(detail, over_rows[i].detail) != 0)
                        fail_msg(
                                "row %zu (%s): got %d '%s'", i, criterion_over_to_string(c.over), got,
                                detail);
        }
}

/* The context numbers are short: 401.5, not 401.457. */
static void test_criteria_context_numbers(void **state) {
        static const double v[] = { 401.457, 3.25, 1.8 };
        struct observation s[3];
        char detail[256];
        series(v, 3, OBS_VALUE_LATENCY, s);
        struct drill_criterion c = { .type = CRITERION_LATENCY, .lt_ms = 300 };
        assert_true(criterion_judge_samples(&c, s, 3, detail, sizeof(detail)));
        assert_string_equal(detail, "latency=1.8ms (last of 3; max 401.5, p95 401.5) bound=<300.0ms");
}

/* Nearest rank: p of n samples is the ceil(p * n / 100)-th smallest. */
static void test_criteria_percentiles_nearest_rank(void **state) {
        double v[20];
        struct observation s[20];
        for (size_t i = 0; i < 20; i++)
                v[i] = (double)(20 - i); /* 20 .. 1: the order of the samples does not matter */
        series(v, 20, OBS_VALUE_METRIC, s);
        static const struct {
                enum criterion_over over;
                const char *detail;
        } ranks[] = {
                { CRITERION_OVER_P50, "value=10 (p50 of 20)" },
                { CRITERION_OVER_P95, "value=19 (p95 of 20)" },
                { CRITERION_OVER_P99, "value=20 (p99 of 20)" },
                { CRITERION_OVER_MIN, "value=1 (min of 20)" },
                { CRITERION_OVER_MEAN, "value=10.5 (mean of 20)" },
        };
        for (size_t i = 0; i < ELEMENTSOF(ranks); i++) {
                struct drill_criterion c = { .type = CRITERION_METRIC,
                                             .has_lt = true,
                                             .lt = 15,
                                             .over = ranks[i].over,
                                             .has_over = true };
                char detail[256];
                criterion_judge_samples(&c, s, 20, detail, sizeof(detail));
                assert_string_equal(detail, ranks[i].detail);
        }
        /* one sample: p95 of 1 is that sample */
        struct drill_criterion c = { .type = CRITERION_METRIC,
                                     .has_lt = true,
                                     .lt = 15,
                                     .over = CRITERION_OVER_P95,
                                     .has_over = true };
        char detail[256];
        assert_true(criterion_judge_samples(&c, &s[19], 1, detail, sizeof(detail)));
        assert_string_equal(detail, "value=1 (p95 of 1)");
}

static void test_criteria_no_samples(void **state) {
        struct drill_criterion c = { .type = CRITERION_LATENCY, .lt_ms = 300 };
        char detail[256];
        assert_false(criterion_judge_samples(&c, NULL, 0, detail, sizeof(detail)));
        assert_string_equal(detail, "no observation recorded");
        c.window = CRITERION_WINDOW_DURING;
        c.has_window = true;
        assert_false(criterion_judge_samples(&c, NULL, 0, detail, sizeof(detail)));
        assert_string_equal(detail, "no observation in window 'during'");
}

/* A check's one observation reads as in the reference; a boolean series
 * takes all and any, and a number is never a boolean. */
static void test_criteria_boolean_series(void **state) {
        static const double v[] = { 1, 1, 0, 1 };
        struct observation s[4];
        char detail[256];
        series(v, 4, OBS_VALUE_BOOLEAN, s);
        struct drill_criterion c = { .type = CRITERION_BOOLEAN, .value = true };
        assert_true(criterion_judge_samples(&c, &s[0], 1, detail, sizeof(detail)));
        assert_string_equal(detail, "value=true expected=true");
        assert_true(criterion_judge_samples(&c, s, 4, detail, sizeof(detail)));
        assert_string_equal(detail, "value=true (last of 4) expected=true");
        c.over = CRITERION_OVER_ALL;
        c.has_over = true;
        assert_false(criterion_judge_samples(&c, s, 4, detail, sizeof(detail)));
        assert_string_equal(detail, "value=false (all of 4: 1 fail) expected=true");
        c.over = CRITERION_OVER_ANY;
        c.window = CRITERION_WINDOW_DURING;
        assert_true(criterion_judge_samples(&c, s, 4, detail, sizeof(detail)));
        assert_string_equal(detail, "value=true (any of 4 in 'during': 3 hold) expected=true");
        /* a latency criterion over a series holding a boolean sample never holds */
        s[3].kind = OBS_VALUE_BOOLEAN;
        s[0].kind = s[1].kind = s[2].kind = OBS_VALUE_LATENCY;
        struct drill_criterion l = {
                .type = CRITERION_LATENCY, .lt_ms = 300, .over = CRITERION_OVER_MAX, .has_over = true
        };
        assert_false(criterion_judge_samples(&l, s, 4, detail, sizeof(detail)));
}

static const char *const compose_yaml = "name: shop\nservices:\n  api:\n    image: api\n"
                                        "    container_name: shop-api\n";

struct planned {
        struct topology *topo;
        struct drill_spec *spec;
        struct plan *plan;
        size_t judged; /* warnings about what a criterion judges */
};

static void planned_done(struct planned *p) {
        plan_free(p->plan);
        drill_spec_free(p->spec);
        topology_free(p->topo);
}

/* The warning goes where `prepare validate` and `run` print warnings: the
 * plan's, with the criterion's FILE:LINE:COL. */
static struct planned plan_with(const char *criteria) {
        char drill[2048];
        struct planned p = { 0 };
        struct mh_error e = { 0 };
        snprintf(
                drill, sizeof(drill),
                "kind: drill\nname: d\ncontainers:\n  shop-api:\n    faults: [{fault: container.pause}]\n"
                "execution:\n  - parallel: [shop-api]\n"
                "  - check_spec: [{id: once, probe: {type: tcp, host: h, port: 1}}]\n"
                "observability:\n  sources:\n"
                "    - {kind: probe, source_id: api-poll, cadence: 500ms,\n"
                "       probe: {type: http, url: \"http://127.0.0.1:1/\"}}\n"
                "    - {kind: probe, source_id: api-once, cadence: 0, probe: {type: tcp, host: h, port: "
                "1}}\n"
                "success:\n  criteria:\n%s",
                criteria);
        assert_int_equal(compose_parse("compose.yaml", compose_yaml, strlen(compose_yaml), &p.topo, &e), 0);
        if (drill_parse("drill.yaml", drill, strlen(drill), &p.spec, &e) < 0 ||
            plan_build(p.spec, p.topo, &p.plan, &e) < 0)
                fail_msg("%s", e.msg);
        for (size_t i = 0; i < p.plan->n_warnings; i++)
                p.judged += strstr(p.plan->warnings[i], "judges only the last sample") != NULL;
        return p;
}

static void test_criteria_warn_unjudged(void **state) {
        struct planned p = plan_with("    - {type: latency, source_id: api-poll.latency_ms, lt_ms: 300}\n");
        assert_int_equal(p.judged, 1);
        assert_string_equal(
                p.plan->warnings[0],
                "drill.yaml:16:7: success criterion on 'api-poll.latency_ms' judges only the last sample of "
                "source 'api-poll' (one every 500ms); say which with 'over:' (last, all, any, max, min, "
                "p50, "
                "p95, p99, mean) or 'window:' (baseline, during, after, whole)");
        planned_done(&p);
        static const char *const quiet[] = {
                "    - {type: latency, source_id: api-poll.latency_ms, lt_ms: 300, over: max}\n",
                "    - {type: latency, source_id: api-poll.latency_ms, lt_ms: 300, over: last}\n",
                "    - {type: boolean, source_id: api-poll, window: during}\n",
                "    - {type: boolean, source_id: api-once}\n", /* one sample */
                "    - {type: boolean, source_id: once}\n",     /* a check: the observation it produced */
        };
        for (size_t i = 0; i < ELEMENTSOF(quiet); i++) {
                p = plan_with(quiet[i]);
                if (p.judged != 0)
                        fail_msg("case %zu warned: %s", i, p.plan->warnings[0]);
                planned_done(&p);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_criteria_rules),
                cmocka_unit_test(test_criteria_over_issue_series),
                cmocka_unit_test(test_criteria_context_numbers),
                cmocka_unit_test(test_criteria_percentiles_nearest_rank),
                cmocka_unit_test(test_criteria_no_samples),
                cmocka_unit_test(test_criteria_boolean_series),
                cmocka_unit_test(test_criteria_warn_unjudged),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
