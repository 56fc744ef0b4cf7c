/* Addresses: listing a link's IPv4 and IPv6 addresses and adding one back as
 * it was listed, after the kernel flushed it (link down, MTU below 1280). */
#include "sys/rtnl.h"

#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

#include "sys/rtnl-internal.h"

/* The flags the kernel takes from a request (inet6_rtm_newaddr() keeps only
 * these; IPv4 keeps what it is given). IFA_F_OPTIMISTIC is left out: it is a
 * state of duplicate address detection, and contradicts IFA_F_NODAD. */
#define ADDR_FLAGS_SENT                                                                                     \
        (IFA_F_NODAD | IFA_F_HOMEADDRESS | IFA_F_MANAGETEMPADDR | IFA_F_NOPREFIXROUTE | IFA_F_MCAUTOJOIN)
#define FOREVER UINT32_MAX /* INFINITY_LIFE_TIME */

/* 1 with *ret filled for an IPv4 / IPv6 address, 0 for another family (an
 * AF_UNSPEC dump answers for every family), -EBADMSG when it does not fit. */
static int addr_from_msg(const struct nlmsghdr *nlh, struct rtnl_addr *ret) {
        const struct nlattr *tb[IFA_MAX + 1];
        const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
        size_t hl = MNL_ALIGN(sizeof(*ifa)), plen = mnl_nlmsg_get_payload_len(nlh);
        struct rtnl_addr a = { .valid_lft = FOREVER, .preferred_lft = FOREVER };
        int r;

        if (plen < hl)
                return -EBADMSG;
        r = rtnl_attrs_parse((const uint8_t *)ifa + hl, plen - hl, tb, IFA_MAX);
        if (r < 0)
                return r;
        size_t n = rtnl_family_addr_len(ifa->ifa_family);
        if (n == 0)
                return 0;
        if (ifa->ifa_prefixlen > n * 8 || ifa->ifa_index == 0 || ifa->ifa_index > INT32_MAX)
                return -EBADMSG;
        a.family = ifa->ifa_family;
        a.ifindex = (int)ifa->ifa_index;
        a.prefixlen = ifa->ifa_prefixlen;
        a.scope = ifa->ifa_scope;
        a.flags = ifa->ifa_flags;
        if (tb[IFA_FLAGS] && rtnl_attr_u32(tb[IFA_FLAGS], &a.flags) < 0)
                return -EBADMSG;

        /* IPv4 sends IFA_LOCAL and IFA_ADDRESS, the peer's when there is
         * one; IPv6 sends IFA_LOCAL only beside a peer in IFA_ADDRESS. A
         * request may carry both the same, which the kernel reads as no peer
         * (inet6_rtm_newaddr()'s extract_addr()), and so does this. */
        const struct nlattr *local = tb[IFA_LOCAL], *address = tb[IFA_ADDRESS];
        if (!local && !address)
                return -EBADMSG;
        if (rtnl_attr_addr(local ? local : address, n, a.addr) < 0)
                return -EBADMSG;
        if (local && address) {
                if (rtnl_attr_addr(address, n, a.peer) < 0)
                        return -EBADMSG;
                a.has_peer = memcmp(a.peer, a.addr, n) != 0;
                if (!a.has_peer)
                        memset(a.peer, 0, sizeof(a.peer));
        }
        if (a.family == AF_INET && tb[IFA_BROADCAST]) {
                if (rtnl_attr_addr(tb[IFA_BROADCAST], n, a.broadcast) < 0)
                        return -EBADMSG;
                a.has_broadcast = true;
        }
        if (a.family == AF_INET && tb[IFA_LABEL] &&
            rtnl_attr_strcpy(tb[IFA_LABEL], a.label, sizeof(a.label)) < 0)
                return -EBADMSG;
        if (tb[IFA_CACHEINFO]) {
                struct ifa_cacheinfo ci;
                if (mnl_attr_get_payload_len(tb[IFA_CACHEINFO]) < sizeof(ci))
                        return -EBADMSG;
                memcpy(&ci, mnl_attr_get_payload(tb[IFA_CACHEINFO]), sizeof(ci));
                a.valid_lft = ci.ifa_valid;
                a.preferred_lft = ci.ifa_prefered;
        }
        if (tb[IFA_PROTO]) {
                if (mnl_attr_get_payload_len(tb[IFA_PROTO]) < 1)
                        return -EBADMSG;
                a.proto = *(const uint8_t *)mnl_attr_get_payload(tb[IFA_PROTO]);
        }
        if (tb[IFA_RT_PRIORITY] && rtnl_attr_u32(tb[IFA_RT_PRIORITY], &a.rt_priority) < 0)
                return -EBADMSG;
        *ret = a;
        return 1;
}

struct addr_acc {
        int ifindex;
        struct rtnl_addr *addrs;
        size_t max, n;
};

static int addr_cb(const struct nlmsghdr *nlh, void *data) {
        struct addr_acc *acc = data;
        struct rtnl_addr a;
        int r = addr_from_msg(nlh, &a);

        if (r <= 0)
                return r;
        if (acc->ifindex != 0 && a.ifindex != acc->ifindex)
                return 0;
        if (acc->n >= acc->max)
                return -ENOBUFS;
        acc->addrs[acc->n++] = a;
        return 0;
}

int rtnl_addr_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, int ifindex, struct rtnl_addr *addrs,
        size_t max, size_t *ret_n, struct mh_error *reterr) {
        struct addr_acc acc = { .ifindex = ifindex, .addrs = addrs, .max = max };
        struct rtnl_walk w = {
                .seq = seq, .portid = portid, .type = RTM_NEWADDR, .cb = addr_cb, .data = &acc
        };
        int r = rtnl_walk_reply(buf, len, &w);

        if (r < 0)
                return rtnl_parse_error(reterr, r, "address", w.ext);
        *ret_n = acc.n;
        return 0;
}

int rtnl_addr_list(
        struct rtnl *rt, int ifindex, struct rtnl_addr *addrs, size_t max, size_t *ret_n,
        struct mh_error *reterr) {
        int r = -EINTR;

        for (int i = 0; i < RTNL_DUMP_ATTEMPTS && r == -EINTR; i++) {
                _cleanup_free_ char *buf = NULL;
                _Alignas(4) char req[RTNL_MSG_MAX];
                size_t len;
                struct nlmsghdr *nlh =
                        rtnl_msg_start(req, RTM_GETADDR, NLM_F_DUMP, sizeof(struct ifaddrmsg));
                /* A hint only: without strict checking the kernel dumps every
                 * link, and the parser filters. */
                ((struct ifaddrmsg *)mnl_nlmsg_get_payload(nlh))->ifa_index = (uint32_t)MAX(ifindex, 0);
                r = rtnl_exchange(rt, nlh, &buf, &len);
                if (r < 0)
                        return rtnl_fail(rt, reterr, r, "listing addresses");
                r = rtnl_addr_dump_parse(
                        buf, len, nlh->nlmsg_seq, rt->portid, ifindex, addrs, max, ret_n, reterr);
                if (r == -EBADMSG || r == -EPROTO)
                        rt->broken = true;
        }
        return r;
}

static int addr_check(const struct rtnl_addr *a, struct mh_error *reterr) {
        size_t n = a ? rtnl_family_addr_len(a->family) : 0;

        if (n == 0 || a->ifindex <= 0 || a->prefixlen > n * 8)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "an address needs a link, the family AF_INET or AF_INET6 and a prefix length "
                        "within its bits");
        if (!memchr(a->label, '\0', sizeof(a->label)))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "an address label is not terminated");
        if (a->valid_lft == 0 || a->preferred_lft > a->valid_lft)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "an address needs a valid lifetime above 0 (UINT32_MAX: forever) and a "
                        "preferred lifetime no longer than it");
        return 0;
}

static int msg_full(struct mh_error *reterr) {
        return mh_error_fail(reterr, -ENOBUFS, "rtnetlink", "address request does not fit the buffer");
}

int rtnl_msg_addr(
        void *buf, size_t size, uint32_t seq, const struct rtnl_addr *a, unsigned add_flags, size_t *ret_len,
        struct mh_error *reterr) {
        int r = addr_check(a, reterr);
        if (r < 0)
                return r;
        if (size < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct ifaddrmsg)))
                return msg_full(reterr);

        size_t n = rtnl_family_addr_len(a->family);
        uint32_t flags = a->flags & ADDR_FLAGS_SENT;
        if (a->family == AF_INET6 && (add_flags & RTNL_ADDR_ADD_NODAD))
                flags |= IFA_F_NODAD;
        struct nlmsghdr *nlh = rtnl_msg_start(
                buf, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, sizeof(struct ifaddrmsg));
        struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
        nlh->nlmsg_seq = seq;
        ifa->ifa_family = (uint8_t)a->family;
        ifa->ifa_prefixlen = a->prefixlen;
        ifa->ifa_flags = (uint8_t)(flags & 0xff); /* the rest only fits IFA_FLAGS */
        ifa->ifa_scope = a->scope;
        ifa->ifa_index = (uint32_t)a->ifindex;
        /* As iproute2 sends it: IFA_LOCAL is the address, IFA_ADDRESS the
         * peer or the address again (the kernel reads a differing one as the
         * peer, for both families). */
        if (!mnl_attr_put_check(nlh, size, IFA_LOCAL, n, a->addr) ||
            !mnl_attr_put_check(nlh, size, IFA_ADDRESS, n, a->has_peer ? a->peer : a->addr) ||
            !mnl_attr_put_u32_check(nlh, size, IFA_FLAGS, flags))
                return msg_full(reterr);
        if (a->family == AF_INET && a->has_broadcast &&
            !mnl_attr_put_check(nlh, size, IFA_BROADCAST, n, a->broadcast))
                return msg_full(reterr);
        if (a->family == AF_INET && a->label[0] && !mnl_attr_put_strz_check(nlh, size, IFA_LABEL, a->label))
                return msg_full(reterr);
        if (a->valid_lft != FOREVER || a->preferred_lft != FOREVER) {
                struct ifa_cacheinfo ci = { .ifa_prefered = a->preferred_lft, .ifa_valid = a->valid_lft };
                if (!mnl_attr_put_check(nlh, size, IFA_CACHEINFO, sizeof(ci), &ci))
                        return msg_full(reterr);
        }
        if (a->rt_priority != 0 && !mnl_attr_put_u32_check(nlh, size, IFA_RT_PRIORITY, a->rt_priority))
                return msg_full(reterr);
        if (a->proto != 0 && !mnl_attr_put_u8_check(nlh, size, IFA_PROTO, a->proto))
                return msg_full(reterr);
        *ret_len = nlh->nlmsg_len;
        return 0;
}

int rtnl_addr_add(struct rtnl *rt, const struct rtnl_addr *a, unsigned add_flags, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        char s[RTNL_ADDR_STR_MAX];
        size_t len;
        int r = rtnl_msg_addr(req, sizeof(req), 0, a, add_flags, &len, reterr);

        if (r < 0)
                return r;
        r = rtnl_ack(rt, (struct nlmsghdr *)req, 0, NULL, NULL);
        if (r == -EEXIST)
                return mh_error_fail(
                        reterr, r, "rtnetlink", "link %d has address %s/%u already", a->ifindex,
                        rtnl_addr_str(a->family, a->addr, s, sizeof(s)), a->prefixlen);
        if (r < 0)
                return rtnl_fail(
                        rt, reterr, r, "adding address %s/%u to link %d",
                        rtnl_addr_str(a->family, a->addr, s, sizeof(s)), a->prefixlen, a->ifindex);
        return 0;
}
