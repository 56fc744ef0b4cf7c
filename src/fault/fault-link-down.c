#include "fault.h"

#include <stdio.h>

#include "fault/net-link-held.h"

/* net.interface_down: the target's device set down (IFF_UP cleared) over
 * rtnetlink, from a thread of the agent in the target's network namespace,
 * held as net-link-held.h says: the device recorded first (going down
 * flushes its IPv6 addresses and every route through it; going up brings
 * back only what the kernel derives itself), a guardian holding the undo,
 * which sets it up and adds back what it lacks. A device that is down
 * already is refused: bringing it up at the end would undo what someone
 * else did. */

extern const struct fault_mechanism fault_link_down;

static int refuse_down(const struct net_link *rec, const struct fault_exec *fx, struct mh_error *reterr) {
        if (rec->link.up)
                return 0;
        return mh_error_fail(
                reterr, -EALREADY, "link_down",
                "device %s of %s is down already: not ours to take down, nor to bring up", rec->link.name,
                fx->target.container_name);
}

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        return net_link_hold(fx, &fault_link_down, NET_LINK_STATE, 0, refuse_down, reterr);
}

static int undo_up(const struct fault_exec *fx, struct mh_error *reterr) {
        return net_link_unhold(fx, NET_LINK_STATE, reterr);
}

static int look_up(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return net_link_verify(&fx->target.main, fx->restore, NET_LINK_STATE, ret, detail, size);
}

/* In force: the device is down and the agent holds the lease that did it. */
static int look_down(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct rtnl_link now;
        bool held;
        int r = net_link_held_now(fx, &now, &held, detail, size);
        *ret = r > 0 && held && !now.up;
        if (r > 0)
                snprintf(
                        detail, size, "device %s of %s is %s", now.name, fx->target.container_name,
                        now.up ? "up" : "down");
        return r < 0 ? r : 0;
}

const struct fault_mechanism fault_link_down = {
        .name = "link.down",
        .records = true,
        .apply = apply,
        .undo = { { "link.up", undo_up } },
        .verify = { { "link.up", look_up } },
        .effect = { { "link.down", look_down } },
        .release = net_link_held_release,
};
