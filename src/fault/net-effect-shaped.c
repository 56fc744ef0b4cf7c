/* net.shaped: the counters of what shapes the target's traffic show packets
 * held or dropped: the NFQUEUE shaper's own, or those the kernel keeps for
 * our qdiscs (read inside the target's netns). A fault no packet has gone
 * through yet is in force, but its effect is not observable: the runner
 * looks again at the end of the hold. */
#include "net-effect.h"

#include <stdio.h>

#include "basic/macro.h"
#include "fault/live.h"
#include "fault/net-live.h"
#include "sys/ns.h"
#include "sys/rtnl.h"

struct counts {
        size_t qdiscs;
        uint64_t packets, drops, qlen, backlog;
};

static int fn_qdiscs(void *arg, struct mh_error *e) {
        struct counts *c = arg;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct rtnl_qdisc q[128];
        size_t n = 0;
        int r = rtnl_open(&rt, e);
        if (r < 0 || (r = rtnl_qdisc_list(rt, 0, q, ELEMENTSOF(q), &n, e)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((q[i].handle >> 16) == RTNL_HANDLE_MAJOR) {
                        c->qdiscs++;
                        c->packets += q[i].packets, c->drops += q[i].drops;
                        c->qlen += q[i].qlen, c->backlog += q[i].backlog;
                }
        return 0;
}

static int qdisc_verdict(const struct fault_exec *fx, const struct counts *c, char *detail, size_t size) {
        enum net_action a = fx->def->net.action;
        if (c->qdiscs == 0) {
                snprintf(detail, size, "no qdisc of ours in the target's netns");
                return -ENOENT;
        }
        if (a == NET_ACTION_DROP && c->drops > 0) {
                snprintf(
                        detail, size, "our qdiscs dropped %llu of %llu of the target's packets",
                        (unsigned long long)c->drops, (unsigned long long)(c->drops + c->packets));
                return 0;
        }
        bool held = a == NET_ACTION_DELAY || a == NET_ACTION_REORDER || a == NET_ACTION_RATE;
        if (held && c->packets + c->qlen > 0) {
                snprintf(
                        detail, size,
                        "our qdiscs %s %llu of the target's packets (%llu queued now, %llu bytes)",
                        a == NET_ACTION_RATE ? "rate-limited" : "delayed",
                        (unsigned long long)(c->packets + c->qlen), (unsigned long long)c->qlen,
                        (unsigned long long)c->backlog);
                return 0;
        }
        snprintf(
                detail, size, "%s: %llu packets through our qdiscs, %llu dropped",
                c->packets ? "nothing they count shows the effect yet" : "no packets yet",
                (unsigned long long)c->packets, (unsigned long long)c->drops);
        return FAULT_EFFECT_UNOBSERVED;
}

static void stats_of(void *live, void *arg) {
        struct net_live *l = live;
        if (l->shaper)
                shaper_stats(l->shaper, arg);
}

static int shaper_verdict(const struct fault_exec *fx, char *detail, size_t size) {
        struct shaper_stats st = { 0 };
        if (!fault_live_with(fx->lives, fx->lease_id, stats_of, &st)) {
                snprintf(detail, size, "the agent holds no shaper for lease %s", fx->lease_id);
                return -ENOENT;
        }
        if (st.seen == 0) {
                snprintf(detail, size, "no packets yet: the shaper has taken none of the target's packets");
                return FAULT_EFFECT_UNOBSERVED;
        }
        snprintf(
                detail, size,
                "the shaper took %llu of the target's packets: %llu released when due, %llu held now (at "
                "most "
                "%llu at once)",
                (unsigned long long)st.seen, (unsigned long long)st.released, (unsigned long long)st.held,
                (unsigned long long)st.held_max);
        return 0;
}

int net_effect_shaped(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct counts c = { 0 };
        struct mh_error e = { 0 };
        *ret = true;
        switch (fx->net.has_delivery ? fx->net.delivery : NET_DELIVERY_NFT) {
        case NET_DELIVERY_SHAPER: return shaper_verdict(fx, detail, size);
        case NET_DELIVERY_TBF:
        case NET_DELIVERY_NETEM: {
                int r = ns_net_run(&fx->target.main, fn_qdiscs, &c, &e);
                if (r < 0) {
                        snprintf(detail, size, "%s", e.msg);
                        return r;
                }
                return qdisc_verdict(fx, &c, detail, size);
        }
        default: return net_effect_counted(fx, ret, detail, size);
        }
}
