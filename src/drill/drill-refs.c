#include "drill.h"

#include <stdio.h>
#include <string.h>

#include "basic/strv.h"
#include "basic/suggest.h"
#include "drill-parse-internal.h"

#define KNOWN_LIST_MAX 10

struct refs {
        const struct drill_spec *spec;
        struct mh_error *reterr;
};

#define ref_fail(rf, pos, ...)                                                                              \
        __extension__({                                                                                     \
                int _r_ = mh_error_at((rf)->reterr, (rf)->spec->path, (pos).line, (pos).col, __VA_ARGS__);  \
                dp_error_oneline((rf)->reterr);                                                             \
                _r_;                                                                                        \
        })

static int unknown_target(struct refs *rf, size_t step, const struct drill_step *st, size_t i) {
        const struct drill_spec *s = rf->spec;
        const char *names[KNOWN_LIST_MAX * 10];
        char known[512];
        size_t n = MIN(s->n_targets, ELEMENTSOF(names));

        for (size_t k = 0; k < n; k++)
                names[k] = s->targets[k].name;
        const char *near = suggest_closest(st->names.v[i], names, n);
        if (near)
                return ref_fail(
                        rf, st->names.pos[i],
                        "execution[%zu].%s[%zu]: '%s' is not a declared target (did you mean '%s'?)", step,
                        step_kind_to_string(st->kind), i, st->names.v[i], near);
        strv_join(known, sizeof(known), names, n, KNOWN_LIST_MAX);
        return ref_fail(
                rf, st->names.pos[i], "execution[%zu].%s[%zu]: '%s' is not a declared target (declared: %s)",
                step, step_kind_to_string(st->kind), i, st->names.v[i], known);
}

static int check_step_names(struct refs *rf, size_t step, const struct drill_step *st) {
        for (size_t i = 0; i < st->names.n; i++) {
                if (!drill_spec_find_target(rf->spec, st->names.v[i]))
                        return unknown_target(rf, step, st, i);
                for (size_t j = 0; j < i; j++)
                        if (strcmp(st->names.v[i], st->names.v[j]) == 0)
                                return ref_fail(
                                        rf, st->names.pos[i], "execution[%zu].%s[%zu]: '%s' is listed twice",
                                        step, step_kind_to_string(st->kind), i, st->names.v[i]);
        }
        return 0;
}

/* Every id a check or an observability source defines, in document order. */
static const struct drill_check *find_check(
        const struct drill_spec *s, const char *id, const struct drill_check *before) {
        for (size_t i = 0; i < s->n_steps; i++)
                for (size_t j = 0; j < s->steps[i].n_checks; j++) {
                        const struct drill_check *c = &s->steps[i].checks[j];
                        if (c == before)
                                return NULL;
                        if (strcmp(c->id, id) == 0)
                                return c;
                }
        return NULL;
}

static int check_ids(struct refs *rf) {
        const struct drill_spec *s = rf->spec;
        for (size_t i = 0; i < s->n_steps; i++)
                for (size_t j = 0; j < s->steps[i].n_checks; j++) {
                        const struct drill_check *c = &s->steps[i].checks[j],
                                                 *prev = find_check(s, c->id, c);
                        if (prev)
                                return ref_fail(
                                        rf, c->pos,
                                        "execution[%zu]: check id '%s' is already used on line %u", i, c->id,
                                        prev->pos.line);
                }
        for (size_t i = 0; i < s->observability.n_sources; i++) {
                const struct drill_obs_source *src = &s->observability.sources[i];
                const struct drill_check *c = find_check(s, src->source_id, NULL);
                if (c)
                        return ref_fail(
                                rf, src->pos,
                                "observability.sources[%zu]: source_id '%s' is already a check id (line %u)",
                                i, src->source_id, c->pos.line);
                for (size_t j = 0; j < i; j++)
                        if (strcmp(src->source_id, s->observability.sources[j].source_id) == 0)
                                return ref_fail(
                                        rf, src->pos,
                                        "observability.sources[%zu]: source_id '%s' is already used on line "
                                        "%u",
                                        i, src->source_id, s->observability.sources[j].pos.line);
        }
        return 0;
}

static int check_waits(struct refs *rf) {
        const struct drill_spec *s = rf->spec;
        for (size_t i = 0; i < s->n_steps; i++) {
                const struct drill_step *st = &s->steps[i];
                if (st->kind == STEP_WAIT && st->until_check_id && !find_check(s, st->until_check_id, NULL))
                        return ref_fail(
                                rf, st->until_pos,
                                "execution[%zu].wait.until_check_passes: no check has id '%s'", i,
                                st->until_check_id);
        }
        return 0;
}

/* Whether id (its first len bytes) is an observability source (or, with checks, a check) of the drill. */
static bool observed_id(const struct drill_spec *s, const char *id, size_t len, bool checks) {
        for (size_t i = 0; i < s->observability.n_sources; i++) {
                const char *src = s->observability.sources[i].source_id;
                if (strlen(src) == len && strncmp(src, id, len) == 0)
                        return true;
        }
        for (size_t i = 0; checks && i < s->n_steps; i++)
                for (size_t j = 0; j < s->steps[i].n_checks; j++) {
                        const char *c = s->steps[i].checks[j].id;
                        if (strlen(c) == len && strncmp(c, id, len) == 0)
                                return true;
                }
        return false;
}

static const struct drill_ss_signal *find_signal(
        const struct drill_steady_state *ss, const char *name, size_t limit) {
        for (size_t i = 0; i < limit; i++)
                if (strcmp(ss->signals[i].name, name) == 0)
                        return &ss->signals[i];
        return NULL;
}

static int check_assert_names(struct refs *rf, size_t phase, const struct drill_names *names) {
        const struct drill_steady_state *ss = &rf->spec->steady_state;
        for (size_t i = 0; i < names->n; i++)
                if (!find_signal(ss, names->v[i], ss->n_signals))
                        return ref_fail(
                                rf, names->pos[i], "steady_state.phases[%zu]: no signal named '%s'", phase,
                                names->v[i]);
        return 0;
}

static int check_steady_state(struct refs *rf) {
        const struct drill_steady_state *ss = &rf->spec->steady_state;
        int r;
        for (size_t i = 0; i < ss->n_signals; i++) {
                const struct drill_ss_signal *prev = find_signal(ss, ss->signals[i].name, i);
                if (prev)
                        return ref_fail(
                                rf, ss->signals[i].pos,
                                "steady_state.signals[%zu]: signal '%s' is already declared on line %u", i,
                                ss->signals[i].name, prev->pos.line);
        }
        for (size_t i = 0; i < ss->n_phases; i++) {
                const struct drill_ss_phase *ph = &ss->phases[i];
                if ((r = check_assert_names(rf, i, &ph->assert_unchanged)) < 0 ||
                    (r = check_assert_names(rf, i, &ph->assert_degraded)) < 0 ||
                    (r = check_assert_names(rf, i, &ph->assert_recovered)) < 0)
                        return r;
        }
        for (size_t i = 0; i < ss->n_signals; i++) {
                const char *id = ss->signals[i].source_id, *dot = strrchr(id, '.');
                if (!observed_id(rf->spec, id, strlen(id), false) &&
                    !(dot && observed_id(rf->spec, id, (size_t)(dot - id), false)))
                        return ref_fail(
                                rf, ss->signals[i].pos,
                                "steady_state.signals[%zu]: source_id '%s' names no observability source of "
                                "the drill (nor <id>.<name> of one)",
                                i, id);
        }
        return 0;
}

/* An SLO's metric is a source or check id, or <id>.<name> of one; a
 * recovery_time reads the boolean <id> itself. */
static int check_slos(struct refs *rf) {
        const struct drill_spec *s = rf->spec;
        for (size_t i = 0; i < s->n_slos; i++) {
                const struct drill_slo *o = &s->slos[i];
                const char *dot = strrchr(o->metric, '.');
                bool whole = observed_id(s, o->metric, strlen(o->metric), true);
                if (o->kind == SLO_RECOVERY_TIME && !whole)
                        return ref_fail(
                                rf, o->metric_pos,
                                "slo[%zu]: recovery_time reads a boolean source or check; '%s' is not the "
                                "id "
                                "of one",
                                i, o->metric);
                if (!whole && !(dot && observed_id(s, o->metric, (size_t)(dot - o->metric), true)))
                        return ref_fail(
                                rf, o->metric_pos,
                                "slo[%zu]: metric '%s' names no observability source or check of the drill "
                                "(nor <id>.<name> of one)",
                                i, o->metric);
        }
        return 0;
}

int drill_spec_check(const struct drill_spec *spec, struct mh_error *reterr) {
        struct refs rf = { .spec = spec, .reterr = reterr };
        int r;

        for (size_t i = 0; i < spec->n_steps; i++)
                if ((r = check_step_names(&rf, i, &spec->steps[i])) < 0)
                        return r;
        if ((r = check_ids(&rf)) < 0 || (r = check_waits(&rf)) < 0 || (r = check_steady_state(&rf)) < 0 ||
            (r = check_slos(&rf)) < 0)
                return r;
        return 0;
}
