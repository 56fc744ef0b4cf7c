/* Routes: listing the unicast routes through a link in an order they can be
 * added back in, and adding one back as it was listed, after the kernel
 * flushed them (link down, MTU below 1280). */
#include "sys/rtnl.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "sys/rtnl-internal.h"

enum route_verdict {
        ROUTE_IGNORED, /* another family, type, link, or a cached clone */
        ROUTE_LISTED,
        ROUTE_SKIPPED, /* through the link, but not something struct rtnl_route can say */
};

struct route_filter {
        int family, oif;
};

static int addr_opt(const struct nlattr *a, size_t n, unsigned char *out, bool *has) {
        if (!a)
                return 0;
        *has = true;
        return rtnl_attr_addr(a, n, out);
}

/* Whether a hop of the RTA_MULTIPATH payload [p, p + len) goes through oif (0:
 * any); -EBADMSG when a hop or its attributes do not fit. */
static int multipath_through(const uint8_t *p, size_t len, int oif) {
        const struct nlattr *tb[RTA_MAX + 1];
        bool through = false;

        while (len > 0) {
                struct rtnexthop nh;
                if (len < sizeof(nh))
                        return -EBADMSG;
                memcpy(&nh, p, sizeof(nh));
                if (nh.rtnh_len < sizeof(nh) || nh.rtnh_len > len)
                        return -EBADMSG;
                if (rtnl_attrs_parse(p + sizeof(nh), nh.rtnh_len - sizeof(nh), tb, RTA_MAX) < 0)
                        return -EBADMSG;
                through = through || oif == 0 || nh.rtnh_ifindex == oif;
                size_t step = RTNH_ALIGN(nh.rtnh_len);
                if (step >= len)
                        break;
                p += step;
                len -= step;
        }
        return through;
}

static int route_attrs(
        const struct nlattr *const *tb, size_t n, struct rtnl_route *rt, bool *metrics_too_long) {
        uint32_t u;

        if (tb[RTA_TABLE] && rtnl_attr_u32(tb[RTA_TABLE], &rt->table) < 0)
                return -EBADMSG;
        if (tb[RTA_PRIORITY] && rtnl_attr_u32(tb[RTA_PRIORITY], &rt->priority) < 0)
                return -EBADMSG;
        if (tb[RTA_OIF]) {
                if (rtnl_attr_u32(tb[RTA_OIF], &u) < 0 || u == 0 || u > INT32_MAX)
                        return -EBADMSG;
                rt->oif = (int)u;
        }
        if (addr_opt(tb[RTA_DST], n, rt->dst, &rt->has_dst) < 0 ||
            addr_opt(tb[RTA_SRC], n, rt->src, &rt->has_src) < 0 ||
            addr_opt(tb[RTA_GATEWAY], n, rt->gateway, &rt->has_gateway) < 0 ||
            addr_opt(tb[RTA_PREFSRC], n, rt->prefsrc, &rt->has_prefsrc) < 0)
                return -EBADMSG;
        /* The kernel sends a prefix's address whenever its length is not 0. */
        if ((rt->dst_len > 0 && !rt->has_dst) || (rt->src_len > 0 && !rt->has_src))
                return -EBADMSG;
        if (rt->family == AF_INET6 && tb[RTA_PREF]) {
                if (mnl_attr_get_payload_len(tb[RTA_PREF]) < 1)
                        return -EBADMSG;
                rt->pref = *(const uint8_t *)mnl_attr_get_payload(tb[RTA_PREF]);
        }
        if (tb[RTA_METRICS]) {
                const struct nlattr *mx[RTAX_MAX + 1];
                size_t mlen = mnl_attr_get_payload_len(tb[RTA_METRICS]);
                if (rtnl_attrs_parse(mnl_attr_get_payload(tb[RTA_METRICS]), mlen, mx, RTAX_MAX) < 0)
                        return -EBADMSG;
                if (mlen > sizeof(rt->metrics))
                        *metrics_too_long = true;
                else {
                        memcpy(rt->metrics, mnl_attr_get_payload(tb[RTA_METRICS]), mlen);
                        rt->metrics_len = (uint16_t)mlen;
                }
        }
        return 0;
}

/* What the route in nlh is to a listing through f; *ret filled when it is
 * listed. -EBADMSG when the message or an attribute does not fit. Every
 * IPv4 / IPv6 message is checked whole, listed or not. */
static int route_from_msg(const struct nlmsghdr *nlh, const struct route_filter *f, struct rtnl_route *ret) {
        const struct nlattr *tb[RTA_MAX + 1];
        const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
        size_t hl = MNL_ALIGN(sizeof(*rtm)), plen = mnl_nlmsg_get_payload_len(nlh);
        bool metrics_too_long = false;
        int r;

        if (plen < hl)
                return -EBADMSG;
        r = rtnl_attrs_parse((const uint8_t *)rtm + hl, plen - hl, tb, RTA_MAX);
        if (r < 0)
                return r;
        size_t n = rtnl_family_addr_len(rtm->rtm_family);
        if (n == 0) /* an AF_UNSPEC dump answers for every family (ipmr, mpls, ...) */
                return ROUTE_IGNORED;
        if (rtm->rtm_dst_len > n * 8 || rtm->rtm_src_len > n * 8)
                return -EBADMSG;
        struct rtnl_route rt = {
                .family = rtm->rtm_family,
                .dst_len = rtm->rtm_dst_len,
                .src_len = rtm->rtm_src_len,
                .tos = rtm->rtm_tos,
                .protocol = rtm->rtm_protocol,
                .scope = rtm->rtm_scope,
                .type = rtm->rtm_type,
                .flags = rtm->rtm_flags,
                .table = rtm->rtm_table,
        };
        r = route_attrs(tb, n, &rt, &metrics_too_long);
        if (r < 0)
                return r;
        int through_multipath = 0;
        if (tb[RTA_MULTIPATH]) {
                through_multipath = multipath_through(
                        mnl_attr_get_payload(tb[RTA_MULTIPATH]), mnl_attr_get_payload_len(tb[RTA_MULTIPATH]),
                        f->oif);
                if (through_multipath < 0)
                        return through_multipath;
        }

        if ((f->family != AF_UNSPEC && rt.family != f->family) || rt.type != RTN_UNICAST ||
            (rt.flags & RTM_F_CLONED))
                return ROUTE_IGNORED;
        if (!(f->oif == 0 || rt.oif == f->oif || through_multipath))
                return ROUTE_IGNORED;
        if (tb[RTA_MULTIPATH] || tb[RTA_NH_ID] || tb[RTA_VIA] || tb[RTA_ENCAP] || metrics_too_long)
                return ROUTE_SKIPPED;
        *ret = rt;
        return ROUTE_LISTED;
}

/* The reply is walked twice: routes without a gateway are listed in the
 * first pass, those with one in the second (a stable partition without a
 * copy), skipped ones counted in the first. */
struct route_acc {
        struct route_filter f;
        bool gateways; /* the pass */
        struct rtnl_route *routes;
        size_t max, n, skipped;
};

static int route_cb(const struct nlmsghdr *nlh, void *data) {
        struct route_acc *acc = data;
        struct rtnl_route rt;
        int r = route_from_msg(nlh, &acc->f, &rt);

        if (r < 0)
                return r;
        if (r == ROUTE_SKIPPED && !acc->gateways)
                acc->skipped++;
        if (r != ROUTE_LISTED || rt.has_gateway != acc->gateways)
                return 0;
        if (acc->n >= acc->max)
                return -ENOBUFS;
        acc->routes[acc->n++] = rt;
        return 0;
}

static int family_check(int family, struct mh_error *reterr) {
        if (family != AF_UNSPEC && family != AF_INET && family != AF_INET6)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "routes are listed for AF_INET, AF_INET6 or AF_UNSPEC, not family %d", family);
        return 0;
}

int rtnl_route_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, int family, int oif,
        struct rtnl_route *routes, size_t max, size_t *ret_n, size_t *ret_skipped, struct mh_error *reterr) {
        struct route_acc acc = { .f = { .family = family, .oif = oif }, .routes = routes, .max = max };
        struct rtnl_walk w = {
                .seq = seq, .portid = portid, .type = RTM_NEWROUTE, .cb = route_cb, .data = &acc
        };
        int r = family_check(family, reterr);

        if (r < 0)
                return r;
        r = rtnl_walk_reply(buf, len, &w);
        if (r == 0) {
                acc.gateways = true;
                r = rtnl_walk_reply(buf, len, &w);
        }
        if (r < 0)
                return rtnl_parse_error(reterr, r, "route", w.ext);
        *ret_n = acc.n;
        if (ret_skipped)
                *ret_skipped = acc.skipped;
        return 0;
}

int rtnl_route_list(
        struct rtnl *rt, int family, int oif, struct rtnl_route *routes, size_t max, size_t *ret_n,
        size_t *ret_skipped, struct mh_error *reterr) {
        int r = family_check(family, reterr);

        if (r < 0)
                return r;
        r = -EINTR;
        for (int i = 0; i < RTNL_DUMP_ATTEMPTS && r == -EINTR; i++) {
                _cleanup_free_ char *buf = NULL;
                _Alignas(4) char req[RTNL_MSG_MAX];
                size_t len;
                struct nlmsghdr *nlh = rtnl_msg_start(req, RTM_GETROUTE, NLM_F_DUMP, sizeof(struct rtmsg));
                ((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_family = (uint8_t)family;
                r = rtnl_exchange(rt, nlh, &buf, &len);
                if (r < 0)
                        return rtnl_fail(rt, reterr, r, "listing routes");
                r = rtnl_route_dump_parse(
                        buf, len, nlh->nlmsg_seq, rt->portid, family, oif, routes, max, ret_n, ret_skipped,
                        reterr);
                if (r == -EBADMSG || r == -EPROTO)
                        rt->broken = true;
        }
        return r;
}

static int route_check(const struct rtnl_route *r, struct mh_error *reterr) {
        size_t n = r ? rtnl_family_addr_len(r->family) : 0;

        if (n == 0 || r->dst_len > n * 8 || r->src_len > n * 8 || (r->dst_len > 0 && !r->has_dst) ||
            (r->src_len > 0 && !r->has_src) || r->oif < 0)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "a route needs the family AF_INET or AF_INET6 and its destination and source "
                        "prefixes within its bits, with their addresses");
        if (r->type != RTN_UNICAST)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "only unicast routes are added, not type %u",
                        r->type);
        if (r->metrics_len > sizeof(r->metrics))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "route metrics of %u bytes do not fit",
                        r->metrics_len);
        return 0;
}

static int msg_full(struct mh_error *reterr) {
        return mh_error_fail(reterr, -ENOBUFS, "rtnetlink", "route request does not fit the buffer");
}

static bool put_addr(struct nlmsghdr *nlh, size_t size, uint16_t type, bool has, size_t n, const void *a) {
        return !has || mnl_attr_put_check(nlh, size, type, n, a);
}

int rtnl_msg_route(
        void *buf, size_t size, uint32_t seq, const struct rtnl_route *r, size_t *ret_len,
        struct mh_error *reterr) {
        int k = route_check(r, reterr);
        if (k < 0)
                return k;
        if (size < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct rtmsg)))
                return msg_full(reterr);

        size_t n = rtnl_family_addr_len(r->family);
        struct nlmsghdr *nlh = rtnl_msg_start(
                buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, sizeof(struct rtmsg));
        struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
        nlh->nlmsg_seq = seq;
        rtm->rtm_family = (uint8_t)r->family;
        rtm->rtm_dst_len = r->dst_len;
        rtm->rtm_src_len = r->src_len;
        rtm->rtm_tos = r->tos;
        rtm->rtm_table = r->table < 256 ? (uint8_t)r->table : RT_TABLE_COMPAT; /* RTA_TABLE says which */
        rtm->rtm_protocol = r->protocol;
        rtm->rtm_scope = r->scope;
        rtm->rtm_type = r->type;
        rtm->rtm_flags = r->flags & RTNH_F_ONLINK;
        if (!mnl_attr_put_u32_check(nlh, size, RTA_TABLE, r->table) ||
            !put_addr(nlh, size, RTA_DST, r->has_dst, n, r->dst) ||
            !put_addr(nlh, size, RTA_SRC, r->has_src, n, r->src) ||
            (r->oif > 0 && !mnl_attr_put_u32_check(nlh, size, RTA_OIF, (uint32_t)r->oif)) ||
            !put_addr(nlh, size, RTA_GATEWAY, r->has_gateway, n, r->gateway) ||
            !put_addr(nlh, size, RTA_PREFSRC, r->has_prefsrc, n, r->prefsrc) ||
            (r->priority != 0 && !mnl_attr_put_u32_check(nlh, size, RTA_PRIORITY, r->priority)) ||
            (r->metrics_len > 0 &&
             !mnl_attr_put_check(nlh, size, RTA_METRICS, r->metrics_len, r->metrics)) ||
            (r->family == AF_INET6 && !mnl_attr_put_u8_check(nlh, size, RTA_PREF, r->pref)))
                return msg_full(reterr);
        *ret_len = nlh->nlmsg_len;
        return 0;
}

/* "10.0.0.0/24 via 10.0.0.1 dev 3 table 254 metric 0", for messages. */
static const char *route_str(const struct rtnl_route *r, char *buf, size_t size) {
        char dst[RTNL_ADDR_STR_MAX + 8] = "default", a[RTNL_ADDR_STR_MAX], gw[RTNL_ADDR_STR_MAX + 8] = "";

        if (r->has_dst || r->dst_len > 0)
                (void)snprintf(
                        dst, sizeof(dst), "%s/%u", rtnl_addr_str(r->family, r->dst, a, sizeof(a)),
                        r->dst_len);
        if (r->has_gateway)
                (void)snprintf(
                        gw, sizeof(gw), " via %s", rtnl_addr_str(r->family, r->gateway, a, sizeof(a)));
        (void)snprintf(buf, size, "%s%s dev %d table %u metric %u", dst, gw, r->oif, r->table, r->priority);
        return buf;
}

int rtnl_route_add(struct rtnl *rt, const struct rtnl_route *r, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        char s[2 * RTNL_ADDR_STR_MAX + 80];
        size_t len;
        int k = rtnl_msg_route(req, sizeof(req), 0, r, &len, reterr);

        if (k < 0)
                return k;
        k = rtnl_ack(rt, (struct nlmsghdr *)req, 0, NULL, NULL);
        if (k == -EEXIST)
                return mh_error_fail(
                        reterr, k, "rtnetlink", "route %s exists already", route_str(r, s, sizeof(s)));
        if (k < 0)
                return rtnl_fail(rt, reterr, k, "adding route %s", route_str(r, s, sizeof(s)));
        return 0;
}
