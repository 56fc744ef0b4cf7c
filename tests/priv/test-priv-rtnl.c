/* sys/rtnl against the real kernel, measured from the outside: a tbf on a veth
 * limits what one side sends, an IFB + ingress redirect + tbf limits what it
 * receives, our deletes leave nothing behind, and somebody else's qdisc is
 * neither replaced nor removed; the addresses and routes a link loses when it
 * goes down or its MTU drops below 1280 are listed before, seen gone (by
 * iproute2 too) and put back as they were. Every rtnl call runs in a child
 * that entered the namespace first (a netlink socket belongs to the netns it
 * was made in). Not root: exit 77. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
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
#define ADDRS_MAX  32
#define ROUTES_MAX 64

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
        OP_MTU_1200, /* below IPv6's minimum of 1280: the kernel drops the link's IPv6 */
        OP_MTU_1500,
        OP_RECORD,  /* the link's addresses and routes into snaps[slot] */
        OP_RESTORE, /* snaps[slot]'s addresses, then its routes, added back; EEXIST is "present" */
};

struct op {
        enum op_kind kind;
        const char *dev;
        int slot;
        unsigned add_flags; /* RTNL_ADDR_ADD_* for OP_RESTORE */
};

/* What OP_RECORD saw, in memory shared with the forked children. */
struct snapshot {
        size_t na, nr, skipped;
        struct rtnl_addr a[ADDRS_MAX];
        struct rtnl_route r[ROUTES_MAX];
};
enum {
        SNAP_BEFORE,
        SNAP_CHANGED,
        SNAP_AFTER,
        SNAP_MAX
};
static struct snapshot *snaps;

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

static int record(struct rtnl *rt, int ifindex, struct snapshot *snap, struct mh_error *e) {
        size_t na, nr, skipped;
        int r = rtnl_addr_list(rt, ifindex, snap->a, ADDRS_MAX, &na, e);
        if (r == 0)
                r = rtnl_route_list(rt, AF_UNSPEC, ifindex, snap->r, ROUTES_MAX, &nr, &skipped, e);
        if (r < 0)
                return r;
        snap->na = na;
        snap->nr = nr;
        snap->skipped = skipped;
        return 0;
}

/* As the fault's undo would: every address, then every route, in the order
 * listed; one that is there already counts as present. Goes on past a
 * failure and returns the first. */
static int restore(
        struct rtnl *rt, const struct snapshot *snap, unsigned add_flags, int out, struct mh_error *e) {
        size_t added = 0, present = 0, failed = 0;
        int first = 0;
        struct mh_error first_e = { 0 };

        for (size_t i = 0; i < snap->na + snap->nr; i++) {
                struct mh_error ie = { 0 };
                int r = i < snap->na ? rtnl_addr_add(rt, &snap->a[i], add_flags, &ie)
                                     : rtnl_route_add(rt, &snap->r[i - snap->na], &ie);
                if (r == 0)
                        added++;
                else if (r == -EEXIST)
                        present++;
                else {
                        failed++;
                        dprintf(out, "[%s] ", ie.msg);
                        if (first == 0) {
                                first = r;
                                first_e = ie;
                        }
                }
        }
        dprintf(out, "added=%zu present=%zu failed=%zu ", added, present, failed);
        if (first < 0)
                *e = first_e;
        return first;
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
        case OP_MTU_1200: return rtnl_link_set_mtu(rt, ifindex, 1200, e);
        case OP_MTU_1500: return rtnl_link_set_mtu(rt, ifindex, 1500, e);
        case OP_RECORD: return record(rt, ifindex, &snaps[o->slot], e);
        case OP_RESTORE: return restore(rt, &snaps[o->slot], o->add_flags, out, e);
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
        /* After what the op wrote (never a newline), on a line of its own. */
        dprintf(out, "\n%d %s", r, r < 0 ? e.msg : "");
        rtnl_free(rt);
        return 0;
}

/* Runs o in netns ns; returns its result, the text (on one line) in out. */
static int op_run(const char *ns, const struct op *o, char *out, size_t size) {
        char buf[4096];
        int fd, r;
        pid_t pid = netns_fork(ns, op_child, (void *)o, &fd);

        assert_true(pid > 0);
        assert_int_equal(netns_collect(pid, fd, buf, sizeof(buf)), 0);
        char *nl = strrchr(buf, '\n');
        assert_non_null(nl);
        assert_int_equal(sscanf(nl + 1, "%d", &r), 1);
        *nl = ' ';
        if (out && size > 0) {
                size_t n = strnlen(buf, size - 1);
                memcpy(out, buf, n);
                out[n] = '\0';
        }
        print_message("  %s %d (%s): %s\n", ns, (int)o->kind, o->dev, buf);
        return r;
}

static int op_in(const char *ns, enum op_kind kind, const char *dev, char *out, size_t size) {
        struct op o = { .kind = kind, .dev = dev };
        return op_run(ns, &o, out, size);
}

static int op_snap(
        const char *ns, enum op_kind kind, const char *dev, int slot, unsigned add_flags, char *out,
        size_t size) {
        struct op o = { .kind = kind, .dev = dev, .slot = slot, .add_flags = add_flags };
        return op_run(ns, &o, out, size);
}

/* The receiver's rate, timed from its first read to its last: the sender
 * starts after the receiver listens and its socket buffers drain after it
 * stops, so neither one's start and stop times bound what arrived. */
static int serve(void *arg, int out) {
        struct tcp_receive_result r;
        (void)arg;
        netprobe_ready_fd(out);
        /* The sender's SEND_MS, then whatever its buffers still hold (a cut
         * reading times only what it counted). */
        int e = tcp_receive(PORT, SEND_MS + 3000, &r);
        dprintf(out, "%d %ld %.3f %.0f", e, r.bytes, r.ms, r.bps);
        return 0;
}

static int send_for(void *arg, int out) {
        dprintf(out, "%.0f", tcp_send_for(arg, PORT, SEND_MS));
        return 0;
}

/* Bytes per second the receiver got from the sender's SEND_MS of sending. */
static double throughput(const char *srv_ns, const char *cli_ns, const char *addr) {
        int srv_fd, cli_fd, e;
        char srv_out[96], cli_out[32];
        long bytes;
        double ms, bps;

        pid_t srv = netns_fork_server(srv_ns, serve, NULL, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(cli_ns, send_for, (void *)addr, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        assert_int_equal(sscanf(srv_out, "%d %ld %lf %lf", &e, &bytes, &ms, &bps), 4);
        assert_int_equal(e, 0);
        /* Most of the sending time observed: the rate is not a blip. */
        assert_true(ms > SEND_MS / 2);
        print_message(
                "  %s -> %s: %.2f Mbit/s received (%ld bytes in %.0f ms)\n", cli_ns, srv_ns, bps / 1e6,
                bytes, ms);
        return bps / 8;
}

#define UDP_SIZE  1200
#define UDP_PPS   2000
#define UDP_COUNT (UDP_PPS * SEND_MS / 1000)
#define UDP_WIRE  (UDP_SIZE + 8 + 20 + 14) /* what tbf counts: UDP, IPv4, Ethernet headers */

static int sink(void *arg, int out) {
        (void)arg;
        struct udp_sink_result r;
        netprobe_ready_fd(out);
        if (udp_sink(PORT, 500, SEND_MS + 3000, &r) < 0)
                return 1;
        dprintf(out, "%u %.3f", r.unique, r.span_ms);
        return 0;
}

static int blast(void *arg, int out) {
        (void)out;
        return udp_blast(arg, PORT, UDP_COUNT, UDP_PPS, UDP_SIZE) < 0;
}

/* Bytes per second (as tbf counts them) that arrive from a UDP blast at 2.4
 * times RATE for SEND_MS, timed at the receiver from the first datagram to
 * the last (what tbf still held when the blast ended arrives after it). */
static double udp_rate(const char *srv_ns, const char *cli_ns, const char *addr) {
        int srv_fd, cli_fd;
        char srv_out[48], cli_out[8];
        unsigned unique;
        double span_ms;

        pid_t srv = netns_fork_server(srv_ns, sink, NULL, &srv_fd);
        assert_true(srv > 0);
        pid_t cli = netns_fork(cli_ns, blast, (void *)addr, &cli_fd);
        assert_true(cli > 0);
        assert_int_equal(netns_collect(cli, cli_fd, cli_out, sizeof(cli_out)), 0);
        assert_int_equal(netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)), 0);
        assert_int_equal(sscanf(srv_out, "%u %lf", &unique, &span_ms), 2);
        assert_true(unique > 1 && span_ms > SEND_MS / 2);
        /* unique - 1 datagrams arrived after the clock started at the first. */
        double rate = (double)(unique - 1) * UDP_WIRE / (span_ms / 1000.0);
        print_message(
                "  %s -> %s: %u of %u datagrams in %.0f ms, %.2f Mbit/s\n", cli_ns, srv_ns, unique,
                UDP_COUNT, span_ms, rate * 8 / 1e6);
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

/* ---- addresses and routes: what a link loses going down, and putting it back ---- */

/* ip -n <side a> ARGS...: its output (malloc()ed); the command must succeed. */
static char *ip_a(const char *const *args) {
        const char *argv[32] = { "ip", "-n", pair.a };
        size_t n = 3;
        for (size_t i = 0; args[i] && n < ELEMENTSOF(argv) - 1; i++)
                argv[n++] = args[i];
        argv[n] = NULL;
        struct cmd_result r = run_command("/", argv);
        if (r.exit != 0) {
                print_message("ip:");
                for (size_t i = 0; argv[i]; i++)
                        print_message(" %s", argv[i]);
                print_message(": %s\n", r.err);
        }
        assert_int_equal(r.exit, 0);
        char *out = r.out;
        r.out = NULL;
        cmd_result_done(&r);
        return out;
}
#define IP_A(...)    ip_a((const char *const[]){ __VA_ARGS__, NULL })
#define IP_A_DO(...) free(IP_A(__VA_ARGS__))

/* The views of iproute2 the tests look at, printed: side a's addresses, its
 * IPv4 and IPv6 routes of every table, and the multipath route (which a
 * "dev" filter does not show). */
struct ip_view {
        char *addr, *route4, *route6, *multipath;
};

static void print_lines(const char *text) {
        for (const char *p = text; *p;) {
                const char *e = strchr(p, '\n');
                int n = (int)(e ? (size_t)(e - p) : strlen(p));
                print_message("    %.*s\n", n, p);
                p += n + (e != NULL);
        }
}

static struct ip_view ip_view(const char *when) {
        struct ip_view v = {
                .addr = IP_A("-o", "addr", "show", "dev", pair.dev_a),
                .route4 = IP_A("-4", "route", "show", "table", "all", "dev", pair.dev_a),
                .route6 = IP_A("-6", "route", "show", "table", "all", "dev", pair.dev_a),
                .multipath = IP_A("-4", "route", "show", "203.0.113.0/24"),
        };
        print_message("  iproute2 %s:\n", when);
        print_lines(v.addr);
        print_lines(v.route4);
        print_lines(v.route6);
        print_lines(v.multipath);
        return v;
}

static void ip_view_done(struct ip_view *v) {
        free(v->addr);
        free(v->route4);
        free(v->route6);
        free(v->multipath);
}

/* The line of text holding needle, or NULL. */
static const char *line_with(const char *text, const char *needle, char *line, size_t size) {
        const char *p = strstr(text, needle);
        if (!p)
                return NULL;
        const char *b = p, *e = strchr(p, '\n');
        while (b > text && b[-1] != '\n')
                b--;
        size_t n = MIN((size_t)((e ? e : p + strlen(p)) - b), size - 1);
        memcpy(line, b, n);
        line[n] = '\0';
        return line;
}

static const char *ntop(int family, const unsigned char *a, char *buf) {
        return inet_ntop(family, a, buf, INET6_ADDRSTRLEN) ? buf : "?";
}

static void print_snapshot(const char *when, const struct snapshot *s) {
        char b1[INET6_ADDRSTRLEN], b2[INET6_ADDRSTRLEN], b3[INET6_ADDRSTRLEN];
        print_message(
                "  listed %s: %zu addresses, %zu routes, %zu skipped\n", when, s->na, s->nr, s->skipped);
        for (size_t i = 0; i < s->na; i++) {
                const struct rtnl_addr *a = &s->a[i];
                print_message(
                        "    addr %s/%u%s%s scope %u proto %u flags 0x%x valid %u pref %u%s%s\n",
                        ntop(a->family, a->addr, b1), a->prefixlen, a->has_peer ? " peer " : "",
                        a->has_peer ? ntop(a->family, a->peer, b2) : "", a->scope, a->proto, a->flags,
                        a->valid_lft, a->preferred_lft, a->label[0] ? " label " : "", a->label);
        }
        for (size_t i = 0; i < s->nr; i++) {
                const struct rtnl_route *r = &s->r[i];
                print_message(
                        "    route %s/%u%s%s dev %d table %u metric %u proto %u scope %u%s%s mx %u\n",
                        r->has_dst ? ntop(r->family, r->dst, b1) : (r->family == AF_INET ? "0.0.0.0" : "::"),
                        r->dst_len, r->has_gateway ? " via " : "",
                        r->has_gateway ? ntop(r->family, r->gateway, b2) : "", r->oif, r->table, r->priority,
                        r->protocol, r->scope, r->has_prefsrc ? " src " : "",
                        r->has_prefsrc ? ntop(r->family, r->prefsrc, b3) : "", r->metrics_len);
        }
}

static bool addr_same(const struct rtnl_addr *a, const struct rtnl_addr *b) {
        /* Flags the kernel changes by itself (DAD) or we add (NODAD) aside. */
        uint32_t mask = ~(uint32_t)(IFA_F_TENTATIVE | IFA_F_OPTIMISTIC | IFA_F_NODAD);
        return a->family == b->family && a->ifindex == b->ifindex && a->prefixlen == b->prefixlen &&
               memcmp(a->addr, b->addr, RTNL_ADDR_LEN) == 0 && a->has_peer == b->has_peer &&
               memcmp(a->peer, b->peer, RTNL_ADDR_LEN) == 0 && a->scope == b->scope &&
               a->proto == b->proto && (a->flags & mask) == (b->flags & mask) &&
               a->valid_lft == b->valid_lft && a->preferred_lft == b->preferred_lft &&
               a->rt_priority == b->rt_priority && a->has_broadcast == b->has_broadcast &&
               memcmp(a->broadcast, b->broadcast, RTNL_ADDR_LEN) == 0 && strcmp(a->label, b->label) == 0;
}

static bool route_same(const struct rtnl_route *a, const struct rtnl_route *b) {
        return a->family == b->family && a->dst_len == b->dst_len && a->src_len == b->src_len &&
               a->tos == b->tos && a->protocol == b->protocol && a->scope == b->scope &&
               a->type == b->type && a->pref == b->pref && a->flags == b->flags && a->table == b->table &&
               a->priority == b->priority && a->oif == b->oif && a->has_dst == b->has_dst &&
               memcmp(a->dst, b->dst, RTNL_ADDR_LEN) == 0 && a->has_src == b->has_src &&
               memcmp(a->src, b->src, RTNL_ADDR_LEN) == 0 && a->has_gateway == b->has_gateway &&
               memcmp(a->gateway, b->gateway, RTNL_ADDR_LEN) == 0 && a->has_prefsrc == b->has_prefsrc &&
               memcmp(a->prefsrc, b->prefsrc, RTNL_ADDR_LEN) == 0 && a->metrics_len == b->metrics_len &&
               memcmp(a->metrics, b->metrics, a->metrics_len) == 0;
}

/* Each of want's entries is in got once, and got has no others. */
static void assert_snapshot_equal(const struct snapshot *want, const struct snapshot *got) {
        assert_int_equal(got->na, want->na);
        assert_int_equal(got->nr, want->nr);
        for (size_t i = 0; i < want->na; i++) {
                size_t found = 0;
                for (size_t j = 0; j < got->na; j++)
                        found += addr_same(&want->a[i], &got->a[j]);
                if (found != 1)
                        fail_msg("address %zu of the record found %zu times", i, found);
        }
        for (size_t i = 0; i < want->nr; i++) {
                size_t found = 0;
                for (size_t j = 0; j < got->nr; j++)
                        found += route_same(&want->r[i], &got->r[j]);
                if (found != 1)
                        fail_msg("route %zu of the record found %zu times", i, found);
        }
}

static size_t count_family(const struct snapshot *s, int family, bool routes) {
        size_t n = 0;
        for (size_t i = 0; i < (routes ? s->nr : s->na); i++)
                n += (routes ? s->r[i].family : s->a[i].family) == family;
        return n;
}

static const struct rtnl_addr *find_addr(const struct snapshot *s, int family, const char *text) {
        unsigned char b[16] = { 0 };
        assert_int_equal(inet_pton(family, text, b), 1);
        for (size_t i = 0; i < s->na; i++)
                if (s->a[i].family == family && memcmp(s->a[i].addr, b, 16) == 0)
                        return &s->a[i];
        return NULL;
}

static const struct rtnl_route *find_route(
        const struct snapshot *s, int family, const char *dst, uint32_t table) {
        unsigned char b[16] = { 0 };
        assert_int_equal(inet_pton(family, dst, b), 1);
        for (size_t i = 0; i < s->nr; i++)
                if (s->r[i].family == family && s->r[i].table == table && memcmp(s->r[i].dst, b, 16) == 0 &&
                    (s->r[i].has_dst || s->r[i].dst_len == 0))
                        return &s->r[i];
        return NULL;
}

/* Waits (up to 10 s: DAD takes about 1 s) until iproute2 shows no
 * tentative address on side a. */
static void wait_dad(void) {
        double start = monotonic_ms();
        while (monotonic_ms() - start < 10000) {
                char *a = IP_A("-o", "-6", "addr", "show", "dev", pair.dev_a);
                bool tentative = strstr(a, "tentative") != NULL;
                free(a);
                if (!tentative)
                        return;
                sleep_ms(50);
        }
        fail_msg("addresses on %s still tentative after %.0f ms", pair.dev_a, monotonic_ms() - start);
}

#define NET     "10.211"
#define NET6    "fd00:d3::"
#define SECOND6 NET6 "11"

/* Side a as a container's interface might look, and more: a second IPv4
 * subnet, a second IPv6 address that went through DAD, default routes of
 * both families, a static route in table 100 with a metric and a source, a
 * gateway reachable only through a link-scope route of the same table (as
 * Calico sets it), a route with an MTU metric, an IPv6 route with a source
 * address, and a multipath route, which cannot be listed. */
static void configure(void) {
        IP_A_DO("addr", "add", NET ".1.1/24", "dev", pair.dev_a);
        IP_A_DO("addr", "add", SECOND6 "/64", "dev", pair.dev_a);
        wait_dad();
        IP_A_DO("route", "add", "default", "via", NET ".0.2", "dev", pair.dev_a);
        IP_A_DO("route", "add", "192.0.2.0/24", "via", NET ".0.2", "dev", pair.dev_a, "table", "100",
                "metric", "50", "src", NET ".0.1", "proto", "static");
        IP_A_DO("route", "add", "169.254.1.1", "dev", pair.dev_a, "scope", "link", "table", "100");
        IP_A_DO("route", "add", "default", "via", "169.254.1.1", "dev", pair.dev_a, "table", "100");
        IP_A_DO("route", "add", "198.51.100.0/24", "via", NET ".0.2", "dev", pair.dev_a, "mtu", "1400");
        IP_A_DO("-6", "route", "add", "default", "via", NET6 "2", "dev", pair.dev_a);
        IP_A_DO("-6", "route", "add", "2001:db8::/64", "via", NET6 "2", "dev", pair.dev_a, "src", SECOND6,
                "metric", "77");
        IP_A_DO("route", "add", "203.0.113.0/24", "nexthop", "via", NET ".0.2", "dev", pair.dev_a, "nexthop",
                "via", NET ".0.3", "dev", pair.dev_a);
}

/* The record of the configured link: what it must hold. */
static void check_record(const struct snapshot *s) {
        print_snapshot("before", s);
        /* 2 IPv4, fd00:d3::1, fd00:d3::11 and the link-local address. */
        assert_int_equal(s->na, 5);
        assert_int_equal(count_family(s, AF_INET6, false), 3);
        /* IPv4: two prefix routes, default, 198.51.100.0/24; table 100: three.
         * IPv6: fd00:d3::/64, fe80::/64, default, 2001:db8::/64. */
        assert_int_equal(count_family(s, AF_INET, true), 7);
        assert_int_equal(count_family(s, AF_INET6, true), 4);
        assert_int_equal(s->skipped, 1); /* the multipath route */
        /* No route with a gateway before one without. */
        for (size_t i = 1; i < s->nr; i++)
                assert_false(s->r[i - 1].has_gateway && !s->r[i].has_gateway);

        const struct rtnl_addr *a = find_addr(s, AF_INET6, SECOND6);
        assert_non_null(a);
        assert_int_equal(a->flags & (IFA_F_NODAD | IFA_F_TENTATIVE), 0); /* went through DAD */
        assert_true(a->flags & IFA_F_PERMANENT);
        assert_int_equal(a->valid_lft, UINT32_MAX);
        a = find_addr(s, AF_INET6, NET6 "1");
        assert_non_null(a);
        assert_true(a->flags & IFA_F_NODAD); /* netns-pair adds it with nodad */
        a = find_addr(s, AF_INET, NET ".0.1");
        assert_non_null(a);
        assert_string_equal(a->label, pair.dev_a);
        const struct rtnl_route *r = find_route(s, AF_INET, "192.0.2.0", 100);
        assert_non_null(r);
        assert_int_equal(r->priority, 50);
        assert_int_equal(r->protocol, RTPROT_STATIC);
        assert_true(r->has_prefsrc && r->has_gateway);
        r = find_route(s, AF_INET, "198.51.100.0", RT_TABLE_MAIN);
        assert_non_null(r);
        assert_true(r->metrics_len >= 8);
        r = find_route(s, AF_INET6, "2001:db8::", RT_TABLE_MAIN);
        assert_non_null(r);
        assert_int_equal(r->priority, 77);
        assert_true(r->has_prefsrc);
}

static void test_addr_route_restore(void **state) {
        (void)state;
        char out[4096], line[512];

        configure();
        struct ip_view v = ip_view("configured");
        assert_non_null(strstr(v.multipath, "203.0.113.0/24"));
        ip_view_done(&v);
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_BEFORE, 0, NULL, 0), 0);
        check_record(&snaps[SNAP_BEFORE]);

        /* Down: the kernel flushes every IPv6 address and every route but
         * the IPv4 local ones. */
        assert_int_equal(op_in(pair.a, OP_LINK_DOWN, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_CHANGED, 0, NULL, 0), 0);
        const struct snapshot *down = &snaps[SNAP_CHANGED];
        print_snapshot("down", down);
        assert_int_equal(down->na, 2);
        assert_int_equal(count_family(down, AF_INET6, false), 0);
        assert_int_equal(down->nr, 0);
        assert_int_equal(down->skipped, 0);
        v = ip_view("down");
        assert_null(strstr(v.addr, "inet6"));
        assert_non_null(strstr(v.addr, "inet " NET ".0.1/24"));
        assert_non_null(strstr(v.addr, "inet " NET ".1.1/24"));
        assert_null(strstr(v.route4, "via"));
        assert_null(strstr(v.route4, "proto kernel scope link"));
        assert_non_null(strstr(v.route4, "local " NET ".0.1 "));
        assert_string_equal(v.route6, "");
        ip_view_done(&v);

        /* Up: only what the kernel derives comes back. */
        assert_int_equal(op_in(pair.a, OP_LINK_UP, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_CHANGED, 0, NULL, 0), 0);
        print_snapshot("up", down);
        v = ip_view("up");
        assert_null(strstr(v.addr, NET6));
        assert_null(strstr(v.route4, "via"));
        ip_view_done(&v);

        /* Put back: addresses first, then routes, in the order listed. */
        assert_int_equal(
                op_snap(pair.a, OP_RESTORE, pair.dev_a, SNAP_BEFORE, RTNL_ADDR_ADD_NODAD, out, sizeof(out)),
                0);
        assert_non_null(strstr(out, " failed=0 "));
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_AFTER, 0, NULL, 0), 0);
        print_snapshot("restored", &snaps[SNAP_AFTER]);
        assert_snapshot_equal(&snaps[SNAP_BEFORE], &snaps[SNAP_AFTER]);
        assert_int_equal(snaps[SNAP_AFTER].skipped, 0); /* the multipath route stays gone */
        v = ip_view("restored");
        assert_non_null(line_with(v.addr, "inet6 " SECOND6 "/64", line, sizeof(line)));
        assert_null(strstr(line, "tentative"));
        assert_non_null(strstr(line, "nodad"));
        assert_non_null(strstr(v.route4, "default via " NET ".0.2 \n"));
        assert_non_null(strstr(
                v.route4, "192.0.2.0/24 via " NET ".0.2 table 100 proto static src " NET ".0.1 metric 50"));
        assert_non_null(strstr(v.route4, "default via 169.254.1.1 table 100"));
        assert_non_null(strstr(v.route4, "198.51.100.0/24 via " NET ".0.2 mtu 1400"));
        assert_string_equal(v.multipath, "");
        assert_non_null(strstr(v.route6, "2001:db8::/64 via " NET6 "2 src " SECOND6 " metric 77"));
        assert_non_null(strstr(v.route6, "default via " NET6 "2 metric 1024"));
        ip_view_done(&v);

        /* Again: everything is present, nothing changes. */
        assert_int_equal(
                op_snap(pair.a, OP_RESTORE, pair.dev_a, SNAP_BEFORE, RTNL_ADDR_ADD_NODAD, out, sizeof(out)),
                0);
        assert_non_null(strstr(out, "added=0 present=16 failed=0 "));
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_AFTER, 0, NULL, 0), 0);
        assert_snapshot_equal(&snaps[SNAP_BEFORE], &snaps[SNAP_AFTER]);
}

/* Without NODAD an address put back is tentative for a second or more, and a
 * route with it as its source cannot be added meanwhile. */
static void test_addr_readd_dad(void **state) {
        (void)state;
        char out[4096], line[512];

        configure();
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_BEFORE, 0, NULL, 0), 0);
        check_record(&snaps[SNAP_BEFORE]);
        assert_int_equal(op_in(pair.a, OP_LINK_DOWN, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_in(pair.a, OP_LINK_UP, pair.dev_a, NULL, 0), 0);

        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int r = op_snap(pair.a, OP_RESTORE, pair.dev_a, SNAP_BEFORE, 0, out, sizeof(out));
        assert_int_equal(r, -EINVAL);
        assert_non_null(strstr(out, " failed=1 "));
        assert_non_null(strstr(out, "adding route 2001:db8::/64 via " NET6 "2"));
        char *a = IP_A("-o", "addr", "show", "dev", pair.dev_a);
        print_message("  iproute2 re-added without nodad:\n");
        print_lines(a);
        assert_non_null(line_with(a, "inet6 " SECOND6 "/64", line, sizeof(line)));
        assert_non_null(strstr(line, "tentative"));
        free(a);

        /* Once DAD is done the route goes in. */
        wait_dad();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        print_message(
                "  tentative for %.2f s at most\n",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        assert_int_equal(op_snap(pair.a, OP_RESTORE, pair.dev_a, SNAP_BEFORE, 0, out, sizeof(out)), 0);
        assert_non_null(strstr(out, "added=1 "));
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_AFTER, 0, NULL, 0), 0);
        assert_snapshot_equal(&snaps[SNAP_BEFORE], &snaps[SNAP_AFTER]);
}

/* An MTU below 1280 drops the link's IPv6 (addresses, routes, per-link
 * sysctls); IPv4 keeps everything. */
static void test_mtu_below_ipv6_minimum(void **state) {
        (void)state;
        char out[4096];
        const char *sysctl_get[] = { "ip", "netns", "exec", pair.a, "sysctl", "-n", NULL, NULL };
        char key[96];

        configure();
        (void)snprintf(key, sizeof(key), "net.ipv6.conf.%s.hop_limit=33", pair.dev_a);
        const char *sysctl_set[] = { "ip", "netns", "exec", pair.a, "sysctl", "-qw", key, NULL };
        struct cmd_result c = run_command("/", sysctl_set);
        assert_int_equal(c.exit, 0);
        cmd_result_done(&c);
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_BEFORE, 0, NULL, 0), 0);
        check_record(&snaps[SNAP_BEFORE]);

        assert_int_equal(op_in(pair.a, OP_MTU_1200, pair.dev_a, NULL, 0), 0);
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_CHANGED, 0, NULL, 0), 0);
        const struct snapshot *low = &snaps[SNAP_CHANGED];
        print_snapshot("mtu 1200", low);
        assert_int_equal(count_family(low, AF_INET6, false), 0);
        assert_int_equal(count_family(low, AF_INET6, true), 0);
        assert_int_equal(count_family(low, AF_INET, false), 2);
        assert_int_equal(count_family(low, AF_INET, true), 7);
        assert_int_equal(low->skipped, 1);
        struct ip_view v = ip_view("mtu 1200");
        assert_null(strstr(v.addr, "inet6"));
        assert_string_equal(v.route6, "");
        assert_non_null(strstr(v.multipath, "203.0.113.0/24"));
        ip_view_done(&v);

        assert_int_equal(op_in(pair.a, OP_MTU_1500, pair.dev_a, NULL, 0), 0);
        v = ip_view("mtu 1500");
        assert_null(strstr(v.addr, NET6));
        assert_non_null(strstr(v.addr, "inet6 fe80::"));
        ip_view_done(&v);
        key[strlen(key) - 3] = '\0'; /* without "=33" */
        sysctl_get[6] = key;
        c = run_command("/", sysctl_get);
        assert_int_equal(c.exit, 0);
        print_message("  %s after the MTU came back: %s", key, c.out);
        assert_string_equal(c.out, "64\n"); /* the default again, not 33 */
        cmd_result_done(&c);

        assert_int_equal(
                op_snap(pair.a, OP_RESTORE, pair.dev_a, SNAP_BEFORE, RTNL_ADDR_ADD_NODAD, out, sizeof(out)),
                0);
        assert_int_equal(op_snap(pair.a, OP_RECORD, pair.dev_a, SNAP_AFTER, 0, NULL, 0), 0);
        print_snapshot("restored", &snaps[SNAP_AFTER]);
        assert_snapshot_equal(&snaps[SNAP_BEFORE], &snaps[SNAP_AFTER]);
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
        snaps = mmap(
                NULL, SNAP_MAX * sizeof(*snaps), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (snaps == MAP_FAILED) {
                perror("mmap");
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probes),
                cmocka_unit_test_setup_teardown(test_tbf_egress, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ingress_redirect, setup, teardown),
                cmocka_unit_test_setup_teardown(test_foreign_untouched, setup, teardown),
                cmocka_unit_test_setup_teardown(test_link_state_and_mtu, setup, teardown),
                cmocka_unit_test_setup_teardown(test_addr_route_restore, setup, teardown),
                cmocka_unit_test_setup_teardown(test_addr_readd_dad, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mtu_below_ipv6_minimum, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
