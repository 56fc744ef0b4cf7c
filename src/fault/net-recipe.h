#pragma once

/* What a network fault does, worked out from its lease alone (the catalog's
 * network facts of the fault, its typed params, the delivery the impact gate
 * chose, the peers' addresses the runner resolved) before anything is
 * touched: the nftables rules to add, the shaper's config, the qdisc to
 * attach. No I/O here, so the unit tests can walk every fault.
 *
 * Directions: egress is what the target sends (the output hook), ingress
 * what it receives (the input hook). A fault "to port P" matches dport P on
 * egress and on ingress; a fault scoped to "traffic to or from port P" (the
 * port param of the shaping faults) matches dport or sport P, two rules. Peers
 * narrow egress by destination and ingress by source.
 *
 * Which side a fault without a direction param acts on is the catalog's
 * net.side: ingress for faults on a port the target serves (its clients are
 * refused, reset, slowed), egress for faults on its calls to a port. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/error.h"
#include "catalog/ops.h"
#include "fault/fault.h"
#include "shaper/shaper.h"
#include "sys/nft-rule.h"

#define NET_RULES_MAX 16
/* The mark of the agent's own control probes (net-effect-*.c): egress drop
 * rules let a packet with it pass, so an effect check can tell "the fault
 * drops it" from "nobody answers anyway". */
#define NET_PROBE_MARK 0x6d680002u
/* The local port of the agent's control DNS query: rules on answers
 * (catalog net.answers) let what comes back to it pass. */
#define NET_PROBE_PORT 27053

struct net_rule {
        bool ingress; /* input hook (else output) */
        struct nft_rule_spec spec;
};

struct net_recipe {
        enum net_delivery delivery;
        unsigned dirs; /* NET_SIDE_* (catalog.h) */
        bool scoped;   /* peers, port or protocol narrow it: qdiscs cannot, rules must */

        /* NFT: the rules; SHAPER: the queue rules feeding the shaper (action
         * QUEUE, queue.num left 0 for the agent to fill). */
        struct net_rule rules[NET_RULES_MAX];
        size_t n_rules;
        bool dup_ingress_self; /* ingress duplicate: dup to the target's own address */
        bool dup_egress;       /* egress duplicate: netdev egress dup to the device */
        unsigned dup_probability;

        /* dependency.flap: the rules are switched on for a share of each period. */
        int64_t flap_interval_ms;
        double flap_probability; /* percent of periods the dependency is down */

        struct shaper_config shaper; /* SHAPER */

        /* TBF and NETEM: one qdisc per device (and on an IFB for ingress). */
        uint64_t rate_bytes_per_s;
        uint32_t burst_bytes;
        double netem_loss, netem_duplicate, netem_corrupt, netem_reorder;
        uint32_t netem_delay_ms, netem_jitter_ms;
};

/* -EINVAL with the reason when the lease cannot be delivered: no delivery,
 * a port-bound fault without a port, not a network fault. The recipe's peer
 * addresses point into net: keep it while the recipe is used. */
int net_recipe_build(
        const struct fault_exec *fx, const struct fault_net *net, struct net_recipe *ret,
        struct mh_error *reterr);
