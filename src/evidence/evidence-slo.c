#include "evidence/evidence.h"

#include <math.h>
#include <stdio.h>

#include "evidence-internal.h"

/* slo_outcomes rows and runs.observation_provenance (migration 5). */

/* A REAL bound as text (evidence_prepare binds no doubles): NULL when not finite. */
const char *evidence_real_text(double v, char buf[32]) {
        if (!isfinite(v))
                return NULL;
        snprintf(buf, 32, "%.17g", v);
        return buf;
}

int evidence_slo_outcome(
        struct evidence *ev, const char *run_id, const struct evidence_slo_outcome *o,
        struct mh_error *reterr) {
        static const char op[] = "recording an SLO outcome";
        char threshold[32], observed[32];
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "SLO name", o->name, reterr)) < 0 ||
            (r = evidence_check_str(op, "SLO reason", o->reason, reterr)) < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO slo_outcomes (run_id, name, kind, metric, operator, unit, window_s, samples, "
                "passed, reason, threshold, observed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS "
                "REAL), "
                "CAST(? AS REAL))",
                "ttttttIIbttt", run_id, o->name, o->kind, o->metric, o->op, o->unit, o->window_s, o->samples,
                o->passed, o->reason, evidence_real_text(o->threshold, threshold),
                evidence_real_text(o->observed, observed));
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
