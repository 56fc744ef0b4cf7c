/* The report document as JUnit XML (report.h): one <testsuite> per run,
 * named after the drill; one <testcase classname="mayhem.DRILL"> per
 * criterion, SLO, steady-state assertion and per fault three (in force,
 * undone, verified: GitLab and Jenkins list test cases and their failure
 * messages and show no properties, so each is its own line with its own
 * failure), plus one for the run having completed. Field by field:
 * docs/report-format.md#junit-xml. */

#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "report-internal.h"

enum outcome {
        OUTCOME_PASS,
        OUTCOME_FAILURE,
        OUTCOME_ERROR,
        OUTCOME_SKIPPED,
};

struct junit_case {
        char name[1024];
        double time_s;
        enum outcome outcome;
        char message[2048];  /* failure / error / skipped message: the measured value */
        const char *type;    /* failure type: criterion, slo, steady_state, fault */
        char out[2048];      /* <system-out>: what was measured when it passed; "" none */
        const json_t *fault; /* a fault's case: its params become <properties> */
};

struct junit {
        struct strbuf cases;
        const char *classname_drill;
        size_t tests, failures, errors, skipped;
        int r;
};

static const char *str(const json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

static const char *str_or(const json_t *o, const char *key, const char *fallback) {
        const char *s = str(o, key);
        return s ? s : fallback;
}

/* A number as JSON writes it, or "none" where nothing was measured. */
static void number_text(const json_t *v, char *buf, size_t size) {
        if (json_is_number(v))
                snprintf(buf, size, "%g", json_number_value(v));
        else
                snprintf(buf, size, "none");
}

static void put(struct junit *j, const char *s) {
        if (j->r >= 0)
                j->r = strbuf_puts(&j->cases, s);
}

static void put_escaped(struct junit *j, const char *s, bool attr) {
        if (j->r >= 0)
                j->r = xml_escape(&j->cases, s, attr);
}

static void put_property(struct junit *j, const char *name, const char *value) {
        put(j, "        <property name=\"");
        put_escaped(j, name, true);
        put(j, "\" value=\"");
        put_escaped(j, value, true);
        put(j, "\"/>\n");
}

static void put_fault_properties(struct junit *j, const json_t *f) {
        const char *key;
        json_t *v;
        put(j, "      <properties>\n");
        put_property(j, "lease", str_or(f, "id", ""));
        put_property(j, "fault", str_or(f, "fault", ""));
        put_property(j, "target", str_or(f, "target", ""));
        put_property(j, "state", str_or(f, "state", ""));
        json_object_foreach((json_t *)json_object_get(f, "params"), key, v) {
                char name[300];
                _cleanup_free_ char *text =
                        json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
                snprintf(name, sizeof(name), "param.%s", key);
                put_property(j, name, json_is_string(v) ? json_string_value(v) : text ? text : "");
        }
        put(j, "      </properties>\n");
}

static void emit(struct junit *j, const struct junit_case *c) {
        static const char *const element[] = {
                [OUTCOME_FAILURE] = "failure", [OUTCOME_ERROR] = "error", [OUTCOME_SKIPPED] = "skipped"
        };
        char time[32];
        snprintf(time, sizeof(time), "%.3f", isfinite(c->time_s) && c->time_s > 0 ? c->time_s : 0.0);
        j->tests++;
        j->failures += c->outcome == OUTCOME_FAILURE;
        j->errors += c->outcome == OUTCOME_ERROR;
        j->skipped += c->outcome == OUTCOME_SKIPPED;
        put(j, "    <testcase classname=\"mayhem.");
        put_escaped(j, j->classname_drill, true);
        put(j, "\" name=\"");
        put_escaped(j, c->name, true);
        put(j, "\" time=\"");
        put(j, time);
        put(j, "\">\n");
        if (c->fault)
                put_fault_properties(j, c->fault);
        if (c->outcome != OUTCOME_PASS) {
                put(j, "      <");
                put(j, element[c->outcome]);
                put(j, " message=\"");
                put_escaped(j, c->message, true);
                if (c->outcome != OUTCOME_SKIPPED) {
                        put(j, "\" type=\"");
                        put(j, c->type);
                }
                put(j, "\">");
                put_escaped(j, c->message, false);
                put(j, "</");
                put(j, element[c->outcome]);
                put(j, ">\n");
        }
        if (c->out[0]) {
                put(j, "      <system-out>");
                put_escaped(j, c->out, false);
                put(j, "</system-out>\n");
        }
        put(j, "    </testcase>\n");
}

static void run_case(struct junit *j, const json_t *doc) {
        const json_t *run = json_object_get(doc, "run");
        const char *status = str_or(run, "status", "unknown");
        struct junit_case c = { .type = "run",
                                .time_s = json_number_value(json_object_get(run, "duration_s")) };
        snprintf(c.name, sizeof(c.name), "run: completed");
        c.outcome = streq(status, "completed") ? OUTCOME_PASS : OUTCOME_ERROR;
        snprintf(c.message, sizeof(c.message), "run %s, verdict %s", status, str_or(doc, "verdict", "none"));
        if (c.outcome == OUTCOME_PASS)
                snprintf(c.out, sizeof(c.out), "%s", c.message);
        emit(j, &c);
}

static void criteria_cases(struct junit *j, const json_t *doc) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(doc, "criteria"), i, x) {
                struct junit_case c = { .type = "criterion" };
                snprintf(c.name, sizeof(c.name), "criterion %zu: %s", i + 1, str_or(x, "name", "?"));
                c.outcome = json_is_true(json_object_get(x, "passed")) ? OUTCOME_PASS : OUTCOME_FAILURE;
                snprintf(
                        c.outcome == OUTCOME_PASS ? c.out : c.message, sizeof(c.out), "%s",
                        str_or(x, "detail", "no detail recorded"));
                emit(j, &c);
        }
}

static void slo_cases(struct junit *j, const json_t *doc) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(doc, "slos"), i, x) {
                struct junit_case c = { .type = "slo" };
                char observed[64], threshold[64], samples[64];
                number_text(json_object_get(x, "observed"), observed, sizeof(observed));
                number_text(json_object_get(x, "threshold"), threshold, sizeof(threshold));
                number_text(json_object_get(x, "samples"), samples, sizeof(samples));
                snprintf(c.name, sizeof(c.name), "slo %zu: %s", i + 1, str_or(x, "name", "?"));
                c.outcome = json_is_true(json_object_get(x, "passed")) ? OUTCOME_PASS : OUTCOME_FAILURE;
                snprintf(
                        c.outcome == OUTCOME_PASS ? c.out : c.message, sizeof(c.out),
                        "observed=%s %s (wanted %s %s %s; %s samples): %s", observed, str_or(x, "unit", ""),
                        str_or(x, "operator", "?"), threshold, str_or(x, "unit", ""), samples,
                        str_or(x, "reason", ""));
                emit(j, &c);
        }
}

/* A failed assertion fails the case when it is critical, as it fails the
 * verdict; a warning's or info's failure is said in <system-out>. */
static void steady_cases(struct junit *j, const json_t *doc) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(doc, "steady_state"), i, x) {
                struct junit_case c = { .type = "steady_state" };
                char value[64], baseline[64];
                bool passed = json_is_true(json_object_get(x, "passed"));
                bool critical = streq(str_or(x, "severity", "critical"), "critical");
                number_text(json_object_get(x, "value"), value, sizeof(value));
                number_text(json_object_get(x, "baseline"), baseline, sizeof(baseline));
                snprintf(
                        c.name, sizeof(c.name), "steady-state %zu: %s %s %s", i + 1,
                        str_or(x, "signal", "?"), str_or(x, "phase", "?"), str_or(x, "assertion", "?"));
                c.outcome = passed || !critical ? OUTCOME_PASS : OUTCOME_FAILURE;
                snprintf(
                        c.outcome == OUTCOME_PASS ? c.out : c.message, sizeof(c.out),
                        "%s%s: value=%s baseline=%s: %s",
                        passed     ? ""
                        : critical ? ""
                                   : "WARN: ",
                        str_or(x, "verdict", "insufficient"), value, baseline, str_or(x, "reason", ""));
                emit(j, &c);
        }
}

/* One of a fault's three cases from its flag: true passes, false fails
 * with what was recorded, null (nothing recorded) is an error. */
static void fault_case(
        struct junit *j, const json_t *f, const char *what, const char *key, const char *pass_text,
        const char *fail_text) {
        struct junit_case c = { .type = "fault", .fault = f };
        const json_t *v = json_object_get(f, key);
        snprintf(
                c.name, sizeof(c.name), "fault %s %s on %s: %s", str_or(f, "id", "?"),
                str_or(f, "fault", "?"), str_or(f, "target", "?"), what);
        if (streq(key, "in_force"))
                c.time_s = json_number_value(json_object_get(f, "held_s"));
        if (!streq(key, "in_force") && json_is_true(json_object_get(f, "kept"))) {
                c.outcome = OUTCOME_SKIPPED;
                snprintf(c.message, sizeof(c.message), "kept in force on purpose (recovery: false)");
        } else if (json_is_true(v)) {
                c.outcome = OUTCOME_PASS;
                snprintf(c.out, sizeof(c.out), "%s", pass_text);
        } else if (json_is_false(v)) {
                c.outcome = OUTCOME_FAILURE;
                snprintf(c.message, sizeof(c.message), "%s", fail_text);
        } else {
                c.outcome = OUTCOME_ERROR;
                snprintf(
                        c.message, sizeof(c.message), "%s: nothing recorded (lease %s)", what,
                        str_or(f, "state", "?"));
        }
        emit(j, &c);
}

static void fault_cases(struct junit *j, const json_t *doc) {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(doc, "faults"), i, f) {
                char in_force[1200], not_in_force[1200], verified[1200], failed[1200];
                const char *detail = str_or(f, "detail", "");
                snprintf(
                        in_force, sizeof(in_force), "%s%s%s",
                        json_is_false(json_object_get(f, "observed")) ? "in force: not observable ("
                                                                      : "in force: ",
                        detail, json_is_false(json_object_get(f, "observed")) ? ")" : "");
                snprintf(not_in_force, sizeof(not_in_force), "NOT in force: %s", detail);
                snprintf(
                        verified, sizeof(verified), "verified: %s",
                        str_or(f, "recovery_detail", "verify passed"));
                snprintf(failed, sizeof(failed), "%s", str_or(f, "escalation_notes", "undo failed"));
                fault_case(j, f, "in force", "in_force", in_force, not_in_force);
                fault_case(j, f, "undone", "undone", "undo ops succeeded", failed);
                fault_case(j, f, "verified", "verified", verified, failed);
        }
}

static int suite_property(struct strbuf *b, const char *name, const json_t *v) {
        char num[64];
        const char *text = json_string_value(v);
        if (!v || json_is_null(v))
                return 0; /* nothing recorded: no property */
        if (!text) {
                number_text(v, num, sizeof(num));
                text = json_is_number(v) ? num : "";
        }
        int r = strbuf_printf(b, "      <property name=\"%s\" value=\"", name);
        if (r >= 0)
                r = xml_escape(b, text, true);
        return r < 0 ? r : strbuf_puts(b, "\"/>\n");
}

static int suite_header(struct strbuf *b, const struct junit *j, const json_t *doc) {
        const json_t *run = json_object_get(doc, "run");
        char time[32];
        double d = json_number_value(json_object_get(run, "duration_s"));
        snprintf(time, sizeof(time), "%.3f", d > 0 ? d : 0.0);
        int r = strbuf_printf(
                b,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mayhem\" tests=\"%zu\" "
                "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%s\">\n  <testsuite name=\"",
                j->tests, j->failures, j->errors, j->skipped, time);
        if (r >= 0)
                r = xml_escape(b, j->classname_drill, true);
        if (r >= 0)
                r = strbuf_printf(
                        b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%s\"",
                        j->tests, j->failures, j->errors, j->skipped, time);
        if (r >= 0 && json_is_string(json_object_get(run, "started_at"))) {
                char ts[32]; /* JUnit's timestamp is ISO 8601 without a zone */
                snprintf(ts, sizeof(ts), "%.19s", str(run, "started_at"));
                r = strbuf_printf(b, " timestamp=\"");
                if (r >= 0)
                        r = xml_escape(b, ts, true);
                if (r >= 0)
                        r = strbuf_puts(b, "\"");
        }
        if (r >= 0)
                r = strbuf_puts(b, ">\n    <properties>\n");
        static const char *const keys[] = { "id", "status", "kind", "engine", "plan_fingerprint", "seed" };
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(keys); i++)
                r = suite_property(b, keys[i], json_object_get(run, keys[i]));
        if (r >= 0)
                r = suite_property(b, "verdict", json_object_get(doc, "verdict"));
        if (r >= 0)
                r = suite_property(
                        b, "resilience", json_object_get(json_object_get(doc, "resilience"), "score"));
        return r < 0 ? r : strbuf_puts(b, "    </properties>\n");
}

int report_junit_render(const json_t *doc, struct strbuf *out) {
        struct junit j = { .cases = STRBUF_INIT(out->max ? out->max : REPORT_MAX),
                           .classname_drill = str_or(json_object_get(doc, "run"), "drill", "drill") };
        run_case(&j, doc);
        criteria_cases(&j, doc);
        slo_cases(&j, doc);
        steady_cases(&j, doc);
        fault_cases(&j, doc);
        int r = j.r;
        if (r >= 0)
                r = suite_header(out, &j, doc);
        if (r >= 0 && j.cases.len)
                r = strbuf_append(out, j.cases.data, j.cases.len);
        if (r >= 0)
                r = strbuf_puts(out, "  </testsuite>\n</testsuites>\n");
        strbuf_done(&j.cases);
        return r;
}
