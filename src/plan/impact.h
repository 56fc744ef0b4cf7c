#pragma once

/* The impact gate: how each network fault is delivered on the kernel that
 * will run it. Decided before anything is touched, from what that kernel
 * offers (sys/kernel-features.h); a fault no mechanism can deliver is refused
 * with the reason. */

#include <stdbool.h>
#include <stddef.h>

#include "catalog/ops.h"
#include "sys/kernel-features.h"

struct impact_request {
        const char *fault_id;
        bool scoped;           /* narrowed to peers, a port or a protocol */
        const char *direction; /* egress, ingress, both; NULL when the fault has none */
};

/* 1 with *ret set for a network fault, 0 for any other fault, -EOPNOTSUPP
 * with why filled when this kernel offers no way to deliver it. */
int impact_net_delivery(
        const struct impact_request *rq, const struct kernel_features *k, enum net_delivery *ret, char *why,
        size_t size);
