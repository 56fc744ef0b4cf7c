/* Feeds arbitrary bytes to the rtnetlink dump parsers (sys/rtnl.h) as if they
 * were a link or qdisc dump reply from the kernel. The request's seq and
 * portid are taken from the first message header, so a captured dump (the
 * seed corpus) parses as it did live.
 *
 * Checks: every failure is one of the documented codes (or a kernel error in
 * -4095..-1) with a message; a success returns at most max entries with
 * NUL-terminated names and kinds; parsing is deterministic; a failure never
 * writes the count. */

#include <assert.h>
#include <errno.h>
#include <linux/netlink.h>
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
        free(buf);
        return 0;
}
