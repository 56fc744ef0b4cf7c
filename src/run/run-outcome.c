#include "run.h"

/* docs/drill-format.md "Status, verdict and exit code" is this file's
 * contract; tests/unit/test-outcome.c reads that table and holds the two
 * functions below to it. */

/* A verdict is decided only for a run that did what the drill said: a
 * failed or aborted run judged nothing that was meant, whatever its
 * criteria say (their results stay in criteria_json). */
void run_outcome_settle(struct run_result *r) {
        if (r->status != RUN_STATUS_COMPLETED)
                r->verdict = VERDICT_UNDECIDED;
}

int run_exit_code(const struct run_result *r) {
        if (r->leases_dirty || r->leases_orphaned || (r->evidence_lost && r->faults_attempted))
                return MH_EXIT_RECOVERY_FAILURE;
        if (r->evidence_lost) /* before anything was touched */
                return MH_EXIT_CONFIG_ERROR;
        if (r->refused)
                return MH_EXIT_SAFETY_REFUSAL;
        if (r->status != RUN_STATUS_COMPLETED)
                return MH_EXIT_EXPERIMENT_FAILURE;
        return r->verdict == VERDICT_FAIL ? MH_EXIT_GENERAL_FAILURE : MH_EXIT_SUCCESS;
}
