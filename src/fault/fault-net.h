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

int fault_apply_net(struct fault_exec *fx, struct mh_error *reterr);
/* Undo, by lease id: stops what the agent holds and removes qdiscs of ours
 * from the target's netns; idempotent, and enough after the agent that
 * applied the fault died (recovery). */
int fault_net_undo(const struct fault_exec *fx, struct mh_error *reterr);
/* Only what the agent holds (tables, shaper, flap thread, guardian): the
 * undo of faults made of nftables rules alone, which die with their sockets. */
int fault_net_release(const struct fault_exec *fx);
/* 1 when something of the lease remains (or, for effect, is in force). */
int fault_net_residue(const struct fault_exec *fx, char *detail, size_t size);

/* net-rules.c */
int net_rules_apply(struct net_live *l, const struct fault_exec *fx, struct mh_error *reterr);
int net_rules_switch(struct net_live *l, bool on, struct mh_error *reterr);
