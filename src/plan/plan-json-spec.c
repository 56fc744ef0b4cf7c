#include "plan.h"

/* json_pack with "s?" turns a NULL string into null; absent optional fields
 * are left out instead so the canonical bytes do not depend on them. */
static void set_str(json_t *o, const char *key, const char *v) {
        if (v)
                json_object_set_new(o, key, json_string(v));
}

static json_t *names_json(const struct drill_names *n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n->n; i++)
                json_array_append_new(a, json_string(n->v[i]));
        return a;
}

json_t *plan_json_param(const struct param_value *v) {
        switch (v->type) {
        case PARAM_INTEGER:
        case PARAM_DURATION: return json_integer(v->i);
        case PARAM_BYTES:
        case PARAM_RATE: return json_integer((json_int_t)v->u);
        case PARAM_FLOAT:
        case PARAM_PERCENT: return json_real(v->f);
        default: return json_string(v->s);
        }
}

/* exec and file probes read or run something on a machine: the plan says
 * which. Today that is always the controller's own host, as the controller's
 * user, never through the agent (so no agent role governs them); a check
 * with another execution locus is refused by the planner (plan-support.c). */
static void set_runs_on(json_t *o, const struct drill_probe *p, bool on_host) {
        if (on_host && (p->type == PROBE_EXEC || p->type == PROBE_FILE))
                json_object_set_new(o, "runs_on", json_string("controller_host"));
}

static json_t *probe_json(const struct drill_probe *p, bool on_host) {
        json_t *o = json_pack(
                "{s:s, s:I}", "type", probe_type_to_string(p->type), "timeout_ms",
                (json_int_t)p->timeout_ms);
        if (!o)
                return NULL;
        switch (p->type) {
        case PROBE_HTTP:
                set_str(o, "url", p->url);
                set_str(o, "method", p->method);
                json_object_set_new(o, "expected_status", json_integer(p->expected_status));
                break;
        case PROBE_EXEC: {
                struct drill_names argv = { .v = p->cmd, .n = p->n_cmd };
                json_object_set_new(o, "cmd", names_json(&argv));
                json_object_set_new(o, "expected_exit_code", json_integer(p->expected_exit_code));
                break;
        }
        case PROBE_TCP:
                set_str(o, "host", p->host);
                json_object_set_new(o, "port", json_integer(p->port));
                break;
        case PROBE_PROCESS:
                set_str(o, "name", p->process_name);
                if (p->pid > 0)
                        json_object_set_new(o, "pid", json_integer(p->pid));
                break;
        case PROBE_METRIC:
                set_str(o, "endpoint", p->endpoint);
                set_str(o, "query", p->query);
                if (p->has_threshold)
                        json_object_set_new(o, "threshold", json_real(p->threshold));
                break;
        default:
                set_str(o, "path", p->path);
                set_str(o, "contains", p->contains);
                break;
        }
        set_runs_on(o, p, on_host);
        return o;
}

json_t *plan_json_probe(const struct drill_probe *p) {
        return probe_json(p, true);
}

json_t *plan_json_check(const struct drill_check *c) {
        json_t *o = json_pack(
                "{s:s, s:s, s:o}", "id", c->id, "execution", check_locus_to_string(c->execution), "probe",
                probe_json(&c->probe, c->execution == CHECK_LOCUS_HOST));
        if (o)
                set_str(o, "target", c->target);
        return o;
}

json_t *plan_json_config(const struct drill_config *c) {
        json_t *o = json_pack(
                "{s:s, s:I, s:I, s:s, s:b, s:s}", "risk_ceiling", risk_to_string(c->risk_ceiling),
                "max_faults", (json_int_t)c->max_faults, "timeout_ms", (json_int_t)c->timeout_ms,
                "log_level", log_level_to_string(c->log_level), "recovery", c->recovery, "on_failure",
                on_failure_to_string(c->on_failure));
        if (o && c->has_maniac) {
                json_t *m = json_pack(
                        "{s:I, s:I}", "level", (json_int_t)c->maniac_level, "run_level",
                        (json_int_t)c->maniac_run_level);
                if (m && c->has_maniac_seed)
                        json_object_set_new(m, "seed", json_integer(c->maniac_seed));
                json_object_set_new(o, "maniac", m);
        }
        return o;
}

static json_t *criterion_json(const struct drill_criterion *c) {
        json_t *o = json_pack(
                "{s:s, s:s}", "type", criterion_type_to_string(c->type), "source_id", c->source_id);
        if (!o)
                return NULL;
        switch (c->type) {
        case CRITERION_STATUS: json_object_set_new(o, "expected", json_integer(c->expected)); break;
        case CRITERION_LATENCY: json_object_set_new(o, "lt_ms", json_real(c->lt_ms)); break;
        case CRITERION_METRIC:
                if (c->has_gt)
                        json_object_set_new(o, "gt", json_real(c->gt));
                if (c->has_lt)
                        json_object_set_new(o, "lt", json_real(c->lt));
                break;
        case CRITERION_COUNT: json_object_set_new(o, "gte", json_integer(c->gte)); break;
        default: json_object_set_new(o, "value", json_boolean(c->value)); break;
        }
        /* Only when written: a drill without them keeps its fingerprint. */
        if (c->has_over)
                json_object_set_new(o, "over", json_string(criterion_over_to_string(c->over)));
        if (c->has_window)
                json_object_set_new(o, "window", json_string(criterion_window_to_string(c->window)));
        return o;
}

json_t *plan_json_success(const struct drill_success *s) {
        if (!s->present)
                return json_null();
        json_t *criteria = json_array();
        for (size_t i = 0; criteria && i < s->n_criteria; i++)
                json_array_append_new(criteria, criterion_json(&s->criteria[i]));
        return json_pack("{s:b, s:o}", "require_all", s->require_all, "criteria", criteria);
}

static json_t *source_json(const struct drill_obs_source *s) {
        json_t *o = json_pack(
                "{s:s, s:s, s:I}", "kind", obs_kind_to_string(s->kind), "source_id", s->source_id,
                "timeout_ms", (json_int_t)s->timeout_ms);
        if (!o)
                return NULL;
        set_str(o, "container", s->container);
        set_str(o, "since", s->since);
        set_str(o, "endpoint", s->endpoint);
        set_str(o, "metric", s->metric);
        if (s->kind == OBS_LOGS)
                json_object_set_new(o, "tail", json_integer(s->tail));
        if (s->kind == OBS_PROBE)
                json_object_set_new(o, "probe", plan_json_probe(&s->probe));
        if (s->kind != OBS_LOGS)
                json_object_set_new(o, "cadence_ms", json_integer(s->cadence_ms));
        return o;
}

json_t *plan_json_observability(const struct drill_observability *o) {
        if (!o->present)
                return json_null();
        json_t *sources = json_array();
        for (size_t i = 0; sources && i < o->n_sources; i++)
                json_array_append_new(sources, source_json(&o->sources[i]));
        return json_pack(
                "{s:I, s:I, s:o}", "cadence_ms", (json_int_t)o->cadence_ms, "total_timeout_ms",
                (json_int_t)o->total_timeout_ms, "sources", sources);
}

json_t *plan_json_slos(const struct drill_slo *slos, size_t n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++) {
                const struct drill_slo *s = &slos[i];
                json_array_append_new(
                        a, json_pack(
                                   "{s:s, s:s, s:s, s:f, s:s, s:I, s:s, s:s}", "metric", s->metric, "kind",
                                   slo_kind_to_string(s->kind), "operator", slo_operator_to_string(s->op),
                                   "threshold", s->threshold, "unit", s->unit, "window_s",
                                   (json_int_t)s->window_s, "name", s->name, "target", s->target));
        }
        return a;
}

static void set_num(json_t *o, const char *key, bool has, double v) {
        if (has)
                json_object_set_new(o, key, json_real(v));
}

static json_t *signal_json(const struct drill_ss_signal *s) {
        json_t *o = json_pack(
                "{s:s, s:s, s:s}", "name", s->name, "source_id", s->source_id, "severity",
                severity_to_string(s->severity));
        if (!o)
                return NULL;
        set_str(o, "metric", s->metric);
        if (s->has_expect) {
                json_t *e = json_object();
                set_num(e, "lte", s->has_lte, s->lte);
                set_num(e, "gte", s->has_gte, s->gte);
                set_num(e, "eq", s->has_eq, s->eq);
                json_object_set_new(o, "expect", e);
        } else {
                json_t *t = json_object();
                set_num(t, "at_most", s->has_at_most, s->at_most);
                set_num(t, "at_most_relative", s->has_at_most_relative, s->at_most_relative);
                json_object_set_new(o, "tolerance", t);
        }
        if (s->has_baseline_window)
                json_object_set_new(o, "baseline_window_ms", json_integer(s->baseline_window_ms));
        return o;
}

static json_t *phase_json(const struct drill_ss_phase *p) {
        json_t *o = json_pack(
                "{s:s, s:o, s:o, s:o}", "phase", ss_phase_to_string(p->phase), "assert_unchanged",
                names_json(&p->assert_unchanged), "assert_degraded", names_json(&p->assert_degraded),
                "assert_recovered", names_json(&p->assert_recovered));
        if (o)
                set_num(o, "within", p->has_within, p->within);
        return o;
}

json_t *plan_json_steady_state(const struct drill_steady_state *ss) {
        if (!ss->present)
                return json_null();
        json_t *signals = json_array(), *phases = json_array();
        for (size_t i = 0; signals && i < ss->n_signals; i++)
                json_array_append_new(signals, signal_json(&ss->signals[i]));
        for (size_t i = 0; phases && i < ss->n_phases; i++)
                json_array_append_new(phases, phase_json(&ss->phases[i]));
        return json_pack(
                "{s:{s:I, s:I}, s:o, s:o}", "capture", "samples", (json_int_t)ss->samples, "window_ms",
                (json_int_t)ss->window_ms, "signals", signals, "phases", phases);
}
