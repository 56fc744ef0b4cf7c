/* The schema, as an ordered list of migrations. A migration that has shipped
 * is never edited: a change is a new entry at the end. A migration is a
 * NULL-terminated list of statements, all run in one transaction together
 * with its schema_migrations row (src/evidence/evidence.c).
 *
 * Columns follow the reference's migrations (shared reference §6), restricted
 * to what this version writes, plus fault_leases.created_at,
 * fault_invocations.at and runs.plan_fingerprint / engine /
 * controller_start_time. Timestamps are RFC 3339 UTC with milliseconds, so
 * they sort as text. */

#include "evidence.h"

#include "evidence-internal.h"

static const char *const migration_1[] = {
        "CREATE TABLE runs (\n"
        "        id TEXT PRIMARY KEY NOT NULL,\n"
        "        experiment_name TEXT NOT NULL,\n"
        "        kind TEXT NOT NULL CHECK (kind IN ('deterministic', 'random', 'drill')),\n"
        "        spec_json TEXT,\n"
        "        plan_json TEXT,\n"
        "        plan_fingerprint TEXT,\n"
        "        seed INTEGER,\n"
        "        status TEXT NOT NULL CHECK (status IN ('created', 'planning', 'validated', 'running',\n"
        "                'recovering', 'completed', 'failed', 'aborted')),\n"
        "        started_at TEXT,\n"
        "        ended_at TEXT,\n"
        "        summary_md TEXT,\n"
        "        verdict TEXT CHECK (verdict IS NULL OR verdict IN ('pass', 'fail', 'undecided')),\n"
        "        criteria_json TEXT,\n"
        "        engine TEXT,\n"
        "        controller_pid INTEGER,\n"
        "        controller_start_time INTEGER\n"
        ")",
        "CREATE INDEX runs_status ON runs(status)",
        "CREATE INDEX runs_started_at ON runs(started_at DESC)",
        "CREATE TABLE step_runs (\n"
        "        id TEXT PRIMARY KEY NOT NULL,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        seq INTEGER NOT NULL,\n"
        "        parent_step_id TEXT,\n"
        "        action_type TEXT NOT NULL,\n"
        "        action_json TEXT,\n"
        "        status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', "
        "'skipped',\n"
        "                'cancelled', 'bypassed', 'target_drift', 'failed_to_apply', "
        "'resource_conflict')),\n"
        "        started_at TEXT,\n"
        "        ended_at TEXT,\n"
        "        error TEXT\n"
        ")",
        "CREATE INDEX step_runs_run_id ON step_runs(run_id)",
        "CREATE TABLE fault_leases (\n"
        "        id TEXT PRIMARY KEY NOT NULL,\n"
        "        state TEXT NOT NULL CHECK (state IN ('pending', 'active', 'releasing', 'released', "
        "'expired',\n"
        "                'orphaned', 'dirty')),\n"
        "        owner_agent TEXT NOT NULL,\n"
        "        undo_json TEXT NOT NULL,\n"
        "        verify_json TEXT NOT NULL,\n"
        "        ttl_seconds INTEGER NOT NULL CHECK (ttl_seconds > 0),\n"
        "        expires_at TEXT NOT NULL,\n"
        "        injected_at TEXT,\n"
        "        released_at TEXT,\n"
        "        release_mechanism TEXT CHECK (release_mechanism IS NULL OR release_mechanism IN "
        "('normal',\n"
        "                'watchdog', 'janitor', 'manual', 'kept_faulted')),\n"
        "        escalation_notes TEXT,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        fault_id TEXT NOT NULL,\n"
        "        targets_json TEXT NOT NULL,\n"
        "        created_at TEXT NOT NULL,\n"
        "        created_epoch_s INTEGER NOT NULL,\n"
        "        runtime_identity TEXT,\n"
        "        CHECK (state <> 'dirty' OR escalation_notes IS NOT NULL),\n"
        "        CHECK (state <> 'active' OR runtime_identity IS NOT NULL)\n"
        ")",
        "CREATE INDEX fault_leases_state ON fault_leases(state)",
        "CREATE INDEX fault_leases_run_id ON fault_leases(run_id)",
        "CREATE TABLE fault_invocations (\n"
        "        id TEXT PRIMARY KEY NOT NULL,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        step_run_id TEXT REFERENCES step_runs(id),\n"
        "        fault_id TEXT NOT NULL,\n"
        "        targets_json TEXT,\n"
        "        params_json TEXT,\n"
        "        backend TEXT,\n"
        "        lease_id TEXT UNIQUE REFERENCES fault_leases(id),\n"
        "        at TEXT NOT NULL\n"
        ")",
        "CREATE INDEX fault_invocations_run_id ON fault_invocations(run_id)",
        "CREATE TABLE recovery_records (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        lease_id TEXT NOT NULL REFERENCES fault_leases(id),\n"
        "        attempt INTEGER NOT NULL CHECK (attempt >= 1),\n"
        "        mechanism TEXT NOT NULL,\n"
        "        undo_results_json TEXT,\n"
        "        verified INTEGER NOT NULL CHECK (verified IN (0, 1)),\n"
        "        at TEXT NOT NULL\n"
        ")",
        "CREATE INDEX recovery_records_lease_id ON recovery_records(lease_id)",
        "CREATE TABLE events (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        run_id TEXT REFERENCES runs(id),\n"
        "        ts TEXT NOT NULL,\n"
        "        kind TEXT NOT NULL CHECK (kind IN ('run.started', 'run.completed', 'run.failed',\n"
        "                'run.abort_requested', 'run.aborted', 'step.started', 'step.finished', "
        "'step.skipped',\n"
        "                'fault.injected', 'fault.observed', 'fault.recovered', 'fault.failed', "
        "'tool.executed',\n"
        "                'check.evaluated', 'criteria.evaluated', 'observability.collected',\n"
        "                'observability.source_failed', 'lease.state_changed', 'agent.state_changed',\n"
        "                'drift.reported', 'safety.refused', 'maniac.decision')),\n"
        "        payload_json TEXT\n"
        ")",
        "CREATE INDEX events_run_id ON events(run_id)",
        "CREATE TABLE observations (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        kind TEXT NOT NULL,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        source TEXT NOT NULL,\n"
        "        data_json TEXT,\n"
        "        timestamp TEXT NOT NULL\n"
        ")",
        "CREATE INDEX observations_run_id_source ON observations(run_id, source)",
        NULL,
};

/* The lease row holds what the agent binds (params, a network fault's
 * delivery and addresses), so recovery sends exactly what the run sent, and
 * the key of its target, so a second lease that conflicts with an open one
 * on the same target is refused in the same transaction that would add it.
 * Event kinds lose their CHECK: the one list is enum evidence_event_kind
 * (evidence.h), and a CHECK would need this table rebuilt for every new
 * kind (impact.decided is the first). */
static const char *const migration_2[] = {
        "ALTER TABLE fault_leases ADD COLUMN params_json TEXT",
        "ALTER TABLE fault_leases ADD COLUMN net_json TEXT",
        "ALTER TABLE fault_leases ADD COLUMN target_key TEXT",
        "CREATE INDEX fault_leases_target_key ON fault_leases(target_key)",
        "CREATE TABLE events_v2 (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        run_id TEXT REFERENCES runs(id),\n"
        "        ts TEXT NOT NULL,\n"
        "        kind TEXT NOT NULL,\n"
        "        payload_json TEXT\n"
        ")",
        "INSERT INTO events_v2 (id, run_id, ts, kind, payload_json) SELECT id, run_id, ts, kind, "
        "payload_json "
        "FROM events",
        "DROP TABLE events",
        "ALTER TABLE events_v2 RENAME TO events",
        "CREATE INDEX events_run_id ON events(run_id)",
        NULL,
};

/* A lease kept in force on purpose (recovery: false) stays open in state
 * kept_faulted until `mayhem recover execute` undoes it: the state CHECK
 * grows, which SQLite can only do by rebuilding the table (foreign keys are
 * off while migrations run, evidence.c). */
static const char *const migration_3[] = {
        "CREATE TABLE fault_leases_v3 (\n"
        "        id TEXT PRIMARY KEY NOT NULL,\n"
        "        state TEXT NOT NULL CHECK (state IN ('pending', 'active', 'releasing', 'released', "
        "'expired',\n"
        "                'orphaned', 'dirty', 'kept_faulted')),\n"
        "        owner_agent TEXT NOT NULL,\n"
        "        undo_json TEXT NOT NULL,\n"
        "        verify_json TEXT NOT NULL,\n"
        "        ttl_seconds INTEGER NOT NULL CHECK (ttl_seconds > 0),\n"
        "        expires_at TEXT NOT NULL,\n"
        "        injected_at TEXT,\n"
        "        released_at TEXT,\n"
        "        release_mechanism TEXT CHECK (release_mechanism IS NULL OR release_mechanism IN "
        "('normal',\n"
        "                'watchdog', 'janitor', 'manual', 'kept_faulted')),\n"
        "        escalation_notes TEXT,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        fault_id TEXT NOT NULL,\n"
        "        targets_json TEXT NOT NULL,\n"
        "        created_at TEXT NOT NULL,\n"
        "        created_epoch_s INTEGER NOT NULL,\n"
        "        runtime_identity TEXT,\n"
        "        params_json TEXT,\n"
        "        net_json TEXT,\n"
        "        target_key TEXT,\n"
        "        CHECK (state <> 'dirty' OR escalation_notes IS NOT NULL),\n"
        "        CHECK (state NOT IN ('active', 'kept_faulted') OR runtime_identity IS NOT NULL)\n"
        ")",
        "INSERT INTO fault_leases_v3 SELECT id, state, owner_agent, undo_json, verify_json, ttl_seconds, "
        "expires_at, injected_at, released_at, release_mechanism, escalation_notes, run_id, fault_id, "
        "targets_json, created_at, created_epoch_s, runtime_identity, params_json, net_json, target_key "
        "FROM fault_leases",
        "DROP TABLE fault_leases",
        "ALTER TABLE fault_leases_v3 RENAME TO fault_leases",
        "CREATE INDEX fault_leases_state ON fault_leases(state)",
        "CREATE INDEX fault_leases_run_id ON fault_leases(run_id)",
        "CREATE INDEX fault_leases_target_key ON fault_leases(target_key)",
        NULL,
};

/* Issue 13: what a run was allowed to do and why. execution_intent is
 * "explicit" (--execute) or NULL (MAYHEM_ALLOW_IMPLICIT_EXECUTION=1, as the
 * reference records it); break_glass names a --skip-gate and whether the
 * environment override was set; config_json is the effective configuration
 * with provenance; env_fingerprint is the reference's §5.1 fingerprint. The
 * maniac's draws are kept with their seed so a run can be replayed. */
static const char *const migration_4[] = {
        "ALTER TABLE runs ADD COLUMN execution_intent TEXT",
        "ALTER TABLE runs ADD COLUMN env_fingerprint TEXT",
        "ALTER TABLE runs ADD COLUMN break_glass TEXT",
        "ALTER TABLE runs ADD COLUMN config_json TEXT",
        "CREATE TABLE maniac_draws (\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        seq INTEGER NOT NULL CHECK (seq >= 1),\n"
        "        seed INTEGER NOT NULL,\n"
        "        level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),\n"
        "        container TEXT NOT NULL,\n"
        "        fault_id TEXT NOT NULL,\n"
        "        params_json TEXT NOT NULL,\n"
        "        duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),\n"
        "        at_ms INTEGER NOT NULL CHECK (at_ms >= 0),\n"
        "        PRIMARY KEY (run_id, seq)\n"
        ")",
        NULL,
};

/* Issue 14: what a whole drill judged besides its criteria. log_lines keeps
 * the lines a `logs` source read (engine timestamp as written, stream
 * stdout|stderr, whether the source's pattern matched). slo_outcomes and
 * steady_state_evaluations are the reference's tables: one row per SLO, one
 * per (phase, assertion, signal); measured_json / expectation_json say what
 * was compared. steady_state_baselines keeps each signal's captured
 * baseline so `run --baseline-from RUN_ID` can grade against it.
 * runs.observation_provenance holds counts and names only (the reference's
 * rule); runs.resilience_json the score, its components and grade. */
static const char *const migration_5[] = {
        "ALTER TABLE runs ADD COLUMN observation_provenance TEXT",
        "ALTER TABLE runs ADD COLUMN resilience_json TEXT",
        "CREATE TABLE log_lines (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        source_id TEXT NOT NULL,\n"
        "        container TEXT NOT NULL,\n"
        "        seq INTEGER NOT NULL CHECK (seq >= 0),\n"
        "        ts TEXT,\n"
        "        stream TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr')),\n"
        "        matched INTEGER NOT NULL CHECK (matched IN (0, 1)),\n"
        "        line TEXT NOT NULL\n"
        ")",
        "CREATE INDEX log_lines_run_source ON log_lines(run_id, source_id, seq)",
        "CREATE TABLE slo_outcomes (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        name TEXT NOT NULL,\n"
        "        kind TEXT NOT NULL,\n"
        "        metric TEXT NOT NULL,\n"
        "        operator TEXT NOT NULL,\n"
        "        threshold REAL NOT NULL,\n"
        "        unit TEXT NOT NULL,\n"
        "        window_s INTEGER NOT NULL,\n"
        "        passed INTEGER NOT NULL CHECK (passed IN (0, 1)),\n"
        "        observed REAL,\n"
        "        samples INTEGER NOT NULL CHECK (samples >= 0),\n"
        "        reason TEXT NOT NULL\n"
        ")",
        "CREATE INDEX slo_outcomes_run_id ON slo_outcomes(run_id)",
        "CREATE TABLE steady_state_baselines (\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        signal TEXT NOT NULL,\n"
        "        source_id TEXT NOT NULL,\n"
        "        samples INTEGER NOT NULL CHECK (samples >= 0),\n"
        "        baseline REAL,\n"
        "        values_json TEXT NOT NULL,\n"
        "        PRIMARY KEY (run_id, signal)\n"
        ")",
        "CREATE TABLE steady_state_evaluations (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        run_id TEXT NOT NULL REFERENCES runs(id),\n"
        "        phase TEXT NOT NULL CHECK (phase IN ('pre', 'during', 'post')),\n"
        "        assertion TEXT NOT NULL CHECK (assertion IN ('assert_unchanged', 'assert_degraded',\n"
        "                'assert_recovered')),\n"
        "        signal TEXT NOT NULL,\n"
        "        severity TEXT NOT NULL CHECK (severity IN ('critical', 'warning', 'info')),\n"
        "        verdict TEXT CHECK (verdict IS NULL OR verdict IN ('as-hypothesised',\n"
        "                'degraded-within-tolerance', 'degraded-beyond-tolerance', 'no-effect',\n"
        "                'not-recovered')),\n"
        "        passed INTEGER NOT NULL CHECK (passed IN (0, 1)),\n"
        "        measured_json TEXT NOT NULL,\n"
        "        expectation_json TEXT NOT NULL\n"
        ")",
        "CREATE INDEX steady_state_evaluations_run_id ON steady_state_evaluations(run_id)",
        NULL,
};

const char *const *const evidence_migrations[] = {
        migration_1, migration_2, migration_3, migration_4, migration_5,
};
const size_t evidence_n_migrations = ELEMENTSOF(evidence_migrations);
