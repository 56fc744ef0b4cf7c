/* No root: the rule spec check, the enum tables, and the reader of the
 * kernel's batch answers fed with hand-built netlink messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <endian.h>
#include <errno.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <string.h>

#include "sys/nft-reply.h"
#include "sys/nft-rule.h"

struct msgs {
        uint8_t buf[4096];
        size_t len;
};

static void put(struct msgs *m, const void *p, size_t len) {
        assert_true(m->len + NLMSG_ALIGN(len) <= sizeof(m->buf));
        memcpy(m->buf + m->len, p, len);
        m->len += NLMSG_ALIGN(len);
}

static void put_ack(struct msgs *m, uint32_t seq, int error) {
        struct {
                struct nlmsghdr h;
                struct nlmsgerr e;
        } a = { .h = { .nlmsg_len = sizeof(a), .nlmsg_type = NLMSG_ERROR, .nlmsg_seq = seq },
                .e = { .error = error, .msg = { .nlmsg_len = 16, .nlmsg_seq = seq } } };
        put(m, &a, sizeof(a));
}

static void put_newrule(struct msgs *m, uint32_t seq, uint64_t handle) {
        struct {
                struct nlmsghdr h;
                struct nfgenmsg g;
                struct nlattr chain;
                char name[4];
                struct nlattr ha;
                uint64_t handle;
        } __attribute__((packed)) r = { .h = { .nlmsg_len = sizeof(r),
                                               .nlmsg_type = (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE,
                                               .nlmsg_seq = seq },
                                        .chain = { .nla_len = 4 + 3, .nla_type = NFTA_RULE_CHAIN },
                                        .name = "in",
                                        .ha = { .nla_len = 4 + 8, .nla_type = NFTA_RULE_HANDLE },
                                        .handle = htobe64(handle) };
        put(m, &r, sizeof(r));
}

static void test_reply_acks_and_handles(void **state) {
        (void)state;
        struct nft_reply r = { .seq_first = 11, .batch_seq = 10, .n = 2, .want_handles = true };
        struct msgs m = { .len = 0 };
        put_newrule(&m, 12, 8);
        put_newrule(&m, 11, 7);
        put_ack(&m, 99, 0); /* someone else's */
        put_ack(&m, 11, 0);
        assert_int_equal(nft_reply_feed(&r, m.buf, m.len), 0);
        m.len = 0;
        put_ack(&m, 12, 0);
        assert_int_equal(nft_reply_feed(&r, m.buf, m.len), 1);
        assert_int_equal(r.error, 0);
        assert_int_equal(r.handle[0], 7);
        assert_int_equal(r.handle[1], 8);
}

static void test_reply_waits_for_echo(void **state) {
        (void)state;
        struct nft_reply r = { .seq_first = 11, .batch_seq = 10, .n = 1, .want_handles = true };
        struct msgs m = { .len = 0 };
        put_ack(&m, 11, 0);
        assert_int_equal(nft_reply_feed(&r, m.buf, m.len), 0);
        m.len = 0;
        put_newrule(&m, 11, 3);
        assert_int_equal(nft_reply_feed(&r, m.buf, m.len), 1);
}

static void test_reply_errors(void **state) {
        (void)state;
        struct nft_reply r = { .seq_first = 11, .batch_seq = 10, .n = 3 };
        struct msgs m = { .len = 0 };
        put_ack(&m, 11, 0);
        put_ack(&m, 12, -ENOENT);
        put_ack(&m, 13, -EINVAL);
        assert_int_equal(nft_reply_feed(&r, m.buf, m.len), 1);
        assert_int_equal(r.error, -ENOENT);
        assert_int_equal(r.error_index, 1);

        struct nft_reply b = { .seq_first = 11, .batch_seq = 10, .n = 3, .want_handles = true };
        m.len = 0;
        put_ack(&m, 10, -EPERM);
        assert_int_equal(nft_reply_feed(&b, m.buf, m.len), 1);
        assert_int_equal(b.error, -EPERM);
        assert_int_equal(b.error_index, 3);
        assert_int_equal(b.acked, 3);
}

static void test_reply_malformed(void **state) {
        (void)state;
        struct nft_reply r = { .seq_first = 1, .n = 1 };
        struct msgs m = { .len = 0 };
        put_ack(&m, 1, 0);
        assert_int_equal(nft_reply_feed(&r, m.buf, 10), -EPROTO);
        struct nlmsghdr h = { .nlmsg_len = 4000, .nlmsg_type = NLMSG_ERROR };
        assert_int_equal(nft_reply_feed(&r, &h, sizeof(h)), -EPROTO);
        h.nlmsg_len = 8;
        assert_int_equal(nft_reply_feed(&r, &h, sizeof(h)), -EPROTO);
        /* An ACK too short for its struct is skipped, not read past. */
        h.nlmsg_len = sizeof(h);
        assert_int_equal(nft_reply_feed(&r, &h, sizeof(h)), 0);
        r.n = NFT_REPLY_MSGS_MAX + 1;
        assert_int_equal(nft_reply_feed(&r, m.buf, m.len), -EINVAL);
}

static void test_enum_tables(void **state) {
        (void)state;
        for (int i = 0; i < _NFT_HOOK_MAX; i++)
                assert_int_equal(nft_hook_from_string(nft_hook_to_string(i)), i);
        for (int i = NFT_ACTION_ACCEPT; i < _NFT_ACTION_MAX; i++)
                assert_int_equal(nft_action_from_string(nft_action_to_string(i)), i);
        assert_null(nft_action_to_string(NFT_ACTION_NONE));
        assert_int_equal(nft_hook_from_string("sideways"), -EINVAL);
}

static void test_spec_check(void **state) {
        (void)state;
        struct mh_error e = { 0 };
        const struct nft_rule_spec ok[] = {
                { .l4 = NFT_L4_TCP, .dport = 5432, .probability = 3000, .action = NFT_ACTION_DROP },
                { .peers = { "10.0.0.1", "fd00::1" }, .action = NFT_ACTION_REJECT_PORT_UNREACH },
                { .l4 = NFT_L4_UDP, .action = NFT_ACTION_CORRUPT, .corrupt.offset = 4 },
                { .l4 = NFT_L4_ICMP, .action = NFT_ACTION_CORRUPT },
                { .l4 = NFT_L4_ICMPV6, .action = NFT_ACTION_CORRUPT },
                { .action = NFT_ACTION_QUEUE, .queue = { .num = 65534, .total = 2, .bypass = true } },
        };
        for (size_t i = 0; i < ELEMENTSOF(ok); i++)
                assert_int_equal(nft_rule_spec_check("inet", &ok[i], &e), 0);
        const struct nft_rule_spec bad[] = {
                { .l4 = NFT_L4_TCP },
                { .dport = 1, .action = NFT_ACTION_DROP },
                { .l4 = NFT_L4_UDP, .tcp_flags = NFT_TCP_FLAGS_SYN, .action = NFT_ACTION_DROP },
                { .l4 = NFT_L4_UDP, .action = NFT_ACTION_REJECT_TCP_RESET },
                { .l4 = NFT_L4_ICMP, .dport = 1, .action = NFT_ACTION_DROP },
                { .l4 = NFT_L4_ICMP, .l3 = NFT_L3_IPV6, .action = NFT_ACTION_CORRUPT },
                { .l4 = NFT_L4_ICMPV6, .l3 = NFT_L3_IPV4, .action = NFT_ACTION_CORRUPT },
                { .probability = 10001, .action = NFT_ACTION_DROP },
                { .peers = { "10.0.0.1", "nope" }, .action = NFT_ACTION_DROP },
                { .peers = { "10.0.0.0/8" }, .action = NFT_ACTION_DROP },
                { .l3 = NFT_L3_IPV6, .peers = { "10.0.0.1" }, .action = NFT_ACTION_DROP },
                { .action = NFT_ACTION_DUP_ADDR, .dup.addr = "10.0.0.1" },
                { .action = NFT_ACTION_DUP_DEVICE, .dup.device = "eth0", .mark_guard = 1 },
                { .action = NFT_ACTION_QUEUE, .queue = { .num = 65535, .total = 2 } },
                { .action = NFT_ACTION_QUEUE, .queue.via = NFT_QUEUE_XT },
                { .action = NFT_ACTION_CORRUPT },
                { .action = NFT_ACTION_DROP, .queue.bypass = true },
                { .action = NFT_ACTION_DROP, .dup.addr = "10.0.0.1" },
                { .action = NFT_ACTION_DROP, .corrupt.mask = 1 },
                { .action = _NFT_ACTION_MAX },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                e.msg[0] = '\0';
                assert_int_equal(nft_rule_spec_check("inet", &bad[i], &e), -EINVAL);
                assert_true(e.msg[0] != '\0');
        }
        struct nft_rule_spec v6 = { .peers = { "fd00::1" }, .action = NFT_ACTION_DROP };
        assert_int_equal(nft_rule_spec_check("ip", &v6, &e), -EINVAL);
        assert_int_equal(nft_rule_spec_check("ip6", &v6, &e), 0);
        assert_int_equal(nft_rule_spec_check("bridge", &v6, &e), -EINVAL);
        assert_int_equal(nft_rule_spec_check(NULL, &v6, &e), -EINVAL);
        struct nft_rule_spec dup = { .action = NFT_ACTION_DUP_ADDR,
                                     .dup.addr = "10.0.0.1",
                                     .peers = { "fd00::2" } };
        assert_int_equal(nft_rule_spec_check("ip", &dup, &e), -EINVAL);
        dup.peers[0] = "10.0.0.2";
        assert_int_equal(nft_rule_spec_check("ip", &dup, &e), 0);
        struct nft_rule_spec dev = { .mark_guard = 7,
                                     .action = NFT_ACTION_DUP_DEVICE,
                                     .dup.device = "eth0" };
        assert_int_equal(nft_rule_spec_check("netdev", &dev, &e), 0);
        dev.mark_guard = 0;
        assert_int_equal(nft_rule_spec_check("netdev", &dev, &e), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reply_acks_and_handles),
                cmocka_unit_test(test_reply_waits_for_echo),
                cmocka_unit_test(test_reply_errors),
                cmocka_unit_test(test_reply_malformed),
                cmocka_unit_test(test_enum_tables),
                cmocka_unit_test(test_spec_check),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
