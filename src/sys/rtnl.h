#pragma once

/* rtnetlink over libmnl (the only place mnl_* is seen, with sys/nft.c): links,
 * IFB devices, qdiscs and the ingress redirect that network faults are made
 * of. No libnl, no tc/ip binaries.
 *
 * Everything works in the *current* network namespace, on the socket of a
 * struct rtnl: to act on a target's namespace, open the handle inside
 * ns_net_run() (sys/ns.h), since a netlink socket belongs to the namespace it
 * was created in.
 *
 * Ownership: the qdiscs we create carry the handle RTNL_HANDLE (major
 * RTNL_HANDLE_MAJOR, "mh"), our ingress filters the priority RTNL_FILTER_PRIO.
 * The *_del_ours() functions remove a qdisc only when it carries those marks
 * and refuse (-EBUSY, id "safety_refusal") when something else sits there;
 * the add functions refuse when a device's root qdisc is not a kernel default,
 * so a fault never replaces or tears down someone's own shaping.
 *
 * Replies are read in chunks of RTNL_RECV_SIZE, at most RTNL_REPLY_MAX bytes
 * and RTNL_REPLY_MSGS_MAX messages per request, each receive waiting at most
 * RTNL_RECV_TIMEOUT_MS. After a receive timeout or a malformed reply the
 * socket is out of step with the kernel: the handle then fails every further
 * call with -EIO and must be freed. */

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/macro.h"

#define RTNL_HANDLE_MAJOR    0x6d68u                   /* "mh" */
#define RTNL_HANDLE          (RTNL_HANDLE_MAJOR << 16) /* 6d68: */
#define RTNL_FILTER_PRIO     0x6d68u
#define RTNL_KIND_MAX        32
#define RTNL_RECV_SIZE       32768
#define RTNL_REPLY_MAX       (16u << 20)
#define RTNL_REPLY_MSGS_MAX  65536u
#define RTNL_RECV_TIMEOUT_MS 5000
#define RTNL_MSG_MAX         1024 /* room any request built here needs */

/* tc handles of the kernel's well-known parents (linux/pkt_sched.h). */
#define RTNL_PARENT_ROOT    0xffffffffu /* TC_H_ROOT */
#define RTNL_PARENT_INGRESS 0xfffffff1u /* TC_H_INGRESS */
#define RTNL_HANDLE_INGRESS 0xffff0000u /* ffff: */

/* A NETLINK_ROUTE socket of the current netns with its sequence counter. */
struct rtnl;

/* Opens a bound NETLINK_ROUTE socket (SOCK_CLOEXEC, extended ACKs on, so
 * error messages carry the kernel's reason). */
int rtnl_open(struct rtnl **ret, struct mh_error *reterr);
/* Closes the socket. Accepts NULL; returns NULL. */
struct rtnl *rtnl_free(struct rtnl *rt);
DEFINE_FREEP(struct rtnl, rtnl_free)

/* ---- links ---- */

struct rtnl_link {
        int ifindex;
        int link;     /* IFLA_LINK (a veth's peer, in the peer's netns), 0 when absent */
        bool up;      /* IFF_UP: administratively up */
        uint32_t mtu; /* IFLA_MTU, 0 when absent */
        char name[IF_NAMESIZE];
        char kind[RTNL_KIND_MAX]; /* IFLA_INFO_KIND ("veth", "ifb"), "" for none (lo, physical) */
};

/* Links of the current netns by name: a struct rtnl_link, or -ENODEV. */
int rtnl_link_get(struct rtnl *rt, const char *name, struct rtnl_link *ret, struct mh_error *reterr);
/* -ENODEV (with a message) when there is no link of that name. */
int rtnl_link_ifindex(struct rtnl *rt, const char *name, int *ret_ifindex, struct mh_error *reterr);
/* Fills links[0..*ret_n) with the links of the current netns; -ENOBUFS when
 * there are more than max. */
int rtnl_link_list(
        struct rtnl *rt, struct rtnl_link *links, size_t max, size_t *ret_n, struct mh_error *reterr);
int rtnl_link_set_up(struct rtnl *rt, int ifindex, struct mh_error *reterr);
/* Sets IFF_UP (up) or clears it, leaving the other flags alone. */
int rtnl_link_set_state(struct rtnl *rt, int ifindex, bool up, struct mh_error *reterr);
/* IFLA_MTU; the kernel refuses one outside the device's min..max (-EINVAL, its reason in the message). */
int rtnl_link_set_mtu(struct rtnl *rt, int ifindex, uint32_t mtu, struct mh_error *reterr);
/* Deletes any link; see rtnl_ifb_del() for the careful way. */
int rtnl_link_del(struct rtnl *rt, int ifindex, struct mh_error *reterr);

/* Creates an IFB device called name (down; set it up before redirecting to
 * it). -EEXIST when a link of that name exists; -EOPNOTSUPP when the kernel
 * has no IFB (CONFIG_IFB). */
int rtnl_ifb_create(struct rtnl *rt, const char *name, int *ret_ifindex, struct mh_error *reterr);
/* Deletes link name only if it is an IFB: 1 deleted, 0 no such link (undo is
 * idempotent), -EBUSY when name is some other kind of link. */
int rtnl_ifb_del(struct rtnl *rt, const char *name, struct mh_error *reterr);

/* ---- addresses and routes ----
 * What a link loses when it goes down or its MTU drops below 1280, listed so
 * it can be put back. The kernel flushes a link's IPv6 addresses when it goes
 * down (net.ipv6.conf.*.keep_addr_on_down=0) and every route through it but
 * the IPv4 local ones, and when the MTU falls below IPv6's minimum it drops
 * the link's whole IPv6 state (addresses, routes and the per-link sysctls,
 * which come back at their defaults). Going up again brings back only what
 * the kernel derives by itself: IPv4 prefix routes of the addresses that
 * stayed, the IPv6 link-local address and fe80::/64. */

#define RTNL_ADDR_LEN 16 /* room for an IPv6 address; IPv4 uses the first 4 bytes */

/* An address of a link as RTM_GETADDR reports it, with what it takes to add
 * it again as it was. */
struct rtnl_addr {
        int family; /* AF_INET or AF_INET6 */
        int ifindex;
        uint8_t prefixlen;
        uint8_t scope; /* RT_SCOPE_*: 0 global, 253 link, 254 host */
        /* IFA_PROTO (Linux >= 6.1), who made it: IFAPROT_KERNEL_LO 1,
         * _KERNEL_RA 2 (autoconfigured), _KERNEL_LL 3 (link-local), or what
         * userspace said; 0 when absent. */
        uint8_t proto;
        uint32_t flags; /* IFA_F_* (linux/if_addr.h): IFA_FLAGS when present, else ifa_flags */
        /* IFA_CACHEINFO, seconds left at the time of the dump; UINT32_MAX is
         * forever, as when the attribute is absent. */
        uint32_t valid_lft, preferred_lft;
        uint32_t rt_priority; /* IFA_RT_PRIORITY: the metric of its prefix route, 0 for the default */
        unsigned char addr[RTNL_ADDR_LEN];      /* IFA_LOCAL when present, else IFA_ADDRESS */
        unsigned char peer[RTNL_ADDR_LEN];      /* point-to-point peer: IFA_ADDRESS when IFA_LOCAL differs */
        unsigned char broadcast[RTNL_ADDR_LEN]; /* IPv4 IFA_BROADCAST */
        bool has_peer, has_broadcast;
        char label[IF_NAMESIZE]; /* IPv4 IFA_LABEL ("eth0:1"), "" when absent */
};

/* The IPv4 and IPv6 addresses of link ifindex (of every link when ifindex is
 * 0), in the kernel's order (IPv4 primaries before their secondaries);
 * -ENOBUFS when there are more than max. */
int rtnl_addr_list(
        struct rtnl *rt, int ifindex, struct rtnl_addr *addrs, size_t max, size_t *ret_n,
        struct mh_error *reterr);

enum {
        /* IPv6: add with IFA_F_NODAD, usable at once. An address re-added
         * after the kernel flushed it was checked when it was first added; a
         * second duplicate address detection would leave it tentative for a
         * second or more, and a route with it as source (RTA_PREFSRC) cannot
         * be added while it is. Ignored for IPv4. */
        RTNL_ADDR_ADD_NODAD = 1u << 0,
};

/* Adds a as listed (RTM_NEWADDR, create + exclusive): address, peer,
 * broadcast, label, scope, protocol, lifetimes, prefix route metric and the
 * flags the kernel takes from a request (IFA_F_NODAD, _HOMEADDRESS,
 * _MANAGETEMPADDR, _NOPREFIXROUTE, _MCAUTOJOIN; the rest is state it
 * derives). add_flags is
 * RTNL_ADDR_ADD_*. -EEXIST (with a message) when the link has that address
 * already, which a caller putting addresses back reads as "still there".
 * IPv4 addresses added in the listed order keep their primary / secondary
 * roles. */
int rtnl_addr_add(struct rtnl *rt, const struct rtnl_addr *a, unsigned add_flags, struct mh_error *reterr);

#define RTNL_ROUTE_METRICS_MAX 256 /* RTA_METRICS payload kept; every RTAX_* of Linux 6.x takes 148 */

/* A unicast route through one link as RTM_GETROUTE reports it, with what it
 * takes to add it again as it was. */
struct rtnl_route {
        int family; /* AF_INET or AF_INET6 */
        uint8_t dst_len, src_len, tos;
        uint8_t protocol;  /* RTPROT_*: 2 kernel, 3 boot, 4 static, 9 ra, 16 dhcp */
        uint8_t scope;     /* RT_SCOPE_* */
        uint8_t type;      /* RTN_UNICAST: the only type listed */
        uint8_t pref;      /* IPv6 RTA_PREF (ICMPV6_ROUTER_PREF_*), 0 medium */
        uint32_t flags;    /* rtm_flags (RTNH_F_*); only RTNH_F_ONLINK is sent back */
        uint32_t table;    /* RTA_TABLE, else rtm_table */
        uint32_t priority; /* RTA_PRIORITY (the metric), 0 when absent */
        int oif;           /* RTA_OIF */
        unsigned char dst[RTNL_ADDR_LEN], src[RTNL_ADDR_LEN], gateway[RTNL_ADDR_LEN], prefsrc[RTNL_ADDR_LEN];
        bool has_dst, has_src, has_gateway, has_prefsrc;
        /* RTA_METRICS (RTAX_MTU, RTAX_ADVMSS, ...) as the kernel sent them,
         * sent back as they are; 0 bytes for none. */
        uint16_t metrics_len;
        unsigned char metrics[RTNL_ROUTE_METRICS_MAX];
};

/* The unicast routes of every table whose output link is oif (every link
 * when oif is 0), of family AF_INET, AF_INET6 or AF_UNSPEC for both; local,
 * broadcast, multicast and other types and cached clones are left out.
 * They are listed in an order they can be added back in: routes without a
 * gateway first, since a gateway must be reachable through one of them when
 * its route is added (the kernel dumps 0.0.0.0/0 first), otherwise in the
 * kernel's order. Routes through oif that struct rtnl_route cannot say are
 * not listed but counted in *ret_skipped (may be NULL): multipath ones
 * (RTA_MULTIPATH with a hop through oif), ones using a nexthop object
 * (RTA_NH_ID; the kernel deletes those objects with the link's routes),
 * ones with an IPv6 gateway for IPv4 (RTA_VIA) or an encapsulation
 * (RTA_ENCAP), and ones with more than RTNL_ROUTE_METRICS_MAX bytes of
 * metrics. -ENOBUFS when there are more than max routes to list. */
int rtnl_route_list(
        struct rtnl *rt, int family, int oif, struct rtnl_route *routes, size_t max, size_t *ret_n,
        size_t *ret_skipped, struct mh_error *reterr);

/* Adds r as listed (RTM_NEWROUTE, create + exclusive): table, tos,
 * protocol, scope, type (RTN_UNICAST only, else -EINVAL), destination and
 * source prefixes, metric, output link, gateway, preferred source, onlink,
 * metrics and IPv6 preference. -EEXIST (with a message) when the table holds
 * a route with the same destination, tos and metric (IPv6: destination,
 * source and metric) already, whatever its gateway, which a caller putting
 * routes back reads as "still there"; -ENETUNREACH (IPv4) / -EHOSTUNREACH
 * (IPv6) when no link-scope route reaches the gateway (yet). */
int rtnl_route_add(struct rtnl *rt, const struct rtnl_route *r, struct mh_error *reterr);

/* ---- qdiscs ---- */

struct rtnl_qdisc {
        int ifindex;
        uint32_t handle, parent; /* parent RTNL_PARENT_ROOT / RTNL_PARENT_INGRESS or a class */
        char kind[RTNL_KIND_MAX];
        /* The kernel's counters (TCA_STATS2; 0 where it sent none): packets
         * and bytes sent on, packets queued now (qlen, backlog in bytes), and
         * dropped, requeued, over the limit since the qdisc was added. */
        uint64_t bytes, packets;
        uint32_t qlen, backlog, drops, requeues, overlimits;
};

/* The qdiscs of ifindex (all devices when ifindex is 0); -ENOBUFS when there
 * are more than max. */
int rtnl_qdisc_list(
        struct rtnl *rt, int ifindex, struct rtnl_qdisc *qdiscs, size_t max, size_t *ret_n,
        struct mh_error *reterr);

/* Whether the root qdisc of ifindex is one the kernel attached by itself
 * (handle 0: and noqueue, noop, pfifo_fast, fq_codel, fq or mq), or there is
 * none: 1 yes, 0 no (someone configured a qdisc there, ours included), < 0
 * could not tell. Not a bool, so "could not look" never reads as "free". */
int rtnl_root_qdisc_is_default(struct rtnl *rt, int ifindex, struct mh_error *reterr);

struct rtnl_tbf {
        uint64_t rate;  /* bytes per second, > 0 */
        uint32_t burst; /* bucket size in bytes, > 0 (the kernel warns below the device MTU) */
        uint32_t limit; /* bytes queued before tbf drops, > 0 */
};

/* Root tbf with handle RTNL_HANDLE on ifindex. Refuses (-EBUSY, id
 * "safety_refusal") when the root qdisc is not a kernel default; the
 * kernel's own exclusive-create rule closes the race with a concurrent add. */
int rtnl_qdisc_tbf_add(struct rtnl *rt, int ifindex, const struct rtnl_tbf *tbf, struct mh_error *reterr);

struct rtnl_netem {
        uint64_t delay_ns, jitter_ns; /* <= INT64_MAX */
        /* Percentages 0..100, sent as the kernel's probability scale (0 ..
         * UINT32_MAX). Reordering sends that share of packets at once and
         * delays the rest, so it needs delay_ns > 0. */
        double loss, duplicate, corrupt, reorder;
        uint32_t limit; /* packets queued, > 0 */
};

/* Root netem with handle RTNL_HANDLE, with the same refusal as tbf. This
 * kernel build may lack sch_netem: rtnl_qdisc_kind_supported("netem"). */
int rtnl_qdisc_netem_add(
        struct rtnl *rt, int ifindex, const struct rtnl_netem *netem, struct mh_error *reterr);

/* The ingress qdisc (handle ffff:, parent RTNL_PARENT_INGRESS). -EEXIST when
 * the device has one (or a clsact) already: it is not ours to share. */
int rtnl_qdisc_ingress_add(struct rtnl *rt, int ifindex, struct mh_error *reterr);

/* On the ingress qdisc of ifindex: a u32 filter matching every packet (prio
 * RTNL_FILTER_PRIO, protocol all) whose mirred action redirects it to the
 * egress of ifb_ifindex, where a tbf/netem on the IFB shapes what ifindex
 * receives. Refuses (-EBUSY) when the ingress qdisc holds filters not ours. */
int rtnl_filter_redirect_add(struct rtnl *rt, int ifindex, int ifb_ifindex, struct mh_error *reterr);

/* Deletes the qdisc at parent of ifindex if its handle is handle (the kernel
 * checks the handle itself). No ownership check: see rtnl_qdisc_del_ours(). */
int rtnl_qdisc_del(struct rtnl *rt, int ifindex, uint32_t parent, uint32_t handle, struct mh_error *reterr);

/* Deletes the qdisc at parent of ifindex only if it is ours: handle
 * RTNL_HANDLE and kind kind. 1 deleted; 0 nothing there but a kernel default
 * (undo is idempotent); -EBUSY (id "safety_refusal") when a qdisc we did not
 * create sits there, which is left untouched. */
int rtnl_qdisc_del_ours(
        struct rtnl *rt, int ifindex, uint32_t parent, const char *kind, struct mh_error *reterr);

/* Deletes the ingress qdisc of ifindex (and with it its filters) only if every
 * filter on it is ours (u32 at RTNL_FILTER_PRIO) and there is at least one: an
 * ingress handle is always ffff:, so the filters are what marks it ours. 1
 * deleted, 0 none there, -EBUSY when it is not ours (an empty ingress qdisc
 * included). */
int rtnl_qdisc_ingress_del_ours(struct rtnl *rt, int ifindex, struct mh_error *reterr);

/* ---- kernel features ----
 * Each probes once, in a throwaway netns of a forked child (needs
 * CAP_SYS_ADMIN and CAP_NET_ADMIN, else -EPERM), and remembers the answer: 1
 * yes, 0 no (the kernel does not know the kind), < 0 could not tell. */

/* A qdisc kind: tbf, netem and ingress are tried with real parameters, any
 * other kind (1..RTNL_KIND_MAX-1 bytes) bare, where "invalid arguments" still
 * means the kernel knows it. */
int rtnl_qdisc_kind_supported(const char *kind, struct mh_error *reterr);
int rtnl_ifb_supported(struct mh_error *reterr);
/* The whole ingress path: IFB, ingress qdisc, u32 filter, mirred action. */
int rtnl_ingress_redirect_supported(struct mh_error *reterr);

/* ---- message level: what the functions above send and parse, for tests and
 * fuzzers. A built message goes into buf (size bytes, RTNL_MSG_MAX is enough;
 * 4-byte aligned) as one RTM_NEWQDISC request for ifindex, root, handle
 * RTNL_HANDLE, create + exclusive + ack; *ret_len gets its length. -EINVAL for
 * out-of-range parameters, -ENOBUFS when buf is too small. */

int rtnl_msg_tbf(
        void *buf, size_t size, uint32_t seq, int ifindex, const struct rtnl_tbf *tbf, size_t *ret_len,
        struct mh_error *reterr);
int rtnl_msg_netem(
        void *buf, size_t size, uint32_t seq, int ifindex, const struct rtnl_netem *netem, size_t *ret_len,
        struct mh_error *reterr);

/* A request adding a (RTM_NEWADDR, create + exclusive + ack) or r
 * (RTM_NEWROUTE, likewise) as rtnl_addr_add() / rtnl_route_add() send it:
 * -EINVAL for a family other than AF_INET / AF_INET6, a prefix longer than
 * the family's addresses, no link, an unterminated label, a valid lifetime 0
 * or a preferred one longer (addresses), a type other than RTN_UNICAST or a
 * prefix without its address (routes); -ENOBUFS when size is too small. */
int rtnl_msg_addr(
        void *buf, size_t size, uint32_t seq, const struct rtnl_addr *a, unsigned add_flags, size_t *ret_len,
        struct mh_error *reterr);
int rtnl_msg_route(
        void *buf, size_t size, uint32_t seq, const struct rtnl_route *r, size_t *ret_len,
        struct mh_error *reterr);

/* Parses a complete dump reply (one or more datagrams back to back) for
 * request seq sent from portid, up to and including NLMSG_DONE. -EBADMSG for
 * a message or attribute that does not fit its length, -EPROTO for a
 * message from another request (seq, portid) or of an unexpected type, or a
 * reply that ends without NLMSG_DONE, -EINTR when the kernel marked the dump
 * interrupted, the kernel's error when it answered with one, -ENOBUFS when
 * there are more than max entries. */
int rtnl_qdisc_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, int ifindex, struct rtnl_qdisc *qdiscs,
        size_t max, size_t *ret_n, struct mh_error *reterr);
int rtnl_link_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, struct rtnl_link *links, size_t max,
        size_t *ret_n, struct mh_error *reterr);
/* The parsers of rtnl_addr_list() (ifindex 0: every link) and
 * rtnl_route_list() (family AF_UNSPEC: IPv4 and IPv6; oif 0: every link).
 * A prefix length or an address that does not fit its family, a prefix
 * length without its address, or a link index outside 1..INT32_MAX is
 * -EBADMSG too. */
int rtnl_addr_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, int ifindex, struct rtnl_addr *addrs,
        size_t max, size_t *ret_n, struct mh_error *reterr);
int rtnl_route_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, int family, int oif,
        struct rtnl_route *routes, size_t max, size_t *ret_n, size_t *ret_skipped, struct mh_error *reterr);
