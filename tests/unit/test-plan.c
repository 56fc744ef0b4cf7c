#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

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

static struct built build(const char *drill) {
        struct built b = { 0 };
        assert_int_equal(
                compose_parse("compose.yaml", compose_yaml, strlen(compose_yaml), &b.topo, &b.err), 0);
        b.r = drill_parse("drill.yaml", drill, strlen(drill), &b.spec, &b.err);
        if (b.r >= 0)
                b.r = plan_build(b.spec, b.topo, &b.plan, &b.err);
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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan_is_deterministic),
                cmocka_unit_test(test_plan_changes_with_input),
                cmocka_unit_test(test_plan_content),
                cmocka_unit_test(test_every_fault_is_compensated),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_warnings),
                cmocka_unit_test(test_host_process_targets),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
