/* Network faults through the fault layer (what the agent runs), on a netns
 * test host: the target is a process in namespace b of a veth pair, and every
 * effect is measured from outside its code, with real traffic. After every
 * undo a residue scan of b finds nothing of ours and traffic is back to its
 * baseline; after SIGKILL of the process holding the fault (the agent's
 * place) too. Tolerances are the issue's: delay within 10 % or 5 ms, loss and
 * copies inside a 99 % binomial interval, rates within 15 %. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/fileio.h"
#include "basic/procfs.h"
#include "common/netns-pair.h"
#include "common/net-assert.h"
#include "common/icmp-probe.h"
#include "common/netprobe.h"
#include "common/fault-params.h"
#include "common/run-command.h"
#include "fault/fault-net.h"
#include "fault/guard.h"
#include "fault/live.h"
#include "fault/net-netns.h"

#define SUBNET 214
#define LEASE  "l-6d68fa17c0ffee01"

static struct netns_pair pair;
static char addr_a2[16]; /* a second address of side a: a peer left alone */
static pid_t holder;
static struct proc_identity target;

/* ---- the target and its faults -------------------------------------------- */

static int hold_forever(void *arg, int out) {
        (void)arg, (void)out;
        for (int i = 0; i < 3000; i++) /* bounded: 300 s */
                usleep(100000);
        return 0;
}

/* What the agent holds for the faults in force. */
static struct fault_lives *lives;

/* A lease as the runner sends it: the case's params text holds the fault's
 * params and, for brevity, the net context (delivery, peers, self) too. */
struct lease {
        const char *fault_id;
        json_t *params, *net;
        json_t *restore; /* what apply recorded, as the agent keeps it */
};

static struct lease lease_of(const char *fault_id, const char *text) {
        struct lease l = { .fault_id = fault_id, .restore = json_object() };
        if (fault_case_split(catalog_find(fault_id), text, &l.params, &l.net) < 0)
                fail_msg("bad params %s", text);
        return l;
}

static void lease_done(struct lease *l) {
        json_decref(l->params);
        json_decref(l->net);
        json_decref(l->restore);
        *l = (struct lease){ 0 };
}

static struct fault_exec fx_of(const char *fault_id, const struct lease *l) {
        struct fault_exec fx = { .lease_id = LEASE, .lives = lives, .restore = l ? l->restore : NULL };
        struct mh_error e = { 0 };
        if (fault_exec_bind(
                    &fx, catalog_find(fault_id), l ? l->params : json_object(), l ? l->net : NULL, &e) < 0)
                fail_msg("%s: %s", fault_id, e.msg);
        snprintf(fx.target.engine, sizeof(fx.target.engine), "host");
        snprintf(fx.target.container_name, sizeof(fx.target.container_name), "%s", pair.b);
        fx.target.main = target;
        return fx;
}

/* The lease of the fault in force, so a failed case does not leak it. */
static struct lease applied;

static struct lease *apply(const char *fault_id, const char *params) {
        applied = lease_of(fault_id, params);
        struct fault_exec fx = fx_of(fault_id, &applied);
        struct mh_error e = { 0 };
        if (fx.mech->apply(&fx, &e) < 0)
                fail_msg("%s %s: %s", fault_id, params, e.msg);
        bool in_force = false;
        char detail[512];
        int r = fault_effect_run(&fx, fx.def->comp.effect, &in_force, detail, sizeof(detail));
        if (r < 0 || !in_force)
                fail_msg("%s not in force (%d): %s", fault_id, r, detail);
        return &applied;
}

/* The fault's effect check now: 0 seen, FAULT_EFFECT_UNOBSERVED, or -1 when
 * the check says the fault is not in force. */
static int effect(const char *fault_id, const struct lease *l, char *detail, size_t size) {
        struct fault_exec fx = fx_of(fault_id, l);
        bool in_force = false;
        int r = fault_effect_run(&fx, fx.def->comp.effect, &in_force, detail, size);
        print_message(
                "%s effect: %s: %s\n", fault_id,
                r < 0       ? "could not look"
                : !in_force ? "not in force"
                : r         ? "not observable"
                            : "seen",
                detail);
        assert_true(r >= 0);
        return in_force ? r : -1;
}

static void rules_off(void *live, void *arg) {
        (void)arg;
        assert_int_equal(net_rules_switch(live, false, NULL), 0);
}

/* Every verify probe of the fault's compensation passes. */
static void assert_clean(const char *fault_id, const struct lease *l) {
        struct fault_exec fx = fx_of(fault_id, l);
        const struct fault_comp *c = &fx.def->comp;
        char detail[512];
        bool ok = false;
        for (size_t i = 0; i < fault_comp_n_verify(c); i++) {
                assert_int_equal(fault_verify_run(&fx, c->verify[i], &ok, detail, sizeof(detail)), 0);
                if (!ok)
                        fail_msg("residue after %s (%s): %s", fault_id, c->verify[i], detail);
        }
}

/* The catalog's undo ops, as the agent runs them. */
static void undo(const char *fault_id, struct lease *l) {
        struct fault_exec fx = fx_of(fault_id, l);
        struct mh_error e = { 0 };
        if (fault_undo_run(&fx, fx.def->comp.undo, fault_comp_n_undo(&fx.def->comp), &e) < 0)
                fail_msg("undo %s: %s", fault_id, e.msg);
        assert_clean(fault_id, l);
        lease_done(l);
}

/* ---- measurements from outside ---------------------------------------------- */

/* Echoes lost of 2000 UDP probes from netns from to a reflector on addr:port in to. */
static unsigned echoes_lost_between(const char *from, const char *to, const char *addr, int port);

struct rtt_args {
        const char *addr;
        int port;
};

static int reflect(void *arg, int out) {
        netprobe_ready_fd(out);
        dprintf(out, "%d", udp_reflector(*(int *)arg, 1500, 20000));
        return 0;
}

static int rtt_probe(void *arg, int out) {
        const struct rtt_args *a = arg;
        struct udp_rtt_result r;
        if (udp_rtt_probe(a->addr, a->port, 100, 5000, 1500, &r) < 0 || r.received < 50)
                return 1;
        double p50 = percentile(r.rtt_ms, r.received, 50), p10 = percentile(r.rtt_ms, r.received, 10),
               p90 = percentile(r.rtt_ms, r.received, 90);
        dprintf(out, "%.3f %.3f %.3f %u", p50, p10, p90, r.received);
        udp_rtt_result_done(&r);
        return 0;
}

struct rtt {
        double p50, p10, p90;
};

/* RTT from side from to a reflector on port in the other side at addr. */
static struct rtt measure_rtt(const char *from, const char *to, const char *addr, int port) {
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[96];
        struct rtt r = { 0 };
        unsigned n = 0;
        pid_t srv = netns_fork_server(to, reflect, &port, &srv_fd);
        assert_true(srv > 0);
        struct rtt_args a = { addr, port };
        pid_t cli = netns_fork(from, rtt_probe, &a, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        assert_int_equal(sscanf(cli_out, "%lf %lf %lf %u", &r.p50, &r.p10, &r.p90, &n), 4);
        return r;
}

static double baseline_ms;

/* The RTT p50 from side from to addr, no fault on: the baseline an added
 * delay is judged against, measured right before the fault goes on, so that
 * it holds this moment's load, not that of setup. */
static void rebase(const char *from, const char *to, const char *addr) {
        baseline_ms = measure_rtt(from, to, addr, 7001).p50;
        print_message("baseline RTT %.3f ms\n", baseline_ms);
}

static void assert_added(double measured, double want, const char *what) {
        assert_added_ms(measured, baseline_ms, want, what);
}

struct sink_args {
        int port;
        unsigned count, pps;
        const char *addr;
};

static int sink(void *arg, int out) {
        const struct sink_args *a = arg;
        struct udp_sink_result r;
        netprobe_ready_fd(out);
        if (udp_sink(a->port, 1000, 20000, &r) < 0)
                return 1;
        dprintf(out, "%u %u %u %u", r.received, r.unique, r.duplicates, r.reordered);
        return 0;
}

static int blast(void *arg, int out) {
        const struct sink_args *a = arg;
        (void)out;
        return udp_blast(a->addr, a->port, a->count, a->pps, 64) < 0;
}

/* count datagrams from side from to a sink in side to at addr. */
static struct udp_sink_result measure_udp(
        const char *from, const char *to, const char *addr, int port, unsigned count) {
        int srv_fd, cli_fd;
        char srv_out[64], cli_out[8];
        struct sink_args a = { port, count, 4000, addr };
        struct udp_sink_result r = { 0 };
        pid_t srv = netns_fork_server(to, sink, &a, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(from, blast, &a, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        assert_int_equal(
                sscanf(srv_out, "%u %u %u %u", &r.received, &r.unique, &r.duplicates, &r.reordered), 4);
        return r;
}

struct tcp_args {
        const char *addr;
        int port, ms;
};

static int tcp_serve(void *arg, int out) {
        const struct tcp_args *a = arg;
        netprobe_ready_fd(out);
        dprintf(out, "%.0f", tcp_sink_rate(a->port, a->ms + 1000));
        return 0;
}

static int tcp_send(void *arg, int out) {
        const struct tcp_args *a = arg;
        dprintf(out, "%.0f", tcp_send_for(a->addr, a->port, a->ms));
        return 0;
}

/* Goodput from side from to side to, counted by the receiver (bits/s). */
static double measure_rate(const char *from, const char *to, const char *addr, int port) {
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[32];
        struct tcp_args a = { addr, port, 3000 };
        pid_t srv = netns_fork_server(to, tcp_serve, &a, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(from, tcp_send, &a, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        return strtod(srv_out, NULL);
}

static void assert_rate(double bps, double want, const char *what) {
        print_message("%s: %.2f Mbit/s (wanted %.2f)\n", what, bps / 1e6, want / 1e6);
        if (fabs(bps - want) > want * 0.15)
                fail_msg("%s: %.2f Mbit/s, wanted %.2f ± 15 %%", what, bps / 1e6, want / 1e6);
}

/* Asserts the goodput from side from to side to is want ± 15 %. A token bucket
 * cannot pass more than its rate, so a reading above the band fails at once; a
 * reading below it is most often one TCP retransmission timeout inside the 2 s
 * window (CI once read 6.39 of 8 Mbit/s), so it gets one more measurement. */
static void assert_shaped(
        const char *from, const char *to, const char *addr, int port, double want, const char *what) {
        double bps = measure_rate(from, to, addr, port);
        if (bps < want * 0.85) {
                print_message("%s: %.2f Mbit/s, below the band: measuring again\n", what, bps / 1e6);
                bps = measure_rate(from, to, addr, port);
        }
        assert_rate(bps, want, what);
}

static int connect_fn(void *arg, int out) {
        const struct tcp_args *a = arg;
        dprintf(out, "%d", tcp_connect_outcome(a->addr, a->port, a->ms));
        return 0;
}

static int listen_fn(void *arg, int out) {
        const struct tcp_args *a = arg;
        netprobe_ready_fd(out);
        dprintf(out, "%ld", tcp_server(a->port, true, a->ms));
        return 0;
}

/* The outcome of a connection from side from to a listening server in side to. */
static int measure_connect(const char *from, const char *to, const char *addr, int port) {
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[16];
        struct tcp_args srv_a = { NULL, port, 2500 }, cli_a = { addr, port, 1000 };
        pid_t srv = netns_fork_server(to, listen_fn, &srv_a, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(from, connect_fn, &cli_a, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        return (int)strtol(cli_out, NULL, 10);
}

/* ---- delay family (the shaper on this kernel) --------------------------------- */

static void test_latency(void **state) {
        (void)state;
        const int delays[] = { 50, 100, 200 };
        char params[128];
        for (size_t i = 0; i < 3; i++) {
                snprintf(
                        params, sizeof(params),
                        "{\"delivery\":\"shaper\",\"delay_ms\":%d,\"direction\":\"egress\"}", delays[i]);
                rebase(pair.a, pair.b, pair.addr_b);
                struct lease *p = apply("net.latency", params);
                assert_added(
                        measure_rtt(pair.a, pair.b, pair.addr_b, 7001).p50, delays[i], "egress latency");
                char detail[512];
                assert_int_equal(effect("net.latency", p, detail, sizeof(detail)), 0);
                assert_non_null(strstr(detail, "the shaper took"));
                undo("net.latency", p);
        }
        assert_added(measure_rtt(pair.a, pair.b, pair.addr_b, 7001).p50, 0, "after undo");
}

static void test_latency_directions_and_jitter(void **state) {
        (void)state;
        rebase(pair.a, pair.b, pair.addr_b);
        struct lease *p =
                apply("net.latency", "{\"delivery\":\"shaper\",\"delay_ms\":50,\"direction\":\"ingress\"}");
        assert_added(measure_rtt(pair.a, pair.b, pair.addr_b, 7001).p50, 50, "ingress latency");
        undo("net.latency", p);
        rebase(pair.a, pair.b, pair.addr6_b);
        p = apply("net.latency", "{\"delivery\":\"shaper\",\"delay_ms\":50,\"direction\":\"both\"}");
        assert_added(measure_rtt(pair.a, pair.b, pair.addr6_b, 7001).p50, 100, "both directions, IPv6");
        undo("net.latency", p);
        rebase(pair.a, pair.b, pair.addr_b);
        p = apply("net.latency", "{\"delivery\":\"shaper\",\"delay_ms\":100,\"jitter_ms\":20}");
        struct rtt r = measure_rtt(pair.a, pair.b, pair.addr_b, 7001);
        print_message("jitter 20 ms: p10 %.1f p50 %.1f p90 %.1f ms\n", r.p10, r.p50, r.p90);
        assert_true(r.p90 - r.p10 > 15);
        assert_added(r.p50, 100, "jittered latency (median)");
        undo("net.latency", p);
}

/* Scoped: port 7001 slowed, 7005 untouched; peer a slowed, peer a2 untouched. */
static void test_latency_scoped(void **state) {
        (void)state;
        rebase(pair.a, pair.b, pair.addr_b);
        struct lease *p =
                apply("net.latency",
                      "{\"delivery\":\"shaper\",\"delay_ms\":80,\"port\":7001,\"protocol\":\"udp\"}");
        assert_added(measure_rtt(pair.a, pair.b, pair.addr_b, 7001).p50, 80, "port 7001");
        assert_added(measure_rtt(pair.a, pair.b, pair.addr_b, 7005).p50, 0, "port 7005 (not in scope)");
        undo("net.latency", p);
        char params[160];
        snprintf(
                params, sizeof(params), "{\"delivery\":\"shaper\",\"delay_ms\":80,\"peers\":[\"%s\"]}",
                pair.addr_a);
        rebase(pair.b, pair.a, pair.addr_a);
        p =
                apply("dependency.timeout",
                      "{\"delivery\":\"shaper\",\"delay_ms\":60,\"port\":7001,\"protocol\":\"udp\"}");
        assert_added(
                measure_rtt(pair.b, pair.a, pair.addr_a, 7001).p50, 60, "dependency.timeout on its port");
        assert_added(
                measure_rtt(pair.b, pair.a, pair.addr_a, 7005).p50, 0, "dependency.timeout, other port");
        undo("dependency.timeout", p);
        rebase(pair.b, pair.a, pair.addr_a);
        p = apply("net.latency", params);
        assert_added(measure_rtt(pair.b, pair.a, pair.addr_a, 7001).p50, 80, "peer in scope");
        assert_added(measure_rtt(pair.b, pair.a, addr_a2, 7001).p50, 0, "other peer");
        undo("net.latency", p);
}

static void test_reorder(void **state) {
        (void)state;
        struct udp_sink_result before = measure_udp(pair.b, pair.a, pair.addr_a, 7002, 2000);
        struct lease *p = apply("net.reorder", "{\"delivery\":\"shaper\",\"percent\":25,\"delay_ms\":20}");
        struct udp_sink_result r = measure_udp(pair.b, pair.a, pair.addr_a, 7002, 2000);
        print_message(
                "reorder 25 %%: %u of %u out of order (before: %u)\n", r.reordered, r.unique,
                before.reordered);
        assert_int_equal(before.reordered, 0);
        assert_true(r.reordered > 100);
        assert_int_equal(r.unique, 2000);
        undo("net.reorder", p);
}

/* ---- rules (nftables owner tables) ----------------------------------------------- */

static void test_loss(void **state) {
        (void)state;
        const double pct[] = { 10, 30 };
        char params[96];
        for (size_t i = 0; i < 2; i++) {
                snprintf(params, sizeof(params), "{\"delivery\":\"nft\",\"percent\":%.0f}", pct[i]);
                struct lease *p = apply("net.packet_loss", params);
                unsigned lost = 0;
                /* The expression, not a variable: a miss is measured anew. */
                ASSERT_BINOMIAL(
                        (lost = 4000 - measure_udp(pair.b, pair.a, pair.addr_a, 7002, 4000).unique), 4000,
                        pct[i] / 100, "egress loss");
                /* The rules counted what they dropped (since apply, so a first
                 * sample's too): at least the probes lost. */
                char detail[512];
                unsigned long long counted = 0;
                assert_int_equal(effect("net.packet_loss", p, detail, sizeof(detail)), 0);
                const char *at = strstr(detail, "dropped ");
                assert_non_null(at);
                assert_int_equal(sscanf(at, "dropped %llu", &counted), 1);
                assert_true(counted >= lost);
                undo("net.packet_loss", p);
        }
        struct lease *p =
                apply("net.packet_loss", "{\"delivery\":\"nft\",\"percent\":30,\"direction\":\"ingress\"}");
        ASSERT_BINOMIAL(
                4000 - measure_udp(pair.a, pair.b, pair.addr6_b, 7002, 4000).unique, 4000, 0.30,
                "ingress loss, IPv6");
        undo("net.packet_loss", p);
        /* dns.timeout drops the answers: the queries leave (no EPERM for
         * the sender, a wait), what comes back from port 53 is dropped. */
        p = apply("dns.timeout", "{\"delivery\":\"nft\",\"probability\":80}");
        ASSERT_BINOMIAL(
                echoes_lost_between(pair.b, pair.a, pair.addr_a, 53), 2000, 0.80,
                "dns.timeout drops the answers from port 53");
        assert_int_equal(measure_udp(pair.b, pair.a, pair.addr_a, 53, 2000).unique, 2000);
        undo("dns.timeout", p);
        assert_int_equal(measure_udp(pair.b, pair.a, pair.addr_a, 7002, 2000).unique, 2000);
}

static void test_duplicate(void **state) {
        (void)state;
        char params[160];
        struct lease *p = apply("net.duplicate", "{\"delivery\":\"nft\",\"percent\":40}");
        ASSERT_BINOMIAL(
                measure_udp(pair.b, pair.a, pair.addr_a, 7002, 2000).duplicates, 2000, 0.40,
                "egress copies");
        undo("net.duplicate", p);
        snprintf(
                params, sizeof(params),
                "{\"delivery\":\"nft\",\"percent\":40,\"direction\":\"ingress\",\"self\":[\"%s\"]}",
                pair.addr_b);
        p = apply("net.duplicate", params);
        ASSERT_BINOMIAL(
                measure_udp(pair.a, pair.b, pair.addr_b, 7002, 2000).duplicates, 2000, 0.40,
                "ingress copies");
        undo("net.duplicate", p);
}

static void test_partition(void **state) {
        (void)state;
        char params[128];
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7020), 0);
        const char *dirs[] = { "both", "egress", "ingress" };
        for (size_t i = 0; i < 3; i++) {
                snprintf(params, sizeof(params), "{\"delivery\":\"nft\",\"direction\":\"%s\"}", dirs[i]);
                struct lease *p = apply("net.partition", params);
                assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7020), -ETIMEDOUT);
                undo("net.partition", p);
        }
        snprintf(
                params, sizeof(params), "{\"delivery\":\"nft\",\"direction\":\"both\",\"peers\":[\"%s\"]}",
                pair.addr_a);
        struct lease *p = apply("net.partition", params);
        assert_int_equal(measure_connect(pair.b, pair.a, pair.addr_a, 7021), -ETIMEDOUT);
        assert_int_equal(measure_connect(pair.b, pair.a, addr_a2, 7021), 0);
        char detail[512];
        assert_int_equal(effect("net.partition", p, detail, sizeof(detail)), 0);
        assert_non_null(strstr(detail, "timed out"));
        /* Rules that drop nothing (flushed behind the agent's back): the
         * table is there, the effect is not, and the check says so. */
        assert_true(fault_live_with(lives, LEASE, rules_off, NULL));
        assert_int_equal(effect("net.partition", p, detail, sizeof(detail)), -1);
        assert_non_null(strstr(detail, "was answered"));
        undo("net.partition", p);
        snprintf(
                params, sizeof(params), "{\"delivery\":\"nft\",\"direction\":\"egress\",\"peers\":[\"%s\"]}",
                pair.addr_a);
        p = apply("net.partition", params);
        assert_int_equal(effect("net.partition", p, detail, sizeof(detail)), 0);
        assert_non_null(strstr(detail, "control connect"));
        undo("net.partition", p);
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7020), 0);
}

/* ---- dns.timeout, seen from the target (its own resolv.conf) ---------------- */

/* A resolver in a: every query comes back as its own answer (QR set). */
static int dns_echo(void *arg, int out) {
        (void)arg;
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(53) };
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        struct timeval tv = { .tv_sec = 60 };
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
                return 1;
        dprintf(out, "ready\n");
        for (;;) {
                unsigned char b[512];
                struct sockaddr_in from;
                socklen_t fl = sizeof(from);
                ssize_t n = recvfrom(fd, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);
                if (n < 0)
                        return 0; /* a minute without a query */
                if (n >= 12)
                        b[2] |= 0x80, sendto(fd, b, (size_t)n, 0, (struct sockaddr *)&from, fl);
        }
}

/* The target in b with a mount namespace of its own, where /etc/resolv.conf
 * is arg's file: the resolver it asks is in a. */
static int hold_with_resolv(void *arg, int out) {
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount(arg, "/etc/resolv.conf", NULL, MS_BIND, NULL) < 0)
                return 1;
        return hold_forever(NULL, out);
}

static pid_t dns_target(const char *conf, struct proc_identity *ret) {
        int fd;
        char path[64], *text = NULL;
        size_t len;
        pid_t pid = netns_fork(pair.b, hold_with_resolv, (void *)conf, &fd);
        close(fd);
        assert_true(pid > 0);
        snprintf(path, sizeof(path), "/proc/%d/root/etc/resolv.conf", (int)pid);
        /* Until the child's bind mount is in place. */
        double t0 = monotonic_ms();
        for (; !(text && strstr(text, pair.addr_a)) && monotonic_ms() - t0 < 10000; sleep_ms(10)) {
                free(text), text = NULL;
                read_file_bounded(path, 4096, &text, &len, NULL);
        }
        if (!text || !strstr(text, pair.addr_a))
                fail_msg("%s does not name %s after %.0f ms", path, pair.addr_a, monotonic_ms() - t0);
        free(text);
        assert_int_equal(proc_identity_read(pid, ret, NULL), 0);
        return pid;
}

static void test_dns_effect(void **state) {
        (void)state;
        char conf[] = "/tmp/mhfx-resolv-XXXXXX", detail[512];
        int fd = mkstemp(conf), out;
        assert_true(fd >= 0);
        dprintf(fd, "# ours\nnameserver %s\noptions ndots:0\n", pair.addr_a);
        close(fd);
        pid_t resolver = netns_fork_server(pair.a, dns_echo, NULL, &out);
        assert_true(resolver > 0);
        close(out);
        struct proc_identity saved = target;
        pid_t held = dns_target(conf, &target);

        struct lease *p = apply("dns.timeout", "{\"delivery\":\"nft\",\"probability\":100}");
        assert_int_equal(effect("dns.timeout", p, detail, sizeof(detail)), 0);
        assert_non_null(strstr(detail, "timed out"));
        assert_true(fault_live_with(lives, LEASE, rules_off, NULL));
        assert_int_equal(effect("dns.timeout", p, detail, sizeof(detail)), -1);
        assert_non_null(strstr(detail, "answered 2 of 2"));
        undo("dns.timeout", p);
        /* 1 %: eight queries all answered is what it does most of the time. */
        p = apply("dns.timeout", "{\"delivery\":\"nft\",\"probability\":1}");
        assert_true(effect("dns.timeout", p, detail, sizeof(detail)) >= 0);
        /* A resolver that answers nobody: the fault cannot be told apart. */
        kill(resolver, SIGKILL);
        waitpid(resolver, NULL, 0);
        resolver = 0;
        assert_int_equal(effect("dns.timeout", p, detail, sizeof(detail)), FAULT_EFFECT_UNOBSERVED);
        assert_non_null(strstr(detail, "does not answer the agent's own query"));
        undo("dns.timeout", p);

        kill(held, SIGKILL);
        waitpid(held, NULL, 0);
        target = saved;
        unlink(conf);
}

static void test_reset_refuse(void **state) {
        (void)state;
        char detail[512];
        struct lease *p = apply("net.connection_reset", "{\"delivery\":\"nft\",\"port\":7030}");
        /* No client has come yet: nothing to count. */
        assert_int_equal(effect("net.connection_reset", p, detail, sizeof(detail)), FAULT_EFFECT_UNOBSERVED);
        assert_non_null(strstr(detail, "no packets yet"));
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7030), -ECONNRESET);
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7031), 0);
        assert_int_equal(effect("net.connection_reset", p, detail, sizeof(detail)), 0);
        assert_non_null(strstr(detail, "reset"));
        undo("net.connection_reset", p);
        p = apply("net.connection_refuse", "{\"delivery\":\"nft\",\"port\":7030,\"protocol\":\"tcp\"}");
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr6_b, 7030), -ECONNREFUSED);
        undo("net.connection_refuse", p);
        p = apply("tls.handshake_failure", "{\"delivery\":\"nft\",\"port\":7443}");
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7443), -ECONNRESET);
        undo("tls.handshake_failure", p);
        p = apply("db.query_error", "{\"delivery\":\"nft\",\"port\":7306,\"probability\":100}");
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7306), -ECONNRESET);
        undo("db.query_error", p);
        p = apply(
                "dependency.connection_refuse", "{\"delivery\":\"nft\",\"port\":7032,\"protocol\":\"tcp\"}");
        assert_int_equal(measure_connect(pair.b, pair.a, pair.addr_a, 7032), -ECONNREFUSED);
        undo("dependency.connection_refuse", p);
        p = apply("dependency.block", "{\"delivery\":\"nft\",\"port\":7033,\"protocol\":\"tcp\"}");
        assert_int_equal(measure_connect(pair.b, pair.a, pair.addr_a, 7033), -ETIMEDOUT);
        assert_int_equal(measure_connect(pair.b, pair.a, pair.addr_a, 7034), 0);
        undo("dependency.block", p);
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7030), 0);
}

/* Corrupted echoes fail the probe's magic check: they count as lost. */
static int rtt_count(void *arg, int out) {
        const struct rtt_args *a = arg;
        struct udp_rtt_result r;
        if (udp_rtt_probe(a->addr, a->port, 2000, 500, 1000, &r) < 0)
                return 1;
        dprintf(out, "%u %u", r.sent, r.received);
        udp_rtt_result_done(&r);
        return 0;
}

/* Echoes lost of 2000 probes from side a to a reflector in side b. */
static unsigned echoes_lost_between(const char *from, const char *to, const char *addr, int port) {
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[64];
        unsigned sent = 0, received = 0;
        pid_t srv = netns_fork_server(to, reflect, &port, &srv_fd);
        assert_true(srv > 0);
        struct rtt_args a = { addr, port };
        pid_t cli = netns_fork(from, rtt_count, &a, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        assert_int_equal(sscanf(cli_out, "%u %u", &sent, &received), 2);
        assert_int_equal(sent, 2000);
        return sent - received;
}

static unsigned echoes_lost(void) {
        return echoes_lost_between(pair.a, pair.b, pair.addr_b, 7001);
}

/* ICMP echoes from side a to side b's kernel: "S I B" (sent, intact, bad checksum). */
static int icmp_count(void *arg, int out) {
        struct icmp_echo_result r;
        if (icmp_echo_probe(arg, 2000, 500, 1000, &r) < 0)
                return 1;
        dprintf(out, "%u %u %u", r.sent, r.intact, r.bad_checksum);
        return 0;
}

/* Echoes of 2000 to b that did not come back intact: bad checksums and lost. */
static unsigned icmp_spoiled(void) {
        int fd;
        char out[64];
        unsigned sent = 0, intact = 0, bad = 0;
        pid_t cli = netns_fork(pair.a, icmp_count, (void *)pair.addr_b, &fd);
        assert_int_equal(netns_collect(cli, fd, out, sizeof(out)), 0);
        assert_int_equal(sscanf(out, "%u %u %u", &sent, &intact, &bad), 3);
        assert_int_equal(sent, 2000);
        print_message("ICMP: %u of %u intact, %u with a bad checksum\n", intact, sent, bad);
        return sent - intact;
}

/* protocol any: UDP's payload and ICMP's both (netem would corrupt every
 * packet; the nft rules know the payload of these, TCP's too). */
static void test_corrupt(void **state) {
        (void)state;
        struct lease *p = apply("net.corrupt", "{\"delivery\":\"nft\",\"percent\":30}");
        ASSERT_BINOMIAL(echoes_lost(), 2000, 0.30, "net.corrupt 30 % (echoes with a flipped byte)");
        ASSERT_BINOMIAL(icmp_spoiled(), 2000, 0.30, "net.corrupt 30 % (ICMP echo answers)");
        undo("net.corrupt", p);
        assert_int_equal(icmp_spoiled(), 0);
}

/* dependency.flap: the block is on for about half of the 200 ms periods. */
static void test_flap(void **state) {
        (void)state;
        struct lease *p =
                apply("dependency.flap",
                      "{\"delivery\":\"nft\",\"port\":7060,\"protocol\":\"tcp\",\"interval\":200,"
                      "\"failure_probability\":50}");
        unsigned up = 0, down = 0;
        for (int i = 0; i < 12; i++) {
                int r = measure_connect(pair.b, pair.a, pair.addr_a, 7060);
                up += r == 0, down += r == -ETIMEDOUT;
        }
        print_message("dependency.flap: %u connects went through, %u timed out\n", up, down);
        assert_true(up > 0 && down > 0);
        undo("dependency.flap", p);
        assert_int_equal(measure_connect(pair.b, pair.a, pair.addr_a, 7060), 0);
}

/* The outcome of a connection and how long it took, from the client's side. */
static int connect_timed(void *arg, int out) {
        const struct tcp_args *a = arg;
        double t0 = monotonic_ms();
        int r = tcp_connect_outcome(a->addr, a->port, a->ms);
        dprintf(out, "%d %.1f", r, monotonic_ms() - t0);
        return 0;
}

/* db.slow_query holds what reaches the port: the SYN and the byte the probe
 * sends after it, each delay_ms. */
static void test_slow_query(void **state) {
        (void)state;
        struct lease *p = apply("db.slow_query", "{\"delivery\":\"shaper\",\"port\":7070,\"delay_ms\":300}");
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[32];
        struct tcp_args srv_a = { NULL, 7070, 3000 }, cli_a = { pair.addr_b, 7070, 2000 };
        pid_t srv = netns_fork_server(pair.b, listen_fn, &srv_a, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(pair.a, connect_timed, &cli_a, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        int outcome = -1;
        double took = 0;
        assert_int_equal(sscanf(cli_out, "%d %lf", &outcome, &took), 2);
        assert_int_equal(outcome, 0);
        print_message("db.slow_query 300 ms: connect and echo took %.0f ms\n", took);
        assert_true(took >= 600 && took < 1500);
        undo("db.slow_query", p);
}

/* ---- bandwidth: tbf unscoped (ingress through an IFB), the shaper scoped ---------- */

static void test_bandwidth(void **state) {
        (void)state;
        struct lease *p = apply("net.bandwidth", "{\"delivery\":\"tbf\",\"rate\":8000000,\"burst\":10240}");
        assert_shaped(pair.b, pair.a, pair.addr_a, 7040, 8e6, "tbf egress");
        undo("net.bandwidth", p);
        p =
                apply("net.bandwidth",
                      "{\"delivery\":\"tbf\",\"rate\":4000000,\"burst\":10240,\"direction\":\"ingress\"}");
        assert_shaped(pair.a, pair.b, pair.addr_b, 7041, 4e6, "tbf ingress (IFB)");
        undo("net.bandwidth", p);
        p =
                apply("net.bandwidth", "{\"delivery\":\"shaper\",\"rate\":8000000,\"burst\":10240,\"port\":"
                                       "7042,\"protocol\":\"tcp\"}");
        assert_shaped(pair.b, pair.a, pair.addr_a, 7042, 8e6, "shaper, port 7042");
        assert_true(measure_rate(pair.b, pair.a, pair.addr_a, 7043) > 50e6);
        undo("net.bandwidth", p);
}

/* ---- the device itself ------------------------------------------------------- */

/* What `ip link` shows of the target's device: seen from outside the code under test. */
struct link_seen {
        bool up;
        unsigned mtu;
};

static struct link_seen link_seen(void) {
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ "ip", "-n", pair.b, "-o", "link", "show", "dev", pair.dev_b, NULL });
        struct link_seen l = { 0 };
        char flags[128] = "";
        const char *lt = r.out ? strchr(r.out, '<') : NULL, *mtu = r.out ? strstr(r.out, " mtu ") : NULL;
        if (lt && sscanf(lt, "<%127[^>]>", flags) == 1)
                for (char *save = NULL, *t = strtok_r(flags, ",", &save); t; t = strtok_r(NULL, ",", &save))
                        l.up = l.up || strcmp(t, "UP") == 0;
        if (!mtu || sscanf(mtu, " mtu %u", &l.mtu) != 1)
                fail_msg("ip link show %s: %s", pair.dev_b, r.out ? r.out : r.err);
        cmd_result_done(&r);
        return l;
}

/* In b: one UDP datagram of size bytes that may not be fragmented, to a;
 * writes 0 when it went out, -errno when the kernel refused it. */
static int send_dgram(void *arg, int out) {
        int size = *(int *)arg, pmtu = IP_PMTUDISC_DO;
        static char buf[9000];
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(7060) };
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        inet_pton(AF_INET, pair.addr_a, &sa.sin_addr);
        bool sent = fd >= 0 && setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) == 0 &&
                    sendto(fd, buf, (size_t)size, 0, (struct sockaddr *)&sa, sizeof(sa)) == size;
        dprintf(out, "%d", sent ? 0 : -errno);
        return 0;
}

static int dgram_from_b(int size) {
        char out[16];
        int fd, r = 1;
        pid_t pid = netns_fork(pair.b, send_dgram, &size, &fd);
        assert_true(pid > 0);
        assert_int_equal(netns_collect(pid, fd, out, sizeof(out)), 0);
        assert_int_equal(sscanf(out, "%d", &r), 1);
        return r;
}

/* The fault refuses the lease with reason in its message; nothing more is held. */
static void refused(const char *fault_id, const char *params, const char *reason) {
        size_t held = fault_lives_count(lives);
        struct lease l = lease_of(fault_id, params);
        struct fault_exec fx = fx_of(fault_id, &l);
        struct mh_error e = { 0 };
        if (fx.mech->apply(&fx, &e) >= 0)
                fail_msg("%s %s: applied", fault_id, params);
        if (!strstr(e.msg, reason))
                fail_msg("%s %s: %s", fault_id, params, e.msg);
        assert_int_equal(fault_lives_count(lives), held);
        lease_done(&l);
}

/* Whether `ip -6 addr` in b lists the pair's static IPv6 address. */
static bool ipv6_addr_seen(void) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "ip", "-n", pair.b, "-6", "-o", "addr", "show", "dev",
                                             pair.dev_b, NULL });
        bool seen = r.out && strstr(r.out, pair.addr6_b);
        cmd_result_done(&r);
        return seen;
}

static void test_mtu_mismatch(void **state) {
        (void)state;
        char params[96];
        assert_int_equal(link_seen().mtu, 1500);
        assert_int_equal(dgram_from_b(1400), 0);
        snprintf(params, sizeof(params), "{\"device\":\"%s\",\"mtu\":1280}", pair.dev_b);
        struct lease *p = apply("net.mtu_mismatch", params);
        assert_int_equal(link_seen().mtu, 1280);
        assert_int_equal(dgram_from_b(1400), -EMSGSIZE);
        assert_int_equal(dgram_from_b(1200), 0);
        assert_string_equal(json_string_value(json_object_get(p->restore, "device")), pair.dev_b);
        assert_int_equal(json_integer_value(json_object_get(p->restore, "mtu")), 1500);
        print_message("net.mtu_mismatch 1280: a 1400-byte datagram refused (EMSGSIZE), 1200 bytes sent\n");
        undo("net.mtu_mismatch", p);
        assert_int_equal(link_seen().mtu, 1500);
        assert_int_equal(dgram_from_b(1400), 0);
        snprintf(params, sizeof(params), "{\"device\":\"%s\",\"mtu\":1500}", pair.dev_b);
        refused("net.mtu_mismatch", params, "would change nothing");
        refused("net.mtu_mismatch", "{\"device\":\"nosuch0\"}", "nosuch0");
        assert_int_equal(link_seen().mtu, 1500);

        /* Below IPv6's minimum the kernel drops the device's IPv6 state; undo brings it back. */
        assert_true(ipv6_addr_seen());
        snprintf(params, sizeof(params), "{\"device\":\"%s\",\"mtu\":1200}", pair.dev_b);
        p = apply("net.mtu_mismatch", params);
        assert_false(ipv6_addr_seen());
        undo("net.mtu_mismatch", p); /* verify: nothing recorded is missing */
        assert_true(ipv6_addr_seen());
        assert_int_equal(link_seen().mtu, 1500);
        print_message("net.mtu_mismatch 1200: %s flushed by the kernel, back after undo\n", pair.addr6_b);
}

/* Whether `ip route` in b lists the static route setup() added. */
static bool route_seen(void) {
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ "ip", "-n", pair.b, "-o", "route", "show", "10.99.0.0/24", NULL });
        bool seen = r.out && strstr(r.out, "10.99.0.0/24");
        cmd_result_done(&r);
        return seen;
}

static void test_interface_down(void **state) {
        (void)state;
        char params[96];
        assert_true(link_seen().up && route_seen() && ipv6_addr_seen());
        assert_int_equal(measure_connect(pair.a, pair.b, pair.addr_b, 7070), 0);
        snprintf(params, sizeof(params), "{\"device\":\"%s\"}", pair.dev_b);
        struct lease *p = apply("net.interface_down", params);
        assert_false(link_seen().up);
        assert_false(route_seen());
        assert_false(ipv6_addr_seen());
        int down = measure_connect(pair.a, pair.b, pair.addr_b, 7071);
        assert_int_not_equal(down, 0);
        print_message(
                "net.interface_down: connect from a %s, route and %s flushed\n", strerror(-down),
                pair.addr6_b);
        refused("net.interface_down", params, "down already");
        undo("net.interface_down", p); /* verify: up, nothing recorded missing */
        assert_true(link_seen().up && route_seen() && ipv6_addr_seen());
        /* a's neighbour entry for b, left unresolved while b was down, may
         * fail the first connection after (EHOSTUNREACH): the kernel's, not ours. */
        int first = measure_connect(pair.a, pair.b, pair.addr_b, 7072), back = first, tries = 1;
        for (; tries < 4 && back != 0; tries++)
                back = measure_connect(pair.a, pair.b, pair.addr_b, 7072 + tries);
        assert_int_equal(back, 0);
        print_message(
                "net.interface_down undone: a's first connection %s, connected at try %d\n",
                first ? strerror(-first) : "connected", tries);
        refused("net.interface_down", "{\"device\":\"nosuch0\"}", "nosuch0");
}

/* A process holding one fault (the agent's place), killed: its guardian undoes it. */
struct stand_in {
        const char *fault_id, *params;
};

static int one_fault_stand_in(void *arg, int out) {
        const struct stand_in *a = arg;
        lives = fault_lives_new();
        struct lease l = lease_of(a->fault_id, a->params);
        struct fault_exec fx = fx_of(a->fault_id, &l);
        struct mh_error e = { 0 };
        if (fx.mech->apply(&fx, &e) < 0) {
                dprintf(out, "%s: %s", a->fault_id, e.msg);
                return 1;
        }
        dprintf(out, "ok");
        close(out);
        return hold_forever(NULL, -1);
}

/* Kills the stand-in once its fault is in force; returns ms until back(). */
static double killed_until(const struct stand_in *a, bool (*back)(void)) {
        char buf[512] = "";
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                _exit(one_fault_stand_in((void *)a, p[1]));
        }
        close(p[1]);
        ssize_t n = read(p[0], buf, sizeof(buf) - 1);
        close(p[0]);
        if (n <= 0 || strncmp(buf, "ok", 2) != 0)
                fail_msg("stand-in: %s", buf);
        assert_false(back());
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        /* The guardian (an exec'd mayhem-agent) notices and undoes: its time
         * is printed, not judged; 10 s is for a hung guardian only. */
        double t0 = monotonic_ms();
        bool undone;
        while (!(undone = back()) && monotonic_ms() - t0 < 10000)
                sleep_ms(10);
        if (!undone)
                fail_msg(
                        "%s: not undone %.0f ms after SIGKILL of its holder", a->fault_id,
                        monotonic_ms() - t0);
        return monotonic_ms() - t0;
}

static bool mtu_back(void) {
        return link_seen().mtu == 1500;
}

static bool link_up_back(void) {
        return link_seen().up && route_seen() && ipv6_addr_seen();
}

static void test_link_faults_guarded(void **state) {
        (void)state;
        char params[96];
        snprintf(params, sizeof(params), "{\"device\":\"%s\",\"mtu\":1280}", pair.dev_b);
        print_message(
                "net.mtu_mismatch: MTU 1500 again %.0f ms after SIGKILL of its holder\n",
                killed_until(&(struct stand_in){ "net.mtu_mismatch", params }, mtu_back));
        snprintf(params, sizeof(params), "{\"device\":\"%s\"}", pair.dev_b);
        print_message(
                "net.interface_down: up with its route and address %.0f ms after SIGKILL of its holder\n",
                killed_until(&(struct stand_in){ "net.interface_down", params }, link_up_back));
}

static int agent_stand_in(void *arg, int out) {
        lives = fault_lives_new();
        char partition[160];
        snprintf(
                partition, sizeof(partition),
                "{\"delivery\":\"nft\",\"direction\":\"both\",\"peers\":[\"%s\"]}", addr_a2);
        const char *const faults[][2] = {
                { "net.partition", partition },
                { "net.latency", "{\"delivery\":\"shaper\",\"delay_ms\":100}" },
                { "net.bandwidth", "{\"delivery\":\"tbf\",\"rate\":1000000,\"direction\":\"both\"}" },
        };
        static const char *const leases[] = { "l-00000000000000a1", "l-00000000000000a2",
                                              "l-00000000000000a3" };
        (void)arg;
        for (size_t i = 0; i < 3; i++) {
                struct lease l = lease_of(faults[i][0], faults[i][1]);
                struct fault_exec fx = fx_of(faults[i][0], &l);
                fx.lease_id = leases[i];
                struct mh_error e = { 0 };
                if (fx.mech->apply(&fx, &e) < 0) {
                        dprintf(out, "%s: %s", faults[i][0], e.msg);
                        return 1;
                }
        }
        dprintf(out, "ok");
        close(out);
        return hold_forever(NULL, -1);
}

static void test_agent_killed(void **state) {
        (void)state;
        int fd;
        char buf[512] = "";
        int p[2];
        rebase(pair.a, pair.b, pair.addr_b);
        assert_int_equal(pipe(p), 0);
        pid_t agent = fork();
        assert_true(agent >= 0);
        if (agent == 0) {
                close(p[0]);
                _exit(agent_stand_in(NULL, p[1]));
        }
        close(p[1]);
        fd = p[0];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0 || strncmp(buf, "ok", 2) != 0)
                fail_msg("stand-in: %s", buf);
        assert_added(measure_rtt(pair.a, pair.b, pair.addr_b, 7001).p50, 100, "held by the stand-in");
        kill(agent, SIGKILL);
        waitpid(agent, NULL, 0);
        double t0 = monotonic_ms();
        const char *const leases[] = { "l-00000000000000a1", "l-00000000000000a2", "l-00000000000000a3" };
        for (size_t i = 0; i < 3; i++) {
                char detail[512] = "";
                int r;
                /* The guardians undo on their own time: 10 s is for a hung one only. */
                while ((r = net_ns_residue(&target, leases[i], 0, true, detail, sizeof(detail))) != 0 &&
                       monotonic_ms() - t0 < 10000)
                        sleep_ms(20);
                if (r != 0)
                        fail_msg(
                                "residue of %s %.0f ms after SIGKILL: %s", leases[i], monotonic_ms() - t0,
                                detail);
        }
        print_message("no residue %.0f ms after SIGKILL of the holder\n", monotonic_ms() - t0);
        assert_added(measure_rtt(pair.a, pair.b, pair.addr_b, 7001).p50, 0, "after SIGKILL");
        assert_int_equal(measure_connect(pair.b, pair.a, addr_a2, 7021), 0);
}

/* A failed case leaves its fault applied: take it off before the next. */
static int undo_leftover(void **state) {
        (void)state;
        if (applied.params) {
                struct fault_exec fx = fx_of(applied.fault_id, &applied);
                fault_undo_run(&fx, fx.def->comp.undo, fault_comp_n_undo(&fx.def->comp), NULL);
        }
        lease_done(&applied);
        return 0;
}

/* ---- setup ----------------------------------------------------------------- */

static int setup(void **state) {
        (void)state;
        const char *agent = getenv("MAYHEM_AGENT_BIN");
        if (agent)
                fault_guard_exe_set(agent);
        if (netns_pair_create(&pair, "mhfx", SUBNET) < 0 || !(lives = fault_lives_new()))
                return -1;
        snprintf(addr_a2, sizeof(addr_a2), "10.%d.0.3", SUBNET);
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "ip", "-n", pair.a, "addr", "add", "10.214.0.3/24", "dev",
                                             pair.dev_a, NULL });
        cmd_result_done(&r);
        r = run_command(
                NULL, (const char *const[]){ "ip", "-n", pair.b, "route", "add", "10.99.0.0/24", "via",
                                             pair.addr_a, "dev", pair.dev_b, NULL });
        if (r.exit != 0)
                return -1;
        cmd_result_done(&r);
        int fd;
        holder = netns_fork(pair.b, hold_forever, NULL, &fd);
        close(fd);
        if (holder < 0 || proc_identity_read(holder, &target, NULL) < 0)
                return -1;
        baseline_ms = measure_rtt(pair.a, pair.b, pair.addr_b, 7001).p50;
        print_message("baseline RTT %.3f ms\n", baseline_ms);
        return 0;
}

static int teardown(void **state) {
        (void)state;
        if (holder > 0) {
                kill(holder, SIGKILL);
                waitpid(holder, NULL, 0);
        }
        lives = fault_lives_free(lives);
        netns_pair_destroy(&pair);
        return 0;
}

int main(void) {
        if (geteuid() != 0)
                return 77;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_latency, undo_leftover),
                cmocka_unit_test_teardown(test_latency_directions_and_jitter, undo_leftover),
                cmocka_unit_test_teardown(test_latency_scoped, undo_leftover),
                cmocka_unit_test_teardown(test_reorder, undo_leftover),
                cmocka_unit_test_teardown(test_loss, undo_leftover),
                cmocka_unit_test_teardown(test_duplicate, undo_leftover),
                cmocka_unit_test_teardown(test_partition, undo_leftover),
                cmocka_unit_test_teardown(test_dns_effect, undo_leftover),
                cmocka_unit_test_teardown(test_reset_refuse, undo_leftover),
                cmocka_unit_test_teardown(test_corrupt, undo_leftover),
                cmocka_unit_test_teardown(test_flap, undo_leftover),
                cmocka_unit_test_teardown(test_slow_query, undo_leftover),
                cmocka_unit_test_teardown(test_bandwidth, undo_leftover),
                cmocka_unit_test_teardown(test_agent_killed, undo_leftover),
                cmocka_unit_test_teardown(test_mtu_mismatch, undo_leftover),
                cmocka_unit_test_teardown(test_interface_down, undo_leftover),
                cmocka_unit_test_teardown(test_link_faults_guarded, undo_leftover),
        };
        if (getenv("MH_TEST_FILTER")) /* e.g. MH_TEST_FILTER=test_bandwidth */
                cmocka_set_test_filter(getenv("MH_TEST_FILTER"));
        return cmocka_run_group_tests(tests, setup, teardown);
}
