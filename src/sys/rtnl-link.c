/* Links: listing them, their state and MTU, deleting one, and the IFB devices the
 * ingress redirect sends traffic through. */
#include "sys/rtnl.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "sys/rtnl-internal.h"

static int link_from_msg(const struct nlmsghdr *nlh, struct rtnl_link *ret) {
        const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
        const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
        size_t hl = MNL_ALIGN(sizeof(*ifi));
        struct rtnl_link l = { 0 };
        int r;

        if (mnl_nlmsg_get_payload_len(nlh) < hl)
                return -EBADMSG;
        r = rtnl_attrs_parse((const uint8_t *)ifi + hl, mnl_nlmsg_get_payload_len(nlh) - hl, tb, IFLA_MAX);
        if (r < 0)
                return r;
        l.ifindex = ifi->ifi_index;
        l.up = ifi->ifi_flags & IFF_UP;
        if (!tb[IFLA_IFNAME] || rtnl_attr_strcpy(tb[IFLA_IFNAME], l.name, sizeof(l.name)) < 0)
                return -EBADMSG;
        if (tb[IFLA_MTU]) {
                if (mnl_attr_get_payload_len(tb[IFLA_MTU]) < sizeof(uint32_t))
                        return -EBADMSG;
                l.mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
        }
        if (tb[IFLA_LINK]) {
                if (mnl_attr_get_payload_len(tb[IFLA_LINK]) < sizeof(uint32_t))
                        return -EBADMSG;
                l.link = (int)mnl_attr_get_u32(tb[IFLA_LINK]);
        }
        if (tb[IFLA_LINKINFO]) {
                r = rtnl_attrs_parse(
                        mnl_attr_get_payload(tb[IFLA_LINKINFO]), mnl_attr_get_payload_len(tb[IFLA_LINKINFO]),
                        info, IFLA_INFO_MAX);
                if (r < 0)
                        return r;
                if (info[IFLA_INFO_KIND] &&
                    rtnl_attr_strcpy(info[IFLA_INFO_KIND], l.kind, sizeof(l.kind)) < 0)
                        return -EBADMSG;
        }
        *ret = l;
        return 0;
}

struct link_acc {
        struct rtnl_link *links;
        size_t max, n;
};

static int link_cb(const struct nlmsghdr *nlh, void *data) {
        struct link_acc *acc = data;
        struct rtnl_link l;
        int r = link_from_msg(nlh, &l);

        if (r < 0)
                return r;
        if (acc->n >= acc->max)
                return -ENOBUFS;
        acc->links[acc->n++] = l;
        return 0;
}

int rtnl_link_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, struct rtnl_link *links, size_t max,
        size_t *ret_n, struct mh_error *reterr) {
        struct link_acc acc = { .links = links, .max = max };
        struct rtnl_walk w = {
                .seq = seq, .portid = portid, .type = RTM_NEWLINK, .cb = link_cb, .data = &acc
        };
        int r = rtnl_walk_reply(buf, len, &w);

        if (r < 0)
                return rtnl_parse_error(reterr, r, "link", w.ext);
        *ret_n = acc.n;
        return 0;
}

int rtnl_link_list(
        struct rtnl *rt, struct rtnl_link *links, size_t max, size_t *ret_n, struct mh_error *reterr) {
        int r = -EINTR;

        for (int i = 0; i < RTNL_DUMP_ATTEMPTS && r == -EINTR; i++) {
                _cleanup_free_ char *buf = NULL;
                _Alignas(4) char req[RTNL_MSG_MAX];
                size_t len;
                struct nlmsghdr *nlh =
                        rtnl_msg_start(req, RTM_GETLINK, NLM_F_DUMP, sizeof(struct ifinfomsg));
                r = rtnl_exchange(rt, nlh, &buf, &len);
                if (r < 0)
                        return rtnl_fail(rt, reterr, r, "listing links");
                r = rtnl_link_dump_parse(buf, len, nlh->nlmsg_seq, rt->portid, links, max, ret_n, reterr);
                if (r == -EBADMSG || r == -EPROTO)
                        rt->broken = true;
        }
        return r;
}

static int link_get_cb(const struct nlmsghdr *nlh, void *data) {
        return link_from_msg(nlh, data);
}

int rtnl_link_get(struct rtnl *rt, const char *name, struct rtnl_link *ret, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct rtnl_link l = { .ifindex = 0 };
        size_t n = name ? strnlen(name, IF_NAMESIZE) : 0;

        if (n == 0 || n >= IF_NAMESIZE)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "a link name has 1 to %d bytes",
                        IF_NAMESIZE - 1);
        struct nlmsghdr *nlh = rtnl_msg_start(req, RTM_GETLINK, 0, sizeof(struct ifinfomsg));
        mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
        int r = rtnl_ack(rt, nlh, RTM_NEWLINK, link_get_cb, &l);
        if (r == -ENODEV)
                return mh_error_fail(reterr, r, "rtnetlink", "no link called %s", name);
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "looking up link %s", name);
        if (l.ifindex <= 0)
                return rtnl_fail(rt, reterr, -EPROTO, "looking up link %s", name);
        *ret = l;
        return 0;
}

int rtnl_link_ifindex(struct rtnl *rt, const char *name, int *ret_ifindex, struct mh_error *reterr) {
        struct rtnl_link l;
        int r = rtnl_link_get(rt, name, &l, reterr);

        if (r < 0)
                return r;
        *ret_ifindex = l.ifindex;
        return 0;
}

int rtnl_link_set_state(struct rtnl *rt, int ifindex, bool up, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct nlmsghdr *nlh = rtnl_msg_start(req, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
        struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

        ifi->ifi_index = ifindex;
        ifi->ifi_flags = up ? IFF_UP : 0;
        ifi->ifi_change = IFF_UP;
        int r = rtnl_ack(rt, nlh, 0, NULL, NULL);
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "setting link %d %s", ifindex, up ? "up" : "down");
        return 0;
}

int rtnl_link_set_up(struct rtnl *rt, int ifindex, struct mh_error *reterr) {
        return rtnl_link_set_state(rt, ifindex, true, reterr);
}

int rtnl_link_set_mtu(struct rtnl *rt, int ifindex, uint32_t mtu, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct nlmsghdr *nlh = rtnl_msg_start(req, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));

        ((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_index = ifindex;
        mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
        int r = rtnl_ack(rt, nlh, 0, NULL, NULL);
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "setting the MTU of link %d to %u", ifindex, mtu);
        return 0;
}

int rtnl_link_del(struct rtnl *rt, int ifindex, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct nlmsghdr *nlh = rtnl_msg_start(req, RTM_DELLINK, 0, sizeof(struct ifinfomsg));

        ((struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_index = ifindex;
        int r = rtnl_ack(rt, nlh, 0, NULL, NULL);
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "deleting link %d", ifindex);
        return 0;
}

int rtnl_ifb_create(struct rtnl *rt, const char *name, int *ret_ifindex, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        size_t n = name ? strnlen(name, IF_NAMESIZE) : 0;

        if (n == 0 || n >= IF_NAMESIZE)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument", "a link name has 1 to %d bytes",
                        IF_NAMESIZE - 1);
        struct nlmsghdr *nlh =
                rtnl_msg_start(req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, sizeof(struct ifinfomsg));
        mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
        struct nlattr *li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
        mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "ifb");
        mnl_attr_nest_end(nlh, li);
        int r = rtnl_ack(rt, nlh, 0, NULL, NULL);
        if (r == -EOPNOTSUPP)
                return mh_error_fail(
                        reterr, r, "kernel_feature",
                        "creating IFB device %s: this kernel has no IFB devices (CONFIG_IFB)", name);
        if (r == -EEXIST)
                return mh_error_fail(reterr, r, "rtnetlink", "a link called %s exists already", name);
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "creating IFB device %s", name);
        return ret_ifindex ? rtnl_link_ifindex(rt, name, ret_ifindex, reterr) : 0;
}

int rtnl_ifb_del(struct rtnl *rt, const char *name, struct mh_error *reterr) {
        struct rtnl_link l;
        struct mh_error e = { 0 };
        int r = rtnl_link_get(rt, name, &l, &e);

        if (r == -ENODEV)
                return 0;
        if (r < 0) {
                if (reterr)
                        *reterr = e;
                return r;
        }
        if (!streq(l.kind, "ifb"))
                return mh_error_fail(
                        reterr, -EBUSY, "safety_refusal",
                        "link %s is a %s device, not an IFB: not deleting it", name,
                        l.kind[0] ? l.kind : "plain");
        r = rtnl_link_del(rt, l.ifindex, &e);
        if (r == -ENODEV)
                return 0; /* gone meanwhile */
        if (r < 0 && reterr)
                *reterr = e;
        return r < 0 ? r : 1;
}
