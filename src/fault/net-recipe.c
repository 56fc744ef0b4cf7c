#include "net-recipe.h"

#include <arpa/inet.h>
#include <string.h>

#include "basic/macro.h"

/* The scope every rule of one fault shares. */
struct scope {
        unsigned dirs;
        uint16_t port;
        bool port_either; /* dport or sport (traffic to or from port); else dport only */
        enum nft_l4 l4;   /* ANY with a port means tcp and udp */
        bool loopback;    /* on lo too (catalog net.loopback) */
        bool answers;     /* the port is the sender's on ingress (catalog net.answers) */
        const char *peers[NFT_RULE_PEERS_MAX];
        size_t n_peers;
};

static unsigned dirs_of(const char *direction) {
        if (strcmp(direction, "ingress") == 0)
                return NET_SIDE_INGRESS;
        if (strcmp(direction, "both") == 0)
                return NET_SIDE_EGRESS | NET_SIDE_INGRESS;
        return NET_SIDE_EGRESS;
}

static enum nft_l4 l4_of(const char *protocol) {
        return strcmp(protocol, "tcp") == 0   ? NFT_L4_TCP
               : strcmp(protocol, "udp") == 0 ? NFT_L4_UDP
                                              : NFT_L4_ANY;
}

static void peers_of(const struct fault_net *net, struct scope *sc) {
        for (size_t i = 0; i < net->n_peers && sc->n_peers < NFT_RULE_PEERS_MAX; i++)
                sc->peers[sc->n_peers++] = net->peers[i];
}

/* Rules for one direction and one transport protocol. */
static void add_l4(
        struct net_recipe *rc, const struct scope *sc, bool ingress, enum nft_l4 l4,
        const struct nft_rule_spec *tpl) {
        for (int sport = 0; sport < (sc->port && sc->port_either ? 2 : 1); sport++) {
                if (rc->n_rules >= NET_RULES_MAX)
                        return;
                struct net_rule *r = &rc->rules[rc->n_rules++];
                r->ingress = ingress;
                r->spec = *tpl;
                r->spec.l4 = l4;
                bool from = sport || (ingress && sc->answers);
                if (sc->port)
                        *(from ? &r->spec.sport : &r->spec.dport) = sc->port;
                if (ingress && sc->answers)
                        r->spec.not_dport = NET_PROBE_PORT;
                r->spec.peer_field = ingress ? NFT_PEER_SADDR : NFT_PEER_DADDR;
                for (size_t i = 0; i < sc->n_peers; i++)
                        r->spec.peers[i] = sc->peers[i];
                r->spec.not_loopback = ingress && !sc->loopback;
                r->spec.not_loopback_out = !ingress && !sc->loopback;
                r->spec.counter = true; /* what the effect check counts (net-effect-counted.c) */
                if (!ingress && tpl->action == NFT_ACTION_DROP)
                        r->spec.mark_guard = NET_PROBE_MARK;
        }
}

static void add_rules(struct net_recipe *rc, const struct scope *sc, const struct nft_rule_spec *tpl) {
        for (int in = 0; in < 2; in++) {
                if (!(sc->dirs & (in ? NET_SIDE_INGRESS : NET_SIDE_EGRESS)))
                        continue;
                if (sc->l4 == NFT_L4_ANY && (sc->port || tpl->action == NFT_ACTION_CORRUPT)) {
                        add_l4(rc, sc, in, NFT_L4_TCP, tpl);
                        add_l4(rc, sc, in, NFT_L4_UDP, tpl);
                        /* corrupt needs to know where the payload starts:
                         * a rule per protocol, ICMP's too (it has no port) */
                        if (!sc->port && tpl->action == NFT_ACTION_CORRUPT) {
                                add_l4(rc, sc, in, NFT_L4_ICMP, tpl);
                                add_l4(rc, sc, in, NFT_L4_ICMPV6, tpl);
                        }
                } else
                        add_l4(rc, sc, in, sc->l4, tpl);
        }
}

static unsigned probability_of(double percent) {
        double p = percent * (NFT_PROBABILITY_SCALE / 100.0) + 0.5;
        return p >= NFT_PROBABILITY_SCALE ? NFT_PROBABILITY_SCALE : p < 1 ? 1 : (unsigned)p;
}

static uint32_t ms_of(int64_t v) {
        return v <= 0 ? 0 : v >= SHAPER_DELAY_MAX_MS ? SHAPER_DELAY_MAX_MS : (uint32_t)v;
}

/* The share of packets the fault affects, percent: its share param, or all. */
static double share_of(const struct fault_exec *fx) {
        return fx->def->net.share ? fault_param(fx, fx->def->net.share)->f : 100;
}

/* ---- one builder per action ---------------------------------------------- */

static void shape_queue(struct net_recipe *rc, const struct scope *sc) {
        add_rules(
                rc, sc, &(struct nft_rule_spec){ .action = NFT_ACTION_QUEUE, .queue = { .bypass = true } });
}

/* Faults on a dependency's port have a delay but no jitter. */
static void delay(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        const struct param_value *jitter = fault_param_opt(fx, "jitter_ms");
        rc->shaper.delay_ms = rc->netem_delay_ms = ms_of(fault_param(fx, "delay_ms")->i);
        rc->shaper.jitter_ms = rc->netem_jitter_ms = jitter ? ms_of(jitter->i) : 0;
        shape_queue(rc, sc);
}

static void reorder(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->netem_reorder = fault_param(fx, "percent")->f;
        rc->shaper.reorder_percent = (uint32_t)(rc->netem_reorder + 0.5);
        rc->shaper.reorder_delay_ms = rc->netem_delay_ms = ms_of(fault_param(fx, "delay_ms")->i);
        shape_queue(rc, sc);
}

static void bandwidth(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        uint64_t bits = fault_param(fx, "rate")->u, burst = fault_param(fx, "burst")->u;
        rc->shaper.rate_bps = bits < SHAPER_RATE_MIN_BPS ? SHAPER_RATE_MIN_BPS : bits;
        rc->rate_bytes_per_s = rc->shaper.rate_bps / 8;
        rc->shaper.burst_bytes = rc->burst_bytes = burst < 1024         ? 1024
                                                   : burst > UINT32_MAX ? UINT32_MAX
                                                                        : (uint32_t)burst;
        shape_queue(rc, sc);
}

static void drop(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->netem_loss = share_of(fx);
        add_rules(
                rc, sc,
                &(struct nft_rule_spec){ .action = NFT_ACTION_DROP,
                                         .probability = probability_of(rc->netem_loss) });
}

static void flap(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->flap_interval_ms = fault_param(fx, "interval")->i;
        rc->flap_probability = fault_param(fx, "failure_probability")->f;
        add_rules(
                rc, sc,
                &(struct nft_rule_spec){ .action = NFT_ACTION_DROP, .probability = probability_of(100) });
}

static void corrupt(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->netem_corrupt = share_of(fx);
        add_rules(
                rc, sc,
                &(struct nft_rule_spec){ .action = NFT_ACTION_CORRUPT,
                                         .probability = probability_of(rc->netem_corrupt),
                                         .corrupt = { .offset = 0, .mask = 0x01 } });
}

/* The copies need the target's own address (ingress) or its devices (egress),
 * which the agent fills in when it builds the rules. */
static void duplicate(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->netem_duplicate = share_of(fx);
        rc->dup_probability = probability_of(rc->netem_duplicate);
        rc->dup_ingress_self = sc->dirs & NET_SIDE_INGRESS;
        rc->dup_egress = sc->dirs & NET_SIDE_EGRESS;
        add_rules(
                rc, sc,
                &(struct nft_rule_spec){ .action = NFT_ACTION_DUP_ADDR,
                                         .probability = rc->dup_probability });
}

/* A reset exists in TCP only, whatever the protocol param says. */
static void reset(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *scope) {
        struct scope tcp = *scope;
        tcp.l4 = NFT_L4_TCP;
        add_rules(
                rc, &tcp,
                &(struct nft_rule_spec){ .action = NFT_ACTION_REJECT_TCP_RESET,
                                         .tcp_flags = NFT_TCP_FLAGS_NOT_SYN,
                                         .probability = probability_of(share_of(fx)) });
}

/* TCP: a reset to the SYN; UDP: ICMP port unreachable; any: both. */
static void refuse(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *scope) {
        struct scope one = *scope;
        if (scope->l4 != NFT_L4_UDP) {
                one.l4 = NFT_L4_TCP;
                add_rules(
                        rc, &one,
                        &(struct nft_rule_spec){ .action = NFT_ACTION_REJECT_TCP_RESET,
                                                 .tcp_flags = NFT_TCP_FLAGS_SYN });
        }
        if (scope->l4 != NFT_L4_TCP) {
                one.l4 = NFT_L4_UDP;
                add_rules(rc, &one, &(struct nft_rule_spec){ .action = NFT_ACTION_REJECT_PORT_UNREACH });
        }
}

typedef void (*builder)(const struct fault_exec *, struct net_recipe *, const struct scope *);

static const builder builders[_NET_ACTION_MAX] = {
        [NET_ACTION_DELAY] = delay,     [NET_ACTION_REORDER] = reorder, [NET_ACTION_RATE] = bandwidth,
        [NET_ACTION_DROP] = drop,       [NET_ACTION_FLAP] = flap,       [NET_ACTION_DUPLICATE] = duplicate,
        [NET_ACTION_CORRUPT] = corrupt, [NET_ACTION_RESET] = reset,     [NET_ACTION_REFUSE] = refuse,
};

static void scope_of(const struct fault_exec *fx, const struct fault_net *net, struct scope *sc) {
        const struct net_facts *nf = &fx->def->net;
        const struct param_value *port = nf->fixed_port ? NULL : fault_param_opt(fx, "port");
        int64_t p = nf->fixed_port ? nf->fixed_port : port ? port->i : 0;
        *sc = (struct scope){ .dirs = nf->side ? nf->side : dirs_of(fault_param(fx, "direction")->s),
                              .port = p > 0 && p <= 65535 ? (uint16_t)p : 0,
                              .port_either = nf->port_either,
                              .loopback = nf->loopback,
                              .answers = nf->answers,
                              .l4 = l4_of(nf->protocol ? nf->protocol : fault_param(fx, "protocol")->s) };
        peers_of(net, sc);
}

int net_recipe_build(
        const struct fault_exec *fx, const struct fault_net *net, struct net_recipe *ret,
        struct mh_error *reterr) {
        const struct net_facts *nf = &fx->def->net;
        struct scope sc;
        if (nf->action == NET_ACTION_NONE || !builders[nf->action])
                return mh_error_fail(
                        reterr, -EINVAL, "not_network", "%s is not a network fault", fx->def->id);
        if (!net->has_delivery)
                return mh_error_fail(
                        reterr, -EINVAL, "no_delivery",
                        "%s: the lease names no delivery; the runner decides it from the agent's kernel",
                        fx->def->id);
        scope_of(fx, net, &sc);
        /* A fault on a port without one would act on every port: never wider
         * than asked (the plan always has it; a lease from elsewhere may not). */
        if (nf->side && !sc.port)
                return mh_error_fail(reterr, -EINVAL, "no_port", "%s needs a port (1..65535)", fx->def->id);
        struct net_recipe rc = { .delivery = net->delivery,
                                 .dirs = sc.dirs,
                                 .scoped = sc.n_peers > 0 || sc.port || sc.l4 != NFT_L4_ANY };
        builders[nf->action](fx, &rc, &sc);
        *ret = rc;
        return 0;
}
