/* Checking a rule spec against a table family, without the kernel. */
#include "nft-rule.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <string.h>

#include "basic/string-table.h"
#include "sys/nft-internal.h"
#include "sys/nft-rule-internal.h"

static const char *const nft_hook_table[_NFT_HOOK_MAX] = {
        [NFT_HOOK_PREROUTING] = "prerouting",   [NFT_HOOK_INPUT] = "input",
        [NFT_HOOK_FORWARD] = "forward",         [NFT_HOOK_OUTPUT] = "output",
        [NFT_HOOK_POSTROUTING] = "postrouting", [NFT_HOOK_INGRESS] = "ingress",
        [NFT_HOOK_EGRESS] = "egress",
};
DEFINE_STRING_TABLE_LOOKUP(nft_hook, enum nft_hook)

static const char *const nft_action_table[_NFT_ACTION_MAX] = {
        [NFT_ACTION_NONE] = NULL,
        [NFT_ACTION_ACCEPT] = "accept",
        [NFT_ACTION_DROP] = "drop",
        [NFT_ACTION_COUNTER] = "counter",
        [NFT_ACTION_REJECT_TCP_RESET] = "reject-tcp-reset",
        [NFT_ACTION_REJECT_PORT_UNREACH] = "reject-port-unreachable",
        [NFT_ACTION_QUEUE] = "queue",
        [NFT_ACTION_DUP_ADDR] = "dup-addr",
        [NFT_ACTION_DUP_DEVICE] = "dup-device",
        [NFT_ACTION_CORRUPT] = "corrupt",
};
DEFINE_STRING_TABLE_LOOKUP(nft_action, enum nft_action)

int nft_addr_parse(const char *s, union nft_addr *ret) {
        union nft_addr a;
        if (!s)
                return -EINVAL;
        if (inet_pton(AF_INET, s, &a.v4) == 1) {
                *ret = a;
                return AF_INET;
        }
        if (inet_pton(AF_INET6, s, &a.v6) == 1) {
                *ret = a;
                return AF_INET6;
        }
        return -EINVAL;
}

#define refuse(reterr, ...) mh_error_fail(reterr, -EINVAL, "invalid_argument", __VA_ARGS__)

/* The address family a table or l3 pins down: AF_INET, AF_INET6 or 0 (any). */
static int pinned_af(int family, enum nft_l3 l3) {
        if (family == NFPROTO_IPV4 || l3 == NFT_L3_IPV4)
                return family == NFPROTO_IPV6 ? -1 : AF_INET;
        if (family == NFPROTO_IPV6 || l3 == NFT_L3_IPV6)
                return family == NFPROTO_IPV4 ? -1 : AF_INET6;
        return 0;
}

static int check_addr(const char *what, const char *s, int af, struct mh_error *reterr) {
        union nft_addr a;
        int r = nft_addr_parse(s, &a);
        if (r < 0)
                return refuse(
                        reterr, "%s \"%s\" is not an IPv4 or IPv6 address literal", what, s ? s : "(null)");
        if (af != 0 && r != af)
                return refuse(
                        reterr, "%s %s is not an %s address, as the table or l3 asks", what, s,
                        af == AF_INET ? "IPv4" : "IPv6");
        return r;
}

static int check_ranges(const struct nft_rule_spec *s, struct mh_error *reterr) {
        if (s->action <= NFT_ACTION_NONE || s->action >= _NFT_ACTION_MAX)
                return refuse(reterr, "a rule needs an action");
        if ((unsigned)s->l3 >= _NFT_L3_MAX || (unsigned)s->l4 >= _NFT_L4_MAX ||
            (unsigned)s->tcp_flags >= _NFT_TCP_FLAGS_MAX || (unsigned)s->peer_field >= _NFT_PEER_FIELD_MAX ||
            (unsigned)s->queue.via >= _NFT_QUEUE_VIA_MAX)
                return refuse(reterr, "rule field out of range");
        if (s->probability > NFT_PROBABILITY_SCALE)
                return refuse(
                        reterr, "probability %u is over %u (always)", s->probability, NFT_PROBABILITY_SCALE);
        if ((s->dport || s->sport || s->not_dport) && s->l4 != NFT_L4_TCP && s->l4 != NFT_L4_UDP)
                return refuse(reterr, "ports need l4 tcp or udp");
        if (s->tcp_flags != NFT_TCP_FLAGS_ANY && s->l4 != NFT_L4_TCP)
                return refuse(reterr, "tcp flags need l4 tcp");
        if (s->action == NFT_ACTION_REJECT_TCP_RESET && s->l4 != NFT_L4_TCP)
                return refuse(reterr, "reject with tcp reset needs l4 tcp");
        if (s->action == NFT_ACTION_CORRUPT && s->l4 == NFT_L4_ANY)
                return refuse(reterr, "corrupt needs an l4 protocol");
        return 0;
}

/* Parameters of one action given with another. */
static int check_stray(const struct nft_rule_spec *s, struct mh_error *reterr) {
        bool queue = s->queue.num || s->queue.total || s->queue.bypass || s->queue.via;
        if (queue && s->action != NFT_ACTION_QUEUE)
                return refuse(
                        reterr, "queue parameters given for action %s", nft_action_to_string(s->action));
        if (s->dup.addr && s->action != NFT_ACTION_DUP_ADDR)
                return refuse(reterr, "dup.addr given for action %s", nft_action_to_string(s->action));
        if (s->dup.device && s->action != NFT_ACTION_DUP_DEVICE)
                return refuse(reterr, "dup.device given for action %s", nft_action_to_string(s->action));
        if ((s->corrupt.offset || s->corrupt.mask) && s->action != NFT_ACTION_CORRUPT)
                return refuse(
                        reterr, "corrupt parameters given for action %s", nft_action_to_string(s->action));
        return 0;
}

static int check_action(int family, const struct nft_rule_spec *s, int af, struct mh_error *reterr) {
        switch (s->action) {
        case NFT_ACTION_QUEUE:
                if ((unsigned)s->queue.num + MAX(s->queue.total, 1u) > 65536u)
                        return refuse(
                                reterr, "queues %u + %u go beyond 65535", s->queue.num, s->queue.total);
                if (s->queue.via == NFT_QUEUE_XT && family != NFPROTO_IPV4 && family != NFPROTO_IPV6)
                        return refuse(reterr, "the xtables NFQUEUE target works in ip and ip6 tables only");
                return 0;
        case NFT_ACTION_DUP_ADDR:
                if (family != NFPROTO_IPV4 && family != NFPROTO_IPV6)
                        return refuse(reterr, "dup to an address works in ip and ip6 tables only");
                return check_addr("dup.addr", s->dup.addr, af, reterr);
        case NFT_ACTION_DUP_DEVICE:
                if (family != NFPROTO_NETDEV)
                        return refuse(reterr, "dup to a device works in netdev tables only");
                if (!s->mark_guard)
                        return refuse(
                                reterr, "dup to a device needs mark_guard, or the copy is copied again");
                if (!s->dup.device || strnlen(s->dup.device, 16) == 0 || strnlen(s->dup.device, 16) >= 16)
                        return refuse(reterr, "dup to a device needs a device name of 1 to 15 bytes");
                return 0;
        default: return 0;
        }
}

static int check_peers(const struct nft_rule_spec *s, int af, struct mh_error *reterr) {
        union nft_addr dup;
        int dup_af = s->action == NFT_ACTION_DUP_ADDR ? nft_addr_parse(s->dup.addr, &dup) : 0;
        if (dup_af > 0 && af == 0)
                af = dup_af;
        for (size_t i = 0; i < NFT_RULE_PEERS_MAX && s->peers[i]; i++) {
                int r = check_addr("peer", s->peers[i], af, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

int nft_rule_spec_check(const char *family, const struct nft_rule_spec *spec, struct mh_error *reterr) {
        int fam = nft_family_from_name(family);
        int r;

        if (!spec)
                return refuse(reterr, "no rule spec");
        if (fam != NFPROTO_INET && fam != NFPROTO_IPV4 && fam != NFPROTO_IPV6 && fam != NFPROTO_NETDEV)
                return refuse(
                        reterr, "rules go into inet, ip, ip6 or netdev tables, not \"%s\"",
                        family ? family : "(null)");
        r = check_ranges(spec, reterr);
        if (r < 0)
                return r;
        int af = pinned_af(fam, spec->l3);
        if (af < 0)
                return refuse(
                        reterr, "l3 %s does not fit a table of family %s",
                        spec->l3 == NFT_L3_IPV4 ? "ipv4" : "ipv6", family);
        if ((spec->l4 == NFT_L4_ICMP && af == AF_INET6) || (spec->l4 == NFT_L4_ICMPV6 && af == AF_INET))
                return refuse(
                        reterr, "l4 %s does not fit IPv%s", spec->l4 == NFT_L4_ICMP ? "icmp" : "icmpv6",
                        af == AF_INET ? "4" : "6");
        r = check_stray(spec, reterr);
        if (r < 0)
                return r;
        r = check_action(fam, spec, af, reterr);
        if (r < 0)
                return r;
        return check_peers(spec, af, reterr);
}
