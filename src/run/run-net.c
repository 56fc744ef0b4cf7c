/* Network faults in the runner: how each is delivered, decided from the
 * agent's kernel before the first lease (the impact gate, plan/impact.h), and
 * the lease params only the live system knows (peers' and the target's own
 * addresses). */
#include "run-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent-kernel.h"
#include "fault/net-recipe.h"
#include "plan/impact.h"

static int decide(struct runner *r, size_t i, const struct kernel_features *k, struct mh_error *reterr) {
        const struct plan_fault *f = &r->plan->faults[i];
        json_t *params = plan_fault_params_json(f->src);
        struct impact_request rq;
        impact_request_of(f, params, &rq);
        enum net_delivery d;
        char why[256];
        int x = impact_net_delivery(&rq, k, &d, why, sizeof(why));
        json_decref(params);
        if (x == -EOPNOTSUPP)
                return mh_error_set(
                        reterr, x, MH_EXIT_CONFIG_ERROR, "impact_refused", "%s %s; nothing was touched",
                        f->id, why);
        r->delivery[i] = x > 0 ? (int)d : -1;
        if (x > 0)
                runner_progress(r, "%s %s: delivered by %s", f->id, rq.fault_id, net_delivery_to_string(d));
        return 0;
}

int runner_decide_delivery(struct runner *r, struct mh_error *reterr) {
        bool any = false;
        for (size_t i = 0; i < r->plan->n_faults; i++) {
                r->delivery[i] = -1;
                any = any || net_fault_is_network(r->plan->faults[i].src->def->id);
        }
        if (!any)
                return 0;
        json_t *caps = NULL;
        int x = agent_client_call(r->agent, "capabilities.query", json_object(), 30000, &caps, reterr);
        if (x < 0)
                return x;
        struct kernel_features k;
        agent_kernel_features_from_json(json_object_get(caps, "kernel"), &k);
        json_decref(caps);
        if (!k.known)
                return mh_error_set(
                        reterr, -EOPNOTSUPP, MH_EXIT_CONFIG_ERROR, "impact_refused",
                        "the agent could not probe its kernel's network features (it needs root: "
                        "CAP_SYS_ADMIN and CAP_NET_ADMIN); nothing was touched");
        for (size_t i = 0; i < r->plan->n_faults && x >= 0; i++)
                x = decide(r, i, &k, reterr);
        return x;
}

void runner_record_delivery(struct runner *r) {
        json_t *d = json_object();
        for (size_t i = 0; d && i < r->plan->n_faults; i++)
                if (r->delivery[i] >= 0)
                        json_object_set_new(
                                d, r->plan->faults[i].id,
                                json_string(net_delivery_to_string((enum net_delivery)r->delivery[i])));
        if (json_object_size(d))
                runner_event(r, "impact.decided", d);
        else
                json_decref(d);
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

int runner_lease_params(
        struct runner *r, const struct plan_fault *f, json_t **ret, struct mh_error *reterr) {
        json_t *params = plan_fault_params_json(f->src);
        int d = r->delivery ? r->delivery[f - r->plan->faults] : -1, x = 0;
        if (params && d >= 0) {
                json_t *peers = json_array(), *self = json_array();
                for (size_t i = 0; i < f->n_peers && x >= 0; i++)
                        x = add_addresses(r, f->peers[i], peers, reterr);
                if (f->target->container)
                        add_addresses(r, f->target->container->name, self, NULL);
                json_object_set_new(params, NET_PARAM_DELIVERY, json_string(net_delivery_to_string(d)));
                json_object_set_new(params, NET_PARAM_PEERS, peers);
                json_object_set_new(params, NET_PARAM_SELF, self);
        }
        if (!params || x < 0) {
                json_decref(params);
                return params ? x
                              : mh_error_set(
                                        reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        }
        *ret = params;
        return 0;
}
