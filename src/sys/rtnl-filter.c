/* The ingress path: an ingress qdisc on a link, a u32 filter there matching
 * everything, whose mirred action redirects it to an IFB's egress. */
#include "sys/rtnl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/tc_act/tc_mirred.h>
#include <string.h>

#include "sys/rtnl-internal.h"

#define FILTER_INFO ((RTNL_FILTER_PRIO << 16) | htons(ETH_P_ALL))
#define FILTERS_MAX 65536u /* entries of one filter dump looked at */

int rtnl_qdisc_ingress_add(struct rtnl *rt, int ifindex, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct nlmsghdr *nlh = rtnl_tc_msg_start(
                req, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, ifindex, RTNL_PARENT_INGRESS,
                RTNL_HANDLE_INGRESS, 0);
        mnl_attr_put_strz(nlh, TCA_KIND, "ingress");
        int r = rtnl_ack(rt, nlh, 0, NULL, NULL);

        if (r == -EEXIST)
                return mh_error_fail(
                        reterr, r, "safety_refusal",
                        "link %d has an ingress (or clsact) qdisc already: not ours to share", ifindex);
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "adding the ingress qdisc on link %d", ifindex);
        return 0;
}

struct filter_scan {
        size_t seen, foreign;
};

static int filter_cb(const struct nlmsghdr *nlh, void *data) {
        struct filter_scan *s = data;
        const struct nlattr *tb[TCA_KIND + 1];
        const struct tcmsg *t;
        char kind[RTNL_KIND_MAX];
        int r = rtnl_tc_msg_parse(nlh, &t, tb, TCA_KIND);

        if (r < 0)
                return r;
        if (++s->seen > FILTERS_MAX)
                return -ENOBUFS;
        if (!tb[TCA_KIND] || rtnl_attr_strcpy(tb[TCA_KIND], kind, sizeof(kind)) < 0 || !streq(kind, "u32") ||
            TC_H_MAJ(t->tcm_info) >> 16 != RTNL_FILTER_PRIO)
                s->foreign++;
        return 0;
}

/* Counts the filters on the ingress qdisc of ifindex and those not ours. */
static int filter_scan(struct rtnl *rt, int ifindex, struct filter_scan *ret, struct mh_error *reterr) {
        int r = -EINTR;

        for (int i = 0; i < RTNL_DUMP_ATTEMPTS && r == -EINTR; i++) {
                _Alignas(4) char req[RTNL_MSG_MAX];
                struct filter_scan s = { 0 };
                struct rtnl_walk w = { .type = RTM_NEWTFILTER, .cb = filter_cb, .data = &s };
                struct nlmsghdr *nlh =
                        rtnl_tc_msg_start(req, RTM_GETTFILTER, 0, ifindex, RTNL_HANDLE_INGRESS, 0, 0);
                r = rtnl_dump(rt, nlh, &w);
                if (r == 0)
                        *ret = s;
        }
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "listing the ingress filters of link %d", ifindex);
        return 0;
}

static void put_mirred(struct nlmsghdr *nlh, int ifb_ifindex) {
        struct tc_mirred m = { .action = TC_ACT_STOLEN,
                               .eaction = TCA_EGRESS_REDIR,
                               .ifindex = (uint32_t)ifb_ifindex };
        struct nlattr *acts = mnl_attr_nest_start(nlh, TCA_U32_ACT);
        struct nlattr *act = mnl_attr_nest_start(nlh, 1); /* the first action of the list */
        mnl_attr_put_strz(nlh, TCA_ACT_KIND, "mirred");
        struct nlattr *opts = mnl_attr_nest_start(nlh, TCA_ACT_OPTIONS);
        mnl_attr_put(nlh, TCA_MIRRED_PARMS, sizeof(m), &m);
        mnl_attr_nest_end(nlh, opts);
        mnl_attr_nest_end(nlh, act);
        mnl_attr_nest_end(nlh, acts);
}

/* The request, well below RTNL_MSG_MAX (about 200 bytes). */
static struct nlmsghdr *redirect_msg(void *buf, int ifindex, int ifb_ifindex) {
        /* One key of mask 0 and value 0 after the selector: matches every
         * packet (iproute2's "match u32 0 0"). */
        _Alignas(4) uint8_t sel[sizeof(struct tc_u32_sel) + sizeof(struct tc_u32_key)] = { 0 };
        struct tc_u32_sel head = { .flags = TC_U32_TERMINAL, .nkeys = 1 };
        memcpy(sel, &head, sizeof(head));
        struct nlmsghdr *nlh = rtnl_tc_msg_start(
                buf, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL, ifindex, RTNL_HANDLE_INGRESS, 0,
                FILTER_INFO);

        mnl_attr_put_strz(nlh, TCA_KIND, "u32");
        struct nlattr *opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
        mnl_attr_put(nlh, TCA_U32_SEL, sizeof(sel), &sel);
        put_mirred(nlh, ifb_ifindex);
        mnl_attr_nest_end(nlh, opts);
        return nlh;
}

int rtnl_filter_redirect_add(struct rtnl *rt, int ifindex, int ifb_ifindex, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct filter_scan s;
        int r;

        if (ifindex <= 0 || ifb_ifindex <= 0)
                return mh_error_fail(reterr, -EINVAL, "invalid_argument", "a redirect needs two links");
        r = filter_scan(rt, ifindex, &s, reterr);
        if (r < 0)
                return r;
        if (s.foreign > 0)
                return mh_error_fail(
                        reterr, -EBUSY, "safety_refusal",
                        "the ingress qdisc of link %d holds filters not ours: not adding to it", ifindex);
        r = rtnl_ack(rt, redirect_msg(req, ifindex, ifb_ifindex), 0, NULL, NULL);
        if (r < 0)
                return rtnl_fail(
                        rt, reterr, r, "redirecting the ingress of link %d to link %d", ifindex,
                        ifb_ifindex);
        return 0;
}

int rtnl_qdisc_ingress_del_ours(struct rtnl *rt, int ifindex, struct mh_error *reterr) {
        struct rtnl_qdisc q;
        struct filter_scan s;
        int r = rtnl_qdisc_find(rt, ifindex, RTNL_PARENT_INGRESS, &q);

        if (r < 0)
                return rtnl_fail(rt, reterr, r, "looking at the qdiscs of link %d", ifindex);
        if (r == 0)
                return 0;
        if (streq(q.kind, "ingress")) {
                r = filter_scan(rt, ifindex, &s, reterr);
                if (r < 0)
                        return r;
        }
        if (!streq(q.kind, "ingress") || s.seen == 0 || s.foreign > 0)
                return mh_error_fail(
                        reterr, -EBUSY, "safety_refusal",
                        "the %s qdisc of link %d is not ours (%s): leaving it", q.kind, ifindex,
                        !streq(q.kind, "ingress") ? "not a plain ingress qdisc"
                        : s.seen == 0             ? "it has no filters"
                                                  : "it has filters not ours");
        r = rtnl_qdisc_del(rt, ifindex, RTNL_PARENT_INGRESS, RTNL_HANDLE_INGRESS, reterr);
        return r < 0 ? r : 1;
}
