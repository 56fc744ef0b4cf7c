/* `mayhem inspect run`'s story of one run, from its record (run-record.h):
 * pure, no SQLite. */

#include "run-record.h"

#include <string.h>

#include "basic/macro.h"

#define SOURCES_MAX 1024 /* observation sources summarised; the rest are counted */

static const char *const run_keys[] = {
        "id",
        "experiment_name",
        "kind",
        "status",
        "recorded_status",
        "verdict",
        "started_at",
        "ended_at",
        "engine",
        "plan_fingerprint",
        "open_leases",
        "execution_intent",
        "env_fingerprint",
        "break_glass",
        "summary_md",
};

static json_t *pick(const json_t *from, const char *const *keys, size_t n) {
        json_t *o = json_object();
        for (size_t i = 0; o && i < n; i++) {
                json_t *v = json_object_get(from, keys[i]);
                json_object_set_new(o, keys[i], v ? json_deep_copy(v) : json_null());
        }
        return o;
}

static json_t *steps(const json_t *record) {
        static const char *const keys[] = { "seq",        "id",       "action_type", "status",
                                            "started_at", "ended_at", "error" };
        json_t *a = json_array();
        size_t i;
        json_t *s;
        json_array_foreach(json_object_get(record, "steps"), i, s)
                json_array_append_new(a, pick(s, keys, ELEMENTSOF(keys)));
        return a;
}

static bool is_effect_event(const json_t *x) {
        const char *kind = json_string_value(json_object_get(x, "kind"));
        return kind && strcmp(kind, "fault.observed") == 0;
}

static const json_t *lease_entry(const json_t *record, const char *list, const char *lease, bool event) {
        const json_t *found = NULL;
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(record, list), i, x) {
                const char *id =
                        event ? json_string_value(json_object_get(json_object_get(x, "payload"), "lease"))
                              : json_string_value(json_object_get(x, "lease_id"));
                if (id && strcmp(id, lease) == 0 && (!event || is_effect_event(x)))
                        found = x;
        }
        return found;
}

static json_t *copy_or_null(const json_t *v) {
        return v ? json_deep_copy(v) : json_null();
}

static json_t *leases(const json_t *record) {
        static const char *const keys[] = {
                "id",     "fault_id",    "state",       "targets",           "undo",
                "verify", "injected_at", "released_at", "release_mechanism", "escalation_notes"
        };
        json_t *a = json_array();
        size_t i;
        json_t *l;
        json_array_foreach(json_object_get(record, "leases"), i, l) {
                const char *id = json_string_value(json_object_get(l, "id"));
                json_t *o = pick(l, keys, ELEMENTSOF(keys));
                const json_t *effect = id ? lease_entry(record, "events", id, true) : NULL;
                const json_t *rec = id ? lease_entry(record, "recovery_records", id, false) : NULL;
                json_object_set_new(o, "effect", copy_or_null(json_object_get(effect, "payload")));
                json_object_set_new(o, "recovery", copy_or_null(rec));
                json_array_append_new(a, o);
        }
        return a;
}

/* One source's summary, created on first sight. */
static json_t *source_entry(json_t *by_source, const char *source) {
        json_t *e = json_object_get(by_source, source);
        if (!e && json_object_size(by_source) < SOURCES_MAX) {
                e = json_pack(
                        "{s:s, s:i, s:n, s:n, s:n, s:n}", "source", source, "count", 0, "first", "last",
                        "min", "max");
                json_object_set_new(by_source, source, e);
        }
        return e;
}

static void observe(json_t *e, const json_t *obs) {
        const json_t *ts = json_object_get(obs, "timestamp");
        const json_t *v = json_object_get(json_object_get(obs, "data"), "value");
        json_object_set_new(e, "count", json_integer(json_integer_value(json_object_get(e, "count")) + 1));
        if (json_is_null(json_object_get(e, "first")))
                json_object_set(e, "first", (json_t *)ts);
        json_object_set(e, "last", (json_t *)ts);
        if (!json_is_number(v))
                return;
        double x = json_number_value(v);
        const json_t *min = json_object_get(e, "min"), *max = json_object_get(e, "max");
        if (json_is_null(min) || x < json_number_value(min))
                json_object_set_new(e, "min", json_real(x));
        if (json_is_null(max) || x > json_number_value(max))
                json_object_set_new(e, "max", json_real(x));
}

static json_t *observations(const json_t *record) {
        json_t *by_source = json_object(), *a = json_array();
        size_t i;
        json_t *o;
        const char *key;
        json_array_foreach(json_object_get(record, "observations"), i, o) {
                const char *source = json_string_value(json_object_get(o, "source"));
                json_t *e = source ? source_entry(by_source, source) : NULL;
                if (e)
                        observe(e, o);
        }
        json_object_foreach(by_source, key, o) json_array_append(a, o);
        json_decref(by_source);
        return a;
}

static json_t *events_by_kind(const json_t *record) {
        json_t *counts = json_object();
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(record, "events"), i, x) {
                const char *kind = json_string_value(json_object_get(x, "kind"));
                if (!kind || !counts)
                        continue;
                json_int_t n = json_integer_value(json_object_get(counts, kind));
                json_object_set_new(counts, kind, json_integer(n + 1));
        }
        return counts;
}

json_t *run_story_json(const json_t *record) {
        const json_t *run = json_object_get(record, "run");
        json_t *r = pick(run, run_keys, ELEMENTSOF(run_keys));
        if (!r)
                return NULL;
        json_object_set_new(r, "seed", copy_or_null(json_object_get(record, "seed")));
        return json_pack(
                "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "run", r, "steps", steps(record), "leases",
                leases(record), "criteria", copy_or_null(json_object_get(run, "criteria")), "observations",
                observations(record), "slo_outcomes", copy_or_null(json_object_get(record, "slo_outcomes")),
                "steady_state_evaluations",
                copy_or_null(json_object_get(record, "steady_state_evaluations")), "resilience",
                copy_or_null(json_object_get(record, "resilience")), "events_by_kind",
                events_by_kind(record));
}
