#include "fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault/guard.h"
#include "fault/live.h"
#include "fault/net-link.h"

/* net.interface_down: the target's device set down (IFF_UP cleared) over
 * rtnetlink, from a thread of the agent in the target's network namespace.
 * The device is recorded first (net-link.h): going down flushes its IPv6
 * addresses and every route through it, and going up brings back only what
 * the kernel derives itself, so undo sets it up and adds back what it lacks.
 * The kernel keeps a device down after the agent dies, so a guardian
 * (fault/guard.h) holds the undo from before the change. A device that is
 * down already is refused: bringing it up at the end would undo what
 * someone else did. */

/* What the agent holds while the device is down. */
struct link_down {
        struct proc_identity target;
        struct net_link rec;
        struct fault_guard *guard;
};

static void release(void *live) {
        struct link_down *l = live;
        net_link_put_back(&l->target, &l->rec, NET_LINK_STATE, NULL);
        fault_guard_release(l->guard);
        free(l);
}

extern const struct fault_mechanism fault_link_down;

static int apply(struct fault_exec *fx, struct mh_error *reterr) {
        const char *device = fault_param(fx, "device")->s;
        struct link_down *l = calloc(1, sizeof(*l));
        if (!l)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        l->target = fx->target.main;
        int r = net_link_record(&l->target, device, &l->rec, reterr);
        if (r >= 0 && !l->rec.link.up)
                r = mh_error_fail(
                        reterr, -EALREADY, "link_down",
                        "device %s of %s is down already: not ours to take down, nor to bring up", device,
                        fx->target.container_name);
        if (r >= 0) {
                json_t *rec = net_link_json(&l->rec);
                if (!rec || json_object_update(fx->restore, rec) < 0)
                        r = mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
                json_decref(rec);
        }
        if (r >= 0)
                r = fault_record(fx, reterr);
        /* The guardian first: no device goes down without someone to bring it up. */
        if (r < 0 || (r = fault_guard_start(fx, &l->guard, reterr)) < 0) {
                free(l);
                return r;
        }
        if ((r = net_link_change(&l->target, device, NET_LINK_STATE, 0, reterr)) >= 0 &&
            (r = fault_live_put(fx->lives, fx->lease_id, &fault_link_down, l)) < 0)
                mh_error_fail(
                        reterr, r, "link_down", "lease %s: applied already, or too many faults in force",
                        fx->lease_id);
        if (r < 0)
                release(l); /* up again, and the guardian let go */
        return r < 0 ? r : 0;
}

/* The record apply put in the lease's restore record; false: none there. */
static bool recorded(const struct fault_exec *fx, struct net_link *ret) {
        return json_object_size(fx->restore) && net_link_from_json(fx->restore, ret, NULL) >= 0;
}

/* Up, and what it lost back, before the guardian lets go, so an agent that
 * dies in between still leaves the device as it was. */
static int undo_up(const struct fault_exec *fx, struct mh_error *reterr) {
        _cleanup_free_ struct net_link *rec = calloc(1, sizeof(*rec));
        if (!rec)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        int r = recorded(fx, rec) ? net_link_put_back(&fx->target.main, rec, NET_LINK_STATE, reterr) : 0;
        if (r < 0)
                return r;
        struct link_down *l = fault_live_take(fx->lives, fx->lease_id);
        if (l) {
                fault_guard_release(l->guard);
                free(l);
        }
        return 0;
}

static int look_up(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        return net_link_verify(&fx->target.main, fx->restore, NET_LINK_STATE, ret, detail, size);
}

/* In force: the device is down and the agent holds the lease that did it. */
static int look_down(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        _cleanup_free_ struct net_link *now = calloc(1, sizeof(*now));
        struct mh_error e = { 0 };
        int r = now ? net_link_record(&fx->target.main, fault_param(fx, "device")->s, now, &e) : -ENOMEM;
        *ret = r >= 0 && !now->link.up && fault_live_with(fx->lives, fx->lease_id, NULL, NULL);
        if (r >= 0)
                snprintf(
                        detail, size, "device %s of %s is %s", now->link.name, fx->target.container_name,
                        now->link.up ? "up" : "down");
        else
                snprintf(detail, size, "%s", now ? e.msg : "out of memory");
        return r == -ESRCH || r == -ENODEV ? 0 : r < 0 ? r : 0;
}

const struct fault_mechanism fault_link_down = {
        .name = "link.down",
        .records = true,
        .apply = apply,
        .undo = { { "link.up", undo_up } },
        .verify = { { "link.up", look_up } },
        .effect = { { "link.down", look_down } },
        .release = release,
};
