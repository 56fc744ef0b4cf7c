#include "plan-internal.h"

#include <inttypes.h>
#include <string.h>

static bool target_runs(const struct plan *pl, const struct plan_target *t) {
        for (size_t i = 0; i < pl->n_steps; i++)
                for (size_t j = 0; j < pl->steps[i].n_lanes; j++)
                        if (pl->steps[i].lanes[j].target == t)
                                return true;
        return false;
}

/* A source "X" or "X.field" is produced when X is a check or observability source id. */
static bool id_produces(const char *id, const char *source) {
        size_t n = strlen(id);
        return strncmp(id, source, n) == 0 && (source[n] == '\0' || source[n] == '.');
}

static bool source_produced(const struct drill_spec *s, const char *source) {
        for (size_t i = 0; i < s->n_steps; i++)
                for (size_t j = 0; j < s->steps[i].n_checks; j++)
                        if (id_produces(s->steps[i].checks[j].id, source))
                                return true;
        for (size_t i = 0; i < s->observability.n_sources; i++)
                if (id_produces(s->observability.sources[i].source_id, source))
                        return true;
        return false;
}

/* The observability source that samples `source` over and over, if any. */
static const struct drill_obs_source *repeating_source(const struct drill_spec *s, const char *source) {
        for (size_t i = 0; i < s->observability.n_sources; i++) {
                const struct drill_obs_source *o = &s->observability.sources[i];
                if (o->kind != OBS_LOGS && o->cadence_ms > 0 && id_produces(o->source_id, source))
                        return o;
        }
        return NULL;
}

/* A criterion on a source of many samples that does not say which it
 * judges judges the last one, as in the reference: say so. */
static int warn_judged(struct plan_builder *b, const struct drill_criterion *c) {
        const struct drill_obs_source *o = repeating_source(b->spec, c->source_id);
        if (!o || c->has_over || c->has_window)
                return 0;
        return pb_warn(
                b,
                "%s:%u:%u: success criterion on '%s' judges only the last sample of source '%s' "
                "(one every %" PRId64 "ms); say which with 'over:' (last, all, any, max, min, p50, p95, "
                "p99, mean) or 'window:' (baseline, during, after, whole)",
                b->spec->path, c->pos.line, c->pos.col, c->source_id, o->source_id, o->cadence_ms);
}

int plan_collect_warnings(struct plan_builder *b) {
        const struct drill_spec *s = b->spec;
        const struct plan *pl = b->plan;
        int r;

        for (size_t i = 0; i < pl->n_targets; i++)
                if (!target_runs(pl, &pl->targets[i]) &&
                    (r = pb_warn(
                             b, "%s:%u:%u: target '%s' is run by no execution step; its faults never run",
                             s->path, pl->targets[i].src->pos.line, pl->targets[i].src->pos.col,
                             pl->targets[i].src->name)) < 0)
                        return r;
        for (size_t i = 0; i < s->success.n_criteria; i++) {
                const struct drill_criterion *c = &s->success.criteria[i];
                if (!source_produced(s, c->source_id) &&
                    (r =
                             pb_warn(b,
                                     "%s:%u:%u: success criterion reads '%s', which no check or "
                                     "observability source "
                                     "produces; it will fail with 'no observation recorded'",
                                     s->path, c->pos.line, c->pos.col, c->source_id)) < 0)
                        return r;
                if ((r = warn_judged(b, c)) < 0)
                        return r;
        }
        return 0;
}
