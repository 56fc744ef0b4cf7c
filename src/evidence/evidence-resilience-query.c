/* The resilience score's inputs read from a run's rows, and its column
 * (resilience.h). */

#include "resilience.h"

#include <string.h>

#include "evidence-internal.h"

#define END_STATE_MAX 4096 /* containers counted from one end-state payload */

static bool is_running(const json_t *c) {
        const char *state = json_string_value(json_object_get(c, "state"));
        return state && strcmp(state, "running") == 0;
}

static bool is_unknown(const json_t *c) {
        const char *state = json_string_value(json_object_get(c, "state"));
        return !state || strcmp(state, "unknown") == 0;
}

static bool is_targeted(const json_t *c) {
        return json_is_true(json_object_get(c, "targeted"));
}

/* Whether an earlier targeted entry already named this service. */
static bool service_seen(const json_t *list, size_t before, const char *service) {
        for (size_t j = 0; j < before; j++) {
                const json_t *c = json_array_get(list, j);
                const char *s = json_string_value(json_object_get(c, "service"));
                if (is_targeted(c) && s && strcmp(s, service) == 0)
                        return true;
        }
        return false;
}

static void count_group(const json_t *list, size_t n, const char *service, struct resilience_input *in) {
        size_t members = 0, survivors = 0;
        for (size_t j = 0; j < n; j++) {
                const json_t *c = json_array_get(list, j);
                const char *s = json_string_value(json_object_get(c, "service"));
                if (!s || strcmp(s, service) != 0)
                        continue;
                members++;
                survivors += !is_targeted(c) && is_running(c);
        }
        in->groups_faulted++;
        in->groups_single += members == 1;
        in->groups_with_survivor += members > 1 && survivors > 0;
}

void resilience_count_end_state(const json_t *payload, struct resilience_input *in) {
        const json_t *list = json_object_get(payload, "containers");
        size_t n = json_array_size(list);
        if (!json_is_array(list))
                return;
        in->end_state_known = true;
        if (n > END_STATE_MAX)
                n = END_STATE_MAX;
        for (size_t i = 0; i < n; i++) {
                const json_t *c = json_array_get(list, i);
                const char *service = json_string_value(json_object_get(c, "service"));
                if (!json_is_object(c) || !is_targeted(c))
                        continue;
                if (is_unknown(c))
                        in->unknown++;
                else {
                        in->targeted++;
                        in->dead += !is_running(c);
                }
                if (service && !service_seen(list, i, service))
                        count_group(list, n, service, in);
        }
}

static int count_steps(
        struct evidence *ev, const char *run_id, struct resilience_input *in, struct mh_error *reterr) {
        const char *op = "reading the run's steps";
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT count(*) FILTER (WHERE status = 'completed'), count(*) FILTER (WHERE status NOT IN "
                "('pending', 'running', 'skipped', 'bypassed')), (SELECT count(*) FROM fault_leases WHERE "
                "run_id = ?1 AND state = 'dirty') FROM step_runs WHERE run_id = ?1",
                "t", run_id);
        if (r < 0 || (r = evidence_step(ev, st, op, reterr)) <= 0)
                return r < 0 ? r : evidence_fail(ev, SQLITE_CORRUPT, op, reterr);
        in->steps_ok = (size_t)sqlite3_column_int64(st, 0);
        in->steps_executed = (size_t)sqlite3_column_int64(st, 1);
        in->leases_dirty = (size_t)sqlite3_column_int64(st, 2);
        return 0;
}

static int read_end_state(
        struct evidence *ev, const char *run_id, struct resilience_input *in, struct mh_error *reterr) {
        const char *op = "reading the run's end state";
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT payload_json FROM events WHERE run_id = ? AND kind = ? ORDER BY id DESC LIMIT 1",
                "tt", run_id, RESILIENCE_EVENT);
        if (r < 0 || (r = evidence_step(ev, st, op, reterr)) <= 0)
                return r;
        json_t *payload = evidence_column_json(st, 0);
        resilience_count_end_state(payload, in);
        json_decref(payload);
        return 0;
}

int evidence_resilience_input(
        struct evidence *ev, const char *run_id, struct resilience_input *ret, struct mh_error *reterr) {
        struct resilience_input in = { 0 };
        EVIDENCE_LOCK_SCOPE(ev);
        int r = evidence_run_status_get(ev, "reading the run's resilience", run_id, NULL, reterr);
        if (r < 0 || (r = count_steps(ev, run_id, &in, reterr)) < 0 ||
            (r = read_end_state(ev, run_id, &in, reterr)) < 0)
                return r;
        *ret = in;
        return 0;
}

int evidence_resilience_store(
        struct evidence *ev, const char *run_id, const char *json_text, struct mh_error *reterr) {
        const char *op = "recording the run's resilience score";
        int r = evidence_check_json(op, "resilience", json_text, JSON_REQUIRED, reterr);
        if (r < 0)
                return r;
        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = evidence_run_status_get(ev, op, run_id, NULL, reterr)) < 0 ||
            (r = evidence_exec(
                     ev, op, reterr, "UPDATE runs SET resilience_json = ? WHERE id = ?", "tt", json_text,
                     run_id)) < 0)
                return r;
        return evidence_commit(&txn, op, reterr);
}
