#pragma once

/* The network fault's work inside the target's network namespace, each call
 * one visit on a short-lived thread of ours (ns_net_run(), sys/ns.h): list
 * devices, attach and remove qdiscs, open the sockets the agent keeps (nft
 * owner tables, the shaper's queue), and scan for residue. The sockets are
 * opened in the target's netns and come back in memory: no fork, no fd
 * passing.
 *
 * Names: everything one lease creates is named after its id ("l-" + 16 hex):
 * nft tables "mayhem-<hex>", the IFB device "mh<first 8 hex>"; our qdiscs
 * carry handle 6d68: (RTNL_HANDLE). */

#include <net/if.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"
#include "fault/net-recipe.h"
#include "sys/nft-rule.h"
#include "sys/nft.h"
#include "sys/ns.h"
#include "sys/process.h"

#define NET_LINKS_MAX  16
#define NET_NS_WAIT_MS 10000
#define NET_TABLE_MAX  32
#define NET_QUEUE_BASE 27000u /* the shaper's queue numbers: NET_QUEUE_BASE + 0..NET_QUEUE_SPAN-1 */
#define NET_QUEUE_SPAN 256u

struct net_links {
        size_t n;
        char name[NET_LINKS_MAX][IF_NAMESIZE];
};

/* For the ns_fn functions run by net_ns_call(): the message goes back to the
 * caller in out; returns -EIO. */
int net_ns_fail(char *out, size_t *out_len, const char *fmt, ...) _printf_(3, 4);

/* Calls fn(arg, out, out_len) on a thread inside the target's netns
 * (ns_net_run()), the way ns_run() would in a child: 0 when fn ran, its
 * return value in *ret_fn_result and its text in out (*out_len bytes, at
 * most the *out_len given); -ESRCH when the target is gone, or the other
 * errors of ns_net_run() when fn never ran. */
int net_ns_call(
        const struct proc_identity *id, ns_fn fn, void *arg, char *out, size_t *out_len, int *ret_fn_result,
        struct mh_error *reterr);

void net_table_name(const char *lease_id, char buf[NET_TABLE_MAX]);
void net_ifb_name(const char *lease_id, char buf[IF_NAMESIZE]);

/* The target's devices a qdisc or an egress copy goes on: every link but lo
 * and IFB devices. */
int net_ns_links(const struct proc_identity *id, struct net_links *ret, struct mh_error *reterr);

#define NET_SOCKETS_MAX 4

struct net_sockets {
        struct nft_owner_table *tables[NET_SOCKETS_MAX - 1];
        size_t n_tables;
        int queue_fd; /* for shaper_start(); -EBADF when not asked for */
        uint16_t queue;
};

/* In one visit to the target's netns: an nftables owner table named after
 * the lease in each of families (the sockets are ours: the tables die with
 * them) and, with queue, the shaper's queue bound to the first free number of
 * the lease (from a hash of its id). On failure *ret holds what was opened,
 * for the caller to free (n_tables tables; queue_fd when >= 0), and nothing
 * else is left open. */
int net_ns_sockets_open(
        const struct proc_identity *id, const char *lease_id, const char *const *families, size_t n,
        bool queue, struct net_sockets *ret, struct mh_error *reterr);

/* The netdev table of egress copies: an egress chain on every device of the
 * target (net_ns_links()) holding one rule per spec (action DUP_DEVICE; the
 * device is filled in per chain), all added inside the target's netns. */
int net_ns_dup_egress_open(
        const struct proc_identity *id, const char *name, const struct nft_rule_spec *specs, size_t n,
        struct nft_owner_table **ret, struct mh_error *reterr);

/* TBF / NETEM: our qdisc on every device for egress, and for ingress an IFB
 * device with the same qdisc, fed by a redirect from each device's ingress. On
 * failure whatever was attached is removed again. */
int net_ns_qdisc_apply(
        const struct proc_identity *id, const char *lease_id, const struct net_recipe *rc,
        struct mh_error *reterr);

/* Removes every qdisc of ours, our ingress redirects and the lease's IFB
 * device: works with nothing but the lease id (recovery, the guardian).
 * A target that is gone took its netns with it: 0. */
int net_ns_clean(const struct proc_identity *id, const char *lease_id, struct mh_error *reterr);

/* Residue of the lease in the target's netns: qdiscs of ours, the IFB
 * device, nft tables named after the lease, the given shaper queue when
 * queue != 0, and with ingress_too any ingress qdisc (ours carry no handle of
 * their own; only a fault that redirected ingress asks). 1 found (detail
 * lists it), 0 clean, < 0 could not look. */
int net_ns_residue(
        const struct proc_identity *id, const char *lease_id, uint16_t queue, bool ingress_too, char *detail,
        size_t size);
