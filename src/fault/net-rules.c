/* The nftables side of network faults: the lease's owner tables, their base
 * chains and the recipe's rules (fault-net.h). */
#include "fault-net.h"

#include <arpa/inet.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "fault/net-netns.h"

#define CHAIN_IN  "in"
#define CHAIN_OUT "out"
#define CHAIN_PRE "pre"
/* The output chain runs before nat output (-100, where Docker's DNAT takes
 * 127.0.0.11:53 to its resolver's port in the target's own netns), so egress
 * rules see what the program sent to; conntrack (-200) has run by then. */
#define OUT_PRIORITY (-150)
/* The mark an egress copy carries, so it is not copied again (nft-rule.h). */
#define DUP_MARK 0x6d680001u

static int family_of(const char *addr) {
        unsigned char buf[16];
        return inet_pton(AF_INET, addr, buf) == 1    ? AF_INET
               : inet_pton(AF_INET6, addr, buf) == 1 ? AF_INET6
                                                     : -1;
}

/* Keeps the peers of af (0: all). False when the rule had peers and none is
 * left: it has nothing to match in this table. */
static bool keep_peers(struct nft_rule_spec *s, int af) {
        size_t n = 0;
        bool had = s->peers[0] != NULL;
        for (size_t i = 0; i < NFT_RULE_PEERS_MAX && s->peers[i]; i++)
                if (af == 0 || family_of(s->peers[i]) == af)
                        s->peers[n++] = s->peers[i];
        for (size_t i = n; i < NFT_RULE_PEERS_MAX; i++)
                s->peers[i] = NULL;
        return !had || n > 0;
}

static int table_af(struct nft_owner_table *t) {
        const char *f = nft_owner_table_family(t);
        return strcmp(f, "ip") == 0 ? AF_INET : strcmp(f, "ip6") == 0 ? AF_INET6 : 0;
}

/* An ICMP rule in an ip6 table, or an ICMPv6 one in an ip table, has
 * nothing to match there. */
static bool l4_fits(const struct nft_rule_spec *s, int af) {
        return !(s->l4 == NFT_L4_ICMP && af == AF_INET6) && !(s->l4 == NFT_L4_ICMPV6 && af == AF_INET);
}

static int add_one(
        struct net_live *l, struct nft_owner_table *t, const char *chain, struct nft_rule_spec *s,
        struct mh_error *e) {
        if (!l4_fits(s, table_af(t)) || !keep_peers(s, table_af(t)))
                return 0;
        int r = nft_rule_add(t, chain, s, NULL, e);
        if (r < 0)
                mh_error_prefix(e, "rule in %s %s: ", nft_owner_table_name(t), chain);
        return r;
}

/* Ingress copies: to each of the target's own addresses (the copy is
 * delivered a second time through lo). */
static int add_dup_self(
        struct net_live *l, struct nft_owner_table *t, const struct net_rule *nr, struct mh_error *e) {
        for (size_t i = 0; i < l->net.n_self; i++) {
                const char *a = l->net.self[i];
                int af = family_of(a), ta = table_af(t);
                if (af < 0 || (ta && ta != af))
                        continue;
                struct nft_rule_spec s = nr->spec;
                s.dup.addr = a;
                if (!keep_peers(&s, af))
                        continue;
                int r = add_one(l, t, CHAIN_PRE, &s, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* self: also the ingress copies to the target's own addresses (only when
 * the table is first filled, not when dependency.flap switches it on). */
static int add_rules(struct net_live *l, struct nft_owner_table *t, bool self, struct mh_error *e) {
        for (size_t i = 0; i < l->rc.n_rules; i++) {
                const struct net_rule *nr = &l->rc.rules[i];
                struct nft_rule_spec s = nr->spec;
                int r = 0;
                if (s.action == NFT_ACTION_DUP_ADDR) {
                        if (nr->ingress && self && (r = add_dup_self(l, t, nr, e)) < 0)
                                return r;
                        continue; /* egress copies live in the netdev table */
                }
                if (s.action == NFT_ACTION_QUEUE) {
                        s.queue.num = l->queue;
                        s.queue.via = nft_queue_supported(NULL) == 1 ? NFT_QUEUE_NATIVE : NFT_QUEUE_XT;
                }
                if ((r = add_one(l, t, nr->ingress ? CHAIN_IN : CHAIN_OUT, &s, e)) < 0)
                        return r;
        }
        return 0;
}

static int add_chains(struct nft_owner_table *t, bool pre, struct mh_error *e) {
        const struct nft_chain_spec chains[] = {
                { .name = CHAIN_IN, .hook = NFT_HOOK_INPUT },
                { .name = CHAIN_OUT, .hook = NFT_HOOK_OUTPUT, .priority = OUT_PRIORITY },
                { .name = CHAIN_PRE, .hook = NFT_HOOK_PREROUTING },
        };
        int r = 0;
        for (size_t i = 0; i < ELEMENTSOF(chains) - (pre ? 0 : 1) && r >= 0; i++)
                r = nft_chain_add(t, &chains[i], e);
        return r;
}

/* Egress copies: a netdev table with an egress chain per device, built
 * inside the target's netns (a dup device is resolved where the rule is
 * added). */
static int add_dup_egress(struct net_live *l, struct mh_error *e) {
        char name[NET_TABLE_MAX];
        struct nft_rule_spec specs[NET_RULES_MAX];
        size_t n = 0;
        for (size_t i = 0; i < l->rc.n_rules; i++)
                if (l->rc.rules[i].spec.action == NFT_ACTION_DUP_ADDR && !l->rc.rules[i].ingress) {
                        specs[n] = l->rc.rules[i].spec;
                        specs[n].action = NFT_ACTION_DUP_DEVICE;
                        specs[n].mark_guard = DUP_MARK;
                        specs[n].not_loopback = specs[n].not_loopback_out = false;
                        n++;
                }
        net_table_name(l->lease_id, name);
        struct nft_owner_table *t = NULL;
        int r = net_ns_dup_egress_open(&l->target, name, specs, n, &t, e);
        if (r >= 0)
                l->tables[l->n_tables++] = t;
        return r;
}

/* The lease's tables (and, for the shaper, its queue) in one visit to the
 * target's netns; then chains and rules through the tables' sockets. */
int net_rules_apply(struct net_live *l, struct mh_error *reterr) {
        /* One inet table, unless the rules need what exists in the ip and ip6
         * families only: dup to an address, the xt NFQUEUE target. */
        static const char *const split[] = { "ip", "ip6" }, *const inet[] = { "inet" };
        bool queue = l->rc.delivery == NET_DELIVERY_SHAPER;
        bool per_family = l->rc.dup_ingress_self || (queue && nft_queue_supported(NULL) != 1);
        struct net_sockets so;
        int r = net_ns_sockets_open(
                &l->target, l->lease_id, per_family ? split : inet, per_family ? 2 : 1, queue, &so, reterr);
        memcpy(l->tables, so.tables, so.n_tables * sizeof(so.tables[0]));
        l->n_tables = so.n_tables;
        l->queue = so.queue;
        if (r >= 0 && queue)
                r = shaper_start(so.queue_fd, so.queue, &l->rc.shaper, &l->shaper, reterr); /* owns the fd */
        else if (so.queue_fd >= 0)
                close(so.queue_fd);
        for (size_t i = 0; i < l->n_tables && r >= 0; i++)
                if ((r = add_chains(l->tables[i], l->rc.dup_ingress_self, reterr)) >= 0 &&
                    !l->rc.flap_interval_ms)
                        r = add_rules(l, l->tables[i], true, reterr);
        if (r >= 0 && l->rc.dup_egress)
                r = add_dup_egress(l, reterr);
        return r;
}

int net_rules_switch(struct net_live *l, bool on, struct mh_error *reterr) {
        int r = 0;
        for (size_t i = 0; i < l->n_tables && r >= 0; i++) {
                struct nft_owner_table *t = l->tables[i];
                if (strcmp(nft_owner_table_family(t), "netdev") == 0)
                        continue;
                if (on)
                        r = add_rules(l, t, false, reterr);
                else if ((r = nft_chain_flush(t, CHAIN_IN, reterr)) >= 0)
                        r = nft_chain_flush(t, CHAIN_OUT, reterr);
        }
        return r;
}
