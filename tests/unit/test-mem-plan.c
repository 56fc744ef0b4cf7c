/* mem.exhaust's arithmetic (what percent is a share of, the margin, the cap)
 * and the memory cgroup's knob parsers, with no cgroup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fault/mem-plan.h"
#include "sys/cgroup-memory.h"

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

static const struct mem_facts limited_256m = { .limited = true,
                                               .limit = 256 * MiB,
                                               .usage = 10 * MiB,
                                               .host_total = 24 * GiB,
                                               .host_available = 23 * GiB };

static void test_percent_of_the_limit(void **state) {
        (void)state;
        struct mem_plan p;
        mem_plan_compute(&limited_256m, 0, 50, &p);
        assert_false(p.host_base);
        assert_int_equal(p.base, 256 * MiB);
        assert_int_equal(p.margin, 8 * MiB); /* 2% of 256 MiB is less than 8 MiB */
        assert_int_equal(p.target, 128 * MiB);
        assert_int_equal(p.cap, 256 * MiB - 8 * MiB - 10 * MiB);
        assert_false(p.capped);
}

static void test_amount_overrides_percent(void **state) {
        (void)state;
        struct mem_plan p;
        mem_plan_compute(&limited_256m, 64 * MiB, 50, &p);
        assert_int_equal(p.target, 64 * MiB);
        mem_plan_compute(&limited_256m, 64 * MiB + 1000, 50, &p);
        assert_int_equal(p.target, 64 * MiB); /* whole pages */
}

/* Asking for more than fits below the limit: the cap, and it says so. */
static void test_capped_below_the_limit(void **state) {
        (void)state;
        struct mem_plan p;
        char why[256];
        mem_plan_compute(&limited_256m, 0, 99, &p);
        assert_true(p.capped);
        assert_int_equal(p.target, 238 * MiB);
        mem_plan_describe(&limited_256m, &p, false, why, sizeof(why));
        assert_non_null(strstr(why, "target 238.0 MiB (capped: asked for more)"));
        assert_non_null(strstr(why, "the cgroup's limit 256.0 MiB"));
        assert_non_null(strstr(why, "margin 8.0 MiB - the app's 10.0 MiB"));
}

static void test_margin_two_percent_of_a_large_limit(void **state) {
        (void)state;
        struct mem_facts f = { .limited = true, .limit = 4 * GiB, .host_total = 24 * GiB };
        struct mem_plan p;
        mem_plan_compute(&f, 0, 99, &p);
        assert_int_equal(p.margin, 4 * GiB / 100 * 2);
        assert_int_equal(p.target, (4 * GiB - p.margin) / 4096 * 4096);
}

/* No room at all: the app uses more than the limit minus the margin. */
static void test_no_room(void **state) {
        (void)state;
        struct mem_facts f = limited_256m;
        struct mem_plan p;
        f.usage = 250 * MiB;
        mem_plan_compute(&f, 0, 60, &p);
        assert_int_equal(p.cap, 0);
        assert_int_equal(p.target, 0);
}

/* Unlimited: a share of the host's MemTotal, capped by what the host has free. */
static void test_unlimited_is_a_share_of_the_host(void **state) {
        (void)state;
        struct mem_facts f = { .usage = MiB, .host_total = 24 * GiB, .host_available = 4 * GiB };
        struct mem_plan p;
        char why[256];
        mem_plan_compute(&f, 0, 10, &p);
        assert_true(p.host_base);
        assert_int_equal(p.base, 24 * GiB);
        assert_false(p.capped);
        mem_plan_compute(&f, 0, 60, &p);
        assert_true(p.capped);
        assert_int_equal(p.cap, 4 * GiB - p.margin);
        mem_plan_describe(&f, &p, false, why, sizeof(why));
        assert_non_null(strstr(why, "the host's MemTotal 24576.0 MiB (the cgroup has no limit)"));
        assert_non_null(strstr(why, "MemAvailable"));
}

static void test_knob_parsers(void **state) {
        (void)state;
        uint64_t v = 0;
        bool limited = true;
        assert_int_equal(
                cgroup_keyed_value_parse("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "oom_kill", &v),
                0);
        assert_int_equal(v, 3);
        assert_int_equal(
                cgroup_keyed_value_parse(
                        "low 0\nhigh 0\nmax 5\noom 2\noom_kill 1\noom_group_kill 0\n", "oom_kill", &v),
                0);
        assert_int_equal(v, 1);
        assert_int_equal(cgroup_keyed_value_parse("oom_kill_disable 0\n", "oom_kill", &v), -ENOENT);
        assert_int_equal(cgroup_keyed_value_parse("oom_kill x\n", "oom_kill", &v), -EINVAL);
        assert_int_equal(
                meminfo_value_parse("MemTotal:       24683520 kB\nMemFree: 1 kB\n", "MemTotal", &v), 0);
        assert_int_equal(v, UINT64_C(24683520) * 1024);
        assert_int_equal(meminfo_value_parse("MemTotal: 12\n", "MemTotal", &v), -EINVAL);
        assert_int_equal(cgroup_memory_limit_parse("max", &limited, &v), 0);
        assert_false(limited);
        assert_int_equal(cgroup_memory_limit_parse("9223372036854771712", &limited, &v), 0);
        assert_false(limited);
        assert_int_equal(cgroup_memory_limit_parse("268435456", &limited, &v), 0);
        assert_true(limited);
        assert_int_equal(v, 256 * MiB);
        assert_int_equal(cgroup_memory_limit_parse("-1", &limited, &v), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_percent_of_the_limit),
                cmocka_unit_test(test_amount_overrides_percent),
                cmocka_unit_test(test_capped_below_the_limit),
                cmocka_unit_test(test_margin_two_percent_of_a_large_limit),
                cmocka_unit_test(test_no_room),
                cmocka_unit_test(test_unlimited_is_a_share_of_the_host),
                cmocka_unit_test(test_knob_parsers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
