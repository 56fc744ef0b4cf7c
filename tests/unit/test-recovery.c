/* Which leases the janitor and `mayhem recover` take (src/run/recovery.c),
 * planned only (no agent is started): a kept_faulted lease (recovery: false)
 * is in force on purpose, so the janitor leaves it, and `recover` of its run
 * takes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/lease.h"
#include "run/recovery.h"

#define CHECK_OK(x)                                                                                         \
        do {                                                                                                \
                int r_ = (x);                                                                               \
                if (r_ < 0)                                                                                 \
                        fail_msg("%s: %d", #x, r_);                                                         \
        } while (0)

static char path[64];

static int setup(void **state) {
        snprintf(path, sizeof(path), "/tmp/mayhem-test-recovery-%d.db", (int)getpid());
        struct evidence *ev = NULL;
        if (evidence_open(path, &ev, NULL) < 0)
                return -1;
        *state = ev;
        return 0;
}

static int teardown(void **state) {
        char name[96];
        evidence_close(*state);
        unlink(path);
        snprintf(name, sizeof(name), "%s-wal", path);
        unlink(name);
        snprintf(name, sizeof(name), "%s-shm", path);
        unlink(name);
        return 0;
}

/* A completed run whose one lease is kept_faulted. */
static void kept_run(struct evidence *ev, const char *run_id) {
        struct evidence_run run = { .id = run_id, .name = "keep", .kind = "drill", .engine = "docker" };
        struct lease_new l = {
                .run_id = run_id,
                .fault_id = "container.pause",
                .owner_agent = "ag-test",
                .targets_json = "[\"api\"]",
                .undo_json = "[{\"op\":\"engine.unpause\",\"args\":{}}]",
                .verify_json = "[{\"probe\":\"container.running\",\"args\":{}}]",
                .runtime_identity_json = "{\"engine\":\"docker\",\"container_id\":\"abc\",\"pid\":42}",
        };
        char id[LEASE_ID_MAX];
        CHECK_OK(evidence_run_begin(ev, &run, NULL));
        CHECK_OK(lease_create(ev, &l, id, NULL));
        CHECK_OK(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, NULL, NULL));
        CHECK_OK(lease_transition(ev, id, LEASE_ACTIVE, LEASE_KEPT, NULL, NULL));
        CHECK_OK(evidence_run_finish(ev, run_id, "completed", "pass", NULL, NULL, NULL));
}

static void test_janitor_leaves_kept(void **state) {
        struct evidence *ev = *state;
        kept_run(ev, "r-kept");
        struct recovery_options o = { .mode = RECOVERY_JANITOR, .mechanism = "janitor" };
        struct recovery_result res;
        CHECK_OK(recovery_run(ev, &o, &res, NULL));
        assert_int_equal(res.considered, 0);
        assert_int_equal(res.skipped, 1);
        recovery_result_done(&res);

        const char *runs[] = { "r-kept" };
        o = (struct recovery_options){
                .mode = RECOVERY_RUNS, .run_ids = runs, .n_run_ids = 1, .mechanism = "manual"
        };
        CHECK_OK(recovery_run(ev, &o, &res, NULL));
        assert_int_equal(res.considered, 1);
        json_t *item = json_array_get(res.leases, 0);
        assert_string_equal(json_string_value(json_object_get(item, "state")), "kept_faulted");
        assert_string_equal(json_string_value(json_object_get(item, "outcome")), "planned");
        recovery_result_done(&res);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_janitor_leaves_kept, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
