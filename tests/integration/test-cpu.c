/* cpu.saturate through the real agent on dockerd: a container limited to
 * 0.5 CPU and an unlimited one (both idle: busybox sleep), each at two
 * percents. The test reads the container's cgroup usage counter from the
 * host itself (cpuacct.usage on v1, cpu.stat usage_usec on v2; paths from
 * /proc/PID/cgroup, not from mayhem's readers) and holds the added usage
 * over a 10 s window to +-5 points of the wanted share of the allowance,
 * settled within 5 s of the inject; after undo the usage is back near 0 and
 * no payload process is left; a SIGKILLed agent takes the load with it.
 *
 * The cgroup's counter is the CPU the container received: on a busy host
 * the payload can get less than it asks for, through no fault of its own.
 * The host's idle time is read from /proc/stat over the same window: a
 * window short of the wanted share while the host had that much CPU idle
 * fails; one where it had not cannot judge the lower bound and is measured
 * again (at most 3 windows). The upper bound is judged on every window. */
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
#define WINDOWS    3    /* windows measured at most when the host had no CPU to give */
#define GONE_MS    5000 /* for the payload to die after the agent's SIGKILL (PDEATHSIG) */

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

/* The host's idle CPU time so far (idle and iowait of /proc/stat's "cpu"
 * line), in seconds. */
static double host_idle_s(void) {
        unsigned long long user, nice, sys, idle, iowait;
        FILE *f = fopen("/proc/stat", "re");
        int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait) : 0;
        if (f)
                fclose(f);
        if (n != 5)
                fail_msg("cannot read the cpu line of /proc/stat");
        return (double)(idle + iowait) / (double)sysconf(_SC_CLK_TCK);
}

/* One window of ms: the share of allowance the cgroup used (percent), and
 * the host's idle CPU over the same time as a share of the same allowance. */
struct window {
        double share, host_idle;
};

static struct window window_over(const struct cgroup_usage *c, double allowance, int ms) {
        double u0, u1, i0 = host_idle_s(), t0 = monotonic_ms();
        assert_true(cgroup_usage_read(c, &u0));
        sleep_ms(ms);
        assert_true(cgroup_usage_read(c, &u1));
        double i1 = host_idle_s(), s = (monotonic_ms() - t0) / 1000.0;
        return (struct window){ .share = 100.0 * (u1 - u0) / (s * allowance),
                                .host_idle = 100.0 * (i1 - i0) / (s * allowance) };
}

/* Whether added (share of allowance) short of want - TOL_PTS is the host's
 * doing: the CPU it lacked was not idle on the host either. */
static bool starved(double added, double idle, double want) {
        return added + idle < want - TOL_PTS;
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
        struct window w = { 0 };
        /* Settled: a 1 s window within TOL_PTS, or one the host starved that is not above it. */
        while (monotonic_ms() - t0 < SETTLE_MS + 1000 && settled < 0) {
                w = window_over(&c, allowance, 1000);
                share = w.share - idle;
                if (fabs(share - percent) <= TOL_PTS || starved(share, w.host_idle, percent))
                        settled = monotonic_ms() - t0;
        }
        print_message(
                "%s %d%% of %.2f CPU: settled after %.0f ms (1 s window %.1f%%, host idle %.1f%%)\n", name,
                percent, allowance, settled, share, w.host_idle);
        assert_true(settled >= 0 && settled <= SETTLE_MS + 1000);
        double added = 0;
        bool judged = true;
        for (int i = 1; i <= WINDOWS; i++) {
                w = window_over(&c, allowance, WINDOW_MS);
                added = w.share - idle;
                print_message(
                        "%s %d%%: added %.2f%% of the allowance over %d ms (idle before %.2f%%; the host "
                        "idle %.2f%% of it)\n",
                        name, percent, added, WINDOW_MS, idle, w.host_idle);
                assert_true(added <= percent + TOL_PTS);
                if (added >= percent - TOL_PTS)
                        break;
                if (!starved(added, w.host_idle, percent))
                        fail_msg(
                                "%s %d%%: added %.2f%% while the host had %.2f%% idle", name, percent, added,
                                w.host_idle);
                if (i == WINDOWS) {
                        judged = false;
                        print_message(
                                "the host had no CPU to give in %d windows: the lower bound and the "
                                "effect's figure not judged\n",
                                WINDOWS);
                }
        }
        int ours = payloads_left(); /* the residue scan below sees ours */
        json_t *effect = NULL;
        victim_call(agent, l, "effect", &effect);
        print_message("effect: %s\n", json_string_value(json_object_get(effect, "detail")));
        /* undone before any assertion: a failed one leaves no payload to the next test */
        victim_call(agent, l, "undo", NULL);
        victim_call(agent, l, "verify", &reply);
        assert_true(ours > 0);
        assert_true(json_is_true(json_object_get(effect, "observed")) || !judged);
        assert_true(json_is_true(json_object_get(effect, "in_force")) || !judged);
        assert_true(json_is_true(json_object_get(reply, "verified")));
        json_decref(effect);
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
 * ends the payload (within GONE_MS, the time said), no recovery step; the
 * next second is idle. */
static void test_agent_killed(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("cpu", "cpu-killed");
        struct cgroup_usage c;
        counter_find(victim_main_pid(engine, limited), &c);
        json_t *l = lease_for(a, limited, 80);
        victim_call(a, l, "inject", NULL);
        /* In force: over 50% in a 1 s window, the loop given SETTLE_MS to get there. */
        double busy = 0, t0 = monotonic_ms();
        while ((busy = share_over(&c, LIMIT_CPUS, 1000)) <= 50 && monotonic_ms() - t0 < SETTLE_MS)
                ;
        if (busy <= 50)
                fail_msg(
                        "cpu.saturate 80%%: %.1f%% of 0.5 CPU in the last 1 s window after %d ms", busy,
                        SETTLE_MS);
        assert_int_equal(kill(agent_client_pid(a), SIGKILL), 0);
        double killed = monotonic_ms(), gone_ms;
        int left;
        while ((left = payloads_left()) > 0 && monotonic_ms() - killed < GONE_MS)
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
        /* The effect check looks over a second of its own: asked until it
         * sees the quota bind (the app and the burner both running), for
         * SETTLE_MS + 5 s, the last answer judged. */
        const char *detail = NULL;
        for (double t0 = monotonic_ms();; sleep_ms(200)) {
                json_decref(reply);
                victim_call(agent, l, "effect", &reply);
                detail = json_string_value(json_object_get(reply, "detail"));
                if ((json_is_true(json_object_get(reply, "in_force")) && detail &&
                     strstr(detail, "the quota binds")) ||
                    monotonic_ms() - t0 > SETTLE_MS + 5000)
                        break;
        }
        print_message("app spinning: effect: %s\n", detail);
        /* The cgroup at its quota: the app alone wants 3 CPUs. A window the
         * host had no idle CPU to give it is measured again; when none
         * reaches the quota, the quota never bound and the effect's words
         * are not judged. */
        bool bound = false, fair = true;
        for (int i = 1; i <= WINDOWS && !bound && fair; i++) {
                struct window w = window_over(&c, LIMIT_CPUS, 1000);
                print_message(
                        "the cgroup: %.1f%% of its quota (host idle %.1f%% of it)\n", w.share, w.host_idle);
                bound = w.share > 95;
                fair = bound || starved(w.share, w.host_idle, 100);
                if (i == WINDOWS && !bound)
                        print_message("the host had no CPU to give in %d windows: not judged\n", WINDOWS);
        }
        victim_call(agent, l, "undo", NULL); /* before any assertion: nothing left to the next test */
        assert_int_equal(payloads_left(), 0);
        assert_true(fair); /* the cgroup under its quota while the host had CPU idle: not starved */
        if (bound) {
                assert_true(json_is_true(json_object_get(reply, "in_force")));
                assert_non_null(strstr(detail, "the quota binds"));
        }
        json_decref(reply);
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
