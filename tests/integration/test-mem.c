/* mem.exhaust and mem.leak through the real agent on a real dockerd, on a
 * container limited to 256 MiB. The test reads the container's memory
 * cgroup from the host itself (memory.usage_in_bytes of cgroup v1, or
 * memory.current of v2), not through the code under test: the usage grows
 * by the target within 2% (50% of the limit, 64 MiB, and 99% capped below
 * the limit minus the margin), the leak grows at its rate within 5% over
 * six seconds, the application is never OOM-killed (oom_kill unchanged,
 * the same main pid still running), and after undo, or the agent's SIGKILL,
 * the usage is back near the baseline (within 1 s of the kill) with no
 * payload process left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/run-command.h"
#include "common/victim.h"
#include "engine/engine.h"

#define IMAGE    "mayhem-test-busybox:latest"
#define MiB      (1024.0 * 1024.0)
#define LIMIT    (256.0 * MiB)
#define MARGIN   (8.0 * MiB) /* max(8 MiB, 2% of 256 MiB) */
#define BACK_TOL (2.0 * MiB) /* usage after undo vs before: the payload's own pages are gone */
/* The leak's rate is judged over 6 s: the payload keeps to its schedule
 * within a 50 ms tick (0.8 MiB at 16 MiB/s) at each end of the window, which
 * is 1.7% of 96 MiB; 6.5 s at 16 MiB/s stays below the cap (about 245 MiB). */
#define LEAK_WINDOW_MS 6000

static char victim[64], cgdir[600];
static bool v2;
static struct agent_client *agent;
static struct engine *engine;
static unsigned next_lease;

static pid_t main_pid(void) {
        return victim_main_pid(engine, victim);
}

static bool read_line(const char *name, char *buf, size_t size) {
        char path[700];
        snprintf(path, sizeof(path), "%s/%s", cgdir, name);
        FILE *f = fopen(path, "re");
        bool ok = f && fgets(buf, (int)size, f);
        if (f)
                fclose(f);
        return ok;
}

static double usage(void) {
        char buf[64];
        if (!read_line(v2 ? "memory.current" : "memory.usage_in_bytes", buf, sizeof(buf)))
                fail_msg("cannot read the usage in %s", cgdir);
        return strtod(buf, NULL);
}

static long oom_kills(void) {
        char path[700], line[128];
        long n = -1;
        snprintf(path, sizeof(path), "%s/%s", cgdir, v2 ? "memory.events" : "memory.oom_control");
        FILE *f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f))
                if (strncmp(line, "oom_kill ", 9) == 0)
                        n = strtol(line + 9, NULL, 10);
        if (f)
                fclose(f);
        return n;
}

/* The container's memory cgroup directory, from /proc/PID/cgroup. */
static bool find_cgroup(pid_t pid) {
        char path[64], line[600];
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        FILE *f = fopen(path, "re");
        while (f && fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                char *ctl = strchr(line, ':'), *p = ctl ? strchr(ctl + 1, ':') : NULL;
                if (!p)
                        continue;
                *p++ = '\0';
                if (strcmp(ctl + 1, "memory") == 0)
                        snprintf(cgdir, sizeof(cgdir), "/sys/fs/cgroup/memory%s", p);
                else if (
                        strcmp(ctl + 1, "") == 0 && !cgdir[0] &&
                        access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
                        snprintf(cgdir, sizeof(cgdir), "/sys/fs/cgroup%s", p);
                        v2 = true;
                }
        }
        if (f)
                fclose(f);
        if (cgdir[0] && strstr(cgdir, "/sys/fs/cgroup/memory"))
                v2 = false;
        return cgdir[0] != '\0';
}

/* A payload of one of this process's leases (another test binary's are not ours to judge). */
static bool payload_left(void) {
        char pattern[64];
        pid_t pids[1];
        snprintf(pattern, sizeof(pattern), "--fault mem\\.[a-z]+ --lease l-%08x", (unsigned)getpid());
        return victim_payloads(pattern, pids, 1) > 0;
}

static json_t *lease_for(struct agent_client *a, const char *fault, const char *params) {
        char id[32];
        snprintf(id, sizeof(id), "l-%08x%08x", (unsigned)getpid(), ++next_lease);
        return victim_lease(a, victim, fault, id, params);
}

/* The agent's own effect check saw it, with figures. */
static void effect_seen(json_t *lease) {
        json_t *res = NULL;
        victim_call(agent, lease, "effect", &res);
        const char *detail = json_string_value(json_object_get(res, "detail"));
        print_message("effect: %s\n", detail ? detail : "?");
        assert_true(json_is_true(json_object_get(res, "in_force")));
        assert_true(json_is_true(json_object_get(res, "observed")));
        json_decref(res);
}

static void verified(json_t *lease) {
        json_t *res = NULL;
        victim_call(agent, lease, "verify", &res);
        assert_true(json_is_true(json_object_get(res, "verified")));
        json_decref(res);
}

/* Undo (or a kill, already done): back near before, nothing left, the app untouched. */
static void back_and_clean(double before, long oom0, pid_t pid0) {
        double now = usage();
        for (int i = 0; i < 100 && now > before + BACK_TOL; i++, sleep_ms(10))
                now = usage();
        print_message("after: %.1f MiB (before %.1f MiB)\n", now / MiB, before / MiB);
        assert_true(now <= before + BACK_TOL);
        assert_false(payload_left());
        assert_int_equal(oom_kills(), oom0);
        assert_int_equal(main_pid(), pid0);
}

/* mem.exhaust at params: the cgroup grows by want (±2%), holds it, and gives it back. */
static void exhaust(const char *params, double want) {
        pid_t pid0 = main_pid();
        long oom0 = oom_kills();
        double before = usage();
        json_t *l = lease_for(agent, "mem.exhaust", params);
        victim_call(agent, l, "inject", NULL);
        for (int i = 0; i < 3; i++, sleep_ms(500)) {
                double grew = usage() - before, err = (grew - want) / want * 100;
                print_message(
                        "%s: +%.2f MiB, want +%.2f MiB (%+.2f%%)\n", params, grew / MiB, want / MiB, err);
                assert_true(err <= 2.0 && err >= -2.0);
        }
        assert_true(usage() < LIMIT - MARGIN / 2);
        effect_seen(l);
        victim_call(agent, l, "undo", NULL);
        verified(l);
        back_and_clean(before, oom0, pid0);
        json_decref(l);
}

static void test_exhaust_percent(void **state) {
        (void)state;
        exhaust("{\"percent\": 50}", LIMIT * 0.5);
}

static void test_exhaust_amount(void **state) {
        (void)state;
        exhaust("{\"amount\": 67108864}", 64 * MiB); /* 64M, as the plan binds it */
}

/* 99% does not fit: capped at the limit minus the margin minus what the cgroup used. */
static void test_exhaust_capped(void **state) {
        (void)state;
        exhaust("{\"percent\": 99}", LIMIT - MARGIN - usage());
}

static void test_leak_rate(void **state) {
        (void)state;
        pid_t pid0 = main_pid();
        long oom0 = oom_kills();
        double before = usage(), rate = 16 * MiB;
        json_t *l = lease_for(agent, "mem.leak", "{\"rate_mb\": 16}");
        victim_call(agent, l, "inject", NULL);
        sleep_ms(500);
        double t0 = monotonic_ms(), u0 = usage();
        sleep_ms(LEAK_WINDOW_MS);
        double t1 = monotonic_ms(), u1 = usage();
        double got = (u1 - u0) / ((t1 - t0) / 1000.0), err = (got - rate) / rate * 100;
        print_message("mem.leak 16 MiB/s: %.2f MiB/s over %.0f ms (%+.2f%%)\n", got / MiB, t1 - t0, err);
        assert_true(err <= 5.0 && err >= -5.0);
        effect_seen(l);
        victim_call(agent, l, "undo", NULL);
        back_and_clean(before, oom0, pid0);
        json_decref(l);
}

/* The application itself grows by 40 MiB (a tmpfs file, charged to the
 * cgroup) while the payload holds the cap: the kernel's OOM killer takes the
 * payload (oom_score_adj 1000), never the application: its write succeeds
 * and its main process is the same. */
static void test_app_grows_to_the_limit(void **state) {
        (void)state;
        pid_t pid0 = main_pid();
        long oom0 = oom_kills();
        double before = usage();
        json_t *l = lease_for(agent, "mem.exhaust", "{\"percent\": 99}");
        victim_call(agent, l, "inject", NULL);
        assert_true(usage() > LIMIT - MARGIN - 2 * MiB);
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "docker", "exec", victim, "/busybox", "dd", "if=/dev/zero",
                                             "of=/dev/shm/mem-test", "bs=1M", "count=40", NULL });
        print_message(
                "app wrote 40 MiB to /dev/shm: exit %d; oom_kill %ld -> %ld; usage %.1f MiB\n", r.exit, oom0,
                oom_kills(), usage() / MiB);
        assert_int_equal(r.exit, 0);
        cmd_result_done(&r);
        assert_int_equal(main_pid(), pid0);
        assert_int_equal(oom_kills(), oom0 + 1); /* one kill: the payload's */
        victim_call(agent, l, "undo", NULL);
        verified(l);
        r = run_command(
                NULL, (const char *const[]){ "docker", "exec", victim, "/busybox", "rm", "/dev/shm/mem-test",
                                             NULL });
        cmd_result_done(&r);
        back_and_clean(before, oom0 + 1, pid0);
        json_decref(l);
}

/* SIGKILL of the agent mid-fault: the payload dies with it (PDEATHSIG), the
 * kernel frees its pages; no recovery step. */
static void test_agent_killed(void **state) {
        (void)state;
        struct agent_client *doomed = victim_agent("memory", "mem");
        pid_t pid0 = main_pid();
        long oom0 = oom_kills();
        double before = usage();
        json_t *l = lease_for(doomed, "mem.exhaust", "{\"percent\": 50}");
        victim_call(doomed, l, "inject", NULL);
        assert_true(usage() - before > LIMIT * 0.49);
        double t0 = monotonic_ms();
        kill(agent_client_pid(doomed), SIGKILL);
        while (usage() > before + BACK_TOL && monotonic_ms() - t0 < 2000)
                sleep_ms(5);
        double took = monotonic_ms() - t0;
        print_message("agent SIGKILLed: usage back to %.1f MiB in %.0f ms\n", usage() / MiB, took);
        assert_true(took <= 1000);
        doomed = agent_client_stop(doomed);
        back_and_clean(before, oom0, pid0);
        json_decref(l);
}

static void remove_victim(void) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "docker", "rm", "-f", victim, NULL });
        cmd_result_done(&r);
}

int main(void) {
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        snprintf(victim, sizeof(victim), "mayhem-mem-%d", (int)getpid());
        if (!victim_run((const char *const[]){ "docker", "run", "-d", "--name", victim, "--memory", "256m",
                                               IMAGE, NULL }) ||
            !find_cgroup(main_pid())) {
                remove_victim();
                engine_free(engine);
                return 77;
        }
        print_message("%s: memory cgroup %s (%s)\n", victim, cgdir, v2 ? "v2" : "v1");
        agent = victim_agent("memory", "mem");
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_exhaust_percent),        cmocka_unit_test(test_exhaust_amount),
                cmocka_unit_test(test_exhaust_capped),         cmocka_unit_test(test_leak_rate),
                cmocka_unit_test(test_app_grows_to_the_limit), cmocka_unit_test(test_agent_killed),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        agent = agent_client_stop(agent);
        remove_victim();
        engine_free(engine);
        return failed;
}
