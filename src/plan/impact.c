#include "impact.h"

#include "plan/plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"

/* What the faults need from the kernel, by how they are delivered. */
enum family {
        FAMILY_NONE,
        FAMILY_RULES,     /* drop, reject, numgen loss: nftables only */
        FAMILY_DELAY,     /* netem, else the shaper */
        FAMILY_PACKET,    /* duplicate, corrupt: netem, else nftables dup / payload mangling */
        FAMILY_BANDWIDTH, /* tbf, else the shaper's token bucket */
};

static const struct {
        const char *fault_id;
        enum family family;
        bool port_scoped; /* always narrowed to a port */
} faults[] = {
        { "db.query_error", FAMILY_RULES, true },
        { "db.slow_query", FAMILY_DELAY, true },
        { "dependency.block", FAMILY_RULES, true },
        { "dependency.connection_refuse", FAMILY_RULES, true },
        { "dependency.flap", FAMILY_RULES, true },
        { "dependency.timeout", FAMILY_DELAY, true },
        { "dns.timeout", FAMILY_RULES, true },
        { "net.bandwidth", FAMILY_BANDWIDTH, false },
        { "net.connection_refuse", FAMILY_RULES, true },
        { "net.connection_reset", FAMILY_RULES, true },
        { "net.corrupt", FAMILY_PACKET, false },
        { "net.duplicate", FAMILY_PACKET, false },
        { "net.latency", FAMILY_DELAY, false },
        { "net.packet_loss", FAMILY_RULES, false },
        { "net.partition", FAMILY_RULES, false },
        { "net.reorder", FAMILY_DELAY, false },
        { "tls.handshake_failure", FAMILY_RULES, true },
};

static bool needs_ingress(const char *direction) {
        return direction && strcmp(direction, "egress") != 0;
}

/* A qdisc (netem or tbf) serves the whole interface: only unscoped faults,
 * and ingress only through an IFB device. */
static bool qdisc_fits(const struct impact_request *rq, bool scoped, const struct kernel_features *k) {
        return !scoped && (!needs_ingress(rq->direction) || k->ifb);
}

static int deliver(enum net_delivery d, enum net_delivery *ret) {
        *ret = d;
        return 1;
}

static int refuse(char *why, size_t size, const char *fault_id, const char *reason) {
        snprintf(why, size, "%s: %s", fault_id, reason);
        return -EOPNOTSUPP;
}

int impact_net_delivery(
        const struct impact_request *rq, const struct kernel_features *k, enum net_delivery *ret, char *why,
        size_t size) {
        enum family family = FAMILY_NONE;
        bool scoped = rq->scoped;
        for (size_t i = 0; i < ELEMENTSOF(faults) && family == FAMILY_NONE; i++)
                if (strcmp(faults[i].fault_id, rq->fault_id) == 0) {
                        family = faults[i].family;
                        scoped = scoped || faults[i].port_scoped;
                }
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
                        why, size, rq->fault_id,
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
                        why, size, rq->fault_id,
                        "this kernel offers neither sch_tbf (with an IFB device for ingress) nor an "
                        "NFQUEUE for the shaper");
        case FAMILY_PACKET:
                if (k->netem && qdisc_fits(rq, scoped, k))
                        return deliver(NET_DELIVERY_NETEM, ret);
                if (k->nft_owner && (strcmp(rq->fault_id, "net.duplicate") != 0 || !rq->direction ||
                                     strcmp(rq->direction, "ingress") == 0 || k->netdev_egress))
                        return deliver(NET_DELIVERY_NFT, ret);
                return refuse(
                        why, size, rq->fault_id,
                        !k->nft_owner ? "this kernel has no sch_netem and no nftables owner tables "
                                        "(Linux >= 5.12)"
                                      : "this kernel has no sch_netem and no netdev egress hook "
                                        "(Linux >= 5.16) to duplicate outgoing packets");
        default:
                if (k->nft_owner)
                        return deliver(NET_DELIVERY_NFT, ret);
                return refuse(
                        why, size, rq->fault_id,
                        "this kernel has no nftables owner tables (Linux >= 5.12), and mayhem never "
                        "installs rules that could outlive it");
        }
}

void impact_request_of(const struct plan_fault *f, const json_t *params, struct impact_request *ret) {
        const char *proto = json_string_value(json_object_get(params, "protocol"));
        *ret = (struct impact_request){
                .fault_id = f->src->def->id,
                .scoped = f->n_peers > 0 || json_object_get(params, "port") ||
                          (proto && strcmp(proto, "any") != 0),
                .direction = json_string_value(json_object_get(params, "direction")),
        };
}
