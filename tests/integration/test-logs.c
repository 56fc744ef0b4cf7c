#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/run-command.h"
#include "engine/engine.h"

/* Issue 14 with a real run on the engine: a busybox container (no TTY, so
 * the engine multiplexes stdout and stderr) writes four known lines at once
 * and three more three seconds later, while container.pause holds it (they
 * come out when it is unpaused). A drill with a logs source (since: the
 * second before the container started) must store exactly those seven
 * lines in log_lines, three on stderr, three matching the default pattern
 * error|fatal|panic, and its observations must say 7 and 3; a count
 * criterion on <id>.errors passes. A logs source on a container that does
 * not exist is observability.source_failed and <id> false, not a failed
 * run. A metrics source on the same run reads a child of this test that
 * serves Prometheus text: http_requests_total{code="500"} is two series,
 * 3 and 4.5, so it records 7.5, "the sum of 2 series". total_timeout 1ms
 * cuts the collection: the second of two logs sources is source_failed
 * "total_timeout (1ms) reached". A container with a TTY (raw text) gives
 * the same lines, all on stdout. Docker, and Podman when its service answers. */

#define APP "lg14-app"

static char db[64], drill[64];
static char compose[600];
static const char *cli = "docker", *engine_flag = NULL;

static const char script[] =
        "echo 'lg14 start one'; echo 'lg14 start two'; echo 'lg14 error: disk on fire' >&2; "
        "echo 'lg14 all good'; /busybox sleep 3; echo 'lg14 during PANIC now'; "
        "echo 'lg14 during plain' >&2; echo 'lg14 Fatal during' >&2; exec /busybox sleep 3600";

static pid_t server = -1;
static int port;

static const char prom_body[] = "# HELP http_requests_total The total.\n# TYPE http_requests_total counter\n"
                                "http_requests_total{code=\"500\",path=\"/a\"} 3\n"
                                "http_requests_total{code=\"500\",path=\"/b\"} 4.5e0 1700000000000\n"
                                "http_requests_total{code=\"200\"} 100\nodd{v=\"a\\\"b\\\\c\\nd\"} +Inf\n";

/* Answers every connection with prom_body until the test kills it (or dies:
 * PR_SET_PDEATHSIG). A failed accept other than an interrupted or aborted
 * connection ends it rather than spinning: the metrics source then fails,
 * and says so. The bound on connections is far above what the runs make. */
static void serve(int fd) {
        char reply[1024], buf[2048];
        int n = snprintf(
                reply, sizeof(reply), "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\n\r\n%s", strlen(prom_body),
                prom_body);
        for (int served = 0; served < 100000; served++) {
                int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0 && (errno == EINTR || errno == ECONNABORTED))
                        continue;
                if (c < 0) {
                        perror("lg14 metrics server: accept4");
                        _exit(1);
                }
                if (read(c, buf, sizeof(buf)) > 0 && write(c, reply, (size_t)n) < 0)
                        _exit(1);
                close(c);
        }
        _exit(0);
}

static bool start_server(void) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 64) < 0 ||
            getsockname(fd, (struct sockaddr *)&a, &len) < 0)
                return false;
        port = ntohs(a.sin_port);
        server = fork();
        if (server == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                serve(fd);
        }
        close(fd);
        return server > 0;
}

static void remove_all(void) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ cli, "rm", "-f", APP, NULL });
        cmd_result_done(&r);
        unlink(drill);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char path[80];
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
}

static int teardown(void **state) {
        remove_all();
        return 0;
}

/* tty: docker run -t, so the engine sends raw text, stderr merged into it */
static void start_app_tty(bool tty) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ cli, "run", tty ? "-dt" : "-d", "--name", APP, "--label",
                                             "com.docker.compose.project=lg14", "--label",
                                             "com.docker.compose.service=app", "mayhem-test-busybox:latest",
                                             "/busybox", "sh", "-c", script, NULL });
        if (r.exit != 0)
                fail_msg("%s run: %s", cli, r.err);
        cmd_result_done(&r);
}

static void start_app(void) {
        start_app_tty(false);
}

static void write_drill_extra(long since, const char *container, const char *total, const char *extra) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: lg14-logs\ncontainers:\n  app:\n"
                "    faults:\n      - {fault: container.pause, duration: 4s}\n"
                "execution:\n  - sequential: [app]\n  - wait: 1s\n"
                "success:\n  criteria:\n    - {type: count, source_id: applog.errors, gte: 3}\n"
                "observability:\n  total_timeout: %s\n  sources:\n"
                "    - {kind: logs, source_id: applog, container: %s, since: '%ld', tail: 100, timeout: "
                "20s}\n"
                "    - {kind: metrics, source_id: prom, endpoint: 'http://127.0.0.1:%d/metrics',\n"
                "       metric: 'http_requests_total{code=\"500\"}', cadence: 0}\n%s",
                total, container, since, port, extra);
        assert_int_equal(fclose(f), 0);
}

static void write_drill(long since, const char *container) {
        write_drill_extra(since, container, "30s", "");
}

static struct cmd_result mayhem(void) {
        const char *argv[10];
        size_t n = 0;
        argv[n++] = getenv("MAYHEM_BIN");
        if (engine_flag)
                argv[n++] = engine_flag;
        argv[n++] = "--db";
        argv[n++] = db;
        argv[n++] = "run";
        argv[n++] = drill;
        argv[n++] = "-c";
        argv[n++] = compose;
        argv[n++] = "--execute";
        argv[n] = NULL;
        return run_command(NULL, argv);
}

static int64_t query_int(sqlite3 *s, const char *sql) {
        sqlite3_stmt *st = NULL;
        int64_t v = -1;
        if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
                v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return v;
}

/* The last value recorded for an observation source. */
static double observed(sqlite3 *s, const char *source) {
        char sql[256];
        snprintf(
                sql, sizeof(sql),
                "SELECT json_extract(data_json, '$.value') * 1000 FROM observations WHERE source = '%s' "
                "ORDER BY id DESC LIMIT 1",
                source);
        return (double)query_int(s, sql) / 1000;
}

static void test_lines_stored_and_counted(void **state) {
        long since = (long)time(NULL) - 1;
        start_app();
        write_drill(since, APP);
        struct cmd_result r = mayhem();
        print_message("mayhem exit %d\n%s", r.exit, r.out);
        if (r.exit != 0)
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        sqlite3 *s = NULL;
        assert_int_equal(sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        int64_t lines = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE source_id = 'applog'");
        int64_t err = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE stream = 'stderr'");
        int64_t matched = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE matched = 1");
        int64_t stamped = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE ts LIKE '20__-__-__T%'");
        int64_t known = query_int(
                s, "SELECT COUNT(*) FROM log_lines WHERE line IN ('lg14 start one', 'lg14 start two', "
                   "'lg14 error: disk on fire', 'lg14 all good', 'lg14 during PANIC now', "
                   "'lg14 during plain', 'lg14 Fatal during')");
        int64_t err_matched = query_int(
                s,
                "SELECT COUNT(*) FROM log_lines WHERE matched = 1 AND line IN ('lg14 error: disk on fire', "
                "'lg14 during PANIC now', 'lg14 Fatal during')");
        int64_t stderr_right = query_int(
                s, "SELECT COUNT(*) FROM log_lines WHERE stream = 'stderr' AND line IN ('lg14 error: disk "
                   "on fire', 'lg14 during plain', 'lg14 Fatal during')");
        print_message(
                "log_lines: %lld lines, %lld stderr, %lld matched, %lld stamped; observed %.0f / %.0f\n",
                (long long)lines, (long long)err, (long long)matched, (long long)stamped,
                observed(s, "applog.lines"), observed(s, "applog.errors"));
        assert_int_equal(lines, 7);
        assert_int_equal(known, 7);
        assert_int_equal(err, 3);
        assert_int_equal(stderr_right, 3);
        assert_int_equal(matched, 3);
        assert_int_equal(err_matched, 3);
        assert_int_equal(stamped, 7);
        assert_true(observed(s, "applog") == 1);
        assert_true(observed(s, "applog.lines") == 7);
        assert_true(observed(s, "applog.errors") == 3);
        assert_non_null(strstr(r.out, "[PASS]"));
        /* the metrics source: two series of code 500 summed */
        double prom = observed(s, "prom.value");
        int64_t summed = query_int(
                s, "SELECT COUNT(*) FROM observations WHERE source = 'prom' AND json_extract(data_json, "
                   "'$.detail') LIKE '%= 7.5 (the sum of 2 series)%'");
        print_message("prom.value %.3f, detail says the sum of 2 series: %lld\n", prom, (long long)summed);
        assert_true(prom == 7.5);
        assert_int_equal(summed, 1);
        sqlite3_close(s);
        cmd_result_done(&r);
}

/* The logs source names a container that is not there: the run goes on,
 * the source failed with the engine's reason, <id> is false, nothing stored. */
static void test_missing_container_is_source_failed(void **state) {
        start_app();
        write_drill((long)time(NULL) - 1, "lg14-nope");
        struct cmd_result r = mayhem();
        print_message("mayhem exit %d\n%s", r.exit, r.out);
        sqlite3 *s = NULL;
        assert_int_equal(sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        int64_t failed = query_int(
                s, "SELECT COUNT(*) FROM events WHERE kind = 'observability.source_failed' AND "
                   "json_extract(payload_json, '$.source') = 'applog' AND "
                   "json_extract(payload_json, '$.reason') LIKE '%lg14-nope%'");
        int64_t stored = query_int(s, "SELECT COUNT(*) FROM log_lines");
        int64_t completed = query_int(s, "SELECT COUNT(*) FROM runs WHERE status = 'completed'");
        print_message(
                "source_failed events %lld, lines %lld, completed runs %lld\n", (long long)failed,
                (long long)stored, (long long)completed);
        assert_int_equal(failed, 1);
        assert_int_equal(stored, 0);
        assert_int_equal(completed, 1);
        assert_true(observed(s, "applog") == 0);
        assert_non_null(strstr(r.out, "1/2 sources collected")); /* the failed logs source is not counted */
        sqlite3_close(s);
        cmd_result_done(&r);
}

/* total_timeout 1ms: the first logs source gets at most 1 ms (it may be
 * cut too), the second none: it is source_failed with the reference's words. */
static void test_total_timeout_cuts_collection(void **state) {
        start_app();
        long since = (long)time(NULL) - 1;
        char extra[256];
        snprintf(
                extra, sizeof(extra), "    - {kind: logs, source_id: second, container: %s, since: '%ld'}\n",
                APP, since);
        write_drill_extra(since, APP, "1ms", extra);
        struct cmd_result r = mayhem();
        print_message("mayhem exit %d\n%s", r.exit, r.out);
        sqlite3 *s = NULL;
        assert_int_equal(sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        int64_t cut = query_int(
                s, "SELECT COUNT(*) FROM events WHERE kind = 'observability.source_failed' AND "
                   "json_extract(payload_json, '$.source') = 'second' AND "
                   "json_extract(payload_json, '$.reason') = 'total_timeout (1ms) reached'");
        int64_t second_lines = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE source_id = 'second'");
        print_message(
                "second: source_failed by total_timeout %lld, lines %lld\n", (long long)cut,
                (long long)second_lines);
        assert_int_equal(cut, 1);
        assert_int_equal(second_lines, 0);
        assert_true(observed(s, "second") == 0);
        sqlite3_close(s);
        cmd_result_done(&r);
}

/* The same lines from a container with a TTY: raw text, every line on
 * stdout (the TTY merged them), the \r of its \r\n dropped, the same 7 and 3. */
static void test_tty_container_raw_text(void **state) {
        long since = (long)time(NULL) - 1;
        start_app_tty(true);
        write_drill(since, APP);
        struct cmd_result r = mayhem();
        print_message("mayhem exit %d\n%s", r.exit, r.out);
        sqlite3 *s = NULL;
        assert_int_equal(sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        int64_t lines = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE stream = 'stdout'");
        int64_t all = query_int(s, "SELECT COUNT(*) FROM log_lines");
        int64_t cr = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE instr(line, char(13)) > 0");
        int64_t matched = query_int(s, "SELECT COUNT(*) FROM log_lines WHERE matched = 1");
        print_message(
                "tty: %lld lines (%lld stdout), %lld with \\r, %lld matched\n", (long long)all,
                (long long)lines, (long long)cr, (long long)matched);
        assert_int_equal(all, 7);
        assert_int_equal(lines, 7);
        assert_int_equal(cr, 0);
        assert_int_equal(matched, 3);
        assert_true(observed(s, "applog.errors") == 3);
        sqlite3_close(s);
        cmd_result_done(&r);
}

static int run_all(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_lines_stored_and_counted, teardown),
                cmocka_unit_test_teardown(test_missing_container_is_source_failed, teardown),
                cmocka_unit_test_teardown(test_total_timeout_cuts_collection, teardown),
                cmocka_unit_test_teardown(test_tty_container_raw_text, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

int main(void) {
        struct engine *e = NULL;
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &e, NULL) < 0)
                return 77;
        engine_free(e);
        const char *root = getenv("MAYHEM_SOURCE_ROOT");
        snprintf(compose, sizeof(compose), "%s/tests/data/compose/lg14/compose.yaml", root ? root : ".");
        snprintf(drill, sizeof(drill), "/tmp/lg14-logs-%d.yaml", (int)getpid());
        snprintf(db, sizeof(db), "/tmp/lg14-logs-%d.db", (int)getpid());
        remove_all();
        if (!start_server())
                return 1;
        int failed = run_all();
        if (engine_open(ENGINE_PODMAN, NULL, &e, NULL) < 0) {
                print_message("Podman's API does not answer (tools/engine-up --podman): skipped there\n");
                kill(server, SIGKILL);
                waitpid(server, NULL, 0);
                return failed;
        }
        engine_free(e);
        cli = "podman";
        engine_flag = "--podman";
        remove_all();
        failed |= run_all();
        kill(server, SIGKILL);
        waitpid(server, NULL, 0);
        return failed;
}
