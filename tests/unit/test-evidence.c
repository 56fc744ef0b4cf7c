#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"
#include "evidence/evidence-testing.h"
#include "evidence/evidence.h"
#include "evidence/lease.h"
#include "sys/process.h"

/* ---- fixture: a fresh database in its own directory under /tmp ---- */

struct fx {
        char dir[64];
        char path[128];
        struct evidence *ev;
};

static void remove_db_files(const char *path) {
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
        char p[256];
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
                (void)unlink(p);
        }
}

static int setup(void **state) {
        struct fx *f = calloc(1, sizeof(*f));
        if (!f)
                return -1;
        snprintf(f->dir, sizeof(f->dir), "/tmp/mayhem-test-evidence-XXXXXX");
        if (!mkdtemp(f->dir)) {
                free(f);
                return -1;
        }
        snprintf(f->path, sizeof(f->path), "%s/evidence.db", f->dir);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        struct fx *f = *state;
        f->ev = evidence_close(f->ev);
        remove_db_files(f->path);
        char other[160];
        snprintf(other, sizeof(other), "%s/other.db", f->dir);
        remove_db_files(other);
        (void)rmdir(f->dir);
        free(f);
        return 0;
}

static struct evidence *open_ok(const char *path) {
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        int r = evidence_open(path, &ev, &e);
        if (r < 0)
                fail_msg("evidence_open(%s): %d %s", path, r, e.msg);
        return ev;
}

static struct evidence *fx_open(void **state) {
        struct fx *f = *state;
        f->ev = open_ok(f->path);
        return f->ev;
}

#define CHECK_OK(call)                                                                                      \
        do {                                                                                                \
                struct mh_error _e = { 0 };                                                                 \
                int _r = (call);                                                                            \
                if (_r < 0)                                                                                 \
                        fail_msg("%s: %d %s", #call, _r, _e.msg);                                           \
        } while (0)
/* The calls below pass &_e as their error. */
#define E (&_e)

static void write_file(const char *path, const void *data, size_t len) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t)len);
        close(fd);
}

static bool file_exists(const char *path) {
        return access(path, F_OK) == 0;
}

static void begin_run(struct evidence *ev, const char *id, int pid, unsigned long long start) {
        struct evidence_run run = {
                .id = id,
                .name = "checkout-drill",
                .kind = "drill",
                .spec_json = "{\"name\":\"checkout-drill\"}",
                .plan_json = "{\"format\":\"mayhem.plan/1\"}",
                .plan_fingerprint = "0123abcd",
                .engine = "docker",
                .controller_pid = pid,
                .controller_start_time = start,
        };
        CHECK_OK(evidence_run_begin(ev, &run, E));
}

/* A run row as an older schema holds it: written by SQL, since
 * evidence_run_begin() writes the columns of this build's schema. */
static void begin_old_run(const struct fx *f, const char *id) {
        sqlite3 *db = NULL;
        char sql[256];
        snprintf(
                sql, sizeof(sql),
                "INSERT INTO runs (id, experiment_name, kind, status, started_at, engine) "
                "VALUES ('%s', 'checkout-drill', 'drill', 'running', '2026-01-01T00:00:00.000Z', 'docker')",
                id);
        assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);
}

static const struct lease_new a_lease = {
        .run_id = "r-test",
        .fault_id = "container.pause",
        .owner_agent = "local",
        .targets_json = "[\"shop-api\"]",
        .undo_json = "[{\"op\":\"engine.unpause\",\"args\":{\"container\":\"shop-api\"}}]",
        .verify_json = "[{\"probe\":\"container.running\",\"args\":{\"container\":\"shop-api\"}}]",
        .runtime_identity_json = "{\"container_id\":\"abc123\",\"pid\":42,\"pid_start_time\":7}",
        .ttl_seconds = 120,
};

static void create_lease(struct evidence *ev, const struct lease_new *ln, char id[LEASE_ID_MAX]) {
        CHECK_OK(lease_create(ev, ln, id, E));
        assert_int_equal(strlen(id), 18);
        assert_memory_equal(id, "l-", 2);
}

static enum lease_state state_of(struct evidence *ev, const char *id) {
        struct lease l;
        CHECK_OK(lease_get(ev, id, &l, E));
        enum lease_state s = l.state;
        lease_done(&l);
        return s;
}

static const struct lease_update notes = { .escalation_notes = "undo failed: container gone" };

/* Drives a fresh lease to s along allowed transitions. */
static void drive_to(struct evidence *ev, const char *id, enum lease_state s) {
        static const enum lease_state paths[_LEASE_STATE_MAX][3] = {
                [LEASE_PENDING] = { LEASE_PENDING },
                [LEASE_ACTIVE] = { LEASE_ACTIVE },
                [LEASE_RELEASING] = { LEASE_RELEASING },
                [LEASE_RELEASED] = { LEASE_RELEASING, LEASE_RELEASED },
                [LEASE_EXPIRED] = { LEASE_EXPIRED },
                [LEASE_ORPHANED] = { LEASE_ACTIVE, LEASE_ORPHANED },
                [LEASE_DIRTY] = { LEASE_RELEASING, LEASE_DIRTY },
                [LEASE_KEPT] = { LEASE_ACTIVE, LEASE_KEPT },
        };
        enum lease_state cur = LEASE_PENDING;
        for (size_t i = 0; i < 3 && cur != s; i++) {
                enum lease_state next = paths[s][i];
                CHECK_OK(lease_transition(ev, id, cur, next, next == LEASE_DIRTY ? &notes : NULL, E));
                cur = next;
        }
        assert_int_equal(state_of(ev, id), s);
}

/* ---- open and migrate ---- */

static void test_open_migrate_idempotent(void **state) {
        struct fx *f = *state;
        struct evidence *ev = fx_open(state);
        int v = -1;
        CHECK_OK(evidence_schema_version(ev, &v, E));
        assert_int_equal(v, EVIDENCE_SCHEMA_VERSION);
        assert_int_equal(evidence_n_migrations, EVIDENCE_SCHEMA_VERSION);
        begin_run(ev, "r-test", 0, 0);
        f->ev = evidence_close(f->ev);

        /* Opening again changes nothing and keeps the data. */
        for (int i = 0; i < 2; i++) {
                ev = fx_open(state);
                CHECK_OK(evidence_schema_version(ev, &v, E));
                assert_int_equal(v, EVIDENCE_SCHEMA_VERSION);
                json_t *runs = NULL;
                CHECK_OK(evidence_runs_json(ev, NULL, 0, &runs, E));
                assert_int_equal(json_array_size(runs), 1);
                json_decref(runs);
                f->ev = evidence_close(f->ev);
        }
        assert_null(evidence_close(NULL));
}

/* A reader creates nothing and migrates nothing: a missing file stays
 * missing, an empty one stays at version 0 and empty. */
static void test_open_read_writes_nothing(void **state) {
        struct fx *f = *state;
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        struct stat st;
        int v = -1;
        assert_true(evidence_open_read(f->path, &ev, &e) < 0);
        assert_int_equal(access(f->path, F_OK), -1);
        int fd = open(f->path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        CHECK_OK(evidence_open_read(f->path, &ev, E));
        CHECK_OK(evidence_schema_version(ev, &v, E));
        assert_int_equal(v, 0);
        ev = evidence_close(ev);
        assert_int_equal(stat(f->path, &st), 0);
        assert_int_equal(st.st_size, 0);
}

static void test_newer_schema_refused(void **state) {
        struct fx *f = *state;
        static const char *const future[] = { "CREATE TABLE from_the_future (x INTEGER)", NULL };
        const char *const *migrations[EVIDENCE_SCHEMA_VERSION + 1];
        for (size_t i = 0; i < EVIDENCE_SCHEMA_VERSION; i++)
                migrations[i] = evidence_migrations[i];
        migrations[EVIDENCE_SCHEMA_VERSION] = future;
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        char want[96];

        assert_int_equal(
                evidence_open_migrations(f->path, migrations, EVIDENCE_SCHEMA_VERSION + 1, &ev, &e), 0);
        int v = 0;
        CHECK_OK(evidence_schema_version(ev, &v, E));
        assert_int_equal(v, EVIDENCE_SCHEMA_VERSION + 1);
        ev = evidence_close(ev);

        int r = evidence_open(f->path, &ev, &e);
        assert_int_equal(r, -EPROTONOSUPPORT);
        assert_null(ev);
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        assert_string_equal(e.id, "evidence_schema_newer");
        snprintf(
                want, sizeof(want), "schema version %d, newer than this mayhem knows (%d)",
                EVIDENCE_SCHEMA_VERSION + 1, EVIDENCE_SCHEMA_VERSION);
        assert_non_null(strstr(e.msg, want));
}

/* A journal of the first version keeps its runs and events when it gains
 * the lease params and the event kinds past the reference's. */
static void test_migration_2_keeps_the_journal(void **state) {
        struct fx *f = *state;
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(evidence_open_migrations(f->path, evidence_migrations, 1, &ev, &e), 0);
        begin_old_run(f, "r-old");
        CHECK_OK(evidence_event(ev, "r-old", EVENT_RUN_STARTED, "{\"v\":1}", E));
        assert_int_equal(
                evidence_event(ev, "r-old", EVENT_IMPACT_DECIDED, "{}", &e), -EINVAL); /* v1's CHECK */
        ev = evidence_close(ev);

        ev = fx_open(state);
        CHECK_OK(evidence_event(ev, "r-old", EVENT_IMPACT_DECIDED, "{\"f-0001\":\"nft\"}", E));
        json_t *h = NULL;
        CHECK_OK(evidence_history_json(ev, "r-old", &h, E));
        const json_t *events = json_object_get(h, "events");
        assert_int_equal(json_array_size(events), 2);
        assert_string_equal(
                json_string_value(json_object_get(json_array_get(events, 1), "kind")), "impact.decided");
        json_decref(h);
}

/* A journal of the second version keeps its leases, and the references of
 * its invocations and recovery records to them, when fault_leases is rebuilt
 * to take kept_faulted; a kept lease is open and lets its run complete. */
static void test_migration_3_keeps_the_leases(void **state) {
        struct fx *f = *state;
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        char id[LEASE_ID_MAX];
        assert_int_equal(evidence_open_migrations(f->path, evidence_migrations, 2, &ev, &e), 0);
        struct lease_new old = a_lease;
        old.run_id = "r-old";
        begin_old_run(f, "r-old");
        create_lease(ev, &old, id);
        CHECK_OK(evidence_invocation(ev, "r-old", NULL, "container.pause", "[]", "{}", "ag-1", id, E));
        CHECK_OK(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, NULL, E));
        CHECK_OK(evidence_recovery_record(ev, id, 1, "normal", "{}", false, E));
        assert_true(lease_transition(ev, id, LEASE_ACTIVE, LEASE_KEPT, NULL, &e) < 0); /* v2's CHECK */
        ev = evidence_close(ev);

        ev = fx_open(state);
        CHECK_OK(lease_transition(ev, id, LEASE_ACTIVE, LEASE_KEPT, NULL, E));
        struct lease l;
        CHECK_OK(lease_get(ev, id, &l, E));
        assert_string_equal(l.run_id, "r-old");
        assert_non_null(l.runtime_identity_json);
        lease_done(&l);
        struct lease *open = NULL;
        size_t n = 0;
        CHECK_OK(lease_list(ev, "r-old", true, &open, &n, E));
        assert_int_equal(n, 1);
        lease_array_free(open, n);
        CHECK_OK(evidence_run_finish(ev, "r-old", "completed", "pass", NULL, NULL, E));
        /* The references still hold: a record for no lease is refused. */
        assert_true(evidence_recovery_record(ev, "l-nosuchlease0000", 1, "manual", "{}", false, &e) < 0);
}

static void test_not_sqlite_refused(void **state) {
        struct fx *f = *state;
        char junk[3000];
        for (size_t i = 0; i < sizeof(junk); i++)
                junk[i] = (char)('a' + i % 26);
        write_file(f->path, junk, sizeof(junk));

        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        int r = evidence_open(f->path, &ev, &e);
        assert_int_equal(r, -EBADMSG);
        assert_null(ev);
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        assert_string_equal(e.id, "evidence_not_mayhem");
        assert_non_null(strstr(e.msg, "is not a mayhem evidence database (file is not a database)"));

        /* Refused before anything was written: same bytes, no WAL. */
        char back[sizeof(junk)];
        int fd = open(f->path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(read(fd, back, sizeof(back)), (ssize_t)sizeof(back));
        close(fd);
        assert_memory_equal(back, junk, sizeof(junk));
        char wal[160];
        snprintf(wal, sizeof(wal), "%s-wal", f->path);
        assert_false(file_exists(wal));
}

static void put_be(uint8_t *p, uint32_t v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--, v >>= 8)
                p[i] = (uint8_t)(v & 0xff);
}

/* An empty SQLite database (one 4096-byte page) of another program, marked
 * by its application_id, written byte by byte (sqlite.org/fileformat.html). */
static void test_foreign_sqlite_refused(void **state) {
        struct fx *f = *state;
        uint8_t page[4096] = { 0 };
        memcpy(page, "SQLite format 3", 16);
        put_be(page + 16, 4096, 2); /* page size */
        page[18] = page[19] = 1;    /* legacy journal: read/write versions */
        page[21] = 64;
        page[22] = 32;
        page[23] = 32;
        put_be(page + 24, 1, 4);          /* change counter */
        put_be(page + 28, 1, 4);          /* pages */
        put_be(page + 44, 4, 4);          /* schema format */
        put_be(page + 56, 1, 4);          /* UTF-8 */
        put_be(page + 68, 0x41424344, 4); /* application_id "ABCD" */
        put_be(page + 92, 1, 4);          /* version-valid-for */
        put_be(page + 96, 3040001, 4);
        page[100] = 0x0d; /* leaf table b-tree page: sqlite_master, no cells */
        put_be(page + 105, 4096, 2);
        write_file(f->path, page, sizeof(page));

        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(evidence_open(f->path, &ev, &e), -EBADMSG);
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        assert_non_null(strstr(e.msg, "is not a mayhem evidence database (application_id 0x41424344)"));

        /* Without a marker and without tables it is an empty database: taken over. */
        put_be(page + 68, 0, 4);
        write_file(f->path, page, sizeof(page));
        assert_int_equal(evidence_open(f->path, &ev, &e), 0); /* empty: becomes ours */
        ev = evidence_close(ev);
}

static void test_open_errors(void **state) {
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(evidence_open("", &ev, &e), -EINVAL);
        int r = evidence_open("/nonexistent-dir-for-mayhem/evidence.db", &ev, &e);
        assert_true(r < 0);
        assert_null(ev);
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        assert_non_null(
                strstr(e.msg, "cannot open evidence database '/nonexistent-dir-for-mayhem/evidence.db'"));
}

/* Several processes opening a new file at once: each migration is applied once. */
static void test_concurrent_open(void **state) {
        struct fx *f = *state;
        pid_t pids[6];
        for (size_t i = 0; i < ELEMENTSOF(pids); i++) {
                pids[i] = fork();
                assert_true(pids[i] >= 0);
                if (pids[i] == 0) {
                        struct evidence *cev = NULL;
                        struct mh_error e = { 0 };
                        if (evidence_open(f->path, &cev, &e) < 0) {
                                fprintf(stderr, "child: %s\n", e.msg);
                                _exit(1);
                        }
                        struct evidence_run run = { .id = "r-x", .name = "x", .kind = "drill" };
                        char id[EVIDENCE_ID_MAX];
                        snprintf(id, sizeof(id), "r-%zu", i);
                        run.id = id;
                        if (evidence_run_begin(cev, &run, &e) < 0) {
                                fprintf(stderr, "child: %s\n", e.msg);
                                _exit(2);
                        }
                        evidence_close(cev);
                        _exit(0);
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(pids); i++) {
                int status;
                assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
                assert_true(WIFEXITED(status));
                assert_int_equal(WEXITSTATUS(status), 0);
        }
        struct evidence *ev = fx_open(state);
        int v = 0;
        CHECK_OK(evidence_schema_version(ev, &v, E));
        assert_int_equal(v, EVIDENCE_SCHEMA_VERSION);
        json_t *runs = NULL;
        CHECK_OK(evidence_runs_json(ev, NULL, 0, &runs, E));
        assert_int_equal(json_array_size(runs), ELEMENTSOF(pids));
        json_decref(runs);
}

/* ---- the lease state machine ---- */

static void test_state_strings(void **state) {
        static const char *const names[] = { "pending", "active",   "releasing", "released",
                                             "expired", "orphaned", "dirty",     "kept_faulted" };
        assert_int_equal(ELEMENTSOF(names), _LEASE_STATE_MAX);
        for (int s = 0; s < _LEASE_STATE_MAX; s++) {
                assert_string_equal(lease_state_to_string((enum lease_state)s), names[s]);
                assert_int_equal(lease_state_from_string(names[s]), s);
                assert_int_equal(
                        lease_state_is_safe_terminal((enum lease_state)s),
                        s == LEASE_RELEASED || s == LEASE_EXPIRED);
        }
        assert_int_equal(lease_state_from_string("undoing"), -EINVAL);
        assert_null(lease_state_to_string(_LEASE_STATE_MAX));
        assert_int_equal(lease_mechanism_from_string("kept_faulted"), LEASE_MECHANISM_KEPT_FAULTED);
        assert_false(lease_transition_allowed(_LEASE_STATE_MAX, LEASE_ACTIVE));
}

static bool expected_allowed(enum lease_state from, enum lease_state to) {
        static const struct {
                enum lease_state from, to;
        } edges[] = {
                { LEASE_PENDING, LEASE_ACTIVE },     { LEASE_PENDING, LEASE_RELEASING },
                { LEASE_PENDING, LEASE_EXPIRED },    { LEASE_ACTIVE, LEASE_RELEASING },
                { LEASE_ACTIVE, LEASE_EXPIRED },     { LEASE_ACTIVE, LEASE_ORPHANED },
                { LEASE_ORPHANED, LEASE_RELEASING }, { LEASE_RELEASING, LEASE_RELEASED },
                { LEASE_RELEASING, LEASE_DIRTY },    { LEASE_DIRTY, LEASE_EXPIRED },
                { LEASE_DIRTY, LEASE_RELEASING },    { LEASE_ORPHANED, LEASE_EXPIRED },
                { LEASE_ACTIVE, LEASE_KEPT },        { LEASE_KEPT, LEASE_RELEASING },
                { LEASE_KEPT, LEASE_EXPIRED },
        };
        for (size_t i = 0; i < ELEMENTSOF(edges); i++)
                if (edges[i].from == from && edges[i].to == to)
                        return true;
        return false;
}

static void assert_same_lease(const struct lease *a, const struct lease *b) {
        assert_string_equal(a->id, b->id);
        assert_int_equal(a->state, b->state);
        assert_true(streq_ptr(a->undo_json, b->undo_json));
        assert_true(streq_ptr(a->runtime_identity_json, b->runtime_identity_json));
        assert_true(streq_ptr(a->release_mechanism, b->release_mechanism));
        assert_true(streq_ptr(a->escalation_notes, b->escalation_notes));
        assert_string_equal(a->injected_at, b->injected_at);
        assert_string_equal(a->released_at, b->released_at);
        assert_string_equal(a->expires_at, b->expires_at);
}

/* A lease on a target refused while an open one there holds a conflicting
 * fault, whichever run asks; stacking classes stack; released ones free it. */
static void test_conflicting_leases(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        begin_run(ev, "r-other", 0, 0);
        char pause[LEASE_ID_MAX], id[LEASE_ID_MAX];
        struct lease_new l = a_lease;
        char *key = lease_target_key(a_lease.runtime_identity_json);
        assert_string_equal(key, "container:abc123");
        l.target_key = key;
        create_lease(ev, &l, pause);
        struct mh_error e = { 0 };
        l.run_id = "r-other";
        l.fault_id = "container.kill";
        assert_int_equal(lease_create(ev, &l, id, &e), -EBUSY);
        assert_int_equal(e.exit, MH_EXIT_SAFETY_REFUSAL);
        assert_non_null(strstr(e.msg, "container:abc123 is held by lease "));
        assert_non_null(
                strstr(e.msg, " of run r-test (container.pause, pending): container.kill competes for the "
                              "same state (run_state)"));
        assert_int_equal(lease_conflicts(ev, key, "proc.pause", &e), -EBUSY);
        CHECK_OK(lease_conflicts(ev, key, "net.latency", E)); /* another class */
        CHECK_OK(lease_conflicts(ev, "container:other", "container.kill", E));
        /* Shaping stacks, but never the same fault twice. */
        l.fault_id = "net.latency";
        create_lease(ev, &l, id);
        l.fault_id = "net.bandwidth";
        create_lease(ev, &l, id);
        l.fault_id = "net.latency";
        assert_int_equal(lease_create(ev, &l, id, &e), -EBUSY);
        assert_non_null(strstr(e.msg, "net.latency cannot be applied to it twice"));
        /* Released, it holds nothing. */
        drive_to(ev, pause, LEASE_RELEASED);
        l.fault_id = "container.kill";
        create_lease(ev, &l, id);
        free(key);
        char *host = lease_target_key(
                "{\"engine\":\"host\",\"container_id\":\"\",\"pid\":42,\"pid_start_time\":7}");
        assert_string_equal(host, "process:42:7");
        free(host);
        assert_null(lease_target_key("{\"engine\":\"docker\"}"));
        assert_null(lease_target_key(NULL));
}

/* A person gives leases up from every open state; closed ones are refused. */
static void test_forget(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        static const enum lease_state open[] = { LEASE_PENDING,   LEASE_ACTIVE, LEASE_ORPHANED,
                                                 LEASE_RELEASING, LEASE_DIRTY,  LEASE_KEPT };
        for (size_t i = 0; i < ELEMENTSOF(open); i++) {
                char id[LEASE_ID_MAX];
                enum lease_state from = _LEASE_STATE_MAX;
                struct lease l;
                create_lease(ev, &a_lease, id);
                drive_to(ev, id, open[i]);
                CHECK_OK(lease_forget(ev, id, "the container was removed", &from, E));
                assert_int_equal(from, open[i]);
                CHECK_OK(lease_get(ev, id, &l, E));
                assert_int_equal(l.state, LEASE_EXPIRED);
                assert_string_equal(l.release_mechanism, "manual");
                assert_non_null(strstr(l.escalation_notes, "forgotten by hand (was "));
                assert_non_null(strstr(l.escalation_notes, "): the container was removed"));
                lease_done(&l);
                struct mh_error e = { 0 };
                assert_int_equal(lease_forget(ev, id, "again", &from, &e), -EALREADY);
                assert_non_null(strstr(e.msg, "nothing to forget"));
        }
        struct mh_error e = { 0 };
        enum lease_state from;
        assert_int_equal(lease_forget(ev, "l-0000000000000000", "x", &from, &e), -ENOENT);
}

static void test_transition_matrix(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        int allowed = 0, refused = 0;

        for (int from = 0; from < _LEASE_STATE_MAX; from++)
                for (int to = 0; to < _LEASE_STATE_MAX; to++) {
                        char id[LEASE_ID_MAX];
                        create_lease(ev, &a_lease, id);
                        drive_to(ev, id, (enum lease_state)from);
                        struct lease before, after;
                        CHECK_OK(lease_get(ev, id, &before, E));

                        struct lease_update upd = {
                                .escalation_notes = to == LEASE_DIRTY ? "verify failed twice" : NULL,
                                .release_mechanism = to == LEASE_RELEASED ? "normal" : NULL,
                                .set_injected_at = to == LEASE_ACTIVE,
                                .set_released_at = to == LEASE_RELEASED || to == LEASE_EXPIRED,
                        };
                        struct mh_error e = { 0 };
                        int r = lease_transition(
                                ev, id, (enum lease_state)from, (enum lease_state)to, &upd, &e);
                        CHECK_OK(lease_get(ev, id, &after, E));
                        assert_int_equal(
                                lease_transition_allowed((enum lease_state)from, (enum lease_state)to),
                                expected_allowed((enum lease_state)from, (enum lease_state)to));
                        if (expected_allowed((enum lease_state)from, (enum lease_state)to)) {
                                if (r != 0)
                                        fail_msg(
                                                "%s -> %s: %d %s", lease_state_to_string(from),
                                                lease_state_to_string(to), r, e.msg);
                                assert_int_equal(after.state, to);
                                if (to == LEASE_ACTIVE)
                                        assert_true(after.injected_at[0] != '\0');
                                if (to == LEASE_RELEASED) {
                                        assert_string_equal(after.release_mechanism, "normal");
                                        assert_true(after.released_at[0] != '\0');
                                }
                                allowed++;
                        } else {
                                if (r != -EINVAL)
                                        fail_msg(
                                                "%s -> %s: expected -EINVAL, got %d",
                                                lease_state_to_string(from), lease_state_to_string(to), r);
                                assert_non_null(strstr(e.msg, "is not an allowed transition"));
                                assert_same_lease(&before, &after);
                                refused++;
                        }
                        lease_done(&before);
                        lease_done(&after);
                }
        assert_int_equal(allowed, 15);
        assert_int_equal(refused, 49);
}

static void test_compare_and_set(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        char id[LEASE_ID_MAX];
        create_lease(ev, &a_lease, id);
        struct mh_error e = { 0 };

        assert_int_equal(lease_transition(ev, id, LEASE_ACTIVE, LEASE_RELEASING, NULL, &e), -ESTALE);
        assert_string_equal(e.id, "lease_stale");
        char want[128];
        snprintf(want, sizeof(want), "journalling a lease's state: lease '%s' is pending, not active", id);
        assert_string_equal(e.msg, want);
        assert_int_equal(state_of(ev, id), LEASE_PENDING);

        CHECK_OK(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, NULL, E));
        /* The same move again: the lease has moved on. */
        assert_int_equal(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, NULL, &e), -ESTALE);
        assert_non_null(strstr(e.msg, "is active, not pending"));

        assert_int_equal(
                lease_transition(ev, "l-0000000000000000", LEASE_PENDING, LEASE_ACTIVE, NULL, &e), -ENOENT);
        assert_string_equal(
                e.msg,
                "journalling a lease's state: no lease 'l-0000000000000000' in the evidence database");
}

static void test_invariants(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        char id[LEASE_ID_MAX];
        struct mh_error e = { 0 };

        /* The write-ahead record must carry its undo ops and verify probes. */
        struct lease_new ln = a_lease;
        ln.undo_json = NULL;
        assert_int_equal(lease_create(ev, &ln, id, &e), -EINVAL);
        assert_string_equal(e.msg, "journalling a lease: undo_json is required");
        ln.undo_json = "[]";
        assert_int_equal(lease_create(ev, &ln, id, &e), -EINVAL);
        assert_string_equal(e.msg, "journalling a lease: undo_json is empty");
        ln.undo_json = "[{\"op\":";
        assert_int_equal(lease_create(ev, &ln, id, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "journalling a lease: undo_json is not valid JSON"));
        ln = a_lease;
        ln.verify_json = "{}";
        assert_int_equal(lease_create(ev, &ln, id, &e), -EINVAL);
        ln = a_lease;
        ln.run_id = "r-nope";
        assert_int_equal(lease_create(ev, &ln, id, &e), -ENOENT);
        assert_string_equal(e.msg, "journalling a lease: no run 'r-nope' in the evidence database");
        ln = a_lease;
        ln.ttl_seconds = LEASE_TTL_MAX_S + 1;
        assert_int_equal(lease_create(ev, &ln, id, &e), -EINVAL);

        /* active needs a runtime identity... */
        ln = a_lease;
        ln.runtime_identity_json = NULL;
        create_lease(ev, &ln, id);
        struct lease before, after;
        CHECK_OK(lease_get(ev, id, &before, E));
        assert_int_equal(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, NULL, &e), -EINVAL);
        assert_string_equal(e.id, "lease_invariant");
        assert_non_null(strstr(e.msg, "cannot become active without a runtime identity"));
        /* ...and undo ops, which an update may refine but never empty. */
        struct lease_update upd = { .runtime_identity_json = "{\"pid\":42}", .undo_json = "[]" };
        assert_int_equal(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, &upd, &e), -EINVAL);
        assert_string_equal(e.msg, "journalling a lease's state: undo_json is empty");
        upd.undo_json = "null";
        assert_int_equal(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, &upd, &e), -EINVAL);
        upd = (struct lease_update){ .runtime_identity_json = "{}" };
        assert_int_equal(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, &upd, &e), -EINVAL);
        upd = (struct lease_update){ .runtime_identity_json = "{\"pid\":42}", .release_mechanism = "magic" };
        assert_int_equal(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, &upd, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "invalid release mechanism 'magic'"));
        CHECK_OK(lease_get(ev, id, &after, E));
        assert_same_lease(&before, &after);
        lease_done(&after);

        upd = (struct lease_update){
                .runtime_identity_json = "{\"pid\":42}",
                .undo_json = "[{\"op\":\"engine.unpause\",\"args\":{\"container_id\":\"abc123\"}}]",
                .set_injected_at = true,
        };
        CHECK_OK(lease_transition(ev, id, LEASE_PENDING, LEASE_ACTIVE, &upd, E));
        CHECK_OK(lease_get(ev, id, &after, E));
        assert_string_equal(after.runtime_identity_json, "{\"pid\":42}");
        assert_string_equal(after.undo_json, upd.undo_json);
        assert_string_equal(after.verify_json, a_lease.verify_json);
        assert_true(after.injected_at[0] != '\0');
        lease_done(&after);
        lease_done(&before);

        /* dirty needs escalation notes. */
        CHECK_OK(lease_transition(ev, id, LEASE_ACTIVE, LEASE_RELEASING, NULL, E));
        assert_int_equal(lease_transition(ev, id, LEASE_RELEASING, LEASE_DIRTY, NULL, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "cannot become dirty without escalation notes"));
        upd = (struct lease_update){ .escalation_notes = "" };
        assert_int_equal(lease_transition(ev, id, LEASE_RELEASING, LEASE_DIRTY, &upd, &e), -EINVAL);
        assert_int_equal(state_of(ev, id), LEASE_RELEASING);
        CHECK_OK(lease_transition(ev, id, LEASE_RELEASING, LEASE_DIRTY, &notes, E));
        /* A retried recovery keeps the notes it was escalated with. */
        CHECK_OK(lease_transition(ev, id, LEASE_DIRTY, LEASE_RELEASING, NULL, E));
        CHECK_OK(lease_get(ev, id, &after, E));
        assert_string_equal(after.escalation_notes, notes.escalation_notes);
        lease_done(&after);
}

/* lease_create is the write-ahead record: it must survive the process dying
 * right after it returns, without a clean close. */
static void test_create_durable_across_crash(void **state) {
        struct fx *f = *state;
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        f->ev = evidence_close(f->ev); /* the child must not inherit a connection */

        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct evidence *cev = NULL;
                char id[LEASE_ID_MAX];
                if (evidence_open(f->path, &cev, NULL) < 0 || lease_create(cev, &a_lease, id, NULL) < 0)
                        _exit(1);
                if (write(p[1], id, sizeof(id)) != (ssize_t)sizeof(id))
                        _exit(2);
                _exit(0); /* a crash: no evidence_close(), no checkpoint */
        }
        close(p[1]);
        char id[LEASE_ID_MAX] = "";
        assert_int_equal(read(p[0], id, sizeof(id)), (ssize_t)sizeof(id));
        close(p[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);

        char wal[160];
        snprintf(wal, sizeof(wal), "%s-wal", f->path);
        assert_true(file_exists(wal)); /* still only in the WAL */

        ev = fx_open(state);
        struct lease l;
        CHECK_OK(lease_get(ev, id, &l, E));
        assert_int_equal(l.state, LEASE_PENDING);
        assert_string_equal(l.fault_id, "container.pause");
        assert_string_equal(l.undo_json, a_lease.undo_json);
        assert_int_equal(l.ttl_seconds, 120);
        lease_done(&l);
}

/* ---- concurrency ---- */

struct racer {
        struct evidence *ev;
        const char *lease_id;
        pthread_barrier_t *barrier;
        enum lease_state from, to;
        int r;
};

static void *race(void *arg) {
        struct racer *rc = arg;
        struct lease_update upd = { .release_mechanism = "janitor" };
        pthread_barrier_wait(rc->barrier);
        rc->r = lease_transition(rc->ev, rc->lease_id, rc->from, rc->to, &upd, NULL);
        return NULL;
}

static void race_once(struct evidence *ev1, struct evidence *ev2, const char *id, enum lease_state to2) {
        pthread_barrier_t barrier;
        assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
        struct racer a = { ev1, id, &barrier, LEASE_PENDING, LEASE_ACTIVE, 1 };
        struct racer b = { ev2, id, &barrier, LEASE_PENDING, to2, 1 };
        pthread_t ta, tb;
        assert_int_equal(pthread_create(&ta, NULL, race, &a), 0);
        assert_int_equal(pthread_create(&tb, NULL, race, &b), 0);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        pthread_barrier_destroy(&barrier);

        assert_true((a.r == 0 && b.r == -ESTALE) || (a.r == -ESTALE && b.r == 0));
        enum lease_state s = state_of(ev1, id);
        assert_int_equal(s, a.r == 0 ? LEASE_ACTIVE : to2);
}

static void test_concurrent_transition(void **state) {
        struct fx *f = *state;
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        struct evidence *other = open_ok(f->path);

        for (int i = 0; i < 40; i++) {
                char id[LEASE_ID_MAX];
                create_lease(ev, &a_lease, id);
                /* Alternately one shared handle and two connections; the
                 * second racer wants the same or a conflicting move. */
                race_once(ev, i % 2 ? other : ev, id, i % 4 < 2 ? LEASE_ACTIVE : LEASE_EXPIRED);
        }
        other = evidence_close(other);

        /* Exactly one lease.state_changed event per successful move. */
        json_t *h = NULL;
        CHECK_OK(evidence_history_json(ev, "r-test", &h, E));
        assert_int_equal(json_array_size(json_object_get(h, "events")), 40 * 2); /* created + one move */
        assert_int_equal(json_array_size(json_object_get(h, "leases")), 40);
        json_decref(h);
}

/* ---- runs ---- */

static pid_t dead_pid(void) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(0);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid); /* reaped: the pid is free */
        return pid;
}

static const char *run_field(json_t *runs, size_t i, const char *key) {
        return json_string_value(json_object_get(json_array_get(runs, i), key));
}

static void test_runs_json_stale(void **state) {
        struct evidence *ev = fx_open(state);
        struct proc_identity self;
        CHECK_OK(proc_identity_read(getpid(), &self, E));

        begin_run(ev, "r-alive", getpid(), self.start_time);
        usleep(2000);
        begin_run(ev, "r-dead", dead_pid(), 12345);
        usleep(2000);
        begin_run(ev, "r-recycled", getpid(), self.start_time + 1);
        usleep(2000);
        begin_run(ev, "r-unknown", 0, 0);
        usleep(2000);
        begin_run(ev, "r-done", dead_pid(), 1);
        CHECK_OK(evidence_run_finish(ev, "r-done", "completed", "pass", "[]", "ok", E));

        json_t *runs = NULL;
        CHECK_OK(evidence_runs_json(ev, NULL, 0, &runs, E));
        assert_int_equal(json_array_size(runs), 5);
        static const char *const want[][3] = {
                { "r-done", "completed", "completed" }, { "r-unknown", "stale", "running" },
                { "r-recycled", "stale", "running" },   { "r-dead", "stale", "running" },
                { "r-alive", "running", "running" },
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_string_equal(run_field(runs, i, "id"), want[i][0]);
                assert_string_equal(run_field(runs, i, "status"), want[i][1]);
                assert_string_equal(run_field(runs, i, "recorded_status"), want[i][2]);
        }
        assert_string_equal(run_field(runs, 0, "verdict"), "pass");
        assert_string_equal(run_field(runs, 0, "experiment_name"), "checkout-drill");
        assert_int_equal(json_integer_value(json_object_get(json_array_get(runs, 4), "open_leases")), 0);
        json_decref(runs);

        CHECK_OK(evidence_runs_json(ev, NULL, 2, &runs, E));
        assert_int_equal(json_array_size(runs), 2);
        json_decref(runs);
        CHECK_OK(evidence_runs_json(ev, "r-dead", 0, &runs, E));
        assert_int_equal(json_array_size(runs), 1);
        assert_string_equal(run_field(runs, 0, "status"), "stale");
        json_decref(runs);

        struct mh_error e = { 0 };
        runs = NULL;
        assert_int_equal(evidence_runs_json(ev, "r-ghost", 0, &runs, &e), -ENOENT);
        assert_null(runs);
        assert_string_equal(e.msg, "listing the runs: no run 'r-ghost' in the evidence database");
}

static void test_run_lifecycle_errors(void **state) {
        struct evidence *ev = fx_open(state);
        struct mh_error e = { 0 };
        begin_run(ev, "r-test", 0, 0);

        struct evidence_run dup = { .id = "r-test", .name = "x", .kind = "drill" };
        assert_int_equal(evidence_run_begin(ev, &dup, &e), -EEXIST);
        assert_string_equal(e.msg, "recording a new run: run 'r-test' is already in the evidence database");
        struct evidence_run bad = { .id = "r-2", .name = "x", .kind = "chaos" };
        assert_int_equal(evidence_run_begin(ev, &bad, &e), -EINVAL);
        bad.kind = "drill";
        bad.plan_json = "{nope";
        assert_int_equal(evidence_run_begin(ev, &bad, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "recording a new run: plan_json is not valid JSON"));

        assert_int_equal(evidence_run_set_status(ev, "r-test", "completed", &e), -EINVAL);
        CHECK_OK(evidence_run_set_status(ev, "r-test", "recovering", E));
        assert_int_equal(evidence_run_finish(ev, "r-test", "running", NULL, NULL, NULL, &e), -EINVAL);
        assert_int_equal(evidence_run_finish(ev, "r-test", "completed", "maybe", NULL, NULL, &e), -EINVAL);
        assert_int_equal(evidence_run_finish(ev, "r-ghost", "failed", NULL, NULL, NULL, &e), -ENOENT);
        CHECK_OK(evidence_run_finish(ev, "r-test", "aborted", "undecided", NULL, NULL, E));
        assert_int_equal(evidence_run_finish(ev, "r-test", "completed", NULL, NULL, NULL, &e), -EALREADY);
        assert_string_equal(e.msg, "recording a run's end: run 'r-test' has already ended (aborted)");
        assert_int_equal(evidence_run_set_status(ev, "r-test", "running", &e), -EALREADY);

        /* Steps. */
        char sid[EVIDENCE_ID_MAX];
        assert_int_equal(evidence_step_begin(ev, "r-ghost", 0, "parallel", NULL, sid, &e), -ENOENT);
        assert_string_equal(e.msg, "recording a step: no run 'r-ghost' in the evidence database");
        CHECK_OK(evidence_step_begin(ev, "r-test", 0, "parallel", "{\"lanes\":[]}", sid, E));
        assert_memory_equal(sid, "s-", 2);
        assert_int_equal(evidence_step_finish(ev, sid, "running", NULL, &e), -EINVAL);
        CHECK_OK(evidence_step_finish(ev, sid, "failed_to_apply", "engine said no", E));
        assert_int_equal(evidence_step_finish(ev, sid, "completed", NULL, &e), -ESTALE);
        assert_non_null(strstr(e.msg, "is failed_to_apply, not running"));
        assert_int_equal(evidence_step_finish(ev, "s-0000000000000000", "completed", NULL, &e), -ENOENT);

        /* Events, observations, invocations, recovery records. */
        assert_int_equal(evidence_event(ev, "r-test", _EVENT_KIND_MAX, NULL, &e), -EINVAL);
        assert_int_equal(evidence_event(ev, "r-ghost", EVENT_RUN_STARTED, NULL, &e), -ENOENT);
        CHECK_OK(evidence_event(ev, NULL, EVENT_AGENT_STATE_CHANGED, "{\"state\":\"ready\"}", E));
        assert_int_equal(evidence_observation(ev, "r-ghost", "boolean", "api.health", "true", &e), -ENOENT);
        assert_int_equal(
                evidence_invocation(ev, "r-test", "s-nope", "container.pause", NULL, NULL, NULL, NULL, &e),
                -ENOENT);
        assert_string_equal(
                e.msg, "recording a fault invocation: no step 's-nope' in the evidence database");
        assert_int_equal(evidence_recovery_record(ev, "l-nope", 1, "janitor", NULL, false, &e), -ENOENT);
        assert_int_equal(evidence_recovery_record(ev, "l-nope", 0, "janitor", NULL, false, &e), -EINVAL);
        assert_int_equal(evidence_recovery_record(ev, "l-nope", 1, "hope", NULL, false, &e), -EINVAL);
        assert_string_equal(
                e.msg, "recording a recovery: invalid mechanism (normal, watchdog, janitor, manual or "
                       "kept_faulted) 'hope'");
}

/* The reference's kinds, in its order, then ours; every one is stored and
 * read back under its name (the schema has no CHECK to drift from). */
static void test_every_event_kind(void **state) {
        static const char *const reference[] = {
                "run.started",
                "run.completed",
                "run.failed",
                "run.abort_requested",
                "run.aborted",
                "step.started",
                "step.finished",
                "step.skipped",
                "fault.injected",
                "fault.observed",
                "fault.recovered",
                "fault.failed",
                "tool.executed",
                "check.evaluated",
                "criteria.evaluated",
                "observability.collected",
                "observability.source_failed",
                "lease.state_changed",
                "agent.state_changed",
                "drift.reported",
                "safety.refused",
                "maniac.decision",
        };
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        for (size_t i = 0; i < ELEMENTSOF(reference); i++)
                assert_string_equal(evidence_event_kind_to_string(i), reference[i]);
        assert_string_equal(evidence_event_kind_to_string(EVENT_IMPACT_DECIDED), "impact.decided");
        for (int k = 0; k < _EVENT_KIND_MAX; k++) {
                assert_int_equal(evidence_event_kind_from_string(evidence_event_kind_to_string(k)), k);
                CHECK_OK(evidence_event(ev, "r-test", k, "{}", E));
        }
        json_t *h = NULL;
        CHECK_OK(evidence_history_json(ev, "r-test", &h, E));
        const json_t *events = json_object_get(h, "events");
        assert_int_equal(json_array_size(events), _EVENT_KIND_MAX);
        json_decref(h);
}

static void test_finish_refused_with_open_lease(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        char l1[LEASE_ID_MAX], l2[LEASE_ID_MAX], l3[LEASE_ID_MAX];
        create_lease(ev, &a_lease, l1);
        create_lease(ev, &a_lease, l2);
        create_lease(ev, &a_lease, l3);
        drive_to(ev, l1, LEASE_ACTIVE);
        drive_to(ev, l2, LEASE_RELEASED);
        drive_to(ev, l3, LEASE_DIRTY);

        struct mh_error e = { 0 };
        assert_int_equal(evidence_run_finish(ev, "r-test", "completed", "pass", NULL, NULL, &e), -EBUSY);
        assert_int_equal(e.exit, MH_EXIT_RECOVERY_FAILURE);
        assert_string_equal(e.id, "run_open_leases");
        char want[256];
        snprintf(
                want, sizeof(want),
                "recording a run's end: run 'r-test' cannot end completed: 2 leases are not released or "
                "expired: "
                "%s (active, container.pause), %s (dirty, container.pause)",
                l1, l3);
        assert_string_equal(e.msg, want);

        json_t *runs = NULL;
        CHECK_OK(evidence_runs_json(ev, "r-test", 0, &runs, E));
        assert_string_equal(run_field(runs, 0, "recorded_status"), "running");
        assert_int_equal(json_integer_value(json_object_get(json_array_get(runs, 0), "open_leases")), 2);
        json_decref(runs);

        /* failed is recorded; the open leases stay listed for recovery. */
        CHECK_OK(evidence_run_finish(ev, "r-test", "failed", "fail", NULL, "lease left dirty", E));
        json_t *leases = NULL;
        CHECK_OK(evidence_leases_json(ev, "r-test", true, &leases, E));
        assert_int_equal(json_array_size(leases), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(leases, 0), "id")), l1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(leases, 1), "state")), "dirty");
        json_decref(leases);
        struct lease *open = NULL;
        size_t n = 0;
        CHECK_OK(lease_list(ev, NULL, true, &open, &n, E));
        assert_int_equal(n, 2);
        lease_array_free(open, n);

        /* An ended run takes no new lease. */
        char l4[LEASE_ID_MAX];
        assert_int_equal(lease_create(ev, &a_lease, l4, &e), -ESTALE);
        assert_string_equal(
                e.msg, "journalling a lease: run 'r-test' has ended (failed); it takes no new lease");

        /* Once every lease is safe, completed is allowed. */
        begin_run(ev, "r-two", 0, 0);
        struct lease_new ln = a_lease;
        ln.run_id = "r-two";
        create_lease(ev, &ln, l4);
        drive_to(ev, l4, LEASE_ACTIVE);
        CHECK_OK(lease_transition(ev, l4, LEASE_ACTIVE, LEASE_EXPIRED, NULL, E));
        CHECK_OK(evidence_run_finish(ev, "r-two", "completed", "pass", "[{\"ok\":true}]", "all good", E));
}

static const char *entry_str(json_t *timeline, size_t i, const char *key) {
        return json_string_value(json_object_get(json_array_get(timeline, i), key));
}

static void test_history_in_order(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        begin_run(ev, "r-other", 0, 0);
        CHECK_OK(evidence_event(ev, "r-other", EVENT_RUN_STARTED, NULL, E));
#define TICK() usleep(3000) /* distinct milliseconds, so the order is the insertion order */
        CHECK_OK(evidence_event(ev, "r-test", EVENT_RUN_STARTED, "{\"by\":\"test\"}", E));
        TICK();
        char sid[EVIDENCE_ID_MAX], lid[LEASE_ID_MAX];
        CHECK_OK(evidence_step_begin(ev, "r-test", 0, "parallel", "{\"lanes\":1}", sid, E));
        TICK();
        create_lease(ev, &a_lease, lid);
        TICK();
        struct lease_update inj = { .set_injected_at = true };
        CHECK_OK(lease_transition(ev, lid, LEASE_PENDING, LEASE_ACTIVE, &inj, E));
        TICK();
        CHECK_OK(evidence_invocation(
                ev, "r-test", sid, "container.pause", "[\"shop-api\"]", "{}", "docker", lid, E));
        TICK();
        CHECK_OK(evidence_observation(ev, "r-test", "status", "api.status", "{\"value\":503}", E));
        TICK();
        CHECK_OK(lease_transition(ev, lid, LEASE_ACTIVE, LEASE_RELEASING, NULL, E));
        TICK();
        CHECK_OK(evidence_recovery_record(
                ev, lid, 1, "normal", "[{\"op\":\"engine.unpause\",\"ok\":true}]", true, E));
        TICK();
        struct lease_update rel = { .release_mechanism = "normal", .set_released_at = true };
        CHECK_OK(lease_transition(ev, lid, LEASE_RELEASING, LEASE_RELEASED, &rel, E));
        TICK();
        CHECK_OK(evidence_step_finish(ev, sid, "completed", NULL, E));
        CHECK_OK(evidence_event(ev, "r-test", EVENT_RUN_COMPLETED, NULL, E));
        CHECK_OK(evidence_run_finish(
                ev, "r-test", "completed", "pass", "[]", "**success criteria**: ALL PASS", E));
#undef TICK
        struct mh_error e = { 0 };
        assert_int_equal(
                evidence_invocation(ev, "r-test", NULL, "container.pause", NULL, NULL, NULL, lid, &e),
                -EEXIST);

        json_t *h = NULL;
        CHECK_OK(evidence_history_json(ev, "r-test", &h, E));
        json_t *run = json_object_get(h, "run");
        assert_string_equal(json_string_value(json_object_get(run, "status")), "completed");
        assert_string_equal(json_string_value(json_object_get(run, "verdict")), "pass");
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(run, "plan"), "format")), "mayhem.plan/1");
        assert_string_equal(
                json_string_value(json_object_get(run, "summary_md")), "**success criteria**: ALL PASS");
        assert_non_null(json_string_value(json_object_get(run, "ended_at")));

        /* Everything of this run, nothing of the other, grouped... */
        static const struct {
                const char *key;
                size_t n;
        } groups[] = {
                { "steps", 1 },        { "leases", 1 }, { "invocations", 1 }, { "recovery_records", 1 },
                { "observations", 1 }, { "events", 6 },
        };
        for (size_t i = 0; i < ELEMENTSOF(groups); i++)
                if (json_array_size(json_object_get(h, groups[i].key)) != groups[i].n)
                        fail_msg(
                                "%s: %zu entries", groups[i].key,
                                json_array_size(json_object_get(h, groups[i].key)));

        /* ...and merged in the order it happened. */
        static const char *const want[][2] = {
                { "event", "run.started" },
                { "step", NULL },
                { "lease", NULL },
                { "event", "lease.state_changed" },
                { "event", "lease.state_changed" },
                { "invocation", NULL },
                { "observation", NULL },
                { "event", "lease.state_changed" },
                { "recovery", NULL },
                { "event", "lease.state_changed" },
                { "event", "run.completed" },
        };
        json_t *tl = json_object_get(h, "timeline");
        assert_int_equal(json_array_size(tl), ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                if (!streq(entry_str(tl, i, "type"), want[i][0]))
                        fail_msg("timeline[%zu] is %s, want %s", i, entry_str(tl, i, "type"), want[i][0]);
                if (want[i][1])
                        assert_string_equal(entry_str(tl, i, "kind"), want[i][1]);
                assert_non_null(json_object_get(json_array_get(tl, i), "id"));
                if (i > 0)
                        assert_true(strcmp(entry_str(tl, i - 1, "at"), entry_str(tl, i, "at")) <= 0);
        }
        assert_string_equal(entry_str(tl, 1, "id"), sid);
        assert_string_equal(entry_str(tl, 2, "id"), lid);

        /* The lease changes, in order, with their payloads parsed. */
        static const char *const moves[][2] = { { NULL, "pending" },
                                                { "pending", "active" },
                                                { "active", "releasing" },
                                                { "releasing", "released" } };
        json_t *events = json_object_get(h, "events");
        size_t m = 0;
        for (size_t i = 0; i < json_array_size(events); i++) {
                json_t *ev_i = json_array_get(events, i);
                if (!streq(json_string_value(json_object_get(ev_i, "kind")), "lease.state_changed"))
                        continue;
                json_t *p = json_object_get(ev_i, "payload");
                assert_true(streq_ptr(json_string_value(json_object_get(p, "from")), moves[m][0]));
                assert_string_equal(json_string_value(json_object_get(p, "to")), moves[m][1]);
                assert_string_equal(json_string_value(json_object_get(p, "lease_id")), lid);
                m++;
        }
        assert_int_equal(m, 4);
        assert_string_equal(
                json_string_value(
                        json_object_get(json_object_get(json_array_get(events, 0), "payload"), "by")),
                "test");

        json_t *step = json_array_get(json_object_get(h, "steps"), 0);
        assert_string_equal(json_string_value(json_object_get(step, "status")), "completed");
        assert_int_equal(json_integer_value(json_object_get(json_object_get(step, "action"), "lanes")), 1);
        json_t *lease = json_array_get(json_object_get(h, "leases"), 0);
        assert_string_equal(json_string_value(json_object_get(lease, "state")), "released");
        assert_string_equal(json_string_value(json_object_get(lease, "release_mechanism")), "normal");
        assert_false(json_is_true(json_object_get(lease, "open")));
        assert_non_null(json_string_value(json_object_get(lease, "injected_at")));
        assert_string_equal(
                json_string_value(json_object_get(json_array_get(json_object_get(lease, "undo"), 0), "op")),
                "engine.unpause");
        json_t *inv = json_array_get(json_object_get(h, "invocations"), 0);
        assert_string_equal(json_string_value(json_object_get(inv, "lease_id")), lid);
        assert_string_equal(json_string_value(json_object_get(inv, "step_run_id")), sid);
        assert_string_equal(json_string_value(json_object_get(inv, "backend")), "docker");
        json_t *rec = json_array_get(json_object_get(h, "recovery_records"), 0);
        assert_true(json_is_true(json_object_get(rec, "verified")));
        assert_int_equal(json_integer_value(json_object_get(rec, "attempt")), 1);
        assert_true(json_is_true(
                json_object_get(json_array_get(json_object_get(rec, "undo_results"), 0), "ok")));
        json_t *obs = json_array_get(json_object_get(h, "observations"), 0);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(obs, "data"), "value")), 503);
        json_decref(h);

        h = NULL;
        assert_int_equal(evidence_history_json(ev, "r-ghost", &h, &e), -ENOENT);
        assert_null(h);
        assert_string_equal(e.msg, "reading a run's history: no run 'r-ghost' in the evidence database");
}

static void test_observations_json(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        begin_run(ev, "r-other", 0, 0);
        CHECK_OK(evidence_observation(ev, "r-test", "boolean", "api.health", "true", E));
        CHECK_OK(evidence_observation(ev, "r-other", "boolean", "api.health", "false", E));
        CHECK_OK(evidence_observation(ev, "r-test", "latency", "api.latency_ms", "{\"value\":12.5}", E));

        json_t *obs = NULL;
        CHECK_OK(evidence_observations_json(ev, "r-test", &obs, E));
        assert_int_equal(json_array_size(obs), 2);
        assert_string_equal(run_field(obs, 0, "source"), "api.health");
        assert_true(json_is_true(json_object_get(json_array_get(obs, 0), "data")));
        assert_string_equal(run_field(obs, 1, "kind"), "latency");
        assert_true(
                json_real_value(json_object_get(json_object_get(json_array_get(obs, 1), "data"), "value")) ==
                12.5);
        json_decref(obs);

        struct mh_error e = { 0 };
        assert_int_equal(evidence_observations_json(ev, "r-ghost", &obs, &e), -ENOENT);
}

static void test_leases_json_and_extend(void **state) {
        struct evidence *ev = fx_open(state);
        begin_run(ev, "r-test", 0, 0);
        char id[LEASE_ID_MAX], done[LEASE_ID_MAX];
        struct lease_new ln = a_lease;
        ln.ttl_seconds = 1;
        create_lease(ev, &ln, id);
        create_lease(ev, &a_lease, done);
        drive_to(ev, done, LEASE_EXPIRED);

        struct lease l;
        CHECK_OK(lease_get(ev, id, &l, E));
        assert_int_equal(l.ttl_seconds, 1);
        assert_int_equal(strlen(l.created_at), 24); /* 2026-11-29T08:00:00.123Z */
        assert_int_equal(l.created_at[23], 'Z');
        assert_int_equal(l.created_at[19], '.');
        assert_true(strcmp(l.expires_at, l.created_at) > 0);
        assert_string_equal(l.injected_at, "");
        lease_done(&l);

        usleep(1100 * 1000);
        json_t *a = NULL;
        CHECK_OK(evidence_leases_json(ev, NULL, false, &a, E));
        assert_int_equal(json_array_size(a), 2);
        json_t *first = json_array_get(a, 0);
        assert_string_equal(json_string_value(json_object_get(first, "id")), id);
        assert_true(json_is_true(json_object_get(first, "open")));
        assert_true(json_is_true(json_object_get(first, "overdue")));
        assert_true(json_is_null(json_object_get(first, "injected_at")));
        assert_string_equal(
                json_string_value(
                        json_object_get(json_object_get(first, "runtime_identity"), "container_id")),
                "abc123");
        assert_false(json_is_true(json_object_get(json_array_get(a, 1), "open")));
        assert_false(json_is_true(json_object_get(json_array_get(a, 1), "overdue")));
        json_decref(a);

        CHECK_OK(lease_extend(ev, id, 0, E));
        CHECK_OK(lease_get(ev, id, &l, E));
        assert_int_equal(l.ttl_seconds, LEASE_TTL_DEFAULT_S);
        lease_done(&l);
        CHECK_OK(evidence_leases_json(ev, "r-test", true, &a, E));
        assert_int_equal(json_array_size(a), 1);
        assert_false(json_is_true(json_object_get(json_array_get(a, 0), "overdue")));
        json_decref(a);

        struct mh_error e = { 0 };
        assert_int_equal(lease_extend(ev, done, 60, &e), -ESTALE);
        assert_non_null(strstr(e.msg, "is expired; only a pending or active lease can be extended"));
        assert_int_equal(lease_extend(ev, "l-nope", 60, &e), -ENOENT);
        assert_int_equal(evidence_leases_json(ev, "r-ghost", false, &a, &e), -ENOENT);
        struct lease *none = (struct lease *)&e;
        size_t n = 9;
        CHECK_OK(lease_list(ev, "r-ghost", false, &none, &n, E));
        assert_null(none);
        assert_int_equal(n, 0);
}

/* A store deleted or renamed over while open fails every write (-ESTALE)
 * instead of writing into a file nobody will read; a writable store that
 * another process holds the write lock of is refused for a run (exit 3). */
static void test_store_moved_or_locked(void **state) {
        struct fx *f = *state;
        struct evidence *ev = fx_open(state);
        struct mh_error e = { 0 };
        char other[160];
        begin_run(ev, "r-moved", 1, 1);
        CHECK_OK(evidence_writable(ev, E));
        CHECK_OK(evidence_event(ev, "r-moved", EVENT_RUN_STARTED, "{}", E));
        snprintf(other, sizeof(other), "%s/other.db", f->dir);
        assert_int_equal(rename(f->path, other), 0);
        assert_int_equal(evidence_event(ev, "r-moved", EVENT_RUN_STARTED, "{}", &e), -ESTALE);
        assert_non_null(strstr(e.msg, "was deleted while it was open"));
        write_file(f->path, "", 0);
        assert_int_equal(evidence_event(ev, "r-moved", EVENT_RUN_STARTED, "{}", &e), -ESTALE);
        assert_non_null(strstr(e.msg, "was replaced while it was open"));
        assert_int_equal(rename(other, f->path), 0); /* the same file again: writes go on */
        CHECK_OK(evidence_event(ev, "r-moved", EVENT_RUN_STARTED, "{}", E));

        struct evidence *holder = open_ok(f->path);
        CHECK_OK(evidence_event(holder, "r-moved", EVENT_RUN_STARTED, "{}", E));
        sqlite3 *h = NULL;
        assert_int_equal(sqlite3_open(f->path, &h), SQLITE_OK);
        assert_int_equal(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
        assert_int_equal(evidence_writable(holder, &e), -EBUSY);
        assert_int_equal(e.exit, MH_EXIT_CONFIG_ERROR);
        assert_non_null(strstr(e.msg, "is locked by another process"));
        sqlite3_close(h);
        evidence_close(holder);
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        const struct CMUnitTest tests[] = {
                T(test_open_migrate_idempotent),
                T(test_open_read_writes_nothing),
                T(test_newer_schema_refused),
                T(test_not_sqlite_refused),
                T(test_foreign_sqlite_refused),
                T(test_open_errors),
                T(test_concurrent_open),
                T(test_state_strings),
                T(test_transition_matrix),
                T(test_compare_and_set),
                T(test_invariants),
                T(test_create_durable_across_crash),
                T(test_concurrent_transition),
                T(test_runs_json_stale),
                T(test_run_lifecycle_errors),
                T(test_every_event_kind),
                T(test_forget),
                T(test_conflicting_leases),
                T(test_migration_2_keeps_the_journal),
                T(test_migration_3_keeps_the_leases),
                T(test_finish_refused_with_open_lease),
                T(test_history_in_order),
                T(test_observations_json),
                T(test_leases_json_and_extend),
                T(test_store_moved_or_locked),
        };
#undef T
        return cmocka_run_group_tests(tests, NULL, NULL);
}
