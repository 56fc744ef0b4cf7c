#include "run-resilience.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/resilience.h"

/* The engine's word for a container now: its status ("running", "paused",
 * "exited", ...), "missing" when it is gone, "unknown" when it cannot be read. */
static void container_state(struct runner *r, const char *name, char *buf, size_t size) {
        struct engine_container c;
        int x = r->opt->engine ? engine_container_inspect(r->opt->engine, name, &c, NULL) : -ENODEV;
        snprintf(
                buf, size, "%s",
                x >= 0         ? (c.paused ? "paused" : c.status)
                : x == -ENOENT ? "missing"
                               : "unknown");
}

static bool listed(const json_t *list, const char *name) {
        size_t i;
        json_t *c;
        json_array_foreach(
                list, i,
                c) if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0) return true;
        return false;
}

static void add(struct runner *r, json_t *list, const char *name, const char *service, bool targeted) {
        char state[32];
        if (listed(list, name))
                return;
        container_state(r, name, state, sizeof(state));
        json_array_append_new(
                list, json_pack(
                              "{s:s, s:s?, s:s, s:b}", "name", name, "service", service, "state", state,
                              "targeted", targeted));
}

/* A fault of the run was sent to t: in --ctr's scope and not bypassed by the
 * impact gate (neither touches the target). */
static bool faulted(struct runner *r, const struct plan_target *t) {
        if (!run_target_in_scope(r->opt, t))
                return false;
        for (size_t i = 0; i < r->plan->n_faults; i++)
                if (r->plan->faults[i].target == t && !r->bypass[i])
                        return true;
        return false;
}

/* Targeted containers first (so a replica also faulted counts as targeted),
 * then the other members of their services. */
static json_t *end_state(struct runner *r) {
        const struct topology *topo = r->plan->topology;
        json_t *list = json_array();
        for (size_t i = 0; list && i < r->plan->n_targets; i++) {
                const struct plan_target *t = &r->plan->targets[i];
                if (t->container && faulted(r, t))
                        add(r, list, t->container->name, t->service ? t->service->name : NULL, true);
        }
        for (size_t i = 0; list && topo && i < r->plan->n_targets; i++) {
                const struct topo_service *s = r->plan->targets[i].service;
                if (!r->plan->targets[i].container || !s || !faulted(r, &r->plan->targets[i]))
                        continue;
                for (size_t k = 0; k < s->replicas && s->first_container + k < topo->n_containers; k++)
                        add(r, list, topo->containers[s->first_container + k].name, s->name, false);
        }
        return list ? json_pack("{s:o}", "containers", list) : NULL;
}

void runner_resilience(struct runner *r) {
        struct run_result *res = r->result;
        struct resilience_input in;
        struct resilience_score score;
        struct mh_error e = { 0 };
        json_t *payload = end_state(r);
        if (!payload || runner_event(r, EVENT_TARGETS_FINAL_STATE, payload) < 0) {
                snprintf(
                        res->resilience, sizeof(res->resilience),
                        "not computed (the targets' end state could not be recorded)");
                return;
        }
        if (evidence_resilience_input(r->opt->evidence, r->run_id, &in, &e) < 0) {
                snprintf(res->resilience, sizeof(res->resilience), "not computed (%.300s)", e.msg);
                return;
        }
        resilience_score(&in, &score);
        resilience_line(&score, res->resilience, sizeof(res->resilience));
        res->resilience_json = resilience_score_json(&in, &score);
        char *text = res->resilience_json ? json_dumps(res->resilience_json, JSON_COMPACT | JSON_SORT_KEYS)
                                          : NULL;
        if (!text || evidence_resilience_store(r->opt->evidence, r->run_id, text, &e) < 0) {
                if (!text)
                        mh_error_set(&e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
                runner_evidence_failed(r, "the resilience score", &e);
        }
        free(text);
}
