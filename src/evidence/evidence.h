#pragma once

/* The evidence store: one SQLite file (WAL, synchronous=FULL) holding runs,
 * their steps, events, observations, fault invocations, recovery records and
 * the write-ahead lease journal (lease.h). It is the only place sqlite3_*
 * appears; callers see plain strings, -errno and struct mh_error, and JSON
 * (jansson) for the CLI's `inspect` commands.
 *
 * A struct evidence is one connection. Every call takes the handle's lock for
 * its whole duration, so one handle may be shared by several threads; several
 * processes (controller, janitor, `mayhem inspect`) may open the same file,
 * and waits for another writer are bounded by a 5 s busy timeout.
 *
 * Every write is one transaction, committed and fsync'd before the call
 * returns. Errors name the operation in words ("recording a new run: database is
 * locked"). JSON arguments must be valid JSON text; a NULL optional argument
 * is stored as NULL. See docs/internals/lease-journal.md. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"

#define EVIDENCE_ID_MAX         24 /* "s-" / "i-" / "l-" + 16 hex + NUL */
#define EVIDENCE_TIMESTAMP_MAX  40 /* "2026-11-29T08:00:00.123Z" + NUL, with room */
#define EVIDENCE_SCHEMA_VERSION 5

struct evidence;

/* Opens (creating when missing) and migrates the database at path. A file
 * that is not SQLite, an SQLite database of another program, or a schema
 * newer than this build knows is refused with exit class CONFIG (3). */
int evidence_open(const char *path, struct evidence **ret, struct mh_error *reterr);
/* Opens an existing database to read, writing nothing: no WAL switch, no
 * migration (an older schema is read as it is). For what plans before a run
 * (the damage quota's history) and must leave the file as it found it. */
int evidence_open_read(const char *path, struct evidence **ret, struct mh_error *reterr);
struct evidence *evidence_close(struct evidence *ev);
DEFINE_FREEP(struct evidence, evidence_close)

/* Whether a run may write here, asked before it touches anything: -EROFS
 * for a file or directory it cannot write, -EBUSY when another process
 * holds the write lock past the busy timeout; exit class CONFIG (3). Once
 * open, a database whose path is deleted or renamed over fails every write
 * with -ESTALE. */
int evidence_writable(struct evidence *ev, struct mh_error *reterr);

/* The schema version of an open database (the highest applied migration). */
int evidence_schema_version(struct evidence *ev, int *ret, struct mh_error *reterr);

/* ---- runs ---- */

struct evidence_run {
        const char *id;   /* the plan's run id */
        const char *name; /* experiment (drill) name */
        const char *kind; /* "drill", "deterministic" or "random" */
        const char *spec_json, *plan_json, *plan_fingerprint, *engine;
        int controller_pid; /* 0: unknown; `inspect runs` then shows the run stale until it ends */
        /* /proc starttime of the controller (field 22, clock ticks since boot),
         * so a recycled pid is not taken for a live controller; 0: unknown. */
        unsigned long long controller_start_time;
        const char *execution_intent; /* "explicit" (--execute), or NULL (implicit, as the reference) */
        const char *env_fingerprint;  /* sha256 hex of §5.1's fingerprint, or NULL */
        const char *break_glass;      /* NULL, "skip_gate" or "skip_gate+override" */
        const char *config_json;      /* the effective configuration with provenance, or NULL */
        bool has_seed;                /* a random (maniac) run: its seed goes to runs.seed */
        int64_t seed;
};

/* Records a run as "running", started now. -EEXIST when the id is taken. */
int evidence_run_begin(struct evidence *ev, const struct evidence_run *run, struct mh_error *reterr);

/* Moves a run that has not ended to another non-terminal status
 * ("planning", "validated", "running", "recovering"). */
int evidence_run_set_status(
        struct evidence *ev, const char *run_id, const char *status, struct mh_error *reterr);

/* Ends a run: status is "completed", "failed" or "aborted"; verdict "pass",
 * "fail", "undecided" or NULL. A run may only end "completed" when every lease
 * of it is released or expired: otherwise -EBUSY (exit class 7) naming the open
 * leases. failed/aborted are recorded with leases still open; they stay listed
 * for the janitor and `mayhem recover`. -EALREADY when the run has ended. */
int evidence_run_finish(
        struct evidence *ev, const char *run_id, const char *status, const char *verdict,
        const char *criteria_json, const char *summary_md, struct mh_error *reterr);

/* A step starts "running"; ret_step_id receives its "s-" id. */
int evidence_step_begin(
        struct evidence *ev, const char *run_id, int seq, const char *action_type, const char *action_json,
        char ret_step_id[EVIDENCE_ID_MAX], struct mh_error *reterr);
/* Ends a running step with a final status (completed, failed, skipped,
 * cancelled, bypassed, target_drift, failed_to_apply, resource_conflict).
 * -ESTALE when the step is not running. */
int evidence_step_finish(
        struct evidence *ev, const char *step_id, const char *status, const char *error,
        struct mh_error *reterr);

/* The reference's event kinds (§6), and ours after them. */
enum evidence_event_kind {
        EVENT_RUN_STARTED,
        EVENT_RUN_COMPLETED,
        EVENT_RUN_FAILED,
        EVENT_RUN_ABORT_REQUESTED,
        EVENT_RUN_ABORTED,
        EVENT_STEP_STARTED,
        EVENT_STEP_FINISHED,
        EVENT_STEP_SKIPPED,
        EVENT_FAULT_INJECTED,
        EVENT_FAULT_OBSERVED,
        EVENT_FAULT_RECOVERED,
        EVENT_FAULT_FAILED,
        EVENT_TOOL_EXECUTED,
        EVENT_CHECK_EVALUATED,
        EVENT_CRITERIA_EVALUATED,
        EVENT_OBSERVABILITY_COLLECTED,
        EVENT_OBSERVABILITY_SOURCE_FAILED,
        EVENT_LEASE_STATE_CHANGED,
        EVENT_AGENT_STATE_CHANGED,
        EVENT_DRIFT_REPORTED,
        EVENT_SAFETY_REFUSED,
        EVENT_MANIAC_DECISION,
        EVENT_IMPACT_DECIDED,      /* how each network fault is delivered on the agent's kernel */
        EVENT_TARGETS_FINAL_STATE, /* each targeted container's engine state at the run's end (resilience.h)
                                    */
        _EVENT_KIND_MAX,
};

const char *evidence_event_kind_to_string(enum evidence_event_kind k); /* "run.started", ... */
int evidence_event_kind_from_string(const char *s);

/* run_id may be NULL for events of no run. */
int evidence_event(
        struct evidence *ev, const char *run_id, enum evidence_event_kind kind, const char *payload_json,
        struct mh_error *reterr);
int evidence_observation(
        struct evidence *ev, const char *run_id, const char *kind, const char *source, const char *data_json,
        struct mh_error *reterr);
/* The lines a logs source read (evidence-logs.c), all in one transaction.
 * ts may be NULL or "" (the engine gave none); stream "stdout" | "stderr". */
struct evidence_log_line {
        int64_t seq;
        const char *ts, *stream, *line;
        bool matched;
};
int evidence_log_lines(
        struct evidence *ev, const char *run_id, const char *source_id, const char *container,
        const struct evidence_log_line *lines, size_t n, struct mh_error *reterr);
/* Rows of log_lines for (run, source); stream NULL: both; matched -1: either. */
int evidence_log_lines_count(
        struct evidence *ev, const char *run_id, const char *source_id, const char *stream, int matched,
        int64_t *ret, struct mh_error *reterr);
/* step_id and lease_id may be NULL; a lease has at most one invocation. */
int evidence_invocation(
        struct evidence *ev, const char *run_id, const char *step_id, const char *fault_id,
        const char *targets_json, const char *params_json, const char *backend, const char *lease_id,
        struct mh_error *reterr);
/* One undo attempt (1-based) on a lease, by mechanism normal, watchdog,
 * janitor, manual (or kept_faulted: no undo, verified false), and whether its
 * verify probes passed. */
int evidence_recovery_record(
        struct evidence *ev, const char *lease_id, int attempt, const char *mechanism,
        const char *undo_results_json, bool verified, struct mh_error *reterr);

/* ---- the maniac's draws (evidence-maniac.c) ---- */

struct evidence_maniac_draw {
        int seq; /* 1-based */
        int64_t seed;
        int level; /* 1..5 */
        const char *container, *fault_id;
        const char *params_json; /* a JSON object */
        int64_t duration_ms, at_ms;
};

/* Records a run's draws in one transaction; the run must exist (-ENOENT). */
int evidence_maniac_draws_record(
        struct evidence *ev, const char *run_id, const struct evidence_maniac_draw *draws, size_t n,
        struct mh_error *reterr);
/* The run's draws in seq order, [{seq, seed, level, container, fault_id,
 * params, duration_ms, at_ms}]; an empty array when it has none, -ENOENT
 * when there is no such run. */
int evidence_maniac_draws_json(
        struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr);

/* ---- queries (JSON for `mayhem inspect`; the caller json_decref()s) ----
 *
 * Keys are the column names; a JSON column (foo_json, runtime_identity) is
 * parsed and its key loses the _json suffix; NULL is null. Timestamps sort as
 * text. */

/* An array of runs, newest first; all of them (up to limit, 0 = no limit) or
 * the one named (-ENOENT: "no run 'X' in the evidence database"). Each: id, experiment_name,
 * kind, status, recorded_status, verdict, started_at, ended_at, engine,
 * plan_fingerprint, controller_pid, controller_start_time, open_leases. A run
 * that has not ended whose controller is gone (no pid recorded, no such pid,
 * a zombie, or a different start time: a recycled pid) has "status": "stale";
 * "recorded_status" always holds what the database says. */
int evidence_runs_json(
        struct evidence *ev, const char *run_id, size_t limit, json_t **ret, struct mh_error *reterr);

/* How many runs the database holds, so a listing can say what its limit hides. */
int evidence_runs_count(struct evidence *ev, size_t *ret, struct mh_error *reterr);

/* One snapshot of a run: {"run": {... as above, plus spec, plan, criteria, execution_intent,
 * env_fingerprint, break_glass,
 * summary_md}, "steps": [], "leases": [], "invocations": [],
 * "recovery_records": [], "events": [], "observations": [], "timeline": []}.
 * Each list is in time order; "timeline" merges them as references
 * {at, type (step lease invocation recovery event observation), id, kind
 * (events only)} in time order. -ENOENT: "no run 'X' in the evidence database". */
int evidence_history_json(struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr);

/* The run's observations, oldest first: {id, kind, source, data, timestamp}. */
int evidence_observations_json(
        struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr);

/* ---- the damage quota's history ---- */

struct evidence_damage {
        char *target; /* as the lease names it in targets_json: the container name, or the process label */
        double fault_s;
};

/* Per target, what the leases injected at or after now_ms - window_s cost
 * the damage quota: each lease's seconds in force (injected_at to
 * released_at, or to now_ms while it is not released) times
 * fault_damage_weight() of its fault (catalog.h). One entry per target,
 * sorted by name; free with evidence_damage_free(). */
int evidence_damage(
        struct evidence *ev, double window_s, int64_t now_ms, struct evidence_damage **ret, size_t *ret_n,
        struct mh_error *reterr);
void evidence_damage_free(struct evidence_damage *d, size_t n);

/* ---- SLOs and steady state (evidence-slo.c, evidence-steady.c) ---- */

/* One slo_outcomes row; observed NAN when nothing was observed (NULL). */
struct evidence_slo_outcome {
        const char *name, *kind, *metric, *op, *unit, *reason;
        double threshold, observed;
        int64_t window_s, samples;
        bool passed;
};
int evidence_slo_outcome(
        struct evidence *ev, const char *run_id, const struct evidence_slo_outcome *o,
        struct mh_error *reterr);
/* runs.observation_provenance (counts and names only). */
int evidence_run_provenance(
        struct evidence *ev, const char *run_id, const char *provenance_json, struct mh_error *reterr);
/* One steady_state_baselines row: baseline NAN when insufficient (NULL). */
int evidence_ss_baseline(
        struct evidence *ev, const char *run_id, const char *signal, const char *source_id, int64_t samples,
        double baseline, const char *values_json, struct mh_error *reterr);
/* The baseline run_id recorded for signal: 1 and *ret (NAN when NULL) when
 * there is a row, 0 when there is none. */
int evidence_ss_baseline_get(
        struct evidence *ev, const char *run_id, const char *signal, double *ret, struct mh_error *reterr);
/* One steady_state_evaluations row; verdict NULL when insufficient. */
struct evidence_ss_evaluation {
        const char *phase, *assertion, *signal, *severity, *verdict, *measured_json, *expectation_json;
        bool passed;
};
int evidence_ss_evaluation(
        struct evidence *ev, const char *run_id, const struct evidence_ss_evaluation *e,
        struct mh_error *reterr);
