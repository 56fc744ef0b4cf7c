/* The qdisc side of network faults (tbf, netem; ingress through an IFB
 * device), the stateless cleanup and the residue scan: net-netns.h. Every
 * function here named fn_* runs on a net_ns_call() thread inside the
 * target's netns. */
#include "net-netns.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "sys/ns.h"
#include "sys/rtnl.h"

#define NETEM_LIMIT_PACKETS 10000u

struct qdisc_arg {
        const char *lease_id;
        const struct net_recipe *rc;
        uint16_t queue;
        bool ingress_too;
};

static int qdisc_add(struct rtnl *rt, int ifindex, const struct net_recipe *rc, struct mh_error *e) {
        if (rc->delivery == NET_DELIVERY_TBF) {
                /* Room for 100 ms of traffic beyond the bucket, as tc's "latency 100ms". */
                uint64_t limit = rc->burst_bytes + rc->rate_bytes_per_s / 10;
                struct rtnl_tbf tbf = { .rate = rc->rate_bytes_per_s,
                                        .burst = rc->burst_bytes,
                                        .limit = (uint32_t)MIN(limit, UINT32_MAX / 2) };
                return rtnl_qdisc_tbf_add(rt, ifindex, &tbf, e);
        }
        struct rtnl_netem n = { .delay_ns = (uint64_t)rc->netem_delay_ms * 1000000u,
                                .jitter_ns = (uint64_t)rc->netem_jitter_ms * 1000000u,
                                .loss = rc->netem_loss,
                                .duplicate = rc->netem_duplicate,
                                .corrupt = rc->netem_corrupt,
                                .reorder = rc->netem_reorder,
                                .limit = NETEM_LIMIT_PACKETS };
        return rtnl_qdisc_netem_add(rt, ifindex, &n, e);
}

/* Root qdiscs of ours (any kind), ingress redirects of ours, the IFB. */
static int clean(struct rtnl *rt, const char *lease_id, struct mh_error *e) {
        struct rtnl_qdisc q[128];
        size_t n = 0;
        char ifb[IF_NAMESIZE];
        int r = rtnl_qdisc_list(rt, 0, q, ELEMENTSOF(q), &n, e);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (q[i].parent == RTNL_PARENT_ROOT && (q[i].handle >> 16) == RTNL_HANDLE_MAJOR)
                        r = rtnl_qdisc_del_ours(rt, q[i].ifindex, RTNL_PARENT_ROOT, q[i].kind, e);
                else if (
                        q[i].parent == RTNL_PARENT_INGRESS &&
                        rtnl_qdisc_ingress_del_ours(rt, q[i].ifindex, NULL) < 0)
                        r = 0; /* not ours: left alone */
        }
        net_ifb_name(lease_id, ifb);
        if (r >= 0)
                r = rtnl_ifb_del(rt, ifb, e);
        return r < 0 ? r : 0;
}

static int apply(struct rtnl *rt, const char *lease_id, const struct net_recipe *rc, struct mh_error *e) {
        struct net_links l;
        char ifb_name[IF_NAMESIZE];
        int ifb = 0, r = 0, ifx;
        struct rtnl_link all[64];
        size_t n = 0;
        if ((r = rtnl_link_list(rt, all, ELEMENTSOF(all), &n, e)) < 0)
                return r;
        l.n = 0;
        for (size_t i = 0; i < n && l.n < NET_LINKS_MAX; i++)
                if (strcmp(all[i].name, "lo") != 0 && strcmp(all[i].kind, "ifb") != 0)
                        snprintf(l.name[l.n++], IF_NAMESIZE, "%s", all[i].name);
        if (rc->dirs & NET_SIDE_INGRESS) {
                net_ifb_name(lease_id, ifb_name);
                if ((r = rtnl_ifb_create(rt, ifb_name, &ifb, e)) < 0 ||
                    (r = rtnl_link_set_up(rt, ifb, e)) < 0 || (r = qdisc_add(rt, ifb, rc, e)) < 0)
                        return r;
        }
        for (size_t i = 0; i < l.n; i++) {
                if ((r = rtnl_link_ifindex(rt, l.name[i], &ifx, e)) < 0)
                        return r;
                if ((rc->dirs & NET_SIDE_EGRESS) && (r = qdisc_add(rt, ifx, rc, e)) < 0)
                        return r;
                if ((rc->dirs & NET_SIDE_INGRESS) && ((r = rtnl_qdisc_ingress_add(rt, ifx, e)) < 0 ||
                                                      (r = rtnl_filter_redirect_add(rt, ifx, ifb, e)) < 0))
                        return r;
        }
        return 0;
}

static int fn_apply(void *arg, char *out, size_t *out_len) {
        const struct qdisc_arg *a = arg;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct mh_error e = { 0 };
        if (rtnl_open(&rt, &e) < 0)
                return net_ns_fail(out, out_len, "%s", e.msg);
        if (apply(rt, a->lease_id, a->rc, &e) < 0) {
                clean(rt, a->lease_id, NULL);
                return net_ns_fail(out, out_len, "%s", e.msg);
        }
        *out_len = 0;
        return 0;
}

int net_ns_qdisc_apply(
        const struct proc_identity *id, const char *lease_id, const struct net_recipe *rc,
        struct mh_error *reterr) {
        struct qdisc_arg a = { .lease_id = lease_id, .rc = rc };
        char out[NS_RESULT_MAX];
        size_t len = sizeof(out);
        int result = 0;
        int r = net_ns_call(id, fn_apply, &a, out, &len, &result, reterr);
        if (r >= 0 && result < 0)
                r = mh_error_fail(reterr, result, "qdisc", "%.*s", (int)len, out);
        return r;
}

static int fn_clean(void *arg, char *out, size_t *out_len) {
        const struct qdisc_arg *a = arg;
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct mh_error e = { 0 };
        if (rtnl_open(&rt, &e) < 0 || clean(rt, a->lease_id, &e) < 0)
                return net_ns_fail(out, out_len, "%s", e.msg);
        *out_len = 0;
        return 0;
}

int net_ns_clean(const struct proc_identity *id, const char *lease_id, struct mh_error *reterr) {
        struct qdisc_arg a = { .lease_id = lease_id };
        char out[NS_RESULT_MAX];
        size_t len = sizeof(out);
        int result = 0;
        int r = net_ns_call(id, fn_clean, &a, out, &len, &result, reterr);
        if (r == -ESRCH)
                return 0; /* the target is gone, and its netns with everything in it */
        if (r >= 0 && result < 0)
                r = mh_error_fail(reterr, result, "qdisc", "%.*s", (int)len, out);
        return r;
}

/* ---- residue ------------------------------------------------------------ */

static void note(char *out, size_t *used, size_t size, const char *fmt, ...) _printf_(4, 5);
static void note(char *out, size_t *used, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = *used < size ? vsnprintf(out + *used, size - *used, fmt, ap) : 0;
        va_end(ap);
        *used = MIN(*used + (n > 0 ? (size_t)n : 0), size - 1);
}

static int residue_rtnl(const struct qdisc_arg *a, char *out, size_t *used, size_t size) {
        _cleanup_(rtnl_freep) struct rtnl *rt = NULL;
        struct rtnl_qdisc q[128];
        struct rtnl_link links[64];
        size_t nq = 0, nl = 0;
        char ifb[IF_NAMESIZE];
        struct mh_error e = { 0 };
        if (rtnl_open(&rt, &e) < 0 || rtnl_qdisc_list(rt, 0, q, ELEMENTSOF(q), &nq, &e) < 0 ||
            rtnl_link_list(rt, links, ELEMENTSOF(links), &nl, &e) < 0) {
                note(out, used, size, "could not look: %s", e.msg);
                return -EIO;
        }
        net_ifb_name(a->lease_id, ifb);
        int found = 0;
        for (size_t i = 0; i < nq; i++) {
                bool ours = (q[i].handle >> 16) == RTNL_HANDLE_MAJOR;
                bool ingress = a->ingress_too && q[i].parent == RTNL_PARENT_INGRESS;
                if (ours || ingress) {
                        note(out, used, size, "%s qdisc %s on ifindex %d; ", ours ? "our" : "an ingress",
                             q[i].kind, q[i].ifindex);
                        found = 1;
                }
        }
        for (size_t i = 0; i < nl; i++)
                if (strcmp(links[i].name, ifb) == 0) {
                        note(out, used, size, "IFB device %s; ", ifb);
                        found = 1;
                }
        return found;
}

static int residue_nft(const struct qdisc_arg *a, char *out, size_t *used, size_t size) {
        static const char *const families[] = { "inet", "ip", "ip6", "netdev" };
        char name[NET_TABLE_MAX];
        int found = 0;
        net_table_name(a->lease_id, name);
        for (size_t i = 0; i < ELEMENTSOF(families); i++) {
                struct mh_error e = { 0 };
                int r = nft_table_exists(families[i], name, &e);
                if (r < 0) {
                        note(out, used, size, "could not look: %s", e.msg);
                        return r;
                }
                if (r > 0) {
                        note(out, used, size, "nft table %s %s; ", families[i], name);
                        found = 1;
                }
        }
        return found;
}

/* /proc/thread-self/net is this thread's netns, the target's (/proc/self/net
 * would be the thread group leader's): the queues bound there. */
static int residue_queue(const struct qdisc_arg *a, char *out, size_t *used, size_t size) {
        FILE *f = a->queue ? fopen("/proc/thread-self/net/netfilter/nfnetlink_queue", "re") : NULL;
        char line[256];
        int found = 0;
        while (f && fgets(line, sizeof(line), f)) {
                unsigned q;
                if (sscanf(line, "%u", &q) == 1 && q == a->queue) {
                        note(out, used, size, "shaper queue %u still bound; ", q);
                        found = 1;
                }
        }
        if (f)
                fclose(f);
        return found;
}

static int fn_residue(void *arg, char *out, size_t *out_len) {
        const struct qdisc_arg *a = arg;
        size_t used = 0, size = *out_len;
        int r1 = residue_rtnl(a, out, &used, size), r2 = residue_nft(a, out, &used, size),
            r3 = residue_queue(a, out, &used, size);
        *out_len = used;
        return r1 < 0 || r2 < 0 ? -EIO : (r1 | r2 | r3);
}

int net_ns_residue(
        const struct proc_identity *id, const char *lease_id, uint16_t queue, bool ingress_too, char *detail,
        size_t size) {
        struct qdisc_arg a = { .lease_id = lease_id, .queue = queue, .ingress_too = ingress_too };
        char out[NS_RESULT_MAX];
        size_t len = sizeof(out);
        int result = 0;
        struct mh_error e = { 0 };
        int r = net_ns_call(id, fn_residue, &a, out, &len, &result, &e);
        if (r == -ESRCH) {
                snprintf(detail, size, "the target is gone, and its netns with it");
                return 0;
        }
        if (r < 0) {
                snprintf(detail, size, "%s", e.msg);
                return r;
        }
        if (result == 0)
                snprintf(detail, size, "nothing of ours in the target's netns");
        else
                snprintf(detail, size, "%.*s", (int)len, out);
        return result;
}
