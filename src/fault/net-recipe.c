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
        const char *peers[NFT_RULE_PEERS_MAX];
        size_t n_peers;
};

static unsigned dirs_of(const char *direction) {
        if (strcmp(direction, "ingress") == 0)
                return NET_DIR_INGRESS;
        if (strcmp(direction, "both") == 0)
                return NET_DIR_EGRESS | NET_DIR_INGRESS;
        return NET_DIR_EGRESS;
}

static enum nft_l4 l4_of(const char *protocol) {
        return strcmp(protocol, "tcp") == 0   ? NFT_L4_TCP
               : strcmp(protocol, "udp") == 0 ? NFT_L4_UDP
                                              : NFT_L4_ANY;
}

static int peers_of(const struct fault_exec *fx, struct scope *sc, struct mh_error *reterr) {
        const json_t *peers = json_object_get(fx->params, NET_PARAM_PEERS);
        size_t i;
        const json_t *v;
        if (json_array_size(peers) > NFT_RULE_PEERS_MAX)
                return mh_error_fail(
                        reterr, -EINVAL, "too_many_peers", "%s: %zu peer addresses, at most %d",
                        fx->fault_id, json_array_size(peers), NFT_RULE_PEERS_MAX);
        json_array_foreach(peers, i, v) {
                const char *a = json_string_value(v);
                unsigned char buf[16];
                if (!a || (inet_pton(AF_INET, a, buf) != 1 && inet_pton(AF_INET6, a, buf) != 1))
                        return mh_error_fail(
                                reterr, -EINVAL, "bad_peer", "%s: peer %s is not an IP address",
                                fx->fault_id, a ? a : "(not a string)");
                sc->peers[sc->n_peers++] = a;
        }
        return 0;
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
                if (sc->port)
                        *(sport ? &r->spec.sport : &r->spec.dport) = sc->port;
                r->spec.peer_field = ingress ? NFT_PEER_SADDR : NFT_PEER_DADDR;
                for (size_t i = 0; i < sc->n_peers; i++)
                        r->spec.peers[i] = sc->peers[i];
                r->spec.not_loopback = ingress;
                r->spec.not_loopback_out = !ingress;
        }
}

static void add_rules(struct net_recipe *rc, const struct scope *sc, const struct nft_rule_spec *tpl) {
        for (int in = 0; in < 2; in++) {
                if (!(sc->dirs & (in ? NET_DIR_INGRESS : NET_DIR_EGRESS)))
                        continue;
                if (sc->l4 == NFT_L4_ANY && (sc->port || tpl->action == NFT_ACTION_CORRUPT)) {
                        add_l4(rc, sc, in, NFT_L4_TCP, tpl);
                        add_l4(rc, sc, in, NFT_L4_UDP, tpl);
                } else
                        add_l4(rc, sc, in, sc->l4, tpl);
        }
}

static unsigned probability_of(double percent) {
        double p = percent * (NFT_PROBABILITY_SCALE / 100.0) + 0.5;
        return p >= NFT_PROBABILITY_SCALE ? NFT_PROBABILITY_SCALE : p < 1 ? 1 : (unsigned)p;
}

static uint32_t ms_param(const struct fault_exec *fx, const char *name, double def) {
        double v = fault_param_num(fx, name, def);
        return v <= 0 ? 0 : v >= SHAPER_DELAY_MAX_MS ? SHAPER_DELAY_MAX_MS : (uint32_t)v;
}

/* ---- one builder per fault ---------------------------------------------- */

static void shape_queue(struct net_recipe *rc, const struct scope *sc) {
        add_rules(
                rc, sc, &(struct nft_rule_spec){ .action = NFT_ACTION_QUEUE, .queue = { .bypass = true } });
}

static void delay(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->shaper.delay_ms = rc->netem_delay_ms = ms_param(fx, "delay_ms", 100);
        rc->shaper.jitter_ms = rc->netem_jitter_ms = ms_param(fx, "jitter_ms", 0);
        shape_queue(rc, sc);
}

static void reorder(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->shaper.reorder_percent = (uint32_t)(fault_param_num(fx, "percent", 30) + 0.5);
        rc->shaper.reorder_delay_ms = rc->netem_delay_ms = ms_param(fx, "delay_ms", 50);
        rc->netem_reorder = fault_param_num(fx, "percent", 30);
        shape_queue(rc, sc);
}

static void bandwidth(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        double bits = fault_param_num(fx, "rate", 8e6), burst = fault_param_num(fx, "burst", 10240);
        rc->shaper.rate_bps = bits < SHAPER_RATE_MIN_BPS ? SHAPER_RATE_MIN_BPS : (uint64_t)bits;
        rc->rate_bytes_per_s = rc->shaper.rate_bps / 8;
        rc->shaper.burst_bytes = rc->burst_bytes = burst < 1024 ? 1024 : (uint32_t)burst;
        shape_queue(rc, sc);
}

static void drop(
        const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc, double percent) {
        add_rules(
                rc, sc,
                &(struct nft_rule_spec){ .action = NFT_ACTION_DROP,
                                         .probability = probability_of(percent) });
}

static void packet_loss(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->netem_loss = fault_param_num(fx, "percent", 10);
        drop(fx, rc, sc, rc->netem_loss);
}

static void corrupt(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->netem_corrupt = fault_param_num(fx, "percent", 1);
        add_rules(
                rc, sc,
                &(struct nft_rule_spec){ .action = NFT_ACTION_CORRUPT,
                                         .probability = probability_of(rc->netem_corrupt),
                                         .corrupt = { .offset = 0, .mask = 0x01 } });
}

/* The copies need the target's own address (ingress) or its devices (egress),
 * which the agent fills in when it builds the rules. */
static void duplicate(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->netem_duplicate = fault_param_num(fx, "percent", 10);
        rc->dup_probability = probability_of(rc->netem_duplicate);
        rc->dup_ingress_self = sc->dirs & NET_DIR_INGRESS;
        rc->dup_egress = sc->dirs & NET_DIR_EGRESS;
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
                                         .probability =
                                                 probability_of(fault_param_num(fx, "probability", 100)) });
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

static void partition(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        drop(fx, rc, sc, 100);
}

static void flap(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        rc->flap_interval_ms = (int64_t)fault_param_num(fx, "interval", 10000);
        rc->flap_probability = fault_param_num(fx, "failure_probability", 50);
        drop(fx, rc, sc, 100);
}

static void dns_drop(const struct fault_exec *fx, struct net_recipe *rc, const struct scope *sc) {
        drop(fx, rc, sc, fault_param_num(fx, "probability", 80));
}

typedef void (*builder)(const struct fault_exec *, struct net_recipe *, const struct scope *);

/* side: where a fault without a direction param acts (net-recipe.h);
 * either: the port param means "to or from" (the shaping faults' scope). */
static const struct {
        const char *fault_id;
        builder build;
        unsigned side;
        bool either;
        uint16_t fixed_port;  /* dns */
        const char *protocol; /* fixed protocol, NULL: the protocol param */
} recipes[] = {
        { "db.query_error", reset, NET_DIR_INGRESS, false, 0, "tcp" },
        { "db.slow_query", delay, NET_DIR_INGRESS, false, 0, "tcp" },
        { "dependency.block", partition, NET_DIR_EGRESS, false, 0, NULL },
        { "dependency.connection_refuse", refuse, NET_DIR_EGRESS, false, 0, NULL },
        { "dependency.flap", flap, NET_DIR_EGRESS, false, 0, NULL },
        { "dependency.timeout", delay, NET_DIR_EGRESS, false, 0, NULL },
        { "dns.timeout", dns_drop, NET_DIR_EGRESS, false, 53, "any" },
        { "net.bandwidth", bandwidth, 0, true, 0, NULL },
        { "net.connection_refuse", refuse, NET_DIR_INGRESS, false, 0, NULL },
        { "net.connection_reset", reset, NET_DIR_INGRESS, false, 0, "tcp" },
        { "net.corrupt", corrupt, 0, true, 0, NULL },
        { "net.duplicate", duplicate, 0, true, 0, NULL },
        { "net.latency", delay, 0, true, 0, NULL },
        { "net.packet_loss", packet_loss, 0, true, 0, NULL },
        { "net.partition", partition, 0, true, 0, "any" },
        { "net.reorder", reorder, 0, true, 0, NULL },
        { "tls.handshake_failure", reset, NET_DIR_INGRESS, false, 0, "tcp" },
};

static int find(const char *fault_id) {
        for (size_t i = 0; fault_id && i < ELEMENTSOF(recipes); i++)
                if (strcmp(recipes[i].fault_id, fault_id) == 0)
                        return (int)i;
        return -ENOENT;
}

bool net_fault_is_network(const char *fault_id) {
        return find(fault_id) >= 0;
}

static int scope_of(const struct fault_exec *fx, int i, struct scope *sc, struct mh_error *reterr) {
        const char *proto =
                recipes[i].protocol ? recipes[i].protocol : fault_param_str(fx, "protocol", "any");
        double port = recipes[i].fixed_port ? recipes[i].fixed_port : fault_param_num(fx, "port", 0);
        *sc = (struct scope){ .dirs = recipes[i].side ? recipes[i].side
                                                      : dirs_of(fault_param_str(fx, "direction", "egress")),
                              .port = port > 0 && port <= 65535 ? (uint16_t)port : 0,
                              .port_either = recipes[i].either,
                              .l4 = l4_of(proto) };
        return peers_of(fx, sc, reterr);
}

int net_recipe_build(const struct fault_exec *fx, struct net_recipe *ret, struct mh_error *reterr) {
        int i = find(fx->fault_id), d;
        struct scope sc;
        if (i < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "not_network", "%s is not a network fault", fx->fault_id);
        const char *delivery = fault_param_str(fx, NET_PARAM_DELIVERY, NULL);
        if (!delivery || (d = net_delivery_from_string(delivery)) < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "no_delivery",
                        "%s: the lease names no delivery (%s); the runner decides it from the agent's "
                        "kernel",
                        fx->fault_id, delivery ? delivery : "absent");
        int r = scope_of(fx, i, &sc, reterr);
        if (r < 0)
                return r;
        /* A fault on a port without one would act on every port: never wider
         * than asked (the plan always has it; a lease from elsewhere may not). */
        if (recipes[i].side && !sc.port)
                return mh_error_fail(reterr, -EINVAL, "no_port", "%s needs a port (1..65535)", fx->fault_id);
        struct net_recipe rc = { .delivery = (enum net_delivery)d,
                                 .dirs = sc.dirs,
                                 .scoped = sc.n_peers > 0 || sc.port || sc.l4 != NFT_L4_ANY };
        recipes[i].build(fx, &rc, &sc);
        *ret = rc;
        return 0;
}
