#include "run-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The samples of the criterion's source in its window, oldest first: a
 * malloc()ed copy in *ret (NULL when there are none). -ENOMEM on failure. */
static int judged_samples(
        const struct runner *r, const struct drill_criterion *c, struct observation **ret, size_t *ret_n) {
        struct observation *v = NULL;
        size_t n = 0;
        for (size_t i = 0; i < r->n_obs; i++) {
                const struct observation *o = &r->obs[i];
                if (strcmp(o->source, c->source_id) != 0 ||
                    !fault_windows_contain(
                            r->windows, r->windows ? r->plan->n_faults : 0, c->window, o->began_ms, o->t_ms))
                        continue;
                if (!v && !(v = malloc((r->n_obs - i) * sizeof(*v))))
                        return -ENOMEM;
                v[n++] = *o;
        }
        *ret = v;
        *ret_n = n;
        return 0;
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
                struct observation *samples = NULL;
                size_t n = 0;
                cr->criterion = &s->criteria[i];
                if (judged_samples(r, cr->criterion, &samples, &n) < 0)
                        snprintf(cr->detail, sizeof(cr->detail), "out of memory");
                else
                        cr->satisfied = criterion_judge_samples(
                                cr->criterion, samples, n, cr->detail, sizeof(cr->detail));
                cr->samples = n;
                free(samples);
                passed += cr->satisfied;
        }
        if (!s->present || s->n_criteria == 0 || res->status == RUN_STATUS_ABORTED)
                res->verdict = VERDICT_UNDECIDED;
        else if (s->require_all ? passed == s->n_criteria : passed > 0)
                res->verdict = VERDICT_PASS;
        else
                res->verdict = VERDICT_FAIL;
}
