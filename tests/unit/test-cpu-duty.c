/* cpu.saturate's arithmetic: burner count, the closed loop against a
 * simulated CPU that gives less than asked (preemption, a binding quota),
 * the effect verdict, and cpu.stat parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>

#include "fault/cpu-duty.h"
#include "sys/cgroup-cpu.h"

static void test_burners(void **state) {
        assert_int_equal(cpu_burners(0.5), 1);
        assert_int_equal(cpu_burners(1.0), 1);
        assert_int_equal(cpu_burners(1.01), 2);
        assert_int_equal(cpu_burners(2.0), 2);
        assert_int_equal(cpu_burners(0.0), 1);
        assert_int_equal(cpu_burners(1e6), CPU_BURNERS_MAX);
}

static void test_init(void **state) {
        struct cpu_duty d;
        cpu_duty_init(&d, 0.5, 50);
        assert_int_equal(d.threads, 1);
        assert_true(fabs(d.target - 0.25) < 1e-9);
        assert_true(fabs(d.duty - 0.25) < 1e-9);
        cpu_duty_init(&d, 2.0, 80);
        assert_int_equal(d.threads, 2);
        assert_true(fabs(d.target - 1.6) < 1e-9);
        assert_true(fabs(d.duty - 0.8) < 1e-9);
        cpu_duty_init(&d, 1.0, 100);
        assert_true(fabs(d.duty - 1.0) < 1e-9);
}

/* A CPU that gives the burners 90% of what their duty asks: the loop
 * raises the duty until they use the target. */
static void test_converges_on_loss(void **state) {
        struct cpu_duty d;
        cpu_duty_init(&d, 0.5, 50);
        double used = 0;
        for (int i = 0; i < 50; i++) { /* 10 s of 200 ms steps */
                used = d.duty * d.threads * 0.9;
                cpu_duty_step(&d, used, 0.2);
        }
        assert_true(fabs(used - 0.25) < 0.005);
}

/* A binding quota gives nothing more: the integral stays clamped, so when
 * the CPU comes back the burners are back on target within a second or so,
 * not seconds of overshoot. */
static void test_no_windup(void **state) {
        struct cpu_duty d;
        cpu_duty_init(&d, 0.5, 50);
        for (int i = 0; i < 100; i++)
                cpu_duty_step(&d, 0.05, 0.2);
        assert_true(d.integral <= 0.5 * d.target * CPU_DUTY_TAU_S + 1e-9);
        double worst = 0;
        for (int i = 0; i < 25; i++) {
                double used = d.duty * d.threads;
                cpu_duty_step(&d, used, 0.2);
                if (i >= 10)
                        worst = fmax(worst, fabs(used - d.target));
        }
        assert_true(worst < 0.02);
}

static void test_share_and_verdict(void **state) {
        assert_true(fabs(cpu_share_pct(0.25e9, 1e9, 0.5) - 50) < 1e-9);
        assert_true(fabs(cpu_share_pct(1.6e9, 1e9, 2) - 80) < 1e-9);
        assert_true(cpu_share_pct(1, 0, 1) == 0);
        assert_int_equal(cpu_verdict(49, 50, 50), CPU_VERDICT_ON);
        assert_int_equal(cpu_verdict(60, 61, 50), CPU_VERDICT_ON);
        assert_int_equal(cpu_verdict(30, 99, 50), CPU_VERDICT_BINDING);
        assert_int_equal(cpu_verdict(30, 40, 50), CPU_VERDICT_OFF);
        assert_int_equal(cpu_verdict(70, 99, 50), CPU_VERDICT_OFF);
}

static void test_cpu_stat(void **state) {
        uint64_t u = 0;
        assert_int_equal(cgroup_cpu_stat_usage_parse("usage_usec 12345\nuser_usec 1\n", &u), 0);
        assert_int_equal(u, 12345);
        assert_int_equal(cgroup_cpu_stat_usage_parse("nr_periods 3\nusage_usec 7\n", &u), 0);
        assert_int_equal(u, 7);
        assert_int_equal(cgroup_cpu_stat_usage_parse("user_usec 1\n", &u), -ENOENT);
        assert_int_equal(cgroup_cpu_stat_usage_parse("usage_usec x\n", &u), -EINVAL);
        assert_int_equal(cgroup_cpu_stat_usage_parse("", &u), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_burners),           cmocka_unit_test(test_init),
                cmocka_unit_test(test_converges_on_loss), cmocka_unit_test(test_no_windup),
                cmocka_unit_test(test_share_and_verdict), cmocka_unit_test(test_cpu_stat),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
