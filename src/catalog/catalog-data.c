#include "catalog-internal.h"

/* One entry per fault id. Names, defaults and ranges follow the reference
 * (shared/reference/mayhem-spec.md §8.1) unless shared/DESIGN.md says
 * otherwise; where we deviate, the comment says why. Keep sorted by id. */

static const char *const direction_choices[] = { "egress", "ingress", "both", NULL };

#define P_DIRECTION P_ENUM("direction", "egress", direction_choices, "which traffic: egress, ingress or both")

const struct fault_def catalog_faults[] = {
        {
                .id = "container.pause",
                .category = FAULT_CATEGORY_CONTAINER,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_ENGINE,
                .effect = "every process of the container is frozen (cgroup freezer); connections hang",
                .undo = "engine unpause",
                .verify = "engine reports the container running and not paused",
        },
        {
                .id = "net.latency",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_MS_ALIAS("delay_ms", 100, 1, 60000, "seconds", "added one-way delay in milliseconds"),
                       P_INT("jitter_ms", 0, 0, 60000, "random variation of the delay, milliseconds"),
                       P_DIRECTION),
                .effect = "packets leaving (or entering) the target are held delay_ms ± jitter_ms",
                .undo = "delete our qdisc / stop the shaper and drop its nftables table",
                .verify = "no qdisc, IFB device or nftables table of ours remains in the target's netns",
        },
};

const size_t catalog_faults_count = sizeof(catalog_faults) / sizeof(catalog_faults[0]);
