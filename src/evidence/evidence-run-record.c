/* The record of one run: its history plus the columns and tables `inspect
 * run` and `verify` need beyond it (run-record.h). */

#include "run-record.h"

#include <string.h>

#include "evidence-internal.h"

#define RUN_ID_MAX 256

static int json_fail(const char *op, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "evidence",
                "%s: cannot build JSON (out of memory, or text that is not UTF-8)", op);
}

static json_t *column_value(sqlite3_stmt *st, int col) {
        const char *name = sqlite3_column_name(st, col);
        size_t n = name ? strlen(name) : 0;
        switch (sqlite3_column_type(st, col)) {
        case SQLITE_INTEGER: return json_integer((json_int_t)sqlite3_column_int64(st, col));
        case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, col));
        case SQLITE_NULL: return json_null();
        default:
                return n > 5 && strcmp(name + n - 5, "_json") == 0 ? evidence_column_json(st, col)
                                                                   : evidence_column_string(st, col);
        }
}

static int table_exists(struct evidence *ev, const char *op, const char *table, struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", "t",
                table);
        return r < 0 ? r : evidence_step(ev, st, op, reterr);
}

/* Every row of table for the run, columns by name, at most RUN_RECORD_ROWS_MAX. */
static int table_rows(
        struct evidence *ev, const char *op, const char *table, const char *run_id, json_t *into,
        struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        char sql[128];
        json_t *a = json_array();
        int r;
        if (!a || json_object_set_new(into, table, a) < 0)
                return json_fail(op, reterr);
        if ((r = table_exists(ev, op, table, reterr)) <= 0)
                return r;
        snprintf(
                sql, sizeof(sql), "SELECT * FROM %s WHERE run_id = ? ORDER BY id LIMIT %d", table,
                RUN_RECORD_ROWS_MAX);
        if ((r = evidence_prepare(ev, op, &st, reterr, sql, "t", run_id)) < 0)
                return r;
        while ((r = evidence_step(ev, st, op, reterr)) > 0) {
                json_t *row = json_object();
                for (int c = 0; row && c < sqlite3_column_count(st); c++)
                        json_object_set_new(row, sqlite3_column_name(st, c), column_value(st, c));
                if (json_array_append_new(a, row) < 0)
                        return json_fail(op, reterr);
        }
        return r;
}

static int run_columns(
        struct evidence *ev, const char *op, const char *run_id, int version, json_t *into,
        struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                version >= 5 ? "SELECT plan_json, resilience_json, seed FROM runs WHERE id = ?"
                             : "SELECT plan_json, NULL, seed FROM runs WHERE id = ?",
                "t", run_id);
        if (r < 0 || (r = evidence_step(ev, st, op, reterr)) < 0)
                return r;
        if (r == 0)
                return evidence_no_run(op, run_id, reterr);
        if (json_object_set_new(into, "plan_text", evidence_column_string(st, 0)) < 0 ||
            json_object_set_new(into, "resilience", evidence_column_json(st, 1)) < 0 ||
            json_object_set_new(into, "seed", column_value(st, 2)) < 0)
                return json_fail(op, reterr);
        return 0;
}

int evidence_run_record_json(
        struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr) {
        static const char op[] = "reading a run's record";
        _cleanup_(json_decrefp) json_t *h = NULL;
        int r = evidence_check_str(op, "run id", run_id, reterr);
        if (r < 0)
                return r;
        if (strlen(run_id) > RUN_ID_MAX)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_USAGE_ERROR, "evidence",
                        "%s: a run id is at most %d characters", op, RUN_ID_MAX);
        int version = 0;
        if ((r = evidence_schema_version(ev, &version, reterr)) < 0 ||
            (r = evidence_history_json(ev, run_id, &h, reterr)) < 0)
                return r;
        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin_read(ev, &txn, op, reterr)) < 0 ||
            (r = run_columns(ev, op, run_id, version, h, reterr)) < 0 ||
            (r = table_rows(ev, op, "slo_outcomes", run_id, h, reterr)) < 0 ||
            (r = table_rows(ev, op, "steady_state_evaluations", run_id, h, reterr)) < 0 ||
            (r = evidence_commit(&txn, op, reterr)) < 0)
                return r;
        *ret = TAKE_PTR(h);
        return 0;
}
