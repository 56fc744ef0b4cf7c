#include "evidence/evidence.h"

#include <math.h>

#include "evidence-internal.h"

/* steady_state_baselines and steady_state_evaluations rows (migration 5). */

int evidence_ss_baseline(
        struct evidence *ev, const char *run_id, const char *signal, const char *source_id, int64_t samples,
        double baseline, const char *values_json, struct mh_error *reterr) {
        static const char op[] = "recording a steady-state baseline";
        char b[32];
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "signal", signal, reterr)) < 0 ||
            (r = evidence_check_str(op, "source id", source_id, reterr)) < 0 ||
            (r = evidence_check_json(op, "values_json", values_json, JSON_REQUIRED, reterr)) < 0)
                return r;
        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr,
                "INSERT OR REPLACE INTO steady_state_baselines (run_id, signal, source_id, samples, "
                "values_json, baseline) VALUES (?, ?, ?, ?, ?, CAST(? AS REAL))",
                "tttItt", run_id, signal, source_id, samples, values_json, evidence_real_text(baseline, b));
        if (r == -ENOENT)
                return evidence_no_run(op, run_id, reterr);
        return r < 0 ? r : 0;
}

int evidence_ss_baseline_get(
        struct evidence *ev, const char *run_id, const char *signal, double *ret, struct mh_error *reterr) {
        static const char op[] = "reading a steady-state baseline";
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "signal", signal, reterr)) < 0)
                return r;
        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT baseline FROM steady_state_baselines WHERE run_id = ? AND signal = ?", "tt", run_id,
                signal);
        if (r < 0 || (r = evidence_step(ev, st, op, reterr)) <= 0)
                return r;
        *ret = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
        return 1;
}

int evidence_ss_evaluation(
        struct evidence *ev, const char *run_id, const struct evidence_ss_evaluation *e,
        struct mh_error *reterr) {
        static const char op[] = "recording a steady-state evaluation";
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_json(op, "measured_json", e->measured_json, JSON_REQUIRED, reterr)) < 0 ||
            (r = evidence_check_json(op, "expectation_json", e->expectation_json, JSON_REQUIRED, reterr)) <
                    0)
                return r;
        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO steady_state_evaluations (run_id, phase, assertion, signal, severity, verdict, "
                "passed, measured_json, expectation_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                "ttttttbtt", run_id, e->phase, e->assertion, e->signal, e->severity, e->verdict, e->passed,
                e->measured_json, e->expectation_json);
        if (r == -ENOENT)
                return evidence_no_run(op, run_id, reterr);
        return r < 0 ? r : 0;
}
