/* The run summary counts the faults whose effect was seen apart from those
 * in force whose effect was not observable (docs/internals/network-faults.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "run/run.h"

static void test_proven_and_not_observable_apart(void **state) {
        (void)state;
        struct plan pl = { .n_faults = 3 };
        struct run_result r = { .run_id = "r-1",
                                .faults_injected = 3,
                                .faults_in_force = 3,
                                .faults_proven = 2,
                                .faults_unobserved = 1,
                                .faults_released = 3 };
        char *md = run_summary_markdown(&pl, &r);
        assert_non_null(md);
        assert_non_null(strstr(
                md,
                "**faults**: 3 planned, 3 injected, 3 in force (2 proven, 1 not observable), 3 undone and "
                "verified"));
        free(md);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_proven_and_not_observable_apart),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
