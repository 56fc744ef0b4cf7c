#pragma once

/* Base chains and rules inside our nftables owner tables (sys/nft.h).
 *
 * Everything goes through the table's own netlink socket: only the socket that
 * created an owner table may change it, and whatever we add dies with the
 * table when that socket closes. So these calls work from any process and any
 * namespace that holds the socket (e.g. after nft_owner_table_adopt()); the
 * rules act in the namespace the socket was created in.
 *
 * Each call is one nfnetlink batch (BATCH_BEGIN ... BATCH_END): the kernel
 * applies all of its messages or none. Every message asks for an ACK and the
 * replies are read with a bound on time (NFT_RULE_REPLY_TIMEOUT_MS) and on
 * count; a failure carries the kernel's errno and names the message that
 * failed, and leaves nothing of that batch behind. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "sys/nft.h"

#define NFT_RULE_REPLY_TIMEOUT_MS 5000
/* A rule spec with n peers becomes n rules (see peers below). */
#define NFT_RULE_PEERS_MAX 16
/* Probabilities are in 1/10000: 1 is 0.01 %, 10000 is always. */
#define NFT_PROBABILITY_SCALE 10000u

/* Netfilter hooks. PREROUTING..POSTROUTING are for inet/ip/ip6 tables,
 * INGRESS and EGRESS for netdev tables (a device each; EGRESS needs Linux 5.16,
 * see nft_netdev_egress_supported()). */
enum nft_hook {
        NFT_HOOK_PREROUTING,
        NFT_HOOK_INPUT,
        NFT_HOOK_FORWARD,
        NFT_HOOK_OUTPUT,
        NFT_HOOK_POSTROUTING,
        NFT_HOOK_INGRESS,
        NFT_HOOK_EGRESS,
        _NFT_HOOK_MAX,
};
const char *nft_hook_to_string(enum nft_hook h);
int nft_hook_from_string(const char *s);

/* A base chain: type filter, policy accept (our chains only ever add effects,
 * they never decide a packet's fate by default). */
struct nft_chain_spec {
        const char *name;   /* 1..255 bytes */
        enum nft_hook hook; /* must suit the table's family */
        int priority;       /* nft's "priority N": lower runs first; 0 is "filter" */
        const char *device; /* netdev tables only, and required there (1..15 bytes) */
};

/* Adds a base chain to t. -EEXIST when the chain exists; -EOPNOTSUPP from the
 * kernel for a hook it does not know (netdev egress before 5.16); -ENODEV for a
 * netdev chain whose device does not exist in the table's namespace, before
 * Linux 6.16: from 6.16 the kernel keeps the hook by name and attaches it when
 * a device of that name appears (measured on 6.18: the chain is added). */
int nft_chain_add(struct nft_owner_table *t, const struct nft_chain_spec *c, struct mh_error *reterr);

/* Keeps the kernel's netfilter hooks our base chains use (prerouting, input
 * and output, IPv4 and IPv6) switched on for the rest of the process.
 *
 * Why: the kernel keeps a static key per (family, hook) that lets packets
 * skip the hook while no network namespace on the host has one there. The
 * first hook registered anywhere switches the key on and the last one
 * switches it off, and each switch rewrites kernel text (jump labels, with
 * IPIs to every CPU) synchronously inside the nftables batch that adds or
 * deletes the base chain. On a host with no other rules there, every fault
 * paid it twice (measured on Linux 6.18, 2 vCPUs: 0.3-1.6 ms for a
 * partition's two chains and 0.25-0.35 ms for deleting its table; 0.04 and
 * 0.02 ms with the keys held), and disturbed every CPU of the host twice.
 *
 * How: one owner table with empty base chains (policy accept, no rules) in a
 * network namespace of its own that nobody else sees or sends a packet
 * through (ns_net_run_new()). The table's socket holds that namespace; both
 * go when the process exits, killed or not. A packet elsewhere costs one
 * more pointer test per hook while the key is on, as on any host with a
 * firewall rule on that hook.
 *
 * Called once per process by whoever adds base chains; later calls return
 * the first call's answer at once. 0 held; < 0 not (e.g. -EPERM), which
 * changes nothing but the cost of chains. Thread-safe. */
int nft_hooks_hold(struct mh_error *reterr);

/* Deletes the table itself through its socket (the socket stays open; free
 * it after). Closing the socket deletes it too, but the kernel does that
 * work inside close(), tens of milliseconds on a busy machine. */
int nft_owner_table_delete(struct nft_owner_table *t, struct mh_error *reterr);

/* Deletes every rule of chain (the chain stays), e.g. to switch a flapping
 * drop rule off; adding the rule again switches it on. -ENOENT when there is
 * no such chain. */
int nft_chain_flush(struct nft_owner_table *t, const char *chain, struct mh_error *reterr);

/* Deletes the rule with handle from chain; -ENOENT when there is none. */
int nft_rule_delete(struct nft_owner_table *t, const char *chain, uint64_t handle, struct mh_error *reterr);

enum nft_l3 {
        NFT_L3_ANY,
        NFT_L3_IPV4,
        NFT_L3_IPV6,
        _NFT_L3_MAX,
};

enum nft_l4 {
        NFT_L4_ANY,
        NFT_L4_TCP,
        NFT_L4_UDP,
        NFT_L4_ICMP,   /* ICMP over IPv4 */
        NFT_L4_ICMPV6, /* ICMPv6 */
        _NFT_L4_MAX,
};

/* TCP flag tests, on "tcp flags & (syn|ack)". */
enum nft_tcp_flags {
        NFT_TCP_FLAGS_ANY,
        NFT_TCP_FLAGS_SYN,     /* == syn: the first packet of a connection */
        NFT_TCP_FLAGS_NOT_SYN, /* != syn: everything after it (reset established, let SYN through) */
        _NFT_TCP_FLAGS_MAX,
};

/* Which address of the packet a peer is compared with: the destination for
 * rules on the sending side (output, postrouting, egress), the source for rules
 * on the receiving side (prerouting, input, ingress). */
enum nft_peer_field {
        NFT_PEER_DADDR,
        NFT_PEER_SADDR,
        _NFT_PEER_FIELD_MAX,
};

enum nft_action {
        NFT_ACTION_NONE, /* not an action: a spec without one is refused */
        NFT_ACTION_ACCEPT,
        NFT_ACTION_DROP,
        NFT_ACTION_COUNTER,             /* count only; the packet goes on */
        NFT_ACTION_REJECT_TCP_RESET,    /* reject with tcp reset (needs l4 tcp) */
        NFT_ACTION_REJECT_PORT_UNREACH, /* ICMP / ICMPv6 port unreachable (icmpx in inet and netdev) */
        NFT_ACTION_QUEUE,               /* to an NFQUEUE, see queue below */
        /* dup to dup.addr: a copy routed to that address (ip/ip6 tables; the
         * kernel has no dup expression for inet tables) */
        NFT_ACTION_DUP_ADDR,
        NFT_ACTION_DUP_DEVICE, /* meta mark set mark_guard, dup to device dup.device (netdev) */
        /* flip corrupt.mask in L4 payload byte corrupt.offset: after the
         * TCP/UDP header, after ICMP's and ICMPv6's 8-byte header */
        NFT_ACTION_CORRUPT,
        _NFT_ACTION_MAX,
};
const char *nft_action_to_string(enum nft_action a);
int nft_action_from_string(const char *s);

/* How a queue verdict is expressed. The native nft "queue" expression needs
 * CONFIG_NFT_QUEUE; the xtables NFQUEUE target (revision 3) through nft_compat
 * needs CONFIG_NFT_COMPAT and CONFIG_NETFILTER_XT_TARGET_NFQUEUE, and the
 * kernel takes xtables targets in ip, ip6, arp and bridge tables only (not
 * inet, not netdev). AUTO tries native and falls back to xt when the kernel
 * does not know the native expression. */
enum nft_queue_via {
        NFT_QUEUE_AUTO,
        NFT_QUEUE_NATIVE,
        NFT_QUEUE_XT,
        _NFT_QUEUE_VIA_MAX,
};

/* What a rule matches and does. Every field is optional except action; zero
 * means "no test", so a designated initialiser names only what it wants:
 *
 *     struct nft_rule_spec s = { .l4 = NFT_L4_TCP, .dport = 5432,
 *                                .probability = 3000, .action = NFT_ACTION_DROP };
 *
 * Matches run cheapest first and the probability last, so the random draw is
 * taken only for packets that match everything else (p is then the share of
 * *those* packets). Refused combinations are listed at nft_rule_spec_check(). */
struct nft_rule_spec {
        enum nft_l3 l3; /* in inet/netdev tables; implied by ip/ip6 tables and by peers */
        enum nft_l4 l4;
        uint16_t dport, sport; /* need l4 tcp or udp */
        uint16_t not_dport;    /* dport != not_dport (needs l4 tcp or udp); 0: no test */
        /* IPv4 or IPv6 literals (no names, no prefixes); the first NULL ends
         * the list. Each peer becomes its own rule (with every other match of
         * the spec) in the same batch, so all of them are added or none; the
         * handles come back in the same order. IPv4 and IPv6 peers may be
         * mixed in inet and netdev tables. */
        const char *peers[NFT_RULE_PEERS_MAX];
        enum nft_peer_field peer_field;
        /* iifname != "lo". Packets without an input device (output,
         * postrouting, egress) have no iifname, so the whole rule never
         * matches there: use it on the receiving side only. */
        bool not_loopback;
        /* oifname != "lo": the sending side's (output, postrouting) way of
         * leaving the target's own loopback traffic alone. */
        bool not_loopback_out;
        uint32_t mark_guard;          /* meta mark != mark_guard; 0: no test */
        bool counter;                 /* count what matches, before the action (nft_table_counted()) */
        enum nft_tcp_flags tcp_flags; /* needs l4 tcp */
        unsigned probability;         /* numgen random mod 10000 < p; 0 or 10000: always */
        enum nft_action action;
        struct {
                uint16_t num;   /* first queue */
                uint16_t total; /* queues num..num+total-1 (fanout by flow hash); 0 means 1 */
                bool bypass;    /* accept instead of drop while no program listens */
                enum nft_queue_via via;
        } queue;
        struct {
                /* DUP_ADDR: the copy's next hop. dup in the prerouting of a host
                 * with its own address and not_loopback delivers a second copy
                 * locally: the copy goes out through lo, where not_loopback
                 * keeps it from being copied again. */
                const char *addr;
                /* DUP_DEVICE: the copy is sent out of this device. The rule sets
                 * mark_guard (required) on the packet before copying, so the
                 * copy - and the original, which keeps the mark - no longer
                 * matches; without that, a copy sent out of the device it was
                 * taken on (egress) is copied again. The kernel takes an
                 * ifindex: the name is looked up (if_nametoindex()) in the
                 * *caller's* netns, so call from the table's namespace;
                 * -ENODEV when it is not there. */
                const char *device;
        } dup;
        struct {
                /* Byte offset into the L4 payload (after the TCP/UDP header);
                 * packets with a shorter payload are left alone. The checksum is
                 * not fixed, so a receiver that verifies it drops the packet
                 * (UDP InCsumErrors, TCP retransmits). A packet whose checksum
                 * is left to offload (CHECKSUM_PARTIAL: sent from this host
                 * through a device with tx checksumming, veth by default) gets
                 * its checksum computed over the corrupted bytes, or is never
                 * checked at all on veth, and arrives corrupted instead
                 * (measured on Linux 6.18: 2000 of 2000 UDP datagrams over
                 * veth arrived with the bit flipped, none dropped). Uses the
                 * payload expression's "inner header" base (the L4 payload,
                 * Linux >= 6.2). */
                uint16_t offset;
                uint8_t mask; /* bits to flip; 0 means 0x01 */
        } corrupt;
};

/* Checks spec against a table of family ("inet", "ip", "ip6", "netdev";
 * arp and bridge tables are not supported) without asking the kernel. Refused,
 * with a message saying why (-EINVAL): no action or a value out of range;
 * ports or tcp_flags without l4 tcp/udp (tcp); reset without l4 tcp; a peer or
 * dup.addr that is not an address literal, or whose family differs from l3, the
 * table's family or dup.addr; probability over 10000; DUP_ADDR outside ip
 * and ip6 tables, DUP_DEVICE outside netdev tables or without mark_guard; queue.num + total beyond
 * 65536, or via XT in an inet or netdev table; CORRUPT without l4 tcp/udp;
 * dup/queue parameters given for another action. What depends on the chain's
 * hook (e.g. reject only in prerouting, input, forward, output: -EOPNOTSUPP in
 * postrouting) is left to the kernel. */
int nft_rule_spec_check(const char *family, const struct nft_rule_spec *spec, struct mh_error *reterr);

struct nft_rule_handles {
        size_t n; /* one per rule added: max(1, number of peers) */
        uint64_t handle[NFT_RULE_PEERS_MAX];
};

/* Appends the rule(s) of spec to chain of t, in one batch. The kernel echoes
 * each added rule (NLM_F_ECHO) and *ret_handles gets their handles, for
 * nft_rule_delete(); ret_handles may be NULL. A queue via AUTO that the kernel
 * refuses natively is sent again as a second batch with the xt target (in ip
 * and ip6 tables; the first batch left nothing behind). Errors: those of
 * nft_rule_spec_check(); the kernel's errno otherwise, e.g. -ENOENT for a
 * missing chain or an expression this kernel does not have, -EOPNOTSUPP for an
 * action its hook does not allow, -ENODEV for a dup device that does not exist
 * in the table's namespace. */
int nft_rule_add(
        struct nft_owner_table *t, const char *chain, const struct nft_rule_spec *spec,
        struct nft_rule_handles *ret_handles, struct mh_error *reterr);

/* The packets the counters of every rule of table <family> <name> in the
 * current netns have counted (rules added with spec.counter). -ENOENT when
 * there is no such table. */
int nft_table_counted(const char *family, const char *table, uint64_t *ret_packets, struct mh_error *reterr);

/* Kernel feature probes. Each creates an owner table with a chain and, where
 * it tests an expression, a rule, in a throwaway netns of a forked child, and
 * remembers the answer: 1 yes, 0 no, < 0 could not tell (e.g. -EPERM without
 * CAP_SYS_ADMIN and CAP_NET_ADMIN). */
/* netdev egress chains (Linux >= 5.16 with CONFIG_NETFILTER_EGRESS). */
int nft_netdev_egress_supported(struct mh_error *reterr);
/* The native "queue" expression (CONFIG_NFT_QUEUE). */
int nft_queue_supported(struct mh_error *reterr);
/* The xtables NFQUEUE target revision 3 through nft_compat, in an ip table. */
int nft_xt_nfqueue_supported(struct mh_error *reterr);
