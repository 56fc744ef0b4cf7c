/* The REPORT_SCHEMA document of one run's record (report.h): what the run
 * measured, named and counted so a reader needs no knowledge of the
 * evidence tables. Pure: nothing here reads a clock or a file. Field by
 * field: docs/report-format.md. */

#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "basic/macro.h"
#include "config.h"

#define SOURCES_MAX 1024 /* observation sources summarised */

static json_t *copy_or_null(const json_t *v) {
        return v ? json_deep_copy(v) : json_null();
}

static const char *str(const json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

static const char *str_or(const json_t *o, const char *key, const char *fallback) {
        const char *s = str(o, key);
        return s ? s : fallback;
}

/* Seconds since the epoch of an evidence timestamp ("2026-12-04T03:14:28.964Z"), NAN when it is none. */
static double timestamp_s(const char *ts) {
        struct tm tm = { 0 };
        int ms = 0, used = 0;
        if (!ts ||
            sscanf(ts, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec, &ms, &used) != 7 ||
            used != (int)strlen(ts))
                return NAN;
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        time_t t = timegm(&tm);
        return t == (time_t)-1 ? NAN : (double)t + ms / 1000.0;
}

/* end - start in seconds, null when either is missing or the span is negative. */
static json_t *span_s(const char *start, const char *end) {
        double d = timestamp_s(end) - timestamp_s(start);
        return isfinite(d) && d >= 0 ? json_real(round(d * 1000) / 1000) : json_null();
}

static json_t *bool_or_null(const json_t *v) {
        return json_is_boolean(v)   ? json_boolean(json_is_true(v))
               : json_is_integer(v) ? json_boolean(json_integer_value(v) != 0)
                                    : json_null();
}

static json_t *run_part(const json_t *record) {
        const json_t *run = json_object_get(record, "run");
        return json_pack(
                "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id",
                copy_or_null(json_object_get(run, "id")), "drill",
                copy_or_null(json_object_get(run, "experiment_name")), "kind",
                copy_or_null(json_object_get(run, "kind")), "status",
                copy_or_null(json_object_get(run, "status")), "started_at",
                copy_or_null(json_object_get(run, "started_at")), "ended_at",
                copy_or_null(json_object_get(run, "ended_at")), "duration_s",
                span_s(str(run, "started_at"), str(run, "ended_at")), "engine",
                copy_or_null(json_object_get(run, "engine")), "plan_fingerprint",
                copy_or_null(json_object_get(run, "plan_fingerprint")), "env_fingerprint",
                copy_or_null(json_object_get(run, "env_fingerprint")), "seed",
                copy_or_null(json_object_get(record, "seed")), "execution_intent",
                copy_or_null(json_object_get(run, "execution_intent")), "break_glass",
                copy_or_null(json_object_get(run, "break_glass")));
}

static json_t *criteria_part(const json_t *record) {
        json_t *a = json_array();
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(json_object_get(record, "run"), "criteria"), i, c) {
                char name[512];
                snprintf(name, sizeof(name), "%s:%s", str_or(c, "type", "?"), str_or(c, "source_id", "?"));
                json_array_append_new(
                        a, json_pack(
                                   "{s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "name", name, "type",
                                   copy_or_null(json_object_get(c, "type")), "source_id",
                                   copy_or_null(json_object_get(c, "source_id")), "over",
                                   copy_or_null(json_object_get(c, "over")), "window",
                                   copy_or_null(json_object_get(c, "window")), "samples",
                                   copy_or_null(json_object_get(c, "samples")), "passed",
                                   json_is_true(json_object_get(c, "satisfied")), "detail",
                                   copy_or_null(json_object_get(c, "detail"))));
        }
        return a;
}

static json_t *slos_part(const json_t *record) {
        static const char *const keys[] = { "name", "kind",     "metric",   "operator", "threshold",
                                            "unit", "window_s", "observed", "samples",  "reason" };
        json_t *a = json_array();
        size_t i;
        json_t *s;
        json_array_foreach(json_object_get(record, "slo_outcomes"), i, s) {
                json_t *o = json_object();
                for (size_t k = 0; o && k < ELEMENTSOF(keys); k++)
                        json_object_set_new(o, keys[k], copy_or_null(json_object_get(s, keys[k])));
                json_object_set_new(o, "passed", bool_or_null(json_object_get(s, "passed")));
                json_array_append_new(a, o);
        }
        return a;
}

static json_t *steady_part(const json_t *record) {
        json_t *a = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(record, "steady_state_evaluations"), i, e) {
                const json_t *m = json_object_get(e, "measured_json");
                json_array_append_new(
                        a, json_pack(
                                   "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "signal",
                                   copy_or_null(json_object_get(e, "signal")), "phase",
                                   copy_or_null(json_object_get(e, "phase")), "assertion",
                                   copy_or_null(json_object_get(e, "assertion")), "severity",
                                   copy_or_null(json_object_get(e, "severity")), "verdict",
                                   copy_or_null(json_object_get(e, "verdict")), "passed",
                                   bool_or_null(json_object_get(e, "passed")), "baseline",
                                   copy_or_null(json_object_get(m, "b")), "value",
                                   copy_or_null(json_object_get(m, "d")), "delta_pct",
                                   copy_or_null(json_object_get(m, "delta_pct")), "samples",
                                   copy_or_null(json_object_get(m, "samples")), "reason",
                                   copy_or_null(json_object_get(m, "reason")), "expectation",
                                   copy_or_null(json_object_get(e, "expectation_json"))));
        }
        return a;
}

/* The last event of kind about lease, or NULL. */
static const json_t *lease_event(const json_t *record, const char *kind, const char *lease) {
        const json_t *found = NULL;
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(record, "events"), i, x) {
                const char *id = str(json_object_get(x, "payload"), "lease");
                const char *k = str(x, "kind");
                if (id && k && streq(id, lease) && streq(k, kind))
                        found = json_object_get(x, "payload");
        }
        return found;
}

/* The last recovery record of lease, or NULL. */
static const json_t *lease_recovery(const json_t *record, const char *lease) {
        const json_t *found = NULL;
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(record, "recovery_records"), i, x) {
                const char *id = str(x, "lease_id");
                if (id && streq(id, lease))
                        found = x;
        }
        return found;
}

/* "pid 4577", "a, b": the lease's resolved targets as one string. */
static json_t *targets_text(const json_t *targets) {
        char buf[1024];
        size_t i, len = 0;
        json_t *t;
        buf[0] = '\0';
        json_array_foreach(targets, i, t) {
                const char *s = json_string_value(t);
                if (s && len < sizeof(buf))
                        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "", s);
        }
        return len ? json_string(buf) : json_null();
}

static json_t *fault_entry(const json_t *record, const json_t *l) {
        const char *id = str_or(l, "id", "");
        const json_t *effect = lease_event(record, "fault.observed", id);
        const json_t *recovered = lease_event(record, "fault.recovered", id);
        const json_t *rec = lease_recovery(record, id);
        const char *state = str(l, "state");
        bool kept = state && streq(state, "kept_faulted");
        const json_t *undo_ok = json_object_get(json_object_get(rec, "undo_results"), "ok");
        return json_pack(
                "{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o}", "id", id,
                "fault", copy_or_null(json_object_get(l, "fault_id")), "target",
                targets_text(json_object_get(l, "targets")), "params",
                json_is_object(json_object_get(l, "params")) ? json_deep_copy(json_object_get(l, "params"))
                                                             : json_object(),
                "state", copy_or_null(json_object_get(l, "state")), "injected_at",
                copy_or_null(json_object_get(l, "injected_at")), "released_at",
                copy_or_null(json_object_get(l, "released_at")), "held_s",
                span_s(str(l, "injected_at"), str(l, "released_at")), "in_force",
                bool_or_null(json_object_get(effect, "in_force")), "observed",
                bool_or_null(json_object_get(effect, "observed")), "undone",
                rec && !kept ? json_boolean(json_is_true(undo_ok)) : json_null(), "kept", kept, "verified",
                rec && !kept ? bool_or_null(json_object_get(rec, "verified")) : json_null(), "detail",
                copy_or_null(json_object_get(effect, "detail")), "recovery_detail",
                copy_or_null(json_object_get(recovered, "detail")), "escalation_notes",
                copy_or_null(json_object_get(l, "escalation_notes")));
}

static json_t *faults_part(const json_t *record) {
        json_t *a = json_array();
        size_t i;
        json_t *l;
        json_array_foreach(json_object_get(record, "leases"), i, l)
                json_array_append_new(a, fault_entry(record, l));
        return a;
}

static void observe(json_t *e, const json_t *obs) {
        const json_t *ts = json_object_get(obs, "timestamp");
        const json_t *v = json_object_get(json_object_get(obs, "data"), "value");
        const char *kind = str(obs, "kind");
        json_object_set_new(e, "count", json_integer(json_integer_value(json_object_get(e, "count")) + 1));
        if (json_is_null(json_object_get(e, "first")))
                json_object_set_new(e, "first", copy_or_null(ts));
        json_object_set_new(e, "last", copy_or_null(ts));
        if (!json_is_number(v)) {
                json_object_set_new(
                        e, "no_value", json_integer(json_integer_value(json_object_get(e, "no_value")) + 1));
                return;
        }
        double x = json_number_value(v);
        if (kind && streq(kind, "boolean") && x == 0)
                json_object_set_new(
                        e, "failed", json_integer(json_integer_value(json_object_get(e, "failed")) + 1));
        const json_t *min = json_object_get(e, "min"), *max = json_object_get(e, "max");
        if (json_is_null(min) || x < json_number_value(min))
                json_object_set_new(e, "min", json_real(x));
        if (json_is_null(max) || x > json_number_value(max))
                json_object_set_new(e, "max", json_real(x));
}

static json_t *observations_part(const json_t *record) {
        json_t *by_source = json_object();
        size_t i;
        json_t *o;
        json_array_foreach(json_object_get(record, "observations"), i, o) {
                const char *source = str(o, "source");
                json_t *e = source ? json_object_get(by_source, source) : NULL;
                if (source && !e && json_object_size(by_source) < SOURCES_MAX) {
                        e = json_pack(
                                "{s:o, s:i, s:i, s:i, s:n, s:n, s:n, s:n}", "kind",
                                copy_or_null(json_object_get(o, "kind")), "count", 0, "failed", 0,
                                "no_value", 0, "first", "last", "min", "max");
                        json_object_set_new(by_source, source, e);
                }
                if (e)
                        observe(e, o);
        }
        return by_source;
}

/* {total, passed, failed} of the entries of list whose key is true / false. */
static json_t *tally(const json_t *list, const char *key) {
        size_t i, passed = 0, failed = 0;
        json_t *x;
        json_array_foreach(list, i, x) {
                const json_t *v = json_object_get(x, key);
                passed += json_is_true(v);
                failed += json_is_false(v);
        }
        return json_pack(
                "{s:I, s:I, s:I}", "total", (json_int_t)json_array_size(list), "passed", (json_int_t)passed,
                "failed", (json_int_t)failed);
}

static json_t *fault_tally(const json_t *faults) {
        size_t i, in_force = 0, undone = 0, verified = 0, kept = 0;
        json_t *f;
        json_array_foreach(faults, i, f) {
                in_force += json_is_true(json_object_get(f, "in_force"));
                undone += json_is_true(json_object_get(f, "undone"));
                verified += json_is_true(json_object_get(f, "verified"));
                kept += json_is_true(json_object_get(f, "kept"));
        }
        return json_pack(
                "{s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)json_array_size(faults), "in_force",
                (json_int_t)in_force, "undone", (json_int_t)undone, "verified", (json_int_t)verified, "kept",
                (json_int_t)kept);
}

json_t *report_doc_json(const json_t *record) {
        json_t *criteria = criteria_part(record), *slos = slos_part(record), *steady = steady_part(record),
               *faults = faults_part(record);
        json_t *totals = json_pack(
                "{s:o, s:o, s:o, s:o}", "criteria", tally(criteria, "passed"), "slos", tally(slos, "passed"),
                "steady_state", tally(steady, "passed"), "faults", fault_tally(faults));
        return json_pack(
                "{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "schema", REPORT_SCHEMA,
                "generator", "mayhem " MAYHEM_VERSION, "run", run_part(record), "verdict",
                copy_or_null(json_object_get(json_object_get(record, "run"), "verdict")), "criteria",
                criteria, "slos", slos, "steady_state", steady, "faults", faults, "observations",
                observations_part(record), "resilience", copy_or_null(json_object_get(record, "resilience")),
                "totals", totals);
}
