#include "run-internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The reference's rules (domain/success.py): the latest observation of the
 * source is judged; none is "no observation recorded"; a boolean is never a
 * number and a number is never a boolean, except that a boolean criterion
 * accepts 0/1. */
bool criterion_judge(
        const struct drill_criterion *c, const struct observation *o, char *detail, size_t size) {
        bool numeric = o->kind != OBS_VALUE_BOOLEAN;
        switch (c->type) {
        case CRITERION_STATUS:
                snprintf(detail, size, "status=%.0f expected=%" PRId64, o->value, c->expected);
                return numeric && o->value == (double)c->expected;
        case CRITERION_LATENCY:
                snprintf(detail, size, "latency=%.1fms bound=<%.1fms", o->value, c->lt_ms);
                return numeric && o->value < c->lt_ms;
        case CRITERION_METRIC:
                snprintf(detail, size, "value=%g", o->value);
                return numeric && (!c->has_gt || o->value > c->gt) && (!c->has_lt || o->value < c->lt);
        case CRITERION_COUNT:
                snprintf(detail, size, "count=%.0f bound=>=%" PRId64, o->value, c->gte);
                return numeric && o->value >= (double)c->gte;
        default:
                snprintf(
                        detail, size, "value=%s expected=%s", o->value != 0 ? "true" : "false",
                        c->value ? "true" : "false");
                return (o->value != 0) == c->value &&
                       (o->kind == OBS_VALUE_BOOLEAN || o->value == 0 || o->value == 1);
        }
}

void runner_criteria(struct runner *r) {
        const struct drill_success *s = &r->plan->spec->success;
        struct run_result *res = r->result;
        size_t passed = 0;

        res->criteria = calloc(s->n_criteria ? s->n_criteria : 1, sizeof(*res->criteria));
        if (!res->criteria)
                return;
        res->n_criteria = s->n_criteria;
        for (size_t i = 0; i < s->n_criteria; i++) {
                struct criterion_result *cr = &res->criteria[i];
                const struct observation *o = runner_latest(r, s->criteria[i].source_id);
                cr->criterion = &s->criteria[i];
                if (o)
                        cr->satisfied = criterion_judge(cr->criterion, o, cr->detail, sizeof(cr->detail));
                else
                        snprintf(cr->detail, sizeof(cr->detail), "no observation recorded");
                passed += cr->satisfied;
        }
        if (!s->present || s->n_criteria == 0 || res->status == RUN_STATUS_ABORTED)
                res->verdict = VERDICT_UNDECIDED;
        else if (s->require_all ? passed == s->n_criteria : passed > 0)
                res->verdict = VERDICT_PASS;
        else
                res->verdict = VERDICT_FAIL;
}
