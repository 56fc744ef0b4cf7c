/* The lease journal: the state machine, the write-ahead record, and
 * compare-and-set transitions (docs/internals/lease-journal.md). */

#include "lease.h"

#include <stdio.h>

#include "basic/string-table.h"
#include "evidence-internal.h"

static const char *const lease_state_table[_LEASE_STATE_MAX] = {
        [LEASE_PENDING] = "pending",   [LEASE_ACTIVE] = "active",     [LEASE_RELEASING] = "releasing",
        [LEASE_RELEASED] = "released", [LEASE_EXPIRED] = "expired",   [LEASE_ORPHANED] = "orphaned",
        [LEASE_DIRTY] = "dirty",       [LEASE_KEPT] = "kept_faulted",
};
DEFINE_STRING_TABLE_LOOKUP(lease_state, enum lease_state)

static const char *const lease_mechanism_table[_LEASE_MECHANISM_MAX] = {
        [LEASE_MECHANISM_NORMAL] = "normal",
        [LEASE_MECHANISM_WATCHDOG] = "watchdog",
        [LEASE_MECHANISM_JANITOR] = "janitor",
        [LEASE_MECHANISM_MANUAL] = "manual",
        [LEASE_MECHANISM_KEPT_FAULTED] = "kept_faulted",
};
DEFINE_STRING_TABLE_LOOKUP(lease_mechanism, enum lease_mechanism)

/* The whole state machine; every edge is explained in the lease-journal doc. */
static const bool transitions[_LEASE_STATE_MAX][_LEASE_STATE_MAX] = {
        [LEASE_PENDING] = { [LEASE_ACTIVE] = true, [LEASE_RELEASING] = true, [LEASE_EXPIRED] = true },
        [LEASE_ACTIVE] = { [LEASE_RELEASING] = true,
                           [LEASE_EXPIRED] = true,
                           [LEASE_ORPHANED] = true,
                           [LEASE_KEPT] = true },
        [LEASE_ORPHANED] = { [LEASE_RELEASING] = true, [LEASE_EXPIRED] = true },
        [LEASE_RELEASING] = { [LEASE_RELEASED] = true, [LEASE_DIRTY] = true },
        [LEASE_DIRTY] = { [LEASE_EXPIRED] = true, [LEASE_RELEASING] = true },
        [LEASE_KEPT] = { [LEASE_RELEASING] = true, [LEASE_EXPIRED] = true },
};

bool lease_state_is_safe_terminal(enum lease_state s) {
        return s == LEASE_RELEASED || s == LEASE_EXPIRED;
}

bool lease_transition_allowed(enum lease_state from, enum lease_state to) {
        if ((unsigned)from >= _LEASE_STATE_MAX || (unsigned)to >= _LEASE_STATE_MAX)
                return false;
        return transitions[from][to];
}

#define LEASE_COLUMNS                                                                                       \
        "id, run_id, fault_id, owner_agent, targets_json, undo_json, verify_json, runtime_identity, "       \
        "release_mechanism, escalation_notes, state, ttl_seconds, created_at, expires_at, injected_at, "    \
        "released_at, params_json, net_json"

static const char *strna(const char *s) {
        return s ? s : "n/a";
}

static int oom(const char *op, struct mh_error *reterr) {
        return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "evidence", "%s: out of memory", op);
}

static int no_lease(const char *op, const char *lease_id, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -ENOENT, MH_EXIT_GENERAL_FAILURE, "evidence_no_lease",
                "%s: no lease '%s' in the evidence database", op, lease_id);
}

static int dup_column(sqlite3_stmt *st, int col, char **ret) {
        if (sqlite3_column_type(st, col) == SQLITE_NULL) {
                *ret = NULL;
                return 0;
        }
        const char *t = (const char *)sqlite3_column_text(st, col);
        *ret = t ? strdup(t) : NULL;
        return *ret ? 0 : -ENOMEM;
}

static void copy_column(sqlite3_stmt *st, int col, char *buf, size_t size) {
        const char *t = (const char *)sqlite3_column_text(st, col);
        snprintf(buf, size, "%s", t ? t : "");
}

static int lease_from_row(sqlite3_stmt *st, const char *op, struct lease *ret, struct mh_error *reterr) {
        struct lease l = { .state = LEASE_PENDING };
        char **strings[] = {
                &l.run_id,           &l.fault_id,    &l.owner_agent,           &l.targets_json,
                &l.undo_json,        &l.verify_json, &l.runtime_identity_json, &l.release_mechanism,
                &l.escalation_notes,
        };
        copy_column(st, 0, l.id, sizeof(l.id));
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                if (dup_column(st, (int)i + 1, strings[i]) < 0) {
                        lease_done(&l);
                        return oom(op, reterr);
                }
        int s = lease_state_from_string((const char *)sqlite3_column_text(st, 10));
        if (s < 0) {
                lease_done(&l);
                return mh_error_set(
                        reterr, -EBADMSG, MH_EXIT_GENERAL_FAILURE, "evidence",
                        "%s: lease '%s' has an unknown state", op, (const char *)sqlite3_column_text(st, 0));
        }
        l.state = (enum lease_state)s;
        l.ttl_seconds = (unsigned)sqlite3_column_int64(st, 11);
        copy_column(st, 12, l.created_at, sizeof(l.created_at));
        copy_column(st, 13, l.expires_at, sizeof(l.expires_at));
        copy_column(st, 14, l.injected_at, sizeof(l.injected_at));
        copy_column(st, 15, l.released_at, sizeof(l.released_at));
        if (dup_column(st, 16, &l.params_json) < 0 || dup_column(st, 17, &l.net_json) < 0) {
                lease_done(&l);
                return oom(op, reterr);
        }
        *ret = l;
        return 0;
}

void lease_done(struct lease *l) {
        if (!l)
                return;
        free(l->run_id);
        free(l->fault_id);
        free(l->owner_agent);
        free(l->targets_json);
        free(l->undo_json);
        free(l->verify_json);
        free(l->runtime_identity_json);
        free(l->release_mechanism);
        free(l->escalation_notes);
        free(l->params_json);
        free(l->net_json);
        *l = (struct lease){ .state = LEASE_PENDING };
}

void lease_array_free(struct lease *a, size_t n) {
        for (size_t i = 0; a && i < n; i++)
                lease_done(&a[i]);
        free(a);
}

/* The payload of a lease.state_changed event (malloc()ed), NULL when out of memory. */
static char *state_change_payload(
        const char *lease_id, const char *fault_id, const char *from, const char *to,
        const char *mechanism) {
        json_t *j = json_pack(
                "{s:s, s:s, s:s?, s:s, s:s?}", "lease_id", lease_id, "fault_id", fault_id, "from", from,
                "to", to, "release_mechanism", mechanism);
        char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        return s;
}

static int record_state_change(
        struct evidence *ev, const char *op, const char *run_id, const char *lease_id, const char *fault_id,
        const char *from, const char *to, const char *mechanism, const char *now, struct mh_error *reterr) {
        _cleanup_free_ char *payload = state_change_payload(lease_id, fault_id, from, to, mechanism);
        if (!payload)
                return oom(op, reterr);
        int r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO events (run_id, ts, kind, payload_json) VALUES (?, ?, 'lease.state_changed', "
                "?)",
                "ttt", run_id, now, payload);
        return r < 0 ? r : 0;
}

static int ttl_check(const char *op, unsigned *ttl, struct mh_error *reterr) {
        if (*ttl == 0)
                *ttl = LEASE_TTL_DEFAULT_S;
        if (*ttl > LEASE_TTL_MAX_S)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: ttl %u s is longer than %u s", op, *ttl, LEASE_TTL_MAX_S);
        return 0;
}

int lease_create(
        struct evidence *ev, const struct lease_new *l, char ret_id[LEASE_ID_MAX], struct mh_error *reterr) {
        static const char op[] = "journalling a lease";
        int r;
        /* The write-ahead record must be enough to undo and verify the fault
         * on its own, so the ops and probes are required now, not later. */
        if ((r = evidence_check_str(op, "run id", l->run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "fault id", l->fault_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "owner agent", l->owner_agent, reterr)) < 0 ||
            (r = evidence_check_json(op, "targets_json", l->targets_json, JSON_REQUIRED, reterr)) < 0 ||
            (r = evidence_check_json(op, "undo_json", l->undo_json, JSON_NONEMPTY, reterr)) < 0 ||
            (r = evidence_check_json(op, "verify_json", l->verify_json, JSON_NONEMPTY, reterr)) < 0 ||
            (r = evidence_check_json(
                     op, "runtime_identity_json", l->runtime_identity_json, JSON_OPTIONAL, reterr)) < 0 ||
            (r = evidence_check_json(op, "params_json", l->params_json, JSON_OPTIONAL, reterr)) < 0 ||
            (r = evidence_check_json(op, "net_json", l->net_json, JSON_OPTIONAL, reterr)) < 0)
                return r;
        unsigned ttl = l->ttl_seconds;
        if ((r = ttl_check(op, &ttl, reterr)) < 0)
                return r;

        char id[LEASE_ID_MAX], now[EVIDENCE_TIMESTAMP_MAX], expires[EVIDENCE_TIMESTAMP_MAX];
        if ((r = evidence_random_id("l-", id, reterr)) < 0)
                return r;
        int64_t ms = evidence_now_ms();
        evidence_format_time(ms, now);
        evidence_format_time(ms + (int64_t)ttl * 1000, expires);

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        _cleanup_free_ char *run_status = NULL;
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = evidence_run_status_get(ev, op, l->run_id, &run_status, reterr)) < 0)
                return r;
        /* A lease of an ended run could break "a completed run holds no open lease". */
        if (evidence_run_status_is_terminal(run_status))
                return mh_error_set(
                        reterr, -ESTALE, MH_EXIT_GENERAL_FAILURE, "evidence_run_ended",
                        "%s: run '%s' has ended (%s); it takes no new lease", op, l->run_id, run_status);
        if (l->target_key && (r = lease_conflict_check(ev, op, l->target_key, l->fault_id, reterr)) < 0)
                return r;
        r = evidence_exec(
                ev, op, reterr,
                "INSERT INTO fault_leases (id, state, owner_agent, undo_json, verify_json, ttl_seconds, "
                "expires_at, run_id, fault_id, targets_json, created_at, created_epoch_s, runtime_identity, "
                "params_json, net_json, target_key) "
                "VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                "tttt"
                "It"
                "tttt"
                "It"
                "ttt",
                id, l->owner_agent, l->undo_json, l->verify_json, (int64_t)ttl, expires, l->run_id,
                l->fault_id, l->targets_json, now, (int64_t)(ms / 1000), l->runtime_identity_json,
                l->params_json, l->net_json, l->target_key);
        if (r < 0)
                return r;
        r = record_state_change(ev, op, l->run_id, id, l->fault_id, NULL, "pending", NULL, now, reterr);
        if (r < 0)
                return r;
        /* synchronous=FULL: when COMMIT returns, the record is on disk. */
        r = evidence_commit(&txn, op, reterr);
        if (r < 0)
                return r;
        memcpy(ret_id, id, sizeof(id));
        return 0;
}

struct lease_row {
        char *run_id, *fault_id;
        enum lease_state state;
        bool has_undo, has_verify, has_identity, has_notes;
};

static void lease_row_done(struct lease_row *r) {
        free(r->run_id);
        free(r->fault_id);
}

/* What a transition needs to know about the lease, read in its transaction. */
static int lease_row_read(
        struct evidence *ev, const char *op, const char *lease_id, struct lease_row *ret,
        struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT state, run_id, fault_id, undo_json, verify_json, runtime_identity, escalation_notes "
                "FROM fault_leases WHERE id = ?",
                "t", lease_id);
        if (r < 0)
                return r;
        r = evidence_step(ev, st, op, reterr);
        if (r < 0)
                return r;
        if (r == 0)
                return no_lease(op, lease_id, reterr);
        int s = lease_state_from_string((const char *)sqlite3_column_text(st, 0));
        if (s < 0)
                return mh_error_set(
                        reterr, -EBADMSG, MH_EXIT_GENERAL_FAILURE, "evidence",
                        "%s: lease '%s' has an unknown state", op, lease_id);
        struct lease_row row = {
                .state = (enum lease_state)s,
                .has_undo = !evidence_json_is_empty((const char *)sqlite3_column_text(st, 3)),
                .has_verify = !evidence_json_is_empty((const char *)sqlite3_column_text(st, 4)),
                .has_identity = !evidence_json_is_empty((const char *)sqlite3_column_text(st, 5)),
                .has_notes = sqlite3_column_type(st, 6) != SQLITE_NULL && sqlite3_column_bytes(st, 6) > 0,
        };
        if (dup_column(st, 1, &row.run_id) < 0 || dup_column(st, 2, &row.fault_id) < 0) {
                lease_row_done(&row);
                return oom(op, reterr);
        }
        *ret = row;
        return 0;
}

static int refuse(
        const char *op, const char *lease_id, const char *to, const char *what, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "lease_invariant",
                "%s: lease '%s' cannot become %s %s", op, lease_id, to, what);
}

static int update_check(const char *op, const struct lease_update *upd, struct mh_error *reterr) {
        int r;
        if (!upd)
                return 0;
        /* The undo ops and the identity they act on are what recovery works
         * from: an update may refine them, never empty them. */
        if ((upd->undo_json &&
             (r = evidence_check_json(op, "undo_json", upd->undo_json, JSON_NONEMPTY, reterr)) < 0) ||
            (upd->runtime_identity_json &&
             (r = evidence_check_json(
                      op, "runtime_identity_json", upd->runtime_identity_json, JSON_NONEMPTY, reterr)) < 0))
                return r;
        if (upd->release_mechanism && lease_mechanism_from_string(upd->release_mechanism) < 0)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: invalid release mechanism '%s' (normal, watchdog, janitor, manual or "
                        "kept_faulted)",
                        op, upd->release_mechanism);
        if (upd->escalation_notes &&
            (r = evidence_check_str(op, "escalation notes", upd->escalation_notes, reterr)) < 0)
                return r;
        return 0;
}

int lease_transition(
        struct evidence *ev, const char *lease_id, enum lease_state from, enum lease_state to,
        const struct lease_update *upd, struct mh_error *reterr) {
        static const char op[] = "journalling a lease's state";
        static const struct lease_update none = { .set_injected_at = false };
        int r;

        if ((r = evidence_check_str(op, "lease id", lease_id, reterr)) < 0)
                return r;
        if (!lease_transition_allowed(from, to))
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "lease_transition",
                        "%s: lease '%s': %s -> %s is not an allowed transition", op, lease_id,
                        strna(lease_state_to_string(from)), strna(lease_state_to_string(to)));
        if ((r = update_check(op, upd, reterr)) < 0)
                return r;
        if (!upd)
                upd = &none;

        const char *from_s = lease_state_to_string(from), *to_s = lease_state_to_string(to);
        char now[EVIDENCE_TIMESTAMP_MAX];
        evidence_now(now, NULL);

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        _cleanup_(lease_row_done) struct lease_row row = { .run_id = NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = lease_row_read(ev, op, lease_id, &row, reterr)) < 0)
                return r;
        if (row.state != from)
                return mh_error_set(
                        reterr, -ESTALE, MH_EXIT_GENERAL_FAILURE, "lease_stale",
                        "%s: lease '%s' is %s, not %s", op, lease_id, lease_state_to_string(row.state),
                        from_s);

        if (to == LEASE_ACTIVE) {
                if (!row.has_undo && !upd->undo_json)
                        return refuse(op, lease_id, to_s, "without undo ops", reterr);
                if (!row.has_verify)
                        return refuse(op, lease_id, to_s, "without verify probes", reterr);
                if (!row.has_identity && !upd->runtime_identity_json)
                        return refuse(op, lease_id, to_s, "without a runtime identity", reterr);
        }
        if (to == LEASE_DIRTY && !row.has_notes && !upd->escalation_notes)
                return refuse(op, lease_id, to_s, "without escalation notes", reterr);

        /* The compare-and-set itself: the state is matched again in the WHERE
         * clause, so the row changes only if it is still in from. */
        r = evidence_exec(
                ev, op, reterr,
                "UPDATE fault_leases SET state = ?1, runtime_identity = coalesce(?2, runtime_identity), "
                "undo_json = coalesce(?3, undo_json), release_mechanism = coalesce(?4, release_mechanism), "
                "escalation_notes = coalesce(?5, escalation_notes), "
                "injected_at = CASE WHEN ?6 THEN ?7 ELSE injected_at END, "
                "released_at = CASE WHEN ?8 THEN ?7 ELSE released_at END "
                "WHERE id = ?9 AND state = ?10",
                "ttttt"
                "btb"
                "tt",
                to_s, upd->runtime_identity_json, upd->undo_json, upd->release_mechanism,
                upd->escalation_notes, (int)upd->set_injected_at, now, (int)upd->set_released_at, lease_id,
                from_s);
        if (r < 0)
                return r;
        if (r == 0)
                return mh_error_set(
                        reterr, -ESTALE, MH_EXIT_GENERAL_FAILURE, "lease_stale",
                        "%s: lease '%s' is no longer %s", op, lease_id, from_s);
        r = record_state_change(
                ev, op, row.run_id, lease_id, row.fault_id, from_s, to_s, upd->release_mechanism, now,
                reterr);
        if (r < 0)
                return r;
        return evidence_commit(&txn, op, reterr);
}

int lease_extend(struct evidence *ev, const char *lease_id, unsigned ttl_seconds, struct mh_error *reterr) {
        static const char op[] = "extending a lease";
        int r;
        if ((r = evidence_check_str(op, "lease id", lease_id, reterr)) < 0 ||
            (r = ttl_check(op, &ttl_seconds, reterr)) < 0)
                return r;
        char expires[EVIDENCE_TIMESTAMP_MAX];
        evidence_format_time(evidence_now_ms() + (int64_t)ttl_seconds * 1000, expires);

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        _cleanup_(lease_row_done) struct lease_row row = { .run_id = NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = lease_row_read(ev, op, lease_id, &row, reterr)) < 0)
                return r;
        if (row.state != LEASE_PENDING && row.state != LEASE_ACTIVE)
                return mh_error_set(
                        reterr, -ESTALE, MH_EXIT_GENERAL_FAILURE, "lease_stale",
                        "%s: lease '%s' is %s; only a pending or active lease can be extended", op, lease_id,
                        lease_state_to_string(row.state));
        r = evidence_exec(
                ev, op, reterr, "UPDATE fault_leases SET ttl_seconds = ?, expires_at = ? WHERE id = ?",
                "Itt", (int64_t)ttl_seconds, expires, lease_id);
        if (r < 0)
                return r;
        return evidence_commit(&txn, op, reterr);
}

int lease_get(struct evidence *ev, const char *lease_id, struct lease *ret, struct mh_error *reterr) {
        static const char op[] = "reading a lease";
        int r = evidence_check_str(op, "lease id", lease_id, reterr);
        if (r < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        r = evidence_prepare(
                ev, op, &st, reterr, "SELECT " LEASE_COLUMNS " FROM fault_leases WHERE id = ?", "t",
                lease_id);
        if (r < 0)
                return r;
        r = evidence_step(ev, st, op, reterr);
        if (r < 0)
                return r;
        if (r == 0)
                return no_lease(op, lease_id, reterr);
        return lease_from_row(st, op, ret, reterr);
}

int evidence_lease_list_locked(
        struct evidence *ev, const char *op, const char *run_id, bool only_open, struct lease **ret,
        size_t *ret_n, struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT " LEASE_COLUMNS " FROM fault_leases WHERE (?1 IS NULL OR run_id = ?1) "
                "AND (NOT ?2 OR state NOT IN ('released', 'expired')) ORDER BY created_at, rowid",
                "tb", run_id, (int)only_open);
        if (r < 0)
                return r;

        struct lease *a = NULL;
        size_t n = 0, cap = 0;
        while ((r = evidence_step(ev, st, op, reterr)) > 0) {
                if (n == cap) {
                        size_t ncap = cap ? cap * 2 : 8;
                        struct lease *na = reallocarray(a, ncap, sizeof(*a));
                        if (!na) {
                                r = oom(op, reterr);
                                break;
                        }
                        a = na;
                        cap = ncap;
                }
                r = lease_from_row(st, op, &a[n], reterr);
                if (r < 0)
                        break;
                n++;
        }
        if (r < 0) {
                lease_array_free(a, n);
                return r;
        }
        *ret = a;
        *ret_n = n;
        return 0;
}

int lease_list(
        struct evidence *ev, const char *run_id, bool only_open, struct lease **ret, size_t *ret_n,
        struct mh_error *reterr) {
        EVIDENCE_LOCK_SCOPE(ev);
        return evidence_lease_list_locked(ev, "lease_list", run_id, only_open, ret, ret_n, reterr);
}

int lease_forget(
        struct evidence *ev, const char *lease_id, const char *reason, enum lease_state *ret_from,
        struct mh_error *reterr) {
        static const char op[] = "forgetting a lease";
        struct lease l;
        char notes[1024];
        int r;
        if ((r = evidence_check_str(op, "reason", reason, reterr)) < 0 ||
            (r = lease_get(ev, lease_id, &l, reterr)) < 0)
                return r;
        enum lease_state from = l.state;
        lease_done(&l);
        if (lease_state_is_safe_terminal(from))
                return mh_error_set(
                        reterr, -EALREADY, MH_EXIT_VALIDATION_ERROR, "lease_closed",
                        "%s: lease %s is %s already: nothing to forget", op, lease_id,
                        lease_state_to_string(from));
        snprintf(
                notes, sizeof(notes), "forgotten by hand (was %s): %s", lease_state_to_string(from), reason);
        struct lease_update dirty = { .escalation_notes = notes }, expired = { .escalation_notes = notes,
                                                                               .release_mechanism = "manual",
                                                                               .set_released_at = true };
        if (from == LEASE_RELEASING &&
            (r = lease_transition(ev, lease_id, from, LEASE_DIRTY, &dirty, reterr)) < 0)
                return r;
        r = lease_transition(
                ev, lease_id, from == LEASE_RELEASING ? LEASE_DIRTY : from, LEASE_EXPIRED, &expired, reterr);
        if (r < 0 || (r = evidence_recovery_record(
                              ev, lease_id, 1, "manual", "{\"forgotten\":true}", false, reterr)) < 0)
                return r;
        *ret_from = from;
        return 0;
}
