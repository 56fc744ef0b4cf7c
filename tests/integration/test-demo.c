#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basic/clock.h"
#include "common/proc-stat.h"
#include "demo-harness.h"
#include "engine/engine.h"

/* The demo drill and the process/container fault family run for real
 * against dockerd; the runner is interrupted and killed mid-fault. Every
 * assertion reads what an operator would: exit codes, `mayhem inspect`, the
 * engine's view of the container. */

static struct demo demo;

/* How long a held run may take to end once interrupted or killed (its undo
 * included), before the test kills it and fails: an interrupted run ends in
 * a second on a quiet machine. */
#define END_WITHIN_MS 60000.0

/* The run's exit code (demo_wait_run), failing with what it printed when it
 * did not end within END_WITHIN_MS. */
static int run_ended(pid_t pid, const char *what) {
        int code = demo_wait_run(&demo, pid, END_WITHIN_MS);
        if (code < 0)
                fail_msg(
                        "%s: the run did not end within %.0f s (its log is above)", what,
                        END_WITHIN_MS / 1000);
        return code;
}

static void assert_container_healthy(void) {
        bool running = false, paused = true;
        assert_true(demo_container(&running, &paused));
        assert_true(running);
        assert_false(paused);
}

static json_t *history_of(const char *stdout_text) {
        const char *id = strstr(stdout_text, "# Run ");
        char run_id[160] = "";
        assert_non_null(id);
        sscanf(id + 6, "%159s", run_id);
        return INSPECT(&demo, "history", run_id);
}

static void assert_all_released(const json_t *history) {
        size_t i;
        json_t *l;
        assert_true(json_array_size(json_object_get(history, "leases")) > 0);
        json_array_foreach(json_object_get(history, "leases"), i, l)
                assert_string_equal(json_string_value(json_object_get(l, "state")), "released");
}

/* How many observations of source had value v between two times (RFC 3339 strings compare in order). */
static size_t count_values(
        const json_t *history, const char *source, double v, const char *from, const char *to) {
        size_t i, n = 0;
        json_t *o;
        json_array_foreach(json_object_get(history, "observations"), i, o) {
                const char *ts = json_string_value(json_object_get(o, "timestamp"));
                double value = json_number_value(json_object_get(json_object_get(o, "data"), "value"));
                if (strcmp(json_string_value(json_object_get(o, "source")), source) == 0 && value == v &&
                    ts && strcmp(ts, from) >= 0 && strcmp(ts, to) <= 0)
                        n++;
        }
        return n;
}

static const char *event_time(const json_t *history, const char *kind, bool last) {
        size_t i;
        json_t *e;
        const char *found = NULL;
        json_array_foreach(
                json_object_get(history, "events"), i,
                e) if (strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0 && (!found || last))
                found = json_string_value(json_object_get(e, "ts"));
        return found;
}

static void test_demo_drill(void **state) {
        struct cmd_result r = MAYHEM(
                &demo, "run", "examples/demo/drill.yaml", "-c", "examples/demo/compose.yaml", "--execute");
        if (r.exit != 0)
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        assert_non_null(strstr(r.out, "**verdict**: pass"));
        json_t *h = history_of(r.out);
        assert_non_null(h);
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(h, "run"), "verdict")), "pass");
        assert_all_released(h);
        /* The outage was seen from outside while the faults were in force. */
        const char *from = event_time(h, "fault.injected", false),
                   *to = event_time(h, "fault.recovered", true);
        assert_non_null(from);
        assert_non_null(to);
        assert_true(count_values(h, "api.http", 0, from, to) >= 2);
        assert_true(count_values(h, "api-after", 1, to, "9999") == 1); /* and it came back */
        assert_true(count_values(h, "f-0001.effect", 1, "", "9999") == 1);
        assert_true(count_values(h, "f-0002.effect", 1, "", "9999") == 1);
        assert_container_healthy();
        json_decref(h);
        cmd_result_done(&r);
}

static void test_process_family(void **state) {
        struct cmd_result r =
                MAYHEM(&demo, "run", "tests/data/drills/process-family.yaml", "-c",
                       "examples/demo/compose.yaml", "--execute");
        if (r.exit != 0)
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        json_t *h = history_of(r.out);
        assert_non_null(h);
        assert_all_released(h);
        for (int f = 1; f <= 8; f++) {
                char source[32];
                snprintf(source, sizeof(source), "f-%04d.effect", f);
                if (count_values(h, source, 1, "", "9999") != 1)
                        fail_msg("%s was not in force:\n%s", source, r.err);
        }
        assert_container_healthy();
        json_decref(h);
        cmd_result_done(&r);
}

/* Polls `inspect leases` until a lease is active, for at most 30 s (each
 * poll is a run of mayhem, slow under the sanitizer); returns it (a new
 * reference). */
#define LEASE_WITHIN_MS 30000.0
static json_t *wait_active_lease(void) {
        for (double until = monotonic_ms() + LEASE_WITHIN_MS; monotonic_ms() < until;) {
                json_t *leases = INSPECT(&demo, "leases");
                size_t k;
                json_t *l;
                json_array_foreach(
                        leases, k,
                        l) if (strcmp(json_string_value(json_object_get(l, "state")), "active") == 0) {
                        json_incref(l);
                        json_decref(leases);
                        return l;
                }
                json_decref(leases);
                sleep_ms(100);
        }
        return NULL;
}

static pid_t start_hold(void) {
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", "tests/data/drills/hold-pause.yaml", "-c",
                                              "examples/demo/compose.yaml", "--execute", NULL });
        assert_true(pid > 0);
        return pid;
}

/* The spawned run's output, when the lease it should hold never came. */
static json_t *held_lease(void) {
        json_t *lease = wait_active_lease();
        if (!lease) {
                _cleanup_free_ char *log = demo_spawn_log(&demo);
                fail_msg("no active lease within %.0f s; the run said:\n%s", LEASE_WITHIN_MS / 1000, log);
        }
        return lease;
}

static void test_sigint_undoes_active_faults(void **state) {
        pid_t pid = start_hold();
        json_t *lease = held_lease();
        bool running = false, paused = false;
        assert_true(demo_container(&running, &paused) && paused);
        kill(pid, SIGINT);
        assert_int_equal(run_ended(pid, "SIGINT"), 6); /* the run did not complete */
        assert_container_healthy();
        json_t *open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 0);
        json_decref(open);
        json_decref(lease);
}

/* The controller dies mid-fault: its agent's dead-man's switch undoes the
 * fault at once, the journal still lists the lease as active with what undoes
 * it, and the janitor reconciles it. */
static void test_sigkill_leaves_the_lease_listed(void **state) {
        pid_t pid = start_hold();
        json_t *lease = held_lease();
        kill(pid, SIGKILL);
        run_ended(pid, "SIGKILL");

        /* At once on a quiet machine; a loaded one, under the sanitizer, takes
         * seconds. The lease TTL (120 s at least) is far away: only the agent's
         * dead-man's switch unpauses it this soon. */
        bool running = false, paused = true;
        double t0 = monotonic_ms();
        while (demo_container(&running, &paused) && paused && monotonic_ms() - t0 < 10000)
                sleep_ms(20);
        print_message("demo-api unpaused %.0f ms after the controller's SIGKILL\n", monotonic_ms() - t0);
        if (!running || paused)
                fail_msg(
                        "demo-api still %s 10 s after the controller's SIGKILL", paused ? "paused" : "down");
        json_t *open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 1);
        json_t *l = json_array_get(open, 0);
        assert_string_equal(json_string_value(json_object_get(l, "state")), "active");
        assert_string_equal(json_string_value(json_object_get(l, "fault_id")), "container.pause");
        json_t *undo = json_array_get(json_object_get(l, "undo"), 0);
        assert_string_equal(json_string_value(json_object_get(undo, "op")), "engine.unpause");
        json_t *args = json_object_get(undo, "args");
        assert_string_equal(json_string_value(json_object_get(args, "container_name")), "demo-api");
        assert_int_equal(strlen(json_string_value(json_object_get(args, "container_id"))), 64);
        json_t *runs = INSPECT(&demo, "runs", "--run", json_string_value(json_object_get(l, "run_id")));
        assert_string_equal(json_string_value(json_object_get(json_array_get(runs, 0), "status")), "stale");
        json_decref(runs);
        json_decref(open);
        json_decref(lease);

        struct cmd_result r = MAYHEM(&demo, "janitor", "--execute");
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "recovered active lease"));
        cmd_result_done(&r);
        open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 0);
        json_decref(open);
}

static void test_timeout_aborts_and_undoes(void **state) {
        struct cmd_result r =
                MAYHEM(&demo, "run", "tests/data/drills/timeout-pause.yaml", "-c",
                       "examples/demo/compose.yaml", "--execute");
        assert_int_equal(r.exit, 6);
        assert_non_null(strstr(r.out, "**status**: aborted"));
        assert_non_null(strstr(r.out, "config.timeout of 8s passed"));
        json_t *h = history_of(r.out);
        assert_all_released(h);
        assert_container_healthy();
        json_decref(h);
        cmd_result_done(&r);
}

static void test_recovery_false_keeps_the_fault(void **state) {
        struct cmd_result r =
                MAYHEM(&demo, "run", "tests/data/drills/keep-paused.yaml", "-c",
                       "examples/demo/compose.yaml", "--execute");
        assert_int_equal(r.exit, 0);
        bool running = false, paused = false;
        assert_true(demo_container(&running, &paused) && paused);
        assert_non_null(strstr(r.out, "1 kept faulted"));
        json_t *h = history_of(r.out);
        json_t *l = json_array_get(json_object_get(h, "leases"), 0);
        assert_string_equal(json_string_value(json_object_get(l, "state")), "kept_faulted");
        assert_true(json_is_null(json_object_get(l, "release_mechanism")));
        /* Open on purpose, until recovered (tests/integration/test-keep.c for the rest). */
        struct cmd_result rec =
                MAYHEM(&demo, "recover", "execute", json_string_value(json_object_get(l, "run_id")));
        assert_int_equal(rec.exit, 0);
        assert_true(demo_container(&running, &paused) && running && !paused);
        cmd_result_done(&rec);
        json_decref(h);
        cmd_result_done(&r);
}

/* Last: it removes the demo container. An undo that cannot work leaves the
 * lease dirty with notes, and the run exits 7. */
static void test_undo_failure_is_dirty(void **state) {
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", "tests/data/drills/hold-kill.yaml", "-c",
                                              "examples/demo/compose.yaml", "--execute", NULL });
        json_t *lease = held_lease();
        struct cmd_result rm =
                run_command(NULL, (const char *const[]){ demo_engine_cli(), "rm", "-f", "demo-api", NULL });
        assert_int_equal(rm.exit, 0);
        cmd_result_done(&rm);
        kill(pid, SIGINT); /* no need to wait out the hold */
        int code = run_ended(pid, "SIGINT");
        if (code != 7)
                fail_msg("exit %d:\n%s", code, demo_spawn_log(&demo));
        json_t *open = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(open), 1);
        json_t *l = json_array_get(open, 0);
        assert_string_equal(json_string_value(json_object_get(l, "state")), "dirty");
        const char *notes = json_string_value(json_object_get(l, "escalation_notes"));
        assert_non_null(strstr(notes, "engine.start: "));
        assert_non_null(strcasestr(notes, "no such container")); /* Docker and Podman word it differently */

        /* A person gives it up: the journal keeps why, the janitor lets it be. */
        const char *id = json_string_value(json_object_get(l, "id"));
        struct cmd_result r = MAYHEM(&demo, "recover", "forget", id);
        assert_int_equal(r.exit, 2); /* no --reason: a usage error */
        cmd_result_done(&r);
        r = MAYHEM(&demo, "recover", "forget", id, "--reason", "demo-api was removed by the test");
        if (r.exit != 0)
                fail_msg("forget: exit %d %s%s", r.exit, r.out, r.err);
        assert_non_null(strstr(r.out, "was dirty"));
        cmd_result_done(&r);
        json_t *left = INSPECT(&demo, "leases");
        assert_int_equal(json_array_size(left), 0);
        json_decref(left);
        json_t *all = INSPECT(&demo, "leases", "--all");
        json_t *gone = json_array_get(all, 0);
        assert_string_equal(json_string_value(json_object_get(gone, "state")), "expired");
        assert_string_equal(json_string_value(json_object_get(gone, "release_mechanism")), "manual");
        assert_non_null(
                strstr(json_string_value(json_object_get(gone, "escalation_notes")),
                       "forgotten by hand (was dirty): demo-api was removed by the test"));
        json_decref(all);
        r = MAYHEM(&demo, "janitor", "--execute");
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "nothing to recover"));
        cmd_result_done(&r);
        json_decref(open);
        json_decref(lease);
}

/* The CPU quota of the demo container's cgroup, read from cgroupfs by the test itself. */
static void quota_of_demo(char *buf, size_t size) {
        struct engine_container c;
        struct engine *e = NULL;
        if (engine_open(demo_podman() ? ENGINE_PODMAN : ENGINE_DOCKER, NULL, &e, NULL) < 0 ||
            engine_container_inspect(e, "demo-api", &c, NULL) < 0 || c.pid <= 0) {
                engine_free(e);
                fail_msg("demo-api is not running");
        }
        engine_free(e);
        proc_cpu_quota_text(c.pid, buf, size);
}

static void expect_refused(const char *drill, const json_t *holder) {
        struct cmd_result r = MAYHEM(&demo, "run", drill, "-c", "examples/demo/compose.yaml", "--execute");
        if (r.exit != 5)
                fail_msg("%s: exit %d, not 5:\n%s%s", drill, r.exit, r.out, r.err);
        const char *id = json_string_value(json_object_get(holder, "id")),
                   *run = json_string_value(json_object_get(holder, "run_id"));
        if (!strstr(r.err, id) || !strstr(r.err, run))
                fail_msg("%s: the refusal names neither lease %s nor run %s:\n%s", drill, id, run, r.err);
        print_message("%s refused: %.300s", drill, strstr(r.err, "error") ? strstr(r.err, "error") : r.err);
        cmd_result_done(&r);
}

/* A cpu.throttle held 30 s on demo-api (tests/data/drills/hold-throttle.yaml
 * holds 8 s: a second run of the sanitizer build on a loaded machine can
 * take longer than that to be refused). The test interrupts it once its
 * checks are done. */
static const char *hold_throttle_drill(void) {
        static char path[128];
        snprintf(path, sizeof(path), "%s.hold-throttle.yaml", demo.db);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("kind: drill\nname: hold-throttle\ncontainers:\n  demo-api:\n    faults:\n"
              "      - {fault: cpu.throttle, percent: 50, duration: 30s}\n"
              "config: {risk_ceiling: high}\nexecution:\n  - sequential: [demo-api]\n",
              f);
        assert_int_equal(fclose(f), 0);
        return path;
}

/* Two runs on one container: the second's conflicting fault is refused
 * before it touches anything, and the first's undo puts back exactly what
 * was there before it. */
static void test_overlapping_runs_refused(void **state) {
        char before[128], during[128], after[128];
        const char *drill = hold_throttle_drill();
        quota_of_demo(before, sizeof(before));
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "run", drill, "-c", "examples/demo/compose.yaml", "--execute",
                                              NULL });
        json_t *lease = held_lease();
        quota_of_demo(during, sizeof(during));
        assert_string_not_equal(during, before);
        expect_refused("tests/data/drills/throttle-20.yaml", lease);
        quota_of_demo(after, sizeof(after));
        assert_string_equal(after, during); /* the second run changed nothing */
        kill(pid, SIGINT);                  /* no need to wait out the hold: its undo runs now */
        assert_int_equal(run_ended(pid, "SIGINT"), 6);
        unlink(drill);
        quota_of_demo(after, sizeof(after));
        assert_string_equal(after, before);
        print_message("cpu quota %s, %s while held, %s after\n", before, during, after);
        json_decref(lease);

        pid = start_hold();
        lease = held_lease();
        expect_refused("tests/data/drills/hold-kill.yaml", lease);
        bool running = false, paused = false;
        assert_true(demo_container(&running, &paused) && running && paused); /* not killed */
        kill(pid, SIGINT);
        assert_int_equal(run_ended(pid, "SIGINT"), 6);
        assert_true(demo_container(&running, &paused) && running && !paused);
        json_decref(lease);
}

static int fresh_db(void **state) {
        demo_fresh_db(&demo);
        return 0;
}

int main(void) {
        int r = demo_up(&demo);
        if (r == 77) {
                fprintf(stderr, "no Docker engine answers: skipped\n");
                return 77;
        }
        if (r < 0) {
                demo_down(&demo);
                return 1;
        }
        const struct CMUnitTest tests[] = {
                /* each test starts with an empty evidence database */
                cmocka_unit_test_setup(test_demo_drill, fresh_db),
                cmocka_unit_test_setup(test_process_family, fresh_db),
                cmocka_unit_test_setup(test_sigint_undoes_active_faults, fresh_db),
                cmocka_unit_test_setup(test_sigkill_leaves_the_lease_listed, fresh_db),
                cmocka_unit_test_setup(test_timeout_aborts_and_undoes, fresh_db),
                cmocka_unit_test_setup(test_recovery_false_keeps_the_fault, fresh_db),
                cmocka_unit_test_setup(test_overlapping_runs_refused, fresh_db),
                cmocka_unit_test_setup(test_undo_failure_is_dirty, fresh_db),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        demo_down(&demo);
        return failed;
}
