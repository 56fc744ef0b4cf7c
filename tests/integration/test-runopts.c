/* Issue 13, `run`'s options against a real dockerd, through the whole tool
 * (tests/data/compose/runopts: containers a and b):
 *  - --ctr a: only a's fault runs; b is watched from the engine all along
 *    and never paused; the run row holds execution_intent "explicit" and
 *    the environment fingerprint;
 *  - --from-plan: a matching saved plan runs; once the compose file is
 *    edited it is refused with exit 5 before anything is touched (no run
 *    row, both containers as they were);
 *  - the impact gate on a kernel without netem and NFQUEUE (the agent's
 *    kernel report masked by kernel-mask-agent): the delay on a is
 *    bypassed (step "bypassed", no lease, no residue in a's netns) while b's
 *    pause still runs; with --skip-gate it is attempted and fails honestly
 *    (failed_to_apply), and the run is marked break_glass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/clock.h"
#include "demo-harness.h"

#define A       "mayhem-runopts-a"
#define B       "mayhem-runopts-b"
#define COMPOSE "tests/data/compose/runopts/compose.yaml"

static struct demo demo;
static char work[128], compose[200], drill[200];

static void rm_containers(void) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "docker", "rm", "-f", A, B, NULL });
        cmd_result_done(&r);
}

static void copy_compose(void) {
        char src[700], *data = NULL;
        size_t len = 0;
        snprintf(src, sizeof(src), "%s/" COMPOSE, demo.root);
        FILE *in = fopen(src, "re"), *out = fopen(compose, "we");
        assert_non_null(in);
        assert_non_null(out);
        data = malloc(1 << 16);
        len = fread(data, 1, 1 << 16, in);
        fwrite(data, 1, len, out);
        free(data);
        fclose(in);
        fclose(out);
}

/* 0 ready, 77 when no engine answers (skipped), -1 on failure. */
static int start(void) {
        struct engine *e = NULL;
        snprintf(demo.root, sizeof(demo.root), "%s", getenv("MAYHEM_SOURCE_ROOT"));
        demo_fresh_db(&demo);
        if (demo_podman() || engine_open(ENGINE_DOCKER, NULL, &e, NULL) < 0)
                return 77;
        engine_free(e);
        rm_containers();
        if (!demo_run_service(A, "runopts", "a") || !demo_run_service(B, "runopts", "b"))
                return -1;
        snprintf(work, sizeof(work), "/tmp/mayhem-itest-runopts-%d", (int)getpid());
        mkdir(work, 0755);
        snprintf(compose, sizeof(compose), "%s/compose.yaml", work);
        snprintf(drill, sizeof(drill), "%s/drill.yaml", work);
        copy_compose();
        return 0;
}

static int teardown(void **state) {
        rm_containers();
        struct cmd_result r = run_command(NULL, (const char *const[]){ "rm", "-rf", work, NULL });
        cmd_result_done(&r);
        demo_fresh_db(&demo);
        return 0;
}

static void write_drill(const char *faults_a, const char *faults_b, const char *execution) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f,
                "kind: drill\nname: runopts\ncontainers:\n  " A ":\n    faults:\n%s  " B ":\n    faults:\n%s"
                "execution:\n%s",
                faults_a, faults_b, execution);
        fclose(f);
}

/* What the engine says of a container, sampled while a mayhem run goes on. */
struct watch {
        bool a_paused, b_paused;
        char a_started[64], b_started[64];
};

static void started_at(const char *name, char *buf, size_t size) {
        struct cmd_result r = run_command(
                NULL,
                (const char *const[]){ "docker", "inspect", "-f", "{{.State.StartedAt}}", name, NULL });
        snprintf(buf, size, "%s", r.exit == 0 ? r.out : "?");
        cmd_result_done(&r);
}

/* Runs mayhem ARGS in the background and samples both containers every
 * 100 ms until it exits; its exit code. */
static int run_watched(const char *const *args, struct watch *w, char **ret_log) {
        pid_t pid = demo_mayhem_spawn(&demo, args);
        int status = 0;
        assert_true(pid > 0);
        *w = (struct watch){ 0 };
        while (waitpid(pid, &status, WNOHANG) == 0) {
                struct engine_container a, b;
                if (demo_inspect_container(A, &a))
                        w->a_paused = w->a_paused || a.paused;
                if (demo_inspect_container(B, &b))
                        w->b_paused = w->b_paused || b.paused;
                sleep_ms(100);
        }
        started_at(A, w->a_started, sizeof(w->a_started));
        started_at(B, w->b_started, sizeof(w->b_started));
        *ret_log = demo_spawn_log(&demo);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static json_t *only_run(void) {
        json_t *runs = INSPECT(&demo, "runs");
        assert_int_equal(json_array_size(runs), 1);
        const char *id = json_string_value(json_object_get(json_array_get(runs, 0), "id"));
        json_t *h = INSPECT(&demo, "history", id);
        json_decref(runs);
        assert_non_null(h);
        return h;
}

static size_t leases_of(const json_t *h, const char *fault_id) {
        size_t i, n = 0;
        json_t *l;
        json_array_foreach(json_object_get(h, "leases"), i, l) n +=
                strcmp(json_string_value(json_object_get(l, "fault_id")), fault_id) == 0;
        return n;
}

static const char *step_status(const json_t *h, size_t seq, const char **ret_error) {
        const json_t *s = json_array_get(json_object_get(h, "steps"), seq);
        if (ret_error)
                *ret_error = json_string_value(json_object_get(s, "error"));
        return json_string_value(json_object_get(s, "status"));
}

static void assert_fingerprint(const json_t *run) {
        const char *fp = json_string_value(json_object_get(run, "env_fingerprint"));
        assert_non_null(fp);
        assert_int_equal(strlen(fp), 64);
        assert_string_equal(
                fp, json_string_value(json_object_get(
                            json_object_get(json_object_get(run, "spec"), "environment"), "fingerprint")));
}

static const char PAUSE[] = "      - {fault: container.pause, duration: 2s}\n";

static void test_ctr_scopes_the_run(void **state) {
        char ev[240], envelope[400];
        snprintf(ev, sizeof(ev), "%s/evidence", work);
        /* One step each: a step on both services at once is past the default max_services_pct. */
        write_drill(PAUSE, PAUSE, "  - sequential: [" A "]\n  - sequential: [" B "]\n");
        struct watch w;
        char *log = NULL;
        int code = run_watched(
                (const char *const[]){ "run", drill, "-c", compose, "--ctr", A, "--execute",
                                       "--evidence-dir", ev, NULL },
                &w, &log);
        if (code != 0 || !w.a_paused || w.b_paused ||
            !strstr(log, "[skip] f-0002 container.pause on " B ": outside --ctr") ||
            !strstr(log, "1 skipped (outside --ctr)"))
                fail_msg("exit %d, a paused %d, b paused %d\n%s", code, w.a_paused, w.b_paused, log);
        print_message("--ctr " A ": a paused during the run, b never (sampled every 100 ms)\n");
        json_t *h = only_run(), *run = json_object_get(h, "run");
        assert_int_equal(json_array_size(json_object_get(h, "leases")), 1);
        assert_string_equal(
                json_string_value(json_array_get(
                        json_object_get(json_array_get(json_object_get(h, "leases"), 0), "targets"), 0)),
                A);
        assert_string_equal(json_string_value(json_object_get(run, "execution_intent")), "explicit");
        assert_true(json_is_null(json_object_get(run, "break_glass")));
        assert_fingerprint(run);
        /* --evidence-dir: the envelope inspect history prints, in DIR/<run id>.json. */
        snprintf(
                envelope, sizeof(envelope), "%s/%s.json", ev, json_string_value(json_object_get(run, "id")));
        json_t *written = json_load_file(envelope, 0, NULL);
        assert_non_null(written);
        assert_int_equal(json_array_size(json_object_get(written, "leases")), 1);
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(written, "run"), "status")), "completed");
        json_decref(written);
        json_decref(h);
        free(log);
}

static void test_from_plan(void **state) {
        char plan[240];
        snprintf(plan, sizeof(plan), "%s/plan.json", work);
        write_drill(PAUSE, PAUSE, "  - sequential: [" A "]\n  - sequential: [" B "]\n");
        struct cmd_result p = MAYHEM(&demo, "prepare", "plan", drill, "-c", compose);
        assert_int_equal(p.exit, 0);
        FILE *f = fopen(plan, "we");
        fputs(p.out, f);
        fclose(f);
        json_t *saved = json_loads(p.out, 0, NULL);
        cmd_result_done(&p);

        demo_fresh_db(&demo);
        struct watch w;
        char *log = NULL;
        int code = run_watched(
                (const char *const[]){ "run", "--from-plan", plan, "--execute", NULL }, &w, &log);
        if (code != 0 || !w.a_paused || !w.b_paused)
                fail_msg("matching plan: exit %d\n%s", code, log);
        free(log);
        json_t *h = only_run();
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(h, "run"), "plan_fingerprint")),
                json_string_value(json_object_get(saved, "fingerprint")));
        assert_fingerprint(json_object_get(h, "run"));
        json_decref(h);
        print_message("--from-plan with a matching plan: ran, same plan fingerprint\n");

        /* The compose file changes: refused before anything is touched. */
        f = fopen(compose, "ae");
        fputs("    environment: {EDITED: \"1\"}\n", f);
        fclose(f);
        demo_fresh_db(&demo);
        char a_before[64], b_before[64];
        started_at(A, a_before, sizeof(a_before));
        started_at(B, b_before, sizeof(b_before));
        code = run_watched((const char *const[]){ "run", "--from-plan", plan, "--execute", NULL }, &w, &log);
        if (code != 5 || w.a_paused || w.b_paused || !strstr(log, "[environment.fingerprint]") ||
            !strstr(log, "compose file digest"))
                fail_msg(
                        "changed compose: exit %d, a paused %d, b paused %d\n%s", code, w.a_paused,
                        w.b_paused, log);
        assert_string_equal(a_before, w.a_started);
        assert_string_equal(b_before, w.b_started);
        json_t *runs = INSPECT(&demo, "runs");
        assert_int_equal(json_array_size(runs), 0); /* no run, no lease: nothing was touched */
        json_decref(runs);
        print_message("--from-plan after the compose file changed: exit 5 [environment.fingerprint], "
                      "no run recorded, both containers untouched\n");
        copy_compose();
        json_decref(saved);
        free(log);
}

static const char DELAY[] = "      - {fault: net.latency, delay_ms: 200, duration: 2s}\n";

static void assert_no_residue(void) {
        struct engine_container a;
        char why[256] = "";
        assert_true(demo_inspect_container(A, &a));
        if (demo_net_residue(a.pid, why, sizeof(why)))
                fail_msg("residue in %s's netns: %s", A, why);
}

/* A delay no mechanism can deliver on the agent's (masked) kernel. */
static void test_impact_gate_bypasses(void **state) {
        setenv("MAYHEM_AGENT", getenv("MAYHEM_KERNEL_MASK_AGENT"), 1);
        setenv("MAYHEM_REAL_AGENT", getenv("MAYHEM_AGENT_BIN"), 1);
        unsetenv("MAYHEM_ALLOW_SKIP_GATE");
        unsetenv("MAYHEM_BREAK_GLASS");
        write_drill(DELAY, PAUSE, "  - sequential: [" A "]\n  - sequential: [" B "]\n");
        demo_fresh_db(&demo);
        struct watch w;
        char *log = NULL;
        int code = run_watched(
                (const char *const[]){ "run", drill, "-c", compose, "--execute", NULL }, &w, &log);
        if (code != 0 || !w.b_paused ||
            !strstr(log, "[bypass] f-0001 net.latency on " A ": bypass due to net.latency: this kernel has "
                         "neither sch_netem nor an NFQUEUE") ||
            !strstr(log, ", 1 bypassed (no way to deliver them"))
                fail_msg("bypass: exit %d, b paused %d\n%s", code, w.b_paused, log);
        json_t *h = only_run();
        const char *error = NULL;
        assert_string_equal(step_status(h, 0, &error), "bypassed");
        assert_non_null(strstr(error, "f-0001: bypass due to net.latency: this kernel has neither"));
        assert_string_equal(step_status(h, 1, NULL), "completed");
        assert_int_equal(leases_of(h, "net.latency"), 0);
        assert_int_equal(leases_of(h, "container.pause"), 1);
        assert_no_residue();
        print_message("impact gate: net.latency bypassed (step 'bypassed', no lease, no residue), b's "
                      "pause ran\n");
        json_decref(h);
        free(log);

        /* --skip-gate: attempted, fails honestly; marked break glass. */
        demo_fresh_db(&demo);
        code = run_watched(
                (const char *const[]){ "--skip-gate", "run", drill, "-c", compose, "--execute", NULL }, &w,
                &log);
        if (!strstr(log, "!!! BREAK-GLASS WARNING !!!") || !strstr(log, "[break-glass] f-0001 net.latency"))
                fail_msg("skip-gate: exit %d\n%s", code, log);
        h = only_run();
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(h, "run"), "break_glass")), "skip_gate");
        assert_string_equal(step_status(h, 0, NULL), "failed_to_apply");
        assert_int_equal(leases_of(h, "net.latency"), 1); /* attempted: a lease, expired or released */
        assert_no_residue();
        print_message("--skip-gate: attempted, failed_to_apply, break_glass skip_gate, exit %d\n", code);
        json_decref(h);
        free(log);

        /* With the override, JSON automation may break glass; the result counts 0 bypassed. */
        setenv("MAYHEM_BREAK_GLASS", "1", 1);
        demo_fresh_db(&demo);
        struct cmd_result r =
                MAYHEM(&demo, "--format", "json", "--skip-gate", "run", drill, "-c", compose, "--execute");
        json_t *res = json_loads(r.out, 0, NULL);
        if (!res || json_integer_value(json_object_get(json_object_get(res, "faults"), "bypassed")) != 0)
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        h = only_run();
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(h, "run"), "break_glass")),
                "skip_gate+override");
        json_decref(h);
        json_decref(res);
        cmd_result_done(&r);
        unsetenv("MAYHEM_BREAK_GLASS");

        /* Without the override, --format json with --skip-gate is exit 4 and touches nothing. */
        demo_fresh_db(&demo);
        r = MAYHEM(&demo, "--format", "json", "--skip-gate", "run", drill, "-c", compose, "--execute");
        assert_int_equal(r.exit, 4);
        cmd_result_done(&r);
        json_t *runs = INSPECT(&demo, "runs");
        assert_int_equal(json_array_size(runs), 0);
        json_decref(runs);

        /* The JSON result of a bypassing run counts it. */
        demo_fresh_db(&demo);
        r = MAYHEM(&demo, "run", drill, "-c", compose, "--execute", "--json");
        res = json_loads(r.out, 0, NULL);
        if (!res || json_integer_value(json_object_get(json_object_get(res, "faults"), "bypassed")) != 1)
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        json_decref(res);
        cmd_result_done(&r);
        unsetenv("MAYHEM_AGENT");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ctr_scopes_the_run),
                cmocka_unit_test(test_from_plan),
                cmocka_unit_test(test_impact_gate_bypasses),
        };
        int r = start();
        if (r != 0) {
                teardown(NULL);
                return r == 77 ? 77 : 1;
        }
        return cmocka_run_group_tests(tests, NULL, teardown);
}
