/* The payload framework (src/fault/payload.h) on a real dockerd and the real
 * mayhem-agent, through cpu.saturate's lease: the test reads /proc itself to
 * see that the payload runs in every cgroup of the container and in its pid
 * namespace, with oom_score_adj 1000, no capabilities and no_new_privs; that
 * undo leaves no payload process; that a process in the container dressed up
 * as a payload of the lease is not killed by the undo; and that a SIGKILLed
 * agent takes its payload with it, with no recovery step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/run-command.h"
#include "common/victim.h"
#include "engine/engine.h"

#define IMAGE    "mayhem-test-busybox:latest"
#define MAX_PIDS 8
/* The agent waits this long for a payload told to stop before it SIGKILLs it
 * (STOP_WAIT_MS of src/fault/payload.c). */
#define STOP_WAIT_MS 1000
/* For a process to show up or go away: a loaded machine, an ASan build's
 * chain of PDEATHSIGs. Dying at all is the point, not how fast. */
#define WAIT_MS 5000

static char victim[64];
static struct engine *engine;
static unsigned next_lease;

static pid_t main_pid(void) {
        return victim_main_pid(engine, victim);
}

static json_t *lease_on(struct agent_client *a, const char *params) {
        char lease_id[32];
        snprintf(lease_id, sizeof(lease_id), "l-pl%06x%04x", (unsigned)getpid() & 0xffffff, ++next_lease);
        return victim_lease(a, victim, "cpu.saturate", lease_id, params);
}

static const char *lease_id(const json_t *l) {
        return json_string_value(json_object_get(l, "id"));
}

/* The text of /proc/PID/NAME, NUL bytes as spaces; "" when unreadable. */
static void proc_text(pid_t pid, const char *name, char *buf, size_t size) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
        FILE *f = fopen(path, "re");
        size_t n = f ? fread(buf, 1, size - 1, f) : 0;
        if (f)
                fclose(f);
        for (size_t i = 0; i < n; i++)
                if (buf[i] == '\0')
                        buf[i] = ' ';
        buf[n] = '\0';
}

/* The host processes whose argv is a payload of lease (any process, any
 * program: the test looks at everything). */
static size_t payload_pids(const char *lease, pid_t *ret) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        char want[96], cmd[1024];
        size_t n = 0;
        snprintf(want, sizeof(want), " payload --fault cpu.saturate --lease %s ", lease);
        while (d && (de = readdir(d)) && n < MAX_PIDS) {
                pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);
                if (pid <= 0)
                        continue;
                proc_text(pid, "cmdline", cmd, sizeof(cmd));
                if (strstr(cmd, want))
                        ret[n++] = pid;
        }
        if (d)
                closedir(d);
        return n;
}

static bool same_link(pid_t a, pid_t b, const char *name) {
        char pa[64], pb[64];
        struct stat sa, sb;
        snprintf(pa, sizeof(pa), "/proc/%d/%s", (int)a, name);
        snprintf(pb, sizeof(pb), "/proc/%d/%s", (int)b, name);
        return stat(pa, &sa) == 0 && stat(pb, &sb) == 0 && sa.st_ino == sb.st_ino;
}

static const char *status_field(const char *status, const char *field, char *buf, size_t size) {
        const char *p = strstr(status, field);
        buf[0] = '\0';
        if (p)
                sscanf(p + strlen(field), " %63s", buf);
        (void)size;
        return buf;
}

/* Every payload process: the container's cgroups, oom_score_adj 1000; the
 * body (the one in the container's pid namespace) without capabilities. */
static void test_payload_is_the_targets(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("cpu", "payload");
        json_t *l = lease_on(a, "{\"percent\": 10}");
        pid_t pids[MAX_PIDS], target = main_pid();
        char want[4096], got[4096], status[4096], v[64];
        victim_call(a, l, "inject", NULL);
        size_t n = payload_pids(lease_id(l), pids), bodies = 0;
        assert_int_equal(n, 2); /* the joiner and the body it forked */
        proc_text(target, "cgroup", want, sizeof(want));
        for (size_t i = 0; i < n; i++) {
                proc_text(pids[i], "cgroup", got, sizeof(got));
                assert_string_equal(got, want);
                proc_text(pids[i], "oom_score_adj", got, sizeof(got));
                assert_int_equal(strtol(got, NULL, 10), 1000);
                if (!same_link(pids[i], target, "ns/pid"))
                        continue;
                bodies++;
                proc_text(pids[i], "status", status, sizeof(status));
                assert_string_equal(status_field(status, "CapEff:", v, sizeof(v)), "0000000000000000");
                assert_string_equal(status_field(status, "NoNewPrivs:", v, sizeof(v)), "1");
                print_message(
                        "body pid %d: CapEff 0, NoNewPrivs 1, cgroups and pid ns of the container\n",
                        (int)pids[i]);
        }
        assert_int_equal(bodies, 1);
        /* Told to stop, it goes by itself, not by the agent's SIGKILL
         * fallback (an ASan build once spun in its exit handlers). The agent
         * writes "stop" after the test asked and SIGKILLs STOP_WAIT_MS after
         * that: an undo, reap and cgroup scan all done within STOP_WAIT_MS of
         * the ask had no SIGKILL in it, however slow the machine. */
        double asked = monotonic_ms();
        victim_call(a, l, "undo", NULL);
        double undo_ms = monotonic_ms() - asked;
        print_message("undo (payload stopped and reaped, cgroup scanned) took %.0f ms\n", undo_ms);
        if (undo_ms >= STOP_WAIT_MS)
                fail_msg(
                        "undo took %.0f ms: the payload did not stop by itself within the agent's %d ms",
                        undo_ms, STOP_WAIT_MS);
        assert_int_equal(payload_pids(lease_id(l), pids), 0);
        json_t *res = NULL;
        victim_call(a, l, "verify", &res);
        assert_true(json_is_true(json_object_get(res, "verified")));
        json_decref(res);
        json_decref(l);
        agent_client_stop(a);
}

/* A process of the container's own whose argv claims to be a payload of the
 * lease runs another program: undo leaves it alone. */
static void test_impostor_survives_undo(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("cpu", "payload");
        json_t *l = lease_on(a, "{\"percent\": 10}");
        char script[64];
        victim_call(a, l, "inject", NULL);
        /* The image has /busybox alone: an "sh" link runs the script "payload". */
        assert_true(victim_run((const char *const[]){
                "docker", "exec", victim, "/busybox", "sh", "-c",
                "/busybox mkdir -p /tmp && /busybox ln -sf /busybox /tmp/sh && echo '/busybox sleep 30' > "
                "/tmp/payload",
                NULL }));
        snprintf(script, sizeof(script), "%s", lease_id(l));
        assert_true(victim_run((const char *const[]){ "docker", "exec", "-d", "-w", "/tmp", victim,
                                                      "/tmp/sh", "payload", "--fault", "cpu.saturate",
                                                      "--lease", script, NULL }));
        /* The joiner, its body and the impostor, once docker exec -d has started it. */
        pid_t pids[MAX_PIDS];
        size_t n = 0;
        for (double t0 = monotonic_ms();
             (n = payload_pids(lease_id(l), pids)) < 3 && monotonic_ms() - t0 < WAIT_MS;)
                sleep_ms(20);
        if (n != 3)
                fail_msg(
                        "%zu processes claim lease %s %d ms after docker exec -d, want 3", n, lease_id(l),
                        WAIT_MS);
        victim_call(a, l, "undo", NULL);
        assert_int_equal(payload_pids(lease_id(l), pids), 1);
        char exe[64];
        proc_text(pids[0], "comm", exe, sizeof(exe));
        print_message("left after undo: pid %d (%s), the container's own\n", (int)pids[0], exe);
        kill(pids[0], SIGKILL);
        json_decref(l);
        agent_client_stop(a);
}

/* SIGKILL of the agent: its payload goes with it, nothing else runs. */
static void test_agent_sigkill_takes_the_payload(void **state) {
        (void)state;
        struct agent_client *a = victim_agent("cpu", "payload");
        json_t *l = lease_on(a, "{\"percent\": 50}");
        pid_t pids[MAX_PIDS];
        victim_call(a, l, "inject", NULL);
        assert_int_equal(payload_pids(lease_id(l), pids), 2);
        double killed = monotonic_ms();
        kill(agent_client_pid(a), SIGKILL);
        size_t left = 2;
        while ((left = payload_pids(lease_id(l), pids)) > 0 && monotonic_ms() - killed < WAIT_MS)
                sleep_ms(5);
        double gone_ms = monotonic_ms() - killed;
        print_message("payload gone %.0f ms after the agent's SIGKILL (%zu left)\n", gone_ms, left);
        if (left > 0)
                fail_msg("%zu payload processes still there %d ms after the agent's SIGKILL", left, WAIT_MS);
        agent_client_stop(a);
        json_decref(l);
}

int main(void) {
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        snprintf(victim, sizeof(victim), "mayhem-payload-%d", (int)getpid());
        if (!victim_run((const char *const[]){ "docker", "run", "-d", "--name", victim, "--cpus", "0.5",
                                               IMAGE, NULL }))
                return 1;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_payload_is_the_targets),
                cmocka_unit_test(test_impostor_survives_undo),
                cmocka_unit_test(test_agent_sigkill_takes_the_payload),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        victim_run((const char *const[]){ "docker", "rm", "-f", victim, NULL });
        engine_free(engine);
        return failed;
}
