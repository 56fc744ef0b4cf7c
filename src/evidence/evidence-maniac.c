/* The maniac's draws (table maniac_draws, migration 4): written once, when
 * the run row exists and before anything is injected, and read back to
 * replay a run. */

#include "evidence.h"

#include "evidence-internal.h"

static int check_draw(const char *op, const struct evidence_maniac_draw *d, struct mh_error *reterr) {
        int r;
        if ((r = evidence_check_str(op, "container", d->container, reterr)) < 0 ||
            (r = evidence_check_str(op, "fault id", d->fault_id, reterr)) < 0 ||
            (r = evidence_check_json(op, "params_json", d->params_json, JSON_REQUIRED, reterr)) < 0)
                return r;
        if (d->seq < 1 || d->level < 1 || d->level > 5 || d->duration_ms < 0 || d->at_ms < 0)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: invalid draw %d (level %d, duration %lld ms, at %lld ms)", op, d->seq, d->level,
                        (long long)d->duration_ms, (long long)d->at_ms);
        return 0;
}

int evidence_maniac_draws_record(
        struct evidence *ev, const char *run_id, const struct evidence_maniac_draw *draws, size_t n,
        struct mh_error *reterr) {
        static const char op[] = "recording the maniac's draws";
        int r = evidence_check_str(op, "run id", run_id, reterr);
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = check_draw(op, &draws[i], reterr);
        if (r < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = evidence_run_status_get(ev, op, run_id, NULL, reterr)) < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                const struct evidence_maniac_draw *d = &draws[i];
                r = evidence_exec(
                        ev, op, reterr,
                        "INSERT INTO maniac_draws (run_id, seq, seed, level, container, fault_id, "
                        "params_json, "
                        "duration_ms, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        "tiIitttII", run_id, d->seq, d->seed, d->level, d->container, d->fault_id,
                        d->params_json, d->duration_ms, d->at_ms);
                if (r < 0)
                        return r;
        }
        return evidence_commit(&txn, op, reterr);
}

static json_t *draw_json(sqlite3_stmt *st) {
        return json_pack(
                "{s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:I}", "seq", (json_int_t)sqlite3_column_int64(st, 0),
                "seed", (json_int_t)sqlite3_column_int64(st, 1), "level",
                (json_int_t)sqlite3_column_int64(st, 2), "container", evidence_column_string(st, 3),
                "fault_id", evidence_column_string(st, 4), "params", evidence_column_json(st, 5),
                "duration_ms", (json_int_t)sqlite3_column_int64(st, 6), "at_ms",
                (json_int_t)sqlite3_column_int64(st, 7));
}

int evidence_maniac_draws_json(
        struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr) {
        static const char op[] = "reading the maniac's draws";
        int r = evidence_check_str(op, "run id", run_id, reterr);
        if (r < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        if ((r = evidence_begin_read(ev, &txn, op, reterr)) < 0 ||
            (r = evidence_run_status_get(ev, op, run_id, NULL, reterr)) < 0 ||
            (r = evidence_prepare(
                     ev, op, &st, reterr,
                     "SELECT seq, seed, level, container, fault_id, params_json, duration_ms, at_ms "
                     "FROM maniac_draws WHERE run_id = ? ORDER BY seq",
                     "t", run_id)) < 0)
                return r;
        _cleanup_(json_decrefp) json_t *a = json_array();
        if (!a)
                return mh_error_set(
                        reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", op);
        while ((r = evidence_step(ev, st, op, reterr)) > 0)
                if (json_array_append_new(a, draw_json(st)) < 0)
                        return mh_error_set(
                                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", op);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}
