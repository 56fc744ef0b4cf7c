#pragma once

/* Shared between the files of src/evidence/ only: the connection, its lock,
 * statement and transaction helpers, clocks and ids. */

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/types.h>

#include "evidence/evidence.h"
#include "evidence/lease.h"

struct evidence {
        sqlite3 *db;
        /* The file as opened: every commit checks the path still names it
         * (store.c), so a journal deleted or replaced under a run is a failed
         * write, not writes into a file nobody will read. */
        char *path; /* absolute; NULL when it has no file (":memory:") */
        dev_t dev;
        ino_t ino;
        char commit_refused[256]; /* why the commit hook refused, for the error */
        /* Held for a whole public call, so a transaction and the error text
         * of sqlite3_errmsg() belong to one caller even when threads share
         * the handle. SQLITE_OPEN_FULLMUTEX alone serialises single calls
         * only. */
        pthread_mutex_t lock;
};

/* Locks ev until the end of the enclosing scope. */
struct evidence *evidence_lock(struct evidence *ev);
void evidence_unlockp(struct evidence **p);
#define EVIDENCE_LOCK_SCOPE(ev)                                                                             \
        _cleanup_(evidence_unlockp) _unused_ struct evidence *_ev_locked_ = evidence_lock(ev)

static inline void sqlite3_finalizep(sqlite3_stmt **p) {
        if (*p)
                sqlite3_finalize(*p);
}

/* An open write transaction that is rolled back when it leaves scope
 * without evidence_commit(). */
struct evidence_txn {
        struct evidence *ev;
};
void evidence_txn_rollbackp(struct evidence_txn *t);

/* store.c: remembers the file ev->db has open and refuses any commit once
 * the path no longer names it. */
int evidence_store_watch(struct evidence *ev, const char *path, struct mh_error *reterr);

/* The -errno for an SQLite result code (extended codes understood). */
int evidence_errno(int rc);

/* Fills reterr with "op: <sqlite's message>" and returns the -errno. */
int evidence_fail(struct evidence *ev, int rc, const char *op, struct mh_error *reterr);

/* Prepares sql and binds arguments described by types, one letter each:
 *   t  const char *  (NULL binds NULL)
 *   i  int
 *   I  int64_t
 *   b  bool (as int 0/1)
 */
int evidence_prepare(
        struct evidence *ev, const char *op, sqlite3_stmt **ret, struct mh_error *reterr, const char *sql,
        const char *types, ...);
/* Prepares, binds, steps to completion. Returns the number of rows changed. */
int evidence_exec(
        struct evidence *ev, const char *op, struct mh_error *reterr, const char *sql, const char *types,
        ...);
/* sqlite3_step(): 1 for a row, 0 when done, -errno on failure. */
int evidence_step(struct evidence *ev, sqlite3_stmt *st, const char *op, struct mh_error *reterr);

/* lease-conflict.c, inside the transaction that adds a lease: -EBUSY (exit
 * 5, the message naming the lease and run that hold it) when an open lease
 * on target_key holds a fault that conflicts with fault_id. */
int lease_conflict_check(
        struct evidence *ev, const char *op, const char *target_key, const char *fault_id,
        struct mh_error *reterr);

/* BEGIN IMMEDIATE: the write lock is taken up front, so a transaction that
 * reads then writes never fails half way with SQLITE_BUSY; waits are bounded
 * by the busy timeout. */
int evidence_begin(struct evidence *ev, struct evidence_txn *t, const char *op, struct mh_error *reterr);
/* BEGIN (deferred): a consistent snapshot for multi-table reads. */
int evidence_begin_read(
        struct evidence *ev, struct evidence_txn *t, const char *op, struct mh_error *reterr);
int evidence_commit(struct evidence_txn *t, const char *op, struct mh_error *reterr);

/* "2026-11-29T08:00:00.123Z" for now, and seconds since the epoch. */
int64_t evidence_now_ms(void);
void evidence_now(char buf[EVIDENCE_TIMESTAMP_MAX], int64_t *ret_epoch_s);
void evidence_format_time(int64_t epoch_ms, char buf[EVIDENCE_TIMESTAMP_MAX]);
/* prefix + 16 hex characters from getrandom(). */
int evidence_random_id(const char *prefix, char buf[EVIDENCE_ID_MAX], struct mh_error *reterr);

/* Argument checks, failing with -EINVAL "op: field ...". */
int evidence_check_str(const char *op, const char *field, const char *s, struct mh_error *reterr);
enum evidence_json_need {
        JSON_OPTIONAL, /* NULL or valid JSON */
        JSON_REQUIRED, /* valid JSON */
        JSON_NONEMPTY, /* valid JSON other than null, [], {}, "" */
};
int evidence_check_json(
        const char *op, const char *field, const char *text, enum evidence_json_need need,
        struct mh_error *reterr);
bool evidence_json_is_empty(const char *text);

/* The vocabularies of the schema's CHECK constraints, for clear errors. */
int evidence_run_status_from_string(const char *s);
int evidence_step_status_from_string(const char *s);
bool evidence_run_status_is_terminal(const char *s);

/* The run's status, 0 when it exists, -ENOENT ("no run 'X' in the evidence database") when not. */
int evidence_run_status_get(
        struct evidence *ev, const char *op, const char *run_id, char **ret_status, struct mh_error *reterr);
int evidence_no_run(const char *op, const char *run_id, struct mh_error *reterr);

/* Lease rows, for lease.c and the JSON queries (caller holds the lock). */
int evidence_lease_list_locked(
        struct evidence *ev, const char *op, const char *run_id, bool only_open, struct lease **ret,
        size_t *ret_n, struct mh_error *reterr);
json_t *evidence_lease_json(const struct lease *l, const char *now);

/* A column as a new JSON value: parsed JSON text, a string, or null. */
json_t *evidence_column_json(sqlite3_stmt *st, int col);
json_t *evidence_column_string(sqlite3_stmt *st, int col);
json_t *evidence_parse_json_text(const char *text);

/* The migrations, oldest first; migration i (a NULL-terminated list of
 * statements) brings the schema to version i + 1. */
extern const char *const *const evidence_migrations[];
extern const size_t evidence_n_migrations;

/* evidence-slo.c: a REAL bound as text (evidence_prepare binds no doubles), into buf; NULL when not finite.
 */
const char *evidence_real_text(double v, char buf[32]);
