#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/run-internal.h"

/* Drives a schedule with a probe that takes cost_ms, the observer getting
 * to the source as soon as it is due (plus delay_ms), until end_ms; the
 * sample times go to ret_at. */
static size_t drive(
        struct cadence *c, double cost_ms, double delay_ms, double end_ms, double *ret_at, size_t max) {
        size_t n = 0;
        double now = c->start_ms;
        while (now < end_ms && n < max) {
                if (!cadence_begin(c, now)) {
                        now = cadence_due_ms(c) + delay_ms;
                        continue;
                }
                ret_at[n++] = now;
                now += cost_ms;
                cadence_end(c, now);
        }
        return n;
}

/* Issue 11: a 500 ms cadence with a 410 ms probe gave samples 910 ms apart.
 * On a schedule they are 500 ms apart, none late, none skipped. */
static void test_cadence_is_a_schedule(void **state) {
        struct cadence c;
        double at[64];
        cadence_init(&c, 1000, 500);
        size_t n = drive(&c, 410, 0, 1000 + 4000, at, 64);
        assert_int_equal(n, 8);
        for (size_t i = 0; i < n; i++)
                assert_true(at[i] == 1000 + 500.0 * (double)i);
        assert_int_equal(c.samples, 8);
        assert_int_equal(c.late, 0);
        assert_int_equal(c.skipped, 0);
}

/* A probe longer than the cadence misses the slots that come due while it
 * runs: they are skipped, not run in a burst afterwards, and the samples
 * stay on the grid. */
static void test_cadence_overrun_skips(void **state) {
        struct cadence c;
        double at[64];
        cadence_init(&c, 0, 500);
        size_t n = drive(&c, 910, 0, 4000, at, 64);
        assert_int_equal(n, 4);
        for (size_t i = 0; i < n; i++)
                assert_true(at[i] == 1000.0 * (double)i); /* slots 0, 2, 4, 6 */
        assert_int_equal(c.skipped, 4);                   /* 1, 3, 5, 7 */
        assert_int_equal(c.late, 0);
        assert_true(cadence_due_ms(&c) == 4000);
}

/* A probe that ends within the tolerance after the next slot does not skip
 * it: the slot is taken, a little late but not counted late. */
static void test_cadence_small_overrun_is_taken(void **state) {
        struct cadence c;
        cadence_init(&c, 0, 500);
        assert_true(cadence_begin(&c, 0));
        cadence_end(&c, 540); /* slot 1 came due 40 ms before: within 50 ms */
        assert_true(cadence_due_ms(&c) == 500);
        assert_true(cadence_begin(&c, 540));
        assert_int_equal(c.late, 0);
        cadence_end(&c, 560);
        assert_int_equal(c.skipped, 0);
        assert_true(cadence_due_ms(&c) == 1000);
}

/* The observer busy elsewhere: a sample begun past the tolerance is late;
 * of several slots that passed, only the latest is taken. */
static void test_cadence_late_and_missed(void **state) {
        struct cadence c;
        cadence_init(&c, 0, 1000);
        assert_false(cadence_begin(&c, -1));
        assert_true(cadence_begin(&c, 0));
        cadence_end(&c, 10);
        assert_false(cadence_begin(&c, 999));
        assert_true(cadence_begin(&c, 1080)); /* 80 ms late: more than 50 ms */
        assert_int_equal(c.late, 1);
        cadence_end(&c, 1090);
        assert_true(cadence_begin(&c, 4020)); /* slots 2 and 3 passed: skipped; slot 4 on time */
        assert_int_equal(c.skipped, 2);
        assert_int_equal(c.late, 1);
        cadence_end(&c, 4030);
        assert_true(cadence_due_ms(&c) == 5000);
        assert_int_equal(c.samples, 3);
        /* 10% of a 100 ms cadence is 10 ms */
        assert_true(cadence_late_ms(100) == 10);
        assert_true(cadence_late_ms(5000) == 50);
}

static void test_cadence_once(void **state) {
        struct cadence c;
        cadence_init(&c, 100, 0);
        assert_true(cadence_due_ms(&c) == 100);
        assert_true(cadence_begin(&c, 120));
        cadence_end(&c, 130);
        assert_true(isinf(cadence_due_ms(&c)));
        assert_false(cadence_begin(&c, 1e9));
        assert_int_equal(c.samples, 1);
        assert_int_equal(c.late, 0);
}

/* Two faults, the second overlapping the first: during is the union of the
 * held intervals; the transitions (inject sent..applied, undo
 * sent..verified, the gap between faults) belong to whole only. */
static void test_windows(void **state) {
        struct fault_window w[3];
        fault_windows_init(w, 3);
        w[0] = (struct fault_window){ .sent = 100, .held_from = 110, .held_until = 300, .undone = 320 };
        w[1] = (struct fault_window){ .sent = 250, .held_from = 260, .held_until = 500, .undone = 520 };
        /* w[2] never sent: it touched nothing */
        static const struct {
                enum criterion_window which;
                double began, end;
                bool in;
        } rows[] = {
                { CRITERION_WINDOW_BASELINE, 0, 99, true },   { CRITERION_WINDOW_BASELINE, 90, 105, false },
                { CRITERION_WINDOW_DURING, 105, 120, false }, { CRITERION_WINDOW_DURING, 110, 200, true },
                { CRITERION_WINDOW_DURING, 200, 400, true }, /* across both: the union */
                { CRITERION_WINDOW_DURING, 450, 500, true },  { CRITERION_WINDOW_DURING, 450, 510, false },
                { CRITERION_WINDOW_AFTER, 510, 530, false },  { CRITERION_WINDOW_AFTER, 520, 600, true },
                { CRITERION_WINDOW_WHOLE, 105, 510, true },
        };
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (fault_windows_contain(w, 3, rows[i].which, rows[i].began, rows[i].end) != rows[i].in)
                        fail_msg("row %zu: expected %d", i, rows[i].in);

        /* a fault kept (recovery: false) is held to the end: no after */
        w[1].held_until = w[1].undone = INFINITY;
        assert_true(fault_windows_contain(w, 3, CRITERION_WINDOW_DURING, 400, 1e9));
        assert_false(fault_windows_contain(w, 3, CRITERION_WINDOW_AFTER, 1e9, 1e9));

        /* no fault ever sent: all is baseline, nothing during or after */
        fault_windows_init(w, 3);
        assert_true(fault_windows_contain(w, 3, CRITERION_WINDOW_BASELINE, 0, 1e9));
        assert_false(fault_windows_contain(w, 3, CRITERION_WINDOW_DURING, 0, 1));
        assert_false(fault_windows_contain(w, 3, CRITERION_WINDOW_AFTER, 0, 1));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cadence_is_a_schedule),
                cmocka_unit_test(test_cadence_overrun_skips),
                cmocka_unit_test(test_cadence_small_overrun_is_taken),
                cmocka_unit_test(test_cadence_late_and_missed),
                cmocka_unit_test(test_cadence_once),
                cmocka_unit_test(test_windows),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
