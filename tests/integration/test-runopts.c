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

#define COMPOSE "tests/data/compose/runopts/compose.yaml"

static struct demo demo;
static char work[128], compose[200], drill[200];
/* mayhem-runopts-{a,b}-PID of project runopts-PID: the compose file is
 * copied with the pid added, so two checkouts' runs never share them. */
static char ctr_a[40], ctr_b[40], project[40];

static void rm_containers(void) {
        struct cmd_result r =
                run_command(NULL, (const char *const[]){ "docker", "rm", "-f", ctr_a, ctr_b, NULL });
        cmd_result_done(&r);
}

/* The compose file with this test's names (every "mayhem-runopts-a", "-b"
 * and the project name get the pid). */
static void copy_compose(void) {
        char src[700], *data = NULL;
        size_t len = 0;
        snprintf(src, sizeof(src), "%s/" COMPOSE, demo.root);
        FILE *in = fopen(src, "re"), *out = fopen(compose, "we");
        assert_non_null(in);
        assert_non_null(out);
        data = malloc((1 << 16) + 1);
        assert_non_null(data);
        len = fread(data, 1, 1 << 16, in);
        data[len] = '\0';
        for (const char *p = data; *p;) {
                if (strncmp(p, "mayhem-runopts-a", 16) == 0 || strncmp(p, "mayhem-runopts-b", 16) == 0) {
                        fputs(p[15] == 'a' ? ctr_a : ctr_b, out);
                        p += 16;
                } else if (strncmp(p, "name: runopts\n", 14) == 0) {
                        fprintf(out, "name: %s\n", project);
                        p += 14;
                } else
                        fputc(*p++, out);
        }
        free(data);
        fclose(in);
        assert_int_equal(fclose(out), 0);
}

/* 0 ready, 77 when no engine answers (skipped), -1 on failure. */
static int start(void) {
        struct engine *e = NULL;
        snprintf(demo.root, sizeof(demo.root), "%s", getenv("MAYHEM_SOURCE_ROOT"));
        demo_fresh_db(&demo);
        if (demo_podman() || engine_open(ENGINE_DOCKER, NULL, &e, NULL) < 0)
                return 77;
        engine_free(e);
        snprintf(ctr_a, sizeof(ctr_a), "mayhem-runopts-a-%d", (int)getpid());
        snprintf(ctr_b, sizeof(ctr_b), "mayhem-runopts-b-%d", (int)getpid());
        snprintf(project, sizeof(project), "runopts-%d", (int)getpid());
        rm_containers();
        if (!demo_run_service(ctr_a, project, "a") || !demo_run_service(ctr_b, project, "b"))
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

/* Faults on a and on b, in that order, one step each: a step on both
 * services at once is past the default max_services_pct. */
static void write_drill(const char *faults_a, const char *faults_b) {
        FILE *f = fopen(drill, "we");
        assert_non_null(f);
        fprintf(f, "kind: drill\nname: runopts\ncontainers:\n  %s:\n    faults:\n%s  %s:\n    faults:\n%s",
                ctr_a, faults_a, ctr_b, faults_b);
        fprintf(f, "execution:\n  - sequential: [%s]\n  - sequential: [%s]\n", ctr_a, ctr_b);
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
 * 100 ms until it exits (within RUN_WITHIN_MS: each run holds 2 s faults);
 * its exit code. */
#define RUN_WITHIN_MS 120000.0
static int run_watched(const char *const *args, struct watch *w, char **ret_log) {
        pid_t pid = demo_mayhem_spawn(&demo, args);
        int status = 0;
        assert_true(pid > 0);
        *w = (struct watch){ 0 };
        for (double until = monotonic_ms() + RUN_WITHIN_MS; waitpid(pid, &status, WNOHANG) == 0;) {
                if (monotonic_ms() > until) {
                        kill(pid, SIGKILL);
                        demo_wait_exit(pid, 10000);
                        fail_msg(
                                "mayhem %s ... still ran after %.0f s:\n%s", args[0], RUN_WITHIN_MS / 1000,
                                demo_spawn_log(&demo));
                }
                struct engine_container a, b;
                if (demo_inspect_container(ctr_a, &a))
                        w->a_paused = w->a_paused || a.paused;
                if (demo_inspect_container(ctr_b, &b))
                        w->b_paused = w->b_paused || b.paused;
                sleep_ms(100);
        }
        started_at(ctr_a, w->a_started, sizeof(w->a_started));
        started_at(ctr_b, w->b_started, sizeof(w->b_started));
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
        write_drill(PAUSE, PAUSE);
        struct watch w;
        char *log = NULL;
        int code = run_watched(
                (const char *const[]){ "run", drill, "-c", compose, "--ctr", ctr_a, "--execute",
                                       "--evidence-dir", ev, NULL },
                &w, &log);
        char skip[128];
        snprintf(skip, sizeof(skip), "[skip] f-0002 container.pause on %s: outside --ctr", ctr_b);
        if (code != 0 || !w.a_paused || w.b_paused || !strstr(log, skip) ||
            !strstr(log, "1 skipped (outside --ctr)"))
                fail_msg("exit %d, a paused %d, b paused %d\n%s", code, w.a_paused, w.b_paused, log);
        print_message("--ctr %s: a paused during the run, b never (sampled every 100 ms)\n", ctr_a);
        json_t *h = only_run(), *run = json_object_get(h, "run");
        assert_int_equal(json_array_size(json_object_get(h, "leases")), 1);
        assert_string_equal(
                json_string_value(json_array_get(
                        json_object_get(json_array_get(json_object_get(h, "leases"), 0), "targets"), 0)),
                ctr_a);
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
        write_drill(PAUSE, PAUSE);
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
        started_at(ctr_a, a_before, sizeof(a_before));
        started_at(ctr_b, b_before, sizeof(b_before));
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
        assert_true(demo_inspect_container(ctr_a, &a));
        if (demo_net_residue(a.pid, why, sizeof(why)))
                fail_msg("residue in %s's netns: %s", ctr_a, why);
}

/* A delay no mechanism can deliver on the agent's (masked) kernel. */
static void test_impact_gate_bypasses(void **state) {
        setenv("MAYHEM_AGENT", getenv("MAYHEM_KERNEL_MASK_AGENT"), 1);
        setenv("MAYHEM_REAL_AGENT", getenv("MAYHEM_AGENT_BIN"), 1);
        unsetenv("MAYHEM_ALLOW_SKIP_GATE");
        unsetenv("MAYHEM_BREAK_GLASS");
        write_drill(DELAY, PAUSE);
        demo_fresh_db(&demo);
        struct watch w;
        char *log = NULL;
        int code = run_watched(
                (const char *const[]){ "run", drill, "-c", compose, "--execute", NULL }, &w, &log);
        char bypass[200];
        snprintf(
                bypass, sizeof(bypass),
                "[bypass] f-0001 net.latency on %s: bypass due to net.latency: this kernel has neither "
                "sch_netem nor an NFQUEUE",
                ctr_a);
        if (code != 0 || !w.b_paused || !strstr(log, bypass) ||
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
