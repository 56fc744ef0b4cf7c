#include "fault.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault/guard.h"
#include "fault/live.h"
#include "fault/net-link.h"

/* net.mtu_mismatch: the MTU of the target's device set to the given value
 * over rtnetlink, from a thread of the agent in the target's network
 * namespace. The device is recorded first (net-link.h: its MTU, addresses
 * and routes, which the kernel flushes with IPv6 when the MTU drops below
 * 1280); undo sets the recorded MTU back and adds back what the device
 * lacks. The kernel keeps the MTU after the agent dies, so a guardian
 * (fault/guard.h) holds the undo from before the change. */

/* What the agent holds while the MTU is changed. */
struct mtu_held {
        struct proc_identity target;
        struct net_link rec;
        struct fault_guard *guard;
};

static void release(void *live) {
        struct mtu_held *m = live;
        net_link_put_back(&m->target, &m->rec, NET_LINK_MTU, NULL);
        fault_guard_release(m->guard);
        free(m);
}

extern const struct fault_mechanism fault_link_mtu;

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        const char *device = fault_param(fx, "device")->s;
        uint32_t mtu = (uint32_t)fault_param(fx, "mtu")->i;
        struct mtu_held *m = calloc(1, sizeof(*m));
        if (!m)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        m->target = fx->target.main;
        int r = net_link_record(&m->target, device, &m->rec, reterr);
        if (r >= 0 && m->rec.link.mtu == mtu)
                r = mh_error_fail(
                        reterr, -EALREADY, "mtu",
                        "device %s of %s has MTU %" PRIu32 " already: the fault would change nothing",
                        device, fx->target.container_name, mtu);
        if (r >= 0) {
                json_t *rec = net_link_json(&m->rec);
                if (!rec || json_object_update(fx->restore, rec) < 0)
                        r = mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
                json_decref(rec);
        }
        if (r >= 0)
                r = fault_record(fx, reterr);
        /* The guardian first: no MTU changes without someone to put it back. */
        if (r < 0 || (r = fault_guard_start(fx, &m->guard, reterr)) < 0) {
                free(m);
                return r;
        }
        if ((r = net_link_change(&m->target, device, NET_LINK_MTU, mtu, reterr)) >= 0 &&
            (r = fault_live_put(fx->lives, fx->lease_id, &fault_link_mtu, m)) < 0)
                mh_error_fail(
                        reterr, r, "mtu", "lease %s: applied already, or too many faults in force",
                        fx->lease_id);
        if (r < 0)
                release(m); /* the MTU back, and the guardian let go */
        return r < 0 ? r : 0;
}

/* The record apply put in the lease's restore record; false: none there. */
static bool recorded(const struct fault_exec *fx, struct net_link *ret) {
        return json_object_size(fx->restore) && net_link_from_json(fx->restore, ret, NULL) >= 0;
}

/* The MTU back before the guardian lets go, so an agent that dies in
 * between still leaves it back. */
static int undo_restore(const struct fault_exec *fx, struct mh_error *reterr) {
        _cleanup_free_ struct net_link *rec = calloc(1, sizeof(*rec));
        if (!rec)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        int r = recorded(fx, rec) ? net_link_put_back(&fx->target.main, rec, NET_LINK_MTU, reterr) : 0;
        if (r < 0)
                return r;
        struct mtu_held *m = fault_live_take(fx->lives, fx->lease_id);
        if (m) {
                fault_guard_release(m->guard);
                free(m);
        }
        return 0;
}

static int look_restored(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return net_link_verify(&fx->target.main, fx->restore, NET_LINK_MTU, ret, detail, size);
}

/* In force: the device has the fault's MTU and the agent holds the lease that set it. */
static int look_set(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        _cleanup_free_ struct net_link *now = calloc(1, sizeof(*now));
        struct mh_error e = { 0 };
        uint32_t mtu = (uint32_t)fault_param(fx, "mtu")->i;
        int r = now ? net_link_record(&fx->target.main, fault_param(fx, "device")->s, now, &e) : -ENOMEM;
        *ret = r >= 0 && now->link.mtu == mtu && fault_live_with(fx->lives, fx->lease_id, NULL, NULL);
        if (r >= 0)
                snprintf(
                        detail, size, "device %s of %s has MTU %" PRIu32, now->link.name,
                        fx->target.container_name, now->link.mtu);
        else
                snprintf(detail, size, "%s", now ? e.msg : "out of memory");
        return r == -ESRCH || r == -ENODEV ? 0 : r < 0 ? r : 0;
}

const struct fault_mechanism fault_link_mtu = {
        .name = "link.mtu",
        .records = true,
        .apply = apply,
        .undo = { { "link.restore_mtu", undo_restore } },
        .verify = { { "link.mtu_restored", look_restored } },
        .effect = { { "link.mtu_set", look_set } },
        .release = release,
};
