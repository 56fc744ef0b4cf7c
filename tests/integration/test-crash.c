#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/proc-stat.h"
#include "basic/clock.h"
#include "demo-harness.h"

/* Several faults at once on a small stack: over the default blast radius (docs/safety.md). */
#define WIDE_BLAST "tests/data/config/wide-blast.yaml"
#include "engine/engine.h"

/* Nothing mayhem does may outlive it by accident. 20 times the controller is
 * SIGKILLed at a random moment of a drill that holds container.pause and
 * proc.pause on two containers: within 10 s its agent must have undone both
 * (a lease's TTL is 120 s at least, src/plan/plan.h: only the dead-man's
 * switch undoes that soon; it takes well under a second on a quiet machine,
 * and the worst round is printed), and `mayhem janitor --execute` must leave
 * the journal agreeing. Then 20 times the agent is SIGKILLed instead: the
 * controller stops with exit 7 and `mayhem recover execute` must repair it.
 * After every round: zero residue. */

#define ROUNDS 20
/* A loaded machine, under the sanitizer, takes seconds to run the agent's
 * undo and the engine's unpause; the lease TTL (>= 120 s) is what the
 * bound must stay far below. */
#define UNDO_WITHIN 10000.0
/* How long a run of the crash drill (2 s holds) may take before the test
 * gives up on it and kills it. */
#define RUN_WITHIN 60000.0
#define WORKER     "mayhem-crash-worker"
#define DRILL      "tests/data/drills/crash.yaml"
#define COMPOSE    "tests/data/compose/crash/compose.yaml"

static struct demo demo;
static unsigned seed;
static double worst_undo_ms;

/* Both targets back: the API running and unpaused, the worker's main process not stopped. */
static bool restored(char *why, size_t size) {
        struct engine_container api, worker;
        if (!demo_inspect_container("demo-api", &api) || !demo_inspect_container(WORKER, &worker))
                return snprintf(why, size, "inspect failed"), false;
        if (!api.running || api.paused)
                return snprintf(why, size, "demo-api is %s", api.status), false;
        char state = worker.running ? proc_state_of(worker.pid) : '-';
        if (!worker.running || state == 'T' || state == 't')
                return snprintf(why, size, "worker %s, main process state %c", worker.status, state), false;
        return true;
}

static void assert_no_residue(void) {
        char why[256] = "";
        if (!restored(why, sizeof(why)))
                fail_msg("residue: %s", why);
        /* Only agents of this test's runs: a keeper an earlier test left is not ours. */
        double until = monotonic_ms() + 10000;
        while (demo_agents_new(NULL) > 0 && monotonic_ms() < until)
                sleep_ms(20);
        int agent = 0;
        if (demo_agents_new(&agent) > 0)
                fail_msg("agent pid %d (and maybe more) still runs 10 s after its run ended", agent);
        json_t *open = INSPECT(&demo, "leases");
        if (json_array_size(open) != 0) {
                char *text = json_dumps(open, 0);
                fail_msg("open leases left: %s", text);
        }
        json_decref(open);
}

static pid_t start_drill(void) {
        pid_t pid = demo_mayhem_spawn(
                &demo, (const char *const[]){ "--config", WIDE_BLAST, "run", DRILL, "-c", COMPOSE,
                                              "--execute", NULL });
        assert_true(pid > 0);
        return pid;
}

static double random_ms(double lo, double hi) {
        return lo + (hi - lo) * (double)rand_r(&seed) / RAND_MAX;
}

static void one_controller_kill(int round) {
        demo_fresh_db(&demo);
        pid_t pid = start_drill();
        double delay = random_ms(0, 3000);
        sleep_ms(delay);
        kill(pid, SIGKILL);
        double t0 = monotonic_ms();
        if (demo_wait_exit(pid, 10000) < 0)
                fail_msg("round %d: the controller did not die of SIGKILL within 10 s", round);
        char why[256] = "";
        while (!restored(why, sizeof(why)) && monotonic_ms() - t0 < UNDO_WITHIN)
                sleep_ms(10);
        double took = monotonic_ms() - t0;
        if (took >= UNDO_WITHIN)
                fail_msg(
                        "round %d (killed after %.0f ms): not undone within %.0f s: %s", round, delay,
                        UNDO_WITHIN / 1000, why);
        worst_undo_ms = took > worst_undo_ms ? took : worst_undo_ms;
        struct cmd_result r = MAYHEM(&demo, "janitor", "--execute");
        if (r.exit != 0)
                fail_msg("round %d: janitor exit %d: %s%s", round, r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_no_residue();
}

static void test_controller_sigkill(void **state) {
        for (int i = 0; i < ROUNDS; i++)
                one_controller_kill(i);
        print_message(
                "controller SIGKILLed %d times: everything undone by the agent within %.0f ms at worst\n",
                ROUNDS, worst_undo_ms);
}

static const char *latest_run(char *buf, size_t size) {
        json_t *runs = INSPECT(&demo, "runs");
        snprintf(buf, size, "%s", json_string_value(json_object_get(json_array_get(runs, 0), "id")));
        json_decref(runs);
        return buf;
}

static void one_agent_kill(int round) {
        char run_id[160];
        int agent = 0;
        demo_fresh_db(&demo);
        pid_t pid = start_drill();
        /* An ASan controller on a loaded machine takes seconds to plan and spawn it. */
        double until = monotonic_ms() + 20000;
        while (demo_agents(pid, &agent) == 0 && monotonic_ms() < until)
                sleep_ms(5);
        if (agent <= 0) {
                static char log[4096];
                char *text = demo_spawn_log(&demo);
                snprintf(log, sizeof(log), "%s", text);
                free(text);
                kill(pid, SIGKILL);
                demo_wait_exit(pid, 10000);
                fail_msg("round %d: the controller started no agent within 20 s:\n%s", round, log);
        }
        sleep_ms(random_ms(0, 2500));
        kill(agent, SIGKILL);
        /* 7: it held a lease; 6: it held none (between faults), the run did
         * not complete; 0: the drill had already ended; 8: it died before the
         * handshake, so no run began and nothing was touched. -1: still
         * running (killed by the test); over 128: killed by a signal. */
        int code = demo_wait_run(&demo, pid, RUN_WITHIN);
        if (code != 7 && code != 6 && code != 0 && code != 8) {
                static char log[4096];
                char *text = demo_spawn_log(&demo);
                snprintf(log, sizeof(log), "%s", text);
                free(text);
                fail_msg(
                        "round %d: controller exit %d (-1: still running after %.0f s; over 128: killed "
                        "by a signal) after its agent died:\n%s",
                        round, code, RUN_WITHIN / 1000, log);
        }
        if (code == 8) {
                assert_no_residue();
                return;
        }
        struct cmd_result r = MAYHEM(&demo, "recover", "execute", latest_run(run_id, sizeof(run_id)));
        if (r.exit != 0 || (code != 7 && !strstr(r.out, "nothing to recover")))
                fail_msg("round %d (run exit %d): recover exit %d: %s%s", round, code, r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_no_residue();
}

static void test_agent_sigkill(void **state) {
        for (int i = 0; i < ROUNDS; i++)
                one_agent_kill(i);
}

static bool start_worker(void) {
        struct cmd_result r = run_command(
                NULL, (const char *const[]){ "docker", "run", "-d", "--name", WORKER, "--label",
                                             "com.docker.compose.project=crash", "--label",
                                             "com.docker.compose.service=worker",
                                             "mayhem-test-busybox:latest", NULL });
        bool ok = r.exit == 0;
        if (!ok)
                fprintf(stderr, "docker run %s: %s", WORKER, r.err);
        cmd_result_done(&r);
        return ok;
}

static void remove_worker(void) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "docker", "rm", "-f", WORKER, NULL });
        cmd_result_done(&r);
}

int main(void) {
        int r = demo_up(&demo);
        if (r == 77)
                return 77;
        remove_worker();
        if (r < 0 || !start_worker()) {
                demo_down(&demo);
                return 1;
        }
        seed = (unsigned)time(NULL);
        printf("crash test seed %u\n", seed);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_controller_sigkill),
                cmocka_unit_test(test_agent_sigkill),
        };
        int failed = cmocka_run_group_tests(tests, NULL, NULL);
        remove_worker();
        demo_down(&demo);
        return failed;
}
