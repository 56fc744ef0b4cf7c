#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/proc-guard.h"
#include "basic/procfs.h"

#include "catalog/catalog.h"
#include "plan/plan.h"

static const char *const compose_yaml = "name: shop\n"
                                        "services:\n"
                                        "  api:\n"
                                        "    image: api\n"
                                        "    container_name: shop-api\n"
                                        "    depends_on: [db]\n"
                                        "  db:\n"
                                        "    image: db\n"
                                        "  cache:\n"
                                        "    image: cache\n";

struct built {
        struct topology *topo;
        struct drill_spec *spec;
        struct plan *plan;
        struct mh_error err;
        int r;
};

static void built_done(struct built *b) {
        plan_free(b->plan);
        drill_spec_free(b->spec);
        topology_free(b->topo);
}

/* The base drill hits two of the three services at once (66.7%): these
 * tests are about planning, so the services budget is opened up; the
 * budgets themselves are test-safety.c's. */
static struct built build(const char *drill) {
        struct built b = { 0 };
        struct mayhem_config *cfg = NULL;
        assert_int_equal(config_defaults(&cfg, &b.err), 0);
        cfg->blast_radius.max_services_pct = 100;
        assert_int_equal(
                compose_parse("compose.yaml", compose_yaml, strlen(compose_yaml), &b.topo, &b.err), 0);
        b.r = drill_parse("drill.yaml", drill, strlen(drill), &b.spec, &b.err);
        struct plan_options opt = { .config = cfg };
        if (b.r >= 0)
                b.r = plan_build_with(b.spec, b.topo, &opt, &b.plan, &b.err);
        config_free(cfg);
        return b;
}

#define DRILL_HEAD "kind: drill\nname: Shop Drill\n"

static const char *const base_drill =
        DRILL_HEAD "containers:\n"
                   "  shop-api:\n"
                   "    faults:\n"
                   "      - fault: net.latency\n"
                   "        delay_ms: 200\n"
                   "        jitter_ms: 10\n"
                   "        targets: [shop-db-1]\n"
                   "      - {fault: net.bandwidth, rate: 10mbit, duration: 20s}\n"
                   "  shop-db-1:\n"
                   "    faults:\n"
                   "      - fault: container.pause\n"
                   "execution:\n"
                   "  - parallel: [shop-api, shop-db-1]\n"
                   "  - wait: 5s\n"
                   "  - check:\n"
                   "      - http: http://127.0.0.1:8080/\n";

/* The same drill written differently: key order, params block, comments, flow style. */
static const char *const same_drill_rewritten =
        "# comments do not matter\n"
        "name: Shop Drill\n"
        "kind: drill\n"
        "execution:\n"
        "  - {parallel: [shop-api, shop-db-1]}\n"
        "  - wait: 5000ms\n"
        "  - check: [{http: \"http://127.0.0.1:8080/\", expect: {status: 200}}]\n"
        "containers:\n"
        "  shop-api:\n"
        "    faults:\n"
        "      - fault: net.latency\n"
        "        targets: [shop-db-1]\n"
        "        params: {jitter_ms: 10, delay_ms: 200}\n"
        "        duration: 10s\n"
        "      - {fault: net.bandwidth, params: {rate: 10000kbit}, duration: 20s}\n"
        "  shop-db-1:\n"
        "    faults: [{fault: container.pause}]\n";

static void test_plan_is_deterministic(void **state) {
        struct built a = build(base_drill), b = build(base_drill), c = build(same_drill_rewritten);
        assert_int_equal(a.r, 0);
        assert_int_equal(b.r, 0);
        assert_int_equal(c.r, 0);
        assert_string_equal(a.plan->canonical_json, b.plan->canonical_json);
        assert_string_equal(a.plan->canonical_json, c.plan->canonical_json);
        assert_string_equal(a.plan->fingerprint, c.plan->fingerprint);

        char hex[SHA256_HEX_SIZE];
        sha256_hex(a.plan->canonical_json, strlen(a.plan->canonical_json), hex);
        assert_string_equal(hex, a.plan->fingerprint);
        char expect_id[64];
        snprintf(expect_id, sizeof(expect_id), "r-shop-drill-%.6s", a.plan->fingerprint);
        assert_string_equal(a.plan->run_id, expect_id);
        built_done(&a);
        built_done(&b);
        built_done(&c);
}

static void test_plan_changes_with_input(void **state) {
        struct built a = build(base_drill);
        char *changed = strdup(base_drill);
        memcpy(strstr(changed, "200"), "201", 3);
        struct built b = build(changed);
        assert_int_equal(b.r, 0);
        assert_string_not_equal(a.plan->fingerprint, b.plan->fingerprint);
        built_done(&a);
        built_done(&b);
        free(changed);
}

static void test_plan_content(void **state) {
        struct built b = build(base_drill);
        json_t *j = NULL;
        assert_int_equal(b.r, 0);
        assert_int_equal(plan_to_json(b.plan, &j), 0);
        json_t *faults = json_object_get(j, "faults");
        assert_int_equal(json_array_size(faults), 3);
        json_t *lat = json_array_get(faults, 0), *bw = json_array_get(faults, 1);
        assert_string_equal(json_string_value(json_object_get(lat, "id")), "f-0001");
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(lat, "params"), "delay_ms")), 200);
        assert_string_equal(
                json_string_value(json_object_get(json_object_get(lat, "params"), "direction")), "egress");
        assert_string_equal(
                json_string_value(json_array_get(json_object_get(lat, "peers"), 0)), "shop-db-1");
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(bw, "params"), "rate")), 10000000);
        assert_int_equal(json_integer_value(json_object_get(bw, "duration_ms")), 20000);
        json_t *undo = json_object_get(json_object_get(lat, "compensation"), "undo");
        assert_string_equal(
                json_string_value(json_object_get(json_array_get(undo, 0), "op")), "net.unshape");

        json_t *step0 = json_array_get(json_object_get(j, "steps"), 0);
        json_t *lanes = json_object_get(step0, "lanes");
        assert_int_equal(json_array_size(lanes), 2);
        assert_int_equal(json_array_size(json_object_get(json_array_get(lanes, 0), "faults")), 2);
        assert_string_equal(
                json_string_value(json_object_get(json_array_get(lanes, 1), "target")), "shop-db-1");
        json_t *check =
                json_array_get(json_object_get(json_array_get(json_object_get(j, "steps"), 2), "checks"), 0);
        assert_string_equal(json_string_value(json_object_get(check, "id")), "check-0002-0");
        assert_string_equal(json_string_value(json_object_get(j, "fingerprint")), b.plan->fingerprint);
        json_decref(j);
        built_done(&b);
}

/* Every executable fault has a compensation in the catalog (except
 * clock.skew, refused before compensation), and the plan carries it. */
static void test_every_fault_is_compensated(void **state) {
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                bool expect = !f->refusal && strcmp(f->id, "clock.skew") != 0;
                bool has = f->comp.effect && fault_comp_n_undo(&f->comp) >= 1 &&
                           fault_comp_n_verify(&f->comp) >= 1;
                if (expect != has)
                        fail_msg("%s: compensation %s", f->id, has ? "present but not expected" : "missing");
        }
}

struct refusal {
        const char *drill;
        enum mh_exit exit;
        const char *id;
        unsigned line, col;
        const char *msg;
};

static const struct refusal refusals[] = {
        { DRILL_HEAD "targets:\n  a: {runtime: docker, docker: {container_name: shop-api},\n"
                     "      faults: [{fault: container.pause}]}\n"
                     "  b: {runtime: docker, docker: {container_name: shop-api},\n"
                     "      faults: [{fault: net.latency}, {fault: container.kill}]}\n"
                     "execution:\n  - parallel: [a, b]\n",
          MH_EXIT_SAFETY_REFUSAL, "safety_refusal", 7, 46,
          "safety refused: container.kill on 'b' runs at the same time as container.pause on 'a', the same "
          "container, and they compete for the same state (run_state) [policy.conflicting_lanes]" },
        { DRILL_HEAD "config: {risk_ceiling: low}\ncontainers:\n  shop-api:\n    faults:\n      - fault: "
                     "container.pause\n"
                     "execution:\n  - parallel: [shop-api]\n",
          MH_EXIT_SAFETY_REFUSAL, "safety_refusal", 7, 16,
          "safety refused: container.pause has risk medium, above the drill's risk_ceiling low "
          "[policy.risk_ceiling]" },
        { DRILL_HEAD "containers:\n  shop-api:\n    faults:\n      - {fault: clock.skew, offset_ms: 5000}\n"
                     "execution:\n  - parallel: [shop-api]\n",
          MH_EXIT_SAFETY_REFUSAL, "safety_refusal", 6, 17,
          "safety refused: clock.skew on 'shop-api': the container shares the host kernel's clock, so "
          "skewing it "
          "would move the host's clock for every process [safety.host_clock]" },
        { DRILL_HEAD "containers:\n  shop-apx:\n    faults:\n      - fault: container.pause\n"
                     "execution:\n  - parallel: [shop-apx]\n",
          MH_EXIT_VALIDATION_ERROR, "validation", 4, 3,
          "target 'shop-apx': no container or service named 'shop-apx' in compose.yaml (known: shop-api, "
          "shop-db-1, shop-cache-1); did you mean 'shop-api'?" },
        { DRILL_HEAD
          "containers:\n  shop-api:\n    faults:\n      - {fault: net.partition, targets: [nowhere]}\n"
          "execution:\n  - parallel: [shop-api]\n",
          MH_EXIT_VALIDATION_ERROR, "validation", 6, 42,
          "net.partition peer: no container or service named 'nowhere' in compose.yaml (known: shop-api, "
          "shop-db-1, shop-cache-1)" },
        { DRILL_HEAD "targets:\n  k:\n    runtime: kubernetes\n    kubernetes: {kind: pod, name: p}\n"
                     "    faults: [{fault: container.pause}]\nexecution:\n  - parallel: [k]\n",
          MH_EXIT_VALIDATION_ERROR, "validation", 4, 3,
          "target 'k': kubernetes targets are not supported yet; use a docker target" },
        { DRILL_HEAD
          "containers:\n  shop-api:\n    faults: [{fault: container.pause}]\nexecution:\n"
          "  - check_spec: [{probe: {type: tcp, host: h, port: 1}, execution: container, target: ghost}]\n",
          MH_EXIT_VALIDATION_ERROR, "validation", 7, 87,
          "check 'check-0000-0' target: no container or service named 'ghost' in compose.yaml (known: "
          "shop-api, "
          "shop-db-1, shop-cache-1)" },
};

static void test_refusals(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(refusals); i++) {
                const struct refusal *t = &refusals[i];
                struct built b = build(t->drill);
                if (b.r >= 0)
                        fail_msg("case %zu: planned, expected a refusal", i);
                if (strcmp(b.err.msg, t->msg) != 0 || b.err.line != t->line || b.err.col != t->col)
                        fail_msg("case %zu: got %u:%u: %s", i, b.err.line, b.err.col, b.err.msg);
                assert_int_equal(b.err.exit, t->exit);
                assert_string_equal(b.err.id, t->id);
                assert_null(b.plan);
                built_done(&b);
        }
}

static void test_warnings(void **state) {
        struct built b = build(
                DRILL_HEAD "containers:\n  shop-api:\n    faults: [{fault: container.pause}]\n"
                           "  shop-db-1:\n    faults: [{fault: container.pause}]\n"
                           "execution:\n  - parallel: [shop-api]\n"
                           "  - check_spec: [{id: api.health, probe: {type: tcp, host: h, port: 1}}]\n"
                           "success:\n  criteria: [{type: status, source_id: ghost.status, expected: 200},\n"
                           "             {type: boolean, source_id: api.health}]\n");
        assert_int_equal(b.r, 0);
        assert_int_equal(b.plan->n_warnings, 2);
        assert_string_equal(
                b.plan->warnings[0],
                "drill.yaml:6:3: target 'shop-db-1' is run by no execution step; its faults never run");
        assert_string_equal(
                b.plan->warnings[1],
                "drill.yaml:12:14: success criterion reads 'ghost.status', which no check or observability "
                "source produces; it will fail with 'no observation recorded'");
        built_done(&b);
}

/* A drill of host processes needs no compose file; process.kill there has
 * nothing of ours to undo and verifies that the process came back. */
static void test_host_process_targets(void **state) {
        static const char *const drill =
                DRILL_HEAD "targets:\n  worker:\n    runtime: process\n"
                           "    process: {name: nginx}\n"
                           "    faults: [{fault: proc.pause}, {fault: process.kill}]\n"
                           "config: {risk_ceiling: high}\n"
                           "execution:\n  - sequential: [worker]\n";
        struct built b = { 0 };
        assert_int_equal(drill_parse("drill.yaml", drill, strlen(drill), &b.spec, &b.err), 0);
        assert_int_equal(plan_build(b.spec, NULL, &b.plan, &b.err), 0);
        assert_string_equal(b.plan->faults[0].comp->undo[0], "signal.cont");
        assert_string_equal(b.plan->faults[1].comp->undo[0], "none");
        assert_string_equal(b.plan->faults[1].comp->verify[0], "process.running");
        assert_string_equal(b.plan->targets[0].label, "nginx");
        built_done(&b);

        static const char *const wrong =
                DRILL_HEAD "targets:\n  worker:\n    runtime: process\n"
                           "    process: {pid: 42}\n    faults: [{fault: container.pause}]\n"
                           "execution:\n  - sequential: [worker]\n";
        b = (struct built){ 0 };
        assert_int_equal(drill_parse("drill.yaml", wrong, strlen(wrong), &b.spec, &b.err), 0);
        assert_true(plan_build(b.spec, NULL, &b.plan, &b.err) < 0);
        assert_string_equal(
                b.err.msg, "container.pause does not apply to target 'pid 42' (it applies to: service, "
                           "container)");
        built_done(&b);
}

/* A drill with one host-process target, "    process: {PROCESS}" on line 7. */
static struct built build_host(const char *process, enum plan_host host) {
        char drill[512];
        struct built b = { 0 };
        snprintf(
                drill, sizeof(drill),
                DRILL_HEAD "config: {risk_ceiling: high}\ntargets:\n  w:\n    runtime: process\n"
                           "    process: {%s}\n    faults: [{fault: proc.pause, duration: 1s}]\n"
                           "execution:\n  - sequential: [w]\n",
                process);
        assert_int_equal(drill_parse("drill.yaml", drill, strlen(drill), &b.spec, &b.err), 0);
        b.r = plan_build_on(b.spec, NULL, host, &b.plan, &b.err);
        return b;
}

/* Refused at plan time with exit 5, the rule and the reason, at the pid or name value. */
static void host_refused(const char *process, enum plan_host host, const char *msg) {
        struct built b = build_host(process, host);
        if (b.r >= 0)
                fail_msg("process {%s}: planned, expected a refusal", process);
        if (strcmp(b.err.msg, msg) != 0)
                fail_msg("process {%s}: got %s\n          wanted %s", process, b.err.msg, msg);
        assert_int_equal(b.err.exit, MH_EXIT_SAFETY_REFUSAL);
        assert_string_equal(b.err.id, "safety_refusal");
        assert_int_equal(b.err.line, 7);
        assert_int_equal(b.err.col, 14 + (unsigned)(strchr(process, ':') - process) + 3); /* the value */
        assert_null(b.plan);
        built_done(&b);
}

static void host_admitted(const char *process, enum plan_host host) {
        struct built b = build_host(process, host);
        if (b.r < 0)
                fail_msg("process {%s}: refused: %s", process, b.err.msg);
        built_done(&b);
}

static void refused_pid(pid_t pid, const char *is, const char *rule) {
        char process[32], comm[32], msg[512];
        proc_comm(pid, comm, sizeof(comm));
        snprintf(process, sizeof(process), "pid: %d", (int)pid);
        snprintf(
                msg, sizeof(msg),
                "safety refused: target 'w': pid %d (%s) %s; a drill never targets it [%s]", (int)pid, comm,
                is, rule);
        host_refused(process, PLAN_HOST_LOCAL, msg);
}

/* The host gate, against this machine's processes: the test is the controller. */
static void test_host_gates(void **state) {
        refused_pid(1, "is the init process", "safety.host_init");
        refused_pid(getpid(), "is the controller itself", "safety.host_mayhem");
        if (getppid() > 1)
                refused_pid(getppid(), "is the controller's parent", "safety.host_mayhem");
        int named[2];
        assert_int_equal(pipe(named), 0);
        pid_t child = fork();
        if (child == 0) {
                prctl(PR_SET_NAME, "mh-plan-kid");
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(named[1]); /* the name is set: the parent may read it */
                for (;;)
                        pause();
        }
        close(named[1]);
        char eof;
        assert_int_equal(read(named[0], &eof, 1), 0);
        close(named[0]);
        refused_pid(child, "is a child of the controller", "safety.host_mayhem");
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        struct proc_info k;
        if (proc_info_read(2, &k) == 0 && (k.flags & PF_KTHREAD_BIT)) {
                refused_pid(2, "is a kernel thread", "safety.host_kernel_thread");
                host_refused(
                        "name: kthreadd", PLAN_HOST_LOCAL,
                        "safety refused: target 'w' (name 'kthreadd'): pid 2 (kthreadd) is a kernel thread; "
                        "a "
                        "drill never targets it [safety.host_kernel_thread]");
        }
        host_refused(
                "name: mayhem-agent", PLAN_HOST_LOCAL,
                "safety refused: target 'w' (name 'mayhem-agent'): 'mayhem-agent' is the name of mayhem's "
                "own "
                "program; a drill never targets it [safety.host_mayhem]");
        host_admitted(
                "pid: 2147483647",
                PLAN_HOST_LOCAL); /* no such process: resolved, and refused, at run time */
        host_admitted("name: mayhem-nosuch", PLAN_HOST_LOCAL);

        /* Behind a remote agent only what holds on every host: pid 1 and mayhem's names. */
        host_refused(
                "pid: 1", PLAN_HOST_REMOTE,
                "safety refused: target 'w': pid 1 is the init process; a drill never targets it "
                "[safety.host_init]");
        host_refused(
                "name: mayhem", PLAN_HOST_REMOTE,
                "safety refused: target 'w' (name 'mayhem'): 'mayhem' is the name of mayhem's own program; "
                "a "
                "drill never targets it [safety.host_mayhem]");
        char self[32];
        snprintf(self, sizeof(self), "pid: %d", (int)getpid());
        host_admitted(self, PLAN_HOST_REMOTE); /* that pid on the agent's host is another process */
}

/* A name matches host processes only unless the drill opts in; the plan says which. */
static void test_host_include_containers(void **state) {
        struct built b = build_host("name: worker, include_containers: true", PLAN_HOST_LOCAL);
        json_t *j = NULL;
        assert_int_equal(b.r, 0);
        assert_true(b.spec->targets[0].process_include_containers);
        assert_int_equal(plan_to_json(b.plan, &j), 0);
        json_t *t = json_array_get(json_object_get(j, "targets"), 0);
        assert_true(json_is_true(json_object_get(t, "include_containers")));
        json_decref(j);
        built_done(&b);
        b = build_host("name: worker", PLAN_HOST_LOCAL);
        assert_int_equal(b.r, 0);
        assert_int_equal(plan_to_json(b.plan, &j), 0);
        assert_null(json_object_get(json_array_get(json_object_get(j, "targets"), 0), "include_containers"));
        json_decref(j);
        built_done(&b);
}

static const char *runs_on(const json_t *probe) {
        return json_string_value(json_object_get(probe, "runs_on"));
}

/* exec and file probes say that they run on the controller's host. */
static void test_probes_say_where_they_run(void **state) {
        struct built b = build(DRILL_HEAD
                               "containers:\n  shop-api:\n    faults: [{fault: container.pause}]\n"
                               "execution:\n  - parallel: [shop-api]\n"
                               "  - check_spec:\n"
                               "      - {id: e, probe: {type: exec, cmd: [/bin/true]}}\n"
                               "      - {id: f, probe: {type: file, path: /etc/hostname}}\n"
                               "      - {id: h, probe: {type: http, url: \"http://127.0.0.1:1/\"}}\n"
                               "  - wait: {until_check_passes: {type: file, path: /tmp/x}, timeout: 1s}\n"
                               "observability:\n  sources:\n"
                               "    - {kind: probe, source_id: o, probe: {type: exec, cmd: [/bin/true]}}\n");
        json_t *j = NULL;
        assert_int_equal(b.r, 0);
        assert_int_equal(plan_to_json(b.plan, &j), 0);
        json_t *checks = json_object_get(json_array_get(json_object_get(j, "steps"), 1), "checks");
        assert_string_equal(runs_on(json_object_get(json_array_get(checks, 0), "probe")), "controller_host");
        assert_string_equal(runs_on(json_object_get(json_array_get(checks, 1), "probe")), "controller_host");
        assert_null(
                runs_on(json_object_get(json_array_get(checks, 2), "probe"))); /* http: no host resource */
        json_t *wait = json_array_get(json_object_get(j, "steps"), 2);
        assert_string_equal(runs_on(json_object_get(wait, "until_probe")), "controller_host");
        json_t *src = json_array_get(json_object_get(json_object_get(j, "observability"), "sources"), 0);
        assert_string_equal(runs_on(json_object_get(src, "probe")), "controller_host");
        json_decref(j);
        built_done(&b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan_is_deterministic),
                cmocka_unit_test(test_plan_changes_with_input),
                cmocka_unit_test(test_plan_content),
                cmocka_unit_test(test_every_fault_is_compensated),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_warnings),
                cmocka_unit_test(test_host_process_targets),
                cmocka_unit_test(test_host_gates),
                cmocka_unit_test(test_host_include_containers),
                cmocka_unit_test(test_probes_say_where_they_run),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
