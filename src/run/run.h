#pragma once

/* Executes a frozen plan: for every fault, a write-ahead lease, injection, an
 * effect check, the hold, the undo, the verify, the release; checks and waits
 * between; observability probes throughout; then criteria and a verdict. All
 * of it lands in the evidence store. SIGINT/SIGTERM (or config.timeout) stop
 * the run and undo every active lease before run_execute() returns. */

#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"
#include "engine/engine.h"
#include "evidence/evidence.h"
#include "evidence/lease.h"
#include "plan/plan.h"

enum run_status {
        RUN_STATUS_COMPLETED,
        RUN_STATUS_FAILED,
        RUN_STATUS_ABORTED,
        _RUN_STATUS_MAX,
};

enum verdict {
        VERDICT_PASS,
        VERDICT_FAIL,
        VERDICT_UNDECIDED,
        _VERDICT_MAX,
};

struct criterion_result {
        const struct drill_criterion *criterion;
        bool satisfied;
        size_t samples; /* judged: the source's samples in the criterion's window */
        char detail[256];
};

/* One SLO as judged (slo.c): the observed value (NAN: none), over how many samples. */
struct slo_result {
        const struct drill_slo *slo;
        bool passed;
        double observed;
        size_t samples;
        char detail[256]; /* "p95=12.3ms lte 300ms (14 samples in 60s)", or why it could not be judged */
};

/* One steady-state assertion on one signal in one phase (steady-state.c). */
enum ss_verdict {
        SS_VERDICT_AS_HYPOTHESISED,
        SS_VERDICT_DEGRADED_WITHIN,
        SS_VERDICT_DEGRADED_BEYOND,
        SS_VERDICT_NO_EFFECT,
        SS_VERDICT_NOT_RECOVERED,
        SS_VERDICT_INSUFFICIENT, /* no verdict: the table's NULL */
        _SS_VERDICT_MAX,
};

enum ss_assertion {
        SS_ASSERT_UNCHANGED,
        SS_ASSERT_DEGRADED,
        SS_ASSERT_RECOVERED,
        _SS_ASSERT_MAX,
};

struct ss_evaluation {
        const struct drill_ss_signal *signal;
        enum ss_phase phase;
        enum ss_assertion assertion;
        enum ss_verdict verdict;
        bool passed;
        double d, b, delta_pct; /* NAN: none */
        size_t samples;         /* the phase's finite samples */
        char reason[160];
};

struct run_result {
        char run_id[PLAN_RUN_ID_MAX];
        enum run_status status;
        enum verdict verdict;
        struct criterion_result *criteria; /* malloc()ed, n_criteria entries */
        size_t n_criteria;
        struct slo_result *slos; /* malloc()ed, n_slos entries */
        size_t n_slos;
        struct ss_evaluation *ss; /* malloc()ed, n_ss entries */
        size_t n_ss;
        size_t faults_attempted; /* sent to the agent to inject: from here on a target may be touched */
        size_t faults_injected, faults_in_force, faults_released, leases_dirty, leases_kept, leases_orphaned;
        /* Of those in force: the effect itself seen from the target's
         * namespaces (proven), or not observable there (only its mechanism seen). */
        size_t faults_proven, faults_unobserved;
        /* Not injected on purpose, no lease: the impact gate found no way to
         * deliver them on the agent's kernel (bypassed), or --ctr left them out
         * (skipped). Neither is in force, so the verdict does not cover them. */
        size_t faults_bypassed, faults_skipped;
        bool evidence_lost; /* an evidence write failed: the journal may not hold what happened */
        bool refused;       /* a fault was refused for safety (it conflicts with an open lease) */
        size_t sources_total, sources_collected;
        size_t samples, samples_late, samples_skipped; /* of the observability sources' schedules */
        double wall_s;
        char reason[256]; /* why the run failed or was aborted */
        /* The resilience score's line (evidence/resilience.h) and its JSON as
         * stored in runs.resilience_json (NULL when not computed; freed by
         * run_result_done()). */
        char resilience[384];
        json_t *resilience_json;
};

/* What a live display shows of one fault (src/cli/progress-live.c). */
enum run_fault_phase {
        RUN_FAULT_INJECTING,
        RUN_FAULT_HOLDING, /* in force, held until hold_until_ms */
        RUN_FAULT_UNDOING,
        RUN_FAULT_ENDED, /* undone, kept, or failed: off the display */
};

struct run_fault_status {
        const char *fault_id, *fault, *target;
        enum run_fault_phase phase;
        double hold_until_ms; /* monotonic_ms() clock; HOLDING only */
};

/* A probe's sample as the run recorded it (a check or an observability source). */
struct run_probe_status {
        const char *source;
        bool ok;
        double latency_ms;
        const char *detail;
};

/* A measured number as JSON: null where nothing was measured (NAN, inf). */
json_t *run_number_json(double v);

struct run_options {
        struct evidence *evidence;
        struct engine *engine; /* NULL when every target is a host process */
        /* Live step lines, one call each (no newline); NULL: none. Called
         * from the run's threads, one at a time. */
        void (*progress)(void *userdata, const char *line);
        void *progress_userdata;
        /* A fault's phase changed, a probe sampled: for a live display, under
         * the same lock as progress; NULL: none. */
        void (*on_fault)(void *userdata, const struct run_fault_status *s);
        void (*on_probe)(void *userdata, const struct run_probe_status *s);
        const char *agent_ssh; /* NULL: a local agent; else "user@host" or "ssh://user@host[:port]" */
        const char *const *agent_ssh_args; /* extra ssh options, NULL-terminated, or NULL */
        const char *agent_remote_path;     /* mayhem-agent on the ssh host; NULL: from its PATH */
        const char *spec_json;
        const char *kind; /* the run row's kind: NULL "drill", or "random" (mayhem maniac) */
        bool has_seed;    /* a random run's seed, for the run row */
        int64_t seed;
        /* Called once the run row is recorded, before the first lease: what
         * the caller keeps with the run (the maniac's draws). A failure ends
         * the run "failed" with nothing touched. NULL: none. */
        int (*on_begin)(void *userdata, struct evidence *ev, const char *run_id, struct mh_error *reterr);
        void *on_begin_userdata;
        /* Recorded in the run row (docs/run-options.md): "explicit" for
         * --execute, NULL for MAYHEM_ALLOW_IMPLICIT_EXECUTION; the environment
         * fingerprint; NULL, "skip_gate" or "skip_gate+override". */
        const char *execution_intent, *env_fingerprint, *break_glass, *config_json;
        /* --skip-gate: a network fault the impact gate finds no delivery for
         * is attempted anyway (its apply then fails honestly) instead of
         * bypassed. */
        bool skip_gate;
        /* --ctr: only faults on these containers run; the others are skipped
         * (said so, no lease). NULL: all. */
        const char *const *only_containers;
        size_t n_only_containers;
        /* --baseline-from: the run whose steady_state_baselines grade this
         * one (a pre capture still runs for a pre phase). NULL: none. */
        const char *baseline_from;
};

int run_execute(
        const struct plan *plan, const struct run_options *opt, struct run_result *ret,
        struct mh_error *reterr);
void run_result_done(struct run_result *r);
/* Whether --ctr (opt->only_containers) lets the run touch target t: always
 * without a scope; a host process never with one. */
bool run_target_in_scope(const struct run_options *opt, const struct plan_target *t);

/* The reference's summary ("# Run r-...", status, verdict, criteria, wall). */
char *run_summary_markdown(const struct plan *plan, const struct run_result *r);
/* The verdict a run's status allows: undecided unless it completed. */
void run_outcome_settle(struct run_result *r);
/* 0 pass or no criteria, 1 criteria failed, 3 the evidence store failed
 * before anything was touched, 5 a fault refused for safety, 6 run
 * incomplete, 7 something left dirty or orphaned, or the evidence store
 * failed after a fault was sent. */
int run_exit_code(const struct run_result *r);

const char *run_status_to_string(enum run_status s);
const char *verdict_to_string(enum verdict v);
