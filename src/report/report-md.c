/* The report document as Markdown (report.h), in the run summary's style:
 * a bold label and a line per judged item; faults and observations as
 * tables. Every string from the record goes through md_escape(). */

#include "report.h"

#include <stdarg.h>

#include "basic/macro.h"
#include "report-internal.h"

struct md {
        struct strbuf *b;
        int r;
};

static const char *str(const json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

_printf_(2, 3) static void put(struct md *m, const char *fmt, ...) {
        va_list ap;
        if (m->r < 0)
                return;
        va_start(ap, fmt);
        m->r = strbuf_vprintf(m->b, fmt, ap);
        va_end(ap);
}

static void text(struct md *m, const char *s) {
        if (m->r >= 0)
                m->r = md_escape(m->b, s);
}

static void number(struct md *m, const json_t *v) {
        if (json_is_number(v))
                put(m, "%g", json_number_value(v));
        else
                put(m, "-");
}

static const char *flag(const json_t *v, const char *yes, const char *no) {
        return json_is_true(v) ? yes : json_is_false(v) ? no : "not recorded";
}

static void all_pass(struct md *m, const char *label, const json_t *list, const json_t *tally) {
        if (!json_array_size(list))
                return;
        put(m, "**%s**: %s\n", label,
            json_integer_value(json_object_get(tally, "failed")) ? "FAILED" : "ALL PASS");
}

static void header(struct md *m, const json_t *doc) {
        const json_t *run = json_object_get(doc, "run");
        put(m, "# Run ");
        text(m, str(run, "id"));
        put(m, "\n**drill**: ");
        text(m, str(run, "drill"));
        put(m, "\n**status**: ");
        text(m, str(run, "status"));
        put(m, "\n**verdict**: ");
        text(m, str(doc, "verdict"));
        put(m, "\n**started**: ");
        text(m, str(run, "started_at"));
        put(m, ", **duration**: ");
        number(m, json_object_get(run, "duration_s"));
        put(m, " s\n");
}

static void criteria(struct md *m, const json_t *doc) {
        const json_t *totals = json_object_get(doc, "totals");
        size_t i;
        json_t *x;
        all_pass(
                m, "success criteria", json_object_get(doc, "criteria"),
                json_object_get(totals, "criteria"));
        json_array_foreach(json_object_get(doc, "criteria"), i, x) {
                put(m, "- [%s] ", json_is_true(json_object_get(x, "passed")) ? "PASS" : "FAIL");
                text(m, str(x, "name"));
                put(m, " (");
                text(m, str(x, "detail"));
                put(m, ")\n");
        }
        all_pass(m, "slo", json_object_get(doc, "slos"), json_object_get(totals, "slos"));
        json_array_foreach(json_object_get(doc, "slos"), i, x) {
                put(m, "- [%s] ", json_is_true(json_object_get(x, "passed")) ? "PASS" : "FAIL");
                text(m, str(x, "name"));
                put(m, " observed ");
                number(m, json_object_get(x, "observed"));
                put(m, " ");
                text(m, str(x, "unit"));
                put(m, ", wanted ");
                text(m, str(x, "operator"));
                put(m, " ");
                number(m, json_object_get(x, "threshold"));
                put(m, ": ");
                text(m, str(x, "reason"));
                put(m, "\n");
        }
        all_pass(
                m, "steady state", json_object_get(doc, "steady_state"),
                json_object_get(totals, "steady_state"));
        json_array_foreach(json_object_get(doc, "steady_state"), i, x) {
                put(m, "- [%s] ", json_is_true(json_object_get(x, "passed")) ? "PASS" : "FAIL");
                text(m, str(x, "phase"));
                put(m, " ");
                text(m, str(x, "assertion"));
                put(m, " ");
                text(m, str(x, "signal"));
                put(m, ": ");
                text(m, json_is_string(json_object_get(x, "verdict")) ? str(x, "verdict") : "insufficient");
                put(m, " (");
                text(m, str(x, "reason"));
                put(m, ")\n");
        }
}

static void faults(struct md *m, const json_t *doc) {
        const json_t *t = json_object_get(json_object_get(doc, "totals"), "faults");
        size_t i;
        json_t *f;
        put(m,
            "**faults**: %" JSON_INTEGER_FORMAT " leased, %" JSON_INTEGER_FORMAT
            " in force, %" JSON_INTEGER_FORMAT " undone, %" JSON_INTEGER_FORMAT " verified\n",
            json_integer_value(json_object_get(t, "total")),
            json_integer_value(json_object_get(t, "in_force")),
            json_integer_value(json_object_get(t, "undone")),
            json_integer_value(json_object_get(t, "verified")));
        if (!json_array_size(json_object_get(doc, "faults")))
                return;
        put(m, "\n| lease | fault | target | held s | in force | undone | verified | detail |\n"
               "|---|---|---|---|---|---|---|---|\n");
        json_array_foreach(json_object_get(doc, "faults"), i, f) {
                bool kept = json_is_true(json_object_get(f, "kept"));
                put(m, "| ");
                text(m, str(f, "id"));
                put(m, " | ");
                text(m, str(f, "fault"));
                put(m, " | ");
                text(m, str(f, "target"));
                put(m, " | ");
                number(m, json_object_get(f, "held_s"));
                put(m, " | %s | %s | %s | ", flag(json_object_get(f, "in_force"), "yes", "NO"),
                    kept ? "kept" : flag(json_object_get(f, "undone"), "yes", "NO"),
                    kept ? "kept" : flag(json_object_get(f, "verified"), "yes", "NO"));
                text(m, str(f, "detail"));
                put(m, " |\n");
        }
        put(m, "\n");
}

static void observations(struct md *m, const json_t *doc) {
        const char *source;
        json_t *o;
        put(m, "**observations**: %zu source(s)\n", json_object_size(json_object_get(doc, "observations")));
        if (!json_object_size(json_object_get(doc, "observations")))
                return;
        put(m, "\n| source | kind | samples | failed | min | max | first | last |\n"
               "|---|---|---|---|---|---|---|---|\n");
        json_object_foreach((json_t *)json_object_get(doc, "observations"), source, o) {
                put(m, "| ");
                text(m, source);
                put(m, " | ");
                text(m, str(o, "kind"));
                put(m, " | %" JSON_INTEGER_FORMAT " | %" JSON_INTEGER_FORMAT " | ",
                    json_integer_value(json_object_get(o, "count")),
                    json_integer_value(json_object_get(o, "failed")));
                number(m, json_object_get(o, "min"));
                put(m, " | ");
                number(m, json_object_get(o, "max"));
                put(m, " | ");
                text(m, str(o, "first"));
                put(m, " | ");
                text(m, str(o, "last"));
                put(m, " |\n");
        }
}

static void resilience(struct md *m, const json_t *doc) {
        const json_t *res = json_object_get(doc, "resilience");
        put(m, "\n**resilience**: ");
        if (!json_is_object(res)) {
                put(m, "not recorded\n");
                return;
        }
        number(m, json_object_get(res, "score"));
        put(m, " (");
        text(m, str(res, "grade"));
        put(m, ", ");
        text(m, str(res, "label"));
        put(m, ")\n");
}

int report_md_render(const json_t *doc, struct strbuf *out) {
        struct md m = { .b = out };
        header(&m, doc);
        criteria(&m, doc);
        faults(&m, doc);
        observations(&m, doc);
        resilience(&m, doc);
        return m.r;
}
