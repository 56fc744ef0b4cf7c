/* The lines a `logs` source read, into log_lines (migration 5): one
 * transaction per source, so a thousand lines are one commit. */
#include "evidence-internal.h"

#include <string.h>

static int insert_line(
        struct evidence *ev, const char *op, const char *run_id, const char *source_id,
        const char *container, const struct evidence_log_line *l, struct mh_error *reterr) {
        if (l->seq < 0 || !l->line || !l->stream ||
            (strcmp(l->stream, "stdout") != 0 && strcmp(l->stream, "stderr") != 0))
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "evidence_invalid",
                        "%s: a line needs seq >= 0, stream stdout|stderr and text", op);
        return evidence_exec(
                ev, op, reterr,
                "INSERT INTO log_lines (run_id, source_id, container, seq, ts, stream, matched, line) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                "tttIttbt", run_id, source_id, container, l->seq, l->ts && l->ts[0] ? l->ts : NULL,
                l->stream, l->matched, l->line);
}

int evidence_log_lines(
        struct evidence *ev, const char *run_id, const char *source_id, const char *container,
        const struct evidence_log_line *lines, size_t n, struct mh_error *reterr) {
        static const char op[] = "recording log lines";
        int r;
        if ((r = evidence_check_str(op, "run id", run_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "source id", source_id, reterr)) < 0 ||
            (r = evidence_check_str(op, "container", container, reterr)) < 0)
                return r;

        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        if ((r = evidence_begin(ev, &txn, op, reterr)) < 0 ||
            (r = evidence_run_status_get(ev, op, run_id, NULL, reterr)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((r = insert_line(ev, op, run_id, source_id, container, &lines[i], reterr)) < 0)
                        return r;
        return evidence_commit(&txn, op, reterr);
}

int evidence_log_lines_count(
        struct evidence *ev, const char *run_id, const char *source_id, const char *stream, int matched,
        int64_t *ret, struct mh_error *reterr) {
        static const char op[] = "counting log lines";
        EVIDENCE_LOCK_SCOPE(ev);
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT COUNT(*) FROM log_lines WHERE run_id = ? AND source_id = ? AND (? IS NULL OR "
                "stream = ?) AND (? < 0 OR matched = ?)",
                "ttttii", run_id, source_id, stream, stream, matched, matched);
        if (r < 0 || (r = evidence_step(ev, st, op, reterr)) < 0)
                return r;
        *ret = r > 0 ? sqlite3_column_int64(st, 0) : 0;
        return 0;
}
