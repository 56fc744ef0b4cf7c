/* The tables below the timeline: criteria, SLOs, steady state, resilience,
 * faults (in force, undo, verify), safety decisions, events. Each cell shows
 * what the record holds; what it lacks is "—", never a guess. */

#include "report-html-internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define CELL_MAX 2000 /* bytes of one cell's text; the plan below is whole */
#define DASH     "\xE2\x80\x94"

static void head(FILE *out, const char *title, const char *const *cols, size_t rows) {
        fprintf(out, "<h2>%s</h2>\n", title);
        if (rows == 0) {
                fputs("<p class=\"none\">none recorded</p>\n", out);
                return;
        }
        fputs("<table><tr>", out);
        for (const char *const *c = cols; *c; c++)
                fprintf(out, "<th>%s</th>", *c);
        fputs("</tr>\n", out);
}

static void foot(FILE *out, size_t rows) {
        if (rows)
                fputs("</table>\n", out);
}

static void cell(FILE *out, const char *s) {
        fputs("<td>", out);
        if (s)
                html_escape(out, s, CELL_MAX);
        else
                fputs(DASH, out);
        fputs("</td>", out);
}

static void cell_member(FILE *out, const json_t *o, const char *key) {
        const json_t *v = json_object_get(o, key);
        if (json_is_string(v))
                cell(out, json_string_value(v));
        else if (json_is_integer(v))
                fprintf(out, "<td>%lld</td>", (long long)json_integer_value(v));
        else if (json_is_real(v) && isfinite(json_real_value(v)))
                fprintf(out, "<td>%.6g</td>", json_real_value(v));
        else if (!v || json_is_null(v))
                cell(out, NULL);
        else {
                fputs("<td><code>", out);
                html_json(out, v);
                fputs("</code></td>", out);
        }
}

static void cell_pass(FILE *out, const json_t *v) {
        if (!json_is_boolean(v) && !json_is_integer(v))
                cell(out, NULL);
        else if (json_is_true(v) || (json_is_integer(v) && json_integer_value(v) != 0))
                fputs("<td class=\"pass\">PASS</td>", out);
        else
                fputs("<td class=\"fail\">FAIL</td>", out);
}

static void cell_offset(FILE *out, const char *at, const struct report_span *span) {
        double t = report_time_parse(at) - span->t0;
        if (isfinite(t))
                fprintf(out, "<td>+%.3f s</td>", t);
        else
                cell(out, NULL);
}

static void criteria_write(FILE *out, const json_t *run) {
        static const char *const cols[] = { "result", "type",    "source",   "over",
                                            "window", "samples", "measured", NULL };
        const json_t *a = json_object_get(run, "criteria"), *c;
        size_t i;
        head(out, "Success criteria", cols, json_array_size(a));
        json_array_foreach(a, i, c) {
                fputs("<tr class=\"criterion\">", out);
                cell_pass(out, json_object_get(c, "satisfied"));
                for (const char *const *k = (const char *const[]){ "type", "source_id", "over", "window",
                                                                   "samples", "detail", NULL };
                     *k; k++)
                        cell_member(out, c, *k);
                fputs("</tr>\n", out);
        }
        foot(out, json_array_size(a));
}

static void rows_write(
        FILE *out, const json_t *a, const char *cls, const char *pass_key, const char *const *keys) {
        size_t i;
        const json_t *row;
        json_array_foreach(a, i, row) {
                fprintf(out, "<tr class=\"%s\">", cls);
                cell_pass(out, json_object_get(row, pass_key));
                for (const char *const *k = keys; *k; k++)
                        cell_member(out, row, *k);
                fputs("</tr>\n", out);
        }
}

static void slos_write(FILE *out, const json_t *record) {
        static const char *const cols[] = { "result",   "name",      "kind",   "metric",
                                            "operator", "threshold", "unit",   "window (s)",
                                            "observed", "samples",   "reason", NULL };
        const json_t *a = json_object_get(record, "slo_outcomes");
        head(out, "SLOs", cols, json_array_size(a));
        rows_write(
                out, a, "slo", "passed",
                (const char *const[]){ "name", "kind", "metric", "operator", "threshold", "unit", "window_s",
                                       "observed", "samples", "reason", NULL });
        foot(out, json_array_size(a));
}

static void steady_write(FILE *out, const json_t *record) {
        static const char *const cols[] = { "result",  "phase",    "assertion",   "signal", "severity",
                                            "verdict", "measured", "expectation", NULL };
        const json_t *a = json_object_get(record, "steady_state_evaluations");
        head(out, "Steady state", cols, json_array_size(a));
        rows_write(
                out, a, "steady", "passed",
                (const char *const[]){ "phase", "assertion", "signal", "severity", "verdict", "measured",
                                       "expectation", NULL });
        foot(out, json_array_size(a));
}

static void resilience_write(FILE *out, const json_t *record) {
        const json_t *res = json_object_get(record, "resilience");
        fputs("<h2>Resilience</h2>\n", out);
        if (!json_is_object(res)) {
                fputs("<p class=\"none\">not recorded</p>\n", out);
                return;
        }
        double score = html_num(res, "score");
        fputs("<p class=\"score\">", out);
        if (isfinite(score))
                fprintf(out, "<b>%.0f</b> ", score);
        html_escape(out, html_str(res, "grade"), 16);
        fputs(" ", out);
        html_escape(out, html_str(res, "label"), 64);
        fputs("</p>\n<table><tr><th>component</th><th>value</th><th>weight</th></tr>\n", out);
        const char *name;
        const json_t *c;
        json_object_foreach((json_t *)json_object_get(res, "components"), name, c) {
                fputs("<tr>", out);
                cell(out, name);
                if (json_is_object(c)) {
                        cell_member(out, c, "value");
                        cell_member(out, c, "weight");
                } else
                        fputs("<td colspan=\"2\">omitted</td>", out);
                fputs("</tr>\n", out);
        }
        fputs("</table>\n", out);
        if (html_str(res, "omitted")) {
                fputs("<p>", out);
                html_escape(out, html_str(res, "omitted"), CELL_MAX);
                fputs("</p>\n", out);
        }
}

/* The rows of array (of kind, when given) whose key (in their member outer,
 * when given) equals id: that member, or the row, as JSON, one a line. */
static void cell_matching(
        FILE *out, const json_t *record, const char *array, const char *kind, const char *outer,
        const char *key, const char *id) {
        size_t i, n = 0;
        const json_t *row;
        fputs("<td>", out);
        json_array_foreach(json_object_get(record, array), i, row) {
                const json_t *where = outer ? json_object_get(row, outer) : row;
                if (!id || !html_str(where, key) || strcmp(html_str(where, key), id) != 0)
                        continue;
                if (kind && (!html_str(row, "kind") || strcmp(html_str(row, "kind"), kind) != 0))
                        continue;
                if (n++)
                        fputs("<br>", out);
                fputs("<code>", out);
                html_json(out, outer ? where : row);
                fputs("</code>", out);
        }
        if (!n)
                fputs(DASH, out);
        fputs("</td>", out);
}

static void faults_write(FILE *out, const json_t *record, const struct report_span *span) {
        static const char *const cols[] = { "lease",        "fault",    "targets",  "state",
                                            "injected",     "released", "in force", "undo",
                                            "undo results", "verify",   "params",   NULL };
        const json_t *a = json_object_get(record, "leases"), *l;
        size_t i;
        head(out, "Faults", cols, json_array_size(a));
        json_array_foreach(a, i, l) {
                const char *id = html_str(l, "id");
                fputs("<tr class=\"fault\">", out);
                cell(out, id);
                cell_member(out, l, "fault_id");
                cell_member(out, l, "targets");
                cell_member(out, l, "state");
                cell_offset(out, html_str(l, "injected_at"), span);
                if (html_str(l, "released_at"))
                        cell_offset(out, html_str(l, "released_at"), span);
                else
                        fputs("<td class=\"fail\">still held at the end of the record</td>", out);
                cell_matching(out, record, "events", "fault.observed", "payload", "lease", id);
                cell_member(out, l, "undo");
                cell_matching(out, record, "recovery_records", NULL, NULL, "lease_id", id);
                cell_member(out, l, "verify");
                cell_member(out, l, "params");
                fputs("</tr>\n", out);
        }
        foot(out, json_array_size(a));
}

static void decisions_write(FILE *out, const json_t *record) {
        static const char *const cols[] = { "outcome", "rule", "fault", "reason", "remediation", NULL };
        const json_t *a = json_object_get(
                             json_object_get(json_object_get(record, "run"), "plan"), "decisions"),
                     *d;
        size_t i;
        if (!json_array_size(a))
                return; /* the plan recorded none: no section */
        head(out, "Safety decisions", cols, json_array_size(a));
        json_array_foreach(a, i, d) {
                fputs("<tr class=\"decision\">", out);
                for (const char *const *k = (const char *const[]){ "outcome", "rule", "fault", "reason",
                                                                   "remediation", NULL };
                     *k; k++)
                        cell_member(out, d, *k);
                fputs("</tr>\n", out);
        }
        foot(out, json_array_size(a));
}

static void events_write(FILE *out, const json_t *record, const struct report_span *span) {
        static const char *const cols[] = { "at", "kind", "payload", NULL };
        const json_t *a = json_object_get(record, "events"), *e;
        size_t i;
        head(out, "Events", cols, json_array_size(a));
        json_array_foreach(a, i, e) {
                fputs("<tr class=\"event\">", out);
                cell_offset(out, html_str(e, "ts"), span);
                cell_member(out, e, "kind");
                cell_member(out, e, "payload");
                fputs("</tr>\n", out);
        }
        foot(out, json_array_size(a));
}

void report_tables_write(FILE *out, const json_t *record, const struct report_span *span) {
        const json_t *run = json_object_get(record, "run");
        criteria_write(out, run);
        slos_write(out, record);
        steady_write(out, record);
        resilience_write(out, record);
        faults_write(out, record, span);
        decisions_write(out, record);
        events_write(out, record, span);
        fputs("<h2>Plan (as stored)</h2>\n<pre class=\"plan\">", out);
        html_escape(out, html_str(record, "plan_text"), SIZE_MAX);
        fputs("</pre>\n", out);
}
