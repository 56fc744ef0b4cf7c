/* sys/rtnl against the real kernel, measured from the outside: a tbf on a veth
 * limits what one side sends, an IFB + ingress redirect + tbf limits what it
 * receives, our deletes leave nothing behind, and somebody else's qdisc is
 * neither replaced nor removed. Every rtnl call runs in a child that entered
 * the namespace first (a netlink socket belongs to the netns it was made in).
 * Not root: exit 77. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/netns-pair.h"
#include "common/netprobe.h"
#include "common/run-command.h"
#include "sys/rtnl.h"

#define IFB        "mhrtifb0"
#define RATE       1000000u /* bytes/s: 8 Mbit/s */
#define SEND_MS    3000
#define TOLERANCE  0.15
#define PORT       7311
#define QDISCS_MAX 256
#define LINKS_MAX  64

static struct netns_pair pair;

enum op_kind {
        OP_TBF_ADD,
        OP_TBF_DEL,
        OP_INGRESS_SETUP,
        OP_INGRESS_DEL,
        OP_IFB_DEL,
        OP_RESIDUE,
        OP_ROOT,
        OP_QDISC_DEL_FOREIGN,
        OP_INGRESS_ADD,
        OP_REDIRECT_ADD, /* to the link itself: only the refusal is looked at */
        OP_LINK_DOWN,
        OP_LINK_UP,
        OP_MTU_1400,
        OP_MTU_60, /* below IPv4's minimum of 68 (ETH_MIN_MTU): the kernel refuses it */
        OP_LINK_SHOW,
};

struct op {
        enum op_kind kind;
        const char *dev;
};

static const struct rtnl_tbf shape = { .rate = RATE, .burst = 32768, .limit = 200000 };
/* On the IFB: a short queue, so what drains after the blast adds little. */
static const struct rtnl_tbf ifb_shape = { .rate = RATE, .burst = 16000, .limit = 50000 };

static int ingress_setup(struct rtnl *rt, int ifindex, struct mh_error *e) {
        int ifb, r = rtnl_ifb_create(rt, IFB, &ifb, e);
        if (r == 0)
                r = rtnl_link_set_up(rt, ifb, e);
        if (r == 0)
                r = rtnl_qdisc_tbf_add(rt, ifb, &ifb_shape, e);
        if (r == 0)
                r = rtnl_qdisc_ingress_add(rt, ifindex, e);
        if (r == 0)
                r = rtnl_filter_redirect_add(rt, ifindex, ifb, e);
        return r;
}

/* What the kernel shows: the qdiscs not kernel defaults, and IFB links. */
static int residue(struct rtnl *rt, int out, struct mh_error *e) {
        struct rtnl_qdisc q[QDISCS_MAX];
        struct rtnl_link l[LINKS_MAX];
        size_t nq, nl, configured = 0, ifbs = 0;
        int r = rtnl_qdisc_list(rt, 0, q, QDISCS_MAX, &nq, e);

        if (r == 0)
                r = rtnl_link_list(rt, l, LINKS_MAX, &nl, e);
        if (r < 0)
                return r;
        for (size_t i = 0; i < nq; i++)
                if (q[i].handle != 0) {
                        configured++;
                        dprintf(out, "[%s %x: parent %x on %d] ", q[i].kind, q[i].handle >> 16, q[i].parent,
                                q[i].ifindex);
                }
        for (size_t i = 0; i < nl; i++)
                ifbs += strcmp(l[i].kind, "ifb") == 0;
        dprintf(out, "configured=%zu ifb=%zu links=%zu ", configured, ifbs, nl);
        return 0;
}

static int run_op(struct rtnl *rt, const struct op *o, int out, struct mh_error *e) {
        if (o->kind == OP_IFB_DEL)
                return rtnl_ifb_del(rt, o->dev, e);
        int ifindex, r = rtnl_link_ifindex(rt, o->dev, &ifindex, e);
        if (r < 0)
                return r;
        switch (o->kind) {
        case OP_TBF_ADD: return rtnl_qdisc_tbf_add(rt, ifindex, &shape, e);
        case OP_TBF_DEL: return rtnl_qdisc_del_ours(rt, ifindex, RTNL_PARENT_ROOT, "tbf", e);
        case OP_INGRESS_SETUP: return ingress_setup(rt, ifindex, e);
        case OP_INGRESS_DEL: return rtnl_qdisc_ingress_del_ours(rt, ifindex, e);
        case OP_RESIDUE: return residue(rt, out, e);
        case OP_ROOT: return rtnl_root_qdisc_is_default(rt, ifindex, e);
        case OP_QDISC_DEL_FOREIGN: return rtnl_qdisc_del(rt, ifindex, RTNL_PARENT_ROOT, 0x10000, e);
        case OP_IFB_DEL: break; /* above, by name */
        case OP_INGRESS_ADD: return rtnl_qdisc_ingress_add(rt, ifindex, e);
        case OP_REDIRECT_ADD: return rtnl_filter_redirect_add(rt, ifindex, ifindex, e);
        case OP_LINK_DOWN: return rtnl_link_set_state(rt, ifindex, false, e);
        case OP_LINK_UP: return rtnl_link_set_state(rt, ifindex, true, e);
        case OP_MTU_1400: return rtnl_link_set_mtu(rt, ifindex, 1400, e);
        case OP_MTU_60: return rtnl_link_set_mtu(rt, ifindex, 60, e);
        case OP_LINK_SHOW: {
                struct rtnl_link l;
                if ((r = rtnl_link_get(rt, o->dev, &l, e)) == 0)
                        dprintf(out, "up=%d mtu=%u ", l.up, l.mtu);
                return r;
        }
        }
        return -EINVAL;
}

static int op_child(void *arg, int out) {
        struct rtnl *rt = NULL;
        struct mh_error e = { 0 };
        int r = rtnl_open(&rt, &e);

        if (r == 0)
                r = run_op(rt, arg, out, &e);
        dprintf(out, "%d %s", r, r < 0 ? e.msg : "");
        rtnl_free(rt);
        return 0;
}

/* Runs o in netns ns; returns its result, the text in out. */
static int op_in(const char *ns, enum op_kind kind, const char *dev, char *out, size_t size) {
        struct op o = { kind, dev };
        char buf[2048];
        int fd, r;
        pid_t pid = netns_fork(ns, op_child, &o, &fd);

        assert_true(pid > 0);
        assert_int_equal(netns_collect(pid, fd, buf, sizeof(buf)), 0);
        /* residue writes its text first, the result last */
        const char *num = buf;
        for (const char *p = buf; (kind == OP_RESIDUE || kind == OP_LINK_SHOW) && *p; p++)
                if (p[0] == ' ' && (p[1] == '-' || (p[1] >= '0' && p[1] <= '9')))
                        num = p + 1;
        assert_int_equal(sscanf(num, "%d", &r), 1);
        if (out)
                (void)snprintf(out, size, "%s", buf);
        print_message("  %s %d (%s): %s\n", ns, (int)kind, dev, buf);
        return r;
}

static int serve(void *arg, int out) {
        (void)arg;
        dprintf(out, "%ld", tcp_server(PORT, false, SEND_MS + 100));
        return 0;
}

static int send_for(void *arg, int out) {
        dprintf(out, "%.0f", tcp_send_for(arg, PORT, SEND_MS));
        return 0;
}

/* Bytes per second the receiver got from the sender's SEND_MS of sending. */
static double throughput(const char *srv_ns, const char *cli_ns, const char *addr) {
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[32];
        long bytes;

        pid_t srv = netns_fork(srv_ns, serve, NULL, &srv_fd);
        usleep(100000);
        pid_t cli = netns_fork(cli_ns, send_for, (void *)addr, &cli_fd);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        assert_int_equal(sscanf(srv_out, "%ld", &bytes), 1);
        double rate = (double)bytes / (SEND_MS / 1000.0);
        print_message("  %s -> %s: %.2f Mbit/s received\n", cli_ns, srv_ns, rate * 8 / 1e6);
        return rate;
}

#define UDP_SIZE  1200
#define UDP_PPS   2000
#define UDP_COUNT (UDP_PPS * SEND_MS / 1000)
#define UDP_WIRE  (UDP_SIZE + 8 + 20 + 14) /* what tbf counts: UDP, IPv4, Ethernet headers */

static int sink(void *arg, int out) {
        (void)arg;
        struct udp_sink_result r;
        if (udp_sink(PORT, 500, SEND_MS + 3000, &r) < 0)
                return 1;
        dprintf(out, "%u", r.unique);
        return 0;
}

static int blast(void *arg, int out) {
        (void)out;
        return udp_blast(arg, PORT, UDP_COUNT, UDP_PPS, UDP_SIZE) < 0;
}

/* Bytes per second (as tbf counts them) that arrive from a UDP blast at 2.4
 * times RATE for SEND_MS. */
static double udp_rate(const char *srv_ns, const char *cli_ns, const char *addr) {
        int srv_fd, cli_fd;
        char srv_out[32], cli_out[8];
        unsigned unique;

        pid_t srv = netns_fork(srv_ns, sink, NULL, &srv_fd);
        usleep(100000);
        pid_t cli = netns_fork(cli_ns, blast, (void *)addr, &cli_fd);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        assert_int_equal(sscanf(srv_out, "%u", &unique), 1);
        double rate = (double)unique * UDP_WIRE / (SEND_MS / 1000.0);
        print_message(
                "  %s -> %s: %u of %u datagrams, %.2f Mbit/s\n", cli_ns, srv_ns, unique, UDP_COUNT,
                rate * 8 / 1e6);
        return rate;
}

static void assert_near_rate(double measured) {
        print_message(
                "  configured %.2f Mbit/s, measured %.2f Mbit/s (%+.1f%%)\n", RATE * 8 / 1e6,
                measured * 8 / 1e6, (measured / RATE - 1) * 100);
        assert_true(measured > RATE * (1 - TOLERANCE));
        assert_true(measured < RATE * (1 + TOLERANCE));
}

static void assert_no_residue(void) {
        char out[2048];
        assert_int_equal(op_in(pair.a, OP_RESIDUE, pair.dev_a, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "configured=0 ifb=0 "));
}

static void test_tbf_egress(void **state) {
        (void)state;
        double base = throughput(pair.b, pair.a, pair.addr_b);
        assert_true(base > 10 * RATE);

        assert_int_equal(op_in(pair.a, OP_ROOT, pair.dev_a, NULL, 0), 1);
        assert_int_equal(op_in(pair.a, OP_TBF_ADD, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_in(pair.a, OP_ROOT, pair.dev_a, NULL, 0), 0);
        assert_near_rate(throughput(pair.b, pair.a, pair.addr_b));
        assert_int_equal(op_in(pair.a, OP_TBF_ADD, pair.dev_a, NULL, 0), -EBUSY); /* ours counts too */

        assert_int_equal(op_in(pair.a, OP_TBF_DEL, pair.dev_a, NULL, 0), 1);
        assert_int_equal(op_in(pair.a, OP_TBF_DEL, pair.dev_a, NULL, 0), 0);
        assert_no_residue();
        assert_true(throughput(pair.b, pair.a, pair.addr_b) > 10 * RATE);
}

static void test_ingress_redirect(void **state) {
        (void)state;
        double base = throughput(pair.a, pair.b, pair.addr_a);
        assert_true(base > 10 * RATE);

        assert_int_equal(op_in(pair.a, OP_INGRESS_SETUP, pair.dev_a, NULL, 0), 0);
        /* UDP offered at 2.4 times the rate: what arrives is what tbf lets
         * through. TCP through an ingress shaper loses whole GSO packets at
         * the queue's end and may stall in recovery, so it only must not
         * exceed the rate. */
        assert_near_rate(udp_rate(pair.a, pair.b, pair.addr_a));
        double tcp = throughput(pair.a, pair.b, pair.addr_a);
        assert_true(tcp < RATE * (1 + TOLERANCE) && tcp > RATE * 0.3);

        assert_int_equal(op_in(pair.a, OP_INGRESS_DEL, pair.dev_a, NULL, 0), 1);
        assert_int_equal(op_in(pair.a, OP_INGRESS_DEL, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_in(pair.a, OP_IFB_DEL, IFB, NULL, 0), 1);
        assert_int_equal(op_in(pair.a, OP_IFB_DEL, IFB, NULL, 0), 0);
        assert_no_residue();
        assert_true(throughput(pair.a, pair.b, pair.addr_a) > 10 * RATE);
}

static int tc_in_a(const char *const *args) {
        const char *argv[24] = { "ip", "netns", "exec", pair.a, "tc" };
        size_t n = 5;
        for (size_t i = 0; args[i] && n < ELEMENTSOF(argv) - 1; i++)
                argv[n++] = args[i];
        argv[n] = NULL;
        struct cmd_result r = run_command("/", argv);
        int exit = r.exit;
        if (exit != 0)
                print_message("tc: %s\n", r.err);
        cmd_result_done(&r);
        return exit;
}

static void test_foreign_untouched(void **state) {
        (void)state;
        char out[2048];

        /* Someone's own root qdisc (handle 1:) */
        const char *root[] = { "qdisc", "add",     "dev",   pair.dev_a, "root",    "handle", "1:", "tbf",
                               "rate",  "100mbit", "burst", "64k",      "latency", "50ms",   NULL };
        assert_int_equal(tc_in_a(root), 0);
        assert_int_equal(op_in(pair.a, OP_ROOT, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_in(pair.a, OP_TBF_ADD, pair.dev_a, NULL, 0), -EBUSY);
        assert_int_equal(op_in(pair.a, OP_TBF_DEL, pair.dev_a, NULL, 0), -EBUSY);
        assert_int_equal(op_in(pair.a, OP_RESIDUE, pair.dev_a, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "[tbf 1: parent ffffffff"));
        assert_int_equal(op_in(pair.a, OP_QDISC_DEL_FOREIGN, pair.dev_a, NULL, 0), 0);
        /* Gone now: the kernel's refusal comes with its extended-ACK reason. */
        assert_true(op_in(pair.a, OP_QDISC_DEL_FOREIGN, pair.dev_a, out, sizeof(out)) < 0);
        assert_non_null(strstr(out, "(kernel: "));

        /* Someone's ingress qdisc without filters, then with one of theirs. */
        const char *ingress[] = { "qdisc", "add", "dev", pair.dev_a, "ingress", NULL };
        assert_int_equal(tc_in_a(ingress), 0);
        assert_int_equal(op_in(pair.a, OP_INGRESS_ADD, pair.dev_a, NULL, 0), -EEXIST);
        assert_int_equal(op_in(pair.a, OP_INGRESS_DEL, pair.dev_a, NULL, 0), -EBUSY);
        const char *filter[] = { "filter",   "add", "dev", pair.dev_a, "parent", "ffff:", "prio", "1",
                                 "protocol", "ip",  "u32", "match",    "u32",    "0",     "0",    NULL };
        assert_int_equal(tc_in_a(filter), 0);
        assert_int_equal(op_in(pair.a, OP_REDIRECT_ADD, pair.dev_a, NULL, 0), -EBUSY);
        assert_int_equal(op_in(pair.a, OP_INGRESS_DEL, pair.dev_a, NULL, 0), -EBUSY);
        assert_int_equal(op_in(pair.a, OP_RESIDUE, pair.dev_a, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "[ingress ffff: parent fffffff1"));
        const char *del[] = { "qdisc", "del", "dev", pair.dev_a, "ingress", NULL };
        assert_int_equal(tc_in_a(del), 0);

        /* An IFB name that is a veth. */
        assert_int_equal(op_in(pair.a, OP_IFB_DEL, pair.dev_a, NULL, 0), -EBUSY);
        assert_no_residue();
}

static void test_probes(void **state) {
        (void)state;
        struct mh_error e = { 0 };
        int r = rtnl_qdisc_kind_supported("tbf", &e);
        if (r < 0)
                fail_msg("tbf probe: %s", e.msg);
        assert_int_equal(r, 1);
        /* This test kernel is built without sch_netem. */
        assert_int_equal(rtnl_qdisc_kind_supported("netem", &e), 0);
        assert_int_equal(rtnl_qdisc_kind_supported("ingress", &e), 1);
        assert_int_equal(rtnl_qdisc_kind_supported("htb", &e), 1);
        assert_int_equal(rtnl_qdisc_kind_supported("no_such_qdisc", &e), 0);
        assert_int_equal(rtnl_qdisc_kind_supported("tbf", &e), 1); /* remembered */
        r = rtnl_ifb_supported(&e);
        if (r < 0)
                fail_msg("ifb probe: %s", e.msg);
        assert_int_equal(r, 1);
        r = rtnl_ingress_redirect_supported(&e);
        if (r < 0)
                fail_msg("ingress probe: %s", e.msg);
        assert_int_equal(r, 1);
}

/* A link's state and MTU as the kernel reports them, changed and read back. */
static void test_link_state_and_mtu(void **state) {
        (void)state;
        char out[256];
        assert_int_equal(op_in(pair.a, OP_LINK_SHOW, pair.dev_a, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "up=1 mtu=1500"));
        assert_int_equal(op_in(pair.a, OP_LINK_DOWN, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_in(pair.a, OP_LINK_SHOW, pair.dev_a, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "up=0 "));
        assert_int_equal(op_in(pair.a, OP_LINK_UP, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_in(pair.a, OP_MTU_1400, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_in(pair.a, OP_LINK_SHOW, pair.dev_a, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "up=1 mtu=1400"));
        assert_int_equal(op_in(pair.a, OP_MTU_60, pair.dev_a, out, sizeof(out)), -EINVAL);
        assert_non_null(strstr(out, "setting the MTU of link"));
}

static int setup(void **state) {
        (void)state;
        return netns_pair_create(&pair, "mhrt", 211);
}

static int teardown(void **state) {
        (void)state;
        netns_pair_destroy(&pair); /* the IFB lives in side a's netns and goes with it */
        return 0;
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: needs root\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probes),
                cmocka_unit_test_setup_teardown(test_tbf_egress, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ingress_redirect, setup, teardown),
                cmocka_unit_test_setup_teardown(test_foreign_untouched, setup, teardown),
                cmocka_unit_test_setup_teardown(test_link_state_and_mtu, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
