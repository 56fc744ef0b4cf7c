/* Feeds arbitrary bytes to the rtnetlink dump parsers (sys/rtnl.h) as if they
 * were a link, qdisc, address or route dump reply from the kernel; every
 * parser sees every input (a message of another type fails a parser at
 * once). The request's seq and portid are taken from the first message
 * header, so a captured dump (the seed corpus) parses as it did live.
 *
 * Checks: every failure is one of the documented codes (or a kernel error in
 * -4095..-1) with a message; a success returns at most max entries with
 * NUL-terminated names, kinds and labels, of the family and link asked for,
 * prefixes within their family, routes without a gateway before those with
 * one; parsing is deterministic; a failure never writes the counts. An
 * address or route listed turns into an add request (unless its lifetimes
 * are ones a request refuses) that parses back into the same entry, but for
 * the flags a request does not carry. */

#include <assert.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys/rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ENTRIES 16

static void check_code(int r, const struct mh_error *e) {
        assert(r <= 0);
        if (r == 0)
                return;
        assert(r >= -4095);
        assert(e->code == r);
        assert(e->msg[0] != '\0');
        assert(memchr(e->msg, '\0', sizeof(e->msg)));
}

static void links(const void *buf, size_t size, uint32_t seq, uint32_t portid, size_t max) {
        struct rtnl_link l[MAX_ENTRIES], l2[MAX_ENTRIES];
        struct mh_error e = { 0 }, e2 = { 0 };
        size_t n = SIZE_MAX, n2 = SIZE_MAX;

        int r = rtnl_link_dump_parse(buf, size, seq, portid, l, max, &n, &e);
        check_code(r, &e);
        int r2 = rtnl_link_dump_parse(buf, size, seq, portid, l2, max, &n2, &e2);
        assert(r == r2 && n == n2);
        if (r < 0) {
                assert(n == SIZE_MAX);
                return;
        }
        assert(n <= max);
        for (size_t i = 0; i < n; i++) {
                assert(strnlen(l[i].name, sizeof(l[i].name)) < sizeof(l[i].name));
                assert(strnlen(l[i].kind, sizeof(l[i].kind)) < sizeof(l[i].kind));
                assert(streq(l[i].name, l2[i].name) && l[i].ifindex == l2[i].ifindex);
        }
}

static void qdiscs(const void *buf, size_t size, uint32_t seq, uint32_t portid, int ifindex, size_t max) {
        struct rtnl_qdisc q[MAX_ENTRIES];
        struct mh_error e = { 0 };
        size_t n = SIZE_MAX;

        int r = rtnl_qdisc_dump_parse(buf, size, seq, portid, ifindex, q, max, &n, &e);
        check_code(r, &e);
        if (r < 0) {
                assert(n == SIZE_MAX);
                return;
        }
        assert(n <= max);
        for (size_t i = 0; i < n; i++) {
                assert(strnlen(q[i].kind, sizeof(q[i].kind)) < sizeof(q[i].kind));
                assert(ifindex == 0 || q[i].ifindex == ifindex);
        }
}

static size_t bits(int family) {
        return family == AF_INET ? 32 : 128;
}

/* A request as a one-entry dump from port id 0: the request, then DONE. */
static size_t as_dump(uint8_t *buf, size_t len, uint32_t seq) {
        struct nlmsghdr done = { .nlmsg_len = sizeof(done) + sizeof(int),
                                 .nlmsg_type = NLMSG_DONE,
                                 .nlmsg_flags = NLM_F_MULTI,
                                 .nlmsg_seq = seq };
        size_t at = NLMSG_ALIGN(len);
        assert(at + done.nlmsg_len <= RTNL_MSG_MAX + 64);
        memset(buf + len, 0, at - len);
        memcpy(buf + at, &done, sizeof(done));
        memset(buf + at + sizeof(done), 0, sizeof(int));
        return at + done.nlmsg_len;
}

static void addr_round_trip(const struct rtnl_addr *a) {
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX + 64];
        struct rtnl_addr back[2];
        struct mh_error e = { 0 };
        size_t len = 0, n = 0;
        const uint32_t sent = IFA_F_NODAD | IFA_F_HOMEADDRESS | IFA_F_MANAGETEMPADDR | IFA_F_NOPREFIXROUTE |
                              IFA_F_MCAUTOJOIN;

        int r = rtnl_msg_addr(buf, RTNL_MSG_MAX, 7, a, 0, &len, &e);
        if (a->valid_lft == 0 || a->preferred_lft > a->valid_lft) {
                assert(r == -EINVAL);
                return;
        }
        assert(r == 0);
        len = as_dump(buf, len, 7);
        assert(rtnl_addr_dump_parse(buf, len, 7, 0, 0, back, 2, &n, &e) == 0);
        assert(n == 1);
        const struct rtnl_addr *b = &back[0];
        assert(b->family == a->family && b->ifindex == a->ifindex && b->prefixlen == a->prefixlen);
        assert(b->scope == a->scope && b->proto == a->proto && b->flags == (a->flags & sent));
        assert(b->valid_lft == a->valid_lft && b->preferred_lft == a->preferred_lft);
        assert(b->rt_priority == a->rt_priority);
        assert(memcmp(b->addr, a->addr, RTNL_ADDR_LEN) == 0);
        assert(b->has_peer == a->has_peer && memcmp(b->peer, a->peer, RTNL_ADDR_LEN) == 0);
        assert(b->has_broadcast == a->has_broadcast &&
               memcmp(b->broadcast, a->broadcast, RTNL_ADDR_LEN) == 0);
        assert(streq(b->label, a->label));
}

static void addrs(const void *buf, size_t size, uint32_t seq, uint32_t portid, int ifindex, size_t max) {
        struct rtnl_addr a[MAX_ENTRIES], a2[MAX_ENTRIES];
        struct mh_error e = { 0 }, e2 = { 0 };
        size_t n = SIZE_MAX, n2 = SIZE_MAX;

        int r = rtnl_addr_dump_parse(buf, size, seq, portid, ifindex, a, max, &n, &e);
        check_code(r, &e);
        int r2 = rtnl_addr_dump_parse(buf, size, seq, portid, ifindex, a2, max, &n2, &e2);
        assert(r == r2 && n == n2);
        if (r < 0) {
                assert(n == SIZE_MAX);
                return;
        }
        assert(n <= max);
        for (size_t i = 0; i < n; i++) {
                assert(a[i].family == AF_INET || a[i].family == AF_INET6);
                assert(a[i].prefixlen <= bits(a[i].family));
                assert(a[i].ifindex > 0 && (ifindex == 0 || a[i].ifindex == ifindex));
                assert(strnlen(a[i].label, sizeof(a[i].label)) < sizeof(a[i].label));
                assert(a[i].family == AF_INET || (!a[i].has_broadcast && !a[i].label[0]));
                assert(memcmp(a[i].addr, a2[i].addr, RTNL_ADDR_LEN) == 0 && a[i].flags == a2[i].flags);
                addr_round_trip(&a[i]);
        }
}

static void route_round_trip(const struct rtnl_route *rt) {
        _Alignas(4) uint8_t buf[RTNL_MSG_MAX + 64];
        struct rtnl_route back[2];
        struct mh_error e = { 0 };
        size_t len = 0, n = 0, skipped = SIZE_MAX;

        assert(rtnl_msg_route(buf, RTNL_MSG_MAX, 9, rt, &len, &e) == 0);
        len = as_dump(buf, len, 9);
        assert(rtnl_route_dump_parse(buf, len, 9, 0, AF_UNSPEC, 0, back, 2, &n, &skipped, &e) == 0);
        assert(n == 1 && skipped == 0);
        const struct rtnl_route *b = &back[0];
        assert(b->family == rt->family && b->dst_len == rt->dst_len && b->src_len == rt->src_len);
        assert(b->tos == rt->tos && b->protocol == rt->protocol && b->scope == rt->scope);
        assert(b->type == rt->type && b->pref == rt->pref && b->flags == (rt->flags & RTNH_F_ONLINK));
        assert(b->table == rt->table && b->priority == rt->priority && b->oif == rt->oif);
        assert(b->has_dst == rt->has_dst && memcmp(b->dst, rt->dst, RTNL_ADDR_LEN) == 0);
        assert(b->has_src == rt->has_src && memcmp(b->src, rt->src, RTNL_ADDR_LEN) == 0);
        assert(b->has_gateway == rt->has_gateway && memcmp(b->gateway, rt->gateway, RTNL_ADDR_LEN) == 0);
        assert(b->has_prefsrc == rt->has_prefsrc && memcmp(b->prefsrc, rt->prefsrc, RTNL_ADDR_LEN) == 0);
        assert(b->metrics_len == rt->metrics_len && memcmp(b->metrics, rt->metrics, rt->metrics_len) == 0);
}

static void routes(
        const void *buf, size_t size, uint32_t seq, uint32_t portid, int family, int oif, size_t max) {
        struct rtnl_route r[MAX_ENTRIES], r2[MAX_ENTRIES];
        struct mh_error e = { 0 }, e2 = { 0 };
        size_t n = SIZE_MAX, n2 = SIZE_MAX, skipped = SIZE_MAX, skipped2 = SIZE_MAX;

        int k = rtnl_route_dump_parse(buf, size, seq, portid, family, oif, r, max, &n, &skipped, &e);
        check_code(k, &e);
        int k2 = rtnl_route_dump_parse(buf, size, seq, portid, family, oif, r2, max, &n2, &skipped2, &e2);
        assert(k == k2 && n == n2 && skipped == skipped2);
        if (k < 0) {
                assert(n == SIZE_MAX && skipped == SIZE_MAX);
                return;
        }
        assert(n <= max && skipped <= RTNL_REPLY_MSGS_MAX);
        for (size_t i = 0; i < n; i++) {
                assert(r[i].family == AF_INET || r[i].family == AF_INET6);
                assert(family == AF_UNSPEC || r[i].family == family);
                assert(oif == 0 || r[i].oif == oif);
                assert(r[i].oif >= 0 && r[i].type == RTN_UNICAST);
                assert(r[i].dst_len <= bits(r[i].family) && r[i].src_len <= bits(r[i].family));
                assert(r[i].metrics_len <= RTNL_ROUTE_METRICS_MAX);
                assert(i == 0 || !r[i - 1].has_gateway || r[i].has_gateway);
                assert(memcmp(r[i].dst, r2[i].dst, RTNL_ADDR_LEN) == 0 && r[i].table == r2[i].table);
                route_round_trip(&r[i]);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct nlmsghdr h = { 0 };
        void *buf;

        if (size >= sizeof(h))
                memcpy(&h, data, sizeof(h));
        /* A copy of its own, aligned as a receive buffer is, and exactly as
         * long as the input so ASan sees any overread. */
        buf = malloc(size ? size : 1);
        assert(buf);
        memcpy(buf, data, size);

        links(buf, size, h.nlmsg_seq, h.nlmsg_pid, MAX_ENTRIES);
        links(buf, size, h.nlmsg_seq, h.nlmsg_pid, 1);
        links(buf, size, h.nlmsg_seq + 1, h.nlmsg_pid, MAX_ENTRIES);
        qdiscs(buf, size, h.nlmsg_seq, h.nlmsg_pid, 0, MAX_ENTRIES);
        qdiscs(buf, size, h.nlmsg_seq, h.nlmsg_pid, 2, 2);
        addrs(buf, size, h.nlmsg_seq, h.nlmsg_pid, 0, MAX_ENTRIES);
        addrs(buf, size, h.nlmsg_seq, h.nlmsg_pid, 2, 1);
        routes(buf, size, h.nlmsg_seq, h.nlmsg_pid, AF_UNSPEC, 0, MAX_ENTRIES);
        routes(buf, size, h.nlmsg_seq, h.nlmsg_pid, AF_INET6, 2, 2);
        free(buf);
        return 0;
}
