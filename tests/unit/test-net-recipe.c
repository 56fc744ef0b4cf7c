/* The network fault recipes: what rules, shaper config and qdisc each fault
 * becomes, from its lease params alone (no root, nothing touched). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fault/net-recipe.h"

/* The recipe points into the params (peer addresses), as into a lease: they
 * stay until the next build. */
static int build(const char *fault_id, const char *params, struct net_recipe *ret, struct mh_error *e) {
        static json_t *p;
        json_decref(p);
        p = json_loads(params, 0, NULL);
        assert_non_null(p);
        struct fault_exec fx = { .fault_id = fault_id, .lease_id = "l-0000000000000001", .params = p };
        return net_recipe_build(&fx, ret, e);
}

static void test_every_network_fault_builds(void **state) {
        (void)state;
        for (size_t i = 0; i < fault_mechanism_count(); i++) {
                const char *id = fault_mechanism_at(i)->fault_id;
                if (!net_fault_is_network(id))
                        continue;
                struct net_recipe rc;
                struct mh_error e = { 0 };
                const char *params = strcmp(id, "net.bandwidth") == 0
                                             ? "{\"delivery\":\"tbf\",\"rate\":8000000}"
                                             : "{\"delivery\":\"nft\",\"port\":80}";
                if (build(id, params, &rc, &e) < 0)
                        fail_msg("%s: %s", id, e.msg);
                assert_true(rc.n_rules > 0 || rc.delivery == NET_DELIVERY_TBF);
                assert_true(rc.dirs != 0);
        }
}

static void test_partition_both_ways_spares_loopback(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(
                build("net.partition", "{\"delivery\":\"nft\",\"direction\":\"both\"}", &rc, NULL), 0);
        assert_int_equal(rc.n_rules, 2);
        for (size_t i = 0; i < 2; i++) {
                const struct net_rule *r = &rc.rules[i];
                assert_int_equal(r->spec.action, NFT_ACTION_DROP);
                assert_true(
                        r->ingress ? r->spec.not_loopback && !r->spec.not_loopback_out
                                   : r->spec.not_loopback_out && !r->spec.not_loopback);
        }
        assert_false(rc.scoped);
}

static void test_reset_is_ingress_to_port(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(
                build("net.connection_reset", "{\"delivery\":\"nft\",\"port\":8080}", &rc, NULL), 0);
        assert_int_equal(rc.n_rules, 1);
        assert_true(rc.rules[0].ingress);
        assert_int_equal(rc.rules[0].spec.l4, NFT_L4_TCP);
        assert_int_equal(rc.rules[0].spec.dport, 8080);
        assert_int_equal(rc.rules[0].spec.tcp_flags, NFT_TCP_FLAGS_NOT_SYN);
        assert_int_equal(rc.rules[0].spec.action, NFT_ACTION_REJECT_TCP_RESET);
}

/* "to or from port" with any protocol: dport and sport, tcp and udp. */
static void test_scoped_latency_matches_both_ports_and_protocols(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(
                build("net.latency", "{\"delivery\":\"shaper\",\"delay_ms\":70,\"port\":5432}", &rc, NULL),
                0);
        assert_int_equal(rc.n_rules, 4);
        assert_true(rc.scoped);
        assert_int_equal(rc.shaper.delay_ms, 70);
        unsigned dport = 0, sport = 0, tcp = 0;
        for (size_t i = 0; i < rc.n_rules; i++) {
                assert_int_equal(rc.rules[i].spec.action, NFT_ACTION_QUEUE);
                assert_true(rc.rules[i].spec.queue.bypass);
                dport += rc.rules[i].spec.dport == 5432;
                sport += rc.rules[i].spec.sport == 5432;
                tcp += rc.rules[i].spec.l4 == NFT_L4_TCP;
        }
        assert_int_equal(dport, 2);
        assert_int_equal(sport, 2);
        assert_int_equal(tcp, 2);
}

static void test_peers_narrow_by_direction(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(
                build("net.packet_loss",
                      "{\"delivery\":\"nft\",\"percent\":25,\"direction\":\"both\","
                      "\"peers\":[\"172.17.0.3\",\"fd00::3\"]}",
                      &rc, NULL),
                0);
        assert_int_equal(rc.n_rules, 2);
        for (size_t i = 0; i < 2; i++) {
                assert_string_equal(rc.rules[i].spec.peers[0], "172.17.0.3");
                assert_string_equal(rc.rules[i].spec.peers[1], "fd00::3");
                assert_int_equal(
                        rc.rules[i].spec.peer_field, rc.rules[i].ingress ? NFT_PEER_SADDR : NFT_PEER_DADDR);
                assert_int_equal(rc.rules[i].spec.probability, 2500);
        }
}

static void test_refusals(void **state) {
        (void)state;
        struct net_recipe rc;
        struct mh_error e = { 0 };
        assert_int_equal(build("net.partition", "{\"peers\":[\"10.0.0.1\"]}", &rc, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "no delivery"));
        assert_int_equal(
                build("net.partition", "{\"delivery\":\"nft\",\"peers\":[\"db\"]}", &rc, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "not an IP address"));
        assert_int_equal(
                build("net.partition",
                      "{\"delivery\":\"nft\",\"peers\":[\"1.0.0.1\",\"1.0.0.2\",\"1.0.0.3\",\"1.0.0.4\","
                      "\"1.0.0.5\",\"1.0.0.6\",\"1.0.0.7\",\"1.0.0.8\",\"1.0.0.9\",\"1.0.0.10\",\"1.0.0."
                      "11\","
                      "\"1.0.0.12\",\"1.0.0.13\",\"1.0.0.14\",\"1.0.0.15\",\"1.0.0.16\",\"1.0.0.17\"]}",
                      &rc, &e),
                -EINVAL);
        assert_int_equal(build("container.pause", "{\"delivery\":\"nft\"}", &rc, &e), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_network_fault_builds),
                cmocka_unit_test(test_partition_both_ways_spares_loopback),
                cmocka_unit_test(test_reset_is_ingress_to_port),
                cmocka_unit_test(test_scoped_latency_matches_both_ports_and_protocols),
                cmocka_unit_test(test_peers_narrow_by_direction),
                cmocka_unit_test(test_refusals),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        build("net.partition", "{}", &(struct net_recipe){ 0 }, NULL); /* frees the last params */
        return failed;
}
