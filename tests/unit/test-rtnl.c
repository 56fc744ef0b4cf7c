/* sys/rtnl at the message level, without privileges: dump replies crafted
 * byte by byte (well-formed, truncated, out of step, kernel errors, no end,
 * too many entries) through the parsers the list functions use, and the
 * tbf / netem requests read back attribute by attribute. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_link_dump),      cmocka_unit_test(test_truncated),
                cmocka_unit_test(test_bad_attributes), cmocka_unit_test(test_out_of_step),
                cmocka_unit_test(test_kernel_errors),  cmocka_unit_test(test_qdisc_dump),
                cmocka_unit_test(test_msg_tbf),        cmocka_unit_test(test_msg_netem),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
