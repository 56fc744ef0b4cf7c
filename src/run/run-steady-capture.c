#include "run-internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steady-state.h"

/* Steady state in a run, its first half: the baseline taken from an
 * earlier run (--baseline-from) and the captures of each phase's samples;
 * run-steady.c judges them. */

#define SERIES_MAX 256

int runner_steady_prepare(struct runner *r, struct mh_error *reterr) {
        const struct drill_steady_state *ss = &r->plan->spec->steady_state;
        const char *from = r->opt->baseline_from;
        if (!from || !ss->present)
                return 0;
        if (!(r->ss_given_b = calloc(ss->n_signals ? ss->n_signals : 1, sizeof(double))))
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        for (size_t i = 0; i < ss->n_signals; i++) {
                struct mh_error e = { 0 };
                int x = evidence_ss_baseline_get(
                        r->opt->evidence, from, ss->signals[i].name, &r->ss_given_b[i], &e);
                if (x < 0)
                        return mh_error_set(
                                reterr, x, MH_EXIT_CONFIG_ERROR, "baseline_from",
                                "--baseline-from %s: %s; nothing was touched", from, e.msg);
                if (x == 0 || !isfinite(r->ss_given_b[i]))
                        return mh_error_set(
                                reterr, -ENOENT, MH_EXIT_CONFIG_ERROR, "baseline_from",
                                "--baseline-from %s: that run recorded no baseline for signal '%s'; nothing "
                                "was touched",
                                from, ss->signals[i].name);
        }
        return 0;
}

/* The observability source a series comes from: "<id>" or "<id>.<name>". */
static const struct drill_obs_source *source_of(const struct drill_spec *spec, const char *series) {
        for (size_t i = 0; i < spec->observability.n_sources; i++) {
                const struct drill_obs_source *o = &spec->observability.sources[i];
                size_t len = strlen(o->source_id);
                if (strncmp(series, o->source_id, len) == 0 && (series[len] == '\0' || series[len] == '.'))
                        return o;
        }
        return NULL;
}

static void sample_source(struct runner *r, const struct drill_obs_source *s) {
        struct probe_result pr;
        struct drill_probe metric = { .type = PROBE_METRIC,
                                      .endpoint = s->endpoint,
                                      .query = s->metric,
                                      .timeout_ms = s->timeout_ms };
        const struct drill_probe *p = s->kind == OBS_PROBE     ? &s->probe
                                      : s->kind == OBS_METRICS ? &metric
                                                               : NULL;
        if (!p)
                return; /* inspection, logs: no capture (the signal is then insufficient) */
        probe_run(p, &pr);
        runner_observe_probe(r, s->source_id, p, &pr);
}

/* Whether source s backs a signal (and no earlier source index did the same). */
static bool backs_signal(const struct drill_spec *spec, const struct drill_obs_source *s) {
        char series[SERIES_MAX];
        for (size_t i = 0; i < spec->steady_state.n_signals; i++) {
                ss_series_of(&spec->steady_state.signals[i], series, sizeof(series));
                if (source_of(spec, series) == s)
                        return true;
        }
        return false;
}

void runner_steady_capture(struct runner *r, enum ss_phase phase) {
        const struct drill_spec *spec = r->plan->spec;
        const struct drill_steady_state *ss = &spec->steady_state;
        bool wanted = phase == SS_PHASE_PRE;
        for (size_t i = 0; i < ss->n_phases; i++)
                wanted = wanted || ss->phases[i].phase == phase;
        if (!ss->present || !wanted || runner_stopping(r))
                return;
        double start = monotonic_ms(), spacing = (double)ss->window_ms / (double)ss->samples;
        size_t *from = phase == SS_PHASE_PRE ? &r->ss_pre_from : &r->ss_post_from;
        size_t *to = phase == SS_PHASE_PRE ? &r->ss_pre_to : &r->ss_post_to;
        runner_progress(
                r, "steady state: capturing %s (%" PRId64 " samples over %.1fs)", ss_phase_to_string(phase),
                ss->samples, (double)ss->window_ms / 1000);
        pthread_mutex_lock(&r->lock);
        *from = r->n_obs;
        pthread_mutex_unlock(&r->lock);
        for (int64_t k = 0; k < ss->samples; k++) {
                double due = start + (double)k * spacing;
                if (due > monotonic_ms() && !runner_sleep(r, due - monotonic_ms()))
                        break;
                for (size_t i = 0; i < spec->observability.n_sources; i++)
                        if (backs_signal(spec, &spec->observability.sources[i]))
                                sample_source(r, &spec->observability.sources[i]);
        }
        pthread_mutex_lock(&r->lock);
        *to = r->n_obs;
        pthread_mutex_unlock(&r->lock);
        r->ss_post_taken = r->ss_post_taken || phase == SS_PHASE_POST;
}
