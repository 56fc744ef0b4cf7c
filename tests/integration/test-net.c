/* Network faults on real containers (dockerd), through the whole tool: a
 * drill run with --execute, its agent, the impact gate on this kernel. Every
 * effect is measured from outside the target (the host, or the peer
 * container), while the fault is held; after each run, and after SIGKILL of
 * the agent mid-fault, a residue scan of the target's netns (nft, tc and ip
 * from the host through nsenter) finds nothing of ours and traffic is back to
 * baseline. The target image has no shell and no iproute2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "common/net-assert.h"
#include "common/netprobe.h"
#include "common/proc-stat.h"
#include "demo-harness.h"
#include "engine/engine.h"

#define TARGET  "mayhem-net-target"
#define PEER    "mayhem-net-peer"
#define COMPOSE "tests/data/compose/net/compose.yaml"
#define HOLD_S  6

static struct demo demo;
static char target_ip[64], peer_ip[64];
static int target_pid;
static double baseline_ms;

/* ---- the stack ------------------------------------------------------------------- */

static void remove_stack(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", TARGET, PEER, NULL });
        cmd_result_done(&r);
}

/* ---- drills ----------------------------------------------------------------------- */

/* Writes a one-fault drill on the target: fault and its flow-style params. */
static void write_drill(char *path, size_t size, const char *fault, const char *params) {
        snprintf(path, size, "%s.drill.yaml", demo.db);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: net\ncontainers:\n  " TARGET ":\n    faults:\n"
                "      - {fault: %s, duration: %ds%s%s}\nexecution:\n  - parallel: [" TARGET "]\n",
                fault, HOLD_S, params[0] ? ", " : "", params);
        fclose(f);
}

static pid_t run_drill(const char *fault, const char *params) {
        char path[128];
        demo_fresh_db(&demo);
        write_drill(path, sizeof(path), fault, params);
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", path, "-c", COMPOSE, "--execute", NULL });
        assert_true(pid > 0);
        return pid;
}

/* Waits until the run's log says the fault is in force. */
static void wait_in_force(pid_t pid) {
        for (double until = monotonic_ms() + 15000; monotonic_ms() < until; sleep_ms(50)) {
                char *log = demo_spawn_log(&demo);
                bool yes = strstr(log, "in force:") != NULL;
                free(log);
                if (yes)
                        return;
                if (waitpid(pid, NULL, WNOHANG) == pid)
                        break;
        }
        char *log = demo_spawn_log(&demo);
        fail_msg("the fault never came into force:\n%s", log);
}

static void wait_done(pid_t pid) {
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                char *log = demo_spawn_log(&demo);
                fail_msg("mayhem run exited %d:\n%s", WIFEXITED(status) ? WEXITSTATUS(status) : -1, log);
        }
}

/* ---- residue: the target's netns seen from the host --------------------------------- */

static char *in_target(const char *const *argv) {
        return demo_in_netns(target_pid, argv);
}

static bool residue(char *why, size_t size) {
        return demo_net_residue(target_pid, why, size);
}

static void assert_no_residue(void) {
        char why[700];
        if (residue(why, sizeof(why)))
                fail_msg("residue in the target's netns: %s", why);
}

/* ---- measurements from the host ------------------------------------------------------ */

struct rtt {
        double p50, p10, p90;
        unsigned sent, received, duplicates, reordered;
};

static struct rtt measure_rtt(unsigned count) {
        struct udp_rtt_result r;
        struct rtt out = { 0 };
        assert_int_equal(udp_rtt_probe(target_ip, 7001, count, 1000, 1000, &r), 0);
        out.sent = r.sent, out.received = r.received, out.duplicates = r.duplicates,
        out.reordered = r.reordered;
        if (r.received) {
                out.p50 = percentile(r.rtt_ms, r.received, 50);
                out.p10 = percentile(r.rtt_ms, r.received, 10);
                out.p90 = percentile(r.rtt_ms, r.received, 90);
        }
        udp_rtt_result_done(&r);
        return out;
}

static void assert_added(double measured, double want, const char *what) {
        assert_added_ms(measured, baseline_ms, want, what);
}

static unsigned echoes_lost(void) {
        struct rtt r = measure_rtt(2000);
        return r.sent - r.received;
}

static unsigned echoes_twice(void) {
        return measure_rtt(2000).duplicates;
}

/* The outcome of a TCP connection from inside the peer container to the target's port. */
static char *peer_connect(const char *addr, const char *port) {
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ "docker", "exec", PEER, "/nettool", "connect", addr, port, NULL });
        char *out = strdup(r.out ? r.out : "");
        cmd_result_done(&r);
        out[strcspn(out, "\n")] = '\0';
        return out;
}

static void assert_outcome(int got, int want, const char *what) {
        print_message("%s: %s\n", what, got == 0 ? "connected" : strerror(-got));
        assert_int_equal(got, want);
}

/* ---- the cases ------------------------------------------------------------------------- */

static void latency_case(const char *params, double want, const char *what) {
        pid_t pid = run_drill("net.latency", params);
        wait_in_force(pid);
        struct rtt r = measure_rtt(200);
        assert_added(r.p50, want, what);
        wait_done(pid);
        assert_no_residue();
        assert_added(measure_rtt(100).p50, 0, "after the run");
}

/* The impact gate's choice is evidence: the last run's history holds the
 * delivery its progress log announced. */
static void assert_impact_recorded(const char *fault) {
        char delivery[16] = "";
        char *log = demo_spawn_log(&demo), *at = strstr(log, "delivered by ");
        if (!at || sscanf(at, "delivered by %15s", delivery) != 1)
                fail_msg("%s: the run announced no delivery:\n%s", fault, log);
        free(log);
        json_t *runs = INSPECT(&demo, "runs");
        const char *run_id = json_string_value(json_object_get(json_array_get(runs, 0), "id"));
        assert_non_null(run_id);
        json_t *h = INSPECT(&demo, "history", run_id);
        size_t i;
        json_t *ev;
        bool found = false;
        json_array_foreach(json_object_get(h, "events"), i, ev) {
                const char *d = json_string_value(json_object_get(json_object_get(ev, "payload"), "f-0001"));
                found = found ||
                        (strcmp(json_string_value(json_object_get(ev, "kind")), "impact.decided") == 0 &&
                         d && strcmp(d, delivery) == 0);
        }
        if (!found)
                fail_msg(
                        "%s: no impact.decided event with f-0001 %s in the history of %s", fault, delivery,
                        run_id);
        json_decref(h);
        json_decref(runs);
}

static void test_latency(void **state) {
        (void)state;
        latency_case("delay_ms: 50", 50, "net.latency 50 ms");
        latency_case("delay_ms: 100", 100, "net.latency 100 ms");
        latency_case("delay_ms: 200", 200, "net.latency 200 ms");
        latency_case("delay_ms: 50, direction: both", 100, "net.latency 50 ms both ways");
        latency_case("delay_ms: 60, direction: ingress", 60, "net.latency 60 ms ingress");
        pid_t pid = run_drill("net.latency", "delay_ms: 100, jitter_ms: 20");
        wait_in_force(pid);
        struct rtt r = measure_rtt(300);
        print_message("jitter 20 ms: p10 %.1f p50 %.1f p90 %.1f ms\n", r.p10, r.p50, r.p90);
        assert_true(r.p90 - r.p10 > 15);
        wait_done(pid);
        assert_no_residue();
        assert_impact_recorded("net.latency");
}

static void test_loss_reorder_duplicate(void **state) {
        (void)state;
        pid_t pid = run_drill("net.packet_loss", "percent: 30");
        wait_in_force(pid);
        ASSERT_BINOMIAL(echoes_lost(), 2000, 0.30, "net.packet_loss 30 % (echoes lost)");
        wait_done(pid);
        assert_no_residue();
        pid = run_drill("net.reorder", "percent: 30, delay_ms: 20");
        wait_in_force(pid);
        struct rtt r = measure_rtt(1000);
        print_message("net.reorder: %u of %u echoes out of order\n", r.reordered, r.received);
        assert_true(r.reordered > 50);
        wait_done(pid);
        assert_no_residue();
        pid = run_drill("net.corrupt", "percent: 20");
        wait_in_force(pid);
        ASSERT_BINOMIAL(echoes_lost(), 2000, 0.20, "net.corrupt 20 % (echoes fail their magic)");
        wait_done(pid);
        assert_no_residue();
        pid = run_drill("net.duplicate", "percent: 40");
        wait_in_force(pid);
        ASSERT_BINOMIAL(echoes_twice(), 2000, 0.40, "net.duplicate 40 % (echoes twice)");
        wait_done(pid);
        assert_no_residue();
        assert_int_equal(measure_rtt(500).received, 500);
}

static void test_bandwidth(void **state) {
        (void)state;
        double before = tcp_fetch_rate(target_ip, 7030, 4000);
        pid_t pid = run_drill("net.bandwidth", "rate: 8mbit");
        wait_in_force(pid);
        double bps = tcp_fetch_rate(target_ip, 7030, 4000);
        print_message("net.bandwidth 8mbit: %.2f Mbit/s (before: %.0f Mbit/s)\n", bps / 1e6, before / 1e6);
        assert_true(fabs(bps - 8e6) <= 8e6 * 0.15);
        wait_done(pid);
        assert_no_residue();
        assert_true(tcp_fetch_rate(target_ip, 7030, 4000) > 100e6);
}

static void test_partition_reset_refuse(void **state) {
        (void)state;
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), 0, "before");
        pid_t pid = run_drill("net.partition", "");
        wait_in_force(pid);
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), -ETIMEDOUT, "net.partition");
        wait_done(pid);
        assert_no_residue();
        pid = run_drill("net.connection_reset", "port: 7020");
        wait_in_force(pid);
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), -ECONNRESET, "net.connection_reset 7020");
        assert_outcome(tcp_connect_outcome(target_ip, 7021, 1000), 0, "port 7021 during the reset");
        wait_done(pid);
        assert_no_residue();
        pid = run_drill("net.connection_refuse", "port: 7020");
        wait_in_force(pid);
        assert_outcome(
                tcp_connect_outcome(target_ip, 7020, 1000), -ECONNREFUSED, "net.connection_refuse 7020");
        wait_done(pid);
        assert_no_residue();
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), 0, "after");
}

/* targets: narrows the partition to the peer container; the host is not in scope. */
static void test_scoped_to_peer(void **state) {
        (void)state;
        char *out = peer_connect(target_ip, "7020");
        assert_string_equal(out, "ok");
        free(out);
        pid_t pid = run_drill("net.partition", "targets: [" PEER "]");
        wait_in_force(pid);
        out = peer_connect(target_ip, "7020");
        print_message("scoped partition: peer -> target %s; host -> target ", out);
        assert_string_equal(out, "ETIMEDOUT");
        free(out);
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), 0, "host (not in scope)");
        wait_done(pid);
        assert_no_residue();
        out = peer_connect(target_ip, "7020");
        assert_string_equal(out, "ok");
        free(out);
}

/* mayhem-agent processes that are children of parent. */
static int agent_of(pid_t parent) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        int found = -1;
        while (d && found < 0 && (de = readdir(d))) {
                int pid = (int)strtol(de->d_name, NULL, 10);
                struct proc_stat st;
                if (pid > 0 && proc_comm_is(pid, "mayhem-agent") && proc_stat_read(pid, &st) &&
                    st.ppid == parent && st.state != 'Z')
                        found = pid;
        }
        if (d)
                closedir(d);
        return found;
}

/* The agent dies holding a shaper delay and a tbf (with an IFB for ingress):
 * the kernel drops the owner tables and the queue with its sockets, the
 * guardian removes the qdiscs and the IFB; recover then closes the books. */
static void test_agent_sigkill(void **state) {
        (void)state;
        char path[128];
        demo_fresh_db(&demo);
        snprintf(path, sizeof(path), "%s.drill.yaml", demo.db);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "kind: drill\nname: net\ncontainers:\n  " TARGET ":\n    faults:\n"
                   "      - {fault: net.latency, duration: 20s, delay_ms: 100}\n"
                   "      - {fault: net.bandwidth, duration: 20s, rate: 2mbit, direction: both}\n"
                   "execution:\n  - parallel: [" TARGET "]\n");
        fclose(f);
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", path, "-c", COMPOSE, "--execute", NULL });
        for (double until = monotonic_ms() + 15000; monotonic_ms() < until; sleep_ms(50)) {
                char *log = demo_spawn_log(&demo);
                const char *second = strstr(log, "in force:");
                bool both = second && strstr(second + 1, "in force:");
                free(log);
                if (both)
                        break;
        }
        char why[700];
        assert_true(residue(why, sizeof(why)));
        int agent = agent_of(pid);
        assert_true(agent > 0);
        kill(agent, SIGKILL);
        double t0 = monotonic_ms();
        while (residue(why, sizeof(why)) && monotonic_ms() - t0 < 2000)
                sleep_ms(10);
        if (residue(why, sizeof(why)))
                fail_msg("2 s after the agent's SIGKILL: %s", why);
        print_message("agent SIGKILLed: no residue after %.0f ms\n", monotonic_ms() - t0);
        int status;
        waitpid(pid, &status, 0);
        assert_int_equal(WEXITSTATUS(status), 7);
        assert_added(measure_rtt(100).p50, 0, "after the agent died");
        json_t *runs = INSPECT(&demo, "runs");
        const char *run_id = json_string_value(json_object_get(json_array_get(runs, 0), "id"));
        assert_non_null(run_id);
        struct cmd_result r = MAYHEM(&demo, "recover", "execute", run_id);
        print_message("recover execute %s: exit %d\n", run_id, r.exit);
        if (r.exit != 0)
                fail_msg("recover: %s%s", r.out, r.err);
        cmd_result_done(&r);
        json_decref(runs);
        assert_no_residue();
}

/* The target's eth0 MTU, as `ip link` in its netns shows it. */
static unsigned target_mtu(void) {
        char *out = in_target((const char *const[]){ "ip", "-o", "link", "show", "eth0", NULL });
        const char *m = strstr(out, " mtu ");
        unsigned mtu = 0;
        if (!m || sscanf(m, " mtu %u", &mtu) != 1)
                fail_msg("ip link show eth0 in the target: %s", out);
        free(out);
        return mtu;
}

static void test_mtu_mismatch(void **state) {
        (void)state;
        unsigned before = target_mtu();
        pid_t pid = run_drill("net.mtu_mismatch", "mtu: 1280");
        wait_in_force(pid);
        assert_int_equal(target_mtu(), 1280);
        wait_done(pid);
        assert_int_equal(target_mtu(), before);
        print_message("net.mtu_mismatch: eth0 MTU 1280 while held, %u again after\n", before);
        assert_no_residue();
}

/* Whether eth0 in the target is up and its default route is there. */
static bool target_link_up(void) {
        char *link = in_target((const char *const[]){ "ip", "-o", "link", "show", "eth0", NULL });
        char *route = in_target((const char *const[]){ "ip", "route", "show", "default", NULL });
        bool up = strstr(link, ",UP") != NULL || strstr(link, "<UP") != NULL;
        bool routed = strstr(route, "default via") != NULL;
        free(link);
        free(route);
        return up && routed;
}

static void test_interface_down(void **state) {
        (void)state;
        assert_true(target_link_up());
        pid_t pid = run_drill("net.interface_down", "");
        wait_in_force(pid);
        assert_false(target_link_up());
        assert_int_equal(measure_rtt(20).received, 0);
        wait_done(pid);
        assert_true(target_link_up());
        struct rtt after = measure_rtt(100);
        assert_true(after.received > 90);
        assert_added(after.p50, 0, "after net.interface_down");
        print_message("net.interface_down: eth0 down while held (20 of 20 echoes lost), up with its default "
                      "route after\n");
        assert_no_residue();
}

int main(void) {
        struct engine_container c;
        int r = demo_up(&demo);
        if (r == 77 || demo_podman())
                return 77;
        remove_stack();
        if (r < 0 || !demo_run_service(TARGET, "net", "target") || !demo_run_service(PEER, "net", "peer") ||
            !demo_inspect_container(TARGET, &c)) {
                remove_stack();
                demo_down(&demo);
                return 1;
        }
        snprintf(target_ip, sizeof(target_ip), "%s", c.networks[0].ip);
        target_pid = c.pid;
        if (demo_inspect_container(PEER, &c))
                snprintf(peer_ip, sizeof(peer_ip), "%s", c.networks[0].ip);
        sleep_ms(300); /* nettool binds its ports */
        baseline_ms = measure_rtt(100).p50;
        printf("target %s (pid %d), peer %s, baseline RTT %.3f ms\n", target_ip, target_pid, peer_ip,
               baseline_ms);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_latency),        cmocka_unit_test(test_loss_reorder_duplicate),
                cmocka_unit_test(test_bandwidth),      cmocka_unit_test(test_partition_reset_refuse),
                cmocka_unit_test(test_scoped_to_peer), cmocka_unit_test(test_agent_sigkill),
                cmocka_unit_test(test_mtu_mismatch),   cmocka_unit_test(test_interface_down),
        };
        if (getenv("MH_TEST_FILTER"))
                cmocka_set_test_filter(getenv("MH_TEST_FILTER"));
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        remove_stack();
        demo_down(&demo);
        return failed;
}
