/* Reading evidence back as JSON for `mayhem inspect`: runs (with stale
 * detection), a run's history, its observations, leases.
 *
 * Keys are the column names; a JSON column (foo_json, runtime_identity) is
 * parsed and its key loses the _json suffix; NULL is null. */

#include "evidence.h"

#include <limits.h>
#include <stdlib.h>

#include "evidence-internal.h"
#include "basic/procfs.h"

static int json_fail(const char *op, struct mh_error *reterr) {
        /* jansson reports neither cause; both are possible with caller text. */
        return mh_error_set(
                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "evidence",
                "%s: cannot build JSON (out of memory, or text that is not UTF-8)", op);
}

static const char *empty_to_null(const char *s) {
        return s && *s ? s : NULL;
}

static json_t *column_int_or_null(sqlite3_stmt *st, int col) {
        if (sqlite3_column_type(st, col) == SQLITE_NULL)
                return json_null();
        return json_integer((json_int_t)sqlite3_column_int64(st, col));
}

static const char *column_text(sqlite3_stmt *st, int col) {
        return (const char *)sqlite3_column_text(st, col);
}

/* Whether the controller recorded for a run is gone: no pid recorded (as
 * the reference projects it), no such pid, a zombie, or (when the start time
 * is known) another process under a recycled pid. /proc unreadable for
 * another reason counts as alive. The pid is only meaningful in the pid
 * namespace of the host that wrote it. */
static bool controller_gone(sqlite3_stmt *st, int pid_col, int start_col) {
        if (sqlite3_column_type(st, pid_col) == SQLITE_NULL) /* before any conversion */
                return true;
        int64_t pid = sqlite3_column_int64(st, pid_col);
        int64_t start = sqlite3_column_int64(st, start_col);
        if (pid <= 0 || pid > INT_MAX)
                return true;
        if (start > 0) {
                struct proc_identity id = { .pid = (pid_t)pid, .start_time = (uint64_t)start };
                return proc_state(&id, NULL, NULL) == -ESRCH;
        }
        struct proc_identity now;
        return proc_identity_read((pid_t)pid, &now, NULL) == -ESRCH;
}

#define RUN_SUMMARY_COLUMNS                                                                                 \
        "id, experiment_name, kind, status, verdict, started_at, ended_at, engine, plan_fingerprint, "      \
        "controller_pid, controller_start_time, "                                                           \
        "(SELECT count(*) FROM fault_leases l WHERE l.run_id = runs.id "                                    \
        "AND l.state NOT IN ('released', 'expired'))"
#define RUN_DETAIL_COLUMNS                                                                                  \
        RUN_SUMMARY_COLUMNS ", spec_json, plan_json, criteria_json, summary_md, execution_intent, "         \
                            "env_fingerprint, break_glass"

static json_t *run_json(sqlite3_stmt *st, bool detail) {
        const char *recorded = column_text(st, 3);
        bool stale = !evidence_run_status_is_terminal(recorded) && controller_gone(st, 9, 10);
        json_t *j = json_pack(
                "{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "id",
                column_text(st, 0), "experiment_name", column_text(st, 1), "kind", column_text(st, 2),
                "status", stale ? "stale" : recorded, "recorded_status", recorded, "verdict",
                evidence_column_string(st, 4), "started_at", evidence_column_string(st, 5), "ended_at",
                evidence_column_string(st, 6), "engine", evidence_column_string(st, 7), "plan_fingerprint",
                evidence_column_string(st, 8), "controller_pid", column_int_or_null(st, 9),
                "controller_start_time", column_int_or_null(st, 10), "open_leases",
                (json_int_t)sqlite3_column_int64(st, 11));
        if (j && detail &&
            (json_object_set_new(j, "spec", evidence_column_json(st, 12)) < 0 ||
             json_object_set_new(j, "plan", evidence_column_json(st, 13)) < 0 ||
             json_object_set_new(j, "criteria", evidence_column_json(st, 14)) < 0 ||
             json_object_set_new(j, "summary_md", evidence_column_string(st, 15)) < 0 ||
             json_object_set_new(j, "execution_intent", evidence_column_string(st, 16)) < 0 ||
             json_object_set_new(j, "env_fingerprint", evidence_column_string(st, 17)) < 0 ||
             json_object_set_new(j, "break_glass", evidence_column_string(st, 18)) < 0)) {
                json_decref(j);
                return NULL;
        }
        return j;
}

int evidence_runs_json(
        struct evidence *ev, const char *run_id, size_t limit, json_t **ret, struct mh_error *reterr) {
        static const char op[] = "listing the runs";
        int64_t lim = limit == 0 || limit > (size_t)INT64_MAX ? -1 : (int64_t)limit;

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT " RUN_SUMMARY_COLUMNS " FROM runs WHERE (?1 IS NULL OR id = ?1) "
                "ORDER BY started_at DESC, rowid DESC LIMIT ?2",
                "tI", run_id, lim);
        if (r < 0)
                return r;
        json_t *a = json_array();
        if (!a)
                return json_fail(op, reterr);
        while ((r = evidence_step(ev, st, op, reterr)) > 0)
                if (json_array_append_new(a, run_json(st, false)) < 0) {
                        r = json_fail(op, reterr);
                        break;
                }
        if (r >= 0 && run_id && json_array_size(a) == 0)
                r = evidence_no_run(op, run_id, reterr);
        if (r < 0) {
                json_decref(a);
                return r;
        }
        *ret = a;
        return 0;
}

int evidence_runs_count(struct evidence *ev, size_t *ret, struct mh_error *reterr) {
        static const char op[] = "counting the runs";

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(ev, op, &st, reterr, "SELECT count(*) FROM runs", NULL);
        if (r >= 0)
                r = evidence_step(ev, st, op, reterr);
        if (r < 0)
                return r;
        *ret = r > 0 ? (size_t)sqlite3_column_int64(st, 0) : 0;
        return 0;
}

json_t *evidence_lease_json(const struct lease *l, const char *now) {
        bool open = !lease_state_is_safe_terminal(l->state);
        bool overdue = open && l->expires_at[0] && strcmp(now, l->expires_at) > 0;
        return json_pack(
                "{s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:s, s:s, s:s?, "
                "s:s?, "
                "s:s?, s:s?}",
                "id", l->id, "run_id", l->run_id, "fault_id", l->fault_id, "state",
                lease_state_to_string(l->state), "open", open, "overdue", overdue, "owner_agent",
                l->owner_agent, "targets", evidence_parse_json_text(l->targets_json), "undo",
                evidence_parse_json_text(l->undo_json), "verify", evidence_parse_json_text(l->verify_json),
                "runtime_identity", evidence_parse_json_text(l->runtime_identity_json), "params",
                evidence_parse_json_text(l->params_json), "net", evidence_parse_json_text(l->net_json),
                "ttl_seconds", (json_int_t)l->ttl_seconds, "created_at", l->created_at, "expires_at",
                l->expires_at, "injected_at", empty_to_null(l->injected_at), "released_at",
                empty_to_null(l->released_at), "release_mechanism", l->release_mechanism, "escalation_notes",
                l->escalation_notes);
}

int evidence_leases_json(
        struct evidence *ev, const char *run_id, bool only_open, json_t **ret, struct mh_error *reterr) {
        static const char op[] = "listing the leases";
        struct lease *leases = NULL;
        size_t n = 0;
        int r;

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin_read(ev, &txn, op, reterr)) < 0)
                return r;
        if (run_id && (r = evidence_run_status_get(ev, op, run_id, NULL, reterr)) < 0)
                return r;
        if ((r = evidence_lease_list_locked(ev, op, run_id, only_open, &leases, &n, reterr)) < 0)
                return r;

        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                if (json_array_append_new(a, evidence_lease_json(&leases[i], now)) < 0) {
                        json_decref(a);
                        a = NULL;
                }
        lease_array_free(leases, n);
        if (!a)
                return json_fail(op, reterr);
        *ret = a;
        return 0;
}

int evidence_observations_json(
        struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr) {
        static const char op[] = "reading a run's observations";
        int r = evidence_check_str(op, "run id", run_id, reterr);
        if (r < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        if ((r = evidence_begin_read(ev, &txn, op, reterr)) < 0 ||
            (r = evidence_run_status_get(ev, op, run_id, NULL, reterr)) < 0)
                return r;
        r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT id, timestamp, kind, source, data_json FROM observations WHERE run_id = ? "
                "ORDER BY timestamp, id",
                "t", run_id);
        if (r < 0)
                return r;
        json_t *a = json_array();
        if (!a)
                return json_fail(op, reterr);
        while ((r = evidence_step(ev, st, op, reterr)) > 0)
                if (json_array_append_new(
                            a, json_pack(
                                       "{s:I, s:s, s:s, s:s, s:o}", "id",
                                       (json_int_t)sqlite3_column_int64(st, 0), "timestamp",
                                       column_text(st, 1), "kind", column_text(st, 2), "source",
                                       column_text(st, 3), "data", evidence_column_json(st, 4))) < 0) {
                        r = json_fail(op, reterr);
                        break;
                }
        if (r < 0) {
                json_decref(a);
                return r;
        }
        *ret = a;
        return 0;
}

/* ---- history ---- */

/* Entries recorded in the same millisecond are ordered by kind, in the order
 * a runner writes them, then by insertion. */
enum timeline_rank {
        RANK_STEP,
        RANK_LEASE,
        RANK_INVOCATION,
        RANK_RECOVERY,
        RANK_EVENT,
        RANK_OBSERVATION,
};

struct timeline_entry {
        char at[EVIDENCE_TIMESTAMP_MAX];
        enum timeline_rank rank;
        int64_t seq;
        json_t *ref;
};

struct timeline {
        struct timeline_entry *v;
        size_t n, cap;
};

static void timeline_done(struct timeline *t) {
        for (size_t i = 0; i < t->n; i++)
                json_decref(t->v[i].ref);
        free(t->v);
}

/* Adds a reference {at, type, id[, kind]} to the record j (not taken). */
static int timeline_add(
        struct timeline *t, const char *at, enum timeline_rank rank, int64_t seq, const char *type,
        const json_t *j) {
        json_t *ref = json_pack("{s:s?, s:s, s:O}", "at", at, "type", type, "id", json_object_get(j, "id"));
        if (!ref)
                return -ENOMEM;
        if (rank == RANK_EVENT && json_object_set(ref, "kind", json_object_get(j, "kind")) < 0) {
                json_decref(ref);
                return -ENOMEM;
        }
        if (t->n == t->cap) {
                size_t ncap = t->cap ? t->cap * 2 : 32;
                struct timeline_entry *nv = reallocarray(t->v, ncap, sizeof(*nv));
                if (!nv) {
                        json_decref(ref);
                        return -ENOMEM;
                }
                t->v = nv;
                t->cap = ncap;
        }
        struct timeline_entry *e = &t->v[t->n++];
        snprintf(e->at, sizeof(e->at), "%s", at ? at : "");
        e->rank = rank;
        e->seq = seq;
        e->ref = ref;
        return 0;
}

static int timeline_cmp(const void *a, const void *b) {
        const struct timeline_entry *x = a, *y = b;
        int c = strcmp(x->at, y->at);
        if (c != 0)
                return c;
        if (x->rank != y->rank)
                return x->rank < y->rank ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef json_t *(*row_json_fn)(sqlite3_stmt *st);

static json_t *step_row_json(sqlite3_stmt *st) {
        return json_pack(
                "{s:s, s:I, s:o, s:s, s:o, s:s, s:o, s:o, s:o}", "id", column_text(st, 2), "seq",
                (json_int_t)sqlite3_column_int64(st, 3), "parent_step_id", evidence_column_string(st, 4),
                "action_type", column_text(st, 5), "action", evidence_column_json(st, 6), "status",
                column_text(st, 7), "started_at", evidence_column_string(st, 1), "ended_at",
                evidence_column_string(st, 8), "error", evidence_column_string(st, 9));
}

static json_t *invocation_row_json(sqlite3_stmt *st) {
        return json_pack(
                "{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:s}", "id", column_text(st, 2), "step_run_id",
                evidence_column_string(st, 3), "fault_id", column_text(st, 4), "targets",
                evidence_column_json(st, 5), "params", evidence_column_json(st, 6), "backend",
                evidence_column_string(st, 7), "lease_id", evidence_column_string(st, 8), "at",
                column_text(st, 1));
}

static json_t *recovery_row_json(sqlite3_stmt *st) {
        return json_pack(
                "{s:I, s:s, s:I, s:s, s:o, s:b, s:s}", "id", (json_int_t)sqlite3_column_int64(st, 0),
                "lease_id", column_text(st, 2), "attempt", (json_int_t)sqlite3_column_int64(st, 3),
                "mechanism", column_text(st, 4), "undo_results", evidence_column_json(st, 5), "verified",
                sqlite3_column_int(st, 6) != 0, "at", column_text(st, 1));
}

static json_t *event_row_json(sqlite3_stmt *st) {
        return json_pack(
                "{s:I, s:s, s:s, s:o}", "id", (json_int_t)sqlite3_column_int64(st, 0), "ts",
                column_text(st, 1), "kind", column_text(st, 2), "payload", evidence_column_json(st, 3));
}

static json_t *observation_row_json(sqlite3_stmt *st) {
        return json_pack(
                "{s:I, s:s, s:s, s:o, s:s}", "id", (json_int_t)sqlite3_column_int64(st, 0), "kind",
                column_text(st, 2), "source", column_text(st, 3), "data", evidence_column_json(st, 4),
                "timestamp", column_text(st, 1));
}

/* Each query binds the run id; column 0 is the insertion order, column 1
 * the time, the rest go to fn. */
static const struct history_source {
        const char *key, *type, *sql;
        enum timeline_rank rank;
        row_json_fn fn;
} history_sources[] = {
        { "steps", "step",
          "SELECT rowid, started_at, id, seq, parent_step_id, action_type, action_json, status, ended_at, "
          "error FROM step_runs WHERE run_id = ? ORDER BY started_at, rowid",
          RANK_STEP, step_row_json },
        { "invocations", "invocation",
          "SELECT rowid, at, id, step_run_id, fault_id, targets_json, params_json, backend, lease_id "
          "FROM fault_invocations WHERE run_id = ? ORDER BY at, rowid",
          RANK_INVOCATION, invocation_row_json },
        { "recovery_records", "recovery",
          "SELECT r.id, r.at, r.lease_id, r.attempt, r.mechanism, r.undo_results_json, r.verified "
          "FROM recovery_records r JOIN fault_leases l ON l.id = r.lease_id WHERE l.run_id = ? "
          "ORDER BY r.at, r.id",
          RANK_RECOVERY, recovery_row_json },
        { "events", "event",
          "SELECT id, ts, kind, payload_json FROM events WHERE run_id = ? ORDER BY ts, id", RANK_EVENT,
          event_row_json },
        { "observations", "observation",
          "SELECT id, timestamp, kind, source, data_json FROM observations WHERE run_id = ? "
          "ORDER BY timestamp, id",
          RANK_OBSERVATION, observation_row_json },
};

static int history_collect(
        struct evidence *ev, const char *op, json_t *h, struct timeline *t, const struct history_source *src,
        const char *run_id, struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(ev, op, &st, reterr, src->sql, "t", run_id);
        if (r < 0)
                return r;
        json_t *a = json_array();
        if (!a || json_object_set_new(h, src->key, a) < 0)
                return json_fail(op, reterr);
        while ((r = evidence_step(ev, st, op, reterr)) > 0) {
                json_t *j = src->fn(st);
                if (json_array_append_new(a, j) < 0 ||
                    timeline_add(
                            t, column_text(st, 1), src->rank, sqlite3_column_int64(st, 0), src->type, j) < 0)
                        return json_fail(op, reterr);
        }
        return r;
}

static int history_leases(
        struct evidence *ev, const char *op, json_t *h, struct timeline *t, const char *run_id,
        struct mh_error *reterr) {
        struct lease *leases = NULL;
        size_t n = 0;
        int r = evidence_lease_list_locked(ev, op, run_id, false, &leases, &n, reterr);
        if (r < 0)
                return r;
        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);
        json_t *a = json_array();
        if (!a || json_object_set_new(h, "leases", a) < 0)
                r = json_fail(op, reterr);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                json_t *j = evidence_lease_json(&leases[i], now);
                if (json_array_append_new(a, j) < 0 ||
                    timeline_add(t, leases[i].created_at, RANK_LEASE, (int64_t)i, "lease", j) < 0)
                        r = json_fail(op, reterr);
        }
        lease_array_free(leases, n);
        return r;
}

int evidence_history_json(struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr) {
        static const char op[] = "reading a run's history";
        int r = evidence_check_str(op, "run id", run_id, reterr);
        if (r < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        /* One read transaction: a snapshot, even while a runner writes. */
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        _cleanup_(timeline_done) struct timeline t = { 0 };
        _cleanup_(json_decrefp) json_t *h = NULL;
        if ((r = evidence_begin_read(ev, &txn, op, reterr)) < 0)
                return r;
        {
                _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
                r = evidence_prepare(
                        ev, op, &st, reterr, "SELECT " RUN_DETAIL_COLUMNS " FROM runs WHERE id = ?", "t",
                        run_id);
                if (r < 0)
                        return r;
                r = evidence_step(ev, st, op, reterr);
                if (r < 0)
                        return r;
                if (r == 0)
                        return evidence_no_run(op, run_id, reterr);
                h = json_pack("{s:o}", "run", run_json(st, true));
                if (!h)
                        return json_fail(op, reterr);
        }
        for (size_t i = 0; i < ELEMENTSOF(history_sources); i++)
                if ((r = history_collect(ev, op, h, &t, &history_sources[i], run_id, reterr)) < 0)
                        return r;
        if ((r = history_leases(ev, op, h, &t, run_id, reterr)) < 0)
                return r;
        if ((r = evidence_commit(&txn, op, reterr)) < 0)
                return r;

        if (t.n) /* qsort() takes no NULL base, even for 0 items */
                qsort(t.v, t.n, sizeof(*t.v), timeline_cmp);
        json_t *timeline = json_array();
        if (!timeline || json_object_set_new(h, "timeline", timeline) < 0)
                return json_fail(op, reterr);
        for (size_t i = 0; i < t.n; i++)
                if (json_array_append_new(timeline, TAKE_PTR(t.v[i].ref)) < 0)
                        return json_fail(op, reterr);
        *ret = TAKE_PTR(h);
        return 0;
}
