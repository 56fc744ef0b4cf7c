/* The network test bed itself, without any fault: a veth pair between two
 * namespaces, and the probes the network fault tests measure with. Their
 * baseline here is what the fault tests compare against. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/netns-pair.h"
#include "common/netprobe.h"
#include "common/sanitizer.h"

static struct netns_pair pair;

static int reflect(void *arg, int out) {
        (void)arg;
        netprobe_ready_fd(out);
        dprintf(out, "%d", udp_reflector(7001, 1500, 10000));
        return 0;
}

struct probe_args {
        const char *addr;
        unsigned count;
};

static int probe(void *arg, int out) {
        const struct probe_args *a = arg;
        struct udp_rtt_result r;
        if (udp_rtt_probe(a->addr, 7001, a->count, 2000, 500, &r) < 0)
                return 1;
        dprintf(out, "%u %u %u %.3f %.3f", r.sent, r.received, r.duplicates,
                percentile(r.rtt_ms, r.received, 50), percentile(r.rtt_ms, r.received, 90));
        udp_rtt_result_done(&r);
        return 0;
}

static void test_udp_rtt_baseline(void **state) {
        (void)state;
        const char *addrs[] = { pair.addr_b, pair.addr6_b };
        for (size_t i = 0; i < 2; i++) {
                int srv_fd, cli_fd;
                char srv_out[64], cli_out[128];
                pid_t srv = netns_fork_server(pair.b, reflect, NULL, &srv_fd);
                assert_true(srv > 0);
                struct probe_args a = { addrs[i], 200 };
                pid_t cli = netns_fork(pair.a, probe, &a, &cli_fd);
                assert_true(cli > 0);
                assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
                assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
                unsigned sent, received, dups;
                double p50, p90;
                assert_int_equal(
                        sscanf(cli_out, "%u %u %u %lf %lf", &sent, &received, &dups, &p50, &p90), 5);
                print_message(
                        "%s: %u/%u echoed, RTT p50 %.3f ms p90 %.3f ms\n", addrs[i], received, sent, p50,
                        p90);
                assert_int_equal(received, 200);
                assert_int_equal(dups, 0);
                /* Test-bed sanity, not a figure anything is judged by (the
                 * fault tests measure their own baseline): a veth echo takes
                 * well under a millisecond. The median and nine in ten, not
                 * the slowest two of 200, which a loaded machine decides; not
                 * under a sanitizer, which slows the reflector itself. */
                if (!under_sanitizer()) {
                        assert_true(p50 < 2);
                        assert_true(p90 < 20);
                }
        }
}

static int sink(void *arg, int out) {
        (void)arg;
        struct udp_sink_result r;
        netprobe_ready_fd(out);
        if (udp_sink(7002, 1000, 10000, &r) < 0)
                return 1;
        dprintf(out, "%u %u %u %u", r.received, r.unique, r.duplicates, r.reordered);
        return 0;
}

static int blast(void *arg, int out) {
        (void)out;
        return udp_blast(arg, 7002, 2000, 2000, 64) < 0;
}

static void test_udp_sink_baseline(void **state) {
        (void)state;
        int srv_fd, cli_fd;
        char srv_out[64], cli_out[8];
        pid_t srv = netns_fork_server(pair.b, sink, NULL, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(pair.a, blast, pair.addr_b, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        unsigned received, unique, dups, reordered;
        assert_int_equal(sscanf(srv_out, "%u %u %u %u", &received, &unique, &dups, &reordered), 4);
        assert_int_equal(unique, 2000);
        assert_int_equal(dups, 0);
        assert_int_equal(reordered, 0);
}

static int closed_port(void *arg, int out) {
        dprintf(out, "%d", tcp_connect_outcome(arg, 7003, 1000));
        return 0;
}

static void test_tcp_refused_baseline(void **state) {
        (void)state;
        int fd;
        char out[16];
        pid_t cli = netns_fork(pair.a, closed_port, pair.addr_b, &fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, fd, out, sizeof(out)), 0);
        assert_int_equal(strtol(out, NULL, 10), -ECONNREFUSED);
}

static int serve(void *arg, int out) {
        (void)arg;
        netprobe_ready_fd(out);
        dprintf(out, "%ld", tcp_server(7004, false, 1500));
        return 0;
}

static int send_1s(void *arg, int out) {
        dprintf(out, "%.0f", tcp_send_for(arg, 7004, 1000));
        return 0;
}

static void test_tcp_throughput_baseline(void **state) {
        (void)state;
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[32];
        pid_t srv = netns_fork_server(pair.b, serve, NULL, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(pair.a, send_1s, pair.addr_b, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        print_message(
                "veth: %.0f Mbit/s sent, %ld bytes received\n", strtod(cli_out, NULL) / 1e6,
                strtol(srv_out, NULL, 10));
        assert_true(strtod(cli_out, NULL) > 100e6);
}

static int setup(void **state) {
        (void)state;
        return netns_pair_create(&pair, "mhprobe", 210);
}

static int teardown(void **state) {
        (void)state;
        netns_pair_destroy(&pair);
        return 0;
}

int main(void) {
        if (geteuid() != 0)
                return 77;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_udp_rtt_baseline),
                cmocka_unit_test(test_udp_sink_baseline),
                cmocka_unit_test(test_tcp_refused_baseline),
                cmocka_unit_test(test_tcp_throughput_baseline),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
