/* sys/rtnl at the message level, without privileges: dump replies crafted
 * byte by byte (well-formed, truncated, out of step, kernel errors, no end,
 * too many entries) through the parsers the list functions use, the tbf /
 * netem requests read back attribute by attribute, and the address / route
 * requests parsed back into what they were built from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/gen_stats.h>
#include <linux/rtnetlink.h>
#include <math.h>
#include <net/if.h>
#include <string.h>

#include "sys/rtnl.h"

#define SEQ       4242u
#define PORTID    777u
#define ALIGN4(n) (((n) + 3u) & ~3u)

/* A reply under construction: messages appended back to back. */
struct reply {
        _Alignas(4) uint8_t buf[8192];
        size_t len;
        size_t msg; /* offset of the message being built */
};

static void msg_begin(struct reply *r, uint16_t type, uint16_t flags, uint32_t seq, uint32_t portid) {
        struct nlmsghdr h = { .nlmsg_len = sizeof(h),
                              .nlmsg_type = type,
                              .nlmsg_flags = flags,
                              .nlmsg_seq = seq,
                              .nlmsg_pid = portid };
        r->msg = r->len;
        memcpy(r->buf + r->len, &h, sizeof(h));
        r->len += sizeof(h);
}

static void put(struct reply *r, const void *p, size_t n) {
        assert_true(r->len + ALIGN4(n) <= sizeof(r->buf));
        memset(r->buf + r->len, 0, ALIGN4(n));
        memcpy(r->buf + r->len, p, n);
        r->len += ALIGN4(n);
}

static void msg_end(struct reply *r) {
        uint32_t len = (uint32_t)(r->len - r->msg);
        memcpy(r->buf + r->msg, &len, sizeof(len));
}

/* An attribute; returns its offset, for nests to be closed with attr_end(). */
static size_t attr(struct reply *r, uint16_t type, const void *p, size_t n) {
        struct nlattr a = { .nla_len = (uint16_t)(sizeof(a) + n), .nla_type = type };
        size_t at = r->len;
        memcpy(r->buf + r->len, &a, sizeof(a));
        r->len += sizeof(a);
        if (n)
                put(r, p, n);
        return at;
}

static void attr_end(struct reply *r, size_t at) {
        uint16_t len = (uint16_t)(r->len - at);
        memcpy(r->buf + at, &len, sizeof(len));
}

static void add_link(struct reply *r, int ifindex, const char *name, const char *kind, int link, bool up) {
        struct ifinfomsg ifi = { .ifi_index = ifindex, .ifi_flags = up ? IFF_UP : 0 };
        msg_begin(r, RTM_NEWLINK, NLM_F_MULTI, SEQ, PORTID);
        put(r, &ifi, sizeof(ifi));
        attr(r, IFLA_IFNAME, name, strlen(name) + 1);
        if (link) {
                uint32_t l = (uint32_t)link;
                attr(r, IFLA_LINK, &l, sizeof(l));
        }
        if (kind) {
                size_t nest = attr(r, IFLA_LINKINFO, NULL, 0);
                attr(r, IFLA_INFO_KIND, kind, strlen(kind) + 1);
                attr_end(r, nest);
        }
        msg_end(r);
}

static void add_qdisc(struct reply *r, int ifindex, uint32_t handle, uint32_t parent, const char *kind) {
        struct tcmsg t = { .tcm_ifindex = ifindex, .tcm_handle = handle, .tcm_parent = parent };
        msg_begin(r, RTM_NEWQDISC, NLM_F_MULTI, SEQ, PORTID);
        put(r, &t, sizeof(t));
        attr(r, TCA_KIND, kind, strlen(kind) + 1);
        msg_end(r);
}

static void add_done(struct reply *r, int err) {
        msg_begin(r, NLMSG_DONE, NLM_F_MULTI, SEQ, PORTID);
        put(r, &err, sizeof(err));
        msg_end(r);
}

static void add_error(struct reply *r, int err) {
        struct nlmsgerr e = { .error = err };
        msg_begin(r, NLMSG_ERROR, 0, SEQ, PORTID);
        put(r, &e, sizeof(e));
        msg_end(r);
}

static int parse_links(const struct reply *r, struct rtnl_link *l, size_t max, size_t *n) {
        struct mh_error e = { 0 };
        int k = rtnl_link_dump_parse(r->buf, r->len, SEQ, PORTID, l, max, n, &e);
        if (k < 0)
                assert_true(e.msg[0] != '\0');
        return k;
}

static void test_link_dump(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_link l[4];
        size_t n = 99;

        add_link(&r, 1, "lo", NULL, 0, true);
        add_link(&r, 7, "veth0", "veth", 8, false);
        add_link(&r, 9, "ifb0", "ifb", 0, true);
        add_done(&r, 0);
        assert_int_equal(parse_links(&r, l, 4, &n), 0);
        assert_int_equal(n, 3);
        assert_string_equal(l[0].name, "lo");
        assert_string_equal(l[0].kind, "");
        assert_true(l[0].up);
        assert_int_equal(l[1].ifindex, 7);
        assert_int_equal(l[1].link, 8);
        assert_string_equal(l[1].kind, "veth");
        assert_false(l[1].up);
        assert_string_equal(l[2].kind, "ifb");

        /* Too many for the room given. */
        n = 99;
        assert_int_equal(parse_links(&r, l, 2, &n), -ENOBUFS);
        assert_int_equal(n, 99); /* untouched on failure */
}

static void test_truncated(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_link l[4];
        size_t n, whole;

        add_link(&r, 1, "lo", NULL, 0, true);
        add_link(&r, 2, "eth0", "veth", 3, true);
        whole = r.len;
        add_done(&r, 0);
        size_t full = r.len;
        /* Every cut short of the end fails; a cut on a message boundary lacks
         * DONE, anywhere else a message does not fit. */
        for (size_t cut = 0; cut < full; cut++) {
                r.len = cut;
                int k = parse_links(&r, l, 4, &n);
                assert_true(k == -EBADMSG || k == -EPROTO);
                if (cut == whole)
                        assert_int_equal(k, -EPROTO);
        }
        r.len = full;
        assert_int_equal(parse_links(&r, l, 4, &n), 0);
}

static void test_bad_attributes(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_link l[2];
        size_t n;

        /* An attribute longer than its message. */
        add_link(&r, 1, "lo", NULL, 0, true);
        struct nlattr *a = (struct nlattr *)(r.buf + sizeof(struct nlmsghdr) + sizeof(struct ifinfomsg));
        a->nla_len = 200;
        add_done(&r, 0);
        assert_int_equal(parse_links(&r, l, 2, &n), -EBADMSG);

        /* A name without its NUL. */
        r.len = 0;
        struct ifinfomsg ifi = { .ifi_index = 3 };
        msg_begin(&r, RTM_NEWLINK, NLM_F_MULTI, SEQ, PORTID);
        put(&r, &ifi, sizeof(ifi));
        attr(&r, IFLA_IFNAME, "abcd", 4);
        msg_end(&r);
        add_done(&r, 0);
        assert_int_equal(parse_links(&r, l, 2, &n), -EBADMSG);

        /* A name longer than IF_NAMESIZE - 1. */
        r.len = 0;
        add_link(&r, 3, "a-name-far-too-long-for-a-link", NULL, 0, true);
        add_done(&r, 0);
        assert_int_equal(parse_links(&r, l, 2, &n), -EBADMSG);

        /* No name at all; a message shorter than its family header. */
        r.len = 0;
        msg_begin(&r, RTM_NEWLINK, NLM_F_MULTI, SEQ, PORTID);
        put(&r, &ifi, sizeof(ifi));
        msg_end(&r);
        add_done(&r, 0);
        assert_int_equal(parse_links(&r, l, 2, &n), -EBADMSG);
        r.len = 0;
        msg_begin(&r, RTM_NEWLINK, NLM_F_MULTI, SEQ, PORTID);
        put(&r, &ifi, 4);
        msg_end(&r);
        add_done(&r, 0);
        assert_int_equal(parse_links(&r, l, 2, &n), -EBADMSG);
}

static void test_out_of_step(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_link l[2];
        size_t n;

        add_link(&r, 1, "lo", NULL, 0, true);
        add_done(&r, 0);
        struct nlmsghdr *h = (struct nlmsghdr *)r.buf;

        h->nlmsg_seq = SEQ + 1;
        assert_int_equal(parse_links(&r, l, 2, &n), -EPROTO);
        h->nlmsg_seq = SEQ;
        h->nlmsg_pid = PORTID + 1;
        assert_int_equal(parse_links(&r, l, 2, &n), -EPROTO);
        h->nlmsg_pid = PORTID;
        h->nlmsg_type = RTM_NEWQDISC; /* not what a link dump holds */
        assert_int_equal(parse_links(&r, l, 2, &n), -EPROTO);
        h->nlmsg_type = RTM_NEWLINK;
        h->nlmsg_flags |= NLM_F_DUMP_INTR;
        assert_int_equal(parse_links(&r, l, 2, &n), -EINTR);
        h->nlmsg_flags &= (uint16_t)~NLM_F_DUMP_INTR;
        assert_int_equal(parse_links(&r, l, 2, &n), 0);
        assert_int_equal(n, 1);

        /* An empty reply, and one that is only garbage. */
        assert_int_equal(rtnl_link_dump_parse(r.buf, 0, SEQ, PORTID, l, 2, &n, NULL), -EPROTO);
        memset(r.buf, 0xff, 64);
        assert_int_equal(rtnl_link_dump_parse(r.buf, 64, SEQ, PORTID, l, 2, &n, NULL), -EBADMSG);
}

static void test_kernel_errors(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_link l[2];
        size_t n;

        add_error(&r, -EPERM);
        assert_int_equal(parse_links(&r, l, 2, &n), -EPERM);

        r.len = 0; /* the dump's own error in DONE */
        add_link(&r, 1, "lo", NULL, 0, true);
        add_done(&r, -EMSGSIZE);
        assert_int_equal(parse_links(&r, l, 2, &n), -EMSGSIZE);

        r.len = 0; /* an ACK is not how a dump ends */
        add_error(&r, 0);
        assert_int_equal(parse_links(&r, l, 2, &n), -EPROTO);

        r.len = 0; /* nonsense error numbers */
        add_error(&r, 5);
        assert_int_equal(parse_links(&r, l, 2, &n), -EPROTO);
        r.len = 0;
        add_done(&r, -100000);
        assert_int_equal(parse_links(&r, l, 2, &n), -EPROTO);

        r.len = 0; /* the kernel's reason, in an extended ACK after a capped echo */
        struct nlmsgerr ne = { .error = -EINVAL };
        msg_begin(&r, NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, SEQ, PORTID);
        put(&r, &ne, sizeof(ne));
        attr(&r, NLMSGERR_ATTR_MSG, "Invalid handle", sizeof("Invalid handle"));
        msg_end(&r);
        struct mh_error e = { 0 };
        assert_int_equal(rtnl_link_dump_parse(r.buf, r.len, SEQ, PORTID, l, 2, &n, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "(kernel: Invalid handle)"));
        /* ... and one whose message attribute is not terminated is left out. */
        struct nlattr *m = (struct nlattr *)(r.buf + r.len - ALIGN4(sizeof("Invalid handle")) - sizeof(*m));
        memset((char *)(m + 1), 'x', ALIGN4(sizeof("Invalid handle")));
        assert_int_equal(rtnl_link_dump_parse(r.buf, r.len, SEQ, PORTID, l, 2, &n, &e), -EINVAL);
        assert_null(strstr(e.msg, "kernel:"));

        r.len = 0; /* an error message too short for its struct */
        msg_begin(&r, NLMSG_ERROR, 0, SEQ, PORTID);
        put(&r, &(int){ -EPERM }, sizeof(int));
        msg_end(&r);
        assert_int_equal(parse_links(&r, l, 2, &n), -EBADMSG);
}

static void test_qdisc_dump(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_qdisc q[4];
        size_t n;
        struct mh_error e = { 0 };

        add_qdisc(&r, 2, 0, RTNL_PARENT_ROOT, "noqueue");
        add_qdisc(&r, 3, RTNL_HANDLE, RTNL_PARENT_ROOT, "tbf");
        add_qdisc(&r, 3, RTNL_HANDLE_INGRESS, RTNL_PARENT_INGRESS, "ingress");
        add_done(&r, 0);
        assert_int_equal(rtnl_qdisc_dump_parse(r.buf, r.len, SEQ, PORTID, 0, q, 4, &n, &e), 0);
        assert_int_equal(n, 3);
        assert_int_equal(rtnl_qdisc_dump_parse(r.buf, r.len, SEQ, PORTID, 3, q, 4, &n, &e), 0);
        assert_int_equal(n, 2);
        assert_string_equal(q[0].kind, "tbf");
        assert_int_equal(q[0].handle, RTNL_HANDLE);
        assert_int_equal(q[1].parent, RTNL_PARENT_INGRESS);
        /* Only the entries of the link asked for count against max. */
        assert_int_equal(rtnl_qdisc_dump_parse(r.buf, r.len, SEQ, PORTID, 2, q, 1, &n, &e), 0);
        assert_int_equal(n, 1);
        assert_int_equal(rtnl_qdisc_dump_parse(r.buf, r.len, SEQ, PORTID, 0, q, 2, &n, &e), -ENOBUFS);
        /* Missing DONE. */
        r.len -= ALIGN4(sizeof(struct nlmsghdr) + sizeof(int));
        assert_int_equal(rtnl_qdisc_dump_parse(r.buf, r.len, SEQ, PORTID, 0, q, 4, &n, &e), -EPROTO);
        /* A qdisc without a kind. */
        r.len = 0;
        struct tcmsg t = { .tcm_ifindex = 1 };
        msg_begin(&r, RTM_NEWQDISC, NLM_F_MULTI, SEQ, PORTID);
        put(&r, &t, sizeof(t));
        msg_end(&r);
        add_done(&r, 0);
        assert_int_equal(rtnl_qdisc_dump_parse(r.buf, r.len, SEQ, PORTID, 0, q, 4, &n, &e), -EBADMSG);
}

/* The kernel's counters of a qdisc (TCA_STATS2), for effect checks; a short
 * counter attribute reads as none. */
static void test_qdisc_stats(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_qdisc q[2];
        size_t n;
        struct mh_error e = { 0 };
        struct tcmsg t = { .tcm_ifindex = 3, .tcm_handle = RTNL_HANDLE, .tcm_parent = RTNL_PARENT_ROOT };
        struct gnet_stats_basic b = { .bytes = 123456, .packets = 789 };
        struct gnet_stats_queue qs = {
                .qlen = 4, .backlog = 5600, .drops = 21, .requeues = 1, .overlimits = 2
        };
        msg_begin(&r, RTM_NEWQDISC, NLM_F_MULTI, SEQ, PORTID);
        put(&r, &t, sizeof(t));
        attr(&r, TCA_KIND, "netem", 6);
        size_t nest = attr(&r, TCA_STATS2, NULL, 0);
        attr(&r, TCA_STATS_BASIC, &b, sizeof(b));
        attr(&r, TCA_STATS_QUEUE, &qs, sizeof(qs));
        attr_end(&r, nest);
        msg_end(&r);
        msg_begin(&r, RTM_NEWQDISC, NLM_F_MULTI, SEQ, PORTID);
        put(&r, &t, sizeof(t));
        attr(&r, TCA_KIND, "tbf", 4);
        nest = attr(&r, TCA_STATS2, NULL, 0);
        attr(&r, TCA_STATS_QUEUE, &qs, 8);
        attr_end(&r, nest);
        msg_end(&r);
        add_done(&r, 0);
        assert_int_equal(rtnl_qdisc_dump_parse(r.buf, r.len, SEQ, PORTID, 0, q, 2, &n, &e), 0);
        assert_int_equal(n, 2);
        assert_int_equal(q[0].bytes, 123456);
        assert_int_equal(q[0].packets, 789);
        assert_int_equal(q[0].qlen, 4);
        assert_int_equal(q[0].backlog, 5600);
        assert_int_equal(q[0].drops, 21);
        assert_int_equal(q[1].drops, 0);
        assert_int_equal(q[1].packets, 0);
}

/* ---- requests ---- */

static const struct nlattr *find_attr(const uint8_t *p, size_t len, uint16_t type) {
        while (len >= sizeof(struct nlattr)) {
                const struct nlattr *a = (const struct nlattr *)p;
                assert_true(a->nla_len >= sizeof(*a) && a->nla_len <= len);
                if ((a->nla_type & NLA_TYPE_MASK) == type)
                        return a;
                size_t step = ALIGN4(a->nla_len);
                if (step >= len)
                        break;
                p += step;
                len -= step;
        }
        return NULL;
}

#define PAYLOAD(a) ((const uint8_t *)(a) + sizeof(struct nlattr))
#define PLEN(a)    ((size_t)(a)->nla_len - sizeof(struct nlattr))

/* Checks the header and returns TCA_OPTIONS. */
static const struct nlattr *check_qdisc_msg(const uint8_t *buf, size_t len, int ifindex, const char *kind) {
        const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
        const struct tcmsg *t = (const struct tcmsg *)(buf + sizeof(*h));

        assert_int_equal(h->nlmsg_len, len);
        assert_int_equal(h->nlmsg_type, RTM_NEWQDISC);
        assert_int_equal(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
        assert_int_equal(h->nlmsg_seq, SEQ);
        assert_int_equal(t->tcm_ifindex, ifindex);
        assert_int_equal(t->tcm_parent, RTNL_PARENT_ROOT);
        assert_int_equal(t->tcm_handle, RTNL_HANDLE);
        const uint8_t *attrs = buf + sizeof(*h) + sizeof(*t);
        size_t alen = len - sizeof(*h) - sizeof(*t);
        const struct nlattr *k = find_attr(attrs, alen, TCA_KIND);
        assert_non_null(k);
        assert_string_equal((const char *)PAYLOAD(k), kind);
        const struct nlattr *o = find_attr(attrs, alen, TCA_OPTIONS);
        assert_non_null(o);
        return o;
}

static void test_msg_tbf(void **state) {
        (void)state;
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX];
        struct rtnl_tbf tbf = { .rate = 1000000, .burst = 32768, .limit = 200000 };
        struct mh_error e = { 0 };
        size_t len = 0;

        assert_int_equal(rtnl_msg_tbf(buf, sizeof(buf), SEQ, 5, &tbf, &len, &e), 0);
        const struct nlattr *o = check_qdisc_msg(buf, len, 5, "tbf");
        const struct nlattr *p = find_attr(PAYLOAD(o), PLEN(o), TCA_TBF_PARMS);
        assert_non_null(p);
        assert_int_equal(PLEN(p), sizeof(struct tc_tbf_qopt));
        struct tc_tbf_qopt q;
        memcpy(&q, PAYLOAD(p), sizeof(q));
        assert_int_equal(q.rate.rate, 1000000);
        assert_int_equal(q.limit, 200000);
        /* 32768 bytes at 1 MB/s take 32.768 ms: 512000 ticks of 64 ns. */
        assert_int_equal(q.buffer, 512000);
        const struct nlattr *r64 = find_attr(PAYLOAD(o), PLEN(o), TCA_TBF_RATE64);
        const struct nlattr *b = find_attr(PAYLOAD(o), PLEN(o), TCA_TBF_BURST);
        assert_non_null(r64);
        assert_non_null(b);
        uint64_t rate64;
        uint32_t burst;
        memcpy(&rate64, PAYLOAD(r64), sizeof(rate64));
        memcpy(&burst, PAYLOAD(b), sizeof(burst));
        assert_int_equal(rate64, 1000000);
        assert_int_equal(burst, 32768);

        /* Above 32 bits the struct holds the cap, RATE64 the rate. */
        tbf.rate = 10000000000ull;
        assert_int_equal(rtnl_msg_tbf(buf, sizeof(buf), SEQ, 5, &tbf, &len, &e), 0);
        o = check_qdisc_msg(buf, len, 5, "tbf");
        memcpy(&q, PAYLOAD(find_attr(PAYLOAD(o), PLEN(o), TCA_TBF_PARMS)), sizeof(q));
        assert_int_equal(q.rate.rate, UINT32_MAX);
        memcpy(&rate64, PAYLOAD(find_attr(PAYLOAD(o), PLEN(o), TCA_TBF_RATE64)), sizeof(rate64));
        assert_int_equal(rate64, 10000000000ull);

        /* Out of range, and too small a buffer at every size. */
        struct rtnl_tbf bad[] = { { 0, 1, 1 }, { 1, 0, 1 }, { 1, 1, 0 } };
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(rtnl_msg_tbf(buf, sizeof(buf), SEQ, 5, &bad[i], &len, &e), -EINVAL);
        assert_int_equal(rtnl_msg_tbf(buf, sizeof(buf), SEQ, 0, &tbf, &len, &e), -EINVAL);
        assert_int_equal(rtnl_msg_tbf(buf, sizeof(buf), SEQ, 5, NULL, &len, &e), -EINVAL);
        size_t need = len;
        for (size_t size = 0; size < need; size++)
                assert_int_equal(rtnl_msg_tbf(buf, size, SEQ, 5, &tbf, &len, &e), -ENOBUFS);
        assert_int_equal(rtnl_msg_tbf(buf, need, SEQ, 5, &tbf, &len, &e), 0);
}

static void test_msg_netem(void **state) {
        (void)state;
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX];
        struct rtnl_netem n = { .delay_ns = 100000000,
                                .jitter_ns = 10000000,
                                .loss = 100,
                                .duplicate = 50,
                                .corrupt = 1,
                                .reorder = 25,
                                .limit = 1000 };
        struct mh_error e = { 0 };
        size_t len = 0;

        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &n, &len, &e), 0);
        const struct nlattr *o = check_qdisc_msg(buf, len, 9, "netem");
        /* The options start with the struct, attributes after it. */
        assert_true(PLEN(o) >= sizeof(struct tc_netem_qopt));
        struct tc_netem_qopt q;
        memcpy(&q, PAYLOAD(o), sizeof(q));
        assert_int_equal(q.latency, 1562500); /* 100 ms in 64 ns ticks */
        assert_int_equal(q.jitter, 156250);
        assert_int_equal(q.limit, 1000);
        assert_int_equal(q.loss, UINT32_MAX);
        assert_true(q.duplicate >= UINT32_MAX / 2 && q.duplicate <= UINT32_MAX / 2 + 1);
        assert_int_equal(q.gap, 1);
        const uint8_t *attrs = PAYLOAD(o) + sizeof(q);
        size_t alen = PLEN(o) - sizeof(q);
        const struct nlattr *lat = find_attr(attrs, alen, TCA_NETEM_LATENCY64);
        assert_non_null(lat);
        int64_t v;
        memcpy(&v, PAYLOAD(lat), sizeof(v));
        assert_int_equal(v, 100000000);
        memcpy(&v, PAYLOAD(find_attr(attrs, alen, TCA_NETEM_JITTER64)), sizeof(v));
        assert_int_equal(v, 10000000);
        struct tc_netem_reorder re;
        memcpy(&re, PAYLOAD(find_attr(attrs, alen, TCA_NETEM_REORDER)), sizeof(re));
        assert_true(re.probability >= UINT32_MAX / 4 && re.probability <= UINT32_MAX / 4 + 1);
        assert_non_null(find_attr(attrs, alen, TCA_NETEM_CORRUPT));

        /* Without reorder / corrupt those attributes are left out. */
        struct rtnl_netem plain = { .delay_ns = 1000, .limit = 10 };
        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &plain, &len, &e), 0);
        o = check_qdisc_msg(buf, len, 9, "netem");
        attrs = PAYLOAD(o) + sizeof(q);
        alen = PLEN(o) - sizeof(q);
        assert_null(find_attr(attrs, alen, TCA_NETEM_REORDER));
        assert_null(find_attr(attrs, alen, TCA_NETEM_CORRUPT));

        /* Out of range. */
        struct rtnl_netem bad = n;
        bad.loss = 100.5;
        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &bad, &len, &e), -EINVAL);
        bad.loss = NAN;
        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &bad, &len, &e), -EINVAL);
        bad = n;
        bad.delay_ns = 0; /* reordering needs a delay */
        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &bad, &len, &e), -EINVAL);
        bad = n;
        bad.jitter_ns = (uint64_t)INT64_MAX + 1;
        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &bad, &len, &e), -EINVAL);
        bad = n;
        bad.limit = 0;
        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &bad, &len, &e), -EINVAL);
        assert_int_equal(rtnl_msg_netem(buf, sizeof(buf), SEQ, 9, &n, &len, &e), 0);
        size_t need = len;
        for (size_t size = 0; size < need; size++)
                assert_int_equal(rtnl_msg_netem(buf, size, SEQ, 9, &n, &len, &e), -ENOBUFS);
}

/* ---- addresses ---- */

static const unsigned char *ip(int family, const char *text) {
        static unsigned char b[8][16];
        static unsigned i;
        unsigned char *p = b[i++ % 8];
        memset(p, 0, 16);
        assert_int_equal(inet_pton(family, text, p), 1);
        return p;
}

static size_t alen(int family) {
        return family == AF_INET ? 4 : 16;
}

static void addr_begin(
        struct reply *r, int family, int ifindex, uint8_t prefixlen, uint8_t scope, uint8_t ifa_flags) {
        struct ifaddrmsg ifa = { .ifa_family = (uint8_t)family,
                                 .ifa_prefixlen = prefixlen,
                                 .ifa_flags = ifa_flags,
                                 .ifa_scope = scope,
                                 .ifa_index = (uint32_t)ifindex };
        msg_begin(r, RTM_NEWADDR, NLM_F_MULTI, SEQ, PORTID);
        put(r, &ifa, sizeof(ifa));
}

static void attr_u32(struct reply *r, uint16_t type, uint32_t v) {
        attr(r, type, &v, sizeof(v));
}

static void attr_ip(struct reply *r, uint16_t type, int family, const char *text) {
        attr(r, type, ip(family, text), alen(family));
}

/* What the kernel sends for 10.1.0.1/24 brd 10.1.0.255 on link 2, as a
 * secondary with a full IFA_FLAGS. */
static void add_addr4(struct reply *r, int ifindex, const char *local, const char *address) {
        struct ifa_cacheinfo ci = { .ifa_prefered = UINT32_MAX, .ifa_valid = UINT32_MAX };
        addr_begin(r, AF_INET, ifindex, 24, RT_SCOPE_UNIVERSE, IFA_F_PERMANENT);
        attr_ip(r, IFA_ADDRESS, AF_INET, address);
        attr_ip(r, IFA_LOCAL, AF_INET, local);
        attr_ip(r, IFA_BROADCAST, AF_INET, "10.1.0.255");
        attr(r, IFA_LABEL, "eth0:1", sizeof("eth0:1"));
        attr_u32(r, IFA_FLAGS, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE);
        attr(r, IFA_CACHEINFO, &ci, sizeof(ci));
        msg_end(r);
}

static void add_addr6(struct reply *r, int ifindex, const char *addr, uint32_t flags, uint32_t valid) {
        struct ifa_cacheinfo ci = { .ifa_prefered = valid / 2, .ifa_valid = valid };
        addr_begin(r, AF_INET6, ifindex, 64, RT_SCOPE_UNIVERSE, (uint8_t)flags);
        attr_ip(r, IFA_ADDRESS, AF_INET6, addr);
        attr(r, IFA_CACHEINFO, &ci, sizeof(ci));
        attr_u32(r, IFA_FLAGS, flags);
        msg_end(r);
}

static int parse_addrs(const struct reply *r, int ifindex, struct rtnl_addr *a, size_t max, size_t *n) {
        struct mh_error e = { 0 };
        int k = rtnl_addr_dump_parse(r->buf, r->len, SEQ, PORTID, ifindex, a, max, n, &e);
        if (k < 0)
                assert_true(e.msg[0] != '\0');
        return k;
}

static void test_addr_dump(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_addr a[8];
        size_t n = 99;

        add_addr4(&r, 2, "10.1.0.1", "10.1.0.1");
        add_addr4(&r, 2, "10.1.0.5", "10.1.0.9"); /* a point-to-point peer */
        add_addr6(&r, 2, "fd00:1::1", IFA_F_PERMANENT | IFA_F_NODAD, UINT32_MAX);
        add_addr6(&r, 3, "fd00:3::1", IFA_F_PERMANENT, UINT32_MAX); /* another link */
        /* An IPv6 peer: IFA_LOCAL is the address, IFA_ADDRESS the peer; no
         * IFA_FLAGS, so ifa_flags counts; a finite lifetime; a prefix route
         * metric; the kernel's link-local protocol. */
        addr_begin(&r, AF_INET6, 2, 128, RT_SCOPE_LINK, IFA_F_TENTATIVE);
        attr_ip(&r, IFA_LOCAL, AF_INET6, "fe80::1");
        attr_ip(&r, IFA_ADDRESS, AF_INET6, "fe80::2");
        struct ifa_cacheinfo ci = { .ifa_prefered = 100, .ifa_valid = 200 };
        attr(&r, IFA_CACHEINFO, &ci, sizeof(ci));
        attr_u32(&r, IFA_RT_PRIORITY, 77);
        attr(&r, IFA_PROTO, &(uint8_t){ 3 }, 1);
        msg_end(&r);
        /* A family the parser does not list (an AF_UNSPEC dump answers for
         * every one), with an attribute it does not know. */
        addr_begin(&r, AF_PACKET, 2, 200, 0, 0);
        attr(&r, 1, "xyz", 3);
        msg_end(&r);
        add_done(&r, 0);

        assert_int_equal(parse_addrs(&r, 2, a, 8, &n), 0);
        assert_int_equal(n, 4);
        assert_int_equal(a[0].family, AF_INET);
        assert_int_equal(a[0].ifindex, 2);
        assert_int_equal(a[0].prefixlen, 24);
        assert_memory_equal(a[0].addr, ip(AF_INET, "10.1.0.1"), 4);
        assert_false(a[0].has_peer);
        assert_true(a[0].has_broadcast);
        assert_memory_equal(a[0].broadcast, ip(AF_INET, "10.1.0.255"), 4);
        assert_string_equal(a[0].label, "eth0:1");
        assert_int_equal(a[0].flags, IFA_F_PERMANENT | IFA_F_NOPREFIXROUTE); /* IFA_FLAGS over ifa_flags */
        assert_int_equal(a[0].valid_lft, UINT32_MAX);
        assert_int_equal(a[0].preferred_lft, UINT32_MAX);
        assert_memory_equal(a[1].addr, ip(AF_INET, "10.1.0.5"), 4);
        assert_true(a[1].has_peer);
        assert_memory_equal(a[1].peer, ip(AF_INET, "10.1.0.9"), 4);
        assert_int_equal(a[2].family, AF_INET6);
        assert_memory_equal(a[2].addr, ip(AF_INET6, "fd00:1::1"), 16);
        assert_false(a[2].has_peer);
        assert_false(a[2].has_broadcast);
        assert_string_equal(a[2].label, "");
        assert_int_equal(a[2].flags, IFA_F_PERMANENT | IFA_F_NODAD);
        assert_memory_equal(a[3].addr, ip(AF_INET6, "fe80::1"), 16);
        assert_true(a[3].has_peer);
        assert_memory_equal(a[3].peer, ip(AF_INET6, "fe80::2"), 16);
        assert_int_equal(a[3].scope, RT_SCOPE_LINK);
        assert_int_equal(a[3].prefixlen, 128);
        assert_int_equal(a[3].flags, IFA_F_TENTATIVE);
        assert_int_equal(a[3].valid_lft, 200);
        assert_int_equal(a[3].preferred_lft, 100);
        assert_int_equal(a[3].rt_priority, 77);
        assert_int_equal(a[3].proto, 3);

        /* Every link; the other link's alone; room for fewer. */
        assert_int_equal(parse_addrs(&r, 0, a, 8, &n), 0);
        assert_int_equal(n, 5);
        assert_int_equal(parse_addrs(&r, 3, a, 1, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(a[0].ifindex, 3);
        n = 99;
        assert_int_equal(parse_addrs(&r, 2, a, 3, &n), -ENOBUFS);
        assert_int_equal(n, 99);
        assert_int_equal(parse_addrs(&r, 9, a, 0, &n), 0);
        assert_int_equal(n, 0);
}

static void test_addr_truncated(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_addr a[4];
        size_t n, whole;

        add_addr4(&r, 2, "10.1.0.1", "10.1.0.1");
        add_addr6(&r, 2, "fd00:1::1", IFA_F_PERMANENT, 3600);
        whole = r.len;
        add_done(&r, 0);
        size_t full = r.len;
        for (size_t cut = 0; cut < full; cut++) {
                r.len = cut;
                int k = parse_addrs(&r, 0, a, 4, &n);
                assert_true(k == -EBADMSG || k == -EPROTO);
                if (cut == whole)
                        assert_int_equal(k, -EPROTO);
        }
        r.len = full;
        assert_int_equal(parse_addrs(&r, 0, a, 4, &n), 0);
        assert_int_equal(n, 2);
}

/* One IPv4 / IPv6 address message with one thing wrong must fail whole. */
static void test_addr_malformed(void **state) {
        (void)state;
        struct reply r;
        struct rtnl_addr a[2];
        size_t n;
        const unsigned char five[5] = { 10, 1, 0, 1, 9 };

#define BAD_ADDR(...)                                                                                       \
        do {                                                                                                \
                r.len = 0;                                                                                  \
                __VA_ARGS__;                                                                                \
                msg_end(&r);                                                                                \
                add_done(&r, 0);                                                                            \
                assert_int_equal(parse_addrs(&r, 0, a, 2, &n), -EBADMSG);                                   \
        } while (0)

        /* An IPv4 address of 5 bytes, an IPv6 one of 4, a broadcast of 16. */
        BAD_ADDR(addr_begin(&r, AF_INET, 2, 24, 0, 0); attr(&r, IFA_LOCAL, five, 5));
        BAD_ADDR(addr_begin(&r, AF_INET6, 2, 64, 0, 0); attr_ip(&r, IFA_ADDRESS, AF_INET, "10.1.0.1"));
        BAD_ADDR(addr_begin(&r, AF_INET, 2, 24, 0, 0); attr_ip(&r, IFA_LOCAL, AF_INET, "10.1.0.1");
                 attr_ip(&r, IFA_BROADCAST, AF_INET6, "fd00::1"));
        /* A peer of the wrong size beside a good local address. */
        BAD_ADDR(addr_begin(&r, AF_INET, 2, 24, 0, 0); attr_ip(&r, IFA_LOCAL, AF_INET, "10.1.0.1");
                 attr(&r, IFA_ADDRESS, five, 3));
        /* No address at all. */
        BAD_ADDR(addr_begin(&r, AF_INET, 2, 24, 0, 0); attr_u32(&r, IFA_FLAGS, 0));
        /* Prefixes longer than the family's addresses. */
        BAD_ADDR(addr_begin(&r, AF_INET, 2, 33, 0, 0); attr_ip(&r, IFA_LOCAL, AF_INET, "10.1.0.1"));
        BAD_ADDR(addr_begin(&r, AF_INET6, 2, 129, 0, 0); attr_ip(&r, IFA_ADDRESS, AF_INET6, "fd00::1"));
        /* A label without its NUL, and one too long for a link name. */
        BAD_ADDR(addr_begin(&r, AF_INET, 2, 24, 0, 0); attr_ip(&r, IFA_LOCAL, AF_INET, "10.1.0.1");
                 attr(&r, IFA_LABEL, "eth0", 4));
        BAD_ADDR(addr_begin(&r, AF_INET, 2, 24, 0, 0); attr_ip(&r, IFA_LOCAL, AF_INET, "10.1.0.1");
                 attr(&r, IFA_LABEL, "eth0-far-too-long", sizeof("eth0-far-too-long")));
        /* Short fixed-size attributes. */
        BAD_ADDR(addr_begin(&r, AF_INET6, 2, 64, 0, 0); attr_ip(&r, IFA_ADDRESS, AF_INET6, "fd00::1");
                 attr(&r, IFA_FLAGS, "ab", 2));
        BAD_ADDR(addr_begin(&r, AF_INET6, 2, 64, 0, 0); attr_ip(&r, IFA_ADDRESS, AF_INET6, "fd00::1");
                 attr(&r, IFA_CACHEINFO, "abcdefgh", 8));
        BAD_ADDR(addr_begin(&r, AF_INET6, 2, 64, 0, 0); attr_ip(&r, IFA_ADDRESS, AF_INET6, "fd00::1");
                 attr(&r, IFA_RT_PRIORITY, "a", 1));
        BAD_ADDR(addr_begin(&r, AF_INET6, 2, 64, 0, 0); attr_ip(&r, IFA_ADDRESS, AF_INET6, "fd00::1");
                 attr(&r, IFA_PROTO, NULL, 0));
        /* An attribute running past its message, in a family not listed too. */
        BAD_ADDR(addr_begin(&r, AF_PACKET, 2, 0, 0, 0); attr(&r, 1, "abcd", 4);
                 ((struct nlattr *)(r.buf + r.len - 8))->nla_len = 60);
        /* A link index 0 or above INT32_MAX. */
        BAD_ADDR(addr_begin(&r, AF_INET, 0, 24, 0, 0); attr_ip(&r, IFA_LOCAL, AF_INET, "10.1.0.1"));
        BAD_ADDR(addr_begin(&r, AF_INET, 0, 24, 0, 0); attr_ip(&r, IFA_LOCAL, AF_INET, "10.1.0.1");
                 ((struct ifaddrmsg *)(r.buf + r.msg + sizeof(struct nlmsghdr)))->ifa_index = 0x80000000u);
        /* A message shorter than its family header. */
        BAD_ADDR(msg_begin(&r, RTM_NEWADDR, NLM_F_MULTI, SEQ, PORTID); put(&r, "abcd", 4));
        /* A link message in an address dump is out of step. */
        r.len = 0;
        add_link(&r, 1, "lo", NULL, 0, true);
        add_done(&r, 0);
        assert_int_equal(parse_addrs(&r, 0, a, 2, &n), -EPROTO);
#undef BAD_ADDR
}

/* ---- routes ---- */

struct route_spec {
        int family;
        uint8_t dst_len, type, protocol, scope, table8;
        uint32_t flags;
        const char *dst, *gw, *prefsrc;
        int oif;        /* 0: no RTA_OIF */
        uint32_t table; /* 0: no RTA_TABLE */
        uint32_t prio;  /* 0: no RTA_PRIORITY */
};

static void route_begin(struct reply *r, const struct route_spec *s) {
        struct rtmsg rtm = { .rtm_family = (uint8_t)s->family,
                             .rtm_dst_len = s->dst_len,
                             .rtm_table = s->table8 ? s->table8 : RT_TABLE_MAIN,
                             .rtm_protocol = s->protocol ? s->protocol : RTPROT_BOOT,
                             .rtm_scope = s->scope,
                             .rtm_type = s->type ? s->type : RTN_UNICAST,
                             .rtm_flags = s->flags };
        msg_begin(r, RTM_NEWROUTE, NLM_F_MULTI, SEQ, PORTID);
        put(r, &rtm, sizeof(rtm));
        if (s->table)
                attr_u32(r, RTA_TABLE, s->table);
        if (s->dst)
                attr_ip(r, RTA_DST, s->family, s->dst);
        if (s->prio)
                attr_u32(r, RTA_PRIORITY, s->prio);
        if (s->prefsrc)
                attr_ip(r, RTA_PREFSRC, s->family, s->prefsrc);
        if (s->gw)
                attr_ip(r, RTA_GATEWAY, s->family, s->gw);
        if (s->oif)
                attr_u32(r, RTA_OIF, (uint32_t)s->oif);
}

static void add_route(struct reply *r, const struct route_spec *s) {
        route_begin(r, s);
        msg_end(r);
}

/* A multipath route whose hops go out through links a and b. */
static void add_multipath(struct reply *r, const char *dst, int a, int b) {
        struct route_spec s = { .family = AF_INET, .dst_len = 24, .dst = dst, .table = RT_TABLE_MAIN };
        route_begin(r, &s);
        size_t nest = attr(r, RTA_MULTIPATH, NULL, 0);
        int hops[2] = { a, b };
        for (int i = 0; i < 2; i++) {
                struct rtnexthop nh = { .rtnh_len = sizeof(nh) + 8, .rtnh_ifindex = hops[i] };
                put(r, &nh, sizeof(nh));
                attr_ip(r, RTA_GATEWAY, AF_INET, i ? "10.1.0.3" : "10.1.0.2");
        }
        attr_end(r, nest);
        msg_end(r);
}

static int parse_routes(
        const struct reply *r, int family, int oif, struct rtnl_route *rt, size_t max, size_t *n,
        size_t *skipped) {
        struct mh_error e = { 0 };
        int k = rtnl_route_dump_parse(r->buf, r->len, SEQ, PORTID, family, oif, rt, max, n, skipped, &e);
        if (k < 0)
                assert_true(e.msg[0] != '\0');
        return k;
}

/* What a link with 10.1.0.1/24 and fd00:1::1/64 and a few routes dumps. */
static void add_route_table(struct reply *r) {
        const struct route_spec specs[] = {
                /* IPv4 main: the default first, then the prefix route. */
                { .family = AF_INET, .gw = "10.1.0.254", .oif = 2, .table = RT_TABLE_MAIN },
                { .family = AF_INET,
                  .dst_len = 24,
                  .dst = "10.1.0.0",
                  .protocol = RTPROT_KERNEL,
                  .scope = RT_SCOPE_LINK,
                  .prefsrc = "10.1.0.1",
                  .oif = 2,
                  .table = RT_TABLE_MAIN },
                /* A table above 255: rtm_table says "compat". */
                { .family = AF_INET,
                  .dst_len = 24,
                  .dst = "192.0.2.0",
                  .gw = "10.1.0.254",
                  .protocol = RTPROT_STATIC,
                  .oif = 2,
                  .table8 = RT_TABLE_COMPAT,
                  .table = 1000,
                  .prio = 50,
                  .flags = RTNH_F_ONLINK },
                /* Another link's route. */
                { .family = AF_INET, .dst_len = 24, .dst = "10.3.0.0", .oif = 3, .table = RT_TABLE_MAIN },
                /* Local and broadcast routes, a cached clone: not listed. */
                { .family = AF_INET,
                  .dst_len = 32,
                  .dst = "10.1.0.1",
                  .type = RTN_LOCAL,
                  .oif = 2,
                  .table8 = RT_TABLE_LOCAL,
                  .table = RT_TABLE_LOCAL },
                { .family = AF_INET,
                  .dst_len = 32,
                  .dst = "10.1.0.255",
                  .type = RTN_BROADCAST,
                  .oif = 2,
                  .table = RT_TABLE_LOCAL },
                { .family = AF_INET,
                  .dst_len = 32,
                  .dst = "10.9.9.9",
                  .gw = "10.1.0.254",
                  .oif = 2,
                  .flags = RTM_F_CLONED },
                /* IPv6 main: no RTA_TABLE, so rtm_table counts. */
                { .family = AF_INET6,
                  .dst_len = 64,
                  .dst = "fd00:1::",
                  .protocol = RTPROT_KERNEL,
                  .oif = 2,
                  .prio = 256 },
                { .family = AF_INET6, .gw = "fd00:1::fe", .oif = 2, .prio = 1024, .table = RT_TABLE_MAIN },
                { .family = AF_INET6,
                  .dst_len = 8,
                  .dst = "ff00::",
                  .type = RTN_MULTICAST,
                  .oif = 2,
                  .table = RT_TABLE_LOCAL },
        };
        for (size_t i = 0; i < ELEMENTSOF(specs); i++)
                add_route(r, &specs[i]);
}

static void test_route_dump(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_route rt[8];
        size_t n = 99, skipped = 99;

        add_route_table(&r);
        add_done(&r, 0);
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 8, &n, &skipped), 0);
        assert_int_equal(n, 5);
        assert_int_equal(skipped, 0);
        /* Those without a gateway first, each group in the kernel's order. */
        assert_int_equal(rt[0].family, AF_INET);
        assert_true(rt[0].has_dst);
        assert_int_equal(rt[0].dst_len, 24);
        assert_memory_equal(rt[0].dst, ip(AF_INET, "10.1.0.0"), 4);
        assert_false(rt[0].has_gateway);
        assert_true(rt[0].has_prefsrc);
        assert_memory_equal(rt[0].prefsrc, ip(AF_INET, "10.1.0.1"), 4);
        assert_int_equal(rt[0].protocol, RTPROT_KERNEL);
        assert_int_equal(rt[0].scope, RT_SCOPE_LINK);
        assert_int_equal(rt[1].family, AF_INET6);
        assert_false(rt[1].has_gateway);
        assert_int_equal(rt[1].priority, 256);
        assert_int_equal(rt[1].table, RT_TABLE_MAIN); /* from rtm_table */
        assert_int_equal(rt[2].family, AF_INET);
        assert_false(rt[2].has_dst);
        assert_int_equal(rt[2].dst_len, 0);
        assert_true(rt[2].has_gateway);
        assert_memory_equal(rt[2].gateway, ip(AF_INET, "10.1.0.254"), 4);
        assert_int_equal(rt[2].oif, 2);
        assert_int_equal(rt[2].priority, 0);
        assert_int_equal(rt[3].table, 1000);
        assert_int_equal(rt[3].priority, 50);
        assert_int_equal(rt[3].protocol, RTPROT_STATIC);
        assert_int_equal(rt[3].flags, RTNH_F_ONLINK);
        assert_int_equal(rt[4].family, AF_INET6);
        assert_true(rt[4].has_gateway);
        assert_memory_equal(rt[4].gateway, ip(AF_INET6, "fd00:1::fe"), 16);
        assert_int_equal(rt[4].priority, 1024);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(rt[i].type, RTN_UNICAST);

        /* One family; every link; the other link; room for fewer. */
        assert_int_equal(parse_routes(&r, AF_INET6, 2, rt, 8, &n, NULL), 0);
        assert_int_equal(n, 2);
        assert_int_equal(parse_routes(&r, AF_INET, 2, rt, 8, &n, NULL), 0);
        assert_int_equal(n, 3);
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 0, rt, 8, &n, NULL), 0);
        assert_int_equal(n, 6);
        assert_int_equal(parse_routes(&r, AF_INET, 3, rt, 1, &n, NULL), 0);
        assert_int_equal(n, 1);
        assert_int_equal(rt[0].oif, 3);
        n = skipped = 99;
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 4, &n, &skipped), -ENOBUFS);
        assert_int_equal(n, 99);
        assert_int_equal(skipped, 99);
        assert_int_equal(parse_routes(&r, AF_PACKET, 2, rt, 8, &n, NULL), -EINVAL);
}

/* Routes struct rtnl_route cannot say are counted, not listed; a multipath
 * route counts only when one of its hops goes through the link. */
static void test_route_skipped(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_route rt[8];
        size_t n, skipped;
        struct route_spec s = { .family = AF_INET, .dst_len = 24, .dst = "198.51.100.0", .oif = 2 };

        add_multipath(&r, "203.0.113.0", 3, 2);
        add_multipath(&r, "203.0.114.0", 3, 4);
        route_begin(&r, &s); /* a nexthop object */
        attr_u32(&r, RTA_NH_ID, 7);
        msg_end(&r);
        route_begin(&r, &s); /* an IPv6 gateway for IPv4 */
        attr(&r, RTA_VIA,
             "\x0a\x00"
             "0123456789abcdef",
             18);
        msg_end(&r);
        route_begin(&r, &s); /* an encapsulation */
        size_t nest = attr(&r, RTA_ENCAP, NULL, 0);
        attr_u32(&r, 1, 100);
        attr_end(&r, nest);
        msg_end(&r);
        route_begin(&r, &s); /* more metrics than room for them */
        nest = attr(&r, RTA_METRICS, NULL, 0);
        for (uint16_t i = 0; i < 40; i++)
                attr_u32(&r, (uint16_t)(1 + i % RTAX_MAX), i);
        attr_end(&r, nest);
        msg_end(&r);
        route_begin(&r, &s); /* metrics that fit, kept as they are */
        nest = attr(&r, RTA_METRICS, NULL, 0);
        attr_u32(&r, RTAX_MTU, 1400);
        attr(&r, RTAX_CC_ALGO, "cubic", sizeof("cubic"));
        attr_end(&r, nest);
        msg_end(&r);
        s.family = AF_INET6; /* an IPv6 router preference */
        s.dst = "2001:db8::";
        s.dst_len = 64;
        route_begin(&r, &s);
        attr(&r, RTA_PREF, &(uint8_t){ 1 }, 1);
        msg_end(&r);
        /* A multicast routing cache entry (RTNL_FAMILY_IPMR) in an AF_UNSPEC dump. */
        struct rtmsg mr = { .rtm_family = 128, .rtm_type = RTN_MULTICAST };
        msg_begin(&r, RTM_NEWROUTE, NLM_F_MULTI, SEQ, PORTID);
        put(&r, &mr, sizeof(mr));
        attr_u32(&r, RTA_OIF, 2);
        msg_end(&r);
        add_done(&r, 0);

        assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 8, &n, &skipped), 0);
        assert_int_equal(skipped, 5);
        assert_int_equal(n, 2);
        assert_int_equal(rt[0].metrics_len, 8 + 4 + ALIGN4(sizeof("cubic")));
        uint32_t mtu;
        memcpy(&mtu, rt[0].metrics + 4, 4);
        assert_int_equal(mtu, 1400);
        assert_int_equal(rt[1].family, AF_INET6);
        assert_int_equal(rt[1].pref, 1);
        /* Through link 4 only the second multipath route goes; every link. */
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 4, rt, 8, &n, &skipped), 0);
        assert_int_equal(n, 0);
        assert_int_equal(skipped, 1);
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 0, rt, 8, &n, &skipped), 0);
        assert_int_equal(skipped, 6);
        assert_int_equal(parse_routes(&r, AF_INET6, 2, rt, 8, &n, &skipped), 0);
        assert_int_equal(n, 1);
        assert_int_equal(skipped, 0);
}

static void test_route_truncated(void **state) {
        (void)state;
        struct reply r = { .len = 0 };
        struct rtnl_route rt[16];
        size_t n, whole;

        add_route_table(&r);
        add_multipath(&r, "203.0.113.0", 3, 2);
        whole = r.len;
        add_done(&r, 0);
        size_t full = r.len;
        for (size_t cut = 0; cut < full; cut++) {
                r.len = cut;
                int k = parse_routes(&r, AF_UNSPEC, 0, rt, 16, &n, NULL);
                assert_true(k == -EBADMSG || k == -EPROTO);
                if (cut == whole)
                        assert_int_equal(k, -EPROTO);
        }
        r.len = full;
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 0, rt, 16, &n, NULL), 0);
}

static void test_route_malformed(void **state) {
        (void)state;
        struct reply r;
        struct rtnl_route rt[2];
        size_t n;
        struct route_spec v4 = { .family = AF_INET, .oif = 2 };
        struct route_spec v6 = { .family = AF_INET6, .oif = 2 };

#define BAD_ROUTE(spec, ...)                                                                                \
        do {                                                                                                \
                r.len = 0;                                                                                  \
                route_begin(&r, &(spec));                                                                   \
                __VA_ARGS__;                                                                                \
                msg_end(&r);                                                                                \
                add_done(&r, 0);                                                                            \
                assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 2, &n, NULL), -EBADMSG);                \
        } while (0)

        /* Addresses of the other family's size. */
        BAD_ROUTE(v4, attr_ip(&r, RTA_DST, AF_INET6, "fd00::"));
        BAD_ROUTE(v6, attr_ip(&r, RTA_GATEWAY, AF_INET, "10.0.0.1"));
        BAD_ROUTE(v4, attr_ip(&r, RTA_PREFSRC, AF_INET6, "fd00::1"));
        BAD_ROUTE(v6, attr_ip(&r, RTA_SRC, AF_INET, "10.0.0.1"));
        /* Short fixed-size attributes. */
        BAD_ROUTE(v4, attr(&r, RTA_TABLE, "ab", 2));
        BAD_ROUTE(v4, attr(&r, RTA_PRIORITY, "ab", 2));
        BAD_ROUTE(v6, attr(&r, RTA_PREF, NULL, 0));
        /* RTA_OIF comes after what route_begin() put, and wins. */
        BAD_ROUTE(v4, attr(&r, RTA_OIF, "ab", 2));
        /* Metrics that are not attributes. */
        BAD_ROUTE(v4, attr(&r, RTA_METRICS, "\x40\x00\x01\x00", 4));
        /* Multipath hops that do not fit: too long, shorter than a hop,
         * a gateway running past its hop. */
        struct rtnexthop nh = { .rtnh_len = 64, .rtnh_ifindex = 2 };
        BAD_ROUTE(v4, attr(&r, RTA_MULTIPATH, &nh, sizeof(nh)));
        nh.rtnh_len = 4;
        BAD_ROUTE(v4, attr(&r, RTA_MULTIPATH, &nh, sizeof(nh)));
        BAD_ROUTE(v4, attr(&r, RTA_MULTIPATH, &nh, 6));
        struct {
                struct rtnexthop nh;
                struct nlattr a;
                uint32_t gw;
        } hop = { { .rtnh_len = sizeof(hop), .rtnh_ifindex = 2 },
                  { .nla_len = 12, .nla_type = RTA_GATEWAY },
                  1 };
        BAD_ROUTE(v4, attr(&r, RTA_MULTIPATH, &hop, sizeof(hop)));
        /* ... and a hop that fits parses (the multipath route is counted). */
        hop.a.nla_len = 8;
        r.len = 0;
        route_begin(&r, &v4);
        attr(&r, RTA_MULTIPATH, &hop, sizeof(hop));
        msg_end(&r);
        add_done(&r, 0);
        size_t skipped;
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 2, &n, &skipped), 0);
        assert_int_equal(skipped, 1);
        /* Prefixes longer than the family's addresses. */
        struct route_spec long4 = { .family = AF_INET, .dst_len = 33, .dst = "10.0.0.0", .oif = 2 };
        struct route_spec long6 = { .family = AF_INET6, .dst_len = 129, .dst = "fd00::", .oif = 2 };
        BAD_ROUTE(long4, (void)0);
        BAD_ROUTE(long6, (void)0);
        /* A prefix without its address; a link index 0 or above INT32_MAX. */
        struct route_spec nodst = { .family = AF_INET, .dst_len = 24, .oif = 2 };
        struct route_spec nosrc = { .family = AF_INET6, .oif = 2 };
        BAD_ROUTE(nodst, (void)0);
        BAD_ROUTE(nosrc, ((struct rtmsg *)(r.buf + r.msg + sizeof(struct nlmsghdr)))->rtm_src_len = 48);
        BAD_ROUTE(v4, attr_u32(&r, RTA_OIF, 0));
        BAD_ROUTE(v4, attr_u32(&r, RTA_OIF, 0x80000000u));
        /* Malformed routes are found in messages not listed too (another link). */
        struct route_spec other = { .family = AF_INET, .oif = 9 };
        BAD_ROUTE(other, attr_ip(&r, RTA_DST, AF_INET6, "fd00::"));
        /* A message shorter than its family header. */
        r.len = 0;
        msg_begin(&r, RTM_NEWROUTE, NLM_F_MULTI, SEQ, PORTID);
        put(&r, "abcdefgh", 8);
        msg_end(&r);
        add_done(&r, 0);
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 2, &n, NULL), -EBADMSG);
        /* An interrupted dump, a kernel error. */
        r.len = 0;
        add_route(&r, &v4);
        add_done(&r, 0);
        ((struct nlmsghdr *)r.buf)->nlmsg_flags |= NLM_F_DUMP_INTR;
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 2, &n, NULL), -EINTR);
        r.len = 0;
        add_error(&r, -EPERM);
        assert_int_equal(parse_routes(&r, AF_UNSPEC, 2, rt, 2, &n, NULL), -EPERM);
#undef BAD_ROUTE
}

/* ---- address and route requests ---- */

/* Turns the request in buf into a one-entry dump (our port id 0) and parses
 * it back. */
static void as_dump(struct reply *r, const uint8_t *buf, size_t len, uint16_t type) {
        const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
        assert_int_equal(h->nlmsg_len, len);
        assert_int_equal(h->nlmsg_type, type);
        assert_int_equal(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
        assert_int_equal(h->nlmsg_seq, SEQ);
        r->len = 0;
        memcpy(r->buf, buf, len);
        r->len = ALIGN4(len);
        msg_begin(r, NLMSG_DONE, NLM_F_MULTI, SEQ, 0);
        put(r, &(int){ 0 }, sizeof(int));
        msg_end(r);
}

static void assert_addr_equal(const struct rtnl_addr *a, const struct rtnl_addr *b) {
        assert_int_equal(a->family, b->family);
        assert_int_equal(a->ifindex, b->ifindex);
        assert_int_equal(a->prefixlen, b->prefixlen);
        assert_int_equal(a->scope, b->scope);
        assert_int_equal(a->proto, b->proto);
        assert_int_equal(a->flags, b->flags);
        assert_int_equal(a->valid_lft, b->valid_lft);
        assert_int_equal(a->preferred_lft, b->preferred_lft);
        assert_int_equal(a->rt_priority, b->rt_priority);
        assert_memory_equal(a->addr, b->addr, RTNL_ADDR_LEN);
        assert_int_equal(a->has_peer, b->has_peer);
        assert_memory_equal(a->peer, b->peer, RTNL_ADDR_LEN);
        assert_int_equal(a->has_broadcast, b->has_broadcast);
        assert_memory_equal(a->broadcast, b->broadcast, RTNL_ADDR_LEN);
        assert_string_equal(a->label, b->label);
}

static struct rtnl_addr back_addr(const struct rtnl_addr *a, unsigned add_flags) {
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX];
        struct reply r;
        struct rtnl_addr out[2];
        size_t len = 0, n = 0;
        struct mh_error e = { 0 };

        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, a, add_flags, &len, &e), 0);
        as_dump(&r, buf, len, RTM_NEWADDR);
        assert_int_equal(rtnl_addr_dump_parse(r.buf, r.len, SEQ, 0, 0, out, 2, &n, &e), 0);
        assert_int_equal(n, 1);
        return out[0];
}

static void test_msg_addr(void **state) {
        (void)state;
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX];
        struct mh_error e = { 0 };
        size_t len = 0;
        struct rtnl_addr v4 = { .family = AF_INET,
                                .ifindex = 4,
                                .prefixlen = 24,
                                .flags = IFA_F_NOPREFIXROUTE,
                                .valid_lft = UINT32_MAX,
                                .preferred_lft = UINT32_MAX,
                                .has_broadcast = true,
                                .label = "eth0:1" };
        memcpy(v4.addr, ip(AF_INET, "10.1.0.5"), 4);
        memcpy(v4.broadcast, ip(AF_INET, "10.1.0.255"), 4);
        struct rtnl_addr got = back_addr(&v4, RTNL_ADDR_ADD_NODAD); /* ignored for IPv4 */
        assert_addr_equal(&got, &v4);
        v4.has_peer = true;
        memcpy(v4.peer, ip(AF_INET, "10.1.0.9"), 4);
        got = back_addr(&v4, 0);
        assert_addr_equal(&got, &v4);

        struct rtnl_addr v6 = { .family = AF_INET6,
                                .ifindex = 4,
                                .prefixlen = 64,
                                .scope = RT_SCOPE_LINK,
                                .proto = 3,
                                .flags = IFA_F_PERMANENT | IFA_F_TENTATIVE | IFA_F_MANAGETEMPADDR,
                                .valid_lft = 7200,
                                .preferred_lft = 3600,
                                .rt_priority = 300 };
        memcpy(v6.addr, ip(AF_INET6, "fe80::1"), 16);
        got = back_addr(&v6, 0);
        /* Only the flags the kernel takes from a request go out. */
        struct rtnl_addr want = v6;
        want.flags = IFA_F_MANAGETEMPADDR;
        assert_addr_equal(&got, &want);
        got = back_addr(&v6, RTNL_ADDR_ADD_NODAD);
        want.flags = IFA_F_MANAGETEMPADDR | IFA_F_NODAD;
        assert_addr_equal(&got, &want);
        v6.has_peer = true;
        memcpy(v6.peer, ip(AF_INET6, "fe80::2"), 16);
        v6.flags = IFA_F_NODAD;
        got = back_addr(&v6, 0);
        assert_addr_equal(&got, &v6);
        /* IPv6 has no broadcast or label: not sent. */
        v6.has_broadcast = true;
        memcpy(v6.label, "x", 2);
        got = back_addr(&v6, 0);
        assert_false(got.has_broadcast);
        assert_string_equal(got.label, "");

        /* Out of range. */
        struct rtnl_addr bad = v4;
        bad.family = AF_PACKET;
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, &bad, 0, &len, &e), -EINVAL);
        bad = v4;
        bad.ifindex = 0;
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, &bad, 0, &len, &e), -EINVAL);
        bad = v4;
        bad.prefixlen = 33;
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, &bad, 0, &len, &e), -EINVAL);
        bad = v4;
        bad.valid_lft = 0;
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, &bad, 0, &len, &e), -EINVAL);
        bad = v4;
        bad.valid_lft = 10;
        bad.preferred_lft = 11;
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, &bad, 0, &len, &e), -EINVAL);
        bad = v4;
        memset(bad.label, 'x', sizeof(bad.label));
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, &bad, 0, &len, &e), -EINVAL);
        assert_true(e.msg[0] != '\0');
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, NULL, 0, &len, &e), -EINVAL);
        /* Too small a buffer at every size. */
        assert_int_equal(rtnl_msg_addr(buf, sizeof(buf), SEQ, &v6, 0, &len, &e), 0);
        size_t need = len;
        for (size_t size = 0; size < need; size++)
                assert_int_equal(rtnl_msg_addr(buf, size, SEQ, &v6, 0, &len, &e), -ENOBUFS);
        assert_int_equal(rtnl_msg_addr(buf, need, SEQ, &v6, 0, &len, &e), 0);
}

static void assert_route_equal(const struct rtnl_route *a, const struct rtnl_route *b) {
        assert_int_equal(a->family, b->family);
        assert_int_equal(a->dst_len, b->dst_len);
        assert_int_equal(a->src_len, b->src_len);
        assert_int_equal(a->tos, b->tos);
        assert_int_equal(a->protocol, b->protocol);
        assert_int_equal(a->scope, b->scope);
        assert_int_equal(a->type, b->type);
        assert_int_equal(a->pref, b->pref);
        assert_int_equal(a->flags, b->flags);
        assert_int_equal(a->table, b->table);
        assert_int_equal(a->priority, b->priority);
        assert_int_equal(a->oif, b->oif);
        assert_int_equal(a->has_dst, b->has_dst);
        assert_memory_equal(a->dst, b->dst, RTNL_ADDR_LEN);
        assert_int_equal(a->has_src, b->has_src);
        assert_memory_equal(a->src, b->src, RTNL_ADDR_LEN);
        assert_int_equal(a->has_gateway, b->has_gateway);
        assert_memory_equal(a->gateway, b->gateway, RTNL_ADDR_LEN);
        assert_int_equal(a->has_prefsrc, b->has_prefsrc);
        assert_memory_equal(a->prefsrc, b->prefsrc, RTNL_ADDR_LEN);
        assert_int_equal(a->metrics_len, b->metrics_len);
        assert_memory_equal(a->metrics, b->metrics, a->metrics_len);
}

static struct rtnl_route back_route(const struct rtnl_route *rt) {
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX];
        struct reply r;
        struct rtnl_route out[2];
        size_t len = 0, n = 0, skipped = 9;
        struct mh_error e = { 0 };

        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, rt, &len, &e), 0);
        as_dump(&r, buf, len, RTM_NEWROUTE);
        assert_int_equal(
                rtnl_route_dump_parse(r.buf, r.len, SEQ, 0, AF_UNSPEC, 0, out, 2, &n, &skipped, &e), 0);
        assert_int_equal(n, 1);
        assert_int_equal(skipped, 0);
        return out[0];
}

static void test_msg_route(void **state) {
        (void)state;
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX];
        struct mh_error e = { 0 };
        size_t len = 0;
        struct rtnl_route v4 = { .family = AF_INET,
                                 .dst_len = 24,
                                 .tos = 0x10,
                                 .protocol = RTPROT_STATIC,
                                 .scope = RT_SCOPE_UNIVERSE,
                                 .type = RTN_UNICAST,
                                 .flags = RTNH_F_ONLINK,
                                 .table = 1000,
                                 .priority = 50,
                                 .oif = 4,
                                 .has_dst = true,
                                 .has_gateway = true,
                                 .has_prefsrc = true };
        memcpy(v4.dst, ip(AF_INET, "192.0.2.0"), 4);
        memcpy(v4.gateway, ip(AF_INET, "10.1.0.254"), 4);
        memcpy(v4.prefsrc, ip(AF_INET, "10.1.0.1"), 4);
        const uint8_t mx[] = { 8, 0, RTAX_MTU, 0, 0x78, 0x05, 0, 0 }; /* mtu 1400 */
        memcpy(v4.metrics, mx, sizeof(mx));
        v4.metrics_len = sizeof(mx);
        struct rtnl_route got = back_route(&v4);
        assert_route_equal(&got, &v4);
        const struct rtmsg *rtm = (const struct rtmsg *)(buf + sizeof(struct nlmsghdr));
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &v4, &len, &e), 0);
        assert_int_equal(rtm->rtm_table, RT_TABLE_COMPAT);
        /* Only onlink goes out of the flags; table 254 fits rtm_table. */
        v4.flags = RTNH_F_ONLINK | RTNH_F_LINKDOWN | RTM_F_CLONED;
        v4.table = RT_TABLE_MAIN;
        got = back_route(&v4);
        assert_int_equal(got.flags, RTNH_F_ONLINK);
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &v4, &len, &e), 0);
        assert_int_equal(rtm->rtm_table, RT_TABLE_MAIN);

        /* IPv6 default route from a source prefix, with a preference. */
        struct rtnl_route v6 = { .family = AF_INET6,
                                 .src_len = 48,
                                 .protocol = RTPROT_BOOT,
                                 .type = RTN_UNICAST,
                                 .pref = 1,
                                 .table = RT_TABLE_MAIN,
                                 .priority = 1024,
                                 .oif = 4,
                                 .has_src = true,
                                 .has_gateway = true };
        memcpy(v6.src, ip(AF_INET6, "2001:db8:1::"), 16);
        memcpy(v6.gateway, ip(AF_INET6, "fe80::1"), 16);
        got = back_route(&v6);
        assert_route_equal(&got, &v6);

        /* Out of range. */
        struct rtnl_route bad = v4;
        bad.type = RTN_LOCAL;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        bad.type = RTN_UNSPEC;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        bad = v4;
        bad.family = AF_UNSPEC;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        bad = v4;
        bad.dst_len = 33;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        bad = v4;
        bad.has_dst = false;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        bad = v6;
        bad.has_src = false;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        bad = v4;
        bad.metrics_len = RTNL_ROUTE_METRICS_MAX + 1;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        bad = v4;
        bad.oif = -1;
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), -EINVAL);
        assert_true(e.msg[0] != '\0');
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, NULL, &len, &e), -EINVAL);
        /* Every metric there is still fits one request. */
        bad = v4;
        bad.metrics_len = RTNL_ROUTE_METRICS_MAX;
        memset(bad.metrics, 0, sizeof(bad.metrics));
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &bad, &len, &e), 0);
        /* Too small a buffer at every size. */
        assert_int_equal(rtnl_msg_route(buf, sizeof(buf), SEQ, &v4, &len, &e), 0);
        size_t need = len;
        for (size_t size = 0; size < need; size++)
                assert_int_equal(rtnl_msg_route(buf, size, SEQ, &v4, &len, &e), -ENOBUFS);
        assert_int_equal(rtnl_msg_route(buf, need, SEQ, &v4, &len, &e), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_link_dump),       cmocka_unit_test(test_truncated),
                cmocka_unit_test(test_bad_attributes),  cmocka_unit_test(test_out_of_step),
                cmocka_unit_test(test_kernel_errors),   cmocka_unit_test(test_qdisc_dump),
                cmocka_unit_test(test_qdisc_stats),     cmocka_unit_test(test_msg_tbf),
                cmocka_unit_test(test_msg_netem),       cmocka_unit_test(test_addr_dump),
                cmocka_unit_test(test_addr_truncated),  cmocka_unit_test(test_addr_malformed),
                cmocka_unit_test(test_route_dump),      cmocka_unit_test(test_route_skipped),
                cmocka_unit_test(test_route_truncated), cmocka_unit_test(test_route_malformed),
                cmocka_unit_test(test_msg_addr),        cmocka_unit_test(test_msg_route),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
