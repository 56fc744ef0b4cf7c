/* Issue 13, `run`'s options: the environment fingerprint (§5.1), the plan
 * diff, saved plans run again (--from-plan, --plan-id) and refused when
 * they changed, option conflicts (exit 2), --ctr, break-glass in
 * automation, the legacy `recover RUN_ID`, and the impact gate's bypass
 * decision. The CLI cases run the real binary and touch no engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "catalog/catalog.h"
#include "cli/env-fingerprint.h"
#include "cli/json-diff.h"
#include "common/run-command.h"
#include "evidence/evidence.h"
#include "evidence/lease.h"
#include "run/run-internal.h"

static char dir[128];

static struct cmd_result mayhem(const char *const *args) {
        const char *argv[40] = { getenv("MAYHEM_BIN") };
        size_t n = 1;
        for (; args[n - 1] && n < 39; n++)
                argv[n] = args[n - 1];
        argv[n] = NULL;
        return run_command(dir, argv);
}
#define MAYHEM(...) mayhem((const char *const[]){ __VA_ARGS__, NULL })

static void copy(const char *from, const char *to) {
        char src[1024], dst[256], *data = NULL;
        size_t len = 0;
        snprintf(src, sizeof(src), "%s/%s", getenv("MAYHEM_SOURCE_ROOT"), from);
        snprintf(dst, sizeof(dst), "%s/%s", dir, to);
        assert_int_equal(read_file_bounded(src, 1 << 20, &data, &len, NULL), 0);
        FILE *f = fopen(dst, "we");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, len, f), len);
        fclose(f);
        free(data);
}

static void append(const char *name, const char *text) {
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "ae");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* A fresh directory with the demo drill and compose file, and plan.json saved from them. */
static int setup(void **state) {
        snprintf(dir, sizeof(dir), "/tmp/mayhem-test-runopts-%d", (int)getpid());
        mkdir(dir, 0755);
        copy("examples/demo/drill.yaml", "drill.yaml");
        copy("examples/demo/compose.yaml", "compose.yaml");
        struct cmd_result r = MAYHEM("prepare", "plan", "drill.yaml", "-c", "compose.yaml");
        if (r.exit != 0)
                return -1;
        char path[256];
        snprintf(path, sizeof(path), "%s/plan.json", dir);
        FILE *f = fopen(path, "we");
        fputs(r.out, f);
        fclose(f);
        cmd_result_done(&r);
        return 0;
}

static int teardown(void **state) {
        const char *const argv[] = { "rm", "-rf", dir, NULL };
        struct cmd_result r = run_command(NULL, argv);
        cmd_result_done(&r);
        return 0;
}

static void expect(struct cmd_result r, int exit, const char *err_part) {
        if (r.exit != exit || (err_part && !strstr(r.err, err_part)))
                fail_msg("exit %d (want %d), stderr:\n%s\nstdout:\n%s", r.exit, exit, r.err, r.out);
        cmd_result_done(&r);
}

/* ---- the environment fingerprint ---- */

static void test_fingerprint_is_the_reference_join(void **state) {
        struct env_facts f = { .hosts = { "b-host", "a-host" }, .n_hosts = 2, .compose_digest = "c0ffee" };
        char got[SHA256_HEX_SIZE], want[SHA256_HEX_SIZE];
        const char *text = "a-host|b-host|c0ffee|default|default|";
        env_fingerprint(&f, got);
        sha256_hex(text, strlen(text), want);
        assert_string_equal(got, want);
}

static void test_fingerprint_order_and_inputs(void **state) {
        struct env_facts a = { .hosts = { "h1", "h2", "h3" }, .n_hosts = 3, .compose_digest = "d1" };
        struct env_facts b = { .hosts = { "h3", "h1", "h2" }, .n_hosts = 3, .compose_digest = "d1" };
        char fa[SHA256_HEX_SIZE], fb[SHA256_HEX_SIZE];
        env_fingerprint(&a, fa);
        env_fingerprint(&b, fb);
        assert_string_equal(fa, fb); /* host order does not matter */
        env_fingerprint(&a, fb);
        assert_string_equal(fa, fb); /* stable */

        /* Every input changes it, and "default" is what an absent profile/policy means. */
        struct env_facts v[] = { a, a, a, a, a, a };
        v[0].hosts[2] = "h4";
        snprintf(v[1].compose_digest, sizeof(v[1].compose_digest), "d2");
        v[2].profile = "staging";
        v[3].policy = "strict";
        v[4].target = "lab";
        v[5].n_hosts = 2;
        for (size_t i = 0; i < 6; i++) {
                env_fingerprint(&v[i], fb);
                if (strcmp(fa, fb) == 0)
                        fail_msg("variant %zu has the same fingerprint", i);
        }
        struct env_facts d = a;
        d.profile = "default";
        d.policy = "default";
        env_fingerprint(&d, fb);
        assert_string_equal(fa, fb);
}

static void test_env_changes_say_what(void **state) {
        struct env_facts a = { .hosts = { "h1" }, .n_hosts = 1, .compose_digest = "aaaa" }, b = a;
        b.policy = "strict";
        snprintf(b.compose_digest, sizeof(b.compose_digest), "bbbb");
        json_t *ja = env_facts_json(&a), *jb = env_facts_json(&b);
        char buf[512];
        assert_int_equal(env_facts_changes(ja, ja, buf, sizeof(buf)), 0);
        assert_int_equal(env_facts_changes(ja, jb, buf, sizeof(buf)), 2);
        assert_string_equal(buf, "compose file digest aaaa -> bbbb, policy default -> strict");
        json_decref(ja);
        json_decref(jb);
}

/* ---- the plan diff ---- */

static void test_json_diff(void **state) {
        json_t *a = json_loads(
                       "{\"k\":1,\"gone\":true,\"faults\":[{\"p\":{\"d\":5}},{\"x\":1}],\"same\":[1,2]}", 0,
                       NULL),
               *b = json_loads(
                       "{\"k\":2,\"new\":\"n\",\"faults\":[{\"p\":{\"d\":4}}],\"same\":[1,2]}", 0, NULL);
        json_t *d = json_diff(a, b);
        char *text = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(
                text, "{\"added\":[\"new\"],\"changed\":[{\"new\":4,\"old\":5,\"path\":\"faults[0].p.d\"},"
                      "{\"new\":2,\"old\":1,\"path\":\"k\"}],\"removed\":[\"faults[1]\",\"gone\"]}");
        assert_int_equal(json_diff_count(d), 5);
        char paths[256];
        json_diff_paths(d, 2, paths, sizeof(paths));
        assert_string_equal(paths, "faults[0].p.d, k and 3 more");
        free(text);
        json_decref(d);
        d = json_diff(a, a);
        assert_int_equal(json_diff_count(d), 0);
        json_decref(d);
        json_decref(a);
        json_decref(b);
}

/* ---- run's options, through the binary ---- */

static void test_option_conflicts_are_usage_errors(void **state) {
        expect(MAYHEM("run", "--from-plan", "plan.json", "--plan-id", "r-demo-000000"), 2,
               "--from-plan and --plan-id are mutually exclusive");
        expect(MAYHEM("run", "drill.yaml", "--from-plan", "plan.json"), 2,
               "--from-plan names the drill already");
        expect(MAYHEM("run", "drill.yaml", "--plan-id", "r-demo-000000"), 2,
               "--plan-id names the drill already");
        expect(MAYHEM("run"), 2, "run needs SPEC, --from-plan FILE or --plan-id RUN_ID");
        expect(MAYHEM("run", "drill.yaml", "--engine", "lxc"), 2,
               "--engine takes docker or podman, not 'lxc'");
        expect(MAYHEM("run", "drill.yaml", "--ctr", "nope"), 4,
               "error: --ctr nope: no fault of the drill is on that container (its containers: demo-api)");
        expect(MAYHEM("run", "drill.yaml", "--ctr", "demo-api"), 0, "plan ready; pass --execute to run");
}

static void test_from_plan_runs_or_refuses(void **state) {
        expect(MAYHEM("run", "--from-plan", "plan.json"), 0, "plan ready; pass --execute to run");
        expect(MAYHEM("--policy", "strict", "run", "--from-plan", "plan.json"), 5,
               "not this one: policy default -> strict; nothing was touched [environment.fingerprint]");
        /* Two profiles, so neither is selected until --target names one. */
        append("profiles.yaml", "apiVersion: mayhem/v1\ntargets:\n  lab: {}\n  prod: {}\n");
        expect(MAYHEM("--config", "profiles.yaml", "run", "--from-plan", "plan.json"), 0,
               "plan ready; pass --execute to run");
        expect(MAYHEM("--config", "profiles.yaml", "--target", "lab", "run", "--from-plan", "plan.json"), 5,
               "target profile (none) -> lab");
        expect(MAYHEM("run", "--from-plan", "nope.json"), 4, "nope.json");
        expect(MAYHEM("run", "--from-plan", "compose.yaml"), 4, "compose.yaml:1:");
}

/* The drill changed: the plan's fingerprint no longer matches (its path
 * said); then the compose file changed: the environment, checked first. */
static void test_changed_inputs_are_refused(void **state) {
        char path[256], *data = NULL;
        size_t len;
        snprintf(path, sizeof(path), "%s/drill.yaml", dir);
        assert_int_equal(read_file_bounded(path, 1 << 20, &data, &len, NULL), 0);
        char *at = strstr(data, "duration: 5s");
        assert_non_null(at);
        at[10] = '4';
        FILE *f = fopen(path, "we");
        fputs(data, f);
        fclose(f);
        free(data);
        expect(MAYHEM("run", "--from-plan", "plan.json", "--execute"), 5,
               "changed: faults[0].duration_ms); nothing was touched [plan.fingerprint]");
        struct cmd_result r = MAYHEM("run", "drill.yaml", "--diff", "plan.json");
        assert_int_equal(r.exit, 0);
        assert_non_null(strstr(r.out, "~ faults[0].duration_ms: 5000 -> 4000\n1 difference(s) between"));
        cmd_result_done(&r);
        r = MAYHEM("run", "drill.yaml", "--diff", "plan.json", "--json");
        json_t *d = json_loads(r.out, 0, NULL);
        assert_int_equal(json_diff_count(d), 1);
        json_decref(d);
        cmd_result_done(&r);
        append("compose.yaml", "# edited\n");
        expect(MAYHEM("run", "--from-plan", "plan.json", "--execute"), 5,
               "not this one: compose file digest ");
        char db[300];
        snprintf(db, sizeof(db), "%s/mayhem.db", dir);
        assert_int_equal(access(db, F_OK), -1); /* refused before the evidence was opened */
        setup(state);                           /* put the inputs back for the next tests */
}

/* prepare plan --evidence-dir: the same document, in DIR/<plan id>.json. */
static void test_prepare_plan_evidence_dir(void **state) {
        struct cmd_result r = MAYHEM("prepare", "plan", "drill.yaml", "--evidence-dir", "ev");
        assert_int_equal(r.exit, 0);
        json_t *printed = json_loads(r.out, 0, NULL);
        char path[400];
        snprintf(
                path, sizeof(path), "%s/ev/%s.json", dir,
                json_string_value(json_object_get(printed, "plan_id")));
        json_t *written = json_load_file(path, 0, NULL);
        assert_non_null(written);
        assert_true(json_equal(printed, written));
        assert_non_null(json_object_get(written, "environment"));
        assert_non_null(json_object_get(json_object_get(written, "inputs"), "drill"));
        json_decref(printed);
        json_decref(written);
        cmd_result_done(&r);
}

/* Break-glass in automation needs the override: exit 4, nothing touched. */
static void test_skip_gate_json_needs_override(void **state) {
        unsetenv("MAYHEM_ALLOW_SKIP_GATE");
        unsetenv("MAYHEM_BREAK_GLASS");
        expect(MAYHEM("--format", "json", "--skip-gate", "--db", "bg.db", "run", "drill.yaml", "--execute"),
               4, "!!! BREAK-GLASS WARNING !!!");
        char db[300];
        snprintf(db, sizeof(db), "%s/bg.db", dir);
        assert_int_equal(access(db, F_OK), -1);
}

static void make_run(const char *name, const char *id, const char *spec_json, bool with_lease) {
        char db[300];
        snprintf(db, sizeof(db), "%s/%s", dir, name);
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        struct cmd_result p = MAYHEM("prepare", "plan", "drill.yaml");
        json_t *doc = json_loads(p.out, 0, NULL), *body = json_deep_copy(doc);
        json_object_del(body, "plan_id"), json_object_del(body, "fingerprint"),
                json_object_del(body, "kernel");
        json_object_del(body, "inputs"), json_object_del(body, "environment");
        char *plan = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
        assert_int_equal(evidence_open(db, &ev, &e), 0);
        struct evidence_run run = { .id = id,
                                    .name = "demo",
                                    .kind = "drill",
                                    .spec_json = spec_json,
                                    .plan_json = plan,
                                    .plan_fingerprint =
                                            json_string_value(json_object_get(doc, "fingerprint")),
                                    .engine = "docker" };
        assert_int_equal(evidence_run_begin(ev, &run, &e), 0);
        if (with_lease) {
                char lease[LEASE_ID_MAX];
                struct lease_new l = { .run_id = id,
                                       .fault_id = "proc.pause",
                                       .owner_agent = "a-test",
                                       .targets_json = "[\"demo-api\"]",
                                       .undo_json = "[{\"op\":\"signal.cont\",\"args\":{}}]",
                                       .verify_json = "[{\"probe\":\"process.running\",\"args\":{}}]",
                                       .runtime_identity_json = "{}",
                                       .params_json = "{}",
                                       .target_key = "k-test",
                                       .ttl_seconds = 120 };
                assert_int_equal(lease_create(ev, &l, lease, &e), 0);
        }
        evidence_close(ev);
        free(plan);
        json_decref(body);
        json_decref(doc);
        cmd_result_done(&p);
}

static void test_plan_id(void **state) {
        char spec[1024];
        struct cmd_result p = MAYHEM("prepare", "plan", "drill.yaml", "-c", "compose.yaml");
        json_t *doc = json_loads(p.out, 0, NULL),
               *s = json_pack(
                       "{s:O, s:O, s:O}", "drill", json_object_get(json_object_get(doc, "inputs"), "drill"),
                       "compose", json_object_get(json_object_get(doc, "inputs"), "compose"), "environment",
                       json_object_get(doc, "environment"));
        char *text = json_dumps(s, JSON_COMPACT);
        snprintf(spec, sizeof(spec), "%s", text);
        free(text);
        json_decref(s);
        json_decref(doc);
        cmd_result_done(&p);
        make_run("pid.db", "r-demo-111111", spec, false);
        make_run("pid.db", "r-demo-222222", "{}", false);
        expect(MAYHEM("--db", "pid.db", "run", "--plan-id", "r-demo-111111"), 0, "plan ready");
        expect(MAYHEM("--db", "pid.db", "--policy", "strict", "run", "--plan-id", "r-demo-111111"), 5,
               "the environment run r-demo-111111 was planned for is not this one: policy default -> "
               "strict");
        expect(MAYHEM("--db", "pid.db", "run", "--plan-id", "r-demo-222222"), 4,
               "plans saved before this version cannot be run again");
        expect(MAYHEM("--db", "pid.db", "run", "--plan-id", "r-demo-333333"), 4, "no run 'r-demo-333333'");
}

/* `recover RUN_ID` is `recover plan RUN_ID`, with --execute `recover
 * execute RUN_ID`: the same output and the same effect on the journal. */
static void test_recover_legacy_spelling(void **state) {
        static const char *const dbs[] = { "l1.db", "l3.db", "l4.db" };
        for (size_t i = 0; i < 3; i++)
                make_run(dbs[i], "r-demo-aaaaaa", "{}", true);
        struct cmd_result legacy = MAYHEM("--db", "l1.db", "recover", "r-demo-aaaaaa"),
                          plan = MAYHEM("--db", "l1.db", "recover", "plan", "r-demo-aaaaaa");
        assert_int_equal(legacy.exit, plan.exit);
        assert_string_equal(legacy.out, plan.out);
        assert_non_null(strstr(plan.out, "would recover lease l-"));
        cmd_result_done(&legacy);
        cmd_result_done(&plan);
        struct cmd_result status = MAYHEM("--db", "l1.db", "recover", "status", "r-demo-aaaaaa");
        assert_non_null(strstr(status.out, "pending")); /* a preview changes nothing */
        cmd_result_done(&status);

        legacy = MAYHEM("--db", "l3.db", "recover", "r-demo-aaaaaa", "--execute", "--force");
        plan = MAYHEM("--db", "l4.db", "recover", "execute", "r-demo-aaaaaa", "--force");
        assert_int_equal(legacy.exit, plan.exit);
        cmd_result_done(&legacy);
        cmd_result_done(&plan);
        struct cmd_result s3 = MAYHEM("--db", "l3.db", "recover", "status", "r-demo-aaaaaa"),
                          s4 = MAYHEM("--db", "l4.db", "recover", "status", "r-demo-aaaaaa");
        assert_string_equal(s3.out + 19, s4.out + 19); /* after the lease id: state, fault, run */
        assert_null(strstr(s3.out, "pending"));
        cmd_result_done(&s3);
        cmd_result_done(&s4);
        /* Subcommand prefixes still resolve first; a word that is no run id is still unknown. */
        expect(MAYHEM("--db", "l1.db", "recover", "stat", "r-demo-aaaaaa"), 0, NULL);
        expect(MAYHEM("--db", "l1.db", "recover", "bogus"), 2, "unknown command 'bogus'");
}

/* ---- the impact gate bypasses instead of refusing the run ---- */

static void test_impact_bypass_decision(void **state) {
        static const struct impact_kernel no_shaper = { .known = true, .nft_owner = true, .tbf = true };
        struct impact_request rq = { .def = catalog_find("net.latency"), .direction = "egress" };
        enum net_delivery d;
        char why[256] = "";
        assert_int_equal(
                runner_impact_decide(&rq, &no_shaper, false, &d, why, sizeof(why)), IMPACT_STEP_BYPASS);
        assert_string_equal(
                why, "net.latency: this kernel has neither sch_netem nor an NFQUEUE (xt NFQUEUE or "
                     "nft queue) for the shaper");
        assert_int_equal(
                runner_impact_decide(&rq, &no_shaper, true, &d, why, sizeof(why)), IMPACT_STEP_FORCE);
        assert_string_equal(
                net_delivery_to_string(d), "netem"); /* the attempt: fails honestly on this kernel */
        struct impact_request loss = { .def = catalog_find("net.packet_loss"), .direction = "egress" };
        assert_int_equal(
                runner_impact_decide(&loss, &no_shaper, false, &d, why, sizeof(why)), IMPACT_STEP_DELIVER);
        assert_string_equal(net_delivery_to_string(d), "nft");
        struct impact_request pause = { .def = catalog_find("proc.pause") };
        assert_int_equal(
                runner_impact_decide(&pause, &no_shaper, false, &d, why, sizeof(why)), IMPACT_STEP_NONE);
}

static void test_summary_counts_bypassed(void **state) {
        struct drill_spec spec = { 0 };
        struct plan pl = { .spec = &spec, .n_faults = 2 };
        struct run_result r = {
                .run_id = "r-x-000000", .faults_injected = 1, .faults_bypassed = 1, .faults_skipped = 0
        };
        char *md = run_summary_markdown(&pl, &r);
        assert_non_null(strstr(md, "**faults**: 2 planned, 1 injected, 0 in force"));
        assert_non_null(
                strstr(md, ", 1 bypassed (no way to deliver them on the agent's kernel: not injected, not "
                           "covered by the verdict"));
        free(md);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fingerprint_is_the_reference_join),
                cmocka_unit_test(test_fingerprint_order_and_inputs),
                cmocka_unit_test(test_env_changes_say_what),
                cmocka_unit_test(test_json_diff),
                cmocka_unit_test(test_option_conflicts_are_usage_errors),
                cmocka_unit_test(test_from_plan_runs_or_refuses),
                cmocka_unit_test(test_changed_inputs_are_refused),
                cmocka_unit_test(test_prepare_plan_evidence_dir),
                cmocka_unit_test(test_skip_gate_json_needs_override),
                cmocka_unit_test(test_plan_id),
                cmocka_unit_test(test_recover_legacy_spelling),
                cmocka_unit_test(test_impact_bypass_decision),
                cmocka_unit_test(test_summary_counts_bypassed),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
