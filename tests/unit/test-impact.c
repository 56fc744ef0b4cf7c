/* The impact gate: how each network fault is delivered, for the kernels users
 * have (this machine's: no sch_netem, xt NFQUEUE only), and refusals with the
 * reason. A pure decision over a feature set, so every kind of kernel can be
 * described here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "catalog/catalog.h"
#include "plan/impact.h"

static const struct impact_kernel this_machine = {
        .known = true,
        .nft_owner = true,
        .tbf = true,
        .ifb = true,
        .xt_nfqueue = true,
        .netdev_egress = true,
};
static const struct impact_kernel with_netem = {
        .known = true,
        .nft_owner = true,
        .netem = true,
        .tbf = true,
        .ifb = true,
        .nft_queue = true,
        .netdev_egress = true,
};
static const struct impact_kernel old_kernel = { .known = true, .netem = true, .tbf = true, .ifb = true };

static int decide(
        const struct impact_kernel *k, const char *fault, bool scoped, const char *dir, enum net_delivery *d,
        char *why) {
        struct impact_request rq = { .def = catalog_find(fault), .scoped = scoped, .direction = dir };
        assert_non_null(rq.def);
        return impact_net_delivery(&rq, k, d, why, 256);
}

#define DELIVERS(k, fault, scoped, dir, want)                                                               \
        do {                                                                                                \
                enum net_delivery d_;                                                                       \
                char why_[256] = "";                                                                        \
                assert_int_equal(decide(k, fault, scoped, dir, &d_, why_), 1);                              \
                assert_string_equal(net_delivery_to_string(d_), want);                                      \
        } while (0)

static void test_this_machine(void **state) {
        (void)state;
        DELIVERS(&this_machine, "net.latency", false, "egress", "shaper");
        DELIVERS(&this_machine, "net.latency", false, "ingress", "shaper");
        DELIVERS(&this_machine, "net.reorder", false, "both", "shaper");
        DELIVERS(&this_machine, "dependency.timeout", false, NULL, "shaper");
        DELIVERS(&this_machine, "db.slow_query", false, NULL, "shaper");
        DELIVERS(&this_machine, "net.packet_loss", false, "egress", "nft");
        DELIVERS(&this_machine, "net.duplicate", false, "egress", "nft");
        DELIVERS(&this_machine, "net.corrupt", false, "both", "nft");
        DELIVERS(&this_machine, "net.bandwidth", false, "ingress", "tbf");
        DELIVERS(&this_machine, "net.bandwidth", true, "egress", "shaper");
        DELIVERS(&this_machine, "net.partition", false, "both", "nft");
        DELIVERS(&this_machine, "dns.timeout", false, NULL, "nft");
}

static void test_netem_kernel(void **state) {
        (void)state;
        DELIVERS(&with_netem, "net.latency", false, "egress", "netem");
        DELIVERS(&with_netem, "net.latency", false, "ingress", "netem");
        DELIVERS(&with_netem, "net.latency", true, "egress", "shaper"); /* a qdisc serves the whole link */
        DELIVERS(&with_netem, "dependency.timeout", false, NULL, "shaper");
        DELIVERS(&with_netem, "net.duplicate", false, "egress", "netem");
        DELIVERS(&with_netem, "net.packet_loss", false, "egress", "nft"); /* numgen dies with the agent */

        struct impact_kernel no_ifb = with_netem;
        no_ifb.ifb = false;
        DELIVERS(&no_ifb, "net.latency", false, "ingress", "shaper");
        DELIVERS(&no_ifb, "net.latency", false, "egress", "netem");
}

static void test_refusals_say_why(void **state) {
        (void)state;
        enum net_delivery d;
        char why[256];
        assert_int_equal(decide(&old_kernel, "net.partition", false, "both", &d, why), -EOPNOTSUPP);
        assert_non_null(
                strstr(why, "net.partition: this kernel has no nftables owner tables (Linux >= 5.12)"));
        assert_int_equal(decide(&old_kernel, "net.latency", true, "egress", &d, why), -EOPNOTSUPP);
        assert_non_null(strstr(why, "owner tables"));
        DELIVERS(&old_kernel, "net.latency", false, "egress", "netem");

        struct impact_kernel no_queue = this_machine;
        no_queue.xt_nfqueue = false;
        assert_int_equal(decide(&no_queue, "net.latency", false, "egress", &d, why), -EOPNOTSUPP);
        assert_non_null(strstr(why, "neither sch_netem nor an NFQUEUE"));

        struct impact_kernel no_egress_hook = this_machine;
        no_egress_hook.netdev_egress = false;
        assert_int_equal(decide(&no_egress_hook, "net.duplicate", false, "egress", &d, why), -EOPNOTSUPP);
        assert_non_null(strstr(why, "netdev egress hook (Linux >= 5.16)"));
        DELIVERS(&no_egress_hook, "net.duplicate", false, "ingress", "nft");
}

/* Every fault the catalog delivers through the network mechanisms has a
 * delivery; nothing else gets one. */
static void test_covers_the_catalog(void **state) {
        (void)state;
        const struct fault_def *f;
        for (size_t i = 0; (f = catalog_at(i)); i++) {
                bool net = f->mechanism && strcmp(f->mechanism, "net") == 0;
                enum net_delivery d;
                char why[256];
                int r = decide(&with_netem, f->id, false, "egress", &d, why);
                if (r != (net ? 1 : 0))
                        fail_msg("%s: impact gate says %d", f->id, r);
        }
}

/* The agent's JSON back into features, through the one list of names. */
static void test_kernel_json(void **state) {
        (void)state;
        struct impact_kernel k;
        json_t *j = json_pack("{s:b, s:b, s:b, s:s}", "known", 1, "netem", 1, "ifb", 0, "tbf", "yes");
        impact_kernel_from_json(j, &k);
        assert_true(k.known && k.netem && !k.ifb && !k.tbf);
        json_object_set_new(j, "known", json_false());
        impact_kernel_from_json(j, &k);
        assert_false(k.known || k.netem);
        impact_kernel_from_json(NULL, &k);
        assert_false(k.known);
        json_decref(j);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_this_machine),     cmocka_unit_test(test_netem_kernel),
                cmocka_unit_test(test_refusals_say_why), cmocka_unit_test(test_covers_the_catalog),
                cmocka_unit_test(test_kernel_json),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
