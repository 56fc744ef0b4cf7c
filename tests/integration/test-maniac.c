#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proc-stat.h"
#include "demo-harness.h"

/* Issue 13 part 5 on dockerd: a seeded maniac run of three short pause
 * faults over two containers, then --replay of it. From the evidence (the
 * maniac_draws rows and the leases, in order) the replay injected the same
 * fault ids on the same containers in the same order with the same holds;
 * afterwards no container or process is left paused. */

static struct demo demo;
/* mayhem-itest-maniac-b-PID in project mayhem-itest-maniac-PID: two
 * checkouts' runs never share the side container (demo-api is the demo
 * stack's, shared by design). */
static char side[48], project[48], compose[96], compose_gone[96], drill[96];

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void remove_side(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ demo_engine_cli(), "rm", "-f", side, NULL });
        cmd_result_done(&r);
}

static void write_file_f(const char *path, const char *format, ...) _printf_(2, 3);
static void write_file_f(const char *path, const char *format, ...) {
        char text[1024];
        va_list ap;
        va_start(ap, format);
        vsnprintf(text, sizeof(text), format, ap);
        va_end(ap);
        write_file(path, text);
}

static int setup(void **state) {
        snprintf(side, sizeof(side), "mayhem-itest-maniac-b-%d", (int)getpid());
        snprintf(project, sizeof(project), "mayhem-itest-maniac-%d", (int)getpid());
        remove_side();
        if (!demo_run_service(side, project, "side"))
                return -1;
        snprintf(compose, sizeof(compose), "/tmp/mayhem-itest-maniac-%d.yaml", (int)getpid());
        snprintf(compose_gone, sizeof(compose_gone), "/tmp/mayhem-itest-maniac-%d-gone.yaml", (int)getpid());
        snprintf(drill, sizeof(drill), "/tmp/mayhem-itest-maniac-%d-drill.yaml", (int)getpid());
        write_file_f(
                compose,
                "name: %s\nservices:\n"
                "  api: {image: mayhem-demo-api:latest, container_name: demo-api}\n"
                "  side: {image: mayhem-test-net:latest, container_name: %s}\n",
                project, side);
        write_file_f(
                compose_gone,
                "name: %s\nservices:\n"
                "  api: {image: mayhem-demo-api:latest, container_name: demo-api}\n",
                project);
        /* Level 3 draws across containers; 4 adds ±10 % jitter (never below 1 s). */
        write_file_f(
                drill,
                "kind: drill\nname: maniac-it\n"
                "config: {maniac: {level: 4, run_level: 3}}\n"
                "containers:\n"
                "  demo-api:\n    faults:\n"
                "      - {fault: container.pause, duration: 1500ms}\n"
                "      - {fault: proc.pause, duration: 1s}\n"
                "  %s:\n    faults:\n"
                "      - {fault: proc.pause, duration: 1200ms}\n"
                "      - {fault: container.pause, duration: 1s}\n"
                "execution:\n  - sequential: [demo-api, %s]\n",
                side, side);
        return 0;
}

static int teardown(void **state) {
        remove_side();
        unlink(compose);
        unlink(compose_gone);
        unlink(drill);
        return 0;
}

/* Rows of one query over one run, each row's columns joined by '|', rows by '\n'. */
static char *rows(const char *sql, const char *run_id) {
        sqlite3 *h = NULL;
        sqlite3_stmt *st = NULL;
        char *out = calloc(1, 1);
        size_t len = 0;
        assert_int_equal(sqlite3_open_v2(demo.db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
        sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW)
                for (int c = 0; c < sqlite3_column_count(st); c++) {
                        const char *v = (const char *)sqlite3_column_text(st, c);
                        size_t n = v ? strlen(v) : 4;
                        out = realloc(out, len + n + 2);
                        memcpy(out + len, v ? v : "NULL", n);
                        len += n;
                        out[len++] = c + 1 < sqlite3_column_count(st) ? '|' : '\n';
                        out[len] = '\0';
                }
        sqlite3_finalize(st);
        sqlite3_close(h);
        return out;
}

#define DRAWS_SQL                                                                                           \
        "SELECT seq, seed, level, container, fault_id, params_json, duration_ms, at_ms FROM maniac_draws "  \
        "WHERE run_id = ? ORDER BY seq"
/* The leases in the order they were taken, each with the container it held. */
#define LEASES_SQL                                                                                          \
        "SELECT fault_id, json_extract(targets_json, '$[0]') FROM fault_leases WHERE run_id = ? "           \
        "ORDER BY created_epoch_s, rowid"
#define DRAWN_SQL "SELECT fault_id, container FROM maniac_draws WHERE run_id = ? ORDER BY seq"

static char *maniac(const char *const *args, int want_exit) {
        struct cmd_result r = demo_mayhem(&demo, args);
        if (r.exit != want_exit)
                fail_msg("exit %d (want %d)\n%s%s", r.exit, want_exit, r.out, r.err);
        json_t *j = json_loads(r.out, 0, NULL);
        const char *id = json_string_value(json_object_get(j, "run_id"));
        if (!id)
                fail_msg("no run_id\n%s%s", r.out, r.err);
        char *run_id = strdup(id);
        json_decref(j);
        cmd_result_done(&r);
        return run_id;
}

static void assert_nothing_paused(void) {
        const char *const names[] = { "demo-api", side };
        for (size_t i = 0; i < 2; i++) {
                struct engine_container c;
                assert_true(demo_inspect_container(names[i], &c));
                if (!c.running || c.paused || proc_state_of(c.pid) == 'T')
                        fail_msg(
                                "%s left %s (process state %c)", names[i], c.paused ? "paused" : c.status,
                                proc_state_of(c.pid));
        }
}

static void test_seeded_run_then_replay(void **state) {
        _cleanup_free_ char *first =
                maniac((const char *const[]){ "maniac", drill, "-c", compose, "--seed", "42", "--execute",
                                              "--json", NULL },
                       0);
        assert_nothing_paused();
        _cleanup_free_ char *second =
                maniac((const char *const[]){ "maniac", "--replay", first, "-c", compose, "--execute",
                                              "--json", NULL },
                       0);
        assert_nothing_paused();

        _cleanup_free_ char *d1 = rows(DRAWS_SQL, first), *d2 = rows(DRAWS_SQL, second);
        _cleanup_free_ char *l1 = rows(LEASES_SQL, first), *l2 = rows(LEASES_SQL, second);
        _cleanup_free_ char *drawn = rows(DRAWN_SQL, first);
        print_message("draws of %s:\n%sleases:\n%s", first, d1, l1);
        assert_int_equal(strlen(d1) > 0, 1);
        assert_string_equal(d1, d2);    /* same seq, seed, level, container, fault, params, hold, offset */
        assert_string_equal(l1, l2);    /* the same faults hit the same containers in the same order */
        assert_string_equal(l1, drawn); /* and they are the draws */
        size_t n = 0;
        for (const char *p = d1; (p = strchr(p, '\n')); p++)
                n++;
        assert_int_equal(n, 3);
        assert_non_null(strstr(d1, "1|42|4|")); /* the drill's level, the given seed */

        _cleanup_free_ char *runs = rows("SELECT kind, seed FROM runs WHERE id = ?", first);
        _cleanup_free_ char *runs2 = rows("SELECT kind, seed FROM runs WHERE id = ?", second);
        assert_string_equal(runs, "random|42\n");
        assert_string_equal(runs2, "random|42\n");
        _cleanup_free_ char *ev = rows(
                "SELECT json_extract(payload_json, '$.replay_of') FROM events WHERE run_id = ? AND kind = "
                "'maniac.decision'",
                second);
        assert_non_null(strstr(ev, first));
}

/* Refusals touch nothing: no --execute (exit 5), --dry-run (exit 0, no run
 * recorded), a replay of a run that is not a maniac run or whose container
 * is gone (exit 4). */
static void test_refusals_touch_nothing(void **state) {
        demo_fresh_db(&demo);
        struct cmd_result r = MAYHEM(&demo, "maniac", drill, "-c", compose, "--steps", "2");
        if (r.exit != 5 || !strstr(r.err, "execution_intent_required"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        r = MAYHEM(&demo, "--dry-run", "maniac", drill, "-c", compose, "--seed", "7", "--execute");
        if (r.exit != 0 || !strstr(r.out, "dry-run: 3 random fault round(s) drawn for r-maniac-it-"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_nothing_paused();
        assert_int_equal(access(demo.db, F_OK), -1); /* not even the evidence database was created */

        _cleanup_free_ char *run =
                maniac((const char *const[]){ "maniac", drill, "-c", compose, "--seed", "3", "--ctr", side,
                                              "--steps", "1", "--execute", "--json", NULL },
                       0);
        r = MAYHEM(&demo, "maniac", "--replay", run, "-c", compose_gone, "--execute");
        char gone[96];
        snprintf(gone, sizeof(gone), "container '%s' is gone", side);
        if (r.exit != 4 || !strstr(r.err, gone))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        r = MAYHEM(&demo, "maniac", "--replay", "r-none-000000", "-c", compose, "--execute");
        if (r.exit != 4 || !strstr(r.err, "no run 'r-none-000000'"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_nothing_paused();
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_seeded_run_then_replay),
                cmocka_unit_test(test_refusals_touch_nothing),
        };
        int r = demo_up(&demo);
        if (r == 77) {
                fprintf(stderr, "no Docker engine answers: skipped\n");
                return 77;
        }
        if (r < 0) {
                demo_down(&demo);
                return 1;
        }
        int failed = cmocka_run_group_tests(tests, setup, teardown);
        demo_down(&demo);
        return failed;
}
