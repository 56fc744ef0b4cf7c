#pragma once

/* The impact gate: how each network fault is delivered on the kernel that
 * will run it. Decided before anything is touched, from what that kernel
 * offers (the agent's capabilities.query "kernel") and the catalog's
 * network facts of the fault; a fault no mechanism can deliver is refused
 * with the reason. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog.h"
#include "catalog/ops.h"

/* What a kernel offers network faults, as the agent reports it: the JSON
 * keys are these names (the agent writes them from its probes,
 * sys/kernel-features.h, through the same list). */
#define KERNEL_FEATURES(X) X(nft_owner) X(netem) X(tbf) X(ifb) X(xt_nfqueue) X(nft_queue) X(netdev_egress)

struct impact_kernel {
        bool known;         /* false: the agent could not probe (no privilege) */
        bool nft_owner;     /* nftables owner tables (Linux >= 5.12): rules die with our socket */
        bool netem;         /* sch_netem */
        bool tbf;           /* sch_tbf */
        bool ifb;           /* IFB devices, the ingress qdisc and u32 + mirred to redirect into them */
        bool xt_nfqueue;    /* the xt NFQUEUE target through nft_compat */
        bool nft_queue;     /* nft's own queue expression */
        bool netdev_egress; /* netdev egress hook (Linux >= 5.16) */
};

/* Anything missing or malformed reads as "not known". */
void impact_kernel_from_json(const json_t *j, struct impact_kernel *ret);

struct impact_request {
        const struct fault_def *def;
        bool scoped;           /* narrowed to peers, a port or a protocol */
        const char *direction; /* egress, ingress, both; NULL when the fault has none */
};

struct plan_fault;
/* The request for a planned fault; params is its plan_fault_params_json(),
 * which must outlive *ret (direction points into it). Scoped: peers, a port
 * or a protocol other than any. */
void impact_request_of(const struct plan_fault *f, const json_t *params, struct impact_request *ret);

/* 1 with *ret set for a network fault, 0 for any other fault, -EOPNOTSUPP
 * with why filled when this kernel offers no way to deliver it (*ret then
 * the mechanism it would need first: what --skip-gate attempts). */
int impact_net_delivery(
        const struct impact_request *rq, const struct impact_kernel *k, enum net_delivery *ret, char *why,
        size_t size);
