#pragma once

/* Network faults, applied from the agent inside the target's network
 * namespace with nothing inside the target: nftables owner tables (rules die
 * with the agent's sockets), the NFQUEUE shaper (traffic bypasses it the
 * moment the agent dies) and qdiscs over rtnetlink (a guardian process
 * removes them when the agent dies). How each fault is delivered was decided
 * by the impact gate and travels in the lease (net-recipe.h). */

#include "fault/fault.h"
#include "fault/net-live.h"

/* The guardian of a qdisc fault: a process that outlives the agent (its own
 * session, no death signal), holds a pipe from it, and when the pipe closes
 * without "release" removes the lease's qdiscs and IFB device. The agent runs
 * itself as `EXE guard --pid PID --start TICKS --lease ID`: mayhem-agent sets
 * "/proc/self/exe", tests the built agent. Unset (any other program), qdisc
 * faults are refused. */
void fault_net_guard_exe_set(const char *exe);
/* The guardian's body (mayhem-agent guard): waits for stdin to close. */
int fault_net_guard_run(const struct proc_identity *target, const char *lease_id, struct mh_error *reterr);

/* net-rules.c */
int net_rules_apply(struct net_live *l, struct mh_error *reterr);
int net_rules_switch(struct net_live *l, bool on, struct mh_error *reterr);
