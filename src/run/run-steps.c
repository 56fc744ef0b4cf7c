#include "run-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lane_job {
        struct runner *r;
        const struct plan_lane *lane;
        const char *step_id;
        bool ok;
};

/* A lane runs its target's faults one after another; on_failure decides
 * whether a failed fault stops the whole run. */
static void *run_lane(void *arg) {
        struct lane_job *job = arg;
        struct runner *r = job->r;
        job->ok = true;
        for (size_t i = 0; i < job->lane->n_faults && !runner_stopping(r); i++) {
                const struct plan_fault *f = &r->plan->faults[job->lane->first_fault + i];
                if (runner_fault(r, f, job->step_id))
                        continue;
                job->ok = false;
                if (f->src->on_failure == ON_FAILURE_ABORT_AND_RECOVER)
                        runner_abort(
                                r, "%s %s failed (on_failure: abort_and_recover)", f->id, f->src->def->id);
                else
                        runner_fail(r, "%s %s failed (on_failure: continue)", f->id, f->src->def->id);
        }
        return NULL;
}

static bool run_lanes(struct runner *r, const struct plan_step *ps, const char *step_id) {
        struct lane_job jobs[DRILL_LIST_MAX];
        pthread_t threads[DRILL_LIST_MAX];
        bool threaded[DRILL_LIST_MAX] = { false }, ok = true;

        for (size_t i = 0; i < ps->n_lanes; i++) {
                jobs[i] = (struct lane_job){ .r = r, .lane = &ps->lanes[i], .step_id = step_id };
                threaded[i] = ps->src->kind == STEP_PARALLEL &&
                              pthread_create(&threads[i], NULL, run_lane, &jobs[i]) == 0;
                if (!threaded[i])
                        run_lane(&jobs[i]); /* sequential, or no thread to be had */
        }
        for (size_t i = 0; i < ps->n_lanes; i++) {
                if (threaded[i])
                        pthread_join(threads[i], NULL);
                ok = ok && jobs[i].ok;
        }
        return ok;
}

static bool run_check(struct runner *r, const struct drill_check *c) {
        struct probe_result pr;
        runner_check_probe(r, c, &pr);
        runner_observe_probe(r, c->id, &c->probe, &pr);
        runner_progress(r, "  [%s] check %s: %s", pr.ok ? "ok" : "FAIL", c->id, pr.detail);
        return pr.ok;
}

/* A failing check is an observation, not a failure of the run: the criteria judge it. */
static bool run_checks(struct runner *r, const struct drill_step *st) {
        for (size_t i = 0; i < st->n_checks && !runner_stopping(r); i++)
                run_check(r, &st->checks[i]);
        return true;
}

static const struct drill_check *find_check(const struct drill_spec *s, const char *id) {
        for (size_t i = 0; i < s->n_steps; i++)
                for (size_t j = 0; j < s->steps[i].n_checks; j++)
                        if (strcmp(s->steps[i].checks[j].id, id) == 0)
                                return &s->steps[i].checks[j];
        return NULL;
}

static bool run_wait_until(struct runner *r, const struct drill_step *st) {
        const struct drill_check *c =
                st->until_check_id ? find_check(r->plan->spec, st->until_check_id) : NULL;
        const struct drill_probe *p = c ? &c->probe : &st->until_probe;
        double until = monotonic_ms() + (double)st->until_timeout_ms;
        struct probe_result pr = { 0 };
        for (;;) {
                if (c)
                        runner_check_probe(r, c, &pr);
                else
                        probe_run(p, &pr);
                if (c)
                        runner_observe_probe(r, c->id, p, &pr);
                if (pr.ok) {
                        runner_progress(r, "  [ok] wait: check passed (%s)", pr.detail);
                        return true;
                }
                if (monotonic_ms() >= until || !runner_sleep(r, (double)st->until_interval_ms))
                        break;
        }
        if (!runner_stopping(r))
                runner_progress(
                        r, "  [FAIL] wait: check still failing after %.1fs: %s",
                        (double)st->until_timeout_ms / 1000, pr.detail);
        return false;
}

static bool run_step(struct runner *r, const struct plan_step *ps, const char *step_id) {
        const struct drill_step *st = ps->src;
        switch (st->kind) {
        case STEP_PARALLEL:
        case STEP_SEQUENTIAL: return run_lanes(r, ps, step_id);
        case STEP_WAIT:
                if (st->wait_until)
                        return run_wait_until(r, st);
                return runner_sleep(r, (double)st->wait_ms);
        default: return run_checks(r, st);
        }
}

static void describe_step(const struct plan_step *ps, char *buf, size_t size) {
        const struct drill_step *st = ps->src;
        size_t len = (size_t)snprintf(buf, size, "%s", step_kind_to_string(st->kind));
        for (size_t i = 0; i < st->names.n && len < size; i++)
                len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : " ", st->names.v[i]);
        if (st->kind == STEP_WAIT && !st->wait_until)
                snprintf(buf + len, size - len, " %.1fs", (double)st->wait_ms / 1000);
}

/* A fault step whose every fault was bypassed (or left out by --ctr) is
 * "bypassed" ("skipped"), with the reason, as the reference's step_runs
 * say; one whose every failed fault was never applied is
 * "failed_to_apply" (also when on_failure then stopped the run). Any
 * other step: completed, failed (a fault of it failed), or cancelled (cut
 * short by the run stopping). */
static const char *step_status(
        struct runner *r, const struct plan_step *ps, bool ok, char *why, size_t size) {
        size_t n = 0, bypassed = 0, skipped = 0, not_applied = 0, failed = 0;
        pthread_mutex_lock(&r->lock);
        for (size_t l = 0; l < ps->n_lanes; l++)
                for (size_t k = 0; k < ps->lanes[l].n_faults; k++) {
                        size_t i = ps->lanes[l].first_fault + k;
                        enum fault_outcome o = r->outcome[i];
                        n++;
                        bypassed += o == FAULT_OUTCOME_BYPASSED;
                        skipped += o == FAULT_OUTCOME_SKIPPED;
                        not_applied += o == FAULT_OUTCOME_NOT_APPLIED;
                        failed += o == FAULT_OUTCOME_FAILED;
                        if (o == FAULT_OUTCOME_BYPASSED && !why[0])
                                snprintf(
                                        why, size, "%s: bypass due to %s", r->plan->faults[i].id,
                                        r->bypass[i]);
                }
        pthread_mutex_unlock(&r->lock);
        if (ok && n > 0 && bypassed + skipped == n)
                return bypassed ? "bypassed" : (snprintf(why, size, "outside --ctr"), "skipped");
        why[0] = '\0'; /* the events say which faults of a partly bypassed step were */
        if (ok)
                return "completed";
        if (not_applied && !failed)
                return "failed_to_apply"; /* its own fault failed, even when that stopped the run */
        if (runner_stopping(r) && !failed)
                return "cancelled";
        return "failed";
}

static bool step_begin(
        struct runner *r, size_t i, const struct plan_step *ps, const char *action,
        char step_id[EVIDENCE_ID_MAX]) {
        struct mh_error e = { 0 };
        if (evidence_step_begin(
                    r->opt->evidence, r->run_id, (int)i, step_kind_to_string(ps->src->kind), action, step_id,
                    &e) >= 0)
                return true;
        runner_evidence_failed(r, "a step", &e);
        return false;
}

static void step_finish(struct runner *r, const char *step_id, const char *status, const char *error) {
        struct mh_error e = { 0 };
        if (evidence_step_finish(r->opt->evidence, step_id, status, error, &e) < 0)
                runner_evidence_failed(r, "a step's outcome", &e);
}

int runner_steps(struct runner *r) {
        const struct plan *pl = r->plan;
        for (size_t i = 0; i < pl->n_steps; i++) {
                const struct plan_step *ps = &pl->steps[i];
                char step_id[EVIDENCE_ID_MAX], what[256];
                describe_step(ps, what, sizeof(what));
                json_t *action = json_pack("{s:I, s:s}", "index", (json_int_t)i, "step", what);
                char *action_text = action ? json_dumps(action, JSON_COMPACT) : NULL;
                json_decref(action);
                if (runner_stopping(r)) {
                        if (step_begin(r, i, ps, action_text, step_id))
                                step_finish(r, step_id, "cancelled", r->reason);
                        free(action_text);
                        continue;
                }
                runner_progress(r, "  -> step %zu: %s", i, what);
                bool begun = step_begin(r, i, ps, action_text, step_id);
                free(action_text);
                if (!begun)
                        continue;
                bool ok = run_step(r, ps, step_id);
                if (!ok && ps->src->kind == STEP_WAIT && ps->src->wait_until && !runner_stopping(r))
                        runner_fail(r, "step %zu: wait.until_check_passes timed out", i);
                char why[RUN_DETAIL_MAX] = "";
                const char *status = step_status(r, ps, ok, why, sizeof(why));
                step_finish(r, step_id, status, why[0] ? why : ok ? NULL : r->reason);
        }
        return 0;
}
