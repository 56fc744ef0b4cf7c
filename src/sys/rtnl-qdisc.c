/* Qdiscs: listing them, telling a kernel default from a configured one, and
 * adding and removing the tbf / netem qdiscs of network faults. */
#include "sys/rtnl.h"

#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <string.h>

#include "sys/rtnl-internal.h"

/* ---- the packet scheduler clock ---- */

/* Scheduler ticks per microsecond, from /proc/net/psched the way iproute2's
 * tc_core_init() reads it. Every kernel since 2.6.31 reports 1000 ns per us
 * and 64 ns per tick (PSCHED_SHIFT 6), which is the fallback. */
static double tick_in_usec(void) {
        static double cached; /* 0 until read */
        double t;
        unsigned t2us = 0, us2t = 0, res = 0;

        __atomic_load(&cached, &t, __ATOMIC_ACQUIRE);
        if (t > 0)
                return t;
        t = 1000.0 / 64.0;
        FILE *f = fopen("/proc/net/psched", "re");
        if (f) {
                if (fscanf(f, "%08x%08x%08x", &t2us, &us2t, &res) == 3 && t2us > 0 && us2t > 0 && res > 0) {
                        if (res == 1000000000u)
                                t2us = us2t; /* iproute2's compatibility rule */
                        t = (double)t2us / us2t * ((double)res / 1e6);
                }
                fclose(f);
        }
        __atomic_store(&cached, &t, __ATOMIC_RELEASE);
        return t;
}

static uint32_t us_to_ticks(double us) {
        double t = us * tick_in_usec();
        return t >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

uint32_t rtnl_xmittime(uint64_t rate, uint64_t size) {
        return rate == 0 ? UINT32_MAX : us_to_ticks(1e6 * (double)size / (double)rate);
}

uint32_t rtnl_ns_to_ticks(uint64_t ns) {
        return us_to_ticks((double)ns / 1000.0);
}

/* ---- parsing ---- */

int rtnl_tc_msg_parse(
        const struct nlmsghdr *nlh, const struct tcmsg **ret_t, const struct nlattr **tb, uint16_t max) {
        const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
        size_t hl = MNL_ALIGN(sizeof(*t)), plen = mnl_nlmsg_get_payload_len(nlh);
        int r;

        if (plen < hl)
                return -EBADMSG;
        r = rtnl_attrs_parse((const uint8_t *)t + hl, plen - hl, tb, max);
        if (r < 0)
                return r;
        *ret_t = t;
        return 0;
}

/* TCA_STATS2's basic and queue counters; a short or missing one reads as 0. */
static int stats_from_attr(const struct nlattr *a, struct rtnl_qdisc *q) {
        const struct nlattr *st[TCA_STATS_QUEUE + 1];
        struct gnet_stats_basic b;
        struct gnet_stats_queue qs;
        int r = rtnl_attrs_parse(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a), st, TCA_STATS_QUEUE);
        if (r < 0)
                return r;
        if (st[TCA_STATS_BASIC] && mnl_attr_get_payload_len(st[TCA_STATS_BASIC]) >= sizeof(b)) {
                memcpy(&b, mnl_attr_get_payload(st[TCA_STATS_BASIC]), sizeof(b));
                q->bytes = b.bytes, q->packets = b.packets;
        }
        if (st[TCA_STATS_QUEUE] && mnl_attr_get_payload_len(st[TCA_STATS_QUEUE]) >= sizeof(qs)) {
                memcpy(&qs, mnl_attr_get_payload(st[TCA_STATS_QUEUE]), sizeof(qs));
                q->qlen = qs.qlen, q->backlog = qs.backlog, q->drops = qs.drops, q->requeues = qs.requeues,
                q->overlimits = qs.overlimits;
        }
        return 0;
}

static int qdisc_from_msg(const struct nlmsghdr *nlh, struct rtnl_qdisc *ret) {
        const struct nlattr *tb[TCA_STATS2 + 1];
        const struct tcmsg *t;
        struct rtnl_qdisc q = { 0 };
        int r = rtnl_tc_msg_parse(nlh, &t, tb, TCA_STATS2);

        if (r < 0)
                return r;
        if (tb[TCA_STATS2] && (r = stats_from_attr(tb[TCA_STATS2], &q)) < 0)
                return r;
        if (!tb[TCA_KIND] || rtnl_attr_strcpy(tb[TCA_KIND], q.kind, sizeof(q.kind)) < 0)
                return -EBADMSG;
        q.ifindex = t->tcm_ifindex;
        q.handle = t->tcm_handle;
        q.parent = t->tcm_parent;
        *ret = q;
        return 0;
}

struct qdisc_acc {
        int ifindex;
        struct rtnl_qdisc *qdiscs;
        size_t max, n;
};

static int qdisc_cb(const struct nlmsghdr *nlh, void *data) {
        struct qdisc_acc *acc = data;
        struct rtnl_qdisc q;
        int r = qdisc_from_msg(nlh, &q);

        if (r < 0)
                return r;
        if (acc->ifindex != 0 && q.ifindex != acc->ifindex)
                return 0;
        if (acc->n >= acc->max)
                return -ENOBUFS;
        acc->qdiscs[acc->n++] = q;
        return 0;
}

int rtnl_qdisc_dump_parse(
        const void *buf, size_t len, uint32_t seq, uint32_t portid, int ifindex, struct rtnl_qdisc *qdiscs,
        size_t max, size_t *ret_n, struct mh_error *reterr) {
        struct qdisc_acc acc = { .ifindex = ifindex, .qdiscs = qdiscs, .max = max };
        struct rtnl_walk w = {
                .seq = seq, .portid = portid, .type = RTM_NEWQDISC, .cb = qdisc_cb, .data = &acc
        };
        int r = rtnl_walk_reply(buf, len, &w);

        if (r < 0) {
                bool k = w.ext[0];
                return mh_error_fail(
                        reterr, r, "rtnetlink", "qdisc dump: %s%s%s%s",
                        r == -EBADMSG   ? "malformed reply"
                        : r == -EPROTO  ? "reply out of step with the request"
                        : r == -EINTR   ? "interrupted by a concurrent change"
                        : r == -ENOBUFS ? "more qdiscs than room for them"
                                        : strerror(-r),
                        k ? " (kernel: " : "", k ? w.ext : "", k ? ")" : "");
        }
        *ret_n = acc.n;
        return 0;
}

int rtnl_qdisc_list(
        struct rtnl *rt, int ifindex, struct rtnl_qdisc *qdiscs, size_t max, size_t *ret_n,
        struct mh_error *reterr) {
        int r = -EINTR;

        for (int i = 0; i < RTNL_DUMP_ATTEMPTS && r == -EINTR; i++) {
                _cleanup_free_ char *buf = NULL;
                _Alignas(4) char req[RTNL_MSG_MAX];
                size_t len;
                struct nlmsghdr *nlh = rtnl_tc_msg_start(req, RTM_GETQDISC, NLM_F_DUMP, ifindex, 0, 0, 0);
                r = rtnl_exchange(rt, nlh, &buf, &len);
                if (r < 0)
                        return rtnl_fail(rt, reterr, r, "listing qdiscs");
                r = rtnl_qdisc_dump_parse(
                        buf, len, nlh->nlmsg_seq, rt->portid, ifindex, qdiscs, max, ret_n, reterr);
                if (r == -EBADMSG || r == -EPROTO)
                        rt->broken = true;
        }
        return r;
}

struct qdisc_find {
        int ifindex;
        uint32_t parent;
        bool found;
        struct rtnl_qdisc q;
};

static int find_cb(const struct nlmsghdr *nlh, void *data) {
        struct qdisc_find *f = data;
        struct rtnl_qdisc q;
        int r = qdisc_from_msg(nlh, &q);

        if (r < 0)
                return r;
        if (q.ifindex == f->ifindex && q.parent == f->parent && !f->found) {
                f->found = true;
                f->q = q;
        }
        return 0;
}

int rtnl_qdisc_find(struct rtnl *rt, int ifindex, uint32_t parent, struct rtnl_qdisc *ret) {
        int r = -EINTR;

        for (int i = 0; i < RTNL_DUMP_ATTEMPTS && r == -EINTR; i++) {
                _Alignas(4) char req[RTNL_MSG_MAX];
                struct qdisc_find f = { .ifindex = ifindex, .parent = parent };
                struct rtnl_walk w = { .type = RTM_NEWQDISC, .cb = find_cb, .data = &f };
                struct nlmsghdr *nlh = rtnl_tc_msg_start(req, RTM_GETQDISC, 0, ifindex, 0, 0, 0);
                r = rtnl_dump(rt, nlh, &w);
                if (r == 0 && f.found)
                        *ret = f.q;
                if (r == 0)
                        return f.found;
        }
        return r;
}

static bool is_default(const struct rtnl_qdisc *q) {
        static const char *const kinds[] = { "noqueue", "noop", "pfifo_fast", "fq_codel", "fq", "mq" };

        if (q->handle != 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
                if (streq(q->kind, kinds[i]))
                        return true;
        return false;
}

int rtnl_root_qdisc_is_default(struct rtnl *rt, int ifindex, struct mh_error *reterr) {
        struct rtnl_qdisc q;
        int r = rtnl_qdisc_find(rt, ifindex, RTNL_PARENT_ROOT, &q);

        if (r < 0)
                return rtnl_fail(rt, reterr, r, "looking at the root qdisc of link %d", ifindex);
        return r == 0 || is_default(&q);
}
