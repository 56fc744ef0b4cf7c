/* The NFQUEUE shaper on a veth pair, side by side in one run: how far the
 * delay it adds is from the one asked for (RTT with the shaper minus the
 * baseline RTT minus 20 ms, p50 and p99, next to the shaper's own lateness
 * figures), and how many packets per second it holds and releases at 1k and
 * 10k pps offered (udp_blast for ~3 s through delay 20 ms; received counted by
 * a sink on the far side; late p50/p99, overflow, socket overruns, and verdicts
 * per send() from its stats). It never fails on timing.
 *
 * The shaper runs in a child entered into side a's netns (tests/common/
 * shaper-child.c); an iptables-nft NFQUEUE rule with bypass in that netns
 * feeds it (test bed only: production rules come from the fault layer).
 * Needs root; the namespaces are removed at the end, on failure too.
 *
 * usage: bench-shaper [SECONDS]   (load duration 1..30, default 3) */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/parse-number.h"
#include "common/netns-pair.h"
#include "common/netprobe.h"
#include "common/run-command.h"
#include "common/shaper-child.h"

#define PREFIX       "mhsqb"
#define SUBNET       213
#define QUEUE        2139
#define PORT_ECHO    7141
#define PORT_SINK    7142
#define DELAY_MS     20u
#define PROBES       500u
#define PROBE_GAP_US 5000u
#define SECONDS_MAX  30
#define LINE_MAX_LEN 1200

static struct netns_pair pair;
static struct shaper_child child = { .pid = -1, .cmd_fd = -1, .out_fd = -1 };

struct rtt {
        unsigned sent, received;
        double p50, p99;
};

static int reflect(void *arg, int out) {
        (void)arg;
        dprintf(out, "%d", udp_reflector(PORT_ECHO, 1500, 60000));
        return 0;
}

static int probe(void *arg, int out) {
        (void)arg;
        struct udp_rtt_result r;
        if (udp_rtt_probe(pair.addr_b, PORT_ECHO, PROBES, PROBE_GAP_US, 500, &r) < 0)
                return 1;
        dprintf(out, "%u %u %.4f %.4f", r.sent, r.received, percentile(r.rtt_ms, r.received, 50),
                percentile(r.rtt_ms, r.received, 99));
        udp_rtt_result_done(&r);
        return 0;
}

static int measure_rtt(struct rtt *m) {
        int srv_fd, cli_fd;
        char srv_out[64], cli_out[128];
        pid_t srv = netns_fork(pair.b, reflect, NULL, &srv_fd);
        if (srv < 0)
                return -1;
        usleep(100000);
        pid_t cli = netns_fork(pair.a, probe, NULL, &cli_fd);
        int r = cli < 0 ? -1 : netns_collect(cli, cli_fd, cli_out, sizeof(cli_out));
        netns_collect(srv, srv_fd, srv_out, sizeof(srv_out));
        if (r != 0 || sscanf(cli_out, "%u %u %lf %lf", &m->sent, &m->received, &m->p50, &m->p99) != 4)
                return -1;
        return 0;
}

struct load {
        unsigned count, pps;
};

static int sink(void *arg, int out) {
        (void)arg;
        struct udp_sink_result r;
        if (udp_sink(PORT_SINK, 1000, 60000, &r) < 0)
                return 1;
        dprintf(out, "%u %u", r.received, r.unique);
        return 0;
}

static int blast(void *arg, int out) {
        const struct load *l = arg;
        (void)out;
        return udp_blast(pair.addr_b, PORT_SINK, l->count, l->pps, 64) < 0;
}

static int run_load(const struct load *l, unsigned *ret_unique, double *ret_ms) {
        int srv_fd, cli_fd;
        char srv_out[64], cli_out[8];
        unsigned received;
        pid_t srv = netns_fork(pair.b, sink, NULL, &srv_fd);
        if (srv < 0)
                return -1;
        usleep(100000);
        double t0 = monotonic_ms();
        pid_t cli = netns_fork(pair.a, blast, (void *)l, &cli_fd);
        int r = cli < 0 ? -1 : netns_collect(cli, cli_fd, cli_out, sizeof(cli_out));
        *ret_ms = monotonic_ms() - t0;
        if (netns_collect(srv, srv_fd, srv_out, sizeof(srv_out)) != 0 || r != 0 ||
            sscanf(srv_out, "%u %u", &received, ret_unique) != 2)
                return -1;
        return 0;
}

static int rule(const char *op) {
        const char *argv[] = { "ip", "netns",   "exec",        pair.a, "iptables-nft",
                               "-w", op,        "OUTPUT",      "-d",   pair.addr_b,
                               "-j", "NFQUEUE", "--queue-num", "2139", "--queue-bypass",
                               NULL };
        struct cmd_result r = run_command(NULL, argv);
        int code = r.exit;
        if (code != 0)
                fprintf(stderr, "bench: iptables-nft %s: exit %d: %s\n", op, code, r.err);
        cmd_result_done(&r);
        return code == 0 ? 0 : -1;
}

static int shaper_begin(uint32_t delay_ms) {
        char err[LINE_MAX_LEN] = "";
        struct shaper_config c = { .delay_ms = delay_ms };
        if (shaper_child_start(&child, pair.a, QUEUE, &c, err, sizeof(err)) < 0) {
                fprintf(stderr, "bench: shaper: %s\n", err);
                return -1;
        }
        return 0;
}

static int shaper_end(char *line, size_t size) {
        if (shaper_child_stop(&child, line, size) != 0) {
                fprintf(stderr, "bench: shaper stop: %s\n", line);
                return -1;
        }
        return 0;
}

static int bench_delay(double base_p50) {
        struct rtt m;
        char line[LINE_MAX_LEN];
        if (shaper_begin(DELAY_MS) < 0 || measure_rtt(&m) < 0 || shaper_end(line, sizeof(line)) < 0)
                return -1;
        printf("delay %u ms: %u/%u echoed; RTT p50 %.3f ms p99 %.3f ms; error (RTT - baseline p50 - %u ms) "
               "p50 %+.3f ms p99 %+.3f ms\n",
               DELAY_MS, m.received, m.sent, m.p50, m.p99, DELAY_MS, m.p50 - base_p50 - DELAY_MS,
               m.p99 - base_p50 - DELAY_MS);
        printf("delay %u ms: shaper lateness (verdict sent - due) p50 %.0f us p99 %.0f us max %.0f us\n",
               DELAY_MS, shaper_child_statf(line, "late_p50"), shaper_child_statf(line, "late_p99"),
               shaper_child_statf(line, "late_max"));
        return 0;
}

static int bench_load(unsigned pps, unsigned seconds, double *ret_pps) {
        struct load l = { pps * seconds, pps };
        char line[LINE_MAX_LEN];
        unsigned unique;
        double ms;
        if (shaper_begin(DELAY_MS) < 0 || run_load(&l, &unique, &ms) < 0 ||
            shaper_end(line, sizeof(line)) < 0)
                return -1;
        uint64_t released = shaper_child_stat(line, "released"), msgs = shaper_child_stat(line, "msgs"),
                 sends = shaper_child_stat(line, "sends");
        *ret_pps = (double)released / (ms / 1000);
        printf("load %5u pps offered for %.2f s: %u/%u received (%.2f%% lost); held and released %.0f pps; "
               "immediate %" PRIu64 " overflow %" PRIu64 " overruns %" PRIu64 " errors %" PRIu64 "\n",
               pps, ms / 1000, unique, l.count, 100.0 * (l.count - unique) / l.count, *ret_pps,
               shaper_child_stat(line, "immediate"), shaper_child_stat(line, "overflow"),
               shaper_child_stat(line, "overruns"), shaper_child_stat(line, "errors"));
        printf("load %5u pps: late p50 %.0f us p99 %.0f us max %.0f us; held at most %" PRIu64
               "; %.2f verdicts per send()\n",
               pps, shaper_child_statf(line, "late_p50"), shaper_child_statf(line, "late_p99"),
               shaper_child_statf(line, "late_max"), shaper_child_stat(line, "held_max"),
               sends ? (double)msgs / (double)sends : 0);
        return 0;
}

static int run(unsigned seconds) {
        struct rtt base;
        double pps_1k, pps_10k;

        if (rule("-A") < 0)
                return -1;
        /* The rule's bypass with no queue bound: the baseline goes through the rule too. */
        if (measure_rtt(&base) < 0)
                return -1;
        printf("baseline (rule present, no shaper): RTT p50 %.3f ms p99 %.3f ms, %u/%u echoed\n", base.p50,
               base.p99, base.received, base.sent);
        if (bench_delay(base.p50) < 0 || bench_load(1000, seconds, &pps_1k) < 0 ||
            bench_load(10000, seconds, &pps_10k) < 0)
                return -1;
        printf("ratio 10k/1k offered: held-and-released rate x%.2f (ideal x10.00)\n", pps_10k / pps_1k);
        return 0;
}

int main(int argc, char **argv) {
        int64_t seconds = 3;
        if (argc > 2 ||
            (argc == 2 && (parse_int64(argv[1], &seconds) < 0 || seconds < 1 || seconds > SECONDS_MAX))) {
                fprintf(stderr, "usage: bench-shaper [SECONDS]   (1..%d)\n", SECONDS_MAX);
                return 2;
        }
        if (geteuid() != 0) {
                fprintf(stderr, "bench-shaper: needs root (network namespaces, NFQUEUE)\n");
                return 77;
        }
        if (netns_pair_create(&pair, PREFIX, SUBNET) < 0)
                return 1;
        printf("NFQUEUE shaper on a veth pair (%s <-> %s), delay %u ms\n", pair.a, pair.b, DELAY_MS);
        int r = run((unsigned)seconds);
        shaper_child_kill(&child);
        netns_pair_destroy(&pair);
        return r < 0 ? 1 : 0;
}
