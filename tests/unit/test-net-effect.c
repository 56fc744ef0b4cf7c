/* What the network effect checks read and send, without root: the
 * nameservers taken from a target's resolv.conf (hostile text), and the DNS
 * query the agent sends its resolver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fault/net-probe.h"
#include "fault/net-resolv.h"

static struct net_nameservers parse(const char *text, size_t len) {
        struct net_nameservers ns;
        net_nameservers_parse(text, len, &ns);
        return ns;
}

#define PARSE(lit) parse((lit), sizeof(lit) - 1)

static void test_nameservers_in_order(void **state) {
        (void)state;
        struct net_nameservers ns = PARSE("# Docker\nsearch example.com\nnameserver 127.0.0.11\n"
                                          "options ndots:0\n\tnameserver\t::1  # v6\r\nnameserver 10.0.0.2");
        assert_int_equal(ns.n, 3);
        assert_string_equal(ns.addr[0], "127.0.0.11");
        assert_string_equal(ns.addr[1], "::1");
        assert_string_equal(ns.addr[2], "10.0.0.2");
}

/* Names, scoped IPv6, overlong tokens, a keyword without a blank, text past
 * a NUL and a fourth nameserver are all left out. */
static void test_nameservers_hostile(void **state) {
        (void)state;
        char longline[600];
        memset(longline, '1', sizeof(longline));
        memcpy(longline, "nameserver ", 11);
        assert_int_equal(parse(longline, sizeof(longline)).n, 0);
        struct net_nameservers ns =
                PARSE("nameserver dns.example.com\nnameserver fe80::1%eth0\nnameserver1.2.3.4\n"
                      "nameserver 1.2.3.4;rm\nnameserver \"1.2.3.4\"\nnameserver 256.1.1.1\nnameserver\n"
                      "nameserver 9.9.9.9\0\nnameserver 8.8.8.8\nnameserver 1.1.1.1\nnameserver 2.2.2.2\n"
                      "nameserver 3.3.3.3\n");
        assert_int_equal(ns.n, 3);
        assert_string_equal(ns.addr[0], "9.9.9.9");
        assert_string_equal(ns.addr[1], "8.8.8.8");
        assert_string_equal(ns.addr[2], "1.1.1.1");
        assert_int_equal(PARSE("").n, 0);
        assert_int_equal(PARSE("\n\n\0\0").n, 0);
        assert_int_equal(PARSE("nameserver 1.2.3.4").n, 1); /* no newline at the end */
}

static void test_dns_query_encoding(void **state) {
        (void)state;
        uint8_t q[300];
        static const uint8_t want[] = { 0x12, 0x34, 0x01, 0,   0,   1,   0,   0,   0,   0, 0, 0, 3, 'w', 'e',
                                        'b',  7,    'e',  'x', 'a', 'm', 'p', 'l', 'e', 0, 0, 1, 0, 1 };
        int n = net_probe_dns_query("web.example", 0x1234, q, sizeof(q));
        assert_int_equal(n, (int)sizeof(want));
        assert_memory_equal(q, want, sizeof(want));
        assert_int_equal(net_probe_dns_query("mayhem-dns_1", 1, q, sizeof(q)), 12 + 14 + 4);
        assert_int_equal(net_probe_dns_query(".", 1, q, sizeof(q)), 12 + 1 + 4);
}

static void test_dns_query_refuses_what_is_no_name(void **state) {
        (void)state;
        uint8_t q[300];
        char label64[80], long254[300];
        memset(label64, 'a', 64), label64[64] = '\0';
        for (size_t i = 0; i < 254; i++)
                long254[i] = i % 2 ? '.' : 'a';
        long254[253] = 'a', long254[254] = '\0';
        const char *bad[] = { "", "a..b", ".a", "a b", "a\"b", "a;b", "a/b", label64, long254 };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                if (net_probe_dns_query(bad[i], 1, q, sizeof(q)) != -EINVAL)
                        fail_msg("'%.40s' was encoded", bad[i]);
        assert_int_equal(net_probe_dns_query("web", 1, q, 16), -ENOBUFS);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nameservers_in_order),
                cmocka_unit_test(test_nameservers_hostile),
                cmocka_unit_test(test_dns_query_encoding),
                cmocka_unit_test(test_dns_query_refuses_what_is_no_name),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
