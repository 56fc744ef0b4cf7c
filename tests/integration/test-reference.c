/* The reference's own example drill (shared reference §3.10, in
 * examples/reference/) on a stack of real containers (dockerd), through the
 * whole tool:
 *  - drill.yaml, as the reference wrote it, is refused at validation at its
 *    net.load fault (no L7 load generator in this build), exit 4, with the
 *    reason and nothing touched;
 *  - drill-runnable.yaml, the same drill without net.load, runs end to end:
 *    proc.pause then mem.exhaust on testcase-api beside fs.read_only on
 *    testcase-download-1, a legacy host check, net.latency on testcase-lb,
 *    the check_spec that runs inside testcase-lb (it resolves testcase-api
 *    through Docker's DNS, a name the host cannot resolve), a logs source
 *    and a probe source. It completes; every lease is released; the checks
 *    and sources recorded what they saw; nothing is left behind.
 * The run's verdict is "fail" (exit 1), as the reference's example must
 * give here: its criterion reads check-0004-0.status, which no check of the
 * drill produces (its own numbering makes the legacy check check-0002-0),
 * and that legacy check probes http://testcase-api:8080/ from the
 * controller's host, which cannot resolve a container's name. */
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

#include "demo-harness.h"

#define NETWORK  "testcase_default"
#define COMPOSE  "examples/reference/compose.yaml"
#define DRILL    "examples/reference/drill.yaml"
#define RUNNABLE "examples/reference/drill-runnable.yaml"

static struct demo demo;

struct member {
        const char *name, *service, *image, *number;
};

static const struct member stack[] = {
        { "testcase-api", "api", "mayhem-demo-api:latest", "1" },
        { "testcase-download-1", "download", "mayhem-test-busybox:latest", "1" },
        { "testcase-download-2", "download", "mayhem-test-busybox:latest", "2" },
        { "testcase-lb", "lb", "mayhem-test-busybox:latest", "1" },
        { "testcase-cache", "cache", "mayhem-test-busybox:latest", "1" },
};

static int docker_quiet(const char *const *argv, bool quiet) {
        struct cmd_result r = run_command(NULL, argv);
        int code = r.exit;
        if (code != 0 && !quiet)
                print_message("%s %s: %s", argv[0], argv[1], r.err ? r.err : "");
        cmd_result_done(&r);
        return code;
}

#define DOCKER(...)       docker_quiet((const char *const[]){ "docker", __VA_ARGS__, NULL }, false)
#define DOCKER_QUIET(...) docker_quiet((const char *const[]){ "docker", __VA_ARGS__, NULL }, true)

static void remove_stack(void) {
        for (size_t i = 0; i < ELEMENTSOF(stack); i++)
                DOCKER_QUIET("rm", "-f", stack[i].name);
        DOCKER_QUIET("network", "rm", NETWORK);
}

/* docker run as compose would: project, service and number labels, the
 * network, the service's name as an alias. */
static int start(const struct member *m) {
        char service[64], number[64];
        snprintf(service, sizeof(service), "com.docker.compose.service=%s", m->service);
        snprintf(number, sizeof(number), "com.docker.compose.container-number=%s", m->number);
        const char *argv[] = { "docker",
                               "run",
                               "-d",
                               "--name",
                               m->name,
                               "--label",
                               "com.docker.compose.project=testcase",
                               "--label",
                               service,
                               "--label",
                               number,
                               "--network",
                               NETWORK,
                               "--network-alias",
                               m->service,
                               "--memory",
                               "512m",
                               m->image,
                               NULL };
        return docker_quiet(argv, false);
}

static int setup(void **state) {
        (void)state;
        const char *root = getenv("MAYHEM_SOURCE_ROOT");
        snprintf(demo.root, sizeof(demo.root), "%s", root ? root : ".");
        demo_fresh_db(&demo);
        remove_stack();
        if (DOCKER("network", "create", NETWORK) != 0)
                return -1;
        for (size_t i = 0; i < ELEMENTSOF(stack); i++)
                if (start(&stack[i]) != 0)
                        return -1;
        return 0;
}

static int teardown(void **state) {
        (void)state;
        remove_stack();
        return 0;
}

/* One query over one run: each row's columns joined by '|', rows by '\n' (malloc()ed). */
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
                        assert_non_null(out);
                        memcpy(out + len, v ? v : "NULL", n);
                        len += n;
                        out[len++] = c + 1 < sqlite3_column_count(st) ? '|' : '\n';
                        out[len] = '\0';
                }
        sqlite3_finalize(st);
        sqlite3_close(h);
        return out;
}

static void assert_rows(const char *sql, const char *run_id, const char *want) {
        char *got = rows(sql, run_id);
        print_message("%s\n  -> %s", sql, got);
        if (strcmp(got, want) != 0)
                fail_msg("wanted: %s", want);
        free(got);
}

/* The reference's drill as written: refused where net.load is, nothing touched. */
static void test_verbatim_refused(void **state) {
        (void)state;
        struct cmd_result r = MAYHEM(&demo, "prepare", "validate", DRILL, "-c", COMPOSE);
        print_message("exit %d: %s", r.exit, r.err);
        assert_int_equal(r.exit, 4);
        assert_non_null(strstr(r.err, DRILL ":26:16: error: net.load cannot be injected by this build"));
        assert_non_null(strstr(r.err, "not implemented yet"));
        cmd_result_done(&r);
        r = MAYHEM(&demo, "run", DRILL, "-c", COMPOSE, "--execute");
        assert_int_equal(r.exit, 4);
        cmd_result_done(&r);
        assert_int_not_equal(access(demo.db, F_OK), 0); /* refused before the evidence store */
}

#define OBS_SQL                                                                                             \
        "SELECT source, count(*), max(json_extract(data_json, '$.value')) FROM observations "               \
        "WHERE run_id = ? AND source IN ('api-health', 'check-0002-0', 'api.logs', 'api.http') "            \
        "GROUP BY source ORDER BY source"
#define LEASES_SQL "SELECT fault_id, state FROM fault_leases WHERE run_id = ? ORDER BY fault_id"

static void test_runnable_end_to_end(void **state) {
        (void)state;
        struct cmd_result r = MAYHEM(&demo, "run", RUNNABLE, "-c", COMPOSE, "--execute");
        print_message("exit %d\n%s%s", r.exit, r.out, r.err);
        assert_int_equal(r.exit, 1); /* completed; the reference's criterion fails (above) */
        assert_non_null(strstr(r.out, "completed"));
        cmd_result_done(&r);

        json_t *runs = INSPECT(&demo, "runs");
        assert_non_null(runs);
        const char *run_id = json_string_value(json_object_get(json_array_get(runs, 0), "id"));
        assert_non_null(run_id);
        assert_rows(
                LEASES_SQL, run_id,
                "fs.read_only|released\nmem.exhaust|released\nnet.latency|released\nproc.pause|released\n");
        /* api-health ran inside testcase-lb and reached testcase-api by name;
         * the host's legacy check could not resolve it; the logs source read
         * the API's request lines. */
        char *obs = rows(OBS_SQL, run_id);
        print_message("observations:\n%s", obs);
        assert_non_null(strstr(obs, "api-health|1|1.0"));
        assert_non_null(strstr(obs, "check-0002-0|1|0.0"));
        assert_non_null(strstr(obs, "api.logs|1|1.0"));
        free(obs);
        json_decref(runs);

        /* nothing left behind */
        struct engine_container c;
        assert_true(demo_inspect_container("testcase-api", &c));
        assert_true(c.running && !c.paused);
        assert_int_equal(DOCKER("exec", "testcase-download-1", "/busybox", "touch", "/mayhem-rw-check"), 0);
        assert_true(demo_inspect_container("testcase-lb", &c));
        char why[700];
        if (demo_net_residue(c.pid, why, sizeof(why)))
                fail_msg("residue in testcase-lb: %s", why);
}

int main(void) {
        if (demo_podman() || DOCKER_QUIET("version") != 0)
                return 77; /* dockerd only: the stack is started with docker run */
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_verbatim_refused),
                cmocka_unit_test(test_runnable_end_to_end),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
