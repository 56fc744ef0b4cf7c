#include "net-link-held.h"

#include <stdio.h>
#include <stdlib.h>

#include "fault/guard.h"
#include "fault/live.h"

struct link_held {
        struct proc_identity target;
        struct net_link rec;
        unsigned what;
        struct fault_guard *guard;
};

void net_link_held_release(void *live) {
        struct link_held *h = live;
        net_link_put_back(&h->target, &h->rec, h->what, NULL);
        fault_guard_release(h->guard);
        free(h);
}

/* The record into the lease's restore record, then the agent's journal. */
static int record(struct fault_exec *fx, const struct net_link *rec, struct mh_error *reterr) {
        json_t *j = net_link_json(rec);
        int r = j && json_object_update(fx->restore, j) == 0
                        ? 0
                        : mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        json_decref(j);
        return r < 0 ? r : fault_record(fx, reterr);
}

int net_link_hold(
        struct fault_exec *fx, const struct fault_mechanism *m, unsigned what, uint32_t mtu,
        int (*refuse)(const struct net_link *rec, const struct fault_exec *fx, struct mh_error *reterr),
        struct mh_error *reterr) {
        const char *device = fault_param(fx, "device")->s;
        struct link_held *h = calloc(1, sizeof(*h));
        if (!h)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        h->target = fx->target.main;
        h->what = what;
        int r = net_link_record(&h->target, device, &h->rec, reterr);
        if (r >= 0 && (r = refuse(&h->rec, fx, reterr)) >= 0)
                r = record(fx, &h->rec, reterr);
        /* The guardian first: no device changes without someone to put it back. */
        if (r < 0 || (r = fault_guard_start(fx, &h->guard, reterr)) < 0) {
                free(h);
                return r;
        }
        if ((r = net_link_change(&h->target, device, what, mtu, reterr)) >= 0 &&
            (r = fault_live_put(fx->lives, fx->lease_id, m, h)) < 0)
                mh_error_fail(
                        reterr, r, "link", "lease %s: applied already, or too many faults in force",
                        fx->lease_id);
        if (r < 0)
                net_link_held_release(h); /* the device back, and the guardian let go */
        return r < 0 ? r : 0;
}

int net_link_unhold(const struct fault_exec *fx, unsigned what, struct mh_error *reterr) {
        _cleanup_free_ struct net_link *rec = calloc(1, sizeof(*rec));
        if (!rec)
                return mh_error_fail(reterr, -ENOMEM, "oom", "out of memory");
        bool recorded = json_object_size(fx->restore) && net_link_from_json(fx->restore, rec, NULL) >= 0;
        int r = recorded ? net_link_put_back(&fx->target.main, rec, what, reterr) : 0;
        if (r < 0)
                return r;
        struct link_held *h = fault_live_take(fx->lives, fx->lease_id);
        if (h) {
                fault_guard_release(h->guard);
                free(h);
        }
        return 0;
}

int net_link_held_now(
        const struct fault_exec *fx, struct rtnl_link *ret, bool *ret_held, char *detail, size_t size) {
        _cleanup_free_ struct net_link *now = calloc(1, sizeof(*now));
        struct mh_error e = { 0 };
        int r = now ? net_link_record(&fx->target.main, fault_param(fx, "device")->s, now, &e) : -ENOMEM;
        *ret_held = fault_live_with(fx->lives, fx->lease_id, NULL, NULL);
        if (r >= 0) {
                *ret = now->link;
                return 1;
        }
        snprintf(detail, size, "%s", now ? e.msg : "out of memory");
        return r == -ESRCH || r == -ENODEV ? 0 : r;
}
