/* Adding and removing the root qdiscs of network faults (tbf, netem), with
 * the ownership rules of sys/rtnl.h. */
#include "sys/rtnl.h"

#include <errno.h>
#include <linux/pkt_sched.h>
#include <string.h>

#include "sys/rtnl-internal.h"

#define QDISC_FLAGS (NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK)

static int msg_room(size_t size, struct mh_error *reterr) {
        if (size < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct tcmsg)) + 64)
                return mh_error_fail(
                        reterr, -ENOBUFS, "rtnetlink", "%zu bytes are too few for a qdisc request", size);
        return 0;
}

static int msg_full(struct mh_error *reterr) {
        return mh_error_fail(reterr, -ENOBUFS, "rtnetlink", "qdisc request does not fit the buffer");
}

static struct nlmsghdr *qdisc_msg_start(void *buf, uint32_t seq, int ifindex) {
        struct nlmsghdr *nlh =
                rtnl_tc_msg_start(buf, RTM_NEWQDISC, QDISC_FLAGS, ifindex, RTNL_PARENT_ROOT, RTNL_HANDLE, 0);
        nlh->nlmsg_seq = seq;
        return nlh;
}

static int tbf_check(int ifindex, const struct rtnl_tbf *tbf, struct mh_error *reterr) {
        if (ifindex <= 0 || !tbf || tbf->rate == 0 || tbf->burst == 0 || tbf->limit == 0)
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "tbf needs a link, a rate, a burst and a limit above 0");
        return 0;
}

int rtnl_msg_tbf(
        void *buf, size_t size, uint32_t seq, int ifindex, const struct rtnl_tbf *tbf, size_t *ret_len,
        struct mh_error *reterr) {
        int r = tbf_check(ifindex, tbf, reterr);
        if (r < 0)
                return r;
        r = msg_room(size, reterr);
        if (r < 0)
                return r;

        /* Table-free rate: the kernel computes from rate.rate / TCA_TBF_RATE64
         * and takes the bucket from TCA_TBF_BURST (Linux >= 3.13); a link
         * layer other than "unaware" tells it not to look for a rate table. */
        struct tc_tbf_qopt opt = {
                .rate = { .rate = (uint32_t)MIN(tbf->rate, (uint64_t)UINT32_MAX),
                          .linklayer = TC_LINKLAYER_ETHERNET },
                .limit = tbf->limit,
                .buffer = rtnl_xmittime(tbf->rate, tbf->burst),
        };
        struct nlmsghdr *nlh = qdisc_msg_start(buf, seq, ifindex);
        if (!mnl_attr_put_strz_check(nlh, size, TCA_KIND, "tbf"))
                return msg_full(reterr);
        struct nlattr *nest = mnl_attr_nest_start_check(nlh, size, TCA_OPTIONS);
        if (!nest || !mnl_attr_put_check(nlh, size, TCA_TBF_PARMS, sizeof(opt), &opt) ||
            !mnl_attr_put_u64_check(nlh, size, TCA_TBF_RATE64, tbf->rate) ||
            !mnl_attr_put_u32_check(nlh, size, TCA_TBF_BURST, tbf->burst))
                return msg_full(reterr);
        mnl_attr_nest_end(nlh, nest);
        *ret_len = nlh->nlmsg_len;
        return 0;
}

static bool pct_ok(double p) {
        return p >= 0 && p <= 100; /* false for NaN */
}

static uint32_t pct_to_prob(double p) {
        double v = p / 100.0 * (double)UINT32_MAX + 0.5;
        return v >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int netem_check(int ifindex, const struct rtnl_netem *n, struct mh_error *reterr) {
        if (ifindex <= 0 || !n || n->limit == 0 || n->delay_ns > INT64_MAX || n->jitter_ns > INT64_MAX ||
            !pct_ok(n->loss) || !pct_ok(n->duplicate) || !pct_ok(n->corrupt) || !pct_ok(n->reorder))
                return mh_error_fail(
                        reterr, -EINVAL, "invalid_argument",
                        "netem needs a link, a limit above 0, delays up to INT64_MAX ns and "
                        "percentages 0..100");
        if (n->reorder > 0 && n->delay_ns == 0)
                return mh_error_fail(reterr, -EINVAL, "invalid_argument", "netem reordering needs a delay");
        return 0;
}

static bool netem_attrs(struct nlmsghdr *nlh, size_t size, const struct rtnl_netem *n) {
        struct tc_netem_reorder reorder = { .probability = pct_to_prob(n->reorder) };
        struct tc_netem_corrupt corrupt = { .probability = pct_to_prob(n->corrupt) };

        if (!mnl_attr_put_check(
                    nlh, size, TCA_NETEM_LATENCY64, sizeof(int64_t), &(int64_t){ (int64_t)n->delay_ns }) ||
            !mnl_attr_put_check(
                    nlh, size, TCA_NETEM_JITTER64, sizeof(int64_t), &(int64_t){ (int64_t)n->jitter_ns }))
                return false;
        if (n->reorder > 0 && !mnl_attr_put_check(nlh, size, TCA_NETEM_REORDER, sizeof(reorder), &reorder))
                return false;
        if (n->corrupt > 0 && !mnl_attr_put_check(nlh, size, TCA_NETEM_CORRUPT, sizeof(corrupt), &corrupt))
                return false;
        return true;
}

int rtnl_msg_netem(
        void *buf, size_t size, uint32_t seq, int ifindex, const struct rtnl_netem *netem, size_t *ret_len,
        struct mh_error *reterr) {
        int r = netem_check(ifindex, netem, reterr);
        if (r < 0)
                return r;
        r = msg_room(size, reterr);
        if (r < 0)
                return r;

        /* netem's TCA_OPTIONS is a struct tc_netem_qopt followed by
         * attributes, not a plain nest (iproute2's q_netem.c). */
        struct tc_netem_qopt opt = {
                .latency = rtnl_ns_to_ticks(netem->delay_ns),
                .jitter = rtnl_ns_to_ticks(netem->jitter_ns),
                .limit = netem->limit,
                .loss = pct_to_prob(netem->loss),
                .duplicate = pct_to_prob(netem->duplicate),
                .gap = netem->reorder > 0 ? 1 : 0,
        };
        struct nlmsghdr *nlh = qdisc_msg_start(buf, seq, ifindex);
        if (!mnl_attr_put_strz_check(nlh, size, TCA_KIND, "netem"))
                return msg_full(reterr);
        struct nlattr *nest = mnl_attr_nest_start_check(nlh, size, TCA_OPTIONS);
        if (!nest || nlh->nlmsg_len + MNL_ALIGN(sizeof(opt)) > size)
                return msg_full(reterr);
        memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(opt)), &opt, sizeof(opt));
        if (!netem_attrs(nlh, size, netem))
                return msg_full(reterr);
        mnl_attr_nest_end(nlh, nest);
        *ret_len = nlh->nlmsg_len;
        return 0;
}

static int refuse_root(int ifindex, const char *kind, struct mh_error *reterr) {
        return mh_error_fail(
                reterr, -EBUSY, "safety_refusal",
                "link %d has a root qdisc someone configured: not adding %s over it", ifindex, kind);
}

/* Sends a built root-qdisc request after the default-root check. */
static int root_add(
        struct rtnl *rt, int ifindex, struct nlmsghdr *nlh, const char *kind, struct mh_error *reterr) {
        int r = rtnl_root_qdisc_is_default(rt, ifindex, reterr);
        if (r < 0)
                return r;
        if (r == 0)
                return refuse_root(ifindex, kind, reterr);
        r = rtnl_ack(rt, nlh, 0, NULL, NULL);
        if (r == -EEXIST) /* a qdisc was added meanwhile: exclusive create refused */
                return refuse_root(ifindex, kind, reterr);
        if (r == -ENOENT)
                return mh_error_fail(
                        reterr, r, "kernel_feature", "this kernel has no %s qdisc (sch_%s)", kind, kind);
        if (r < 0)
                return rtnl_fail(rt, reterr, r, "adding %s on link %d", kind, ifindex);
        return 0;
}

int rtnl_qdisc_tbf_add(struct rtnl *rt, int ifindex, const struct rtnl_tbf *tbf, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        size_t len;
        int r = rtnl_msg_tbf(req, sizeof(req), 0, ifindex, tbf, &len, reterr);

        return r < 0 ? r : root_add(rt, ifindex, (struct nlmsghdr *)req, "tbf", reterr);
}

int rtnl_qdisc_netem_add(
        struct rtnl *rt, int ifindex, const struct rtnl_netem *netem, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        size_t len;
        int r = rtnl_msg_netem(req, sizeof(req), 0, ifindex, netem, &len, reterr);

        return r < 0 ? r : root_add(rt, ifindex, (struct nlmsghdr *)req, "netem", reterr);
}

int rtnl_qdisc_del(struct rtnl *rt, int ifindex, uint32_t parent, uint32_t handle, struct mh_error *reterr) {
        _Alignas(4) char req[RTNL_MSG_MAX];
        struct nlmsghdr *nlh = rtnl_tc_msg_start(req, RTM_DELQDISC, 0, ifindex, parent, handle, 0);
        int r = rtnl_ack(rt, nlh, 0, NULL, NULL);

        if (r < 0)
                return rtnl_fail(
                        rt, reterr, r, "deleting qdisc %x: at parent %x of link %d", handle >> 16, parent,
                        ifindex);
        return 0;
}

int rtnl_qdisc_del_ours(
        struct rtnl *rt, int ifindex, uint32_t parent, const char *kind, struct mh_error *reterr) {
        struct rtnl_qdisc q;
        int r = rtnl_qdisc_find(rt, ifindex, parent, &q);

        if (r < 0)
                return rtnl_fail(rt, reterr, r, "looking at the qdiscs of link %d", ifindex);
        if (r == 0 || (parent == RTNL_PARENT_ROOT && q.handle == 0))
                return 0; /* nothing there, or the kernel's default */
        if (q.handle != RTNL_HANDLE || !kind || !streq(q.kind, kind))
                return mh_error_fail(
                        reterr, -EBUSY, "safety_refusal",
                        "the qdisc at parent %x of link %d is %s %x:, not ours: leaving it", parent, ifindex,
                        q.kind, q.handle >> 16);
        r = rtnl_qdisc_del(rt, ifindex, parent, RTNL_HANDLE, reterr);
        return r < 0 ? r : 1;
}
