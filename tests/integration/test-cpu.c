/* cpu.saturate through the real agent on dockerd: a container limited to
 * 0.5 CPU and an unlimited one (both idle: busybox sleep), each at two
 * percents. The test reads the container's cgroup usage counter from the
 * host itself (cpuacct.usage on v1, cpu.stat usage_usec on v2; paths from
 * /proc/PID/cgroup, not from mayhem's readers) and holds the added usage
 * over a 10 s window to +-5 points of the wanted share of the allowance,
 * settled within 5 s of the inject; after undo the usage is back near 0 and
 * no payload process is left; a SIGKILLed agent takes the load with it
 * within a second. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/cgroup-usage.h"
#include "common/run-command.h"
#include "common/victim.h"
#include "engine/engine.h"

#define IMAGE      "mayhem-test-busybox:latest"
#define WINDOW_MS  10000
#define SETTLE_MS  5000
#define TOL_PTS    5.0
#define IDLE_PTS   3.0 /* after undo: the idle container's usage over 1 s */
#define LIMIT_CPUS 0.5

static char limited[64], unlimited[64];
static struct agent_client *agent;
static struct engine *engine;
static unsigned next_lease;

/* Share of allowance the cgroup used over the next ms, in percent. */
static double share_over(const struct cgroup_usage *c, double allowance, int ms) {
        double share = cgroup_usage_share(c, allowance, ms);
        assert_false(isnan(share));
        return share;
}

static void counter_find(pid_t pid, struct cgroup_usage *c) {
        assert_true(pid > 0 && cgroup_usage_find(pid, c));
}

/* Payload processes of this test's leases (other helpers' tests may run
 * payloads of their own on this host meanwhile). */
static int payloads_left(void) {
        char pattern[96];
        pid_t pids[64];
        snprintf(pattern, sizeof(pattern), "--fault cpu.saturate --lease l-%08x", (unsigned)getpid());
        return (int)victim_payloads(pattern, pids, 64);
}

/* ---- the agent -------------------------------------------------------------- */

static json_t *lease_for(struct agent_client *a, const char *name, int percent) {
        char id[32], params[32];
        snprintf(id, sizeof(id), "l-%08x%08x", (unsigned)getpid(), ++next_lease);
        snprintf(params, sizeof(params), "{\"percent\": %d}", percent);
        return victim_lease(a, name, "cpu.saturate", id, params);
}

/* Wanted share on one container: settled within SETTLE_MS (a 1 s window
 * within TOL_PTS), then a WINDOW_MS window within TOL_PTS, the agent's own
 * effect check true, and after undo nothing left. */
static void saturate(const char *name, double allowance, int percent) {
        struct cgroup_usage c;
        counter_find(victim_main_pid(engine, name), &c);
        double idle = share_over(&c, allowance, 1000);
        json_t *l = lease_for(agent, name, percent), *reply = NULL;
        double t0 = monotonic_ms();
        victim_call(agent, l, "inject", NULL);
        double share = 0, settled = -1;
        while (monotonic_ms() - t0 < SETTLE_MS + 1000 && settled < 0) {
                share = share_over(&c, allowance, 1000) - idle;
                if (fabs(share - percent) <= TOL_PTS)
                        settled = monotonic_ms() - t0;
        }
        print_message(
                "%s %d%% of %.2f CPU: settled after %.0f ms (1 s window %.1f%%)\n", name, percent, allowance,
                settled, share);
        assert_true(settled >= 0 && settled <= SETTLE_MS + 1000);
        double added = share_over(&c, allowance, WINDOW_MS) - idle;
        print_message(
                "%s %d%%: added %.2f%% of the allowance over %d ms (idle before %.2f%%)\n", name, percent,
                added, WINDOW_MS, idle);
        assert_true(fabs(added - percent) <= TOL_PTS);
        assert_true(payloads_left() > 0); /* the residue scan below sees ours */
        victim_call(agent, l, "effect", &reply);
        print_message("effect: %s\n", json_string_value(json_object_get(reply, "detail")));
        assert_true(json_is_true(json_object_get(reply, "in_force")));
        assert_true(json_is_true(json_object_get(reply, "observed")));
        json_decref(reply);
        victim_call(agent, l, "undo", NULL);
        victim_call(agent, l, "verify", &reply);
        assert_true(json_is_true(json_object_get(reply, "verified")));
        json_decref(reply);
        double after = share_over(&c, allowance, 1000);
        print_message("%s after undo: %.2f%%\n", name, after);
        assert_true(after < IDLE_PTS);
        assert_int_equal(payloads_left(), 0);
        json_decref(l);
}

static double host_cpus(void) {
        return (double)sysconf(_SC_NPROCESSORS_ONLN);
}

static void test_limited_50(void **state) {
        (void)state;
        saturate(limited, LIMIT_CPUS, 50);
}

static void test_limited_80(void **state) {
        (void)state;
        saturate(limited, LIMIT_CPUS, 80);
}

/* The host's CPUs are shared with whatever else runs here: modest shares. */
static void test_unlimited_25(void **state) {
        (void)state;
        saturate(unlimited, host_cpus(), 25);
}

static void test_unlimited_50(void **state) {
        (void)state;
        saturate(unlimited, host_cpus(), 50);
}

/* An agent of its own, SIGKILLed while the fault is in force: PDEATHSIG
 * ends the payload, no recovery step; the next second is idle. */
static void test_agent_killed(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("cpu", "cpu-killed");
        struct cgroup_usage c;
        counter_find(victim_main_pid(engine, limited), &c);
        json_t *l = lease_for(a, limited, 80);
        victim_call(a, l, "inject", NULL);
        double busy = share_over(&c, LIMIT_CPUS, 1000);
        assert_true(busy > 50);
        assert_int_equal(kill(agent_client_pid(a), SIGKILL), 0);
        double killed = monotonic_ms(), gone_ms;
        int left;
        while ((left = payloads_left()) > 0 && monotonic_ms() - killed < 1000)
                sleep_ms(5);
        gone_ms = monotonic_ms() - killed;
        double after = share_over(&c, LIMIT_CPUS, 1000);
        print_message(
                "agent killed: %.1f%% before; payload gone after %.0f ms (%d left), then %.2f%% over 1 s\n",
                busy, gone_ms, left, after);
        assert_int_equal(left, 0);
        assert_true(after < IDLE_PTS);
        agent_client_stop(a);
        json_decref(l);
}

/* The app itself spins 3 threads in the 0.5-CPU container: the quota
 * binds, the burner gets its fair part of it and no more, and the effect
 * check says so rather than claiming the share (last: the spinners stay
 * until the container goes). */
static void test_binding_quota(void **state) {
        (void)state;
        for (int i = 0; i < 3; i++)
                assert_true(victim_run((const char *const[]){ "docker", "exec", "-d", limited, "/busybox",
                                                              "sh", "-c", "while :; do :; done", NULL }));
        struct cgroup_usage c;
        counter_find(victim_main_pid(engine, limited), &c);
        json_t *l = lease_for(agent, limited, 50), *reply = NULL;
        victim_call(agent, l, "inject", NULL);
        sleep_ms(3000);
        victim_call(agent, l, "effect", &reply);
        const char *detail = json_string_value(json_object_get(reply, "detail"));
        print_message("app spinning: effect: %s\n", detail);
        assert_true(json_is_true(json_object_get(reply, "in_force")));
        assert_non_null(strstr(detail, "the quota binds"));
        json_decref(reply);
        assert_true(share_over(&c, LIMIT_CPUS, 1000) > 95);
        victim_call(agent, l, "undo", NULL);
        assert_int_equal(payloads_left(), 0);
        json_decref(l);
}

static bool start(char *name, size_t size, const char *which, const char *cpus) {
        snprintf(name, size, "mayhem-cpu-%s-%d", which, (int)getpid());
        if (cpus)
                return victim_run((const char *const[]){ "docker", "run", "-d", "--name", name, "--cpus",
                                                         cpus, IMAGE, NULL });
        return victim_run((const char *const[]){ "docker", "run", "-d", "--name", name, IMAGE, NULL });
}

static void remove_all(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", limited, unlimited, NULL });
        cmd_result_done(&r);
}

int main(void) {
        struct mh_error e = { 0 };
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        if (!start(limited, sizeof(limited), "half", "0.5") ||
            !start(unlimited, sizeof(unlimited), "all", NULL)) {
                remove_all();
                return 1;
        }
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = "cpu",
                                          .run_id = "cpu" };
        if (agent_client_start(&o, &agent, &e) < 0) {
                fprintf(stderr, "agent: %s\n", e.msg);
                remove_all();
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_limited_50),   cmocka_unit_test(test_limited_80),
                cmocka_unit_test(test_unlimited_25), cmocka_unit_test(test_unlimited_50),
                cmocka_unit_test(test_agent_killed), cmocka_unit_test(test_binding_quota),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        agent = agent_client_stop(agent);
        remove_all();
        engine_free(engine);
        return failed ? 1 : 0;
}
