#pragma once

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "plan/impact.h"
#include "probe/probe.h"
#include "run.h"

#define RUN_DETAIL_MAX 512

enum obs_kind_value {
        OBS_VALUE_BOOLEAN,
        OBS_VALUE_STATUS,
        OBS_VALUE_COUNT,
        OBS_VALUE_LATENCY,
        OBS_VALUE_METRIC,
};

/* A sample, with when it was taken (monotonic ms): it began at began_ms
 * and was recorded at t_ms. The fault windows judge it by both. */
struct observation {
        char *source;
        enum obs_kind_value kind;
        double value;
        double began_ms, t_ms;
        bool error; /* a derived value the probe failed to measure (a .latency_ms of no reply) */
};

/* When one plan fault touched its target (monotonic ms, INFINITY: never):
 * sent to the agent to inject, held (the agent said applied) until its undo
 * was sent, undone once the undo was verified. */
struct fault_window {
        double sent, held_from, held_until, undone;
};

enum window_mark {
        WINDOW_MARK_SENT,
        WINDOW_MARK_HELD,
        WINDOW_MARK_UNDOING,
        WINDOW_MARK_UNDONE,
};

/* A repeating source's schedule: slot k is due at start + k * period, from
 * the observer's start; a once-only source (period 0) has slot 0 only. */
struct cadence {
        double start_ms, period_ms;
        uint64_t slot; /* the next slot to take */
        bool once_done;
        size_t samples, late, skipped;
};

/* How one plan fault ended, for its step's status (run-steps.c). */
enum fault_outcome {
        FAULT_OUTCOME_NONE,        /* not reached (the run stopped first) */
        FAULT_OUTCOME_OK,          /* injected, held, undone, verified (or kept on purpose) */
        FAULT_OUTCOME_FAILED,      /* something after the apply failed */
        FAULT_OUTCOME_NOT_APPLIED, /* the agent's apply failed: nothing was changed */
        FAULT_OUTCOME_BYPASSED,    /* the impact gate found no delivery on the agent's kernel */
        FAULT_OUTCOME_SKIPPED,     /* outside --ctr */
};

struct runner {
        const struct plan *plan;
        const struct run_options *opt;
        struct run_result *result;
        struct agent_client *agent;
        const char *engine_kind; /* "docker", "podman"; NULL when every target is a host process */
        int *delivery; /* per plan fault: enum net_delivery, -1 for faults that are not network faults */
        /* per plan fault: why the impact gate bypasses it (malloc()ed), NULL
         * when it runs; decided before the first lease (run-agent.c) */
        char **bypass;
        enum fault_outcome *outcome; /* per plan fault, set by its lane (run-fault.c) */
        char run_id[PLAN_RUN_ID_MAX];
        double t0_ms, deadline_ms;
        double steps_end_ms; /* when the last step ended (the SLOs' windows end there) */
        /* run-steady.c: r->obs[pre_from, pre_to) is the pre capture, [post_from,
         * post_to) the post one; given_b, per signal, the --baseline-from baselines */
        size_t ss_pre_from, ss_pre_to, ss_post_from, ss_post_to;
        bool ss_post_taken;
        double *ss_given_b;

        pthread_mutex_t lock; /* guards everything below, and wakes sleepers */
        pthread_cond_t wake;
        atomic_bool abort;
        bool failed;        /* a step failed: the run cannot end "completed" */
        bool evidence_lost; /* an evidence write failed: the run cannot end "completed" */
        bool refused;       /* a safety refusal stopped a fault (a conflicting lease) */
        bool interrupted;   /* stopped by a signal or config.timeout: "aborted" */
        char reason[256];
        struct observation *obs;
        size_t n_obs, obs_cap;
        bool observer_done;
        struct fault_window *windows; /* per plan fault */
        json_t *kept; /* [{fault: plan index, lease_id, lease}]: the faults kept in force (run-fault.c) */
};

/* run-control.c: abort, deadline, interruptible sleep, progress lines. */
/* Stops the run (undo still runs): abort after a failure, interrupt for a signal or the timeout. */
void runner_abort(struct runner *r, const char *fmt, ...) _printf_(2, 3);
void runner_interrupt(struct runner *r, const char *fmt, ...) _printf_(2, 3);
void runner_fail(struct runner *r, const char *fmt, ...) _printf_(2, 3);
/* runner_fail() for a safety refusal (a conflicting lease): the run exits 5. */
void runner_refused(struct runner *r, const char *fmt, ...) _printf_(2, 3);
bool runner_stopping(struct runner *r);
/* Sleeps up to ms; returns false when the run is stopping. */
bool runner_sleep(struct runner *r, double ms);
/* With r->lock held: waits on r->wake until until_ms (monotonic) or a wake-up. */
void runner_wait_locked(struct runner *r, double until_ms);
/* For the live display (run_options.on_fault / on_probe); no-ops without one. */
void runner_fault_phase(struct runner *r, const struct plan_fault *f, enum run_fault_phase phase);
void runner_probe_sampled(struct runner *r, const char *source, const struct probe_result *pr);
void runner_progress(struct runner *r, const char *fmt, ...) _printf_(2, 3);
int runner_signals_start(struct runner *r, pthread_t *ret_thread, sigset_t *ret_old);
void runner_signals_stop(pthread_t thread, const sigset_t *old);
/* Records an event (payload stolen). A write that fails is not dropped: the
 * run cannot end "completed", and the reason says which write failed. */
int runner_event(struct runner *r, enum evidence_event_kind kind, json_t *payload);
/* The same for any evidence write that failed (r < 0, what names it). */
void runner_evidence_failed(struct runner *r, const char *what, const struct mh_error *e);
/* Whether an evidence write failed: undo then goes first, the journal after. */
bool runner_evidence_lost(struct runner *r);

/* run-observe.c */
void runner_observe(
        struct runner *r, const char *source, enum obs_kind_value kind, double value, const char *detail);
/* The same for a sample that began at began_ms (monotonic). */
void runner_observe_at(
        struct runner *r, double began_ms, const char *source, enum obs_kind_value kind, double value,
        const char *detail);
void runner_observe_probe(
        struct runner *r, const char *id, const struct drill_probe *p, const struct probe_result *pr);
int runner_observer_start(struct runner *r, pthread_t *ret);
void runner_observer_stop(struct runner *r, pthread_t thread);
/* run-logs.c: every logs source once, after the steps, within total_timeout. */
void runner_collect_logs(struct runner *r);
const struct observation *runner_latest(struct runner *r, const char *source);

/* run-check-remote.c: a check's probe, run where its execution says: on
 * this host (probe_run), or through the agent from the container the plan
 * resolved (probe.run), bounded by the probe's timeout plus a margin; a
 * check that cannot run is a failed result with the reason. */
void runner_check_probe(struct runner *r, const struct drill_check *c, struct probe_result *ret);

/* run-steps.c, run-fault.c */
int runner_steps(struct runner *r);
/* Runs one fault's whole lifecycle; false when it failed. */
bool runner_fault(struct runner *r, const struct plan_fault *f, const char *step_id);
/* At the run's end, with the agent still there: each fault kept in force
 * (recovery: false) is looked at once more; one no longer in force is
 * undone and verified now, so "N kept faulted" counts what is in force. */
void runner_kept_recheck(struct runner *r);

/* run-agent.c: what the agent says before any lease (capabilities.query):
 * which of the plan's faults it can apply here, and the impact gate on its
 * kernel; targets as the agent resolves them (target.resolve). */
int runner_check_agent(struct runner *r, struct mh_error *reterr);
/* The impact gate's decision for one network fault on the agent's kernel
 * (pure): deliver it by *ret; bypass it (why says why: its step is
 * "bypassed", no lease, the rest of the run goes on); or, with --skip-gate,
 * force the attempt by *ret (the apply then fails honestly). NONE for a
 * fault that is not a network fault. */
enum impact_step {
        IMPACT_STEP_NONE,
        IMPACT_STEP_DELIVER,
        IMPACT_STEP_BYPASS,
        IMPACT_STEP_FORCE,
};
enum impact_step runner_impact_decide(
        const struct impact_request *rq, const struct impact_kernel *k, bool skip_gate,
        enum net_delivery *ret, char *why, size_t size);
/* The deliveries as an evidence event, once the run is recorded. */
void runner_record_delivery(struct runner *r);
/* The identity of a plan target as the agent reads it (a new reference). */
/* What the agent is told of target t: {"engine", "container"} or a host process. */
json_t *runner_target_request(struct runner *r, const struct plan_target *t);
int runner_resolve(struct runner *r, const struct plan_target *t, json_t **ret, struct mh_error *reterr);
/* The net context of a network fault's lease (delivery, peers' and the
 * target's own addresses); *ret NULL for other faults. */
int runner_lease_net(struct runner *r, const struct plan_fault *f, json_t **ret, struct mh_error *reterr);

/* cadence.c: the observer's schedule, as pure functions of the time. A
 * slot that came due while the source's previous sample still ran is
 * skipped (no burst to catch up); of several slots that passed while the
 * observer was busy elsewhere only the latest is taken, the others skipped;
 * a sample begun more than cadence_late_ms() after its slot is late. */
void cadence_init(struct cadence *c, double start_ms, double period_ms);
/* When the next sample is due; INFINITY once a once-only source had it. */
double cadence_due_ms(const struct cadence *c);
/* Whether to take a sample at now_ms; counts it, and the slots it skips. */
bool cadence_begin(struct cadence *c, double now_ms);
/* The sample begun by cadence_begin() ended at end_ms. */
void cadence_end(struct cadence *c, double end_ms);
double cadence_late_ms(double period_ms);

/* run-window.c: the fault windows (docs/drill-format.md, "which samples"). */
void fault_windows_init(struct fault_window *w, size_t n);
/* Records the first time of m for plan fault f (any thread). */
void runner_window_mark(struct runner *r, const struct plan_fault *f, enum window_mark m);
/* Whether a sample that began at began_ms and ended at end_ms lies in window which. */
bool fault_windows_contain(
        const struct fault_window *w, size_t n, enum criterion_window which, double began_ms, double end_ms);

/* criteria.c: one criterion against one observation, as the reference judges
 * it; and against the samples a criterion's over: and window: pick. */
bool criterion_judge(
        const struct drill_criterion *c, const struct observation *o, char *detail, size_t size);
/* samples: the source's samples in the criterion's window, oldest first. */
bool criterion_judge_samples(
        const struct drill_criterion *c, const struct observation *samples, size_t n, char *detail,
        size_t size);
void runner_criteria(struct runner *r);

/* slo.c (pure): one SLO over the run's observations (every source, oldest
 * first). steps_end_ms ends its window; last_undone_ms is when the run's
 * last fault was undone (INFINITY: none was, or one never was). */
void slo_judge(
        const struct drill_slo *s, const struct observation *obs, size_t n, double steps_end_ms,
        double last_undone_ms, struct slo_result *ret);
/* slo-runner.c: every SLO of the drill into r->result, its rows, the
 * provenance; the verdict as the SLOs leave it. */
void runner_slos(struct runner *r);

/* run-steady.c: --baseline-from's baselines, before anything is touched
 * (exit 3 when that run recorded none for a signal); the pre and post
 * captures; the evaluation, its rows and what it does to the verdict. */
int runner_steady_prepare(struct runner *r, struct mh_error *reterr);
void runner_steady_capture(struct runner *r, enum ss_phase phase);
void runner_steady_judge(struct runner *r);
