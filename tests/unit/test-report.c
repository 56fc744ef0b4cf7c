/* The report document, JUnit XML and Markdown (report/report.h) of
 * hand-made records: counts, the flags of each fault, every hostile string
 * escaped; and the hostile JUnit file parsed by a real consumer
 * (tests/integration/junit-count.py, Debian's python3-junitparser). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/run-command.h"
#include "report/report-internal.h"
#include "report/report.h"

#define HOSTILE "q\"<&'>\x01\t|*"

static json_t *lease(const char *id, const char *state, bool with_params) {
        json_t *l = json_pack(
                "{s:s, s:s, s:s, s:[s], s:s, s:s}", "id", id, "fault_id", "net.latency", "state", state,
                "targets", "web-1", "injected_at", "2026-12-04T03:14:28.000Z", "released_at",
                "2026-12-04T03:14:30.500Z");
        if (with_params)
                json_object_set_new(
                        l, "params", json_pack("{s:i, s:s}", "delay_ms", 200, "direction", HOSTILE));
        return l;
}

static json_t *event(const char *kind, json_t *payload) {
        return json_pack("{s:s, s:o}", "kind", kind, "payload", payload);
}

/* Three leases: l-1 in force, undone, verified; l-2 in force and kept faulted; l-3 with
 * nothing recorded after its lease. Two criteria (one fails), one SLO that
 * fails, a critical and a warning steady-state assertion that both fail. */
static json_t *record(const char *drill) {
        json_t *run = json_pack(
                "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:b, s:s}, {s:s, s:s, s:b, s:s}]}", "id",
                "r-rp15", "experiment_name", "x", "kind", "drill", "status", "completed", "verdict", "fail",
                "started_at", "2026-12-04T03:14:26.000Z", "ended_at", "2026-12-04T03:14:32.250Z", "criteria",
                "type", "boolean", "source_id", "poll", "satisfied", 1, "detail", "value=true", "type",
                "latency", "source_id", "poll.latency_ms", "satisfied", 0, "detail",
                "latency=401.3ms (max of 15) bound=<300.0ms");
        json_object_set_new(run, "experiment_name", json_stringn_nocheck(drill, strlen(drill)));
        json_t *r = json_pack(
                "{s:o, s:[o, o, o], s:[o, o, o], s:[{s:s, s:{s:b}, s:i}], "
                "s:[{s:s, s:s, s:s, s:s, s:f, s:s, s:i, s:i, s:f, s:i, s:s}], "
                "s:[{s:s, s:s, s:s, s:s, s:n, s:i, s:{s:n, s:f, s:i, s:s}, s:{}}, "
                "   {s:s, s:s, s:s, s:s, s:n, s:i, s:{s:f, s:f, s:i, s:s}, s:{}}], "
                "s:[{s:s, s:s, s:s, s:{s:f}}, {s:s, s:s, s:s, s:{s:f}}, {s:s, s:s, s:s, s:{}}], s:{s:i}}",
                "run", run, "leases", lease("l-1", "released", true), lease("l-2", "kept_faulted", false),
                lease("l-3", "released", false), "events",
                event("fault.observed", json_pack(
                                                "{s:s, s:b, s:b, s:s}", "lease", "l-1", "in_force", 1,
                                                "observed", 1, "detail", "added 200 ms")),
                event("fault.recovered", json_pack("{s:s, s:s}", "lease", "l-1", "detail", "qdisc gone")),
                event("fault.observed", json_pack(
                                                "{s:s, s:b, s:b, s:s}", "lease", "l-2", "in_force", 1,
                                                "kept", 1, "detail", "kept")),
                "recovery_records", "lease_id", "l-1", "undo_results", "ok", 1, "verified", 1,
                "slo_outcomes", "name", "lat", "kind", "latency", "metric", "poll.latency_ms", "operator",
                "lt", "threshold", 150.0, "unit", "ms", "window_s", 4, "passed", 0, "observed", 412.5,
                "samples", 8, "reason", "p95 412.5 ms", "steady_state_evaluations", "signal", "lat", "phase",
                "during", "assertion", "assert_degraded", "severity", "critical", "verdict", "passed", 0,
                "measured_json", "d", "b", 1.9, "samples", 0, "reason", "insufficient", "expectation_json",
                "signal", "err", "phase", "post", "assertion", "assert_recovered", "severity", "warning",
                "verdict", "passed", 0, "measured_json", "d", 9.0, "b", 1.0, "samples", 2, "reason",
                "d=9 b=1", "expectation_json", "observations", "source", "poll", "kind", "boolean",
                "timestamp", "2026-12-04T03:14:27.000Z", "data", "value", 1.0, "source", "poll", "kind",
                "boolean", "timestamp", "2026-12-04T03:14:29.000Z", "data", "value", 0.0, "source", "poll",
                "kind", "boolean", "timestamp", "2026-12-04T03:14:31.000Z", "data", "resilience", "score",
                85);
        assert_non_null(r);
        return r;
}

static json_t *fault(const json_t *doc, size_t i) {
        return json_array_get(json_object_get(doc, "faults"), i);
}

static void test_doc_fields_and_totals(void **state) {
        json_t *rec = record("drill"), *doc = report_doc_json(rec);
        (void)state;
        assert_non_null(doc);
        assert_string_equal(json_string_value(json_object_get(doc, "schema")), "mayhem.report/1");
        assert_string_equal(json_string_value(json_object_get(doc, "verdict")), "fail");
        assert_float_equal(
                json_number_value(json_object_get(json_object_get(doc, "run"), "duration_s")), 6.25, 1e-9);
        assert_true(json_is_true(json_object_get(fault(doc, 0), "in_force")));
        assert_true(json_is_true(json_object_get(fault(doc, 0), "undone")));
        assert_true(json_is_true(json_object_get(fault(doc, 0), "verified")));
        assert_float_equal(json_number_value(json_object_get(fault(doc, 0), "held_s")), 2.5, 1e-9);
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(fault(doc, 0), "params"), "delay_ms")),
                200);
        assert_string_equal(json_string_value(json_object_get(fault(doc, 0), "target")), "web-1");
        assert_true(json_is_true(json_object_get(fault(doc, 1), "kept")));
        assert_true(json_is_null(json_object_get(fault(doc, 1), "undone")));
        assert_true(json_is_null(
                json_object_get(fault(doc, 2), "in_force"))); /* nothing measured: null, not false */
        assert_true(json_is_null(json_object_get(fault(doc, 2), "verified")));
        const json_t *poll = json_object_get(json_object_get(doc, "observations"), "poll");
        assert_int_equal(json_integer_value(json_object_get(poll, "count")), 3);
        assert_int_equal(json_integer_value(json_object_get(poll, "failed")), 1);
        assert_int_equal(json_integer_value(json_object_get(poll, "no_value")), 1);
        assert_string_equal(json_string_value(json_object_get(poll, "last")), "2026-12-04T03:14:31.000Z");
        const json_t *totals = json_object_get(doc, "totals");
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(totals, "criteria"), "failed")), 1);
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(totals, "steady_state"), "failed")), 2);
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(totals, "faults"), "verified")), 1);
        json_decref(doc);
        json_decref(rec);
}

static char *junit_of(const char *drill) {
        json_t *rec = record(drill), *doc = report_doc_json(rec);
        struct strbuf b = STRBUF_INIT(REPORT_MAX);
        assert_non_null(doc);
        assert_int_equal(report_junit_render(doc, &b), 0);
        json_decref(doc);
        json_decref(rec);
        return strbuf_steal(&b);
}

/* 1 run + 2 criteria + 1 SLO + 2 steady state + 3 x 3 faults = 15 cases;
 * failures: a criterion, the SLO, the critical assertion; the warning
 * passes. l-2's undone and verified are skipped, l-3's three are errors. */
static void test_junit_counts(void **state) {
        _cleanup_free_ char *xml = junit_of("drill");
        (void)state;
        assert_non_null(
                strstr(xml, "<testsuite name=\"drill\" tests=\"15\" failures=\"3\" errors=\"3\" "
                            "skipped=\"2\" time=\"6.250\""));
        assert_non_null(strstr(
                xml, "<testsuites name=\"mayhem\" tests=\"15\" failures=\"3\" errors=\"3\" skipped=\"2\""));
        assert_non_null(strstr(
                xml,
                "<failure message=\"latency=401.3ms (max of 15) bound=&lt;300.0ms\" type=\"criterion\">"));
        assert_non_null(strstr(
                xml, "<failure message=\"observed=412.5 ms (wanted lt 150 ms; 8 samples): p95 412.5 ms\""));
        assert_non_null(strstr(xml, "name=\"fault l-1 net.latency on web-1: in force\" time=\"2.500\""));
        assert_non_null(strstr(xml, "<property name=\"param.delay_ms\" value=\"200\"/>"));
        assert_non_null(strstr(xml, "<skipped message=\"kept in force on purpose (recovery: false)\">"));
        assert_non_null(strstr(
                xml, "<error message=\"in force: nothing recorded (lease released)\" type=\"fault\">"));
        assert_non_null(
                strstr(xml, "<system-out>WARN: insufficient: value=9 baseline=1: d=9 b=1</system-out>"));
}

/* Quotes, markup, a control character, a tab, invalid UTF-8 and an
 * overlong encoding in the drill name and a param: entities or U+FFFD. */
static void test_junit_escapes_hostile_strings(void **state) {
        _cleanup_free_ char *xml = junit_of("d\"<&'>\x01\t\xff\xc0\xaf"
                                            "end");
        (void)state;
        assert_non_null(
                strstr(xml, "classname=\"mayhem.d&quot;&lt;&amp;&apos;&gt;\xef\xbf\xbd&#9;"
                            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                            "end\""));
        assert_non_null(
                strstr(xml, "<property name=\"param.direction\" "
                            "value=\"q&quot;&lt;&amp;&apos;&gt;\xef\xbf\xbd&#9;|*\"/>"));
        for (const unsigned char *p = (const unsigned char *)xml; *p; p++)
                assert_true(*p >= 0x20 || *p == '\n');
}

static void test_xml_escape(void **state) {
        struct strbuf b = STRBUF_INIT(4096);
        (void)state;
        assert_int_equal(xml_escape(&b, "a\nb\r<\xed\xa0\x80|\xef\xbf\xbe|\xf0\x9f\x99\x82", false), 0);
        assert_string_equal(
                b.data, "a\nb&#13;&lt;\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd|\xf0\x9f\x99\x82");
        strbuf_done(&b);
        assert_int_equal(xml_escape(&b, "\"'\n", true), 0);
        assert_string_equal(b.data, "&quot;&apos;&#10;");
        strbuf_done(&b);
}

static void test_markdown_escapes(void **state) {
        json_t *rec = record("a|b <script>*x*\n# y"), *doc = report_doc_json(rec);
        struct strbuf b = STRBUF_INIT(REPORT_MAX);
        (void)state;
        assert_int_equal(report_md_render(doc, &b), 0);
        assert_non_null(strstr(b.data, "**drill**: a\\|b \\<script\\>\\*x\\* \\# y\n"));
        assert_non_null(strstr(
                b.data,
                "- [FAIL] latency:poll.latency\\_ms (latency=401.3ms (max of 15) bound=\\<300.0ms)\n"));
        assert_non_null(strstr(b.data, "| l-2 | net.latency | web-1 | 2.5 | yes | kept | kept | kept |\n"));
        assert_non_null(strstr(b.data, "**faults**: 3 leased, 2 in force, 1 undone, 1 verified\n"));
        strbuf_done(&b);
        json_decref(doc);
        json_decref(rec);
}

/* The hostile file read by junitparser: the counts it finds are ours. */
static void test_junit_parsed_by_junitparser(void **state) {
        _cleanup_free_ char *xml = junit_of("d\"<&'>\x01\t\xff"
                                            "end");
        char path[64], script[1024];
        (void)state;
        snprintf(path, sizeof(path), "/tmp/rp15-unit-%d.xml", (int)getpid());
        snprintf(
                script, sizeof(script), "%s/tests/integration/junit-count.py", getenv("MAYHEM_SOURCE_ROOT"));
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(xml, f);
        fclose(f);
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "/usr/bin/python3", script, path, NULL });
        unlink(path);
        if (r.exit != 0 ||
            !strstr(r.out, "suites 1 cases 15 failures 3 errors 3 skipped 2 names-unique yes\n"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
}

static void test_formats(void **state) {
        (void)state;
        assert_int_equal(report_format_from_string("junit"), REPORT_JUNIT);
        assert_int_equal(report_format_from_string("xml"), -EINVAL);
        assert_string_equal(report_format_to_string(REPORT_MD), "md");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_doc_fields_and_totals),
                cmocka_unit_test(test_junit_counts),
                cmocka_unit_test(test_junit_escapes_hostile_strings),
                cmocka_unit_test(test_xml_escape),
                cmocka_unit_test(test_markdown_escapes),
                cmocka_unit_test(test_junit_parsed_by_junitparser),
                cmocka_unit_test(test_formats),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
