#include "drill-parse-internal.h"

#include <stdio.h>
#include <string.h>

#define CADENCE_MAX_MS (3600LL * 1000)

static const char *const *const criterion_keys[_CRITERION_TYPE_MAX] = {
        [CRITERION_STATUS] =
                (const char *const[]){ "type", "source_id", "expected", "over", "window", NULL },
        [CRITERION_LATENCY] = (const char *const[]){ "type", "source_id", "lt_ms", "over", "window", NULL },
        [CRITERION_METRIC] =
                (const char *const[]){ "type", "source_id", "gt", "lt", "over", "window", NULL },
        [CRITERION_COUNT] = (const char *const[]){ "type", "source_id", "gte", "over", "window", NULL },
        [CRITERION_BOOLEAN] = (const char *const[]){ "type", "source_id", "value", "over", "window", NULL },
};

static const char *const *const source_keys[_OBS_KIND_MAX] = {
        [OBS_LOGS] = (const char *const[]){ "kind", "source_id", "container", "tail", "since", "pattern",
                                            "timeout", NULL },
        [OBS_INSPECTION] =
                (const char *const[]){ "kind", "source_id", "container", "cadence", "timeout", NULL },
        [OBS_PROBE] = (const char *const[]){ "kind", "source_id", "probe", "cadence", "timeout", NULL },
        [OBS_METRICS] = (const char *const[]){ "kind", "source_id", "endpoint", "metric", "cadence",
                                               "timeout", NULL },
};

/* over: and window: say which samples are judged and how; a boolean has
 * no order, so only last, all and any mean something for it. */
static int parse_judged(struct dparser *p, const struct ynode *n, struct drill_criterion *c) {
        int r;
        c->over = CRITERION_OVER_LAST;
        c->window = CRITERION_WINDOW_WHOLE;
        c->has_over = dp_get(n, "over") != NULL;
        c->has_window = dp_get(n, "window") != NULL;
        if ((r = DP_ENUM(p, n, "over", criterion_over, &c->over)) < 0 ||
            (r = DP_ENUM(p, n, "window", criterion_window, &c->window)) < 0)
                return r;
        if (c->type != CRITERION_BOOLEAN || c->over <= CRITERION_OVER_ANY)
                return 0;
        dp_enter_key(p, "over");
        return dp_fail(
                p, dp_get(n, "over"), "a boolean criterion takes last, all or any, not '%s'",
                criterion_over_to_string(c->over));
}

static int parse_criterion(struct dparser *p, const struct ynode *n, struct drill_criterion *c) {
        int r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_require(p, n, "type")) < 0 ||
            (r = DP_ENUM(p, n, "type", criterion_type, &c->type)) < 0 ||
            (r = dp_check_keys(p, n, criterion_keys[c->type])) < 0 ||
            (r = dp_require(p, n, "source_id")) < 0 || (r = dp_id(p, n, "source_id", &c->source_id)) < 0 ||
            (r = parse_judged(p, n, c)) < 0)
                return r;
        c->pos = dp_pos(n);
        c->gte = 1;
        c->value = true;
        switch (c->type) {
        case CRITERION_STATUS:
                if ((r = dp_require(p, n, "expected")) < 0)
                        return r;
                return dp_int(p, n, "expected", 0, 999, &c->expected);
        case CRITERION_LATENCY:
                if ((r = dp_require(p, n, "lt_ms")) < 0 ||
                    (r = dp_num(p, n, "lt_ms", 0, 1e12, NULL, &c->lt_ms)) < 0)
                        return r;
                if (c->lt_ms > 0)
                        return 0;
                dp_enter_key(p, "lt_ms");
                return dp_fail(p, dp_get(n, "lt_ms"), "must be greater than 0");
        case CRITERION_METRIC:
                if ((r = dp_num(p, n, "gt", -1e300, 1e300, &c->has_gt, &c->gt)) < 0 ||
                    (r = dp_num(p, n, "lt", -1e300, 1e300, &c->has_lt, &c->lt)) < 0)
                        return r;
                if (!c->has_gt && !c->has_lt)
                        return dp_fail(p, n, "a metric criterion needs 'gt', 'lt' or both");
                if (c->has_gt && c->has_lt && c->gt >= c->lt)
                        return dp_fail(
                                p, n, "can never pass: no value is above gt %g and below lt %g", c->gt,
                                c->lt);
                return 0;
        case CRITERION_COUNT: return dp_int(p, n, "gte", 0, INT64_MAX, &c->gte);
        default: return dp_bool(p, n, "value", &c->value);
        }
}

int dp_parse_success(struct dparser *p, const struct ynode *n) {
        static const char *const keys[] = { "require_all", "criteria", NULL };
        struct drill_success *s = &p->spec->success;
        size_t mark = dp_enter_key(p, "success");
        const struct ynode *criteria;
        int r;

        s->present = true;
        s->require_all = true;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_bool(p, n, "require_all", &s->require_all)) < 0)
                return r;
        if ((criteria = dp_get(n, "criteria"))) {
                size_t m = dp_enter_key(p, "criteria");
                if ((r = DP_PARSE_LIST(p, criteria, s->criteria, s->n_criteria, parse_criterion)) < 0)
                        return r;
                dp_leave(p, m);
        }
        dp_leave(p, mark);
        return 0;
}

static int parse_source_probe(struct dparser *p, const struct ynode *n, struct drill_obs_source *s) {
        int r = dp_require(p, n, "probe");
        if (r < 0)
                return r;
        size_t mark = dp_enter_key(p, "probe");
        if ((r = dp_parse_probe(p, dp_get(n, "probe"), &s->probe)) < 0)
                return r;
        dp_leave(p, mark);
        return dp_dur(p, n, "cadence", 0, CADENCE_MAX_MS, &s->cadence_ms);
}

static int parse_source(struct dparser *p, const struct ynode *n, struct drill_obs_source *s) {
        int r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_require(p, n, "kind")) < 0 ||
            (r = DP_ENUM(p, n, "kind", obs_kind, &s->kind)) < 0 ||
            (r = dp_check_keys(p, n, source_keys[s->kind])) < 0 || (r = dp_require(p, n, "source_id")) < 0 ||
            (r = dp_id(p, n, "source_id", &s->source_id)) < 0)
                return r;
        s->pos = dp_pos(n);
        s->kind_pos = dp_pos(dp_get(n, "kind"));
        s->timeout_ms = 10000;
        s->tail = 100;
        s->cadence_ms = p->spec->observability.cadence_ms;
        if ((r = dp_dur(p, n, "timeout", 1, CADENCE_MAX_MS, &s->timeout_ms)) < 0)
                return r;
        switch (s->kind) {
        case OBS_LOGS:
                if ((r = dp_parse_logs_keys(p, n, s)) < 0)
                        return r;
                _fallthrough_;
        case OBS_INSPECTION:
                if ((r = dp_require(p, n, "container")) < 0 ||
                    (r = dp_id(p, n, "container", &s->container)) < 0)
                        return r;
                return dp_dur(p, n, "cadence", 0, CADENCE_MAX_MS, &s->cadence_ms);
        case OBS_PROBE: return parse_source_probe(p, n, s);
        default:
                if ((r = dp_url(p, n, "endpoint", &s->endpoint)) < 0 ||
                    (r = dp_require(p, n, "metric")) < 0 || (r = dp_id(p, n, "metric", &s->metric)) < 0 ||
                    (r = dp_check_metric_selector(p, n, "metric", s->metric)) < 0)
                        return r;
                return dp_dur(p, n, "cadence", 0, CADENCE_MAX_MS, &s->cadence_ms);
        }
}

int dp_parse_observability(struct dparser *p, const struct ynode *n) {
        static const char *const keys[] = { "cadence", "total_timeout", "sources", NULL };
        struct drill_observability *o = &p->spec->observability;
        size_t mark = dp_enter_key(p, "observability");
        const struct ynode *sources;
        int r;

        o->present = true;
        o->cadence_ms = 5000;
        o->total_timeout_ms = 30000;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_dur(p, n, "cadence", 1, CADENCE_MAX_MS, &o->cadence_ms)) < 0 ||
            (r = dp_dur(p, n, "total_timeout", 1, 24 * CADENCE_MAX_MS, &o->total_timeout_ms)) < 0)
                return r;
        if ((sources = dp_get(n, "sources"))) {
                size_t m = dp_enter_key(p, "sources");
                if ((r = DP_PARSE_LIST(p, sources, o->sources, o->n_sources, parse_source)) < 0)
                        return r;
                dp_leave(p, m);
        }
        dp_leave(p, mark);
        return 0;
}

static int parse_slo_entry(struct dparser *p, const struct ynode *n, struct drill_slo *s) {
        static const char *const keys[] = { "metric",   "kind", "operator", "threshold", "unit",
                                            "window_s", "name", "target",   "over",      NULL };
        char derived[256];
        int r;

        s->pos = dp_pos(n);
        s->kind = SLO_LATENCY;
        s->op = SLO_OP_LTE;
        s->unit = "ms";
        s->window_s = 60;
        s->target = "";
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_require(p, n, "metric")) < 0 || (r = dp_id(p, n, "metric", &s->metric)) < 0 ||
            (r = DP_ENUM(p, n, "kind", slo_kind, &s->kind)) < 0 ||
            (r = DP_ENUM(p, n, "operator", slo_operator, &s->op)) < 0 ||
            (r = dp_num(p, n, "threshold", -1e300, 1e300, NULL, &s->threshold)) < 0 ||
            (r = dp_str(p, n, "unit", &s->unit)) < 0 ||
            (r = dp_int(p, n, "window_s", 1, 86400 * 30, &s->window_s)) < 0 ||
            (r = dp_id(p, n, "name", &s->name)) < 0 || (r = dp_str(p, n, "target", &s->target)) < 0 ||
            (r = DP_ENUM(p, n, "over", criterion_over, &s->over)) < 0)
                return r;
        s->metric_pos = dp_pos(dp_get(n, "metric"));
        s->has_over = dp_get(n, "over");
        if (s->has_over && (s->over == CRITERION_OVER_ALL || s->over == CRITERION_OVER_ANY))
                return dp_fail(p, dp_get(n, "over"), "'over' is one of last, max, min, mean, p50, p95, p99");
        if (s->has_over && s->kind != SLO_LATENCY && s->kind != SLO_SATURATION)
                return dp_fail(p, dp_get(n, "over"), "'over' only goes with kind latency or saturation");
        if (!s->name) {
                snprintf(derived, sizeof(derived), "%s:%s", slo_kind_to_string(s->kind), s->metric);
                if (!(s->name = arena_strdup(p->arena, derived)))
                        return dp_oom(p);
        }
        return 0;
}

int dp_parse_slo(struct dparser *p, const struct ynode *n) {
        size_t mark = dp_enter_key(p, "slo");
        int r = DP_PARSE_LIST(p, n, p->spec->slos, p->spec->n_slos, parse_slo_entry);
        if (r >= 0)
                dp_leave(p, mark);
        return r;
}
