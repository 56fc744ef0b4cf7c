/* The resilience score (evidence/resilience.h) on hand-made inputs: every
 * grade boundary, each omitted component, the dirty and dead deductions, the
 * end-state payload's counting; and the inputs read back from a real
 * SQLite file. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/evidence.h"
#include "evidence/resilience.h"
#include "evidence/run-record.h"

static void test_grade_boundaries(void **state) {
        static const struct {
                int score;
                char grade;
                const char *label;
        } cases[] = {
                { 100, 'A', "resilient" },     { 90, 'A', "resilient" },  { 89, 'B', "solid" },
                { 75, 'B', "solid" },          { 74, 'C', "acceptable" }, { 60, 'C', "acceptable" },
                { 59, 'D', "fragile" },        { 45, 'D', "fragile" },    { 44, 'F', "needs attention" },
                { 0, 'F', "needs attention" },
        };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *label = NULL;
                assert_int_equal(resilience_grade(cases[i].score, &label), cases[i].grade);
                assert_string_equal(label, cases[i].label);
        }
}

/* Fidelity alone (no end state recorded): the score is 100 * ok / executed,
 * so each boundary is reachable through the scorer itself. */
static void test_boundaries_through_scorer(void **state) {
        static const struct {
                size_t ok;
                char grade;
        } cases[] = { { 90, 'A' }, { 89, 'B' }, { 75, 'B' }, { 74, 'C' },
                      { 60, 'C' }, { 59, 'D' }, { 45, 'D' }, { 44, 'F' } };
        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct resilience_input in = { .steps_ok = cases[i].ok, .steps_executed = 100 };
                struct resilience_score s;
                resilience_score(&in, &s);
                assert_true(s.has_score && s.has_fidelity);
                assert_false(s.has_recovery || s.has_redundancy);
                assert_int_equal(s.score, (int)cases[i].ok);
                assert_int_equal(s.grade, cases[i].grade);
                assert_non_null(strstr(s.omitted, "recovery omitted"));
                assert_non_null(strstr(s.omitted, "redundancy omitted"));
        }
}

static void test_all_components(void **state) {
        /* 2 faulted groups, one with a survivor: 100 * (0.35 + 0.35 + 0.30 * 0.5) = 85. */
        struct resilience_input in = { .steps_ok = 3,
                                       .steps_executed = 3,
                                       .end_state_known = true,
                                       .targeted = 2,
                                       .groups_faulted = 2,
                                       .groups_with_survivor = 1 };
        struct resilience_score s;
        char line[256];
        (void)state;
        resilience_score(&in, &s);
        assert_int_equal(s.score, 85);
        assert_int_equal(s.grade, 'B');
        assert_string_equal(s.omitted, "");
        resilience_line(&s, line, sizeof(line));
        assert_string_equal(line, "85 (B, solid): fidelity 1.00, recovery 1.00, redundancy 0.50");
}

static void test_omitted(void **state) {
        struct resilience_score s;
        (void)state;
        /* Nothing executed, no end state: nothing to score, said so. */
        resilience_score(&(struct resilience_input){ 0 }, &s);
        assert_false(s.has_score);
        assert_int_equal(s.grade, '-');
        assert_non_null(strstr(s.omitted, "fidelity omitted"));
        /* End state known but no faulted container in a service (host processes):
         * redundancy omitted, weights renormalised: (0.35 * 0.5 + 0.35 * 1) / 0.7 = 75. */
        resilience_score(
                &(struct resilience_input){ .steps_ok = 1, .steps_executed = 2, .end_state_known = true },
                &s);
        assert_true(s.has_fidelity && s.has_recovery && !s.has_redundancy);
        assert_int_equal(s.score, 75);
        assert_non_null(strstr(s.omitted, "redundancy omitted: no faulted container"));
        /* No step executed but an end state: recovery and redundancy alone. */
        resilience_score(
                &(struct resilience_input){
                        .end_state_known = true, .targeted = 1, .groups_faulted = 1, .groups_single = 1 },
                &s);
        assert_false(s.has_fidelity);
        /* (0.35 * 1 + 0.30 * 0) / 0.65 = 53.8 -> 54, D */
        assert_int_equal(s.score, 54);
        assert_int_equal(s.grade, 'D');
}

static void test_dirty_and_dead(void **state) {
        struct resilience_score s;
        (void)state;
        /* A dirty lease: recovery 0.5; (0.35 + 0.35 * 0.5) / 0.7 = 75. */
        resilience_score(
                &(struct resilience_input){ .steps_ok = 1,
                                            .steps_executed = 1,
                                            .leases_dirty = 1,
                                            .end_state_known = true,
                                            .targeted = 1 },
                &s);
        assert_true(s.recovery == 0.5);
        assert_int_equal(s.score, 75);
        /* One of two targets dead: recovery 0.75; (0.35 + 0.35 * 0.75) / 0.7 = 87.5 -> 88. */
        resilience_score(
                &(struct resilience_input){ .steps_ok = 1,
                                            .steps_executed = 1,
                                            .end_state_known = true,
                                            .targeted = 2,
                                            .dead = 1 },
                &s);
        assert_true(s.recovery == 0.75);
        assert_int_equal(s.score, 88);
        /* Dirty and every target dead: floor 0; 0.35 / 0.7 = 50, D. */
        resilience_score(
                &(struct resilience_input){ .steps_ok = 1,
                                            .steps_executed = 1,
                                            .leases_dirty = 2,
                                            .end_state_known = true,
                                            .targeted = 3,
                                            .dead = 3 },
                &s);
        assert_true(s.recovery == 0.0);
        assert_int_equal(s.score, 50);
        assert_int_equal(s.grade, 'D');
        /* Nothing ok, all dead, no survivor: 0, F. */
        resilience_score(
                &(struct resilience_input){ .steps_executed = 1,
                                            .leases_dirty = 1,
                                            .end_state_known = true,
                                            .targeted = 1,
                                            .dead = 1,
                                            .groups_faulted = 1 },
                &s);
        assert_int_equal(s.score, 0);
        assert_int_equal(s.grade, 'F');
}

static void test_count_end_state(void **state) {
        (void)state;
        json_t *p = json_loads(
                "{\"containers\": ["
                "{\"name\": \"api-1\", \"service\": \"api\", \"state\": \"running\", \"targeted\": true},"
                "{\"name\": \"db-1\", \"service\": \"db\", \"state\": \"exited\", \"targeted\": true},"
                "{\"name\": \"web-1\", \"service\": \"web\", \"state\": \"unknown\", \"targeted\": true},"
                "{\"name\": \"web-2\", \"service\": \"web\", \"state\": \"exited\", \"targeted\": false},"
                "{\"name\": \"api-2\", \"service\": \"api\", \"state\": \"running\", \"targeted\": false},"
                "{\"name\": \"pid 7\", \"state\": \"running\", \"targeted\": true}]}",
                0, NULL);
        struct resilience_input in = { 0 };
        assert_non_null(p);
        resilience_count_end_state(p, &in);
        assert_true(in.end_state_known);
        assert_int_equal(in.targeted, 3); /* api-1, db-1, pid 7; web-1 unread */
        assert_int_equal(in.unknown, 1);
        assert_int_equal(in.dead, 1);                 /* db-1 */
        assert_int_equal(in.groups_faulted, 3);       /* api, db, web */
        assert_int_equal(in.groups_with_survivor, 1); /* api-2; web-2 exited; db alone */
        assert_int_equal(in.groups_single, 1);
        json_decref(p);
        /* Not a list: the end state stays unknown. */
        memset(&in, 0, sizeof(in));
        p = json_pack("{s:s}", "containers", "x");
        resilience_count_end_state(p, &in);
        assert_false(in.end_state_known);
        json_decref(p);
}

/* The inputs read from a real database: steps, a dirty lease is absent,
 * the last end-state event wins; the stored JSON reads back. */
static void test_from_sqlite(void **state) {
        char dir[] = "/tmp/sc14-resilience-XXXXXX", path[128], step[EVIDENCE_ID_MAX];
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        struct resilience_input in;
        (void)state;
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/ev.db", dir);
        assert_int_equal(evidence_open(path, &ev, &e), 0);
        struct evidence_run run = { .id = "r-sc14-1",
                                    .name = "sc14",
                                    .kind = "drill",
                                    .plan_json = "{}",
                                    .plan_fingerprint = "x",
                                    .engine = "docker" };
        assert_int_equal(evidence_run_begin(ev, &run, &e), 0);
        assert_int_equal(evidence_step_begin(ev, "r-sc14-1", 1, "fault", "{}", step, &e), 0);
        assert_int_equal(evidence_step_finish(ev, step, "completed", NULL, &e), 0);
        assert_int_equal(evidence_step_begin(ev, "r-sc14-1", 2, "fault", "{}", step, &e), 0);
        assert_int_equal(evidence_step_finish(ev, step, "failed", "x", &e), 0);
        assert_int_equal(evidence_step_begin(ev, "r-sc14-1", 3, "fault", "{}", step, &e), 0);
        assert_int_equal(evidence_step_finish(ev, step, "bypassed", NULL, &e), 0);
        assert_int_equal(
                evidence_event(ev, "r-sc14-1", EVENT_TARGETS_FINAL_STATE, "{\"containers\": []}", &e), 0);
        assert_int_equal(
                evidence_event(
                        ev, "r-sc14-1", EVENT_TARGETS_FINAL_STATE,
                        "{\"containers\": [{\"name\": \"a\", \"service\": \"s\", \"state\": "
                        "\"exited\", \"targeted\": true}]}",
                        &e),
                0);
        assert_int_equal(evidence_resilience_input(ev, "r-sc14-1", &in, &e), 0);
        assert_int_equal(in.steps_ok, 1);
        assert_int_equal(in.steps_executed, 2); /* the bypassed one is not counted */
        assert_int_equal(in.leases_dirty, 0);
        assert_int_equal(in.targeted, 1);
        assert_int_equal(in.dead, 1);
        assert_int_equal(evidence_resilience_store(ev, "r-sc14-1", "{\"score\": 43}", &e), 0);
        assert_int_equal(evidence_resilience_store(ev, "r-none", "{}", &e), -ENOENT);
        assert_int_equal(evidence_resilience_input(ev, "r-none", &in, &e), -ENOENT);
        /* The record inspect run and verify read: the raw plan text, the stored
         * score, the other helpers' tables (empty here). */
        json_t *rec = NULL;
        char long_id[300];
        assert_int_equal(evidence_run_record_json(ev, "r-sc14-1", &rec, &e), 0);
        assert_string_equal(json_string_value(json_object_get(rec, "plan_text")), "{}");
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(rec, "resilience"), "score")), 43);
        assert_int_equal(json_array_size(json_object_get(rec, "slo_outcomes")), 0);
        assert_true(json_is_array(json_object_get(rec, "steady_state_evaluations")));
        assert_int_equal(json_array_size(json_object_get(rec, "steps")), 3);
        json_decref(rec);
        assert_int_equal(evidence_run_record_json(ev, "r-none", &rec, &e), -ENOENT);
        memset(long_id, 'r', sizeof(long_id) - 1);
        long_id[sizeof(long_id) - 1] = '\0';
        assert_int_equal(evidence_run_record_json(ev, long_id, &rec, &e), -EINVAL);
        evidence_close(ev);
        char p2[160];
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
        for (size_t i = 0; i < 4; i++) {
                snprintf(p2, sizeof(p2), "%s%s", path, suffixes[i]);
                (void)unlink(p2);
        }
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_grade_boundaries), cmocka_unit_test(test_boundaries_through_scorer),
                cmocka_unit_test(test_all_components),   cmocka_unit_test(test_omitted),
                cmocka_unit_test(test_dirty_and_dead),   cmocka_unit_test(test_count_end_state),
                cmocka_unit_test(test_from_sqlite),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
