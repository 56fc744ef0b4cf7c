#pragma once

/* The janitor and `mayhem recover` (reference §5.7-5.8): leases that no live
 * controller owns any more are undone through a fresh local agent from what
 * the journal holds (undo ops + the live identity recorded before the fault),
 * then verified. Recovery is complete only when the verify probes pass;
 * otherwise the lease is dirty with notes saying what to fix by hand. Undo is
 * idempotent, so a lease the agent's dead-man's switch already undid is
 * simply verified and released. */

#include <jansson.h>
#include <stdbool.h>

#include "basic/error.h"
#include "evidence/evidence.h"

enum recovery_mode {
        RECOVERY_JANITOR, /* every lease whose controller is gone, whose run ended, or whose TTL passed */
        RECOVERY_RUNS,    /* every open lease of the given runs */
};

struct recovery_options {
        enum recovery_mode mode;
        bool execute;               /* false: say what would be done */
        const char *const *run_ids; /* RECOVERY_RUNS */
        size_t n_run_ids;
        bool force;            /* RECOVERY_RUNS: even when the run's controller is alive */
        const char *mechanism; /* journal release_mechanism: "janitor" or "manual" */
        /* One line per lease (no newline), or NULL. */
        void (*progress)(void *userdata, const char *line);
        void *progress_userdata;
};

struct recovery_result {
        size_t considered, recovered, dirty, skipped, runs_closed;
        json_t *leases; /* [{lease, fault, run, state, action, compensate[], probe[], outcome, notes}] */
};

int recovery_run(
        struct evidence *ev, const struct recovery_options *o, struct recovery_result *ret,
        struct mh_error *reterr);
void recovery_result_done(struct recovery_result *r);
