/* Opening an evidence database: recognising it, configuring the connection
 * and applying the migrations it lacks. Closing it. */

#include "evidence.h"

#include <stdio.h>
#include <strings.h>

#include "evidence-internal.h"
#include "evidence-testing.h"

/* PRAGMA application_id marks a database as ours ("MHEM"); written with the
 * first migration. It cannot be a bound parameter, hence a literal. */
#define EVIDENCE_APPLICATION_ID     0x4d48454d
#define EVIDENCE_APPLICATION_ID_SQL "PRAGMA application_id = 1296581965"
#define EVIDENCE_BUSY_TIMEOUT_MS    5000
#define EVIDENCE_WAL_RETRY_MS       10

_Static_assert(EVIDENCE_APPLICATION_ID == 1296581965, "application id literal");

static const char op_open[] = "opening the evidence database";

struct evidence *evidence_close(struct evidence *ev) {
        if (!ev)
                return NULL;
        if (ev->db)
                sqlite3_close_v2(ev->db);
        free(ev->path);
        pthread_mutex_destroy(&ev->lock);
        free(ev);
        return NULL;
}

static int not_ours(const char *path, const char *why, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -EBADMSG, MH_EXIT_CONFIG_ERROR, "evidence_not_mayhem",
                "'%s' is not a mayhem evidence database (%s)", path, why);
}

static int too_new(const char *path, int64_t version, size_t known, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -EPROTONOSUPPORT, MH_EXIT_CONFIG_ERROR, "evidence_schema_newer",
                "'%s' has evidence schema version %lld, newer than this mayhem knows (%zu); use a newer "
                "mayhem",
                path, (long long)version, known);
}

static int query_int(struct evidence *ev, const char *sql, int64_t *ret, struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(ev, op_open, &st, reterr, sql, NULL);
        if (r < 0)
                return r;
        r = evidence_step(ev, st, op_open, reterr);
        if (r < 0)
                return r;
        *ret = r > 0 ? (int64_t)sqlite3_column_int64(st, 0) : 0;
        return 0;
}

/* The highest applied migration; 0 for a database without schema_migrations. */
static int current_version(struct evidence *ev, int64_t *ret, struct mh_error *reterr) {
        int64_t has;
        int r = query_int(
                ev, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
                &has, reterr);
        if (r < 0)
                return r;
        if (!has) {
                *ret = 0;
                return 0;
        }
        return query_int(ev, "SELECT coalesce(max(version), 0) FROM schema_migrations", ret, reterr);
}

/* Decides, before anything is written, whether the file is ours (or empty).
 * The first read of a file that is not SQLite fails with SQLITE_NOTADB. */
static int identify(struct evidence *ev, const char *path, size_t n_migrations, struct mh_error *reterr) {
        int64_t app_id, n_objects, version;
        /* One read transaction: another process may be creating the schema
         * right now, and the marker and the objects must come from one state. */
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        int r = evidence_begin_read(ev, &txn, op_open, reterr);
        if (r < 0)
                return r;
        r = query_int(ev, "PRAGMA application_id", &app_id, reterr);
        if (r == -EBADMSG) /* SQLITE_NOTADB or SQLITE_CORRUPT; sqlite says which */
                return not_ours(path, sqlite3_errmsg(ev->db), reterr);
        if (r < 0)
                return r;
        r = query_int(ev, "SELECT count(*) FROM sqlite_master", &n_objects, reterr);
        if (r < 0)
                return r;
        if (app_id == 0 && n_objects == 0)
                return 0; /* new or empty: initialised by the first migration */
        if (app_id != EVIDENCE_APPLICATION_ID) {
                char why[128];
                if (app_id == 0)
                        snprintf(
                                why, sizeof(why), "it holds %lld other schema objects",
                                (long long)n_objects);
                else
                        snprintf(
                                why, sizeof(why), "application_id 0x%08llx",
                                (unsigned long long)app_id & 0xffffffffULL);
                return not_ours(path, why, reterr);
        }
        r = current_version(ev, &version, reterr);
        if (r < 0)
                return r;
        if (version > (int64_t)n_migrations)
                return too_new(path, version, n_migrations, reterr);
        return 0;
}

/* Switches the file to WAL (a property of the file, kept across opens).
 * The switch needs an exclusive lock and SQLite does not run the busy
 * handler for it, so while other processes create the same file at the
 * same time it is retried here, within the same 5 s budget. */
static int enable_wal(struct evidence *ev, const char *path, struct mh_error *reterr) {
        for (int waited_ms = 0;; waited_ms += EVIDENCE_WAL_RETRY_MS) {
                _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
                int r = evidence_prepare(ev, op_open, &st, reterr, "PRAGMA journal_mode = WAL", NULL);
                if (r < 0)
                        return r;
                r = evidence_step(ev, st, op_open, reterr);
                if (r == -EBUSY && waited_ms < EVIDENCE_BUSY_TIMEOUT_MS) {
                        usleep(EVIDENCE_WAL_RETRY_MS * 1000);
                        continue;
                }
                if (r < 0)
                        return r;
                const char *mode = r > 0 ? (const char *)sqlite3_column_text(st, 0) : NULL;
                if (!mode || strcasecmp(mode, "wal") != 0)
                        return mh_error_set(
                                reterr, -ENOTSUP, MH_EXIT_CONFIG_ERROR, "evidence_open",
                                "%s: '%s' cannot use write-ahead logging (journal mode stays %s)", op_open,
                                path, mode ? mode : "unknown");
                return 0;
        }
}

/* Migrations run with foreign keys off (a table that others reference is
 * rebuilt the way SQLite documents: new table, copy, drop, rename), so each
 * proves before its commit that every reference still holds. */
static int foreign_keys_hold(
        struct evidence *ev, const char *path, int64_t version, struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(ev, op_open, &st, reterr, "PRAGMA foreign_key_check", NULL);
        if (r < 0 || (r = evidence_step(ev, st, op_open, reterr)) <= 0)
                return r;
        return mh_error_set(
                reterr, -EBADMSG, MH_EXIT_CONFIG_ERROR, "evidence_open",
                "'%s': migration %lld: a row of %s references nothing", path, (long long)version,
                (const char *)sqlite3_column_text(st, 0));
}

/* Applies the missing migrations, each in its own IMMEDIATE transaction that
 * re-reads the version first, so two processes opening a new file at once
 * apply each migration exactly once. */
static int migrate(
        struct evidence *ev, const char *path, const char *const *const *migrations, size_t n_migrations,
        struct mh_error *reterr) {
        /* Up to date is the common case: decided by a read, so opening never
         * waits for a writer's lock (`mayhem inspect` during a run). */
        int64_t version;
        int r = current_version(ev, &version, reterr);
        if (r < 0)
                return r;
        if (version > (int64_t)n_migrations)
                return too_new(path, version, n_migrations, reterr);
        if (version == (int64_t)n_migrations)
                return 0;

        for (;;) {
                _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
                r = evidence_begin(ev, &txn, op_open, reterr);
                if (r < 0)
                        return r;
                r = current_version(ev, &version, reterr);
                if (r < 0)
                        return r;
                if (version > (int64_t)n_migrations)
                        return too_new(path, version, n_migrations, reterr);
                if (version == (int64_t)n_migrations)
                        return evidence_commit(&txn, op_open, reterr);

                if (version == 0) {
                        r = evidence_exec(ev, op_open, reterr, EVIDENCE_APPLICATION_ID_SQL, NULL);
                        if (r < 0)
                                return r;
                        r = evidence_exec(
                                ev, op_open, reterr,
                                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY "
                                "NOT "
                                "NULL, applied_at TEXT NOT NULL)",
                                NULL);
                        if (r < 0)
                                return r;
                }
                for (const char *const *sql = migrations[version]; *sql; sql++) {
                        r = evidence_exec(ev, op_open, reterr, *sql, NULL);
                        if (r < 0) {
                                mh_error_prefix(
                                        reterr, "'%s': migration %lld: ", path, (long long)version + 1);
                                return r;
                        }
                }
                if ((r = foreign_keys_hold(ev, path, version + 1, reterr)) < 0)
                        return r;
                char now[EVIDENCE_TIMESTAMP_MAX];
                evidence_now(now, NULL);
                r = evidence_exec(
                        ev, op_open, reterr,
                        "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", "It",
                        (int64_t)(version + 1), now);
                if (r < 0)
                        return r;
                r = evidence_commit(&txn, op_open, reterr);
                if (r < 0)
                        return r;
        }
}

static int setup(
        struct evidence *ev, const char *path, const char *const *const *migrations, size_t n_migrations,
        struct mh_error *reterr) {
        sqlite3_extended_result_codes(ev->db, 1);
        sqlite3_busy_timeout(ev->db, EVIDENCE_BUSY_TIMEOUT_MS);

        int r = identify(ev, path, n_migrations, reterr);
        if (r < 0)
                return r;
        r = enable_wal(ev, path, reterr);
        if (r < 0)
                return r;
        /* FULL: in WAL mode the WAL is fsync'd at every commit, so a commit
         * that returned survives a crash (the write-ahead rule needs that). */
        r = evidence_exec(ev, op_open, reterr, "PRAGMA synchronous = FULL", NULL);
        if (r < 0)
                return r;
        if ((r = migrate(ev, path, migrations, n_migrations, reterr)) < 0)
                return r;
        /* Per connection, outside any transaction, once the migrations ran
         * (foreign_keys_hold()). */
        return evidence_exec(ev, op_open, reterr, "PRAGMA foreign_keys = ON", NULL);
}

/* A reader touches nothing: no WAL switch, no migration, no pragma that writes. */
static int setup_reader(
        struct evidence *ev, const char *path, size_t n_migrations, struct mh_error *reterr) {
        sqlite3_extended_result_codes(ev->db, 1);
        sqlite3_busy_timeout(ev->db, EVIDENCE_BUSY_TIMEOUT_MS);
        return identify(ev, path, n_migrations, reterr);
}

static int open_db(
        const char *path, bool writer, const char *const *const *migrations, size_t n_migrations,
        struct evidence **ret, struct mh_error *reterr) {
        if (!path || !*path)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_CONFIG_ERROR, "evidence_open", "%s: no database path",
                        op_open);
        if (!sqlite3_threadsafe())
                return mh_error_set(
                        reterr, -ENOTSUP, MH_EXIT_CONFIG_ERROR, "evidence_open",
                        "%s: the SQLite library was built without thread support", op_open);

        _cleanup_(evidence_closep) struct evidence *ev = calloc(1, sizeof(*ev));
        if (!ev)
                return mh_error_set(
                        reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "evidence", "%s: out of memory", op_open);
        int r = pthread_mutex_init(&ev->lock, NULL);
        if (r != 0) {
                free(TAKE_PTR(ev));
                return mh_error_set(
                        reterr, -r, MH_EXIT_GENERAL_FAILURE, "evidence", "%s: %s", op_open, strerror(r));
        }

        int rc = sqlite3_open_v2(
                path, &ev->db,
                (writer ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
                        SQLITE_OPEN_FULLMUTEX,
                NULL);
        if (rc != SQLITE_OK) {
                int sys = ev->db ? sqlite3_system_errno(ev->db) : 0;
                return mh_error_set(
                        reterr, sys > 0 ? -sys : evidence_errno(rc), MH_EXIT_CONFIG_ERROR, "evidence_open",
                        "cannot open evidence database '%s': %s%s%s", path,
                        ev->db ? sqlite3_errmsg(ev->db) : sqlite3_errstr(rc), sys > 0 ? ": " : "",
                        sys > 0 ? strerror(sys) : "");
        }
        r = writer ? setup(ev, path, migrations, n_migrations, reterr)
                   : setup_reader(ev, path, n_migrations, reterr);
        if (r < 0 || (writer && (r = evidence_store_watch(ev, path, reterr)) < 0)) {
                if (reterr && !strstr(reterr->msg, path))
                        mh_error_prefix(reterr, "cannot open evidence database '%s': ", path);
                if (reterr)
                        reterr->exit = MH_EXIT_CONFIG_ERROR;
                return r;
        }
        *ret = TAKE_PTR(ev);
        return 0;
}

int evidence_open_migrations(
        const char *path, const char *const *const *migrations, size_t n_migrations, struct evidence **ret,
        struct mh_error *reterr) {
        return open_db(path, true, migrations, n_migrations, ret, reterr);
}

int evidence_open_read(const char *path, struct evidence **ret, struct mh_error *reterr) {
        return open_db(path, false, evidence_migrations, evidence_n_migrations, ret, reterr);
}

int evidence_open(const char *path, struct evidence **ret, struct mh_error *reterr) {
        return evidence_open_migrations(path, evidence_migrations, evidence_n_migrations, ret, reterr);
}

int evidence_schema_version(struct evidence *ev, int *ret, struct mh_error *reterr) {
        EVIDENCE_LOCK_SCOPE(ev);
        int64_t v;
        int r = current_version(ev, &v, reterr);
        if (r < 0)
                return r;
        *ret = (int)v;
        return 0;
}
