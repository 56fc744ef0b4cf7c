#include "impact.h"

#include "plan/plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

/* What the faults need from the kernel, by what they do to packets. */
enum family {
        FAMILY_NONE,
        FAMILY_RULES,     /* drop, reject, numgen loss: nftables only */
        FAMILY_DELAY,     /* netem, else the shaper */
        FAMILY_PACKET,    /* duplicate, corrupt: netem, else nftables dup / payload mangling */
        FAMILY_BANDWIDTH, /* tbf, else the shaper's token bucket */
};

static const enum family families[_NET_ACTION_MAX] = {
        [NET_ACTION_DELAY] = FAMILY_DELAY,    [NET_ACTION_REORDER] = FAMILY_DELAY,
        [NET_ACTION_RATE] = FAMILY_BANDWIDTH, [NET_ACTION_DROP] = FAMILY_RULES,
        [NET_ACTION_FLAP] = FAMILY_RULES,     [NET_ACTION_DUPLICATE] = FAMILY_PACKET,
        [NET_ACTION_CORRUPT] = FAMILY_PACKET, [NET_ACTION_RESET] = FAMILY_RULES,
        [NET_ACTION_REFUSE] = FAMILY_RULES,
};

void impact_kernel_from_json(const json_t *j, struct impact_kernel *ret) {
        *ret = (struct impact_kernel){ .known = json_is_true(json_object_get(j, "known")) };
#define AS_GET(f) ret->f = json_is_true(json_object_get(j, #f));
        if (ret->known) {
                KERNEL_FEATURES(AS_GET)
        }
#undef AS_GET
}

static bool needs_ingress(const char *direction) {
        return direction && strcmp(direction, "egress") != 0;
}

/* A qdisc (netem or tbf) serves the whole interface: only unscoped faults,
 * and ingress only through an IFB device. */
static bool qdisc_fits(const struct impact_request *rq, bool scoped, const struct impact_kernel *k) {
        return !scoped && (!needs_ingress(rq->direction) || k->ifb);
}

static int deliver(enum net_delivery d, enum net_delivery *ret) {
        *ret = d;
        return 1;
}

/* *ret still names the mechanism the fault would need first, so a
 * break-glass attempt (--skip-gate) has one to try. */
static int refuse(
        enum net_delivery first, enum net_delivery *ret, char *why, size_t size, const char *fault_id,
        const char *reason) {
        *ret = first;
        snprintf(why, size, "%s: %s", fault_id, reason);
        return -EOPNOTSUPP;
}

int impact_net_delivery(
        const struct impact_request *rq, const struct impact_kernel *k, enum net_delivery *ret, char *why,
        size_t size) {
        const struct net_facts *nf = &rq->def->net;
        enum family family = (unsigned)nf->action < _NET_ACTION_MAX ? families[nf->action] : FAMILY_NONE;
        bool scoped = rq->scoped || nf->side != 0; /* a port-bound fault is always narrowed to its port */
        const char *id = rq->def->id;
        if (family == FAMILY_NONE)
                return 0;
        bool queue = k->nft_owner && (k->xt_nfqueue || k->nft_queue);
        switch (family) {
        case FAMILY_DELAY:
                if (k->netem && qdisc_fits(rq, scoped, k))
                        return deliver(NET_DELIVERY_NETEM, ret);
                if (queue)
                        return deliver(NET_DELIVERY_SHAPER, ret);
                return refuse(
                        NET_DELIVERY_NETEM, ret, why, size, id,
                        !k->nft_owner ? "this kernel has no sch_netem and no nftables owner tables "
                                        "(Linux >= 5.12) to feed the NFQUEUE shaper"
                                      : "this kernel has neither sch_netem nor an NFQUEUE (xt NFQUEUE "
                                        "or nft queue) for the shaper");
        case FAMILY_BANDWIDTH:
                if (k->tbf && qdisc_fits(rq, scoped, k))
                        return deliver(NET_DELIVERY_TBF, ret);
                if (queue)
                        return deliver(NET_DELIVERY_SHAPER, ret);
                return refuse(
                        NET_DELIVERY_TBF, ret, why, size, id,
                        "this kernel offers neither sch_tbf (with an IFB device for ingress) nor an "
                        "NFQUEUE for the shaper");
        case FAMILY_PACKET:
                if (k->netem && qdisc_fits(rq, scoped, k))
                        return deliver(NET_DELIVERY_NETEM, ret);
                if (k->nft_owner && (nf->action != NET_ACTION_DUPLICATE || !rq->direction ||
                                     strcmp(rq->direction, "ingress") == 0 || k->netdev_egress))
                        return deliver(NET_DELIVERY_NFT, ret);
                return refuse(
                        NET_DELIVERY_NETEM, ret, why, size, id,
                        !k->nft_owner ? "this kernel has no sch_netem and no nftables owner tables "
                                        "(Linux >= 5.12)"
                                      : "this kernel has no sch_netem and no netdev egress hook "
                                        "(Linux >= 5.16) to duplicate outgoing packets");
        default:
                if (k->nft_owner)
                        return deliver(NET_DELIVERY_NFT, ret);
                return refuse(
                        NET_DELIVERY_NFT, ret, why, size, id,
                        "this kernel has no nftables owner tables (Linux >= 5.12), and mayhem never "
                        "installs rules that could outlive it");
        }
}

void impact_request_of(const struct plan_fault *f, const json_t *params, struct impact_request *ret) {
        const char *proto = json_string_value(json_object_get(params, "protocol"));
        *ret = (struct impact_request){
                .def = f->src->def,
                .scoped = f->n_peers > 0 || json_object_get(params, "port") ||
                          (proto && strcmp(proto, "any") != 0),
                .direction = json_string_value(json_object_get(params, "direction")),
        };
}
