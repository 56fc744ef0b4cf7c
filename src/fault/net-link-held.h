#pragma once

/* A change to the target's device that a lease holds (net.mtu_mismatch,
 * net.interface_down): the device recorded (net-link.h), the record in the
 * lease's restore record and the agent's journal (fault_record()), a
 * guardian started (guard.h: the kernel keeps the change after the agent
 * dies), the change made, and the lease's entry in fault_lives. Undo puts
 * back what the fault changed and everything the kernel flushed with it,
 * then lets the guardian go. A mechanism keeps only its own checks. */

#include "fault/fault.h"
#include "fault/net-link.h"

/* refuse(rec, fx, reterr) says why the device as recorded must not be
 * changed (< 0), or 0. Then sets what (NET_LINK_STATE: down; NET_LINK_MTU:
 * mtu) on the lease's "device" and holds it for fx->lease_id under m. */
int net_link_hold(
        struct fault_exec *fx, const struct fault_mechanism *m, unsigned what, uint32_t mtu,
        int (*refuse)(const struct net_link *rec, const struct fault_exec *fx, struct mh_error *reterr),
        struct mh_error *reterr);

/* The undo op: what back from the lease's restore record, then the guardian
 * let go (so an agent that dies in between still leaves the device back). */
int net_link_unhold(const struct fault_exec *fx, unsigned what, struct mh_error *reterr);

/* fault_mechanism.release of what net_link_hold() put in fault_lives. */
void net_link_held_release(void *live);

/* For an effect check: the lease's "device" as it is now into *ret, and
 * whether the agent holds the lease (*ret_held). 1 read; 0 the target or
 * device is gone; < 0 could not look. detail says why not. */
int net_link_held_now(
        const struct fault_exec *fx, struct rtnl_link *ret, bool *ret_held, char *detail, size_t size);
