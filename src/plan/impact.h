#pragma once

/* The impact gate: how each network fault is delivered on the kernel that
 * will run it. Decided before anything is touched, from what that kernel
 * offers (sys/kernel-features.h); a fault no mechanism can deliver is refused
 * with the reason. */

#include <stdbool.h>
#include <jansson.h>
#include <stddef.h>

#include "catalog/ops.h"
#include "sys/kernel-features.h"

struct impact_request {
        const char *fault_id;
        bool scoped;           /* narrowed to peers, a port or a protocol */
        const char *direction; /* egress, ingress, both; NULL when the fault has none */
};

struct plan_fault;
/* The request for a planned fault; params is its plan_fault_params_json(),
 * which must outlive *ret (direction points into it). Scoped: peers, a port
 * or a protocol other than any. */
void impact_request_of(const struct plan_fault *f, const json_t *params, struct impact_request *ret);

/* 1 with *ret set for a network fault, 0 for any other fault, -EOPNOTSUPP
 * with why filled when this kernel offers no way to deliver it. */
int impact_net_delivery(
        const struct impact_request *rq, const struct kernel_features *k, enum net_delivery *ret, char *why,
        size_t size);
