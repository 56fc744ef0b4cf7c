/* process.thread_exhaust and process.child_exhaust on a real dockerd, with
 * the real agent: containers with --pids-limit 64 and 100 run busybox watch,
 * which forks `sh -c "cat /proc/uptime"` every 200 ms (a shell loop is no
 * probe: ash exits when a fork fails), so each fork that worked logs its
 * own time, and one that failed only watch's screen-clearing escape. The test reads
 * the container's pids.current / pids.max from cgroupfs itself, and the
 * probe's log: during the fault the group is full and the target's forks
 * fail; after
 * undo they work again, pids.current is back to its baseline and no payload
 * process is left. With the agent SIGKILLed mid-fault the held pids die
 * (PDEATHSIG), with no undo. No pids limit: refused, nothing started. */
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

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/proc-stat.h"
#include "common/run-command.h"
#include "common/victim.h"
#include "engine/engine.h"

#define IMAGE "mayhem-test-busybox:latest"
#define FORK_LOOP                                                                                           \
        "/busybox mkdir /bin && /busybox ln -s /busybox /bin/sh && "                                        \
        "exec /busybox watch -t -n 0.2 cat /proc/uptime"
#define CLEAR "\033[J" /* watch writes it before each try */
/* How long the test holds a fault, and the grace after ready before no fork
 * may work: a fork that got its pid just before the group filled logs the
 * time its `cat` ran, which on a loaded machine can come a good while later.
 * The window between them is still 2 s, room for ten of the probe's tries
 * and so for the at least 5 failed ones asserted even at half speed. */
#define HOLD_MS 3000
#define GRACE_S 1.0
#define WAIT_MS 10000 /* for the probe's log (docker logs lags) and the host's init to reap */
#define FULL_MS 5000  /* for the payload's refill to take back a pid the probe freed */

static struct engine *engine;
static unsigned next_id;
static char containers[16][64];
static size_t n_containers;

/* A container running the fork loop; pids_limit 0: no limit. */
static const char *start_target(int pids_limit) {
        char *name = containers[n_containers++], limit[32];
        snprintf(name, sizeof(containers[0]), "mayhem-pids-%d-%u", (int)getpid(), ++next_id);
        snprintf(limit, sizeof(limit), "--pids-limit=%d", pids_limit);
        const char *argv[] = { "docker", "run",      "-d", "--name", name,      limit,
                               IMAGE,    "/busybox", "sh", "-c",     FORK_LOOP, NULL };
        if (!pids_limit) /* no --pids-limit: the group's pids.max is max */
                memmove(&argv[5], &argv[6], sizeof(argv) - 6 * sizeof(argv[0]));
        if (!victim_run(argv))
                fail_msg("docker run %s failed", name);
        return name;
}

/* The directory of pid's pids cgroup, from /proc/PID/cgroup: the v1 pids
 * hierarchy, else the unified one. */
static void pids_dir(pid_t pid, char *dir, size_t size) {
        char path[64], line[512];
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        FILE *f = fopen(path, "re");
        dir[0] = '\0';
        while (f && fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                char *rest = strchr(line, ':'), *p = rest ? strchr(rest + 1, ':') : NULL;
                if (!p)
                        continue;
                if (strncmp(rest, ":pids:", 6) == 0)
                        snprintf(dir, size, "/sys/fs/cgroup/pids%s", p + 1);
                else if (strncmp(line, "0::", 3) == 0 && !dir[0])
                        snprintf(dir, size, "/sys/fs/cgroup%s", p + 1);
        }
        if (f)
                fclose(f);
}

/* A knob of pid's pids cgroup: -1 when unreadable, -2 for "max". */
static long long pids_knob(pid_t pid, const char *knob) {
        char dir[512], path[600], line[64];
        pids_dir(pid, dir, sizeof(dir));
        snprintf(path, sizeof(path), "%s/%s", dir, knob);
        FILE *f = fopen(path, "re");
        long long v = -1;
        if (f && fgets(line, sizeof(line), f))
                v = strncmp(line, "max", 3) == 0 ? -2 : strtoll(line, NULL, 10);
        if (f)
                fclose(f);
        return v;
}

/* Tasks of pid's pids cgroup that are not zombies (v1 "tasks", v2
 * "cgroup.threads"). */
static int live_tasks(pid_t pid) {
        char dir[512], path[600];
        int tid, n = 0;
        pids_dir(pid, dir, sizeof(dir));
        snprintf(path, sizeof(path), "%s/%s", dir, strstr(dir, "/pids/") ? "tasks" : "cgroup.threads");
        FILE *f = fopen(path, "re");
        while (f && fscanf(f, "%d", &tid) == 1)
                n += proc_state_of(tid) != 'Z' && proc_state_of(tid) != '-';
        if (f)
                fclose(f);
        return n;
}

static double uptime_now(void) {
        FILE *f = fopen("/proc/uptime", "re");
        double u = -1;
        if (!f || fscanf(f, "%lf", &u) != 1)
                u = -1;
        if (f)
                fclose(f);
        return u;
}

/* What the probe's log says about [from, to) (uptime seconds): forks that
 * worked in it, and tries that failed in the gaps ending in it or after.
 * /proc/uptime ticks every 10 ms: a fork logged in the tick `to` was read
 * in may have come after it (after the undo), so it counts as after. */
struct forks {
        int ok, failed, ok_after; /* ok_after: worked after to */
        double last_ok;
};

static struct forks forks_seen(const char *name, double from, double to) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "docker", "logs", name, NULL });
        struct forks f = { 0 };
        for (char *save = NULL, *l = strtok_r(r.out ? r.out : "", "\n", &save); l;
             l = strtok_r(NULL, "\n", &save)) {
                int tries = 0;
                const char *last = l;
                for (const char *p = strstr(l, CLEAR); p; p = strstr(p + 1, CLEAR))
                        tries++, last = p + strlen(CLEAR);
                double u = strtod(last, NULL);
                if (tries == 0 || u <= 0)
                        continue;
                f.ok += u >= from && u < to;
                f.ok_after += u >= to;
                if (u >= from)
                        f.failed += tries - 1;
                f.last_ok = u;
        }
        cmd_result_done(&r);
        return f;
}

/* Waits until the probe's forks work. */
static void forks_work(const char *name) {
        double t0 = uptime_now();
        for (double until = monotonic_ms() + 10000; forks_seen(name, t0, t0 + 1e9).ok < 2;)
                if (monotonic_ms() > until)
                        fail_msg("%s: the probe's forks never worked", name);
                else
                        sleep_ms(100);
}

/* No payload process of this test's leases on the host (other tests may
 * run payloads of their own). */
static bool no_payload_left(void) {
        char pattern[64];
        pid_t pids[1];
        snprintf(pattern, sizeof(pattern), ".*--lease l-pids-%08x", (unsigned)getpid());
        return victim_payloads(pattern, pids, 1) == 0;
}

static json_t *lease_on(struct agent_client *a, const char *name, const char *fault, const char *params) {
        char lease[48];
        snprintf(lease, sizeof(lease), "l-pids-%08x%04x", (unsigned)getpid(), ++next_id);
        return victim_lease(a, name, fault, lease, params);
}

/* Once the probe's forks work, the group's pids.current as it idles. */
static long long baseline(const char *name, pid_t pid) {
        forks_work(name);
        return pids_knob(pid, "pids.current");
}

/* The group full by the test's own reading: a pid the probe's last child
 * freed just after ready is taken back at the payload's next refill (every
 * 50 ms, later on a loaded machine): read for up to FULL_MS. */
static void assert_full(pid_t pid, int limit) {
        long long cur = pids_knob(pid, "pids.current"), max = pids_knob(pid, "pids.max");
        double t0 = monotonic_ms();
        for (double until = t0 + FULL_MS; cur != max && monotonic_ms() < until; sleep_ms(10))
                cur = pids_knob(pid, "pids.current");
        print_message(
                "pids.current %lld of pids.max %lld (%.0f ms after ready)\n", cur, max, monotonic_ms() - t0);
        assert_int_equal(max, limit);
        if (cur != max)
                fail_msg(
                        "the group never filled within %d ms: pids.current %lld of %lld", FULL_MS, cur, max);
}

/* The fault in force: the group full, the agent's effect check agreeing. */
static void assert_exhausted(struct agent_client *a, json_t *l, const char *name, pid_t pid, int limit) {
        json_t *res = NULL;
        assert_full(pid, limit);
        victim_call(a, l, "effect", &res);
        print_message("effect: %s\n", json_string_value(json_object_get(res, "detail")));
        assert_true(json_is_true(json_object_get(res, "in_force")));
        assert_true(json_is_true(json_object_get(res, "observed")));
        json_decref(res);
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "exec", name, "/busybox", "true", NULL });
        /* Not asserted: runc moves the exec'd process into the group,
         * and a migration is not held to pids.max; whatever it then forks is. */
        if (r.err)
                r.err[strcspn(r.err, "\n")] = '\0';
        print_message("docker exec during the fault: exit %d %.200s\n", r.exit, r.err ? r.err : "");
        cmd_result_done(&r);
}

/* Between ready (+GRACE_S) and the end of the fault no fork of the target
 * worked, at least 5 tries failed; after it, forks work again (3 logged,
 * waited for: the probe's log reaches docker logs late on a loaded
 * machine), pids.current is back at its baseline (+1: the probe's own child
 * may be running) and no payload process is left. */
static void assert_forks(const char *name, pid_t pid, long long before, double ready, double end) {
        double t0 = monotonic_ms(), until = t0 + WAIT_MS;
        struct forks f = forks_seen(name, ready + GRACE_S, end);
        long long cur = pids_knob(pid, "pids.current");
        while ((f.ok_after < 3 || cur < before - 1 || cur > before + 1) && monotonic_ms() < until) {
                sleep_ms(100);
                f = forks_seen(name, ready + GRACE_S, end);
                cur = pids_knob(pid, "pids.current");
        }
        print_message(
                "the target's forks: %d worked and %d failed in the %.2f s of the fault after the "
                "%.1f s grace, %d worked after it (seen %.0f ms after the end); pids.current %lld "
                "(baseline %lld)\n",
                f.ok, f.failed, end - ready - GRACE_S, GRACE_S, f.ok_after, monotonic_ms() - t0, cur,
                before);
        assert_int_equal(f.ok, 0);
        assert_true(f.failed >= 5);
        if (f.ok_after < 3)
                fail_msg(
                        "%s: %d forks logged within %d ms of the fault's end, want 3", name, f.ok_after,
                        WAIT_MS);
        if (cur < before - 1 || cur > before + 1)
                fail_msg(
                        "pids.current %lld %d ms after the fault's end, baseline %lld", cur, WAIT_MS,
                        before);
        assert_true(no_payload_left());
}

static void exhaust_then_undo(const char *fault, int limit) {
        struct agent_client *a = victim_agent("proc", "pids");
        const char *name = start_target(limit);
        pid_t pid = victim_main_pid(engine, name);
        long long before = baseline(name, pid);
        json_t *l = lease_on(a, name, fault, NULL), *res = NULL;
        double t0 = monotonic_ms();
        victim_call(a, l, "inject", NULL);
        double ready = uptime_now();
        print_message(
                "%s on --pids-limit %d: ready in %.0f ms (baseline pids.current %lld)\n", fault, limit,
                monotonic_ms() - t0, before);
        assert_exhausted(a, l, name, pid, limit);
        sleep_ms(HOLD_MS);
        double end = uptime_now();
        victim_call(a, l, "undo", NULL);
        victim_call(a, l, "verify", &res);
        assert_true(json_is_true(json_object_get(res, "verified")));
        assert_forks(name, pid, before, ready, end);
        json_decref(res);
        json_decref(l);
        agent_client_stop(a);
}

static void test_threads_64(void **state) {
        (void)state;
        exhaust_then_undo("process.thread_exhaust", 64);
}

static void test_threads_100(void **state) {
        (void)state;
        exhaust_then_undo("process.thread_exhaust", 100);
}

static void test_children_64(void **state) {
        (void)state;
        exhaust_then_undo("process.child_exhaust", 64);
}

static void test_children_100(void **state) {
        (void)state;
        exhaust_then_undo("process.child_exhaust", 100);
}

/* The agent SIGKILLed mid-fault: no undo runs, and every held thread or
 * child dies (PR_SET_PDEATHSIG down the chain agent, payload, body,
 * children): within 5 s, so a chain of ASan processes on a loaded machine
 * has time and a chain that does not fire still fails; the time is said.
 * Dead children and the payload process are zombies of the host's init
 * then, their pids charged to the group until it reaps them (systemd at
 * once; this VM's init within seconds): waited for up to 10 s, and said. */
static void agent_killed(const char *fault) {
        struct agent_client *a = victim_agent("proc", "pids");
        const char *name = start_target(64);
        pid_t pid = victim_main_pid(engine, name);
        long long before = baseline(name, pid);
        int live_before = live_tasks(pid);
        json_t *l = lease_on(a, name, fault, NULL);
        victim_call(a, l, "inject", NULL);
        double ready = uptime_now();
        assert_full(pid, 64);
        sleep_ms(HOLD_MS);
        double end = uptime_now();
        kill(agent_client_pid(a), SIGKILL);
        double t0 = monotonic_ms(), dead = -1, reaped = -1;
        while (monotonic_ms() - t0 < WAIT_MS && (reaped < 0 || dead < 0)) {
                if (dead < 0 && live_tasks(pid) <= live_before + 1 && no_payload_left())
                        dead = monotonic_ms() - t0;
                if (pids_knob(pid, "pids.current") <= before + 1)
                        reaped = monotonic_ms() - t0;
                sleep_ms(10);
        }
        print_message(
                "%s: agent SIGKILLed; every held %s dead after %.0f ms, pids.current back to %lld "
                "(baseline %lld) once the host's init reaped them, after %.0f ms\n",
                fault, strstr(fault, "thread") ? "thread" : "child", dead, pids_knob(pid, "pids.current"),
                before, reaped);
        if (dead < 0 || dead > 5000)
                fail_msg("the held %ss were not dead within 5 s of the agent's SIGKILL", fault);
        if (reaped < 0)
                fail_msg("pids.current not back to its baseline within %d ms of the SIGKILL", WAIT_MS);
        agent_client_stop(a);
        assert_forks(name, pid, before, ready, end);
        json_decref(l);
}

static void test_agent_killed_threads(void **state) {
        (void)state;
        agent_killed("process.thread_exhaust");
}

static void test_agent_killed_children(void **state) {
        (void)state;
        agent_killed("process.child_exhaust");
}

/* Fewer threads than the headroom: held, and the effect check says the
 * group is not full, with the figures. */
static void test_count_below_headroom(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("proc", "pids");
        const char *name = start_target(64);
        pid_t pid = victim_main_pid(engine, name);
        long long before = baseline(name, pid);
        json_t *l = lease_on(a, name, "process.thread_exhaust", "{\"threads\": 10}"), *res = NULL;
        victim_call(a, l, "inject", NULL);
        long long cur = pids_knob(pid, "pids.current");
        assert_true(cur >= before + 2 + 10 - 1 && cur <= before + 2 + 10 + 1);
        victim_call(a, l, "effect", &res);
        print_message(
                "threads 10: pids.current %lld; effect: %s\n", cur,
                json_string_value(json_object_get(res, "detail")));
        assert_true(json_is_false(json_object_get(res, "in_force")));
        json_decref(res);
        victim_call(a, l, "undo", NULL);
        double t0 = monotonic_ms();
        while ((cur = pids_knob(pid, "pids.current")) > before + 1 && monotonic_ms() - t0 < WAIT_MS)
                sleep_ms(20);
        print_message(
                "after undo: pids.current %lld (baseline %lld) after %.0f ms\n", cur, before,
                monotonic_ms() - t0);
        assert_true(cur <= before + 1);
        assert_true(no_payload_left());
        json_decref(l);
        agent_client_stop(a);
}

/* No pids limit: refused before anything starts. */
static void test_no_limit_refused(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("proc", "pids");
        const char *name = start_target(0);
        pid_t pid = victim_main_pid(engine, name);
        long long before = baseline(name, pid);
        assert_int_equal(pids_knob(pid, "pids.max"), -2);
        json_t *l = lease_on(a, name, "process.child_exhaust", NULL);
        struct mh_error e = { 0 };
        if (agent_lease_call(a, l, "inject", NULL, &e) >= 0 || !strstr(e.msg, "no pids limit"))
                fail_msg("not refused: %s", e.msg);
        print_message("refused: %.200s\n", e.msg);
        /* Nothing was started; the target's own fork loop may have one child of its own alive. */
        assert_true(pids_knob(pid, "pids.current") <= before + 1);
        assert_true(no_payload_left());
        json_decref(l);
        agent_client_stop(a);
}

static void remove_containers(void) {
        for (size_t i = 0; i < n_containers; i++) {
                struct cmd_result r = run_command(
                        NULL, (const char *const[]){ "docker", "rm", "-f", containers[i], NULL });
                cmd_result_done(&r);
        }
}

int main(void) {
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_threads_64),           cmocka_unit_test(test_threads_100),
                cmocka_unit_test(test_children_64),          cmocka_unit_test(test_children_100),
                cmocka_unit_test(test_agent_killed_threads), cmocka_unit_test(test_agent_killed_children),
                cmocka_unit_test(test_count_below_headroom), cmocka_unit_test(test_no_limit_refused),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        remove_containers();
        engine_free(engine);
        return failed;
}
