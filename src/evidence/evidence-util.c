/* The primitives every file of src/evidence/ uses: the handle's lock,
 * SQLite error mapping, statements with bound parameters, transactions,
 * timestamps, ids and argument checks. */

#include "evidence.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

#include "basic/string-table.h"
#include "evidence-internal.h"

/* Any text we store: generous for a plan, but bounded. */
#define EVIDENCE_TEXT_MAX (16U * 1024 * 1024)

struct evidence *evidence_lock(struct evidence *ev) {
        int r = pthread_mutex_lock(&ev->lock);
        assert(r == 0);
        (void)r;
        return ev;
}

void evidence_unlockp(struct evidence **p) {
        if (*p)
                pthread_mutex_unlock(&(*p)->lock);
}

int evidence_errno(int rc) {
        switch (rc) {
        case SQLITE_CONSTRAINT_PRIMARYKEY:
        case SQLITE_CONSTRAINT_UNIQUE: return -EEXIST;
        case SQLITE_CONSTRAINT_FOREIGNKEY: return -ENOENT;
        default: break;
        }
        switch (rc & 0xff) {
        case SQLITE_OK:
        case SQLITE_ROW:
        case SQLITE_DONE: return 0;
        case SQLITE_BUSY:
        case SQLITE_LOCKED: return -EBUSY;
        case SQLITE_NOMEM: return -ENOMEM;
        case SQLITE_READONLY: return -EROFS;
        case SQLITE_PERM:
        case SQLITE_AUTH: return -EACCES;
        case SQLITE_FULL: return -ENOSPC;
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB: return -EBADMSG;
        case SQLITE_TOOBIG: return -E2BIG;
        case SQLITE_CONSTRAINT:
        case SQLITE_MISMATCH:
        case SQLITE_RANGE:
        case SQLITE_MISUSE: return -EINVAL;
        case SQLITE_CANTOPEN: return -ENOENT;
        default: return -EIO;
        }
}

int evidence_fail(struct evidence *ev, int rc, const char *op, struct mh_error *reterr) {
        /* The connection's extended code says more than a primary one
         * (a constraint's kind); it is ours alone while the lock is held. */
        if (ev && ev->db && (rc & 0xff) == (sqlite3_extended_errcode(ev->db) & 0xff))
                rc = sqlite3_extended_errcode(ev->db);
        if (rc == SQLITE_CONSTRAINT_COMMITHOOK && ev && ev->commit_refused[0]) {
                mh_error_set(
                        reterr, -ESTALE, MH_EXIT_GENERAL_FAILURE, "evidence", "%s: %s", op,
                        ev->commit_refused);
                ev->commit_refused[0] = '\0';
                return -ESTALE;
        }
        int code = evidence_errno(rc);
        if (code == 0)
                code = -EIO;
        /* The connection's message is about rc only when its code is rc's. */
        const char *msg = ev && ev->db && sqlite3_errcode(ev->db) == (rc & 0xff) ? sqlite3_errmsg(ev->db)
                                                                                 : sqlite3_errstr(rc);
        return mh_error_set(reterr, code, MH_EXIT_GENERAL_FAILURE, "evidence", "%s: %s", op, msg);
}

static int bind_va(
        struct evidence *ev, sqlite3_stmt *st, const char *op, struct mh_error *reterr, const char *types,
        va_list ap) {
        int n = types ? (int)strlen(types) : 0;
        assert(n == sqlite3_bind_parameter_count(st));
        for (int i = 0; i < n; i++) {
                int rc;
                switch (types[i]) {
                case 't': {
                        const char *s = va_arg(ap, const char *);
                        /* SQLITE_STATIC: every argument outlives the statement, which
                         * is finalized before the public call returns. */
                        rc = s ? sqlite3_bind_text(st, i + 1, s, -1, SQLITE_STATIC)
                               : sqlite3_bind_null(st, i + 1);
                        break;
                }
                case 'i': rc = sqlite3_bind_int(st, i + 1, va_arg(ap, int)); break;
                case 'I': rc = sqlite3_bind_int64(st, i + 1, (sqlite3_int64)va_arg(ap, int64_t)); break;
                case 'b': rc = sqlite3_bind_int(st, i + 1, va_arg(ap, int) ? 1 : 0); break;
                default: assert(!"unknown bind type"); rc = SQLITE_MISUSE;
                }
                if (rc != SQLITE_OK)
                        return evidence_fail(ev, rc, op, reterr);
        }
        return 0;
}

static int prepare_va(
        struct evidence *ev, const char *op, sqlite3_stmt **ret, struct mh_error *reterr, const char *sql,
        const char *types, va_list ap) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(ev->db, sql, -1, &st, NULL);
        if (rc != SQLITE_OK)
                return evidence_fail(ev, rc, op, reterr);
        int r = bind_va(ev, st, op, reterr, types, ap);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(st);
        return 0;
}

int evidence_prepare(
        struct evidence *ev, const char *op, sqlite3_stmt **ret, struct mh_error *reterr, const char *sql,
        const char *types, ...) {
        va_list ap;
        va_start(ap, types);
        int r = prepare_va(ev, op, ret, reterr, sql, types, ap);
        va_end(ap);
        return r;
}

int evidence_step(struct evidence *ev, sqlite3_stmt *st, const char *op, struct mh_error *reterr) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        return evidence_fail(ev, rc, op, reterr);
}

int evidence_exec(
        struct evidence *ev, const char *op, struct mh_error *reterr, const char *sql, const char *types,
        ...) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        va_list ap;
        va_start(ap, types);
        int r = prepare_va(ev, op, &st, reterr, sql, types, ap);
        va_end(ap);
        if (r < 0)
                return r;
        while ((r = evidence_step(ev, st, op, reterr)) > 0)
                ;
        if (r < 0)
                return r;
        return sqlite3_changes(ev->db);
}

static int begin(
        struct evidence *ev, struct evidence_txn *t, const char *sql, const char *op,
        struct mh_error *reterr) {
        int r = evidence_exec(ev, op, reterr, sql, NULL);
        if (r < 0)
                return r;
        t->ev = ev;
        return 0;
}

int evidence_begin(struct evidence *ev, struct evidence_txn *t, const char *op, struct mh_error *reterr) {
        return begin(ev, t, "BEGIN IMMEDIATE", op, reterr);
}

int evidence_begin_read(
        struct evidence *ev, struct evidence_txn *t, const char *op, struct mh_error *reterr) {
        return begin(ev, t, "BEGIN", op, reterr);
}

int evidence_commit(struct evidence_txn *t, const char *op, struct mh_error *reterr) {
        int r = evidence_exec(t->ev, op, reterr, "COMMIT", NULL);
        if (r < 0)
                return r; /* still open: the cleanup rolls it back */
        t->ev = NULL;
        return 0;
}

void evidence_txn_rollbackp(struct evidence_txn *t) {
        if (t->ev && !sqlite3_get_autocommit(t->ev->db))
                (void)sqlite3_exec(t->ev->db, "ROLLBACK", NULL, NULL, NULL);
        t->ev = NULL;
}

void evidence_format_time(int64_t epoch_ms, char buf[EVIDENCE_TIMESTAMP_MAX]) {
        time_t secs = (time_t)(epoch_ms / 1000);
        struct tm tm;
        if (!gmtime_r(&secs, &tm)) {
                snprintf(buf, EVIDENCE_TIMESTAMP_MAX, "1970-01-01T00:00:00.000Z");
                return;
        }
        char date[32];
        strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf, EVIDENCE_TIMESTAMP_MAX, "%s.%03dZ", date, (int)(epoch_ms % 1000));
}

int64_t evidence_now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void evidence_now(char buf[EVIDENCE_TIMESTAMP_MAX], int64_t *ret_epoch_s) {
        int64_t ms = evidence_now_ms();
        evidence_format_time(ms, buf);
        if (ret_epoch_s)
                *ret_epoch_s = ms / 1000;
}

int evidence_random_id(const char *prefix, char buf[EVIDENCE_ID_MAX], struct mh_error *reterr) {
        static const char hex[] = "0123456789abcdef";
        uint8_t bytes[8];
        size_t have = 0;
        while (have < sizeof(bytes)) {
                ssize_t n = getrandom(bytes + have, sizeof(bytes) - have, 0);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        int r = negative_errno();
                        return mh_error_set(
                                reterr, r, MH_EXIT_GENERAL_FAILURE, "evidence", "getrandom: %s",
                                strerror(-r));
                }
                have += (size_t)n;
        }
        size_t lp = strlen(prefix);
        assert(lp + 2 * sizeof(bytes) < EVIDENCE_ID_MAX);
        memcpy(buf, prefix, lp);
        for (size_t i = 0; i < sizeof(bytes); i++) {
                buf[lp + 2 * i] = hex[bytes[i] >> 4];
                buf[lp + 2 * i + 1] = hex[bytes[i] & 0xf];
        }
        buf[lp + 2 * sizeof(bytes)] = '\0';
        return 0;
}

int evidence_check_str(const char *op, const char *field, const char *s, struct mh_error *reterr) {
        if (!s || !*s)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument", "%s: %s is required",
                        op, field);
        if (strnlen(s, EVIDENCE_TEXT_MAX + 1) > EVIDENCE_TEXT_MAX)
                return mh_error_set(
                        reterr, -E2BIG, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: %s is longer than %u bytes", op, field, EVIDENCE_TEXT_MAX);
        return 0;
}

bool evidence_json_is_empty(const char *text) {
        json_t *j = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
        bool empty = !j || json_is_null(j) || (json_is_array(j) && json_array_size(j) == 0) ||
                     (json_is_object(j) && json_object_size(j) == 0) ||
                     (json_is_string(j) && json_string_length(j) == 0);
        json_decref(j);
        return empty;
}

int evidence_check_json(
        const char *op, const char *field, const char *text, enum evidence_json_need need,
        struct mh_error *reterr) {
        if (!text) {
                if (need == JSON_OPTIONAL)
                        return 0;
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument", "%s: %s is required",
                        op, field);
        }
        if (strnlen(text, EVIDENCE_TEXT_MAX + 1) > EVIDENCE_TEXT_MAX)
                return mh_error_set(
                        reterr, -E2BIG, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: %s is longer than %u bytes", op, field, EVIDENCE_TEXT_MAX);
        json_error_t err;
        json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
        if (!j)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument",
                        "%s: %s is not valid JSON: %s (at %d:%d)", op, field, err.text, err.line,
                        err.column);
        json_decref(j);
        if (need == JSON_NONEMPTY && evidence_json_is_empty(text))
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_argument", "%s: %s is empty", op,
                        field);
        return 0;
}

static const char *const run_status_table[] = {
        "created", "planning", "validated", "running", "recovering", "completed", "failed", "aborted",
};

static const char *const step_status_table[] = {
        "pending",   "running",  "completed",    "failed",          "skipped",
        "cancelled", "bypassed", "target_drift", "failed_to_apply", "resource_conflict",
};

static const char *const evidence_event_kind_table[_EVENT_KIND_MAX] = {
        [EVENT_RUN_STARTED] = "run.started",
        [EVENT_RUN_COMPLETED] = "run.completed",
        [EVENT_RUN_FAILED] = "run.failed",
        [EVENT_RUN_ABORT_REQUESTED] = "run.abort_requested",
        [EVENT_RUN_ABORTED] = "run.aborted",
        [EVENT_STEP_STARTED] = "step.started",
        [EVENT_STEP_FINISHED] = "step.finished",
        [EVENT_STEP_SKIPPED] = "step.skipped",
        [EVENT_FAULT_INJECTED] = "fault.injected",
        [EVENT_FAULT_OBSERVED] = "fault.observed",
        [EVENT_FAULT_RECOVERED] = "fault.recovered",
        [EVENT_FAULT_FAILED] = "fault.failed",
        [EVENT_TOOL_EXECUTED] = "tool.executed",
        [EVENT_CHECK_EVALUATED] = "check.evaluated",
        [EVENT_CRITERIA_EVALUATED] = "criteria.evaluated",
        [EVENT_OBSERVABILITY_COLLECTED] = "observability.collected",
        [EVENT_OBSERVABILITY_SOURCE_FAILED] = "observability.source_failed",
        [EVENT_LEASE_STATE_CHANGED] = "lease.state_changed",
        [EVENT_AGENT_STATE_CHANGED] = "agent.state_changed",
        [EVENT_DRIFT_REPORTED] = "drift.reported",
        [EVENT_SAFETY_REFUSED] = "safety.refused",
        [EVENT_MANIAC_DECISION] = "maniac.decision",
        [EVENT_IMPACT_DECIDED] = "impact.decided",
        [EVENT_TARGETS_FINAL_STATE] = "targets.final_state",
};
DEFINE_STRING_TABLE_LOOKUP(evidence_event_kind, enum evidence_event_kind)

int evidence_run_status_from_string(const char *s) {
        return string_table_lookup(run_status_table, ELEMENTSOF(run_status_table), s);
}

bool evidence_run_status_is_terminal(const char *s) {
        return streq_ptr(s, "completed") || streq_ptr(s, "failed") || streq_ptr(s, "aborted");
}

int evidence_step_status_from_string(const char *s) {
        return string_table_lookup(step_status_table, ELEMENTSOF(step_status_table), s);
}

int evidence_no_run(const char *op, const char *run_id, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "no_such_run",
                "%s: no run '%s' in the evidence database", op, run_id);
}

int evidence_run_status_get(
        struct evidence *ev, const char *op, const char *run_id, char **ret_status,
        struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(ev, op, &st, reterr, "SELECT status FROM runs WHERE id = ?", "t", run_id);
        if (r < 0)
                return r;
        r = evidence_step(ev, st, op, reterr);
        if (r < 0)
                return r;
        if (r == 0)
                return evidence_no_run(op, run_id, reterr);
        if (ret_status) {
                char *s = strdup((const char *)sqlite3_column_text(st, 0));
                if (!s)
                        return mh_error_set(
                                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "evidence", "%s: out of memory",
                                op);
                *ret_status = s;
        }
        return 0;
}

json_t *evidence_parse_json_text(const char *text) {
        if (!text)
                return json_null();
        json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
        /* Written through evidence_check_json(), so this is JSON; a row
         * written by hand that is not is shown as the text it holds. */
        if (!j)
                j = json_string(text);
        return j ? j : json_null();
}

json_t *evidence_column_json(sqlite3_stmt *st, int col) {
        if (sqlite3_column_type(st, col) == SQLITE_NULL)
                return json_null();
        return evidence_parse_json_text((const char *)sqlite3_column_text(st, col));
}

json_t *evidence_column_string(sqlite3_stmt *st, int col) {
        if (sqlite3_column_type(st, col) == SQLITE_NULL)
                return json_null();
        json_t *s = json_string((const char *)sqlite3_column_text(st, col));
        /* jansson takes UTF-8 only; text that is not is shown as null. */
        return s ? s : json_null();
}
