/* Writing a run's evidence: the run row, its steps, events, observations,
 * fault invocations and recovery records. Each call is one transaction. */

#include "evidence.h"

#include <inttypes.h>
#include <stdio.h>

#include "evidence-internal.h"

static int bad_value(const char *op, const char *field, const char *value, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument", "%s: invalid %s '%s'", op,
                field, value ? value : "(null)");
}

int evidence_run_begin(struct evidence *ev, const struct evidence_run *run, struct mh_error *reterr) {
        static const char op[] = "recording a new run";
        int r;

        if ((r = evidence_check_str(op, "run id", run->id, reterr)) < 0 ||
            (r = evidence_check_str(op, "run name", run->name, reterr)) < 0 ||
            (r = evidence_check_json(op, "spec_json", run->spec_json, JSON_OPTIONAL, reterr)) < 0 ||
            (r = evidence_check_json(op, "plan_json", run->plan_json, JSON_OPTIONAL, reterr)) < 0 ||
            (r = evidence_check_json(op, "config_json", run->config_json, JSON_OPTIONAL, reterr)) < 0)
                return r;
        if (!streq_ptr(run->kind, "drill") && !streq_ptr(run->kind, "deterministic") &&
            !streq_ptr(run->kind, "random"))
                return bad_value(op, "run kind", run->kind, reterr);
        if (run->controller_pid < 0 || run->controller_start_time > (unsigned long long)INT64_MAX)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: invalid controller identity %d/%llu", op, run->controller_pid,
                        run->controller_start_time);

        char now[EVIDENCE_TIMESTAMP_MAX], seed[24];
        evidence_now(now, NULL);
        snprintf(
                seed, sizeof(seed), "%" PRId64,
                run->seed); /* bound as text: SQLite's INTEGER affinity keeps it an integer */

        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO runs (id, experiment_name, kind, spec_json, plan_json, plan_fingerprint, "
                "status, started_at, engine, controller_pid, controller_start_time, execution_intent, "
                "env_fingerprint, break_glass, config_json, seed) "
                "VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                "tttttttt"
                "iI"
                "tttt"
                "t",
                run->id, run->name, run->kind, run->spec_json, run->plan_json, run->plan_fingerprint, now,
                run->engine, run->controller_pid, (int64_t)run->controller_start_time, run->execution_intent,
                run->env_fingerprint, run->break_glass, run->config_json, run->has_seed ? seed : NULL);
        if (r == -EEXIST)
                return mh_error_set(
                        reterr, -EEXIST, MH_EXIT_GENERAL_FAILURE, "evidence_run_exists",
                        "%s: run '%s' is already in the evidence database", op, run->id);
        return r < 0 ? r : 0;
}

/* Reads the run's status inside the caller's transaction; -EALREADY when it has ended. */
static int run_not_ended(struct evidence *ev, const char *op, const char *run_id, struct mh_error *reterr) {
        _cleanup_free_ char *status = NULL;
        int r = evidence_run_status_get(ev, op, run_id, &status, reterr);
        if (r < 0)
                return r;
        if (evidence_run_status_is_terminal(status))
                return mh_error_set(
                        reterr, -EALREADY, MH_EXIT_GENERAL_FAILURE, "evidence_run_ended",
                        "%s: run '%s' has already ended (%s)", op, run_id, status);
        return 0;
}

int evidence_run_set_status(
        struct evidence *ev, const char *run_id, const char *status, struct mh_error *reterr) {
        static const char op[] = "recording a run's status";
        int r = evidence_check_str(op, "run id", run_id, reterr);
        if (r < 0)
                return r;
        if (evidence_run_status_from_string(status) < 0 || evidence_run_status_is_terminal(status) ||
            streq(status, "created"))
                return bad_value(op, "status (planning, validated, running or recovering)", status, reterr);

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = run_not_ended(ev, op, run_id, reterr)) < 0)
                return r;
        r = evidence_exec(ev, op, reterr, "UPDATE runs SET status = ? WHERE id = ?", "tt", status, run_id);
        if (r < 0)
                return r;
        return evidence_commit(&txn, op, reterr);
}

/* -EBUSY naming the leases of the run that are not released or expired; a
 * kept_faulted one is open on purpose (recovery: false) and ends no run badly. */
static int check_no_open_leases(
        struct evidence *ev, const char *op, const char *run_id, struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT id, state, fault_id FROM fault_leases WHERE run_id = ? AND state NOT IN "
                "('released', 'expired', 'kept_faulted') ORDER BY created_at, rowid",
                "t", run_id);
        if (r < 0)
                return r;

        char list[MH_ERROR_MSG_MAX / 2];
        size_t n = 0, len = 0, shown = 0;
        list[0] = '\0';
        while ((r = evidence_step(ev, st, op, reterr)) > 0) {
                n++;
                if (len >= sizeof(list) - 1)
                        continue;
                int w = snprintf(
                        list + len, sizeof(list) - len, "%s%s (%s, %s)", n > 1 ? ", " : "",
                        (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
                        (const char *)sqlite3_column_text(st, 2));
                if (w < 0 || (size_t)w >= sizeof(list) - len) {
                        list[len] = '\0'; /* did not fit: leave it out, count it */
                        len = sizeof(list) - 1;
                } else {
                        len += (size_t)w;
                        shown++;
                }
        }
        if (r < 0)
                return r;
        if (n == 0)
                return 0;
        char more[48] = "";
        if (shown < n)
                snprintf(more, sizeof(more), " and %zu more", n - shown);
        return mh_error_set(
                reterr, -EBUSY, MH_EXIT_RECOVERY_FAILURE, "run_open_leases",
                "%s: run '%s' cannot end completed: %zu lease%s not released or expired: %s%s", op, run_id,
                n, n == 1 ? " is" : "s are", list, more);
}

int evidence_run_finish(
        struct evidence *ev, const char *run_id, const char *status, const char *verdict,
        const char *criteria_json, const char *summary_md, struct mh_error *reterr) {
        static const char op[] = "recording a run's end";
        int r = evidence_check_str(op, "run id", run_id, reterr);
        if (r < 0)
                return r;
        if (!evidence_run_status_is_terminal(status))
                return bad_value(op, "final status (completed, failed or aborted)", status, reterr);
        if (verdict && !streq(verdict, "pass") && !streq(verdict, "fail") && !streq(verdict, "undecided"))
                return bad_value(op, "verdict (pass, fail or undecided)", verdict, reterr);
        if ((r = evidence_check_json(op, "criteria_json", criteria_json, JSON_OPTIONAL, reterr)) < 0)
                return r;

        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        /* One IMMEDIATE transaction: no lease can be created or moved between
         * the check and the update. */
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = run_not_ended(ev, op, run_id, reterr)) < 0)
                return r;
        if (streq(status, "completed") && (r = check_no_open_leases(ev, op, run_id, reterr)) < 0)
                return r;
        r = evidence_exec(
                ev, op, reterr,
                "UPDATE runs SET status = ?, verdict = ?, criteria_json = ?, summary_md = ?, ended_at = ? "
                "WHERE id = ?",
                "tttttt", status, verdict, criteria_json, summary_md, now, run_id);
        if (r < 0)
                return r;
        return evidence_commit(&txn, op, reterr);
}

int evidence_step_begin(
        struct evidence *ev, const char *run_id, int seq, const char *action_type, const char *action_json,
        char ret_step_id[EVIDENCE_ID_MAX], struct mh_error *reterr) {
        static const char op[] = "recording a step";
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "action type", action_type, reterr)) < 0 ||
            (r = evidence_check_json(op, "action_json", action_json, JSON_OPTIONAL, reterr)) < 0)
                return r;
        if (seq < 0)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument", "%s: negative seq %d",
                        op, seq);

        char id[EVIDENCE_ID_MAX], now[EVIDENCE_TIMESTAMP_MAX];
        if ((r = evidence_random_id("s-", id, reterr)) < 0)
                return r;
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO step_runs (id, run_id, seq, action_type, action_json, status, started_at) "
                "VALUES (?, ?, ?, ?, ?, 'running', ?)",
                "ttitt"
                "t",
                id, run_id, seq, action_type, action_json, now);
        if (r == -ENOENT) /* the only foreign key */
                return evidence_no_run(op, run_id, reterr);
        if (r < 0)
                return r;
        memcpy(ret_step_id, id, sizeof(id));
        return 0;
}

int evidence_step_finish(
        struct evidence *ev, const char *step_id, const char *status, const char *error,
        struct mh_error *reterr) {
        static const char op[] = "recording a step's result";
        int r = evidence_check_str(op, "step id", step_id, reterr);
        if (r < 0)
                return r;
        if (evidence_step_status_from_string(status) < 0 || streq(status, "pending") ||
            streq(status, "running"))
                return bad_value(op, "final step status", status, reterr);

        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0)
                return r;
        r = evidence_exec(
                ev, op, reterr,
                "UPDATE step_runs SET status = ?, error = ?, ended_at = ? WHERE id = ? AND status = "
                "'running'",
                "tttt", status, error, now, step_id);
        if (r < 0)
                return r;
        if (r == 0) {
                _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
                r = evidence_prepare(
                        ev, op, &st, reterr, "SELECT status FROM step_runs WHERE id = ?", "t", step_id);
                if (r < 0)
                        return r;
                r = evidence_step(ev, st, op, reterr);
                if (r < 0)
                        return r;
                if (r == 0)
                        return mh_error_set(
                                reterr, -ENOENT, MH_EXIT_GENERAL_FAILURE, "evidence_no_step",
                                "%s: no step '%s' in the evidence database", op, step_id);
                return mh_error_set(
                        reterr, -ESTALE, MH_EXIT_GENERAL_FAILURE, "evidence_step_stale",
                        "%s: step '%s' is %s, not running", op, step_id,
                        (const char *)sqlite3_column_text(st, 0));
        }
        return evidence_commit(&txn, op, reterr);
}

int evidence_event(
        struct evidence *ev, const char *run_id, enum evidence_event_kind kind, const char *payload_json,
        struct mh_error *reterr) {
        static const char op[] = "recording an event";
        const char *name = evidence_event_kind_to_string(kind);
        int r;
        if (!name)
                return bad_value(op, "event kind", "(out of range)", reterr);
        if (run_id && (r = evidence_check_str(op, "run id", run_id, reterr)) < 0)
                return r;
        if ((r = evidence_check_json(op, "payload_json", payload_json, JSON_OPTIONAL, reterr)) < 0)
                return r;

        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr, "INSERT INTO events (run_id, ts, kind, payload_json) VALUES (?, ?, ?, ?)",
                "tttt", run_id, now, name, payload_json);
        if (r == -ENOENT)
                return evidence_no_run(op, run_id, reterr);
        return r < 0 ? r : 0;
}

int evidence_observation(
        struct evidence *ev, const char *run_id, const char *kind, const char *source, const char *data_json,
        struct mh_error *reterr) {
        static const char op[] = "recording an observation";
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "observation kind", kind, reterr)) < 0 ||
            (r = evidence_check_str(op, "observation source", source, reterr)) < 0 ||
            (r = evidence_check_json(op, "data_json", data_json, JSON_OPTIONAL, reterr)) < 0)
                return r;

        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO observations (kind, run_id, source, data_json, timestamp) VALUES (?, ?, ?, ?, "
                "?)",
                "ttttt", kind, run_id, source, data_json, now);
        if (r == -ENOENT)
                return evidence_no_run(op, run_id, reterr);
        return r < 0 ? r : 0;
}

/* 1 when a row with this id exists in table (one of ours, never user text). */
static int row_exists(
        struct evidence *ev, const char *op, const char *sql, const char *id, struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(ev, op, &st, reterr, sql, "t", id);
        if (r < 0)
                return r;
        return evidence_step(ev, st, op, reterr);
}

int evidence_invocation(
        struct evidence *ev, const char *run_id, const char *step_id, const char *fault_id,
        const char *targets_json, const char *params_json, const char *backend, const char *lease_id,
        struct mh_error *reterr) {
        static const char op[] = "recording a fault invocation";
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "fault id", fault_id, reterr)) < 0 ||
            (r = evidence_check_json(op, "targets_json", targets_json, JSON_OPTIONAL, reterr)) < 0 ||
            (r = evidence_check_json(op, "params_json", params_json, JSON_OPTIONAL, reterr)) < 0)
                return r;

        char id[EVIDENCE_ID_MAX], now[EVIDENCE_TIMESTAMP_MAX];
        if ((r = evidence_random_id("i-", id, reterr)) < 0)
                return r;
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = evidence_run_status_get(ev, op, run_id, NULL, reterr)) < 0)
                return r;
        /* Named checks rather than one anonymous foreign-key failure. */
        if (step_id) {
                r = row_exists(ev, op, "SELECT 1 FROM step_runs WHERE id = ?", step_id, reterr);
                if (r < 0)
                        return r;
                if (r == 0)
                        return mh_error_set(
                                reterr, -ENOENT, MH_EXIT_GENERAL_FAILURE, "evidence_no_step",
                                "%s: no step '%s' in the evidence database", op, step_id);
        }
        if (lease_id) {
                r = row_exists(ev, op, "SELECT 1 FROM fault_leases WHERE id = ?", lease_id, reterr);
                if (r < 0)
                        return r;
                if (r == 0)
                        return mh_error_set(
                                reterr, -ENOENT, MH_EXIT_GENERAL_FAILURE, "evidence_no_lease",
                                "%s: no lease '%s' in the evidence database", op, lease_id);
        }
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO fault_invocations (id, run_id, step_run_id, fault_id, targets_json, "
                "params_json, "
                "backend, lease_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                "ttttttttt", id, run_id, step_id, fault_id, targets_json, params_json, backend, lease_id,
                now);
        if (r == -EEXIST)
                return mh_error_set(
                        reterr, -EEXIST, MH_EXIT_GENERAL_FAILURE, "evidence_invocation_exists",
                        "%s: lease '%s' already has an invocation", op, lease_id ? lease_id : "");
        if (r < 0)
                return r;
        return evidence_commit(&txn, op, reterr);
}

int evidence_recovery_record(
        struct evidence *ev, const char *lease_id, int attempt, const char *mechanism,
        const char *undo_results_json, bool verified, struct mh_error *reterr) {
        static const char op[] = "recording a recovery";
        int r;
        if ((r = evidence_check_str(op, "lease id", lease_id, reterr)) < 0 ||
            (r = evidence_check_json(op, "undo_results_json", undo_results_json, JSON_OPTIONAL, reterr)) < 0)
                return r;
        if (attempt < 1)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: attempt %d (attempts count from 1)", op, attempt);
        if (lease_mechanism_from_string(mechanism) < 0)
                return bad_value(
                        op, "mechanism (normal, watchdog, janitor, manual or kept_faulted)", mechanism,
                        reterr);

        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO recovery_records (lease_id, attempt, mechanism, undo_results_json, verified, "
                "at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                "titt"
                "bt",
                lease_id, attempt, mechanism, undo_results_json, (int)verified, now);
        if (r == -ENOENT)
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_GENERAL_FAILURE, "evidence_no_lease",
                        "%s: no lease '%s' in the evidence database", op, lease_id);
        return r < 0 ? r : 0;
}
