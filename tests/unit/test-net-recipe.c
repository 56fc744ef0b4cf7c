/* The network fault recipes: what rules, shaper config and qdisc each fault
 * becomes, from its lease params alone (no root, nothing touched). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/fault-params.h"
#include "fault/net-recipe.h"

/* params on top of the catalog's defaults, as the planner writes them, and
 * the lease's net context; the recipe points into the net context (peer
 * addresses), which stays until the next build. */
static int build2(
        const char *fault_id, const char *params, const char *net, struct net_recipe *ret,
        struct mh_error *e) {
        static struct fault_exec fx;
        static json_t *p, *n;
        json_decref(p), json_decref(n);
        p = fault_params_defaults(catalog_find(fault_id), params);
        n = net ? json_loads(net, 0, NULL) : NULL;
        if (!p)
                return -ENOENT;
        fx = (struct fault_exec){ .lease_id = "l-0000000000000001" };
        int r = fault_exec_bind(&fx, catalog_find(fault_id), p, n, e);
        return r < 0 ? r : net_recipe_build(&fx, &fx.net, ret, e);
}

static int build(const char *fault_id, const char *params, struct net_recipe *ret, struct mh_error *e) {
        return build2(fault_id, params, "{\"delivery\":\"nft\"}", ret, e);
}

static void test_every_network_fault_builds(void **state) {
        (void)state;
        for (size_t i = 0; i < catalog_size(); i++) {
                const char *id = catalog_at(i)->id;
                if (catalog_at(i)->net.action == NET_ACTION_NONE)
                        continue;
                struct net_recipe rc;
                struct mh_error e = { 0 };
                bool bw = strcmp(id, "net.bandwidth") == 0;
                const char *params = bw                                         ? "{\"rate\":8000000}"
                                     : !fault_param_find(catalog_at(i), "port") ? "{}"
                                                                                : "{\"port\":80}";
                if (build2(id, params, bw ? "{\"delivery\":\"tbf\"}" : "{\"delivery\":\"nft\"}", &rc, &e) <
                    0)
                        fail_msg("%s: %s", id, e.msg);
                assert_true(rc.n_rules > 0 || rc.delivery == NET_DELIVERY_TBF);
                assert_true(rc.dirs != 0);
        }
}

static void test_partition_both_ways_spares_loopback(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(build("net.partition", "{\"direction\":\"both\"}", &rc, NULL), 0);
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

/* dns.timeout drops the answers from port 53 (the query is sent and
 * waited for), on lo too, where Docker's resolver 127.0.0.11 answers, and
 * lets the answer to the agent's control query (to NET_PROBE_PORT) pass;
 * other faults spare lo. */
static void test_dns_timeout_drops_answers_on_loopback_too(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(build("dns.timeout", "{}", &rc, NULL), 0);
        assert_int_equal(rc.n_rules, 2); /* udp and tcp 53 */
        for (size_t i = 0; i < rc.n_rules; i++) {
                const struct net_rule *r = &rc.rules[i];
                assert_true(r->ingress);
                assert_int_equal(r->spec.sport, 53);
                assert_int_equal(r->spec.dport, 0);
                assert_int_equal(r->spec.not_dport, NET_PROBE_PORT);
                assert_false(r->spec.not_loopback);
                assert_true(r->spec.counter);
                assert_int_equal(r->spec.probability, 8000);
        }
        assert_int_equal(build("net.partition", "{\"direction\":\"egress\"}", &rc, NULL), 0);
        assert_true(rc.rules[0].spec.not_loopback_out);
        assert_int_equal(rc.rules[0].spec.mark_guard, NET_PROBE_MARK);
}

static void test_reset_is_ingress_to_port(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(build("net.connection_reset", "{\"port\":8080}", &rc, NULL), 0);
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
                build2("net.latency", "{\"delay_ms\":70,\"port\":5432}", "{\"delivery\":\"shaper\"}", &rc,
                       NULL),
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

/* corrupt must know where a packet's payload starts: a rule per protocol,
 * ICMP and ICMPv6 too unless a port narrows it to TCP and UDP. */
static void test_corrupt_rule_per_protocol(void **state) {
        (void)state;
        struct net_recipe rc;
        static const struct {
                const char *params;
                size_t n;
                bool icmp;
        } rows[] = {
                { "{\"percent\":5}", 4, true },
                { "{\"percent\":5,\"port\":53}", 4, false }, /* to or from 53 */
                { "{\"percent\":5,\"protocol\":\"udp\"}", 1, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                assert_int_equal(build("net.corrupt", rows[i].params, &rc, NULL), 0);
                assert_int_equal(rc.n_rules, rows[i].n);
                bool icmp = false;
                for (size_t k = 0; k < rc.n_rules; k++) {
                        assert_int_equal(rc.rules[k].spec.action, NFT_ACTION_CORRUPT);
                        assert_false(rc.rules[k].ingress);
                        icmp |= rc.rules[k].spec.l4 == NFT_L4_ICMP || rc.rules[k].spec.l4 == NFT_L4_ICMPV6;
                        assert_int_equal(nft_rule_spec_check("inet", &rc.rules[k].spec, NULL), 0);
                }
                assert_int_equal(icmp, rows[i].icmp);
        }
}

static void test_peers_narrow_by_direction(void **state) {
        (void)state;
        struct net_recipe rc;
        assert_int_equal(
                build2("net.packet_loss", "{\"percent\":25,\"direction\":\"both\"}",
                       "{\"delivery\":\"nft\",\"peers\":[\"172.17.0.3\",\"fd00::3\"]}", &rc, NULL),
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
        assert_int_equal(build2("net.partition", "{}", "{\"peers\":[\"10.0.0.1\"]}", &rc, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "no delivery"));
        assert_int_equal(
                build2("net.partition", "{}", "{\"delivery\":\"nft\",\"peers\":[\"db\"]}", &rc, &e),
                -EINVAL);
        assert_non_null(strstr(e.msg, "not an IP address"));
        assert_int_equal(
                build2("net.partition", "{}",
                       "{\"delivery\":\"nft\",\"peers\":[\"1.0.0.1\",\"1.0.0.2\",\"1.0.0.3\",\"1.0.0.4\","
                       "\"1.0.0.5\",\"1.0.0.6\",\"1.0.0.7\",\"1.0.0.8\",\"1.0.0.9\",\"1.0.0.10\",\"1.0.0."
                       "11\","
                       "\"1.0.0.12\",\"1.0.0.13\",\"1.0.0.14\",\"1.0.0.15\",\"1.0.0.16\",\"1.0.0.17\"]}",
                       &rc, &e),
                -EINVAL);
        assert_int_equal(
                build2("net.partition", "{}", "{\"delivery\":\"carrier-pigeon\"}", &rc, &e), -EINVAL);
        assert_int_equal(build("container.pause", "{}", &rc, &e), -EINVAL);
        /* A port-bound fault without its port would act on every port. */
        assert_int_equal(build("dependency.block", "{}", &rc, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "missing"));
}

/* Binding is strict: unknown, missing, mistyped and out-of-range params are refused. */
static void test_params_bound_strictly(void **state) {
        (void)state;
        struct net_recipe rc;
        struct mh_error e = { 0 };
        static const char *const bad[][2] = {
                { "{\"delay_ms\":100,\"colour\":\"red\"}", "not a parameter" },
                { "{\"delay_ms\":\"100\"}", "must be an integer" },
                { "{\"delay_ms\":0}", "out of range" },
                { "{\"direction\":\"sideways\"}", "not one of its choices" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_int_equal(build("net.latency", bad[i][0], &rc, &e), -EINVAL);
                if (!strstr(e.msg, bad[i][1]))
                        fail_msg("%s: %s", bad[i][0], e.msg);
        }
        struct fault_exec fx = { 0 };
        json_t *p = json_pack("{s:i}", "jitter_ms", 5); /* no delay_ms, no direction */
        assert_int_equal(fault_exec_bind(&fx, catalog_find("net.latency"), p, NULL, &e), -EINVAL);
        assert_non_null(strstr(e.msg, "'delay_ms' is missing"));
        json_decref(p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_network_fault_builds),
                cmocka_unit_test(test_partition_both_ways_spares_loopback),
                cmocka_unit_test(test_dns_timeout_drops_answers_on_loopback_too),
                cmocka_unit_test(test_reset_is_ingress_to_port),
                cmocka_unit_test(test_scoped_latency_matches_both_ports_and_protocols),
                cmocka_unit_test(test_corrupt_rule_per_protocol),
                cmocka_unit_test(test_peers_narrow_by_direction),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_params_bound_strictly),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        build2("net.partition", "{}", NULL, &(struct net_recipe){ 0 }, NULL); /* frees the last params */
        return failed;
}
