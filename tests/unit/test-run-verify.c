/* `mayhem verify`'s checks (evidence/run-record.h) on a hand-made record,
 * whole and then broken one way each; and `inspect run`'s story of it. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "basic/sha256.h"
#include "evidence/run-record.h"

#define PLAN_TEXT "{\"faults\":[]}"

static json_t *good_record(void) {
        char fp[SHA256_HEX_SIZE];
        sha256_hex(PLAN_TEXT, strlen(PLAN_TEXT), fp);
        json_t *r = json_pack(
                "{s:{s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:b, s:s}]}, s:s, "
                "s:[{s:i, s:s, s:s, s:s, s:s}], "
                "s:[{s:s, s:s, s:s, s:s}], s:[{s:s}], "
                "s:[{s:s, s:{s:s, s:b, s:s}}, {s:s, s:{s:s}}], "
                "s:[{s:s, s:{s:b}, s:b}], "
                "s:[{s:s, s:s, s:{s:f}}, {s:s, s:s, s:{s:f}}], s:{s:i}}",
                "run", "id", "r-sc14", "recorded_status", "completed", "ended_at",
                "2026-12-03T17:00:01.000Z", "plan_fingerprint", fp, "criteria", "type", "probe", "source_id",
                "api", "satisfied", 1, "detail", "ok", "plan_text", PLAN_TEXT, "steps", "seq", 1, "id",
                "s-1", "action_type", "fault", "status", "completed", "ended_at", "2026-12-03T17:00:00.000Z",
                "leases", "id", "l-1", "fault_id", "container.restart", "state", "released", "injected_at",
                "2026-12-03T17:00:00.000Z", "invocations", "lease_id", "l-1", "events", "kind",
                "fault.observed", "payload", "lease", "l-1", "in_force", 1, "detail", "restarted", "kind",
                "run.started", "payload", "fingerprint", fp, "recovery_records", "lease_id", "l-1",
                "undo_results", "ok", 1, "verified", 1, "observations", "source", "api", "timestamp", "t1",
                "data", "value", 3.0, "source", "api", "timestamp", "t2", "data", "value", 1.0, "resilience",
                "score", 100);
        assert_non_null(r);
        return r;
}

/* The checks of rec; ret_failed how many failed; the detail of the one named. */
static size_t verify(const json_t *rec, const char *check, char *detail, size_t size) {
        size_t failed = 99, i;
        json_t *c, *checks = run_verify_json(rec, &failed);
        assert_non_null(checks);
        detail[0] = '\0';
        json_array_foreach(
                checks, i, c) if (strcmp(json_string_value(json_object_get(c, "check")), check) == 0)
                snprintf(
                        detail, size, "%s%s", json_is_true(json_object_get(c, "ok")) ? "ok: " : "FAIL: ",
                        json_string_value(json_object_get(c, "detail")));
        json_decref(checks);
        return failed;
}

static void test_good_record_passes(void **state) {
        char d[1024];
        json_t *rec = good_record();
        (void)state;
        assert_int_equal(verify(rec, "fault l-1", d, sizeof(d)), 0);
        assert_string_equal(
                d, "ok: container.restart: invocation recorded, effect recorded, undo recorded, verify "
                   "passed");
        json_decref(rec);
}

static json_t *first(json_t *rec, const char *list) {
        return json_array_get(json_object_get(rec, list), 0);
}

static void test_open_lease(void **state) {
        char d[1024];
        json_t *rec = good_record();
        (void)state;
        json_object_set_new(first(rec, "leases"), "state", json_string("active"));
        assert_int_equal(verify(rec, "leases closed", d, sizeof(d)), 1);
        assert_string_equal(d, "FAIL: l-1 (container.restart) is active");
        json_decref(rec);
}

static void test_kept_lease_is_said(void **state) {
        char d[1024];
        json_t *rec = good_record();
        (void)state;
        json_object_set_new(first(rec, "leases"), "state", json_string("kept_faulted"));
        json_array_clear(json_object_get(rec, "recovery_records"));
        assert_int_equal(verify(rec, "leases closed", d, sizeof(d)), 0);
        assert_non_null(strstr(d, "1 kept faulted on purpose"));
        verify(rec, "fault l-1", d, sizeof(d));
        assert_non_null(strstr(d, "ok: "));
        assert_non_null(strstr(d, "no undo by design"));
        json_decref(rec);
}

static void test_missing_verify(void **state) {
        char d[1024];
        json_t *rec = good_record();
        (void)state;
        json_object_set_new(first(rec, "recovery_records"), "verified", json_false());
        assert_int_equal(verify(rec, "fault l-1", d, sizeof(d)), 1);
        assert_non_null(strstr(d, "FAIL: "));
        assert_non_null(strstr(d, "verify FAILED"));
        json_array_clear(json_object_get(rec, "recovery_records"));
        assert_int_equal(verify(rec, "fault l-1", d, sizeof(d)), 1);
        assert_non_null(strstr(d, "undo MISSING, verify MISSING"));
        json_decref(rec);
}

static void test_missing_effect(void **state) {
        char d[1024];
        json_t *rec = good_record();
        (void)state;
        json_array_remove(json_object_get(rec, "events"), 0);
        assert_int_equal(verify(rec, "fault l-1", d, sizeof(d)), 1);
        assert_non_null(strstr(d, "effect MISSING"));
        json_decref(rec);
}

static void test_wrong_fingerprint(void **state) {
        char d[1024];
        json_t *rec = good_record();
        (void)state;
        json_object_set_new(rec, "plan_text", json_string("{\"faults\":[1]}"));
        assert_int_equal(verify(rec, "plan fingerprint", d, sizeof(d)), 1);
        assert_non_null(strstr(d, "DIFFERS"));
        json_decref(rec);
}

static void test_unfinished_step_and_run(void **state) {
        char d[1024];
        json_t *rec = good_record();
        (void)state;
        json_object_set_new(first(rec, "steps"), "status", json_string("running"));
        json_object_del(first(rec, "steps"), "ended_at");
        assert_int_equal(verify(rec, "steps finished", d, sizeof(d)), 1);
        assert_string_equal(d, "FAIL: step 1 (s-1) is running with no ended_at");
        json_object_set_new(json_object_get(rec, "run"), "recorded_status", json_string("running"));
        json_object_set_new(json_object_get(rec, "run"), "ended_at", json_null());
        assert_int_equal(verify(rec, "run ended", d, sizeof(d)), 2);
        assert_string_equal(d, "FAIL: status running (not final), ended_at missing");
        json_decref(rec);
}

static void test_story(void **state) {
        json_t *rec = good_record(), *s = run_story_json(rec);
        (void)state;
        assert_non_null(s);
        json_t *obs = json_array_get(json_object_get(s, "observations"), 0);
        assert_int_equal(json_integer_value(json_object_get(obs, "count")), 2);
        assert_string_equal(json_string_value(json_object_get(obs, "first")), "t1");
        assert_string_equal(json_string_value(json_object_get(obs, "last")), "t2");
        assert_true(json_number_value(json_object_get(obs, "min")) == 1.0);
        assert_true(json_number_value(json_object_get(obs, "max")) == 3.0);
        json_t *byk = json_object_get(s, "events_by_kind");
        assert_int_equal(json_integer_value(json_object_get(byk, "fault.observed")), 1);
        assert_int_equal(json_integer_value(json_object_get(byk, "run.started")), 1);
        json_t *l = json_array_get(json_object_get(s, "leases"), 0);
        assert_true(json_is_true(json_object_get(json_object_get(l, "effect"), "in_force")));
        assert_true(json_is_true(json_object_get(json_object_get(l, "recovery"), "verified")));
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(s, "resilience"), "score")), 100);
        assert_int_equal(json_array_size(json_object_get(s, "criteria")), 1);
        json_decref(s);
        json_decref(rec);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_good_record_passes),      cmocka_unit_test(test_open_lease),
                cmocka_unit_test(test_kept_lease_is_said),      cmocka_unit_test(test_missing_verify),
                cmocka_unit_test(test_missing_effect),          cmocka_unit_test(test_wrong_fingerprint),
                cmocka_unit_test(test_unfinished_step_and_run), cmocka_unit_test(test_story),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
