#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "drill/drill.h"

/* Positive cases of the drill parser: what a valid drill turns into. The
 * malformed ones are in test-drill-errors.c. */

#define HEAD "kind: drill\nname: d\n"
#define ONE_TARGET(faults)                                                                                  \
        HEAD "containers:\n  api:\n    faults:\n" faults "execution:\n  - parallel: [api]\n"
/* ONE_TARGET with one fault: lines 1-8, further steps start on line 9. */
#define PAUSE ONE_TARGET("      - fault: proc.pause\n")

static struct drill_spec *parse_ok(const char *yaml) {
        struct drill_spec *spec = NULL;
        struct mh_error e = { 0 };
        int r = drill_parse("t.yaml", yaml, strlen(yaml), &spec, &e);
        if (r < 0)
                fail_msg("unexpected error %d at %u:%u: %s\n%s", r, e.line, e.col, e.msg, yaml);
        assert_non_null(spec);
        return spec;
}

static struct drill_spec *parse_checked(const char *yaml) {
        struct drill_spec *spec = parse_ok(yaml);
        struct mh_error e = { 0 };
        if (drill_spec_check(spec, &e) < 0)
                fail_msg("unexpected check error at %u:%u: %s", e.line, e.col, e.msg);
        return spec;
}

static const struct drill_param *param(const struct drill_fault *f, const char *name) {
        const struct drill_param *dp = drill_fault_param(f, name);
        if (!dp)
                fail_msg("%s has no parameter '%s'", f->def->id, name);
        return dp;
}

static void assert_names(const struct drill_names *n, const char *a, const char *b) {
        assert_int_equal(n->n, b ? 2 : 1);
        assert_string_equal(n->v[0], a);
        if (b)
                assert_string_equal(n->v[1], b);
}

/* ---- the reference example (shared/reference/mayhem-spec.md §3.10) ---- */

static void test_reference_example(void **state) {
        const char *dir = getenv("MAYHEM_TEST_DATA");
        char path[1024];
        struct mh_error e = { 0 };

        assert_non_null(dir);
        snprintf(path, sizeof(path), "%s/drills/reference-example.yaml", dir);
        _cleanup_(drill_spec_freep) struct drill_spec *s = NULL;
        if (drill_load(path, &s, &e) < 0)
                fail_msg("%u:%u: %s", e.line, e.col, e.msg);

        assert_string_equal(s->api_version, "mayhem/v1");
        assert_string_equal(s->name, "testcase-fault-drill");
        assert_string_equal(s->hypothesis, "testCase stack recovers from every injected fault");
        assert_int_equal(s->config.risk_ceiling, RISK_CRITICAL);
        assert_int_equal(s->config.timeout_ms, 1800000);
        assert_int_equal(s->config.log_level, LOG_LEVEL_INFO);
        assert_true(s->config.recovery);
        assert_int_equal(s->config.on_failure, ON_FAILURE_CONTINUE);
        assert_int_equal(s->config.max_faults, 1);
        assert_false(s->config.has_maniac);

        /* targets */
        assert_false(s->declared_as_targets);
        assert_int_equal(s->n_targets, 2);
        const struct drill_target *api = drill_spec_find_target(s, "testcase-api");
        assert_ptr_equal(api, &s->targets[0]);
        assert_int_equal(api->pos.line, 12);
        assert_int_equal(api->pos.col, 3);
        assert_int_equal(api->runtime, TARGET_RUNTIME_DOCKER);
        assert_string_equal(api->container_name, "testcase-api");
        assert_int_equal(api->n_faults, 3);

        const struct drill_fault *f = &api->faults[0];
        assert_string_equal(f->def->id, "proc.pause");
        assert_int_equal(f->pos.line, 14);
        assert_int_equal(f->pos.col, 16);
        assert_int_equal(f->duration_ms, 10000);
        assert_int_equal(f->on_failure, ON_FAILURE_ABORT_AND_RECOVER); /* its own */
        assert_true(f->recovery);

        f = &api->faults[1];
        assert_string_equal(f->def->id, "mem.exhaust");
        assert_int_equal(f->duration_ms, 20000);
        assert_int_equal(f->on_failure, ON_FAILURE_CONTINUE); /* from config */
        assert_true(param(f, "amount")->given);
        assert_int_equal(param(f, "amount")->value.type, PARAM_BYTES);
        assert_int_equal(param(f, "amount")->value.u, 268435456);
        assert_int_equal(param(f, "amount")->pos.line, 19);
        assert_true(param(f, "percent")->defaulted);
        assert_true(param(f, "percent")->value.f == 60.0);
        assert_string_equal(param(f, "mode")->value.s, "allocate");

        f = &api->faults[2];
        assert_string_equal(f->def->id, "net.load");
        assert_int_equal(f->duration_ms, 10000);
        assert_int_equal(param(f, "users")->value.i, 100);
        assert_string_equal(param(f, "url")->value.s, "http://testcase-api:8080/");
        assert_false(param(f, "script")->given || param(f, "script")->defaulted);

        const struct drill_target *dl = &s->targets[1];
        assert_string_equal(dl->name, "testcase-download-1");
        assert_int_equal(dl->n_faults, 1);
        assert_string_equal(dl->faults[0].def->id, "fs.read_only");
        assert_string_equal(param(&dl->faults[0], "path")->value.s, "/");
        assert_true(param(&dl->faults[0], "path")->given);

        /* steps */
        static const enum step_kind kinds[] = { STEP_PARALLEL,   STEP_WAIT, STEP_CHECK,
                                                STEP_SEQUENTIAL, STEP_WAIT, STEP_CHECK_SPEC };
        assert_int_equal(s->n_steps, ELEMENTSOF(kinds));
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
                assert_int_equal(s->steps[i].kind, kinds[i]);
        assert_names(&s->steps[0].names, "testcase-api", "testcase-download-1");
        assert_int_equal(s->steps[1].wait_ms, 5000);
        assert_false(s->steps[1].wait_until);
        const struct drill_check *c = &s->steps[2].checks[0];
        assert_int_equal(s->steps[2].n_checks, 1);
        assert_string_equal(c->id, "check-0002-0"); /* step index, probe index */
        assert_int_equal(c->probe.type, PROBE_HTTP);
        assert_string_equal(c->probe.url, "http://testcase-api:8080/");
        assert_string_equal(c->probe.method, "GET");
        assert_int_equal(c->probe.expected_status, 200);
        assert_names(&s->steps[3].names, "testcase-lb", NULL);
        assert_int_equal(s->steps[4].wait_ms, 3000);
        c = &s->steps[5].checks[0];
        assert_string_equal(c->id, "api-health");
        assert_int_equal(c->execution, CHECK_LOCUS_CONTAINER);
        assert_string_equal(c->target, "testcase-lb");
        assert_int_equal(c->probe.type, PROBE_HTTP);
        assert_string_equal(c->probe.url, "http://testcase-api:8080/");
        assert_string_equal(c->probe.method, "GET");
        assert_int_equal(c->probe.timeout_ms, 5000);
        assert_int_equal(c->probe.expected_status, 200);

        /* success */
        assert_true(s->success.present);
        assert_true(s->success.require_all);
        assert_int_equal(s->success.n_criteria, 1);
        assert_int_equal(s->success.criteria[0].type, CRITERION_STATUS);
        assert_string_equal(s->success.criteria[0].source_id, "check-0004-0.status");
        assert_int_equal(s->success.criteria[0].expected, 200);

        /* observability, with the defaults it does not write */
        const struct drill_observability *o = &s->observability;
        assert_true(o->present);
        assert_int_equal(o->cadence_ms, 5000);
        assert_int_equal(o->total_timeout_ms, 30000);
        assert_int_equal(o->n_sources, 2);
        assert_int_equal(o->sources[0].kind, OBS_LOGS);
        assert_string_equal(o->sources[0].source_id, "api.logs");
        assert_string_equal(o->sources[0].container, "testcase-api");
        assert_int_equal(o->sources[0].tail, 100);
        assert_int_equal(o->sources[0].timeout_ms, 10000);
        assert_null(o->sources[0].since);
        assert_int_equal(o->sources[1].kind, OBS_PROBE);
        assert_string_equal(o->sources[1].source_id, "api.http");
        assert_int_equal(o->sources[1].probe.type, PROBE_HTTP);
        assert_string_equal(o->sources[1].probe.url, "http://testcase-api:8080/");
        assert_int_equal(o->sources[1].probe.expected_status, 200);
        assert_int_equal(o->sources[1].cadence_ms, 5000);
        assert_int_equal(o->sources[1].timeout_ms, 10000);
        assert_int_equal(s->n_slos, 0);
        assert_false(s->steady_state.present);

        /* The spec abridges this example by omitting most fault entries, among
         * them testcase-lb's, so the cross-reference check must reject it. */
        assert_int_equal(drill_spec_check(s, &e), -EINVAL);
        assert_int_equal(e.exit, MH_EXIT_VALIDATION_ERROR);
        assert_int_equal(e.line, 37);
        assert_int_equal(e.col, 18);
        assert_non_null(strstr(e.msg, "'testcase-lb' is not a declared target"));
}

/* ---- fault parameters ---- */

static void test_params_flat_equals_block(void **state) {
        static const struct {
                const char *flat, *block;
        } cases[] = {
                { "      - {fault: mem.exhaust, amount: 256M, mode: allocate}\n",
                  "      - {fault: mem.exhaust, params: {amount: 256M, mode: allocate}}\n" },
                { "      - {fault: net.latency, delay_ms: 250, jitter_ms: 10, direction: both}\n",
                  "      - {fault: net.latency, params: {delay_ms: 250, jitter_ms: 10, direction: "
                  "both}}\n" },
                { "      - {fault: net.bandwidth, rate: 10mbit, burst: 32k}\n",
                  "      - {fault: net.bandwidth, params: {rate: 10mbit, burst: 32k}}\n" },
                { "      - {fault: fs.io_stress, seconds: 30s, workers: 2, op: read}\n",
                  "      - {fault: fs.io_stress, params: {seconds: 30s, workers: 2, op: read}}\n" },
                { "      - {fault: cpu.saturate, percent: 12.5%}\n",
                  "      - {fault: cpu.saturate, params: {percent: 12.5}}\n" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char a[512], b[512];
                snprintf(a, sizeof(a), ONE_TARGET("%s"), cases[i].flat);
                snprintf(b, sizeof(b), ONE_TARGET("%s"), cases[i].block);
                _cleanup_(drill_spec_freep) struct drill_spec *sa = parse_ok(a), *sb = parse_ok(b);
                const struct drill_fault *fa = &sa->targets[0].faults[0], *fb = &sb->targets[0].faults[0];
                assert_int_equal(fa->n_params, fb->n_params);
                for (size_t k = 0; k < fa->n_params; k++) {
                        char va[64], vb[64];
                        assert_int_equal(fa->params[k].given, fb->params[k].given);
                        assert_int_equal(fa->params[k].defaulted, fb->params[k].defaulted);
                        if (!fa->params[k].given && !fa->params[k].defaulted)
                                continue;
                        param_value_format(&fa->params[k].value, va, sizeof(va));
                        param_value_format(&fb->params[k].value, vb, sizeof(vb));
                        assert_string_equal(va, vb);
                }
        }
}

static void test_params_typed_and_defaulted(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_ok(ONE_TARGET(
                "      - fault: net.latency\n"
                "        jitter_ms: 5\n"
                "      - fault: cpu.saturate\n"
                "      - fault: net.bandwidth\n"
                "        rate: 2kbps\n"
                "      - fault: process.crash_loop\n"
                "        interval: 1.5s\n"
                "        restarts: \"7\"\n" /* quoted numbers are numbers */
                "      - fault: net.load\n"
                "        users: '100'\n"));
        /* clang-format on */
        const struct drill_fault *f = s->targets[0].faults;

        const struct drill_param *jitter = param(&f[0], "jitter_ms"), *delay = param(&f[0], "delay_ms");
        assert_true(jitter->given && !jitter->defaulted);
        assert_int_equal(jitter->value.i, 5);
        assert_int_equal(jitter->pos.line, 7);
        assert_int_equal(jitter->pos.col, 20);
        assert_true(!delay->given && delay->defaulted);
        assert_int_equal(delay->value.i, 100);
        assert_string_equal(param(&f[0], "direction")->value.s, "egress");
        assert_true(param(&f[0], "direction")->defaulted);

        assert_true(param(&f[1], "percent")->defaulted);
        assert_true(param(&f[1], "percent")->value.f == 80.0);
        assert_int_equal(param(&f[2], "rate")->value.u, 16000); /* bytes/s -> bit/s */
        assert_int_equal(param(&f[2], "burst")->value.u, 10 * 1024);
        assert_int_equal(param(&f[3], "interval")->value.i, 1500);
        assert_int_equal(param(&f[3], "restarts")->value.i, 7);
        assert_int_equal(param(&f[4], "users")->value.i, 100);
}

static void test_seconds_alias(void **state) {
        static const struct {
                const char *yaml;
                int64_t delay_ms;
        } cases[] = {
                { "      - {fault: net.latency, seconds: 2s}\n", 2000 },
                { "      - {fault: net.latency, seconds: 2}\n", 2000 }, /* bare number = seconds */
                { "      - {fault: net.latency, params: {seconds: 1.5s}}\n", 1500 },
                { "      - {fault: net.latency, seconds: 250ms}\n", 250 },
                { "      - {fault: net.latency, delay_ms: 2000}\n", 2000 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char yaml[512];
                snprintf(yaml, sizeof(yaml), ONE_TARGET("%s"), cases[i].yaml);
                _cleanup_(drill_spec_freep) struct drill_spec *s = parse_ok(yaml);
                const struct drill_param *d = param(&s->targets[0].faults[0], "delay_ms");
                assert_true(d->given);
                assert_int_equal(d->value.type, PARAM_INTEGER);
                assert_int_equal(d->value.i, cases[i].delay_ms);
        }
}

static void test_fault_inherits_config(void **state) {
        /* clang-format off */
        static const char *const faults =
                "    faults:\n"
                "      - fault: proc.pause\n"
                "      - fault: proc.pause\n"
                "        on_failure: abort_and_recover\n"
                "        recovery: yes\n"
                "        duration: 1.5\n"
                "        network_path: backend\n"
                "        targets: [db, cache]\n";
        /* clang-format on */
        char yaml[1024];

        /* clang-format off */
        snprintf(yaml, sizeof(yaml), HEAD "config: {on_failure: continue, recovery: no}\n"
                 "containers:\n  api:\n%sexecution:\n  - parallel: [api]\n", faults);
        /* clang-format on */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_ok(yaml);
        const struct drill_fault *f = s->targets[0].faults;
        assert_int_equal(f[0].on_failure, ON_FAILURE_CONTINUE);
        assert_false(f[0].recovery);
        assert_int_equal(f[0].duration_ms, 10000); /* default */
        assert_int_equal(f[0].duration_pos.line, f[0].pos.line);
        assert_int_equal(f[1].on_failure, ON_FAILURE_ABORT_AND_RECOVER);
        assert_true(f[1].recovery);
        assert_int_equal(f[1].duration_ms, 1500);
        assert_string_equal(f[1].network_path, "backend");
        assert_names(&f[1].peers, "db", "cache");

        snprintf(
                yaml, sizeof(yaml), HEAD "containers:\n  api:\n%sexecution:\n  - parallel: [api]\n", faults);
        _cleanup_(drill_spec_freep) struct drill_spec *d = parse_ok(yaml);
        assert_int_equal(d->targets[0].faults[0].on_failure, ON_FAILURE_ABORT_AND_RECOVER);
        assert_true(d->targets[0].faults[0].recovery);
}

/* ---- config ---- */

static void test_config(void **state) {
        _cleanup_(drill_spec_freep) struct drill_spec *d = parse_ok(PAUSE);
        assert_int_equal(d->config.risk_ceiling, RISK_HIGH);
        assert_int_equal(d->config.timeout_ms, 30 * 60 * 1000);
        assert_int_equal(d->config.log_level, LOG_LEVEL_INFO);
        assert_true(d->config.recovery);
        assert_int_equal(d->config.on_failure, ON_FAILURE_ABORT_AND_RECOVER);
        assert_string_equal(d->hypothesis, "");
        assert_null(d->api_version);

        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_ok(HEAD
                "config:\n  risk_ceiling: low\n  max_faults: 0\n  timeout: 1.5h\n  log_level: DEBUG\n"
                "  maniac: {level: 4, seed: 42}\n"
                "containers: {api: {faults: [{fault: proc.pause}]}}\nexecution: [{parallel: [api]}]\n");
        /* clang-format on */
        assert_int_equal(s->config.risk_ceiling, RISK_LOW);
        assert_int_equal(s->config.max_faults, 0);
        assert_int_equal(s->config.timeout_ms, 5400000);
        assert_int_equal(s->config.log_level, LOG_LEVEL_DEBUG);
        assert_true(s->config.has_maniac);
        assert_int_equal(s->config.maniac_level, 4);
        assert_int_equal(s->config.maniac_run_level, 10);
        assert_true(s->config.has_maniac_seed);
        assert_int_equal(s->config.maniac_seed, 42);
}

static void test_booleans(void **state) {
        static const struct {
                const char *text;
                bool value;
        } cases[] = {
                { "yes", true },  { "no", false }, { "true", true }, { "false", false },
                { "True", true }, { "NO", false }, { "on", true },   { "off", false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char yaml[512];
                /* clang-format off */
                snprintf(yaml, sizeof(yaml), HEAD "config: {recovery: %s}\n"
                         "containers: {api: {faults: [{fault: proc.pause}]}}\n"
                         "execution: [{parallel: [api]}]\n", cases[i].text);
                /* clang-format on */
                _cleanup_(drill_spec_freep) struct drill_spec *s = parse_ok(yaml);
                assert_int_equal(s->config.recovery, cases[i].value);
                assert_int_equal(s->targets[0].faults[0].recovery, cases[i].value);
        }
}

/* ---- targets: ---- */

static void test_targets_form(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_checked(HEAD
                "targets:\n"
                "  web:\n"
                "    runtime: docker\n"
                "    docker: {container_name: shop-web-1}\n"
                "    selection: {mode: one}\n"
                "    faults: [{fault: container.restart}]\n"
                "  cart:\n"
                "    runtime: kubernetes\n"
                "    kubernetes: {kind: deployment, namespace: shop, name: cart, container: app}\n"
                "    faults: [{fault: cpu.saturate, percent: 50}]\n"
                "execution:\n  - sequential: [web, cart]\n");
        /* clang-format on */
        assert_true(s->declared_as_targets);
        assert_int_equal(s->n_targets, 2);
        assert_string_equal(s->targets[0].name, "web");
        assert_int_equal(s->targets[0].runtime, TARGET_RUNTIME_DOCKER);
        assert_string_equal(s->targets[0].container_name, "shop-web-1");
        assert_null(s->targets[0].k8s.kind);
        const struct drill_target *k = drill_spec_find_target(s, "cart");
        assert_non_null(k);
        assert_int_equal(k->runtime, TARGET_RUNTIME_KUBERNETES);
        assert_null(k->container_name);
        assert_string_equal(k->k8s.kind, "deployment");
        assert_string_equal(k->k8s.namespace, "shop");
        assert_string_equal(k->k8s.name, "cart");
        assert_string_equal(k->k8s.container, "app");
        assert_true(param(&k->faults[0], "percent")->value.f == 50.0);
        assert_null(drill_spec_find_target(s, "nope"));
}

/* ---- steps ---- */

static void test_wait_forms(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_checked(PAUSE
                "  - wait: 5s\n"
                "  - wait: {duration: 1.5m}\n"
                "  - check_spec: [{id: up, execution: host, probe: {type: tcp, host: db, port: 5432}}]\n"
                "  - wait: {until_check_passes: up, timeout: 30s, interval: 2s}\n"
                "  - wait:\n"
                "      until_check_passes: {type: http, url: 'https://api/health'}\n");
        /* clang-format on */
        const struct drill_step *st = s->steps;
        assert_int_equal(s->n_steps, 6);
        assert_int_equal(st[1].kind, STEP_WAIT);
        assert_int_equal(st[1].wait_ms, 5000);
        assert_false(st[1].wait_until);
        assert_int_equal(st[2].wait_ms, 90000);
        assert_true(st[4].wait_until);
        assert_string_equal(st[4].until_check_id, "up");
        assert_int_equal(st[4].until_pos.line, 12);
        assert_int_equal(st[4].until_pos.col, 32);
        assert_int_equal(st[4].until_timeout_ms, 30000);
        assert_int_equal(st[4].until_interval_ms, 2000);
        assert_true(st[5].wait_until);
        assert_null(st[5].until_check_id);
        assert_int_equal(st[5].until_probe.type, PROBE_HTTP);
        assert_string_equal(st[5].until_probe.url, "https://api/health");
        assert_int_equal(st[5].until_timeout_ms, 60000);
        assert_int_equal(st[5].until_interval_ms, 1000);
}

static void test_probe_types(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_checked(PAUSE
                "  - check:\n"
                "      - http: https://api/\n"
                "  - check_spec:\n"
                "      - {execution: host, probe: {type: http, url: 'http://a/', method: POST,\n"
                "         expected_status: 204}}\n"
                "      - {execution: container, target: api,\n"
                "         probe: {type: exec, cmd: [pg_isready, -q]}}\n"
                "      - {id: tcp, execution: service, target: api,\n"
                "         probe: {type: tcp, host: db, port: 5432, timeout: 1s}}\n"
                "      - {id: byname, execution: process, target: api,\n"
                "         probe: {type: process, name: nginx}}\n"
                "      - {id: bypid, execution: host, probe: {type: process, pid: 1}}\n"
                "      - {id: m, execution: host,\n"
                "         probe: {type: metric, endpoint: 'http://p:9090/', query: up, threshold: 0.5}}\n"
                "      - {id: f, execution: host,\n"
                "         probe: {type: file, path: /etc/hosts, contains: localhost}}\n"
                "      - {id: f2, execution: host, probe: {type: file, path: /tmp/x}}\n");
        /* clang-format on */
        const struct drill_check *legacy = &s->steps[1].checks[0], *c = s->steps[2].checks;
        assert_string_equal(legacy->id, "check-0001-0");
        assert_string_equal(legacy->probe.url, "https://api/");
        assert_int_equal(legacy->probe.expected_status, 200);
        assert_int_equal(legacy->probe.timeout_ms, 5000);
        assert_int_equal(s->steps[2].n_checks, 8);

        assert_string_equal(c[0].id, "check-0002-0");
        assert_int_equal(c[0].execution, CHECK_LOCUS_HOST);
        assert_null(c[0].target);
        assert_string_equal(c[0].probe.method, "POST");
        assert_int_equal(c[0].probe.expected_status, 204);
        assert_int_equal(c[0].probe.timeout_ms, 5000);

        assert_string_equal(c[1].id, "check-0002-1");
        assert_int_equal(c[1].probe.type, PROBE_EXEC);
        assert_int_equal(c[1].probe.n_cmd, 2);
        assert_string_equal(c[1].probe.cmd[0], "pg_isready");
        assert_string_equal(c[1].probe.cmd[1], "-q");
        assert_null(c[1].probe.cmd[2]); /* execvp() reads the argv up to a NULL */
        assert_int_equal(c[1].probe.expected_exit_code, 0);
        assert_int_equal(c[1].probe.timeout_ms, 10000);
        assert_string_equal(c[1].target, "api");

        assert_int_equal(c[2].probe.type, PROBE_TCP);
        assert_int_equal(c[2].execution, CHECK_LOCUS_SERVICE);
        assert_string_equal(c[2].probe.host, "db");
        assert_int_equal(c[2].probe.port, 5432);
        assert_int_equal(c[2].probe.timeout_ms, 1000);

        assert_int_equal(c[3].probe.type, PROBE_PROCESS);
        assert_string_equal(c[3].probe.process_name, "nginx");
        assert_int_equal(c[3].probe.pid, 0);
        assert_int_equal(c[4].probe.pid, 1);
        assert_null(c[4].probe.process_name);

        assert_int_equal(c[5].probe.type, PROBE_METRIC);
        assert_string_equal(c[5].probe.endpoint, "http://p:9090/");
        assert_string_equal(c[5].probe.query, "up");
        assert_true(c[5].probe.has_threshold);
        assert_true(c[5].probe.threshold == 0.5);

        assert_int_equal(c[6].probe.type, PROBE_FILE);
        assert_string_equal(c[6].probe.path, "/etc/hosts");
        assert_string_equal(c[6].probe.contains, "localhost");
        assert_null(c[7].probe.contains);
}

/* ---- success, observability, slo, steady_state ---- */

static void test_success(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_ok(PAUSE
                "success:\n"
                "  require_all: false\n"
                "  criteria:\n"
                "    - {type: status, source_id: a.status, expected: 503}\n"
                "    - {type: latency, source_id: a.latency_ms, lt_ms: 250.5}\n"
                "    - {type: metric, source_id: m, gt: -1, lt: 1e3}\n"
                "    - {type: metric, source_id: m2, lt: 5}\n"
                "    - {type: count, source_id: c}\n"
                "    - {type: count, source_id: c2, gte: 3}\n"
                "    - {type: boolean, source_id: b}\n"
                "    - {type: boolean, source_id: b2, value: no}\n"
                "    - {type: latency, source_id: p.latency_ms, lt_ms: 300, over: p95, window: during}\n"
                "    - {type: boolean, source_id: p, over: all}\n");
        /* clang-format on */
        const struct drill_criterion *c = s->success.criteria;
        assert_true(s->success.present);
        assert_false(s->success.require_all);
        assert_int_equal(s->success.n_criteria, 10);
        /* neither written: the last sample of the whole run, as in the reference */
        assert_int_equal(c[0].over, CRITERION_OVER_LAST);
        assert_int_equal(c[0].window, CRITERION_WINDOW_WHOLE);
        assert_false(c[0].has_over || c[0].has_window);
        assert_int_equal(c[8].over, CRITERION_OVER_P95);
        assert_int_equal(c[8].window, CRITERION_WINDOW_DURING);
        assert_true(c[8].has_over && c[8].has_window);
        assert_int_equal(c[9].over, CRITERION_OVER_ALL);
        assert_true(c[9].has_over && !c[9].has_window);
        assert_int_equal(c[0].type, CRITERION_STATUS);
        assert_int_equal(c[0].expected, 503);
        assert_int_equal(c[0].pos.line, 12);
        assert_int_equal(c[1].type, CRITERION_LATENCY);
        assert_true(c[1].lt_ms == 250.5);
        assert_true(c[2].has_gt && c[2].has_lt && c[2].gt == -1 && c[2].lt == 1000);
        assert_true(!c[3].has_gt && c[3].has_lt && c[3].lt == 5);
        assert_int_equal(c[4].gte, 1);
        assert_int_equal(c[5].gte, 3);
        assert_true(c[6].value);
        assert_false(c[7].value);
        assert_string_equal(c[7].source_id, "b2");
}

static void test_observability(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_checked(PAUSE
                "observability:\n"
                "  cadence: 2s\n"
                "  total_timeout: 2m\n"
                "  sources:\n"
                "    - {kind: logs, source_id: l, container: api, tail: 500, since: 10m}\n"
                "    - {kind: inspection, source_id: i, container: api, timeout: 3s}\n"
                "    - {kind: probe, source_id: p, probe: {type: tcp, host: db, port: 5432}, cadence: 0}\n"
                "    - {kind: metrics, source_id: m, endpoint: 'http://p:9090/metrics',\n"
                "       metric: http_requests_total}\n");
        /* clang-format on */
        const struct drill_observability *o = &s->observability;
        const struct drill_obs_source *src = o->sources;
        assert_int_equal(o->cadence_ms, 2000);
        assert_int_equal(o->total_timeout_ms, 120000);
        assert_int_equal(o->n_sources, 4);
        assert_int_equal(src[0].tail, 500);
        assert_string_equal(src[0].since, "10m");
        assert_int_equal(src[0].since_ago_ms, 600000);
        assert_int_equal(src[0].since_unix_s, 0);
        assert_string_equal(src[0].pattern, DRILL_LOGS_PATTERN_DEFAULT);
        assert_int_equal(src[0].timeout_ms, 10000);
        assert_int_equal(src[1].kind, OBS_INSPECTION);
        assert_string_equal(src[1].container, "api");
        assert_int_equal(src[1].timeout_ms, 3000);
        assert_int_equal(src[2].kind, OBS_PROBE);
        assert_int_equal(src[2].probe.port, 5432);
        assert_int_equal(src[2].cadence_ms, 0); /* once */
        assert_int_equal(src[3].kind, OBS_METRICS);
        assert_string_equal(src[3].endpoint, "http://p:9090/metrics");
        assert_string_equal(src[3].metric, "http_requests_total");
        assert_int_equal(src[3].cadence_ms, 2000); /* the block's cadence */
}

static void test_slo(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_ok(PAUSE
                "slo:\n"
                "  - metric: p99\n"
                "  - {metric: errors, kind: error_budget, operator: gt, threshold: 0.1, unit: ratio,\n"
                "     window_s: 300, name: budget, target: api}\n");
        /* clang-format on */
        assert_int_equal(s->n_slos, 2);
        const struct drill_slo *d = &s->slos[0], *f = &s->slos[1];
        assert_string_equal(d->metric, "p99");
        assert_int_equal(d->kind, SLO_LATENCY);
        assert_int_equal(d->op, SLO_OP_LTE);
        assert_true(d->threshold == 0);
        assert_string_equal(d->unit, "ms");
        assert_int_equal(d->window_s, 60);
        assert_string_equal(d->name, "latency:p99");
        assert_string_equal(d->target, "");
        assert_int_equal(f->kind, SLO_ERROR_BUDGET);
        assert_int_equal(f->op, SLO_OP_GT);
        assert_true(f->threshold == 0.1);
        assert_string_equal(f->unit, "ratio");
        assert_int_equal(f->window_s, 300);
        assert_string_equal(f->name, "budget");
        assert_string_equal(f->target, "api");
}

static void test_steady_state(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_checked(PAUSE
                "observability:\n"
                "  sources:\n"
                "    - {kind: probe, source_id: api, probe: {type: tcp, host: 127.0.0.1, port: 80}}\n"
                "    - {kind: probe, source_id: lb, probe: {type: tcp, host: 127.0.0.1, port: 81}}\n"
                "steady_state:\n"
                "  capture: {samples: 7, window: 20s}\n"
                "  signals:\n"
                "    - {name: p99, source_id: api.http, metric: latency_ms, expect: {lte: 250, gte: 1}}\n"
                "    - {name: errors, source_id: api.http, expect: {eq: 0}, severity: critical}\n"
                "    - name: rps\n"
                "      source_id: lb\n"
                "      tolerance: {at_most: 5, at_most_relative: 1.5}\n"
                "      baseline_window: 30s\n"
                "  phases:\n"
                "    - before: {assert_unchanged: [p99, errors]}\n"
                "    - during: {assert_degraded: [p99], within: 1.5}\n"
                "    - after: {assert_recovered: [rps]}\n");
        /* clang-format on */
        const struct drill_steady_state *ss = &s->steady_state;
        assert_true(ss->present);
        assert_int_equal(ss->samples, 7);
        assert_int_equal(ss->window_ms, 20000);
        assert_int_equal(ss->n_signals, 3);
        const struct drill_ss_signal *g = ss->signals;
        assert_string_equal(g[0].metric, "latency_ms");
        assert_true(g[0].has_expect && g[0].has_lte && g[0].has_gte && !g[0].has_eq);
        assert_true(g[0].lte == 250 && g[0].gte == 1);
        assert_int_equal(g[0].severity, SEVERITY_WARNING);
        assert_true(g[1].has_eq && g[1].eq == 0);
        assert_int_equal(g[1].severity, SEVERITY_CRITICAL);
        assert_null(g[2].metric);
        assert_true(g[2].has_tolerance && !g[2].has_expect);
        assert_true(g[2].has_at_most && g[2].at_most == 5);
        assert_true(g[2].has_at_most_relative && g[2].at_most_relative == 1.5);
        assert_true(g[2].has_baseline_window);
        assert_int_equal(g[2].baseline_window_ms, 30000);

        assert_int_equal(ss->n_phases, 3);
        assert_int_equal(ss->phases[0].phase, SS_PHASE_PRE);
        assert_names(&ss->phases[0].assert_unchanged, "p99", "errors");
        assert_int_equal(ss->phases[1].phase, SS_PHASE_DURING);
        assert_names(&ss->phases[1].assert_degraded, "p99", NULL);
        assert_true(ss->phases[1].has_within && ss->phases[1].within == 1.5);
        assert_int_equal(ss->phases[2].phase, SS_PHASE_POST);
        assert_names(&ss->phases[2].assert_recovered, "rps", NULL);
        assert_false(ss->phases[2].has_within);

        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *d = parse_ok(PAUSE
                "steady_state: {signals: [{name: x, source_id: y, tolerance: {at_most: 0}}]}\n");
        /* clang-format on */
        assert_int_equal(d->steady_state.samples, 5);
        assert_int_equal(d->steady_state.window_ms, 10000);
        assert_int_equal(d->steady_state.n_phases, 0);
}

/* ---- YAML features inside a drill ---- */

static void test_anchors_and_merge(void **state) {
        /* clang-format off */
        _cleanup_(drill_spec_freep) struct drill_spec *s = parse_checked(HEAD
                "containers:\n"
                "  api:\n"
                "    faults: &faults\n"
                "      - &slow {fault: net.latency, delay_ms: 200, duration: 5s}\n"
                "      - <<: *slow\n"
                "        jitter_ms: 10\n"
                "        duration: 8s\n"
                "  web:\n"
                "    faults: *faults\n"
                "execution:\n  - parallel: &both [api, web]\n  - sequential: *both\n");
        /* clang-format on */
        const struct drill_target *api = &s->targets[0], *web = &s->targets[1];
        assert_int_equal(api->n_faults, 2);
        assert_int_equal(param(&api->faults[1], "delay_ms")->value.i, 200);
        assert_int_equal(param(&api->faults[1], "jitter_ms")->value.i, 10);
        assert_int_equal(api->faults[1].duration_ms, 8000); /* the explicit key beats the merged one */
        assert_int_equal(api->faults[0].duration_ms, 5000);
        assert_int_equal(web->n_faults, 2);
        assert_int_equal(param(&web->faults[1], "jitter_ms")->value.i, 10);
        assert_names(&s->steps[1].names, "api", "web");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reference_example),
                cmocka_unit_test(test_params_flat_equals_block),
                cmocka_unit_test(test_params_typed_and_defaulted),
                cmocka_unit_test(test_seconds_alias),
                cmocka_unit_test(test_fault_inherits_config),
                cmocka_unit_test(test_config),
                cmocka_unit_test(test_booleans),
                cmocka_unit_test(test_targets_form),
                cmocka_unit_test(test_wait_forms),
                cmocka_unit_test(test_probe_types),
                cmocka_unit_test(test_success),
                cmocka_unit_test(test_observability),
                cmocka_unit_test(test_slo),
                cmocka_unit_test(test_steady_state),
                cmocka_unit_test(test_anchors_and_merge),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
