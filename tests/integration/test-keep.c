/* recovery: false keeps what it says it keeps (issue 11, part 4), through
 * the whole tool on real containers: a drill keeps net.latency on one
 * container (the agent's NFQUEUE shaper on a kernel without netem, so the
 * agent outlives the run as its keeper) and container.pause on another (the
 * engine holds it). 5 s after `mayhem run --execute` exits both are measured
 * still in force from outside (the RTT from the host, the engine's state),
 * `inspect leases` lists both as kept_faulted, the janitor leaves them be,
 * and `recover execute RUN_ID` undoes both: the RTT is back to baseline, the
 * container runs, the keeper is gone and the target's netns holds nothing
 * of ours. Needs root (the agent, nsenter). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/clock.h"
#include "common/net-assert.h"
#include "common/netprobe.h"
#include "common/proc-stat.h"
#include "demo-harness.h"

/* Several faults at once on a small stack: over the default blast radius (docs/safety.md). */
#define WIDE_BLAST "tests/data/config/wide-blast.yaml"
#include "engine/engine.h"

/* The compose file and the drill name the containers TARGET_SRC and
 * PAUSED_SRC; the test runs copies of both with this process's pid appended
 * to those names, so two checkouts running the test at once do not take
 * each other's containers. */
#define TARGET_SRC  "mayhem-keep-target"
#define PAUSED_SRC  "mayhem-keep-paused"
#define COMPOSE_SRC "tests/data/compose/keep/compose.yaml"
#define DRILL_SRC   "tests/data/drills/keep-net-pause.yaml"
#define STATE_DIR   "/var/lib/mayhem-agent" /* the agent's default as root */
#define DELAY_MS    100
#define WAIT_MS     10000 /* for nettool to answer, a keeper to end */

static struct demo demo;
static char target_ip[64], target[64], paused_c[64], compose[128], drill[128];
static int target_pid;

static void remove_stack(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", target, paused_c, NULL });
        cmd_result_done(&r);
}

/* src (under the source root) written to dst with every TARGET_SRC and
 * PAUSED_SRC as this run's names. */
static bool copy_renamed(const char *src, const char *dst) {
        char path[700], line[512];
        snprintf(path, sizeof(path), "%s/%s", demo.root, src);
        FILE *in = fopen(path, "re"), *out = fopen(dst, "we");
        bool ok = in && out;
        while (ok && fgets(line, sizeof(line), in)) {
                for (const char *p = line; ok && *p;) {
                        const char *t = strstr(p, TARGET_SRC), *q = strstr(p, PAUSED_SRC);
                        const char *at = t && (!q || t < q) ? t : q;
                        if (!at) {
                                ok = fputs(p, out) >= 0;
                                break;
                        }
                        const char *name = at == t ? target : paused_c;
                        size_t skip = strlen(at == t ? TARGET_SRC : PAUSED_SRC);
                        ok = fprintf(out, "%.*s%s", (int)(at - p), p, name) > 0;
                        p = at + skip;
                }
        }
        if (in)
                fclose(in);
        return out && fclose(out) == 0 && ok;
}

/* The median RTT of count echoes from the target; at least 90% must come back. */
static double rtt_p50(unsigned count) {
        struct udp_rtt_result r;
        assert_int_equal(udp_rtt_probe(target_ip, 7001, count, 1000, 1000, &r), 0);
        assert_true(r.received > count * 9 / 10);
        double p50 = percentile(r.rtt_ms, r.received, 50);
        udp_rtt_result_done(&r);
        return p50;
}

/* nettool answers UDP echoes on the target (it binds its ports as it
 * starts, after docker run returns). */
static bool nettool_ready(void) {
        for (double t0 = monotonic_ms(); monotonic_ms() - t0 < WAIT_MS; sleep_ms(50)) {
                struct udp_rtt_result r;
                bool echoed = udp_rtt_probe(target_ip, 7001, 5, 1000, 200, &r) == 0 && r.received > 0;
                udp_rtt_result_done(&r);
                if (echoed)
                        return true;
        }
        fprintf(stderr, "nettool on %s did not answer within %d ms\n", target_ip, WAIT_MS);
        return false;
}

static bool paused(void) {
        struct engine_container c;
        assert_true(demo_inspect_container(paused_c, &c));
        return c.paused;
}

/* The keeper the agent's own record names for lease_id (pid), 0 when none. */
static int keeper_of(const char *lease_id) {
        char path[256];
        snprintf(path, sizeof(path), STATE_DIR "/%s.json", lease_id);
        json_t *rec = json_load_file(path, 0, NULL);
        int pid = (int)json_integer_value(json_object_get(json_object_get(rec, "keeper"), "pid"));
        json_decref(rec);
        return pid;
}

static bool alive(int pid) {
        struct proc_stat st;
        return pid > 0 && proc_comm_is(pid, "mayhem-agent") && proc_stat_read(pid, &st) && st.state != 'Z';
}

/* The open leases, each kept_faulted; the keeper of the latency into *ret_keeper. */
static void assert_kept(const char *run_id, int *ret_keeper) {
        json_t *leases = INSPECT(&demo, "leases");
        size_t i;
        json_t *l;
        int keeper = 0;
        assert_int_equal(json_array_size(leases), 2);
        json_array_foreach(leases, i, l) {
                const char *fault = json_string_value(json_object_get(l, "fault_id"));
                print_message(
                        "lease %s (%s): %s\n", json_string_value(json_object_get(l, "id")), fault,
                        json_string_value(json_object_get(l, "state")));
                assert_string_equal(json_string_value(json_object_get(l, "state")), "kept_faulted");
                assert_string_equal(json_string_value(json_object_get(l, "run_id")), run_id);
                assert_true(json_is_null(json_object_get(l, "released_at")));
                if (strcmp(fault, "net.latency") == 0)
                        keeper = keeper_of(json_string_value(json_object_get(l, "id")));
        }
        json_decref(leases);
        *ret_keeper = keeper;
}

static void assert_released(void) {
        json_t *open = INSPECT(&demo, "leases"), *all = INSPECT(&demo, "leases", "--all");
        size_t i;
        json_t *l;
        assert_int_equal(json_array_size(open), 0);
        assert_int_equal(json_array_size(all), 2);
        json_array_foreach(all, i, l) {
                assert_string_equal(json_string_value(json_object_get(l, "state")), "released");
                assert_string_equal(json_string_value(json_object_get(l, "release_mechanism")), "manual");
        }
        json_decref(open);
        json_decref(all);
}

static const char *last_run_id(json_t **ret_runs) {
        *ret_runs = INSPECT(&demo, "runs");
        json_t *run = json_array_get(*ret_runs, 0);
        assert_string_equal(json_string_value(json_object_get(run, "status")), "completed");
        return json_string_value(json_object_get(run, "id"));
}

static void test_kept_until_recovered(void **state) {
        (void)state;
        /* The baseline right before the run: the latency is judged against
         * the RTT of now, not of however long ago the stack came up. */
        double baseline_ms = rtt_p50(100);
        print_message("baseline RTT %.3f ms\n", baseline_ms);
        struct cmd_result r =
                MAYHEM(&demo, "--config", WIDE_BLAST, "run", drill, "-c", compose, "--execute");
        double exited = monotonic_ms();
        if (r.exit != 0 || !strstr(r.out, "2 kept faulted"))
                fail_msg("mayhem run exited %d:\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        json_t *runs = NULL;
        const char *run_id = last_run_id(&runs);

        sleep_ms(5000);
        print_message("%.1f s after the run exited:\n", (monotonic_ms() - exited) / 1000);
        assert_true(paused());
        assert_added_ms(rtt_p50(200), baseline_ms, DELAY_MS, "net.latency kept");
        int keeper = 0;
        assert_kept(run_id, &keeper);
        print_message("keeper of the latency: pid %d\n", keeper);
        assert_true(alive(keeper));

        r = MAYHEM(&demo, "janitor", "--execute"); /* kept on purpose: not its to undo */
        assert_int_equal(r.exit, 0);
        cmd_result_done(&r);
        assert_kept(run_id, &keeper);
        assert_true(paused());

        r = MAYHEM(&demo, "recover", "execute", run_id);
        print_message("recover execute %s: exit %d\n%s", run_id, r.exit, r.out);
        if (r.exit != 0)
                fail_msg("recover: %s%s", r.out, r.err);
        cmd_result_done(&r);
        assert_false(paused());
        struct engine_container c;
        assert_true(demo_inspect_container(paused_c, &c) && c.running);
        double t0 = monotonic_ms();
        while (alive(keeper) && monotonic_ms() - t0 < WAIT_MS)
                sleep_ms(20);
        print_message(
                "keeper %d %s %.0f ms after recover\n", keeper, alive(keeper) ? "alive" : "gone",
                monotonic_ms() - t0);
        assert_false(alive(keeper));
        assert_added_ms(rtt_p50(200), baseline_ms, 0, "after recover execute");
        assert_released();
        char why[700];
        if (demo_net_residue(target_pid, why, sizeof(why)))
                fail_msg("residue in the target's netns: %s", why);
        json_decref(runs);
}

/* Whatever a failed case kept is recovered, so no keeper outlives the test. */
static void recover_leftovers(void) {
        json_t *leases = INSPECT(&demo, "leases");
        size_t i;
        json_t *l;
        json_array_foreach(leases, i, l) {
                struct cmd_result r =
                        MAYHEM(&demo, "recover", "execute", json_string_value(json_object_get(l, "run_id")));
                cmd_result_done(&r);
        }
        json_decref(leases);
}

int main(void) {
        struct engine_container c;
        snprintf(target, sizeof(target), TARGET_SRC "-%d", (int)getpid());
        snprintf(paused_c, sizeof(paused_c), PAUSED_SRC "-%d", (int)getpid());
        snprintf(compose, sizeof(compose), "/tmp/mayhem-keep-%d.compose.yaml", (int)getpid());
        snprintf(drill, sizeof(drill), "/tmp/mayhem-keep-%d.drill.yaml", (int)getpid());
        int r = demo_up(&demo);
        if (r == 77 || demo_podman())
                return 77;
        remove_stack();
        if (r < 0 || !copy_renamed(COMPOSE_SRC, compose) || !copy_renamed(DRILL_SRC, drill) ||
            !demo_run_service(target, "keep", "target") || !demo_run_service(paused_c, "keep", "paused") ||
            !demo_inspect_container(target, &c)) {
                remove_stack();
                unlink(compose), unlink(drill);
                demo_down(&demo);
                return 1;
        }
        snprintf(target_ip, sizeof(target_ip), "%s", c.networks[0].ip);
        target_pid = c.pid;
        if (!nettool_ready()) {
                remove_stack();
                unlink(compose), unlink(drill);
                demo_down(&demo);
                return 1;
        }
        printf("target %s (pid %d)\n", target_ip, target_pid);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kept_until_recovered),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        recover_leftovers();
        remove_stack(); /* a paused container is removed too (docker rm -f) */
        unlink(compose), unlink(drill);
        demo_down(&demo);
        return failed;
}
