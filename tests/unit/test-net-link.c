/* A device's restore record (net.interface_down, net.mtu_mismatch) as JSON:
 * what the journal, the guardian and recovery send back is read strictly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>

#include "fault/net-link.h"

#define ADDR4                                                                                               \
        "{\"family\":4,\"addr\":\"172.17.0.2\",\"prefixlen\":16,\"scope\":0,\"proto\":0,\"flags\":128,"     \
        "\"valid_lft\":4294967295,\"preferred_lft\":4294967295,\"rt_priority\":0,\"label\":\"eth0\","       \
        "\"broadcast\":\"172.17.255.255\"}"
#define ROUTE6                                                                                              \
        "{\"family\":6,\"dst_len\":64,\"src_len\":0,\"tos\":0,\"protocol\":4,\"scope\":0,\"type\":1,"       \
        "\"pref\":0,\"flags\":0,\"table\":254,\"priority\":77,\"metrics\":\"0800010078050000\","            \
        "\"dst\":\"2001:db8::\",\"gateway\":\"fe80::1\"}"

static int parse(const char *text, struct net_link *ret, struct mh_error *e) {
        json_t *j = json_loads(text, 0, NULL);
        assert_non_null(j);
        int r = net_link_from_json(j, ret, e);
        json_decref(j);
        return r;
}

static void test_round_trip(void **state) {
        (void)state;
        static struct net_link a, b;
        struct mh_error e = { 0 };
        assert_int_equal(
                parse("{\"device\":\"eth0\",\"up\":true,\"mtu\":1500,\"skipped\":1,\"addrs\":[" ADDR4
                      "],\"routes\":[" ROUTE6 "]}",
                      &a, &e),
                0);
        assert_string_equal(a.link.name, "eth0");
        assert_true(a.link.up);
        assert_int_equal(a.link.mtu, 1500);
        assert_int_equal(a.n_addrs, 1);
        assert_int_equal(a.n_routes, 1);
        assert_int_equal(a.skipped, 1);
        assert_true(a.addrs[0].has_broadcast && !a.addrs[0].has_peer);
        assert_int_equal(a.routes[0].metrics_len, 8);
        assert_true(a.routes[0].has_dst && a.routes[0].has_gateway && !a.routes[0].has_prefsrc);
        json_t *j = net_link_json(&a);
        assert_int_equal(net_link_from_json(j, &b, &e), 0);
        json_decref(j);
        assert_memory_equal(&a.addrs[0], &b.addrs[0], sizeof(a.addrs[0]));
        assert_memory_equal(&a.routes[0], &b.routes[0], sizeof(a.routes[0]));
}

static void test_out_of_shape_refused(void **state) {
        (void)state;
        static const char *const bad[][2] = {
                { "{\"family\":5,", "family is neither 4 nor 6" },
                { "{\"family\":4,\"addr\":\"fd00::1\",", "addr is not an address of its family" },
                { "{\"family\":4,\"addr\":\"10.0.0.1\",\"prefixlen\":33,",
                  "prefixlen is not an integer in range" },
                { "{\"family\":4,\"addr\":\"10.0.0.1\",\"prefixlen\":8,\"scope\":256,",
                  "scope is not an integer" },
        };
        static struct net_link rec;
        char text[1024];
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct mh_error e = { 0 };
                snprintf(
                        text, sizeof(text),
                        "{\"device\":\"eth0\",\"up\":true,\"mtu\":1500,\"skipped\":0,\"addrs\":[%s\"label\":"
                        "\"\"}],"
                        "\"routes\":[]}",
                        bad[i][0]);
                assert_int_equal(parse(text, &rec, &e), -EINVAL);
                if (!strstr(e.msg, bad[i][1]))
                        fail_msg("%s: %s", bad[i][0], e.msg);
        }
        static const char *const routes[][2] = {
                { "\"type\":1,\"metrics\":\"abc\"", "metrics is not an even string" },
                { "\"type\":1,\"metrics\":\"ABCD\"", "metrics holds a character" },
                { "\"type\":2,\"metrics\":\"\"", "type is not 1" },
        };
        for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
                struct mh_error e = { 0 };
                snprintf(
                        text, sizeof(text),
                        "{\"device\":\"eth0\",\"up\":true,\"mtu\":1500,\"skipped\":0,\"addrs\":[],"
                        "\"routes\":[{"
                        "\"family\":4,\"dst_len\":0,\"src_len\":0,\"tos\":0,\"protocol\":4,\"scope\":0,"
                        "\"pref\":0,"
                        "\"flags\":0,\"table\":254,\"priority\":0,%s}]}",
                        routes[i][0]);
                assert_int_equal(parse(text, &rec, &e), -EINVAL);
                if (!strstr(e.msg, routes[i][1]))
                        fail_msg("%s: %s", routes[i][0], e.msg);
        }
        struct mh_error e = { 0 };
        assert_int_equal(
                parse("{\"device\":\"a-very-long-device-name\",\"addrs\":[],\"routes\":[]}", &rec, &e),
                -EINVAL);
        assert_int_equal(
                parse("{\"device\":\"eth0\",\"up\":true,\"mtu\":1500,\"skipped\":0,\"addrs\":[{\"family\":4,"
                      "\"addr\":\"10.0.0.1\",\"prefixlen\":8,\"scope\":0,\"proto\":0,\"flags\":0,\"valid_"
                      "lft\":5,"
                      "\"preferred_lft\":6,\"rt_priority\":0,\"label\":\"\"}],\"routes\":[]}",
                      &rec, &e),
                -EINVAL);
        assert_non_null(strstr(e.msg, "preferred_lft is longer than valid_lft"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_out_of_shape_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
