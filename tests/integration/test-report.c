#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/http-server.h"
#include "common/run-command.h"

/* Issue 15's reports from a real run, no engine: a child of this test
 * serves HTTP on 127.0.0.1, proc.pause stops it for 2 s while a probe polls
 * it; one criterion passes (all 'after' samples up), one fails (the max
 * latency over 300 ms: the probes while paused wait up to their 1.5 s
 * timeout). The timeout is that long so that a healthy sample never fails
 * the first criterion, on a loaded machine under the sanitizer too. `run --report junit=… --report
 * json=… --report md=…` writes the three; junitparser (Debian's
 * python3-junitparser) counts the JUnit file's cases and failures and they
 * must be the run's, as `run --json` reports it; the JSON validates against
 * docs/report-schema.json with python3-jsonschema; `inspect report` writes
 * the same bytes again from the evidence. Files: /tmp/rp15-*. */

static char db[64], drill[64], junit[64], json_path[64], md[64], again[64], html[64];
static pid_t server = -1;
static int port;

static int setup(void **state) {
        int pid = (int)getpid();
        snprintf(db, sizeof(db), "/tmp/rp15-%d.db", pid);
        snprintf(drill, sizeof(drill), "/tmp/rp15-%d.yaml", pid);
        snprintf(junit, sizeof(junit), "/tmp/rp15-%d.xml", pid);
        snprintf(json_path, sizeof(json_path), "/tmp/rp15-%d.json", pid);
        snprintf(md, sizeof(md), "/tmp/rp15-%d.md", pid);
        snprintf(again, sizeof(again), "/tmp/rp15-%d-again.xml", pid);
        snprintf(html, sizeof(html), "/tmp/rp15-%d.html", pid);
        server = http_server_start("mayhem-itreport", &port);
        return server > 0 ? 0 : -1;
}

static int teardown(void **state) {
        if (server > 0) {
                kill(server, SIGKILL);
                waitpid(server, NULL, 0);
        }
        const char *files[] = { drill, junit, json_path, md, again, html };
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
                unlink(files[i]);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char path[80];
                snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
                unlink(path);
        }
        return 0;
}

static void write_drill(void) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: rp15-report\ntargets:\n  web:\n    runtime: process\n"
                "    process: {pid: %d}\n    faults: [{fault: proc.pause, duration: 2s}]\n"
                "execution:\n  - wait: 1500ms\n  - sequential: [web]\n  - wait: 2s\n"
                "success:\n  criteria:\n"
                "    - {type: boolean, source_id: poll, over: all, window: after}\n"
                "    - {type: latency, source_id: poll.latency_ms, lt_ms: 300, over: max}\n"
                "observability:\n  sources:\n    - kind: probe\n      source_id: poll\n"
                "      probe: {type: http, url: \"http://127.0.0.1:%d/\", timeout: 1500ms}\n"
                "      cadence: 500ms\n",
                (int)server, port);
        fclose(f);
}

static char *source_path(const char *rel) {
        static char buf[4][1024];
        static int n;
        char *p = buf[n++ % 4];
        snprintf(p, sizeof(buf[0]), "%s/%s", getenv("MAYHEM_SOURCE_ROOT"), rel);
        return p;
}

static char *read_all(const char *path) {
        FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t size = 0;
        if (!f)
                return NULL;
        FILE *m = open_memstream(&buf, &size);
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
                fwrite(chunk, 1, n, m);
        fclose(m);
        fclose(f);
        return buf;
}

/* "suites 1 cases N failures N errors N skipped N names-unique yes" from junitparser. */
static void junitparser_counts(const char *path, int *cases, int *failures, int *errors) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "/usr/bin/python3",
                                             source_path("tests/integration/junit-count.py"), path, NULL });
        int suites = -1, skipped = -1;
        char unique[8] = "";
        if (r.exit != 0 ||
            sscanf(r.out, "suites %d cases %d failures %d errors %d skipped %d names-unique %7s", &suites,
                   cases, failures, errors, &skipped, unique) != 6)
                fail_msg("junit-count: exit %d\n%s%s", r.exit, r.out, r.err);
        print_message("junitparser: %.*s\n", (int)strcspn(r.out, "\n"), r.out);
        assert_int_equal(suites, 1);
        assert_string_equal(unique, "yes");
        cmd_result_done(&r);
}

static void test_reports_match_the_run(void **state) {
        write_drill();
        char junit_arg[80], json_arg[80], md_arg[80], html_arg[80];
        snprintf(junit_arg, sizeof(junit_arg), "junit=%s", junit);
        snprintf(json_arg, sizeof(json_arg), "json=%s", json_path);
        snprintf(md_arg, sizeof(md_arg), "md=%s", md);
        snprintf(html_arg, sizeof(html_arg), "html=%s", html);
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "run", drill, "--execute",
                                             "--json", "--report", junit_arg, "--report", json_arg,
                                             "--report", md_arg, "--report", html_arg, NULL });
        json_t *res = json_loads(r.out, 0, NULL);
        if (r.exit != 1 || !res)
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        /* What the run said: its criteria, how many faults were leased. */
        size_t i, criteria = json_array_size(json_object_get(res, "criteria")), failed = 0;
        json_t *c;
        json_array_foreach(json_object_get(res, "criteria"), i, c) failed +=
                !json_is_true(json_object_get(c, "satisfied"));
        json_int_t faults = json_integer_value(json_object_get(json_object_get(res, "faults"), "injected"));
        const char *run_id = json_string_value(json_object_get(res, "run_id"));
        assert_int_equal(criteria, 2);
        assert_int_equal(failed, 1);
        assert_int_equal(faults, 1);

        int cases = -1, failures = -1, errors = -1;
        junitparser_counts(junit, &cases, &failures, &errors);
        /* the run's own case, each criterion, three per fault; no SLO or steady state in this drill */
        assert_int_equal(cases, 1 + (int)criteria + 3 * (int)faults);
        assert_int_equal(failures, (int)failed);
        assert_int_equal(errors, 0);

        struct cmd_result v = run_command(
                NULL,
                (const char *const[]){ "/usr/bin/python3", source_path("tests/integration/json-validate.py"),
                                       source_path("docs/report-schema.json"), json_path, NULL });
        if (v.exit != 0 || strcmp(v.out, "valid\n") != 0)
                fail_msg("json-validate: exit %d\n%s%s", v.exit, v.out, v.err);
        cmd_result_done(&v);

        char *text = read_all(md);
        assert_non_null(text);
        if (!strstr(text, "**verdict**: fail\n") ||
            !strstr(text, "- [FAIL] latency:poll.latency\\_ms (latency="))
                fail_msg("markdown:\n%s", text);
        free(text);

        /* The page: one shaded window for the one fault (test-report-html reads it in Chromium). */
        text = read_all(html);
        assert_non_null(text);
        if (strncmp(text, "<!DOCTYPE html>", 15) != 0 || !strstr(text, "class=\"fault-window"))
                fail_msg("html:\n%.400s", text);
        free(text);

        /* The evidence gives the same JUnit file again, byte for byte. */
        struct cmd_result again_r = run_command(
                NULL, (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "inspect", "report", run_id,
                                             "--format", "junit", "-o", again, NULL });
        assert_int_equal(again_r.exit, 0);
        cmd_result_done(&again_r);
        char *a = read_all(junit), *b = read_all(again);
        assert_non_null(a);
        assert_non_null(b);
        assert_string_equal(a, b);
        free(a);
        free(b);
        json_decref(res);
        cmd_result_done(&r);
}

/* A bad FORMAT or an empty FILE: exit 4 at argument parsing, no run recorded. */
static void test_bad_report_runs_nothing(void **state) {
        static const char *const bad[] = { "xml=/tmp/rp15-x", "junit=", "junit" };
        write_drill();
        unlink(db);
        for (size_t i = 0; i < 3; i++) {
                struct cmd_result r = run_command(
                        NULL, (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "run", drill,
                                                     "--execute", "--report", bad[i], NULL });
                if (r.exit != 4 || !strstr(r.err, "--report"))
                        fail_msg("--report %s: exit %d\n%s%s", bad[i], r.exit, r.out, r.err);
                cmd_result_done(&r);
        }
        assert_int_equal(access(db, F_OK), -1); /* not even the evidence was opened */
}

static void test_inspect_report_errors(void **state) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ getenv("MAYHEM_BIN"), "--db", db, "inspect", "report",
                                             "r-rp15-none", "--format", "junit", NULL });
        assert_int_equal(r.exit, 4); /* as inspect run */
        cmd_result_done(&r);
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "needs root (proc.pause on a host process)\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bad_report_runs_nothing),
                cmocka_unit_test(test_reports_match_the_run),
                cmocka_unit_test(test_inspect_report_errors),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
