#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-html-internal.h"
#include "report/report-html.h"

/* The HTML report on hand-made records: hostile text stays text, one
 * window per fault and target, one point per plotted sample, and the page
 * for 1,000 samples and 50 faults stays bounded. */

#define T0 "2026-01-02T03:04:05.000Z"

/* "2026-01-02T03:04:05.000Z" plus ms milliseconds (within the hour). */
static json_t *at(long ms) {
        char buf[32];
        long s = 5 + ms / 1000, m = 4 + s / 60;
        snprintf(buf, sizeof(buf), "2026-01-02T03:%02ld:%02ld.%03ldZ", m % 60, s % 60, ms % 1000);
        return json_string(buf);
}

static json_t *record_new(const char *name) {
        return json_pack(
                "{s:{s:s, s:s, s:s, s:s, s:o, s:[{s:s, s:s, s:b, s:s, s:s, s:s, s:i}], s:{s:[]}}, s:[], "
                "s:[], s:[], "
                "s:[], s:[], s:s, s:n, s:[], s:[]}",
                "run", "id", "r-test", "experiment_name", name, "verdict", "fail", "started_at", T0,
                "ended_at", at(60000), "criteria", "type", "latency", "source_id", "poll.latency_ms",
                "satisfied", 0, "detail", "latency=401ms", "over", "max", "window", "whole", "samples", 3,
                "plan", "decisions", "steps", "leases", "observations", "events", "recovery_records",
                "plan_text", "{\"plan\": \"<b>&\"}", "resilience", "slo_outcomes",
                "steady_state_evaluations");
}

static void add_lease(json_t *rec, const char *id, json_t *targets, json_t *injected, json_t *released) {
        json_array_append_new(
                json_object_get(rec, "leases"),
                json_pack(
                        "{s:s, s:s, s:o, s:s, s:o, s:o, s:[{s:s}], s:[{s:s}], s:{}}", "id", id, "fault_id",
                        "proc.pause", "targets", targets, "state", "released", "injected_at",
                        injected ? injected : json_null(), "released_at", released ? released : json_null(),
                        "undo", "op", "signal.cont", "verify", "probe", "process.not_stopped", "params"));
}

static void add_sample(
        json_t *rec, const char *source, const char *kind, json_t *value, const char *detail, json_t *ts) {
        json_array_append_new(
                json_object_get(rec, "observations"),
                json_pack(
                        "{s:s, s:s, s:{s:o, s:s}, s:o}", "source", source, "kind", kind, "data", "value",
                        value, "detail", detail, "timestamp", ts));
}

/* A probe run as the runner writes it: its boolean, then its latency. */
static void add_probe(json_t *rec, const char *id, long ms, bool ok, double latency) {
        char name[64];
        snprintf(name, sizeof(name), "%s.latency_ms", id);
        add_sample(rec, id, "boolean", json_real(ok), ok ? "status=200" : "timed out \"<x>\"", at(ms));
        add_sample(rec, name, "latency", json_real(latency), "", at(ms));
}

static char *page_of(const json_t *rec, size_t *ret_len) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        struct mh_error e = { 0 };
        assert_int_equal(report_html_write(f, rec, &e), 0);
        fclose(f);
        if (ret_len)
                *ret_len = len;
        return buf;
}

static size_t count(const char *hay, const char *needle) {
        size_t n = 0;
        for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

/* Every byte sequence of s is well-formed UTF-8. */
static bool valid_utf8(const char *s) {
        const unsigned char *p = (const unsigned char *)s;
        while (*p) {
                size_t n = *p < 0x80                  ? 1
                           : *p >= 0xC2 && *p <= 0xDF ? 2
                           : *p >= 0xE0 && *p <= 0xEF ? 3
                           : *p >= 0xF0 && *p <= 0xF4 ? 4
                                                      : 0;
                if (n == 0)
                        return false;
                for (size_t i = 1; i < n; i++)
                        if ((p[i] & 0xC0) != 0x80)
                                return false;
                p += n;
        }
        return true;
}

static void test_hostile_text_is_escaped(void **state) {
        json_t *rec = record_new("<script>alert('x')</script> & \"q\"");
        /* jansson refuses invalid UTF-8 unless told not to check: a store could hold it */
        json_object_set_new(
                json_object_get(rec, "run"), "engine", json_stringn_nocheck("e\xff\xc3(\x01z", 6));
        add_lease(rec, "l-\"><script>", json_pack("[s]", "web\"<img src=x>"), at(1000), at(2000));
        add_probe(rec, "p\"<b>", 500, false, 400);
        add_sample(rec, "bad\xed\xa0\x80", "boolean", json_real(1), "x", at(600)); /* a surrogate */
        char *page = page_of(rec, NULL);
        assert_null(strstr(page, "<script>"));
        assert_null(strstr(page, "<img"));
        assert_null(strstr(page, "<b>"));
        assert_non_null(strstr(page, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"));
        assert_non_null(strstr(page, "data-fault=\"l-&quot;&gt;&lt;script&gt;\""));
        assert_non_null(strstr(page, "timed out &quot;&lt;x&gt;&quot;"));
        assert_non_null(
                strstr(page, "e\xEF\xBF\xBD\xEF\xBF\xBD(\xEF\xBF\xBDz")); /* each bad byte, and \x01 */
        assert_true(valid_utf8(page));
        assert_null(strstr(page, "<script src"));
        assert_null(strstr(page, "http"));
        free(page);
        json_decref(rec);
}

static void test_windows_and_points_are_counted(void **state) {
        json_t *rec = record_new("counts");
        add_lease(rec, "l-1", json_pack("[s]", "a"), at(1000), at(3000));
        add_lease(rec, "l-2", json_pack("[s, s]", "a", "b"), at(2000), at(4000)); /* two bands */
        add_lease(rec, "l-3", json_pack("[s]", "c"), at(5000), NULL);             /* still held */
        add_lease(rec, "l-4", json_pack("[s]", "c"), NULL, NULL);                 /* never injected */
        for (int i = 0; i < 10; i++)
                add_probe(rec, "poll", 500L * i, i % 3 != 0, 2 + i);
        add_sample(rec, "m", "metric", json_string("NaN"), "", at(100)); /* not a number: not plotted */
        add_sample(rec, "m", "metric", json_null(), "", at(200));
        add_sample(
                rec, "m", "metric", json_real(7), "", json_string("yesterday")); /* no time: not plotted */
        add_sample(rec, "m", "metric", json_integer(3), "", at(300));
        char *page = page_of(rec, NULL);
        assert_int_equal(count(page, "class=\"fault-window"), 4);
        assert_int_equal(count(page, "class=\"fault-window held\""), 1);
        assert_int_equal(count(page, "data-fault=\"l-2\""), 2);
        assert_int_equal(count(page, "data-fault=\"l-4\""), 0);
        assert_int_equal(count(page, "class=\"held-mark\""), 1);
        assert_int_equal(count(page, "class=\"sample"), 21);
        assert_int_equal(count(page, "data-source=\"poll\""), 10);
        assert_int_equal(count(page, "data-source=\"poll.latency_ms\""), 10);
        assert_int_equal(count(page, "data-source=\"m\""), 1);
        /* i = 0, 3, 6, 9 failed: their booleans and the latencies of the same probe runs */
        assert_int_equal(count(page, "class=\"sample failed\""), 8);
        assert_non_null(strstr(page, "4 samples, 3 not plotted"));
        assert_non_null(strstr(page, "still held at the end of the record"));
        free(page);
        json_decref(rec);
}

/* The scale: 1,000 probe runs (a boolean and a latency each, 2,000
 * points) and 50 faults on 50 targets over ten minutes. */
#define BIG_PROBES 1000
#define BIG_FAULTS 50
#define BIG_BOUND  (1024 * 1024)

static void test_thousand_samples_fifty_faults_bounded(void **state) {
        json_t *rec = record_new("big");
        json_object_set_new(
                json_object_get(rec, "run"), "ended_at", json_string("2026-01-02T03:14:05.000Z"));
        for (int i = 0; i < BIG_FAULTS; i++) {
                char id[32], target[64];
                snprintf(id, sizeof(id), "l-%04d", i);
                snprintf(target, sizeof(target), "demo-service-with-a-very-long-name-%02d", i);
                add_lease(rec, id, json_pack("[s]", target), at(10000L * i), at(10000L * i + 8000));
        }
        for (int i = 0; i < BIG_PROBES; i++)
                add_probe(rec, "api", 600L * i, i % 7 != 0, 1 + (i % 50));
        size_t len = 0;
        char *page = page_of(rec, &len);
        print_message(
                "page for %d probe runs (%d points) and %d faults: %zu bytes\n", BIG_PROBES, 2 * BIG_PROBES,
                BIG_FAULTS, len);
        assert_int_equal(count(page, "class=\"fault-window\""), BIG_FAULTS);
        assert_int_equal(count(page, "class=\"sample"), 2 * BIG_PROBES);
        assert_true(len < BIG_BOUND);
        /* names longer than the gutter are cut there, whole in the tooltip */
        assert_non_null(
                strstr(page, ">demo-service-wi\xE2\x80\xA6"
                             "ery-long-name-07</text>"));
        free(page);
        json_decref(rec);
}

static void test_not_a_record(void **state) {
        struct mh_error e = { 0 };
        json_t *j = json_pack("{s:s}", "run", "x");
        FILE *f = fopen("/dev/null", "we");
        assert_int_equal(report_html_write(f, j, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "not a run's record"));
        assert_int_equal(report_html_write(f, NULL, &e), -EINVAL);
        fclose(f);
        json_decref(j);
}

static void test_write_failure_is_reported(void **state) {
        json_t *rec = record_new("full");
        for (int i = 0; i < 200; i++)
                add_probe(rec, "poll", 100L * i, true, 1);
        FILE *f = fopen("/dev/full", "we");
        if (!f)
                skip();
        struct mh_error e = { 0 };
        assert_int_equal(report_html_write(f, rec, &e), -EIO);
        assert_non_null(strstr(e.msg, "cannot write the page"));
        fclose(f);
        json_decref(rec);
}

static void test_timestamps(void **state) {
        double t = report_time_parse("2026-01-02T03:04:05.250Z");
        assert_true(fabs(t - 1767323045.25) < 1e-6);
        assert_true(fabs(report_time_parse("1970-01-01T00:00:01Z") - 1) < 1e-9);
        assert_true(isnan(report_time_parse("2026-01-02 03:04:05Z")));
        assert_true(isnan(report_time_parse("2026-13-02T03:04:05.000Z")));
        assert_true(isnan(report_time_parse("2026-01-02T03:04:05.000+01:00")));
        assert_true(isnan(report_time_parse(NULL)));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_hostile_text_is_escaped),
                cmocka_unit_test(test_windows_and_points_are_counted),
                cmocka_unit_test(test_thousand_samples_fifty_faults_bounded),
                cmocka_unit_test(test_not_a_record),
                cmocka_unit_test(test_write_failure_is_reported),
                cmocka_unit_test(test_timestamps),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
