#pragma once

/* A device of the target's network namespace as a fault that changes it
 * found it: up or down, its MTU, its addresses and the routes through it.
 * The kernel flushes a device's IPv6 addresses and every route through it
 * when the device goes down, and its IPv6 addresses and routes when its MTU
 * drops below 1280 (docs/internals/rtnetlink.md); going up or back above
 * brings back only what the kernel derives itself. So the faults that do
 * either (net.interface_down, net.mtu_mismatch) record the device first, put
 * back what it lacks afterwards, and verify that nothing recorded is missing.
 *
 * The record travels in the lease's restore record (to the controller's
 * journal, the guardian and recovery) as JSON; net_link_from_json() reads
 * it back from there and refuses anything out of shape. Not kept: multipath
 * and nexthop-object routes (counted in skipped) and the per-device IPv6
 * sysctls the kernel resets with the MTU. */

#include <jansson.h>

#include "basic/error.h"
#include "sys/rtnl.h"

#define NET_LINK_ADDRS_MAX  32
#define NET_LINK_ROUTES_MAX 64

struct net_link {
        struct rtnl_link link;
        struct rtnl_addr addrs[NET_LINK_ADDRS_MAX];
        size_t n_addrs;
        struct rtnl_route routes[NET_LINK_ROUTES_MAX];
        size_t n_routes;
        size_t skipped; /* routes through it that cannot be recorded */
};

/* In the namespace of rt: device as it is now. -ENODEV without it,
 * -ENOBUFS with more addresses or routes than a record holds. */
int net_link_read(struct rtnl *rt, const char *device, struct net_link *ret, struct mh_error *reterr);

/* Adds back every recorded address, then every recorded route, that the
 * device lacks (EEXIST: still there), on the device of that name now. Tries
 * them all; the first failure is returned. */
int net_link_restore(struct rtnl *rt, const struct net_link *rec, struct mh_error *reterr);

/* How many recorded addresses and routes the device lacks now (detail
 * names the first), or < 0 when it cannot look. */
int net_link_missing(
        struct rtnl *rt, const struct net_link *rec, char *detail, size_t size, struct mh_error *reterr);

/* ---- in the target's network namespace (a thread of ours, sys/ns.h) ---- */

#include "sys/process.h"

/* What a fault changes on the device, and what its undo puts back. */
enum net_link_what {
        NET_LINK_STATE = 1u << 0, /* up or down */
        NET_LINK_MTU = 1u << 1,
};

/* The device as it is now, into *ret (a record). -ESRCH: the target is gone. */
int net_link_record(
        const struct proc_identity *target, const char *device, struct net_link *ret,
        struct mh_error *reterr);
/* Sets what says of the device: down (NET_LINK_STATE) and/or mtu. */
int net_link_change(
        const struct proc_identity *target, const char *device, unsigned what, uint32_t mtu,
        struct mh_error *reterr);
/* Puts back what of rec says (its up state, its MTU), then every recorded
 * address and route the device lacks. A target or device that is gone took
 * it all with it: 0. */
int net_link_put_back(
        const struct proc_identity *target, const struct net_link *rec, unsigned what,
        struct mh_error *reterr);
/* The device now into *ret_now, and how many of rec's addresses and routes
 * it lacks into *ret_missing (detail says what was seen). -ESRCH / -ENODEV
 * when the target or the device is gone. */
int net_link_look(
        const struct proc_identity *target, const struct net_link *rec, struct rtnl_link *ret_now,
        int *ret_missing, char *detail, size_t size, struct mh_error *reterr);

/* A fault's verify: *ret_ok when the device has back what of rec says (its
 * up state, its MTU) and lacks none of rec's addresses and routes; a target
 * or device that is gone counts as back, since it took everything with it.
 * A restore record with no device (the fault was never applied) is back too. */
int net_link_verify(
        const struct proc_identity *target, const json_t *restore, unsigned what, bool *ret_ok, char *detail,
        size_t size);

/* {"device", "up", "mtu", "addrs": [...], "routes": [...], "skipped"}. A new reference, NULL on ENOMEM. */
json_t *net_link_json(const struct net_link *rec);
/* -EINVAL (reterr says which field) for anything out of shape: a family
 * that is not 4 or 6, an address that does not parse, a prefix too long, a
 * number out of its field's range, more entries than a record holds. */
int net_link_from_json(const json_t *j, struct net_link *ret, struct mh_error *reterr);
