#include "fault.h"

#include <inttypes.h>
#include <stdio.h>

#include "fault/net-link-held.h"

/* net.mtu_mismatch: the MTU of the target's device set to the given value
 * over rtnetlink, from a thread of the agent in the target's network
 * namespace, held as net-link-held.h says: the device recorded first (the
 * kernel flushes its IPv6 addresses and routes below an MTU of 1280), a
 * guardian holding the undo, which sets the recorded MTU back and adds back
 * what the device lacks. An MTU that would change nothing is refused. */

extern const struct fault_mechanism fault_link_mtu;

static int refuse_same(const struct net_link *rec, const struct fault_exec *fx, struct mh_error *reterr) {
        if (rec->link.mtu != (uint32_t)fault_param(fx, "mtu")->i)
                return 0;
        return mh_error_fail(
                reterr, -EALREADY, "mtu",
                "device %s of %s has MTU %" PRIu32 " already: the fault would change nothing",
                rec->link.name, fx->target.container_name, rec->link.mtu);
}

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        return net_link_hold(
                fx, &fault_link_mtu, NET_LINK_MTU, (uint32_t)fault_param(fx, "mtu")->i, refuse_same, reterr);
}

static int undo_restore(const struct fault_exec *fx, struct mh_error *reterr) {
        return net_link_unhold(fx, NET_LINK_MTU, reterr);
}

static int look_restored(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return net_link_verify(&fx->target.main, fx->restore, NET_LINK_MTU, ret, detail, size);
}

/* In force: the device has the fault's MTU and the agent holds the lease that set it. */
static int look_set(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct rtnl_link now;
        bool held;
        int r = net_link_held_now(fx, &now, &held, detail, size);
        *ret = r > 0 && held && now.mtu == (uint32_t)fault_param(fx, "mtu")->i;
        if (r > 0)
                snprintf(
                        detail, size, "device %s of %s has MTU %" PRIu32, now.name,
                        fx->target.container_name, now.mtu);
        return r < 0 ? r : 0;
}

const struct fault_mechanism fault_link_mtu = {
        .name = "link.mtu",
        .records = true,
        .apply = apply,
        .undo = { { "link.restore_mtu", undo_restore } },
        .verify = { { "link.mtu_restored", look_restored } },
        .effect = { { "link.mtu_set", look_set } },
        .release = net_link_held_release,
};
