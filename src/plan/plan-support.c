/* What a run of this build would refuse or cut short, refused at planning
 * instead, so `prepare validate` and `run` without --execute say what
 * `run --execute` would: faults no mechanism of this build injects, checks it
 * does not implement, holds that config.timeout ends first. Each is exit 4
 * (validation) with the FILE:LINE:COL of the value, and nothing is touched. */
#include "plan-internal.h"

#include <stdio.h>
#include <string.h>

#include "basic/units.h"

static int not_implemented(struct plan_builder *b, int r) {
        mh_error_reclass(b->reterr, MH_EXIT_VALIDATION_ERROR, "not_implemented");
        return r;
}

/* "config.timeout (2m, line 5)" or "config.timeout (30m, the default)". */
static void timeout_text(const struct drill_config *c, char *buf, size_t size) {
        char d[32];
        format_duration_ms(d, sizeof(d), c->timeout_ms);
        if (c->timeout_pos.line)
                snprintf(buf, size, "config.timeout (%s, line %u)", d, c->timeout_pos.line);
        else
                snprintf(buf, size, "config.timeout (%s, the default)", d);
}

static int fault_runnable(struct plan_builder *b, const struct plan_fault *f) {
        const struct fault_def *def = f->src->def;
        if (fault_status_of(def) != FAULT_STATUS_PLANNED_ONLY)
                return 0; /* catalog-only faults are refused by the drill parser, with their reason */
        int r = pb_fail(
                b, f->src->pos,
                "%s cannot be injected by this build: %s%s%s; `mayhem discover faults` lists the %zu "
                "runnable faults",
                def->id, def->mechanism ? "its mechanism (" : "it has no mechanism",
                def->mechanism ? def->mechanism : "", def->mechanism ? ") is not implemented yet" : "",
                catalog_count_status(FAULT_STATUS_RUNNABLE));
        return not_implemented(b, r);
}

/* The run ends at config.timeout whatever it holds; a hold that long would
 * be cut short, the fault undone early and the run aborted. */
static int fault_fits_timeout(struct plan_builder *b, const struct plan_fault *f) {
        const struct drill_config *c = &b->spec->config;
        char d[32], t[96];
        if (f->src->duration_ms < c->timeout_ms)
                return 0;
        format_duration_ms(d, sizeof(d), f->src->duration_ms);
        timeout_text(c, t, sizeof(t));
        return pb_fail(
                b, f->src->duration_pos,
                "%s: duration %s is not shorter than %s; the run would abort before the hold ends",
                f->src->def->id, d, t);
}

int plan_support_fault(struct plan_builder *b, const struct plan_fault *f) {
        int r = fault_runnable(b, f);
        return r < 0 ? r : fault_fits_timeout(b, f);
}

static int check_locus_supported(struct plan_builder *b, const struct drill_check *c) {
        enum probe_type type = c->probe.type;
        if (c->execution == CHECK_LOCUS_HOST)
                return 0;
        if (type == PROBE_HTTP && c->probe.url && strncmp(c->probe.url, "http://", 7) != 0)
                return not_implemented(
                        b, pb_fail(b, c->probe.pos,
                                   "check '%s': only http:// URLs are probed from the target's side in "
                                   "this version (https is probed from the host: execution: host)",
                                   c->id));
        bool any_locus =
                type == PROBE_HTTP || type == PROBE_TCP || type == PROBE_FILE || type == PROBE_PROCESS;
        if (any_locus || (type == PROBE_EXEC && c->execution != CHECK_LOCUS_PROCESS))
                return 0; /* the agent runs it from the target's side (probe.run) */
        int r = pb_fail(
                b, c->execution_pos,
                "check '%s': execution %s with probe type %s is not implemented in this version; the agent "
                "runs http, tcp, file and process probes from a container, service or process target, exec "
                "probes from a container or service (the engine's exec API), every probe from the host "
                "(execution: host)",
                c->id, check_locus_to_string(c->execution), probe_type_to_string(c->probe.type));
        return not_implemented(b, r);
}

/* The least time a step takes: what it holds and waits for, nothing for
 * checks and waits that may pass at once. A lane holds its faults one after
 * another; parallel lanes overlap. */
static int64_t step_min_ms(const struct plan *pl, const struct plan_step *ps) {
        int64_t total = 0;
        if (ps->src->kind == STEP_WAIT)
                return ps->src->wait_until ? 0 : ps->src->wait_ms;
        for (size_t i = 0; i < ps->n_lanes; i++) {
                int64_t lane = 0;
                for (size_t j = 0; j < ps->lanes[i].n_faults; j++)
                        lane += pl->faults[ps->lanes[i].first_fault + j].src->duration_ms;
                total = ps->src->kind == STEP_PARALLEL ? MAX(total, lane) : total + lane;
        }
        return total;
}

static int steps_fit_timeout(struct plan_builder *b) {
        const struct plan *pl = b->plan;
        char d[32], t[96];
        int64_t total = 0;
        for (size_t i = 0; i < pl->n_steps; i++) {
                total += step_min_ms(pl, &pl->steps[i]);
                if (total < b->spec->config.timeout_ms)
                        continue;
                format_duration_ms(d, sizeof(d), total);
                timeout_text(&b->spec->config, t, sizeof(t));
                return pb_fail(
                        b, pl->steps[i].src->pos,
                        "execution[%zu]: the steps up to here hold faults and wait for at least %s, not "
                        "shorter than %s; the run would abort here",
                        i, d, t);
        }
        return 0;
}

int plan_support_steps(struct plan_builder *b) {
        const struct plan *pl = b->plan;
        int r = 0;
        for (size_t i = 0; i < pl->n_steps && r >= 0; i++)
                for (size_t j = 0; j < pl->steps[i].src->n_checks && r >= 0; j++)
                        r = check_locus_supported(b, &pl->steps[i].src->checks[j]);
        return r < 0 ? r : steps_fit_timeout(b);
}
