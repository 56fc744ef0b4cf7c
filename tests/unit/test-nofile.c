/* The arithmetic of fd.exhaust's limit, its record, and the limit's effect
 * on this very process (its own RLIMIT_NOFILE lowered, then put back). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fault/rlimit-record.h"
#include "sys/proc-nofile.h"

static void test_soft_for(void **state) {
        const int dense[] = { 0, 1, 2 }, holes[] = { 0, 1, 2, 7, 100 };
        assert_int_equal(nofile_soft_for(dense, 3, 5), 8);
        assert_int_equal(nofile_headroom(dense, 3, 8), 5);
        /* 7 is below the limit and takes a number; 100 is above and does not. */
        assert_int_equal(nofile_soft_for(holes, 5, 5), 9);
        assert_int_equal(nofile_headroom(holes, 5, 9), 5);
        assert_int_equal(nofile_soft_for(NULL, 0, 1), 1);
        assert_int_equal(nofile_headroom(holes, 5, 2), 0);
}

static void test_record_round_trip(void **state) {
        struct nofile_entry in[2] = {
                { { 42, 1000 }, { 1024, RLIM_INFINITY }, { 70, 70 } },
                { { 43, 1001 }, { RLIM_INFINITY, RLIM_INFINITY }, { 9, RLIM_INFINITY } },
        };
        struct nofile_entry *out = NULL;
        size_t n = 0;
        uint64_t since = 0;
        json_t *r = json_object();
        assert_int_equal(rlimit_record_put(r, in, 2, 555, NULL), 0);
        assert_int_equal(rlimit_record_get(r, &out, &n, &since, NULL), 0);
        assert_int_equal(n, 2);
        assert_int_equal(since, 555);
        for (size_t i = 0; i < 2; i++) { /* field by field: struct proc_identity has padding */
                assert_int_equal(out[i].id.pid, in[i].id.pid);
                assert_int_equal(out[i].id.start_time, in[i].id.start_time);
                assert_memory_equal(&out[i].old, &in[i].old, sizeof(in[i].old));
                assert_memory_equal(&out[i].set, &in[i].set, sizeof(in[i].set));
        }
        free(out);
        json_object_set_new(json_array_get(json_object_get(r, "nofile"), 1), "soft", json_string("x"));
        struct mh_error e = { 0 };
        assert_int_equal(rlimit_record_get(r, &out, &n, &since, &e), -EINVAL);
        json_decref(r);
        r = json_object(); /* nothing recorded: nothing to put back */
        assert_int_equal(rlimit_record_get(r, &out, &n, &since, NULL), 0);
        assert_int_equal(n, 0);
        json_decref(r);
}

/* The soft limit computed from /proc/self/fd leaves exactly 4 more opens. */
static void test_effect_on_self(void **state) {
        struct rlimit before, now;
        int *fds = NULL, opened[8];
        size_t n = 0, got = 0;
        assert_int_equal(proc_nofile_get(getpid(), &before, NULL), 0);
        assert_int_equal(proc_fd_list(getpid(), &fds, &n, NULL), 0);
        for (size_t i = 1; i < n; i++)
                assert_true(fds[i - 1] < fds[i]);
        now = (struct rlimit){ nofile_soft_for(fds, n, 4), before.rlim_max };
        free(fds);
        assert_int_equal(proc_nofile_set(getpid(), &now, NULL), 0);
        while (got < 8 && (opened[got] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
                got++;
        int err = errno;
        assert_int_equal(proc_nofile_set(getpid(), &before, NULL), 0);
        for (size_t i = 0; i < got; i++)
                close(opened[i]);
        assert_int_equal(got, 4);
        assert_int_equal(err, EMFILE);
        assert_int_equal(proc_nofile_get(getpid(), &now, NULL), 0);
        assert_true(now.rlim_cur == before.rlim_cur && now.rlim_max == before.rlim_max);
        assert_int_equal(proc_nofile_get(-5, &now, NULL), -ESRCH);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_soft_for),
                cmocka_unit_test(test_record_round_trip),
                cmocka_unit_test(test_effect_on_self),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
