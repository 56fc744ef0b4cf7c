#include "run-internal.h"

#include <stdio.h>
#include <string.h>

static const char *const obs_kind_names[] = {
        [OBS_VALUE_BOOLEAN] = "boolean", [OBS_VALUE_STATUS] = "status", [OBS_VALUE_COUNT] = "count",
        [OBS_VALUE_LATENCY] = "latency", [OBS_VALUE_METRIC] = "metric",
};

/* Keeps the observation for the criteria and writes it to the evidence
 * store; not once a write failed (the run is undoing, and a locked store
 * would hold every call on the handle for its busy timeout). */
void runner_observe_at(
        struct runner *r, double began_ms, const char *source, enum obs_kind_value kind, double value,
        const char *detail) {
        json_t *data = json_pack("{s:f, s:s}", "value", value, "detail", detail ? detail : "");
        char *text = data ? json_dumps(data, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        struct mh_error e = { 0 };
        if (!runner_evidence_lost(r) &&
            evidence_observation(
                    r->opt->evidence, r->run_id, obs_kind_names[kind], source, text ? text : "{}", &e) < 0)
                runner_evidence_failed(r, "an observation", &e);
        free(text);
        json_decref(data);

        char *copy = strdup(source);
        pthread_mutex_lock(&r->lock);
        if (copy && r->n_obs == r->obs_cap) {
                size_t cap = r->obs_cap ? r->obs_cap * 2 : 64;
                struct observation *p = realloc(r->obs, cap * sizeof(*p));
                if (p) {
                        r->obs = p;
                        r->obs_cap = cap;
                }
        }
        if (copy && r->n_obs < r->obs_cap) {
                /* stamped under the lock: the list stays in time order */
                double now = monotonic_ms();
                r->obs[r->n_obs++] = (struct observation){ .source = copy,
                                                           .kind = kind,
                                                           .value = value,
                                                           .began_ms = MIN(began_ms, now),
                                                           .t_ms = now };
                copy = NULL;
        }
        pthread_mutex_unlock(&r->lock);
        free(copy);
}

void runner_observe(
        struct runner *r, const char *source, enum obs_kind_value kind, double value, const char *detail) {
        runner_observe_at(r, monotonic_ms(), source, kind, value, detail);
}

/* The latest sample of source is one its probe failed to measure. */
static void mark_error(struct runner *r, const char *source) {
        pthread_mutex_lock(&r->lock);
        for (size_t i = r->n_obs; i-- > 0;)
                if (strcmp(r->obs[i].source, source) == 0) {
                        r->obs[i].error = true;
                        break;
                }
        pthread_mutex_unlock(&r->lock);
}

/* A latency of no reply (an http probe that timed out or could not
 * connect, a tcp probe that could not connect, a metric not found) measured
 * nothing: an SLO on it says "observation unavailable (error)". */
static bool latency_unmeasured(const struct drill_probe *p, const struct probe_result *pr) {
        return !pr->ok && ((p->type == PROBE_HTTP && pr->status <= 0) || p->type == PROBE_TCP ||
                           (p->type == PROBE_METRIC && !pr->has_value));
}

/* A probe yields "<id>" (passed?), "<id>.latency_ms" and, for http, "<id>.status". */
void runner_observe_probe(
        struct runner *r, const char *id, const struct drill_probe *p, const struct probe_result *pr) {
        char name[256];
        double began = monotonic_ms() - pr->latency_ms; /* the probe's latency is how long it ran */
        runner_observe_at(r, began, id, OBS_VALUE_BOOLEAN, pr->ok, pr->detail);
        runner_probe_sampled(r, id, pr);
        snprintf(name, sizeof(name), "%s.latency_ms", id);
        runner_observe_at(r, began, name, OBS_VALUE_LATENCY, pr->latency_ms, NULL);
        if (latency_unmeasured(p, pr))
                mark_error(r, name);
        if (p->type == PROBE_HTTP && pr->status > 0) {
                snprintf(name, sizeof(name), "%s.status", id);
                runner_observe_at(r, began, name, OBS_VALUE_STATUS, (double)pr->status, NULL);
        }
        if (p->type == PROBE_METRIC && pr->has_value) {
                snprintf(name, sizeof(name), "%s.value", id);
                runner_observe_at(r, began, name, OBS_VALUE_METRIC, pr->value, NULL);
        }
}

const struct observation *runner_latest(struct runner *r, const char *source) {
        for (size_t i = r->n_obs; i-- > 0;)
                if (strcmp(r->obs[i].source, source) == 0)
                        return &r->obs[i];
        return NULL;
}

static void observe_inspection(struct runner *r, const struct drill_obs_source *s) {
        struct engine_container c;
        struct mh_error e = { 0 };
        char detail[300];
        double began = monotonic_ms();
        bool ok = r->opt->engine && engine_container_inspect(r->opt->engine, s->container, &c, &e) >= 0;
        if (!r->opt->engine)
                snprintf(e.msg, sizeof(e.msg), "no engine");
        if (ok)
                snprintf(detail, sizeof(detail), "%s is %s", c.name, c.status);
        runner_observe_at(
                r, began, s->source_id, OBS_VALUE_BOOLEAN, ok && c.running && !c.paused,
                ok ? detail : e.msg);
}

static void observe_source(struct runner *r, const struct drill_obs_source *s) {
        struct probe_result pr;
        struct drill_probe metric = { .type = PROBE_METRIC,
                                      .endpoint = s->endpoint,
                                      .query = s->metric,
                                      .timeout_ms = s->timeout_ms };
        switch (s->kind) {
        case OBS_PROBE:
                probe_run(&s->probe, &pr);
                runner_observe_probe(r, s->source_id, &s->probe, &pr);
                break;
        case OBS_METRICS:
                probe_run(&metric, &pr);
                runner_observe_probe(r, s->source_id, &metric, &pr);
                break;
        case OBS_INSPECTION: observe_inspection(r, s); break;
        default: break; /* logs: once, after the steps (run-logs.c) */
        }
}

static bool observer_done(struct runner *r) {
        pthread_mutex_lock(&r->lock);
        bool done = r->observer_done;
        pthread_mutex_unlock(&r->lock);
        return done;
}

/* Each source's schedule, into the evidence (one event per source) and the
 * run's totals. */
static void record_schedules(struct runner *r, const struct cadence *cad) {
        const struct drill_observability *o = &r->plan->spec->observability;
        struct run_result *res = r->result;
        for (size_t i = 0; i < o->n_sources; i++) {
                if (o->sources[i].kind == OBS_LOGS)
                        continue; /* its own event, after the steps (run-logs.c) */
                runner_event(
                        r, EVENT_OBSERVABILITY_COLLECTED,
                        json_pack(
                                "{s:s, s:I, s:I, s:I, s:I}", "source", o->sources[i].source_id, "cadence_ms",
                                (json_int_t)o->sources[i].cadence_ms, "samples", (json_int_t)cad[i].samples,
                                "late", (json_int_t)cad[i].late, "skipped", (json_int_t)cad[i].skipped));
                pthread_mutex_lock(&r->lock);
                res->samples += cad[i].samples;
                res->samples_late += cad[i].late;
                res->samples_skipped += cad[i].skipped;
                pthread_mutex_unlock(&r->lock);
        }
}

/* Every source at the observer's start, then each repeating source on its
 * schedule (cadence.c) until the run's steps are over. Failures are notes,
 * never fatal. */
static void *observer(void *arg) {
        struct runner *r = arg;
        const struct drill_observability *o = &r->plan->spec->observability;
        struct cadence *cad = calloc(o->n_sources ? o->n_sources : 1, sizeof(*cad));
        double start = monotonic_ms();
        for (size_t i = 0; cad && i < o->n_sources; i++)
                cadence_init(&cad[i], start, (double)o->sources[i].cadence_ms);
        while (cad && !observer_done(r)) {
                double soonest = monotonic_ms() + 200;
                for (size_t i = 0; i < o->n_sources && !observer_done(r); i++) {
                        if (o->sources[i].kind == OBS_LOGS || !cadence_begin(&cad[i], monotonic_ms()))
                                continue;
                        observe_source(r, &o->sources[i]);
                        cadence_end(&cad[i], monotonic_ms());
                }
                for (size_t i = 0; i < o->n_sources; i++)
                        if (o->sources[i].kind != OBS_LOGS)
                                soonest = MIN(soonest, cadence_due_ms(&cad[i]));
                pthread_mutex_lock(&r->lock);
                if (!r->observer_done)
                        runner_wait_locked(r, soonest);
                pthread_mutex_unlock(&r->lock);
        }
        if (cad)
                record_schedules(r, cad);
        free(cad);
        return NULL;
}

int runner_observer_start(struct runner *r, pthread_t *ret) {
        return -pthread_create(ret, NULL, observer, r);
}

void runner_observer_stop(struct runner *r, pthread_t thread) {
        pthread_mutex_lock(&r->lock);
        r->observer_done = true;
        pthread_cond_broadcast(&r->wake);
        pthread_mutex_unlock(&r->lock);
        pthread_join(thread, NULL);
}
