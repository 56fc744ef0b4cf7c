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

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "common/net-assert.h"
#include "common/netprobe.h"
#include "common/proc-stat.h"
#include "demo-harness.h"
#include "engine/engine.h"

/* The compose file's containers, with this process's pid appended to their
 * names (the test writes that copy): two checkouts running the test at once
 * do not take each other's containers. */
#define COMPOSE_SRC "tests/data/compose/net/compose.yaml"
/* How long a run holds its fault: the default, enough for a short sample
 * after the fault is seen in force; BINOMIAL_HOLD_S for up to two samples
 * of 2000 echoes (3 s and more each) with room for a loaded machine; and
 * RATE_HOLD_S for a 4.5 s bandwidth fetch. */
#define HOLD_S          6
#define BINOMIAL_HOLD_S 20
#define RATE_HOLD_S     12
/* A run ends within its hold and this (its undo, verify and evidence). */
#define RUN_AFTER_S 120
#define READY_MS    10000 /* for nettool to answer after docker run */

static struct demo demo;
static char target_ip[64], peer_ip[64], target[64], peer[64], compose[128];
static int target_pid;
static double baseline_ms;

/* ---- the stack ------------------------------------------------------------------- */

static void remove_stack(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", target, peer, NULL });
        cmd_result_done(&r);
}

/* The compose file with each container_name NAME as NAME-PID, at compose. */
static bool write_compose(void) {
        char src[700], line[512];
        snprintf(src, sizeof(src), "%s/%s", demo.root, COMPOSE_SRC);
        FILE *in = fopen(src, "re"), *out = fopen(compose, "we");
        bool ok = in && out;
        while (ok && fgets(line, sizeof(line), in)) {
                line[strcspn(line, "\n")] = '\0';
                ok = (strstr(line, "container_name: ") ? fprintf(out, "%s-%d\n", line, (int)getpid())
                                                       : fprintf(out, "%s\n", line)) > 0;
        }
        if (in)
                fclose(in);
        return out && fclose(out) == 0 && ok;
}

/* ---- drills ----------------------------------------------------------------------- */

/* Writes a one-fault drill on the target: fault and its flow-style params. */
static void write_drill(char *path, size_t size, const char *fault, const char *params, int hold_s) {
        snprintf(path, size, "%s.drill.yaml", demo.db);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: net\ncontainers:\n  %s:\n    faults:\n"
                "      - {fault: %s, duration: %ds%s%s}\nexecution:\n  - parallel: [%s]\n",
                target, fault, hold_s, params[0] ? ", " : "", params, target);
        fclose(f);
}

/* A run of the one-fault drill, its fault held for hold_s. */
struct run {
        pid_t pid;
        int hold_s;
        double held_until; /* by wait_in_force: before this the fault is surely held */
};

static struct run run_drill_for(const char *fault, const char *params, int hold_s) {
        char path[128];
        demo_fresh_db(&demo);
        write_drill(path, sizeof(path), fault, params, hold_s);
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", path, "-c", compose, "--execute", NULL });
        assert_true(pid > 0);
        return (struct run){ .pid = pid, .hold_s = hold_s };
}

static struct run run_drill(const char *fault, const char *params) {
        return run_drill_for(fault, params, HOLD_S);
}

/* Waits until the run's log says the fault is in force. The run holds it
 * from its "in force:" line on, which came at most one poll (and a log
 * read) before the test saw it: 1 s off the hold is a safe margin. */
static void wait_in_force(struct run *run) {
        for (double until = monotonic_ms() + 15000; monotonic_ms() < until; sleep_ms(50)) {
                char *log = demo_spawn_log(&demo);
                bool yes = strstr(log, "in force:") != NULL;
                free(log);
                if (yes) {
                        run->held_until = monotonic_ms() + run->hold_s * 1000.0 - 1000;
                        return;
                }
                if (waitpid(run->pid, NULL, WNOHANG) == run->pid)
                        break;
        }
        char *log = demo_spawn_log(&demo);
        fail_msg("the fault never came into force:\n%s", log);
}

/* The run is still holding its fault: within its hold, not exited (a zombie
 * until wait_done reaps it), no undo logged. A sample that ended when this
 * is false was not all taken under the fault. */
static bool still_held(const struct run *run) {
        char state = proc_state_of(run->pid);
        char *log = demo_spawn_log(&demo);
        bool undone = strstr(log, "undone and verified") != NULL;
        free(log);
        return monotonic_ms() < run->held_until && state != 'Z' && state != '-' && !undone;
}

/* A sample measured while the run holds its fault, or the test fails
 * saying the machine was too slow for the hold (not a wrong figure). */
static void assert_sampled_held(const struct run *run, const char *what) {
        if (!still_held(run))
                fail_msg("%s: the sample ended after the run's %d s hold; not judged", what, run->hold_s);
}

/* The run's exit status; one still going RUN_AFTER_S past its hold is
 * stopped (SIGTERM: it undoes; SIGKILL 30 s later) and the test fails
 * with its log. */
static int wait_exit(pid_t pid, int hold_s) {
        int status = 0;
        pid_t r;
        double t0 = monotonic_ms();
        while ((r = waitpid(pid, &status, WNOHANG)) == 0 &&
               monotonic_ms() - t0 < (hold_s + RUN_AFTER_S) * 1000.0)
                sleep_ms(20);
        if (r == 0) {
                kill(pid, SIGTERM);
                for (double t1 = monotonic_ms(); waitpid(pid, &status, WNOHANG) == 0; sleep_ms(20))
                        if (monotonic_ms() - t1 > 30000) {
                                kill(pid, SIGKILL);
                                waitpid(pid, &status, 0);
                                break;
                        }
                char *log = demo_spawn_log(&demo);
                fail_msg(
                        "mayhem run still going %d s after its %d s hold, stopped:\n%s", RUN_AFTER_S, hold_s,
                        log);
        }
        if (r != pid)
                fail_msg("waitpid %d: %s", (int)pid, strerror(errno));
        return status;
}

static void wait_done(const struct run *run) {
        int status = wait_exit(run->pid, run->hold_s);
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

/* ASSERT_BINOMIAL (net-assert.h: a miss is measured again, two misses fail)
 * for a count sampled while a run holds its fault, the run's hold given by
 * the caller: a sample that ended after the hold is no sample of the fault
 * and is not judged; the drill is run again (once) for the samples the
 * hold had no room for, a miss of the first run still counting. */
static void binomial_case(
        const char *fault, const char *params, unsigned (*count)(void), double p, const char *what) {
        int misses = 0;
        for (int runs = 1; runs <= 2; runs++) {
                struct run run = run_drill_for(fault, params, BINOMIAL_HOLD_S);
                wait_in_force(&run);
                bool passed = false, held = true;
                while (!passed && misses < 2 && held) {
                        unsigned k = count();
                        if (!(held = still_held(&run)))
                                print_message(
                                        "%s: a sample ended after the run's %d s hold: not judged\n", what,
                                        BINOMIAL_HOLD_S);
                        else if (!(passed = in_binomial(k, 2000, p, what)))
                                misses++;
                }
                wait_done(&run);
                assert_no_residue();
                if (passed)
                        return;
                if (misses >= 2)
                        fail_msg("%s: two samples outside the 99 %% interval", what);
        }
        fail_msg("%s: two runs' holds of %d s had no room for the samples", what, BINOMIAL_HOLD_S);
}

/* Bits per second of a fetch from the target's TCP source (nettool, port),
 * counted by this receiver over window_ms from 0.5 s after the first byte
 * (past a token bucket's initial burst): netprobe's tcp_fetch_rate() counts
 * 2 s, where a stall of the receiver at the window's end moves the figure
 * twice as much. Negative errno when no connection. */
static double fetch_rate(const char *addr, int port, int window_ms) {
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        if (inet_pton(AF_INET, addr, &to.sin_addr) != 1)
                return -EINVAL;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *)&to, sizeof(to)) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        static char buf[65536];
        double first = 0, counted = 0, from = 0, to_ms = 0, end = monotonic_ms() + window_ms + 5000;
        while (monotonic_ms() < end) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, 100) != 1)
                        continue;
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                double now = monotonic_ms();
                if (n <= 0)
                        break;
                if (!first)
                        first = now, from = first + 500, to_ms = from + window_ms;
                if (now >= to_ms)
                        break;
                if (now >= from)
                        counted += (double)n;
        }
        close(fd);
        return counted * 8 / (window_ms / 1000.0);
}

/* The outcome of a TCP connection from inside the peer container to the target's port. */
static char *peer_connect(const char *addr, const char *port) {
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ "docker", "exec", peer, "/nettool", "connect", addr, port, NULL });
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
        struct run run = run_drill("net.latency", params);
        wait_in_force(&run);
        struct rtt r = measure_rtt(200);
        assert_sampled_held(&run, what);
        assert_added(r.p50, want, what);
        wait_done(&run);
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
        struct run run = run_drill("net.latency", "delay_ms: 100, jitter_ms: 20");
        wait_in_force(&run);
        struct rtt r = measure_rtt(300);
        assert_sampled_held(&run, "jitter 20 ms");
        print_message("jitter 20 ms: p10 %.1f p50 %.1f p90 %.1f ms\n", r.p10, r.p50, r.p90);
        assert_true(r.p90 - r.p10 > 15);
        wait_done(&run);
        assert_no_residue();
        assert_impact_recorded("net.latency");
}

/* After the runs no loss or duplicate rule is left: every echo comes back,
 * once. Duplicates only a rule of ours makes; a datagram can be lost on a
 * loaded host by itself (a full socket buffer), so 99% back is enough, and
 * a miss is measured once more (a rule left behind misses both: 30% of
 * 500 lost, or 40% twice). */
static void assert_echoes_clean(void) {
        struct rtt r = measure_rtt(500);
        print_message("after the runs: %u of 500 echoes back, %u twice\n", r.received, r.duplicates);
        if (r.duplicates > 0 || r.received < 495) {
                r = measure_rtt(500);
                print_message("again: %u of 500 echoes back, %u twice\n", r.received, r.duplicates);
        }
        assert_int_equal(r.duplicates, 0);
        assert_true(r.received >= 495);
}

static void test_loss_reorder_duplicate(void **state) {
        (void)state;
        binomial_case(
                "net.packet_loss", "percent: 30", echoes_lost, 0.30, "net.packet_loss 30 % (echoes lost)");
        struct run run = run_drill("net.reorder", "percent: 30, delay_ms: 20");
        wait_in_force(&run);
        struct rtt r = measure_rtt(1000);
        assert_sampled_held(&run, "net.reorder");
        print_message("net.reorder: %u of %u echoes out of order\n", r.reordered, r.received);
        assert_true(r.reordered > 50);
        wait_done(&run);
        assert_no_residue();
        binomial_case(
                "net.corrupt", "percent: 20", echoes_lost, 0.20,
                "net.corrupt 20 % (echoes fail their magic)");
        binomial_case(
                "net.duplicate", "percent: 40", echoes_twice, 0.40, "net.duplicate 40 % (echoes twice)");
        assert_echoes_clean();
}

static void test_bandwidth(void **state) {
        (void)state;
        double before = tcp_fetch_rate(target_ip, 7030, 4000);
        struct run run = run_drill_for("net.bandwidth", "rate: 8mbit", RATE_HOLD_S);
        wait_in_force(&run);
        double bps = fetch_rate(target_ip, 7030, 4000);
        assert_sampled_held(&run, "net.bandwidth 8mbit");
        print_message(
                "net.bandwidth 8mbit: %.2f Mbit/s over 4 s (before: %.0f Mbit/s)\n", bps / 1e6,
                before / 1e6);
        assert_true(fabs(bps - 8e6) <= 8e6 * 0.15);
        wait_done(&run);
        assert_no_residue();
        assert_true(tcp_fetch_rate(target_ip, 7030, 4000) > 100e6);
}

static void test_partition_reset_refuse(void **state) {
        (void)state;
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), 0, "before");
        struct run run = run_drill("net.partition", "");
        wait_in_force(&run);
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), -ETIMEDOUT, "net.partition");
        wait_done(&run);
        assert_no_residue();
        run = run_drill("net.connection_reset", "port: 7020");
        wait_in_force(&run);
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), -ECONNRESET, "net.connection_reset 7020");
        assert_outcome(tcp_connect_outcome(target_ip, 7021, 1000), 0, "port 7021 during the reset");
        wait_done(&run);
        assert_no_residue();
        run = run_drill("net.connection_refuse", "port: 7020");
        wait_in_force(&run);
        assert_outcome(
                tcp_connect_outcome(target_ip, 7020, 1000), -ECONNREFUSED, "net.connection_refuse 7020");
        wait_done(&run);
        assert_no_residue();
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), 0, "after");
}

/* targets: narrows the partition to the peer container; the host is not in scope. */
static void test_scoped_to_peer(void **state) {
        (void)state;
        char *out = peer_connect(target_ip, "7020"), params[96];
        assert_string_equal(out, "ok");
        free(out);
        snprintf(params, sizeof(params), "targets: [%s]", peer);
        struct run run = run_drill("net.partition", params);
        wait_in_force(&run);
        out = peer_connect(target_ip, "7020");
        print_message("scoped partition: peer -> target %s; host -> target ", out);
        assert_string_equal(out, "ETIMEDOUT");
        free(out);
        assert_outcome(tcp_connect_outcome(target_ip, 7020, 1000), 0, "host (not in scope)");
        wait_done(&run);
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
 * guardian removes the qdiscs and the IFB (within 10 s: the guardian's
 * cleanup on a loaded machine; the time said); recover then closes the
 * books. */
static void test_agent_sigkill(void **state) {
        (void)state;
        char path[128];
        demo_fresh_db(&demo);
        snprintf(path, sizeof(path), "%s.drill.yaml", demo.db);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: net\ncontainers:\n  %s:\n    faults:\n"
                "      - {fault: net.latency, duration: 20s, delay_ms: 100}\n"
                "      - {fault: net.bandwidth, duration: 20s, rate: 2mbit, direction: both}\n"
                "execution:\n  - parallel: [%s]\n",
                target, target);
        fclose(f);
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", path, "-c", compose, "--execute", NULL });
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
        while (residue(why, sizeof(why)) && monotonic_ms() - t0 < 10000)
                sleep_ms(10);
        if (residue(why, sizeof(why)))
                fail_msg("10 s after the agent's SIGKILL: %s", why);
        print_message("agent SIGKILLed: no residue after %.0f ms\n", monotonic_ms() - t0);
        int status = wait_exit(pid, 20);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 7) {
                char *log = demo_spawn_log(&demo);
                fail_msg(
                        "mayhem run exited %d, want 7:\n%s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                        log);
        }
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
        struct run run = run_drill("net.mtu_mismatch", "mtu: 1280");
        wait_in_force(&run);
        assert_int_equal(target_mtu(), 1280);
        wait_done(&run);
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
        struct run run = run_drill("net.interface_down", "");
        wait_in_force(&run);
        assert_false(target_link_up());
        assert_int_equal(measure_rtt(20).received, 0);
        wait_done(&run);
        assert_true(target_link_up());
        struct rtt after = measure_rtt(100);
        assert_true(after.received > 90);
        assert_added(after.p50, 0, "after net.interface_down");
        print_message("net.interface_down: eth0 down while held (20 of 20 echoes lost), up with its default "
                      "route after\n");
        assert_no_residue();
}

/* nettool answers on the target: UDP echoes and a TCP connection (it binds
 * its ports as it starts, after docker run returns). */
static bool nettool_ready(void) {
        for (double t0 = monotonic_ms(); monotonic_ms() - t0 < READY_MS; sleep_ms(50)) {
                struct udp_rtt_result r;
                bool echoed = udp_rtt_probe(target_ip, 7001, 5, 1000, 200, &r) == 0 && r.received > 0;
                udp_rtt_result_done(&r);
                if (echoed && tcp_connect_outcome(target_ip, 7020, 1000) == 0)
                        return true;
        }
        fprintf(stderr, "nettool on %s did not answer within %d ms\n", target_ip, READY_MS);
        return false;
}

int main(void) {
        struct engine_container c;
        snprintf(target, sizeof(target), "mayhem-net-target-%d", (int)getpid());
        snprintf(peer, sizeof(peer), "mayhem-net-peer-%d", (int)getpid());
        snprintf(compose, sizeof(compose), "/tmp/mayhem-net-%d.compose.yaml", (int)getpid());
        int r = demo_up(&demo);
        if (r == 77 || demo_podman())
                return 77;
        remove_stack();
        if (r < 0 || !write_compose() || !demo_run_service(target, "net", "target") ||
            !demo_run_service(peer, "net", "peer") || !demo_inspect_container(target, &c)) {
                remove_stack();
                unlink(compose);
                demo_down(&demo);
                return 1;
        }
        snprintf(target_ip, sizeof(target_ip), "%s", c.networks[0].ip);
        target_pid = c.pid;
        if (demo_inspect_container(peer, &c))
                snprintf(peer_ip, sizeof(peer_ip), "%s", c.networks[0].ip);
        if (!nettool_ready()) {
                remove_stack();
                unlink(compose);
                demo_down(&demo);
                return 1;
        }
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
        unlink(compose);
        demo_down(&demo);
        return failed;
}
