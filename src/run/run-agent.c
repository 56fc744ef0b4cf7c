/* What the agent says, before any lease and for each one: whether it can
 * apply the plan's faults on this engine (capabilities.query: its faults,
 * what it cannot do here and why, its kernel), how each network fault is
 * delivered on that kernel (the impact gate, plan/impact.h), the targets'
 * identities as it reads them, and the lease context only the live system
 * knows (peers' and the target's own addresses). The controller keeps no
 * table of fault ids of its own: all of it comes from the catalog and the
 * agent. */
#include "run-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/impact.h"

#define CAPS_CALL_MS    30000
#define RESOLVE_CALL_MS 15000

static bool listed(const json_t *a, const char *id) {
        size_t i;
        const json_t *v;
        json_array_foreach(
                a, i, v) if (json_is_string(v) && strcmp(json_string_value(v), id) == 0) return true;
        return false;
}

static bool in_scope(const struct runner *r, const struct plan_fault *f) {
        return run_target_in_scope(r->opt, f->target);
}

static int set_bypass(struct runner *r, size_t i, const char *why) {
        if (!(r->bypass[i] = strdup(why)))
                return -ENOMEM;
        return 0;
}

/* Every planned fault is one the agent applies; one it cannot apply on this
 * engine (a rootless engine's cgroups) is bypassed with the agent's reason,
 * as the reference bypasses a step whose tooling is proven absent, unless
 * --skip-gate asks for the attempt. */
static int check_support(struct runner *r, const json_t *caps, struct mh_error *reterr) {
        const json_t *faults = json_object_get(caps, "faults"),
                     *unavailable = json_object_get(caps, "unavailable");
        for (size_t i = 0; i < r->plan->n_faults; i++) {
                const struct plan_fault *f = &r->plan->faults[i];
                const char *id = f->src->def->id, *why = json_string_value(json_object_get(unavailable, id));
                if (!in_scope(r, f))
                        continue;
                if (!listed(faults, id) && !why)
                        return mh_error_set(
                                reterr, -EOPNOTSUPP, MH_EXIT_VALIDATION_ERROR, "not_implemented",
                                "%s %s: the agent plans the fault but cannot inject it in this "
                                "version; nothing was touched",
                                f->id, id);
                if (why && !r->opt->skip_gate && set_bypass(r, i, why) < 0)
                        return mh_error_set(
                                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
                if (why && r->opt->skip_gate)
                        runner_progress(r, "  [break-glass] %s %s: attempted although %s", f->id, id, why);
        }
        return 0;
}

static bool is_network(const struct plan_fault *f) {
        return f->src->def->net.action != NET_ACTION_NONE;
}

enum impact_step runner_impact_decide(
        const struct impact_request *rq, const struct impact_kernel *k, bool skip_gate,
        enum net_delivery *ret, char *why, size_t size) {
        int x = impact_net_delivery(rq, k, ret, why, size);
        if (x == 0)
                return IMPACT_STEP_NONE;
        if (x > 0)
                return IMPACT_STEP_DELIVER;
        return skip_gate ? IMPACT_STEP_FORCE : IMPACT_STEP_BYPASS;
}

static int decide(struct runner *r, size_t i, const struct impact_kernel *k, struct mh_error *reterr) {
        const struct plan_fault *f = &r->plan->faults[i];
        json_t *params = plan_fault_params_json(f->src);
        struct impact_request rq;
        impact_request_of(f, params, &rq);
        enum net_delivery d = NET_DELIVERY_NFT;
        char why[256] = "";
        enum impact_step step = runner_impact_decide(&rq, k, r->opt->skip_gate, &d, why, sizeof(why));
        json_decref(params);
        r->delivery[i] = step == IMPACT_STEP_DELIVER || step == IMPACT_STEP_FORCE ? (int)d : -1;
        switch (step) {
        case IMPACT_STEP_DELIVER:
                runner_progress(
                        r, "%s %s: delivered by %s", f->id, f->src->def->id, net_delivery_to_string(d));
                break;
        case IMPACT_STEP_FORCE:
                runner_progress(
                        r, "  [break-glass] %s %s: attempted by %s although %s", f->id, f->src->def->id,
                        net_delivery_to_string(d), why);
                break;
        case IMPACT_STEP_BYPASS:
                if (set_bypass(r, i, why) < 0)
                        return mh_error_set(
                                reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
                break;
        default: break;
        }
        return 0;
}

static int decide_delivery(struct runner *r, const json_t *caps, struct mh_error *reterr) {
        struct impact_kernel k;
        bool any = false;
        int x = 0;
        for (size_t i = 0; i < r->plan->n_faults; i++) {
                r->delivery[i] = -1;
                any = any ||
                      (is_network(&r->plan->faults[i]) && in_scope(r, &r->plan->faults[i]) && !r->bypass[i]);
        }
        if (!any)
                return 0;
        impact_kernel_from_json(json_object_get(caps, "kernel"), &k);
        if (!k.known)
                return mh_error_set(
                        reterr, -EOPNOTSUPP, MH_EXIT_CONFIG_ERROR, "impact_refused",
                        "the agent could not probe its kernel's network features (it needs root: "
                        "CAP_SYS_ADMIN and CAP_NET_ADMIN); nothing was touched");
        for (size_t i = 0; i < r->plan->n_faults && x >= 0; i++)
                if (in_scope(r, &r->plan->faults[i]) && !r->bypass[i])
                        x = decide(r, i, &k, reterr);
        return x;
}

int runner_check_agent(struct runner *r, struct mh_error *reterr) {
        json_t *caps = NULL, *params = json_object();
        if (params && r->engine_kind)
                json_object_set_new(params, "engine", json_string(r->engine_kind));
        int x = agent_client_call(r->agent, "capabilities.query", params, CAPS_CALL_MS, &caps, reterr);
        if (x >= 0 && (x = check_support(r, caps, reterr)) >= 0)
                x = decide_delivery(r, caps, reterr);
        json_decref(caps);
        return x;
}

void runner_record_delivery(struct runner *r) {
        json_t *d = json_object();
        for (size_t i = 0; d && i < r->plan->n_faults; i++)
                if (r->bypass[i])
                        json_object_set_new(
                                d, r->plan->faults[i].id,
                                json_pack("{s:b, s:s}", "bypassed", 1, "reason", r->bypass[i]));
                else if (r->delivery[i] >= 0)
                        json_object_set_new(
                                d, r->plan->faults[i].id,
                                json_string(net_delivery_to_string((enum net_delivery)r->delivery[i])));
        if (json_object_size(d))
                runner_event(r, EVENT_IMPACT_DECIDED, d);
        else
                json_decref(d);
}

json_t *runner_target_request(struct runner *r, const struct plan_target *t) {
        const struct drill_target *src = t->src;
        if (src->runtime != TARGET_RUNTIME_PROCESS)
                return json_pack(
                        "{s:s, s:s}", "engine", r->engine_kind ? r->engine_kind : "docker", "container",
                        t->container->name);
        if (src->process_pid > 0)
                return json_pack("{s:s, s:I}", "engine", "host", "pid", (json_int_t)src->process_pid);
        return json_pack(
                "{s:s, s:s, s:b}", "engine", "host", "name", src->process_name, "include_containers",
                src->process_include_containers);
}

int runner_resolve(struct runner *r, const struct plan_target *t, json_t **ret, struct mh_error *reterr) {
        json_t *res = NULL;
        int x = agent_client_call(
                r->agent, "target.resolve", json_pack("{s:o}", "target", runner_target_request(r, t)),
                RESOLVE_CALL_MS, &res, reterr);
        json_t *identity = json_object_get(res, "identity");
        if (x >= 0 && !json_is_object(identity))
                x = mh_error_set(
                        reterr, -EPROTO, MH_EXIT_AGENT_ERROR, "agent_error",
                        "target.resolve: the agent sent no identity");
        if (x >= 0)
                *ret = json_incref(identity);
        else
                mh_error_prefix(reterr, "target '%s': ", t->src->name);
        json_decref(res);
        return x;
}

/* The container's addresses on its networks, now; -ENOENT when it has none
 * (a peer without an address cannot be matched, and no peer must never
 * widen a scoped fault to everyone). */
static int add_addresses(struct runner *r, const char *container, json_t *list, struct mh_error *reterr) {
        struct engine_container c;
        size_t before = json_array_size(list);
        int x = r->opt->engine ? engine_container_inspect(r->opt->engine, container, &c, reterr) : -ENOENT;
        for (size_t i = 0; x >= 0 && i < c.n_networks; i++)
                if (c.networks[i].ip[0])
                        json_array_append_new(list, json_string(c.networks[i].ip));
        if (x >= 0 && json_array_size(list) == before)
                x = mh_error_set(
                        reterr, -ENOENT, MH_EXIT_EXPERIMENT_FAILURE, "no_address",
                        "container %s has no IP address to scope the fault to", container);
        return x;
}

int runner_lease_net(struct runner *r, const struct plan_fault *f, json_t **ret, struct mh_error *reterr) {
        int d = r->delivery ? r->delivery[f - r->plan->faults] : -1, x = 0;
        *ret = NULL;
        if (d < 0)
                return 0;
        json_t *peers = json_array(), *self = json_array();
        for (size_t i = 0; i < f->n_peers && x >= 0; i++)
                x = add_addresses(r, f->peers[i], peers, reterr);
        if (f->target->container)
                add_addresses(r, f->target->container->name, self, NULL);
        json_t *net = json_pack(
                "{s:s, s:o, s:o}", "delivery", net_delivery_to_string(d), "peers", peers, "self", self);
        if (!net || x < 0) {
                json_decref(net);
                return net ? x
                           : mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        }
        *ret = net;
        return 0;
}
