/* The agent against what an attacker of its RPC would send, on a real
 * dockerd and the real mayhem-agent binary: forged undo ops, a docker lease
 * whose pid names a host process, a target naming a socket of its own, an
 * undo that names another target for a held lease, a lease for a container
 * that restarted since it was resolved, and a fault outside the agent's
 * roles. Each is refused, and the test looks at the target itself (its
 * process state, the engine's view, the fake socket's connections), not at
 * the reply alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "basic/clock.h"
#include "common/agent-lease.h"
#include "common/proc-stat.h"
#include "common/run-command.h"
#include "engine/engine.h"

#define IMAGE "mayhem-test-busybox:latest"

static char victim_a[64], victim_b[64];
static struct agent_client *agent;
static struct engine *engine;
static unsigned next_lease;

static bool docker(const char *const *argv) {
        struct cmd_result r = run_command(NULL, argv);
        bool ok = r.exit == 0;
        if (!ok)
                fprintf(stderr, "%s %s: %s", argv[0], argv[1], r.err ? r.err : "");
        cmd_result_done(&r);
        return ok;
}

static pid_t main_pid(const char *name) {
        struct engine_container c;
        return engine_container_inspect(engine, name, &c, NULL) >= 0 && c.running ? c.pid : 0;
}

static bool paused(const char *name) {
        struct engine_container c;
        return engine_container_inspect(engine, name, &c, NULL) >= 0 && c.paused;
}

static json_t *identity_of(const char *name) {
        json_t *id = NULL;
        struct mh_error e = { 0 };
        if (agent_lease_resolve(agent, "docker", name, &id, &e) < 0)
                fail_msg("target.resolve %s: %s", name, e.msg);
        return id;
}

static json_t *lease_for(const char *fault, json_t *identity) {
        char id[32];
        snprintf(id, sizeof(id), "l-%08x%08x", (unsigned)getpid(), ++next_lease);
        json_t *l = agent_lease_new(id, fault, identity, NULL, NULL);
        assert_non_null(l);
        return l;
}

/* The call is refused: < 0, and the message says why. */
static void refused(json_t *lease, const char *phase, const char *why) {
        struct mh_error e = { 0 };
        if (agent_lease_call(agent, lease, phase, NULL, &e) >= 0)
                fail_msg("%s was not refused", phase);
        if (!strstr(e.msg, why))
                fail_msg("%s refused, but: %s (wanted \"%s\")", phase, e.msg, why);
        print_message("refused: %.200s\n", e.msg);
}

static void test_forged_ops(void **state) {
        (void)state;
        json_t *id = identity_of(victim_a), *l = lease_for("proc.pause", id);
        json_object_set_new(l, "undo", json_pack("[s]", "cgroup.restore_cpu"));
        refused(l, "inject", "differ from what proc.pause uses");
        assert_int_not_equal(proc_state_of(main_pid(victim_a)), 'T');
        json_decref(l);
        json_decref(id);
}

/* A docker lease whose pid is a host process: the agent reads the
 * container's main process itself, sees another, and touches neither. */
static void test_spoofed_pid(void **state) {
        (void)state;
        pid_t host = fork();
        if (host == 0) {
                for (int i = 0; i < 600; i++) /* bounded: 60 s */
                        usleep(100000);
                _exit(0);
        }
        struct proc_stat st;
        assert_true(proc_stat_read(host, &st));
        json_t *id = identity_of(victim_a), *l = lease_for("proc.pause", id);
        json_t *t = json_object_get(l, "target");
        json_object_set_new(t, "pid", json_integer(host));
        json_object_set_new(t, "pid_start_time", json_integer((json_int_t)st.start_time));
        refused(l, "inject", "not the one the controller resolved");
        assert_int_not_equal(proc_state_of(host), 'T');
        assert_int_not_equal(proc_state_of(main_pid(victim_a)), 'T');
        kill(host, SIGKILL);
        waitpid(host, NULL, 0);
        json_decref(l);
        json_decref(id);
}

/* A unix socket that counts who connects to it. */
static int fake_engine(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
        unlink(path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        assert_int_equal(listen(fd, 8), 0);
        return fd;
}

static void test_foreign_socket_never_dialled(void **state) {
        (void)state;
        char path[64];
        snprintf(path, sizeof(path), "/tmp/mayhem-trust-%d.sock", (int)getpid());
        int fd = fake_engine(path);
        json_t *id = identity_of(victim_a), *l = lease_for("container.pause", id);
        json_object_set_new(json_object_get(l, "target"), "socket", json_string(path));
        struct mh_error e = { 0 };
        if (agent_lease_call(agent, l, "inject", NULL, &e) < 0)
                fail_msg("inject: %s", e.msg);
        assert_true(paused(victim_a)); /* through the agent's own socket */
        if (agent_lease_call(agent, l, "undo", NULL, &e) < 0)
                fail_msg("undo: %s", e.msg);
        assert_false(paused(victim_a));
        struct pollfd p = { .fd = fd, .events = POLLIN };
        assert_int_equal(poll(&p, 1, 100), 0); /* nobody knocked */
        close(fd);
        unlink(path);
        json_decref(l);
        json_decref(id);
}

/* An undo naming another target for a lease the agent holds is refused, and
 * the victim stays as the held lease has it until the real undo. */
static void test_cross_target_undo(void **state) {
        (void)state;
        json_t *a = identity_of(victim_a), *b = identity_of(victim_b), *l = lease_for("proc.pause", a);
        struct mh_error e = { 0 };
        if (agent_lease_call(agent, l, "inject", NULL, &e) < 0)
                fail_msg("inject: %s", e.msg);
        for (int i = 0; i < 100 && proc_state_of(main_pid(victim_a)) != 'T'; i++)
                sleep_ms(10);
        assert_int_equal(proc_state_of(main_pid(victim_a)), 'T');
        json_t *other = json_deep_copy(l);
        json_object_set(other, "target", b);
        refused(other, "undo", "the request names another fault or target");
        assert_int_equal(proc_state_of(main_pid(victim_a)), 'T'); /* still the held lease's */
        if (agent_lease_call(agent, l, "undo", NULL, &e) < 0)
                fail_msg("undo: %s", e.msg);
        assert_int_not_equal(proc_state_of(main_pid(victim_a)), 'T');
        json_decref(other);
        json_decref(l);
        json_decref(a);
        json_decref(b);
}

/* A restarted container is a new target: a lease of the old one is refused. */
static void test_lease_after_restart(void **state) {
        (void)state;
        json_t *id = identity_of(victim_b), *l = lease_for("container.pause", id);
        assert_true(docker((const char *const[]){ "docker", "restart", "-t", "1", victim_b, NULL }));
        refused(l, "inject", "a restarted container");
        assert_false(paused(victim_b));
        json_decref(l);
        json_decref(id);
}

/* --roles proc,container: no CPU quota, whatever the lease says. */
static void test_outside_the_roles(void **state) {
        (void)state;
        json_t *id = identity_of(victim_a), *l = lease_for("cpu.throttle", id);
        refused(l, "inject", "not authorized to inject 'cpu.throttle': it needs role cpu");
        refused(l, "undo", "not authorized to undo 'cpu.throttle'");
        json_decref(l);
        json_decref(id);
}

/* A second lease of a conflicting fault on a target the agent holds one on
 * is refused, whoever asks: the container stays paused, and running. */
static void test_conflicting_lease(void **state) {
        (void)state;
        json_t *id = identity_of(victim_a), *pause = lease_for("container.pause", id),
               *kill = lease_for("container.kill", id), *again = lease_for("container.pause", id);
        struct mh_error e = { 0 };
        if (agent_lease_call(agent, pause, "inject", NULL, &e) < 0)
                fail_msg("inject: %s", e.msg);
        refused(kill, "inject", "conflicts with lease");
        refused(again, "inject", "the same fault");
        assert_true(paused(victim_a));
        assert_true(main_pid(victim_a) > 0);
        if (agent_lease_call(agent, pause, "undo", NULL, &e) < 0)
                fail_msg("undo: %s", e.msg);
        assert_false(paused(victim_a));
        json_decref(pause);
        json_decref(kill);
        json_decref(again);
        json_decref(id);
}

#define STATE_DIR "/var/lib/mayhem-agent" /* the agent's default as root */

static struct agent_client *cpu_agent(void) {
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = "cpu",
                                          .run_id = "trust" };
        struct agent_client *c = NULL;
        struct mh_error e = { 0 };
        if (agent_client_start(&o, &c, &e) < 0)
                fail_msg("agent: %s", e.msg);
        return c;
}

/* SIGKILL: nothing of the agent's runs any more, and nothing undoes a quota. */
static void kill_agent(struct agent_client **c) {
        kill(agent_client_pid(*c), SIGKILL);
        *c = agent_client_stop(*c);
}

static char *read_text(const char *path) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "cat", path, NULL });
        char *text = r.exit == 0 && r.out ? strdup(r.out) : NULL;
        cmd_result_done(&r);
        return text;
}

/* cpu.throttle through an agent that is then SIGKILLed: a fresh agent puts
 * the quota back from its own record of the lease, not from the restore the
 * request carries (forged here); with no record it refuses and leaves the
 * quota as it is; verified back, the record stays, settled. The quota is
 * read from cgroupfs by the test. */
static void test_recovery_uses_agent_record(void **state) {
        (void)state;
        struct agent_client *first = cpu_agent(), *fresh = NULL;
        struct mh_error e = { 0 };
        char before[64], during[64], now[64], record[128];
        json_t *id = identity_of(victim_a), *l = lease_for("cpu.throttle", id), *res = NULL;
        proc_cpu_quota_text(main_pid(victim_a), before, sizeof(before));
        if (agent_lease_call(first, l, "inject", NULL, &e) < 0)
                fail_msg("inject: %s", e.msg);
        proc_cpu_quota_text(main_pid(victim_a), during, sizeof(during));
        assert_string_not_equal(during, before);
        snprintf(record, sizeof(record), STATE_DIR "/%s.json", json_string_value(json_object_get(l, "id")));
        char *kept = read_text(record);
        assert_non_null(kept);
        assert_non_null(strstr(kept, "cpu_quota"));
        kill_agent(&first);
        json_object_set_new(l, "restore", json_pack("{s:i, s:i}", "cpu_quota", 5000, "cpu_period", 100000));

        /* No record on this host: refused, the quota as the fault left it. */
        assert_int_equal(unlink(record), 0);
        fresh = cpu_agent();
        if (agent_lease_call(fresh, l, "undo", NULL, &e) >= 0 || !strstr(e.msg, "has no record of lease"))
                fail_msg("undo without a record: %s", e.msg);
        print_message("refused: %.200s\n", e.msg);
        proc_cpu_quota_text(main_pid(victim_a), now, sizeof(now));
        assert_string_equal(now, during);

        /* The record back: the quota before the fault, not the forged 5000. */
        FILE *f = fopen(record, "we");
        assert_non_null(f);
        fputs(kept, f);
        fclose(f);
        if (agent_lease_call(fresh, l, "undo", NULL, &e) < 0 ||
            agent_lease_call(fresh, l, "verify", &res, &e) < 0)
                fail_msg("undo from the record: %s", e.msg);
        proc_cpu_quota_text(main_pid(victim_a), now, sizeof(now));
        assert_string_equal(now, before);
        assert_true(json_is_true(json_object_get(res, "verified")));
        char *settled = read_text(record); /* verified back: the record says so */
        assert_true(settled && strstr(settled, "\"settled\":true"));
        free(settled);
        print_message(
                "cpu quota %s, %s while held, %s after a fresh agent's undo (the request said 5000)\n",
                before, during, now);
        fresh = agent_client_stop(fresh);
        unlink(record);
        free(kept);
        json_decref(res);
        json_decref(l);
        json_decref(id);
}

static bool start_victim(char *name, size_t size, const char *which) {
        snprintf(name, size, "mayhem-trust-%s-%d", which, (int)getpid());
        return docker((const char *const[]){ "docker", "run", "-d", "--name", name, IMAGE, NULL });
}

static void remove_victims(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", victim_a, victim_b, NULL });
        cmd_result_done(&r);
}

int main(void) {
        struct mh_error e = { 0 };
        if (geteuid() != 0 || engine_open(ENGINE_DOCKER, NULL, &engine, NULL) < 0)
                return 77;
        if (!start_victim(victim_a, sizeof(victim_a), "a") ||
            !start_victim(victim_b, sizeof(victim_b), "b")) {
                remove_victims();
                return 1;
        }
        struct agent_client_options o = { .agent_path = getenv("MAYHEM_AGENT_BIN"),
                                          .roles = "proc,container",
                                          .run_id = "trust" };
        if (agent_client_start(&o, &agent, &e) < 0) {
                fprintf(stderr, "agent: %s\n", e.msg);
                remove_victims();
                return 1;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_forged_ops),
                cmocka_unit_test(test_spoofed_pid),
                cmocka_unit_test(test_foreign_socket_never_dialled),
                cmocka_unit_test(test_cross_target_undo),
                cmocka_unit_test(test_lease_after_restart),
                cmocka_unit_test(test_outside_the_roles),
                cmocka_unit_test(test_conflicting_lease),
                cmocka_unit_test(test_recovery_uses_agent_record),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        agent = agent_client_stop(agent);
        remove_victims();
        engine_free(engine);
        return failed;
}
