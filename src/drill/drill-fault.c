#include "drill-parse-internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/parse-number.h"
#include "basic/strv.h"
#include "basic/suggest.h"
#include "basic/units.h"

#define FAULT_MIN_DURATION_MS 100

/* Keys of a fault entry that are never parameters. */
static const char *const fault_reserved_keys[] = {
        "fault", "duration", "on_failure", "targets", "network_path", "recovery", "params", NULL,
};

static bool is_reserved(const char *key) {
        for (size_t i = 0; fault_reserved_keys[i]; i++)
                if (strcmp(key, fault_reserved_keys[i]) == 0)
                        return true;
        return false;
}

static void format_bound(enum param_type type, double b, char *buf, size_t size) {
        struct param_value v = { .type = type };
        if (type == PARAM_DURATION || type == PARAM_INTEGER)
                v.i = (int64_t)b;
        else if (type == PARAM_BYTES || type == PARAM_RATE)
                v.u = (uint64_t)b;
        else
                v.f = b;
        param_value_format(&v, buf, size);
}

static double as_double(const struct param_value *v) {
        switch (v->type) {
        case PARAM_INTEGER:
        case PARAM_DURATION: return (double)v->i;
        case PARAM_BYTES:
        case PARAM_RATE: return (double)v->u;
        default: return v->f;
        }
}

/* via_alias: the value was written as a duration ("seconds: 2m"), so the
 * bounds of the millisecond parameter are shown as durations too. */
static int check_range(
        struct dparser *p, const struct ynode *n, const struct param_spec *s, bool via_alias,
        const struct param_value *v) {
        enum param_type shown = via_alias ? PARAM_DURATION : s->type;
        struct param_value vs = *v;
        double x = as_double(v);
        char lo[48], hi[48], got[48];
        if ((!s->has_min || x >= s->min) && (!s->has_max || x <= s->max))
                return 0;
        format_bound(shown, s->min, lo, sizeof(lo));
        format_bound(shown, s->max, hi, sizeof(hi));
        vs.type = shown;
        param_value_format(&vs, got, sizeof(got));
        return dp_fail(p, n, "%s is out of range (%s..%s)", got, lo, hi);
}

static int type_error(
        struct dparser *p, const struct ynode *n, const struct param_spec *s, const char *text, int r) {
        static const char *const hints[_PARAM_TYPE_MAX] = {
                [PARAM_INTEGER] = "a whole number",
                [PARAM_FLOAT] = "a number",
                [PARAM_PERCENT] = "a percentage such as 50 or 12.5%",
                [PARAM_DURATION] = "a duration such as 500ms, 10s, 5m",
                [PARAM_BYTES] = "a size such as 64k, 256M, 1G",
                [PARAM_RATE] = "a rate with a unit such as 10mbit, 512kbit, 2kbps",
        };
        static const char *const resolution[_PARAM_TYPE_MAX] = {
                [PARAM_DURATION] = "1ms",
                [PARAM_BYTES] = "1 byte",
                [PARAM_RATE] = "1 bit/s",
        };
        if (r == -EDOM)
                return dp_fail(
                        p, n, "'%s' is finer than the resolution of %s", text,
                        resolution[s->type] ? resolution[s->type] : "this parameter");
        if (r == -ERANGE)
                return dp_fail(p, n, "'%s' is too large", text);
        return dp_fail(p, n, "expected %s, got '%s'", hints[s->type], text);
}

static int parse_enum_value(
        struct dparser *p, const struct ynode *n, const struct param_spec *s, struct param_value *v) {
        size_t count = 0;
        int idx = -1;
        while (s->choices[count])
                count++;
        int r = dp_enum_node(p, n, s->choices, count, &idx);
        if (r < 0)
                return r;
        v->s = s->choices[idx];
        return 0;
}

static int parse_number_like(
        const struct param_spec *s, bool via_alias, const char *text, struct param_value *v) {
        if (via_alias)
                return parse_duration_ms(text, &v->i);
        switch (s->type) {
        case PARAM_INTEGER: return parse_int64(text, &v->i);
        case PARAM_FLOAT: return parse_double(text, &v->f);
        case PARAM_PERCENT: return parse_percent(text, &v->f);
        case PARAM_DURATION: return parse_duration_ms(text, &v->i);
        case PARAM_BYTES: return parse_bytes(text, &v->u);
        case PARAM_RATE: return parse_rate_bps(text, &v->u);
        default: return -EINVAL;
        }
}

/* Text -> typed value for one parameter. via_alias: the reference's duration
 * spelling ("seconds: 5s") of an integer millisecond parameter. */
static int parse_param_value(
        struct dparser *p, const struct ynode *n, const struct param_spec *s, bool via_alias,
        struct param_value *ret) {
        struct param_value v = { .type = s->type };
        const char *text = NULL;
        int r = dp_scalar(p, n, &text);
        if (r < 0)
                return r;

        if (s->type == PARAM_ENUM) {
                if ((r = parse_enum_value(p, n, s, &v)) < 0)
                        return r;
        } else if (param_type_is_text(s->type)) {
                char why[128];
                if (param_text_check(s, text, why, sizeof(why)) < 0)
                        return dp_fail(p, n, "'%.80s%s' %s", text, strlen(text) > 80 ? "..." : "", why);
                if (!(v.s = arena_strdup(p->arena, text)))
                        return dp_oom(p);
        } else {
                r = parse_number_like(s, via_alias, text, &v);
                if (r < 0 && via_alias)
                        return type_error(
                                p, n, &(const struct param_spec){ .type = PARAM_DURATION }, text, r);
                if (r < 0)
                        return type_error(p, n, s, text, r);
                if ((r = check_range(p, n, s, via_alias, &v)) < 0)
                        return r;
        }
        *ret = v;
        return 0;
}

/* A misspelt reserved key ("duraton") is suggested as that key rather than
 * reported as a parameter the fault does not have. */
static int unknown_param(struct dparser *p, const struct ynode *key, const struct fault_def *def) {
        const char *names[64 + ELEMENTSOF(fault_reserved_keys)] = { 0 };
        char list[512] = "";
        size_t n = MIN(def->n_params, (size_t)64), n_all = n;

        for (size_t i = 0; i < n; i++)
                names[i] = def->params[i].name;
        strv_join(list, sizeof(list), names, n, 0);
        for (size_t i = 0; fault_reserved_keys[i]; i++)
                names[n_all++] = fault_reserved_keys[i];
        const char *near = suggest_closest(key->text, names, n_all);
        if (near && is_reserved(near))
                return dp_fail(p, key, "unknown key '%s' (did you mean '%s'?)", key->text, near);
        if (n == 0)
                return dp_fail(p, key, "%s takes no parameters, got '%s'", def->id, key->text);
        if (near)
                return dp_fail(
                        p, key, "unknown parameter '%s' for %s (did you mean '%s'?)", key->text, def->id,
                        near);
        return dp_fail(p, key, "unknown parameter '%s' for %s (parameters: %s)", key->text, def->id, list);
}

/* Applies one `name: value` pair, from the fault mapping or from params:. */
static int apply_param(struct dparser *p, const struct ypair *pair, struct drill_fault *f) {
        const struct param_spec *s = fault_param_find(f->def, pair->key->text);
        if (!s && is_reserved(pair->key->text)) /* only reachable from params: */
                return dp_fail(
                        p, pair->key, "'%s' is not a parameter; write it beside 'fault', not under 'params'",
                        pair->key->text);
        if (!s)
                return unknown_param(p, pair->key, f->def);
        struct drill_param *dst = &f->params[s - f->def->params];
        if (dst->given && s->alias)
                return dp_fail(
                        p, pair->key, "parameter '%s' is given twice ('%s' is another name for it)", s->name,
                        s->alias);
        if (dst->given)
                return dp_fail(p, pair->key, "parameter '%s' is given twice", s->name);
        if (ynode_is_null(pair->value))
                return 0;
        size_t mark = dp_enter_key(p, pair->key->text);
        bool via_alias = s->alias && strcmp(pair->key->text, s->alias) == 0;
        int r = parse_param_value(p, pair->value, s, via_alias, &dst->value);
        if (r < 0)
                return r;
        dp_leave(p, mark);
        dst->given = true;
        dst->pos = dp_pos(pair->value);
        return 0;
}

static int parse_params(struct dparser *p, const struct ynode *n, struct drill_fault *f) {
        const struct ynode *block = dp_get(n, "params");
        int r;

        f->n_params = f->def->n_params;
        f->params = arena_alloc_array(p->arena, f->n_params ? f->n_params : 1, sizeof(*f->params));
        if (!f->params)
                return dp_oom(p);
        for (size_t i = 0; i < f->n_params; i++)
                f->params[i].spec = &f->def->params[i];

        for (size_t i = 0; i < n->n_pairs; i++)
                if (!is_reserved(n->pairs[i].key->text) && (r = apply_param(p, &n->pairs[i], f)) < 0)
                        return r;
        if (block) {
                size_t mark = dp_enter_key(p, "params");
                if ((r = dp_want(p, block, YNODE_MAP)) < 0)
                        return r;
                for (size_t i = 0; i < block->n_pairs; i++)
                        if ((r = apply_param(p, &block->pairs[i], f)) < 0)
                                return r;
                dp_leave(p, mark);
        }
        for (size_t i = 0; i < f->n_params; i++) {
                struct drill_param *dp = &f->params[i];
                if (dp->given)
                        continue;
                if (dp->spec->required)
                        return dp_fail(p, n, "%s needs parameter '%s'", f->def->id, dp->spec->name);
                if (dp->spec->has_default) {
                        dp->value = dp->spec->def;
                        dp->defaulted = true;
                }
        }
        return 0;
}

static int parse_fault_id(struct dparser *p, const struct ynode *n, struct drill_fault *f) {
        const struct ynode *v = dp_get(n, "fault");
        const char *id = NULL, *ids[256];
        int r;

        if ((r = dp_require(p, n, "fault")) < 0)
                return r;
        size_t mark = dp_enter_key(p, "fault");
        if ((r = dp_scalar(p, v, &id)) < 0)
                return r;
        f->def = catalog_find(id);
        f->pos = dp_pos(v);
        if (!f->def) {
                const char *near = suggest_closest(id, ids, catalog_ids(ids, ELEMENTSOF(ids)));
                if (near)
                        return dp_fail(p, v, "unknown fault '%s' (did you mean '%s'?)", id, near);
                return dp_fail(p, v, "unknown fault '%s' (`mayhem discover faults` lists them)", id);
        }
        if (f->def->refusal) {
                const struct fault_def *alt = fault_alternative_of(f->def);
                bool runs = alt && fault_status_of(alt) == FAULT_STATUS_RUNNABLE;
                return dp_fail(
                        p, v, "%s is in the catalog but cannot run here: %s; alternative: %s%s", id,
                        f->def->refusal, f->def->alternative,
                        runs ? "" : " (not runnable in this build either)");
        }
        dp_leave(p, mark);
        return 0;
}

static int parse_duration(struct dparser *p, const struct ynode *n, struct drill_fault *f) {
        const struct ynode *v = dp_get(n, "duration");
        int64_t max_ms = (int64_t)f->def->max_duration_s * 1000;
        int r;

        f->duration_ms = 10000;
        f->duration_pos = f->pos;
        if (!v)
                return 0;
        r = dp_dur(p, n, "duration", 0, INT64_MAX, &f->duration_ms);
        if (r < 0)
                return r;
        f->duration_pos = dp_pos(v);
        size_t mark = dp_enter_key(p, "duration");
        if (f->duration_ms < FAULT_MIN_DURATION_MS)
                return dp_fail(p, v, "%s is shorter than the minimum of 100ms", v->text);
        if (f->duration_ms > max_ms)
                return dp_fail(
                        p, v, "%s exceeds the maximum of %us for %s", v->text, f->def->max_duration_s,
                        f->def->id);
        dp_leave(p, mark);
        return 0;
}

int dp_parse_fault(struct dparser *p, const struct ynode *n, struct drill_fault *f) {
        const struct ynode *peers;
        int r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = parse_fault_id(p, n, f)) < 0 ||
            (r = parse_duration(p, n, f)) < 0)
                return r;
        f->on_failure = p->spec->config.on_failure;
        f->recovery = p->spec->config.recovery;
        if ((r = DP_ENUM(p, n, "on_failure", on_failure, &f->on_failure)) < 0 ||
            (r = dp_bool(p, n, "recovery", &f->recovery)) < 0 ||
            (r = dp_str(p, n, "network_path", &f->network_path)) < 0)
                return r;
        if ((peers = dp_get(n, "targets"))) {
                size_t mark = dp_enter_key(p, "targets");
                if ((r = dp_names(p, peers, 0, &f->peers)) < 0)
                        return r;
                dp_leave(p, mark);
        }
        return parse_params(p, n, f);
}
