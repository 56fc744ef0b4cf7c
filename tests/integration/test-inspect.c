/* Issue 14, the resilience score, `inspect run` and `verify` against a real
 * dockerd, through the whole tool. A compose project "sc14" with service api
 * at 2 replicas (sc14-api-1, sc14-api-2) and a single-container service solo
 * (sc14-solo); the drill pauses sc14-api-1, then sc14-solo, 2 s each.
 *
 * What the test knows, and so the score it expects by hand: both steps
 * complete (fidelity 1.00); no lease dirty, both targets running at the end
 * (recovery 1.00); of the two faulted groups, api has an unfaulted running
 * replica, solo has one member (redundancy 1/2 = 0.50). Score =
 * round(100 * (0.35 * 1 + 0.35 * 1 + 0.30 * 0.5) / 1.0) = 85, B "solid".
 *
 * Then verify passes; the test corrupts the SQLite file (a lease set back to
 * active, then a byte added to plan_json) and verify fails naming each.
 * A second run with --ctr sc14-solo scores 70 (C): see its test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo-harness.h"

#define API1 "sc14-api-1"
#define API2 "sc14-api-2"
#define SOLO "sc14-solo"

static struct demo demo;
static char work[128], compose[200], drill[200], run_id[128];

static void rm_containers(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", API1, API2, SOLO, NULL });
        cmd_result_done(&r);
}

static void remove_db(void) {
        static const char *const suffixes[] = { "", "-wal", "-shm", ".log" };
        char path[128];
        for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
                snprintf(path, sizeof(path), "%s%s", demo.db, suffixes[i]);
                unlink(path);
        }
}

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* 0 ready, 77 when no engine answers (skipped), -1 on failure. */
static int start(void) {
        struct engine *e = NULL;
        snprintf(demo.root, sizeof(demo.root), "%s", getenv("MAYHEM_SOURCE_ROOT"));
        snprintf(demo.db, sizeof(demo.db), "/tmp/sc14-inspect-%d.db", (int)getpid());
        if (demo_podman() || engine_open(ENGINE_DOCKER, NULL, &e, NULL) < 0)
                return 77;
        engine_free(e);
        rm_containers();
        if (!demo_run_service(API1, "sc14", "api") || !demo_run_service(API2, "sc14", "api") ||
            !demo_run_service(SOLO, "sc14", "solo"))
                return -1;
        snprintf(work, sizeof(work), "/tmp/sc14-inspect-%d", (int)getpid());
        mkdir(work, 0755);
        snprintf(compose, sizeof(compose), "%s/compose.yaml", work);
        snprintf(drill, sizeof(drill), "%s/drill.yaml", work);
        write_file(
                compose, "name: sc14\nservices:\n  api:\n    image: mayhem-test-net:latest\n"
                         "    deploy:\n      replicas: 2\n  solo:\n    image: mayhem-test-net:latest\n"
                         "    container_name: " SOLO "\n");
        write_file(
                drill, "kind: drill\nname: sc14-score\ncontainers:\n  " API1 ":\n    faults:\n"
                       "      - {fault: container.pause, duration: 2s}\n  " SOLO ":\n    faults:\n"
                       "      - {fault: container.pause, duration: 2s}\n"
                       "execution:\n  - sequential: [" API1 "]\n  - sequential: [" SOLO "]\n");
        return 0;
}

static int teardown(void **state) {
        (void)state;
        rm_containers();
        struct cmd_result r = run_command(NULL, (const char *const[]){ "rm", "-rf", work, NULL });
        cmd_result_done(&r);
        remove_db();
        return 0;
}

static void sql(const char *statement) {
        sqlite3 *db = NULL;
        assert_int_equal(sqlite3_open(demo.db, &db), SQLITE_OK);
        sqlite3_stmt *st = NULL;
        assert_int_equal(sqlite3_prepare_v2(db, statement, -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC), SQLITE_OK);
        int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW)
                fail_msg("%s: %s", statement, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        sqlite3_close(db);
}

/* runs.resilience_json as stored, parsed. */
static json_t *stored_resilience(void) {
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        json_t *j = NULL;
        assert_int_equal(sqlite3_open(demo.db, &db), SQLITE_OK);
        assert_int_equal(
                sqlite3_prepare_v2(db, "SELECT resilience_json FROM runs WHERE id = ?", -1, &st, NULL),
                SQLITE_OK);
        sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
                j = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
        sqlite3_finalize(st);
        sqlite3_close(db);
        return j;
}

static void assert_score(const json_t *res) {
        const json_t *c = json_object_get(res, "components");
        assert_non_null(res);
        assert_int_equal(json_integer_value(json_object_get(res, "score")), 85);
        assert_string_equal(json_string_value(json_object_get(res, "grade")), "B");
        assert_string_equal(json_string_value(json_object_get(res, "label")), "solid");
        assert_true(json_real_value(json_object_get(json_object_get(c, "fidelity"), "value")) == 1.0);
        assert_true(json_real_value(json_object_get(json_object_get(c, "recovery"), "value")) == 1.0);
        assert_true(json_real_value(json_object_get(json_object_get(c, "redundancy"), "value")) == 0.5);
        const json_t *m = json_object_get(res, "measured");
        assert_int_equal(json_integer_value(json_object_get(m, "targeted")), 2);
        assert_int_equal(json_integer_value(json_object_get(m, "dead")), 0);
        assert_int_equal(json_integer_value(json_object_get(m, "groups_faulted")), 2);
        assert_int_equal(json_integer_value(json_object_get(m, "groups_with_survivor")), 1);
        assert_int_equal(json_integer_value(json_object_get(m, "groups_single")), 1);
}

static void test_score_inspect_verify(void **state) {
        (void)state;
        struct cmd_result r = MAYHEM(&demo, "run", drill, "-c", compose, "--execute");
        const char *line = strstr(
                r.out, "**resilience**: 85 (B, solid): fidelity 1.00, recovery 1.00, redundancy 0.50");
        const char *id = strstr(r.out, "# Run ");
        if (r.exit != 0 || !line || !id)
                fail_msg("run: exit %d\n%s%s", r.exit, r.out, r.err);
        sscanf(id, "# Run %127s", run_id);
        cmd_result_done(&r);
        print_message("run %s: the summary says 85 (B, solid), as computed by hand\n", run_id);

        json_t *res = stored_resilience();
        assert_score(res);
        json_decref(res);

        /* inspect run: the same score from the evidence, and the story around it. */
        json_t *story = INSPECT(&demo, "run", run_id);
        assert_non_null(story);
        assert_score(json_object_get(story, "resilience"));
        assert_int_equal(json_array_size(json_object_get(story, "steps")), 2);
        assert_int_equal(json_array_size(json_object_get(story, "leases")), 2);
        const json_t *l = json_array_get(json_object_get(story, "leases"), 0);
        assert_string_equal(json_string_value(json_object_get(l, "state")), "released");
        assert_true(json_is_true(json_object_get(json_object_get(l, "effect"), "in_force")));
        assert_true(json_is_true(json_object_get(json_object_get(l, "recovery"), "verified")));
        const json_t *byk = json_object_get(story, "events_by_kind");
        assert_int_equal(json_integer_value(json_object_get(byk, "targets.final_state")), 1);
        assert_int_equal(json_integer_value(json_object_get(byk, "fault.observed")), 2);
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(story, "run"), "execution_intent")),
                "explicit");
        json_decref(story);

        r = MAYHEM(&demo, "inspect", "run", run_id);
        if (r.exit != 0 ||
            !strstr(r.out, "resilience: 85 (B, solid): fidelity 1.00, recovery 1.00, redundancy 0.50"))
                fail_msg("inspect run: exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        r = MAYHEM(&demo, "inspect", "run", "r-sc14-none");
        assert_int_equal(r.exit, 4);
        assert_non_null(strstr(r.err, "no run 'r-sc14-none'"));
        cmd_result_done(&r);

        /* verify: every check holds on the run as written. */
        r = MAYHEM(&demo, "verify", run_id);
        if (r.exit != 0 || !strstr(r.out, "[ok] plan fingerprint") || !strstr(r.out, "[ok] leases closed") ||
            strstr(r.out, "[FAIL]"))
                fail_msg("verify: exit %d\n%s%s", r.exit, r.out, r.err);
        print_message("verify on the run as written: exit 0\n%s", r.out);
        cmd_result_done(&r);
        r = MAYHEM(&demo, "verify", "r-sc14-none");
        assert_int_equal(r.exit, 3);
        cmd_result_done(&r);

        /* A lease set back to active: verify fails and names it. */
        sql("UPDATE fault_leases SET state = 'active' WHERE id = (SELECT min(id) FROM fault_leases WHERE "
            "run_id = ?)");
        r = MAYHEM(&demo, "verify", run_id);
        if (r.exit != 1 || !strstr(r.out, "[FAIL] leases closed: l-") ||
            !strstr(r.out, "(container.pause) is active"))
                fail_msg("verify, lease active: exit %d\n%s%s", r.exit, r.out, r.err);
        print_message("a lease set back to active: exit 1, named\n");
        cmd_result_done(&r);
        sql("UPDATE fault_leases SET state = 'released' WHERE run_id = ? AND state = 'active'");

        /* The stored plan edited: its sha256 no longer matches the fingerprint. */
        sql("UPDATE runs SET plan_json = plan_json || ' ' WHERE id = ?");
        r = MAYHEM(&demo, "verify", run_id, "--json");
        json_t *v = json_loads(r.out, 0, NULL);
        if (r.exit != 1 || !v || json_integer_value(json_object_get(v, "failed")) != 1 ||
            !strstr(r.out, "DIFFERS from runs.plan_fingerprint"))
                fail_msg("verify, plan edited: exit %d\n%s%s", r.exit, r.out, r.err);
        print_message("plan_json edited: exit 1, the fingerprint check alone fails\n");
        json_decref(v);
        cmd_result_done(&r);
}

/* --ctr sc14-solo: the api step is skipped (not executed, not in fidelity),
 * only solo is targeted, and its group has one member. By hand: fidelity 1/1,
 * recovery 1.0, redundancy 0/1 = 0; round(100 * 0.70 / 1.0) = 70, C
 * "acceptable". Read from run --json and from the stored column. */
static void test_scope_and_single_group(void **state) {
        (void)state;
        struct cmd_result r =
                MAYHEM(&demo, "run", drill, "-c", compose, "--ctr", SOLO, "--execute", "--json");
        json_t *res = json_loads(r.out, 0, NULL), *score = json_object_get(res, "resilience");
        if (r.exit != 0 || json_integer_value(json_object_get(score, "score")) != 70)
                fail_msg("run --ctr: exit %d\n%s%s", r.exit, r.out, r.err);
        snprintf(run_id, sizeof(run_id), "%s", json_string_value(json_object_get(res, "run_id")));
        const json_t *m = json_object_get(score, "measured");
        assert_string_equal(json_string_value(json_object_get(score, "grade")), "C");
        assert_int_equal(json_integer_value(json_object_get(m, "steps_executed")), 1);
        assert_int_equal(json_integer_value(json_object_get(m, "targeted")), 1);
        assert_int_equal(json_integer_value(json_object_get(m, "groups_single")), 1);
        assert_int_equal(json_integer_value(json_object_get(m, "groups_with_survivor")), 0);
        json_t *stored = stored_resilience();
        assert_true(json_equal(stored, score));
        print_message("run --ctr " SOLO ": 70 (C, acceptable) in run --json and runs.resilience_json\n");
        json_decref(stored);
        json_decref(res);
        cmd_result_done(&r);
        r = MAYHEM(&demo, "verify", run_id);
        if (r.exit != 0)
                fail_msg("verify --ctr run: exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_score_inspect_verify),
                cmocka_unit_test(test_scope_and_single_group),
        };
        int r = start();
        if (r != 0) {
                teardown(NULL);
                return r == 77 ? 77 : 1;
        }
        return cmocka_run_group_tests(tests, NULL, teardown);
}
