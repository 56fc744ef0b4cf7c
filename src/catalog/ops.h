#pragma once

/* How a network fault is delivered on the target's kernel: the impact gate's
 * choice (src/plan/impact.c), carried in the lease so the agent applies it. */
enum net_delivery {
        NET_DELIVERY_NFT,    /* rules in an nftables owner table (drop, reject, numgen, dup, mangle) */
        NET_DELIVERY_SHAPER, /* the agent's NFQUEUE shaper, fed by an owner table's queue rule */
        NET_DELIVERY_NETEM,  /* a netem qdisc (ingress through an IFB device) */
        NET_DELIVERY_TBF,    /* a tbf qdisc (ingress through an IFB device) */
        _NET_DELIVERY_MAX,
};

const char *net_delivery_to_string(enum net_delivery d);
int net_delivery_from_string(const char *s);
