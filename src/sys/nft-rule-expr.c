/* The expressions of one rule: matches cheapest first, the random draw last,
 * then the action. Layouts as nft 1.x builds them (nft --debug=netlink). */
#include "nft-rule-internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <net/if.h>
#include <libnftnl/expr.h>
#include <stdlib.h>
#include <string.h>

#define REG NFT_REG_1

#define ICMP_PORT_UNREACH_CODE   3 /* <netinet/ip_icmp.h> ICMP_PORT_UNREACH */
#define ICMPV6_PORT_UNREACH_CODE 4 /* <netinet/icmp6.h> ICMP6_DST_UNREACH_NOPORT */
#define TCP_FLAGS_OFFSET         13
#define TCP_FLAG_SYN             0x02
#define TCP_FLAG_ACK             0x10

/* Allocates an expression of name and appends it to r (which then owns it). */
static struct nftnl_expr *expr_new(struct nftnl_rule *r, const char *name) {
        struct nftnl_expr *e = nftnl_expr_alloc(name);
        if (e)
                nftnl_rule_add_expr(r, e);
        return e;
}

static int meta_load(struct nftnl_rule *r, uint32_t key) {
        struct nftnl_expr *e = expr_new(r, "meta");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
        nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, REG);
        return 0;
}

static int cmp(struct nftnl_rule *r, uint32_t op, const void *data, size_t len) {
        struct nftnl_expr *e = expr_new(r, "cmp");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, REG);
        nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
        return nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, (uint32_t)len) < 0 ? -ENOMEM : 0;
}

static int payload(struct nftnl_rule *r, uint32_t base, uint32_t offset, uint32_t len, bool write) {
        struct nftnl_expr *e = expr_new(r, "payload");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, write ? NFTNL_EXPR_PAYLOAD_SREG : NFTNL_EXPR_PAYLOAD_DREG, REG);
        nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
        nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
        nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
        if (write)
                nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_CSUM_TYPE, NFT_PAYLOAD_CSUM_NONE);
        return 0;
}

/* reg = (reg & mask) ^ xor, on one 32-bit register word. */
static int bitwise(struct nftnl_rule *r, uint32_t len, uint32_t mask, uint32_t xor) {
        struct nftnl_expr *e = expr_new(r, "bitwise");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, REG);
        nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, REG);
        nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_OP, NFT_BITWISE_BOOL);
        nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
        if (nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, &mask, len) < 0 ||
            nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, &xor, len) < 0)
                return -ENOMEM;
        return 0;
}

static int immediate_data(struct nftnl_rule *r, const void *data, size_t len) {
        struct nftnl_expr *e = expr_new(r, "immediate");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, REG);
        return nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, data, (uint32_t)len) < 0 ? -ENOMEM : 0;
}

static int verdict(struct nftnl_rule *r, int v) {
        struct nftnl_expr *e = expr_new(r, "immediate");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
        nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)v);
        return 0;
}

static uint8_t ipproto_of(enum nft_l4 l4) {
        switch (l4) {
        case NFT_L4_TCP: return IPPROTO_TCP;
        case NFT_L4_UDP: return IPPROTO_UDP;
        case NFT_L4_ICMP: return IPPROTO_ICMP;
        case NFT_L4_ICMPV6: return IPPROTO_ICMPV6;
        default: return 0;
        }
}

static int match_u8(struct nftnl_rule *r, uint32_t key, uint8_t v) {
        int k = meta_load(r, key);
        return k < 0 ? k : cmp(r, NFT_CMP_EQ, &v, sizeof(v));
}

/* The packet's address family: meta nfproto in inet, meta protocol (the
 * ethertype) in netdev; ip and ip6 tables need no test. */
static int match_l3(struct nftnl_rule *r, int family, int af) {
        if (af == 0 || family == NFPROTO_IPV4 || family == NFPROTO_IPV6)
                return 0;
        if (family == NFPROTO_INET)
                return match_u8(r, NFT_META_NFPROTO, af == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6);
        uint16_t proto = htons(af == AF_INET ? ETH_P_IP : ETH_P_IPV6);
        int k = meta_load(r, NFT_META_PROTOCOL);
        return k < 0 ? k : cmp(r, NFT_CMP_EQ, &proto, sizeof(proto));
}

static int match_port_op(struct nftnl_rule *r, uint32_t offset, uint16_t port, enum nft_cmp_ops op) {
        uint16_t be = htons(port);
        if (port == 0)
                return 0;
        int k = payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, offset, sizeof(be), false);
        return k < 0 ? k : cmp(r, op, &be, sizeof(be));
}

static int match_port(struct nftnl_rule *r, uint32_t offset, uint16_t port) {
        return match_port_op(r, offset, port, NFT_CMP_EQ);
}

static int match_peer(struct nftnl_rule *r, const struct nft_rule_spec *s, const char *peer) {
        union nft_addr a;
        bool src = s->peer_field == NFT_PEER_SADDR;
        int af = nft_addr_parse(peer, &a);
        if (af < 0)
                return af;
        uint32_t off = af == AF_INET ? (src ? 12 : 16) : (src ? 8 : 24);
        size_t len = af == AF_INET ? sizeof(a.v4) : sizeof(a.v6);
        int k = payload(r, NFT_PAYLOAD_NETWORK_HEADER, off, (uint32_t)len, false);
        return k < 0 ? k : cmp(r, NFT_CMP_EQ, &a, len);
}

static int match_not_loopback(struct nftnl_rule *r, enum nft_meta_keys key) {
        char lo[IFNAMSIZ] = "lo";
        int k = meta_load(r, key);
        return k < 0 ? k : cmp(r, NFT_CMP_NEQ, lo, sizeof(lo));
}

static int match_mark_guard(struct nftnl_rule *r, uint32_t mark) {
        int k = meta_load(r, NFT_META_MARK);
        return k < 0 ? k : cmp(r, NFT_CMP_NEQ, &mark, sizeof(mark));
}

/* tcp flags & (syn|ack) == syn, or != syn. */
static int match_tcp_flags(struct nftnl_rule *r, enum nft_tcp_flags f) {
        uint8_t syn = TCP_FLAG_SYN;
        int k = payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, TCP_FLAGS_OFFSET, 1, false);
        if (k >= 0)
                k = bitwise(r, 1, TCP_FLAG_SYN | TCP_FLAG_ACK, 0);
        return k < 0 ? k : cmp(r, f == NFT_TCP_FLAGS_SYN ? NFT_CMP_EQ : NFT_CMP_NEQ, &syn, 1);
}

/* numgen random mod 10000 < p, compared in network order as nft does. */
static int match_probability(struct nftnl_rule *r, unsigned p) {
        struct nftnl_expr *e = expr_new(r, "numgen");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_NG_DREG, REG);
        nftnl_expr_set_u32(e, NFTNL_EXPR_NG_TYPE, NFT_NG_RANDOM);
        nftnl_expr_set_u32(e, NFTNL_EXPR_NG_MODULUS, NFT_PROBABILITY_SCALE);
        e = expr_new(r, "byteorder");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SREG, REG);
        nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_DREG, REG);
        nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_OP, NFT_BYTEORDER_HTON);
        nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_LEN, 4);
        nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SIZE, 4);
        uint32_t be = htonl(p);
        return cmp(r, NFT_CMP_LT, &be, sizeof(be));
}

static int peer_af(const struct nft_rule_spec *s, const char *peer) {
        union nft_addr a;
        if (peer)
                return nft_addr_parse(peer, &a);
        if (s->action == NFT_ACTION_DUP_ADDR)
                return nft_addr_parse(s->dup.addr, &a);
        return s->l3 == NFT_L3_IPV4 ? AF_INET : s->l3 == NFT_L3_IPV6 ? AF_INET6 : 0;
}

static int matches_add(struct nftnl_rule *r, int family, const struct nft_rule_spec *s, const char *peer) {
        int k = match_l3(r, family, peer_af(s, peer));
        if (k >= 0 && s->l4 != NFT_L4_ANY)
                k = match_u8(r, NFT_META_L4PROTO, ipproto_of(s->l4));
        if (k >= 0)
                k = match_port(r, 0, s->sport);
        if (k >= 0)
                k = match_port(r, 2, s->dport);
        if (k >= 0)
                k = match_port_op(r, 2, s->not_dport, NFT_CMP_NEQ);
        if (k >= 0 && peer)
                k = match_peer(r, s, peer);
        if (k >= 0 && s->not_loopback)
                k = match_not_loopback(r, NFT_META_IIFNAME);
        if (k >= 0 && s->not_loopback_out)
                k = match_not_loopback(r, NFT_META_OIFNAME);
        if (k >= 0 && s->mark_guard)
                k = match_mark_guard(r, s->mark_guard);
        if (k >= 0 && s->tcp_flags != NFT_TCP_FLAGS_ANY)
                k = match_tcp_flags(r, s->tcp_flags);
        if (k >= 0 && s->probability > 0 && s->probability < NFT_PROBABILITY_SCALE)
                k = match_probability(r, s->probability);
        return k;
}

static int action_reject(struct nftnl_rule *r, int family, bool reset) {
        struct nftnl_expr *e = expr_new(r, "reject");
        uint32_t type, code;
        if (!e)
                return -ENOMEM;
        if (reset) {
                type = NFT_REJECT_TCP_RST;
                code = 0;
        } else if (family == NFPROTO_INET || family == NFPROTO_NETDEV) {
                type = NFT_REJECT_ICMPX_UNREACH;
                code = NFT_REJECT_ICMPX_PORT_UNREACH;
        } else {
                type = NFT_REJECT_ICMP_UNREACH;
                code = family == NFPROTO_IPV4 ? ICMP_PORT_UNREACH_CODE : ICMPV6_PORT_UNREACH_CODE;
        }
        nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, type);
        nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, (uint8_t)code);
        return 0;
}

static int action_queue_native(struct nftnl_rule *r, const struct nft_rule_spec *s) {
        struct nftnl_expr *e = expr_new(r, "queue");
        uint16_t total = MAX(s->queue.total, (uint16_t)1);
        /* Several queues: spread by flow hash (no CPU fanout flag). */
        uint16_t flags = s->queue.bypass ? NFT_QUEUE_FLAG_BYPASS : 0;
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_NUM, s->queue.num);
        nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_TOTAL, total);
        nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_FLAGS, flags);
        return 0;
}

/* The xtables NFQUEUE target, revision 3, through nft_compat. The kernel wants
 * the info padded to XT_ALIGN; libnftnl keeps (and frees) the buffer. */
static int action_queue_xt(struct nftnl_rule *r, const struct nft_rule_spec *s) {
        size_t size = XT_ALIGN(sizeof(struct xt_NFQ_info_v3));
        struct xt_NFQ_info_v3 *info = calloc(1, size);
        struct nftnl_expr *e;
        if (!info)
                return -ENOMEM;
        info->queuenum = s->queue.num;
        info->queues_total = MAX(s->queue.total, (uint16_t)1);
        info->flags = s->queue.bypass ? NFQ_FLAG_BYPASS : 0;
        e = expr_new(r, "target");
        if (!e) {
                free(info);
                return -ENOMEM;
        }
        nftnl_expr_set_str(e, NFTNL_EXPR_TG_NAME, "NFQUEUE");
        nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 3);
        nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, info, (uint32_t)size);
        /* What iptables-nft sends with every rule: the l4 protocol the
         * target may rely on (none here), not inverted. */
        nftnl_rule_set_u32(r, NFTNL_RULE_COMPAT_PROTO, ipproto_of(s->l4));
        nftnl_rule_set_u32(r, NFTNL_RULE_COMPAT_FLAGS, 0);
        return 0;
}

static int action_dup_addr(struct nftnl_rule *r, const char *addr) {
        union nft_addr a;
        int af = nft_addr_parse(addr, &a);
        if (af < 0)
                return af;
        int k = immediate_data(r, &a, af == AF_INET ? sizeof(a.v4) : sizeof(a.v6));
        struct nftnl_expr *e = k < 0 ? NULL : expr_new(r, "dup");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_DUP_SREG_ADDR, REG);
        return 0;
}

/* meta mark set guard; dup to device. The ifindex is looked up in the
 * caller's netns (see nft-rule.h). */
static int action_dup_device(struct nftnl_rule *r, const struct nft_rule_spec *s) {
        uint32_t mark = s->mark_guard, ifindex = if_nametoindex(s->dup.device);
        if (ifindex == 0)
                return -ENODEV;
        int k = immediate_data(r, &mark, sizeof(mark));
        struct nftnl_expr *e = k < 0 ? NULL : expr_new(r, "meta");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, NFT_META_MARK);
        nftnl_expr_set_u32(e, NFTNL_EXPR_META_SREG, REG);
        k = immediate_data(r, &ifindex, sizeof(ifindex));
        e = k < 0 ? NULL : expr_new(r, "dup");
        if (!e)
                return -ENOMEM;
        nftnl_expr_set_u32(e, NFTNL_EXPR_DUP_SREG_DEV, REG);
        return 0;
}

/* Flips mask in the L4 payload byte at offset, with no checksum update:
 * for TCP and UDP from the "inner header" base (after their header, Linux
 * >= 6.2), which the kernel sets for those two only; for ICMP and ICMPv6
 * from the transport header, past their 8-byte header (the echo's data, an
 * error's quoted packet). */
static int action_corrupt(struct nftnl_rule *r, const struct nft_rule_spec *s) {
        uint8_t mask = s->corrupt.mask ? s->corrupt.mask : 0x01;
        bool icmp = s->l4 == NFT_L4_ICMP || s->l4 == NFT_L4_ICMPV6;
        uint32_t base = icmp ? NFT_PAYLOAD_TRANSPORT_HEADER : NFT_PAYLOAD_INNER_HEADER;
        uint32_t offset = s->corrupt.offset + (icmp ? 8 : 0);
        int k = payload(r, base, offset, 1, false);
        if (k >= 0)
                k = bitwise(r, 1, 0xff, mask);
        return k < 0 ? k : payload(r, base, offset, 1, true);
}

static int action_add(
        struct nftnl_rule *r, int family, const struct nft_rule_spec *s, enum nft_queue_via via) {
        switch (s->action) {
        case NFT_ACTION_ACCEPT: return verdict(r, NF_ACCEPT);
        case NFT_ACTION_DROP: return verdict(r, NF_DROP);
        case NFT_ACTION_COUNTER: return expr_new(r, "counter") ? 0 : -ENOMEM;
        case NFT_ACTION_REJECT_TCP_RESET:
        case NFT_ACTION_REJECT_PORT_UNREACH:
                return action_reject(r, family, s->action == NFT_ACTION_REJECT_TCP_RESET);
        case NFT_ACTION_QUEUE:
                return via == NFT_QUEUE_XT ? action_queue_xt(r, s) : action_queue_native(r, s);
        case NFT_ACTION_DUP_ADDR: return action_dup_addr(r, s->dup.addr);
        case NFT_ACTION_DUP_DEVICE: return action_dup_device(r, s);
        case NFT_ACTION_CORRUPT: return action_corrupt(r, s);
        default: return -EINVAL;
        }
}

int nft_rule_exprs_add(
        struct nftnl_rule *r, int family, const struct nft_rule_spec *spec, const char *peer,
        enum nft_queue_via via, struct mh_error *reterr) {
        int k = matches_add(r, family, spec, peer);
        if (k >= 0 && spec->counter)
                k = expr_new(r, "counter") ? 0 : -ENOMEM;
        if (k >= 0)
                k = action_add(r, family, spec, via);
        if (k == -ENODEV)
                return mh_error_fail(
                        reterr, k, "nftables", "dup to device %s: no such device here", spec->dup.device);
        if (k < 0)
                return mh_error_fail(reterr, k, "nftables", "building rule expressions: %s", strerror(-k));
        return 0;
}
