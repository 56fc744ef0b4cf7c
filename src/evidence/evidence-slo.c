#include "evidence/evidence.h"

#include <math.h>

#include "evidence-internal.h"

/* slo_outcomes rows and runs.observation_provenance (migration 5). */

static int bind_real(
        struct evidence *ev, sqlite3_stmt *st, int i, double v, const char *op, struct mh_error *e) {
        int rc = isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
        return rc == SQLITE_OK ? 0 : evidence_fail(ev, rc, op, e);
}

int evidence_slo_outcome(
        struct evidence *ev, const char *run_id, const struct evidence_slo_outcome *o,
        struct mh_error *reterr) {
        static const char op[] = "recording an SLO outcome";
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "SLO name", o->name, reterr)) < 0 ||
            (r = evidence_check_str(op, "SLO reason", o->reason, reterr)) < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_prepare(
                ev, op, &st, reterr,
                "INSERT INTO slo_outcomes (run_id, name, kind, metric, operator, unit, window_s, samples, "
                "passed, reason, threshold, observed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                "ttttttIIbt", run_id, o->name, o->kind, o->metric, o->op, o->unit, o->window_s, o->samples,
                o->passed, o->reason);
        if (r < 0 || (r = bind_real(ev, st, 11, o->threshold, op, reterr)) < 0 ||
            (r = bind_real(ev, st, 12, o->observed, op, reterr)) < 0)
                return r;
        r = evidence_step(ev, st, op, reterr);
        if (r == -ENOENT)
                return evidence_no_run(op, run_id, reterr);
        return r < 0 ? r : 0;
}

int evidence_run_provenance(
        struct evidence *ev, const char *run_id, const char *provenance_json, struct mh_error *reterr) {
        static const char op[] = "recording the run's observation provenance";
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_json(op, "observation_provenance", provenance_json, JSON_REQUIRED, reterr)) <
                    0)
                return r;
        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr, "UPDATE runs SET observation_provenance = ? WHERE id = ?", "tt",
                provenance_json, run_id);
        if (r == 0)
                return evidence_no_run(op, run_id, reterr);
        return r < 0 ? r : 0;
}
