#include "plan.h"

static json_t *strings_json(const char *const *v, size_t n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, json_string(v[i]));
        return a;
}

static json_t *node_kinds_json(unsigned bits) {
        const char *names[_NODE_KIND_MAX];
        return strings_json(names, node_kind_names(bits, names));
}

static json_t *target_json(const struct plan_target *t) {
        if (!t->container) {
                json_t *o = json_pack(
                        "{s:s, s:s, s:s, s:o}", "name", t->src->name, "runtime", "process", "process",
                        t->label, "node_kinds", node_kinds_json(t->node_kinds));
                if (o && t->src->process_pid > 0)
                        json_object_set_new(o, "pid", json_integer(t->src->process_pid));
                if (o && t->src->process_include_containers)
                        json_object_set_new(o, "include_containers", json_true());
                return o;
        }
        return json_pack(
                "{s:s, s:s, s:s, s:s, s:o}", "name", t->src->name, "runtime",
                target_runtime_to_string(t->src->runtime), "container", t->container->name, "service",
                t->service->name, "node_kinds", node_kinds_json(t->node_kinds));
}

json_t *plan_fault_params_json(const struct drill_fault *f) {
        json_t *o = json_object();
        for (size_t i = 0; o && i < f->n_params; i++) {
                const struct drill_param *p = &f->params[i];
                if (p->given || p->defaulted)
                        json_object_set_new(o, p->spec->name, plan_json_param(&p->value));
        }
        return o;
}

/* Every op and probe acts on the fault's target; the executor adds the live
 * identity (container id, pid + start time, netns inode) to the lease. */
static json_t *ops_json(const char *key, const char *const *names, size_t n, const struct plan_fault *f) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(
                        a,
                        json_pack("{s:s, s:{s:s}}", key, names[i], "args", "container", f->target->label));
        return a;
}

static json_t *compensation_json(const struct plan_fault *f) {
        return json_pack(
                "{s:o, s:o}", "undo", ops_json("op", f->comp->undo, fault_comp_n_undo(f->comp), f), "verify",
                ops_json("probe", f->comp->verify, fault_comp_n_verify(f->comp), f));
}

static json_t *fault_json(const struct plan_fault *f) {
        const struct drill_fault *src = f->src;
        json_t *o = json_pack(
                "{s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:{s:s, s:{s:s}}, s:I}", "id",
                f->id, "fault", src->def->id, "target", f->target->src->name, "duration_ms",
                (json_int_t)src->duration_ms, "risk", risk_to_string(src->def->risk), "mechanism",
                src->def->mechanism, "on_failure", on_failure_to_string(src->on_failure), "recovery",
                src->recovery, "params", plan_fault_params_json(src), "peers",
                strings_json(f->peers, f->n_peers), "compensation", compensation_json(f), "effect_check",
                "check", f->comp->effect, "args", "container", f->target->label, "lease_ttl_s",
                (json_int_t)f->lease_ttl_s);
        if (o && src->network_path)
                json_object_set_new(o, "network_path", json_string(src->network_path));
        return o;
}

static json_t *lanes_json(const struct plan *pl, const struct plan_step *ps) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < ps->n_lanes; i++) {
                const struct plan_lane *lane = &ps->lanes[i];
                json_t *ids = json_array();
                for (size_t k = 0; ids && k < lane->n_faults; k++)
                        json_array_append_new(ids, json_string(pl->faults[lane->first_fault + k].id));
                json_array_append_new(
                        a, json_pack("{s:s, s:o}", "target", lane->target->src->name, "faults", ids));
        }
        return a;
}

static json_t *wait_json(const struct drill_step *st, json_t *o) {
        if (!st->wait_until) {
                json_object_set_new(o, "duration_ms", json_integer(st->wait_ms));
                return o;
        }
        json_object_set_new(o, "timeout_ms", json_integer(st->until_timeout_ms));
        json_object_set_new(o, "interval_ms", json_integer(st->until_interval_ms));
        if (st->until_check_id)
                json_object_set_new(o, "until_check", json_string(st->until_check_id));
        else
                json_object_set_new(o, "until_probe", plan_json_probe(&st->until_probe));
        return o;
}

static json_t *step_json(const struct plan *pl, size_t index, const struct plan_step *ps) {
        const struct drill_step *st = ps->src;
        json_t *o =
                json_pack("{s:I, s:s}", "index", (json_int_t)index, "kind", step_kind_to_string(st->kind));
        if (!o)
                return NULL;
        switch (st->kind) {
        case STEP_PARALLEL:
        case STEP_SEQUENTIAL: json_object_set_new(o, "lanes", lanes_json(pl, ps)); return o;
        case STEP_WAIT: return wait_json(st, o);
        default: {
                json_t *checks = json_array();
                for (size_t i = 0; checks && i < st->n_checks; i++)
                        json_array_append_new(checks, plan_json_check(&st->checks[i]));
                json_object_set_new(o, "checks", checks);
                return o;
        }
        }
}

json_t *plan_decisions_json(const struct plan *pl) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < pl->n_decisions; i++) {
                const struct plan_decision *d = &pl->decisions[i];
                json_array_append_new(
                        a, json_pack(
                                   "{s:s, s:s, s:s, s:s, s:s}", "rule", d->rule, "fault", d->fault_id,
                                   "outcome", d->allow ? "allow" : "deny", "reason", d->reason,
                                   "remediation", d->remediation));
        }
        return a;
}

#define ARRAY_OF(arr, n, fn)                                                                                \
        __extension__({                                                                                     \
                json_t *_a_ = json_array();                                                                 \
                for (size_t _i_ = 0; _a_ && _i_ < (n); _i_++)                                               \
                        json_array_append_new(_a_, fn(&(arr)[_i_]));                                        \
                _a_;                                                                                        \
        })

int plan_body_json(const struct plan *pl, json_t **ret) {
        const struct drill_spec *s = pl->spec;
        json_t *steps = json_array();
        for (size_t i = 0; steps && i < pl->n_steps; i++)
                json_array_append_new(steps, step_json(pl, i, &pl->steps[i]));
        json_t *o = json_pack(
                "{s:s, s:s, s:{s:s, s:s}, s:o, s:{s:s, s:I}, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "format",
                PLAN_FORMAT, "policy", pl->policy_name ? pl->policy_name : "default", "drill", "name",
                s->name, "hypothesis", s->hypothesis, "config", plan_json_config(&s->config), "topology",
                "project", pl->topology ? pl->topology->project : "", "services",
                (json_int_t)(pl->topology ? pl->topology->n_services : 0), "targets",
                ARRAY_OF(pl->targets, pl->n_targets, target_json), "faults",
                ARRAY_OF(pl->faults, pl->n_faults, fault_json), "steps", steps, "success",
                plan_json_success(&s->success), "observability", plan_json_observability(&s->observability),
                "slo", plan_json_slos(s->slos, s->n_slos), "steady_state",
                plan_json_steady_state(&s->steady_state));
        if (!o)
                return -ENOMEM;
        *ret = o;
        return 0;
}

int plan_to_json(const struct plan *pl, json_t **ret) {
        json_t *o = NULL;
        int r = plan_body_json(pl, &o);
        if (r < 0)
                return r;
        /* The gates' judgement of the plan under today's policy and damage
         * history: shown and recorded, not hashed (a run changes the history). */
        json_object_set_new(o, "decisions", plan_decisions_json(pl));
        json_object_set_new(o, "fingerprint", json_string(pl->fingerprint));
        json_object_set_new(o, "plan_id", json_string(pl->run_id));
        *ret = o;
        return 0;
}
