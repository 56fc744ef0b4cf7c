#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_criteria_rules),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
