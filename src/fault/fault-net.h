#pragma once

/* Network faults, applied from the agent inside the target's network
 * namespace with nothing inside the target: nftables owner tables (rules die
 * with the agent's sockets), the NFQUEUE shaper (traffic bypasses it the
 * moment the agent dies) and qdiscs over rtnetlink (a guardian process,
 * fault/guard.h, removes them when the agent dies). How each fault is delivered was decided
 * by the impact gate and travels in the lease (net-recipe.h). */

#include "fault/fault.h"
#include "fault/net-live.h"

/* net-rules.c */
int net_rules_apply(struct net_live *l, struct mh_error *reterr);
int net_rules_switch(struct net_live *l, bool on, struct mh_error *reterr);
