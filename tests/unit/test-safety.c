#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <signal.h>
#include <sys/wait.h>

#include "catalog/catalog.h"
#include "common/proc-stat.h"
#include "common/run-command.h"
#include "evidence/evidence.h"
#include "evidence/lease.h"
#include "plan/plan-internal.h"
#include "plan/plan.h"

/* The safety gates of the planner (docs/safety.md): one test per rule, with
 * the reference's rule id and message, allowed and denied. */

/* Eight services with no dependencies and api -> db: a fault on db hits db and api. */
static const char *const wide_compose = "name: s\nservices:\n"
                                        "  api: {image: x, container_name: api, depends_on: [db]}\n"
                                        "  db: {image: x, container_name: db}\n"
                                        "  w1: {image: x, container_name: w1}\n"
                                        "  w2: {image: x, container_name: w2}\n"
                                        "  w3: {image: x, container_name: w3}\n"
                                        "  w4: {image: x, container_name: w4}\n"
                                        "  w5: {image: x, container_name: w5}\n"
                                        "  w6: {image: x, container_name: w6}\n";
static const char *const small_compose = "name: t\nservices:\n"
                                         "  api: {image: x, container_name: api, depends_on: [db]}\n"
                                         "  db: {image: x, container_name: db}\n"
                                         "  cache: {image: x, container_name: cache}\n";
static const char *const one_compose = "name: o\nservices:\n  api: {image: x, container_name: api}\n";

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

static struct mayhem_config *defaults(void) {
        struct mayhem_config *c = NULL;
        struct mh_error e = { 0 };
        assert_int_equal(config_defaults(&c, &e), 0);
        return c;
}

static struct built build_opt(const char *compose, const char *drill, struct plan_options opt) {
        struct built b = { 0 };
        assert_int_equal(compose_parse("compose.yaml", compose, strlen(compose), &b.topo, &b.err), 0);
        b.r = drill_parse("drill.yaml", drill, strlen(drill), &b.spec, &b.err);
        if (b.r < 0)
                fail_msg("drill: %s", b.err.msg);
        b.r = plan_build_with(b.spec, b.topo, &opt, &b.plan, &b.err);
        return b;
}

static struct built build(const char *compose, const char *drill, const struct mayhem_config *cfg) {
        return build_opt(compose, drill, (struct plan_options){ .config = cfg });
}

#define HEAD "kind: drill\nname: s\n"

/* Refused with exit 5, the message "safety refused: MSG", a remediation. */
static void expect_refused(struct built *b, const char *msg) {
        char want[MH_ERROR_MSG_MAX];
        snprintf(want, sizeof(want), "safety refused: %s", msg);
        if (b->r >= 0)
                fail_msg("planned; expected: %s", want);
        if (strcmp(b->err.msg, want) != 0)
                fail_msg("got:  %s\nwant: %s", b->err.msg, want);
        assert_int_equal(b->err.exit, MH_EXIT_SAFETY_REFUSAL);
        assert_string_equal(b->err.id, "safety_refusal");
        assert_true(b->err.remediation[0] != '\0');
        assert_null(b->plan);
        built_done(b);
}

static void expect_planned(struct built *b) {
        if (b->r < 0)
                fail_msg("refused: %s", b->err.msg);
        built_done(b);
}

static bool has_decision(const struct plan *pl, const char *rule, bool allow, const char *reason) {
        for (size_t i = 0; i < pl->n_decisions; i++)
                if (strcmp(pl->decisions[i].rule, rule) == 0 && pl->decisions[i].allow == allow &&
                    (!reason || strstr(pl->decisions[i].reason, reason)))
                        return true;
        return false;
}

static const char *const pause_api =
        HEAD "containers:\n  api:\n    faults: [{fault: container.pause, duration: 10s}]\n"
             "execution:\n  - sequential: [api]\n";

/* ---- fault admission (§5.2) ---- */

static void test_deny_faults(void **state) {
        static const char *const deny[] = { "container.pause" }, *const prefix[] = { "container." },
                                 *const other[] = { "net.latency" };
        struct mayhem_config *c = defaults();
        c->policy.deny_faults = deny;
        c->policy.n_deny_faults = 1;
        struct built b = build(wide_compose, pause_api, c);
        expect_refused(&b, "container.pause: denied by policy denylist [policy.deny_faults]");
        c->policy.deny_faults = prefix;
        b = build(wide_compose, pause_api, c);
        expect_refused(&b, "container.pause: denied by policy denylist [policy.deny_faults]");
        c->policy.deny_faults = other;
        b = build(wide_compose, pause_api, c);
        assert_true(has_decision(b.plan, "policy.allow", true, "container.pause: admitted"));
        expect_planned(&b);
        config_free(c);
}

static void test_allow_faults(void **state) {
        static const char *const allow[] = { "net.latency" }, *const both[] = { "net.latency",
                                                                                "container.pause" };
        struct mayhem_config *c = defaults();
        c->policy.allow_faults = allow;
        c->policy.n_allow_faults = 1;
        struct built b = build(wide_compose, pause_api, c);
        expect_refused(&b, "container.pause: not in policy allowlist [policy.allow_faults]");
        c->policy.allow_faults = both;
        c->policy.n_allow_faults = 2;
        b = build(wide_compose, pause_api, c);
        expect_planned(&b);
        config_free(c);
}

/* node.reboot is in no catalog of this build, so the rule is walked with a made-up fault. */
static void test_default_deny(void **state) {
        static const char *const allow[] = { "node.reboot" };
        const struct fault_def reboot = { .id = "node.reboot", .risk = RISK_HIGH };
        struct config_policy pol = { 0 };
        struct pb_verdict v[PLAN_POLICY_RULES];
        assert_int_equal(plan_policy_verdicts(&pol, RISK_HIGH, false, &reboot, v), PLAN_POLICY_RULES);
        assert_string_equal(v[1].rule, "policy.default_deny");
        assert_false(v[1].allow);
        assert_string_equal(v[1].reason, "node.reboot: denied by default (no policy allowlist)");
        pol.allow_faults = allow;
        pol.n_allow_faults = 1;
        plan_policy_verdicts(&pol, RISK_HIGH, false, &reboot, v);
        assert_string_equal(v[1].rule, "policy.allow_faults");
        assert_true(v[1].allow);
        pol.allow_faults = NULL;
        plan_policy_verdicts(&pol, RISK_HIGH, false, catalog_find("container.pause"), v);
        assert_string_equal(v[1].rule, "policy.default_deny");
        assert_true(v[1].allow);
}

static void test_risk_ceiling(void **state) {
        struct mayhem_config *c = defaults();
        c->policy.has_risk_ceiling = true;
        c->policy.risk_ceiling = RISK_LOW;
        struct built b = build(wide_compose, pause_api, c);
        expect_refused(
                &b, "container.pause has risk medium, above the policy's risk_ceiling low "
                    "[policy.risk_ceiling]");
        /* The drill can only tighten: a drill ceiling of critical does not lift the policy's. */
        char drill[512];
        snprintf(
                drill, sizeof(drill), HEAD "config: {risk_ceiling: critical}\n%s", pause_api + strlen(HEAD));
        b = build(wide_compose, drill, c);
        expect_refused(
                &b, "container.pause has risk medium, above the policy's risk_ceiling low "
                    "[policy.risk_ceiling]");
        c->policy.risk_ceiling = RISK_HIGH;
        snprintf(drill, sizeof(drill), HEAD "config: {risk_ceiling: low}\n%s", pause_api + strlen(HEAD));
        b = build(wide_compose, drill, c);
        expect_refused(
                &b,
                "container.pause has risk medium, above the drill's risk_ceiling low [policy.risk_ceiling]");
        b = build(wide_compose, pause_api, c);
        expect_planned(&b);
        config_free(c);
}

/* No critical fault in this catalog: the triple opt-in walked with a made-up one. */
static void test_critical_triple_optin(void **state) {
        static const char *const acks[] = { "disk.wipe" };
        const struct fault_def wipe = { .id = "disk.wipe", .risk = RISK_CRITICAL };
        struct config_policy pol = { .allow_critical = true,
                                     .critical_fault_acks = acks,
                                     .n_critical_fault_acks = 1 };
        struct pb_verdict v[PLAN_POLICY_RULES];

        plan_policy_verdicts(&pol, RISK_CRITICAL, true, &wipe, v);
        assert_string_equal(v[3].rule, "policy.critical_triple_optin");
        assert_true(v[3].allow);
        assert_true(v[2].allow); /* within a critical ceiling */

        plan_policy_verdicts(&pol, RISK_CRITICAL, false, &wipe, v);
        assert_false(v[3].allow);
        assert_string_equal(
                v[3].reason,
                "disk.wipe is critical and needs the triple opt-in: --allow-critical was not given");
        pol.allow_critical = false;
        plan_policy_verdicts(&pol, RISK_CRITICAL, true, &wipe, v);
        assert_string_equal(
                v[3].reason,
                "disk.wipe is critical and needs the triple opt-in: policy.allow_critical is not true");
        pol.allow_critical = true;
        pol.n_critical_fault_acks = 0;
        plan_policy_verdicts(&pol, RISK_CRITICAL, true, &wipe, v);
        assert_string_equal(
                v[3].reason, "disk.wipe is critical and needs the triple opt-in: the fault is not in "
                             "policy.critical_fault_acks");
        plan_policy_verdicts(&pol, RISK_HIGH, true, &wipe, v);
        assert_false(v[2].allow); /* the drill's default ceiling, high, refuses it first */
        assert_string_equal(v[2].rule, "policy.risk_ceiling");
}

static void test_policy_profiles(void **state) {
        const char *drill = HEAD "containers:\n  api:\n    faults: [{fault: net.partition, duration: 5s}]\n"
                                 "execution:\n  - sequential: [api]\n";
        struct mayhem_config *c = defaults();
        struct built b = build_opt(
                wide_compose, drill, (struct plan_options){ .config = c, .policy_name = "strict" });
        expect_refused(
                &b,
                "net.partition has risk high, above the policy's risk_ceiling medium [policy.risk_ceiling]");
        b = build_opt(wide_compose, drill, (struct plan_options){ .config = c });
        assert_string_equal(b.plan->policy_name, "default");
        expect_planned(&b);
        c->policy.has_risk_ceiling = true;
        c->policy.risk_ceiling = RISK_LOW;
        b = build_opt(
                wide_compose, drill, (struct plan_options){ .config = c, .policy_name = "permissive" });
        assert_string_equal(b.plan->policy_name, "permissive");
        assert_non_null(strstr(b.plan->canonical_json, "\"policy\":\"permissive\""));
        expect_planned(&b);
        b = build_opt(wide_compose, drill, (struct plan_options){ .config = c, .policy_name = "yolo" });
        assert_true(b.r < 0);
        assert_int_equal(b.err.exit, MH_EXIT_USAGE_ERROR);
        assert_string_equal(b.err.msg, "unknown --policy 'yolo' (known: default, permissive, strict)");
        built_done(&b);
        config_free(c);
}

/* ---- blast radius (§5.3) ---- */

static void test_max_services_pct(void **state) {
        const char *on_db = HEAD "containers:\n  db:\n    faults: [{fault: container.pause, duration: 5s}]\n"
                                 "execution:\n  - sequential: [db]\n";
        const char *on_cache =
                HEAD "containers:\n  cache:\n    faults: [{fault: container.pause, duration: 5s}]\n"
                     "execution:\n  - sequential: [cache]\n";
        struct built b = build(small_compose, on_db, NULL);
        expect_refused(
                &b, "blast radius: step 1 hits 2 of 3 service(s) with their dependents (66.7%), above "
                    "max_services_pct 50 [blast_radius.max_services_pct]");
        b = build(small_compose, on_cache, NULL);
        assert_true(has_decision(b.plan, "blast_radius.allow", true, "services_pct=33.3"));
        expect_planned(&b);
        b = build(one_compose, pause_api, NULL); /* one service is always allowed */
        expect_planned(&b);
}

static void test_max_hosts(void **state) {
        struct mayhem_config *c = defaults();
        c->blast_radius.max_hosts = 0;
        struct built b = build(wide_compose, pause_api, c);
        expect_refused(
                &b, "blast radius: step 1 hits 1 host(s), above max_hosts 0 [blast_radius.max_hosts]");
        config_free(c);
}

#define LANES3                                                                                              \
        "containers:\n  w1: {faults: [{fault: container.pause, duration: 2s}, {fault: net.latency, "        \
        "duration: 2s}, {fault: cpu.throttle, duration: 2s}]}\n"                                            \
        "  w2: {faults: [{fault: container.pause, duration: 2s}]}\n"                                        \
        "  w3: {faults: [{fault: container.pause, duration: 2s}]}\n"

/* Counted in force at once, not as the reference's never-reset prefix count. */
static void test_max_concurrent_faults(void **state) {
        struct mayhem_config *c = defaults();
        c->blast_radius.max_concurrent_faults = 2;
        struct built b = build(wide_compose, HEAD LANES3 "execution:\n  - parallel: [w1, w2, w3]\n", c);
        expect_refused(
                &b, "blast radius: max_concurrent_faults exceeded: step 1 holds 3 faults in force at once, "
                    "the limit is 2 [blast_radius.max_concurrent_faults]");
        /* Two lanes, five faults: two at a time. */
        b = build(wide_compose, HEAD LANES3 "execution:\n  - parallel: [w1, w2]\n", c);
        assert_true(has_decision(b.plan, "blast_radius.allow", true, "concurrent_faults=2"));
        expect_planned(&b);
        /* Sequential steps, seven faults in all (the reference tripped at the fourth): one at a time. */
        b =
                build(wide_compose,
                      HEAD LANES3 "execution:\n  - sequential: [w1, w2, w3]\n  - sequential: [w1, w2]\n", c);
        assert_true(has_decision(
                b.plan, "blast_radius.allow", true,
                "step 2: services_pct=25.0 hosts=1 concurrent_faults=1"));
        expect_planned(&b);
        config_free(c);
}

static void test_max_faults(void **state) {
        struct built b =
                build(wide_compose,
                      HEAD "config: {max_faults: 1}\n" LANES3 "execution:\n  - parallel: [w2, w3]\n", NULL);
        expect_refused(
                &b, "config.max_faults exceeded: step 1 holds 2 fault(s) in force at once, the drill allows "
                    "1 [config.max_faults]");
        b = build(
                wide_compose,
                HEAD "config: {max_faults: 1}\n" LANES3 "execution:\n  - sequential: [w1, w2, w3]\n", NULL);
        expect_planned(&b);
        b =
                build(wide_compose,
                      HEAD "config: {max_faults: 0}\n" LANES3 "execution:\n  - parallel: [w2, w3]\n", NULL);
        expect_planned(&b);
        b =
                build(wide_compose, HEAD LANES3 "execution:\n  - parallel: [w2, w3]\n",
                      NULL); /* not written: not enforced */
        expect_planned(&b);
}

static void test_max_duration_per_fault(void **state) {
        struct mayhem_config *c = defaults();
        c->blast_radius.max_duration_per_fault_s = 5;
        struct built b = build(wide_compose, pause_api, c);
        expect_refused(
                &b, "blast radius: container.pause on 'api' lasts 10s, above max_duration_per_fault_s 5 "
                    "[blast_radius.max_duration_per_fault_s]");
        assert_int_equal(b.err.line, 5); /* the duration */
        config_free(c);
}

/* Three faults in two steps; the pair is the first and the last (inert before the reference's 1.0). */
static void test_forbidden_pairs(void **state) {
        const struct config_fault_pair pairs[] = { { "cpu.throttle", "container.kill" } },
                                       prefixes[] = { { "cpu.", "container.*" } };
        const char *drill = HEAD "containers:\n"
                                 "  w1: {faults: [{fault: cpu.throttle, duration: 2s}]}\n"
                                 "  w2: {faults: [{fault: net.latency, duration: 2s}]}\n"
                                 "  w3: {faults: [{fault: container.kill, duration: 2s}]}\n"
                                 "execution:\n  - parallel: [w1, w2]\n  - sequential: [w3]\n";
        struct mayhem_config *c = defaults();
        c->blast_radius.forbidden_fault_pairs = pairs;
        c->blast_radius.n_forbidden_fault_pairs = 1;
        struct built b = build(wide_compose, drill, c);
        expect_refused(
                &b, "blast radius: cpu.throttle on 'w1' and container.kill on 'w3' are a forbidden pair "
                    "(cpu.throttle, container.kill) [blast_radius.forbidden_fault_pairs]");
        c->blast_radius.forbidden_fault_pairs = prefixes;
        b = build(wide_compose, drill, c);
        expect_refused(
                &b, "blast radius: cpu.throttle on 'w1' and container.kill on 'w3' are a forbidden pair "
                    "(cpu., container.*) [blast_radius.forbidden_fault_pairs]");
        c->blast_radius.n_forbidden_fault_pairs = 0;
        b = build(wide_compose, drill, c);
        expect_planned(&b);
        config_free(c);
}

/* ---- damage quota ---- */

static void test_damage_per_fault_ceiling(void **state) {
        struct mayhem_config *c = defaults();
        c->blast_radius.damage_quota.per_fault_ceiling_s = 5;
        struct built b = build(wide_compose, pause_api, c);
        expect_refused(
                &b, "damage quota: step 1 charges api 10 fault-s, above per_fault_ceiling_s 5 "
                    "[damage_quota.per_fault_ceiling]");
        config_free(c);
}

static void test_damage_budget(void **state) {
        struct mayhem_config *c = defaults();
        c->blast_radius.damage_quota.budget_s = 100;
        const struct plan_damage history[] = { { "api", 60 }, { "api", 35 }, { "db", 1000 } };
        struct built b = build_opt(
                wide_compose, pause_api,
                (struct plan_options){ .config = c, .damage = history, .n_damage = 3 });
        expect_refused(
                &b, "damage quota: api would reach 105 fault-s of 100 in 604800 s; 5 remain "
                    "[damage_quota.budget]");
        b = build_opt(
                wide_compose, pause_api,
                (struct plan_options){ .config = c, .damage = history, .n_damage = 1 });
        assert_true(has_decision(
                b.plan, "blast_radius.allow", true, "damage_worst_target_s=70 damage_headroom_s=30"));
        expect_planned(&b);
        /* The plan's own steps add up: the fourth 30 s pause passes 100. */
        const char *four =
                HEAD "containers:\n  api:\n    faults: [{fault: container.pause, duration: 30s}]\n"
                     "execution:\n  - sequential: [api]\n  - sequential: [api]\n  - sequential: [api]\n"
                     "  - sequential: [api]\n";
        b = build(wide_compose, four, c);
        expect_refused(
                &b, "damage quota: api would reach 120 fault-s of 100 in 604800 s; 10 remain "
                    "[damage_quota.budget]");
        /* Two drill targets on one container (as the maniac's draws are) are one target. */
        const char *twice = HEAD "targets:\n"
                                 "  a1: {runtime: docker, docker: {container_name: api}, faults: [{fault: "
                                 "container.pause, duration: 60s}]}\n"
                                 "  a2: {runtime: docker, docker: {container_name: api}, faults: [{fault: "
                                 "container.pause, duration: 60s}]}\n"
                                 "execution:\n  - sequential: [a1]\n  - sequential: [a2]\n";
        b = build(wide_compose, twice, c);
        expect_refused(
                &b, "damage quota: api would reach 120 fault-s of 100 in 604800 s; 40 remain "
                    "[damage_quota.budget]");
        config_free(c);
}

static void test_damage_weights(void **state) {
        assert_true(fault_damage_weight(catalog_find("container.pause")) == 1.0); /* medium, reversible */
        assert_true(fault_damage_weight(catalog_find("net.partition")) == 2.0);   /* high, reversible */
        assert_true(fault_damage_weight(catalog_find("process.kill")) == 2.5);    /* high, reconciled */
        assert_true(fault_damage_weight(NULL) == 8.0);                            /* unknown */
}

/* ---- --dry-run ---- */

static void test_dry_run_collects_everything(void **state) {
        static const char *const deny[] = { "net.latency" };
        struct mayhem_config *c = defaults();
        c->policy.deny_faults = deny;
        c->policy.n_deny_faults = 1;
        c->blast_radius.max_concurrent_faults = 2;
        c->blast_radius.max_duration_per_fault_s = 1;
        struct built b = build_opt(
                wide_compose, HEAD LANES3 "execution:\n  - parallel: [w1, w2, w3]\n",
                (struct plan_options){ .config = c, .dry_run = true });
        assert_int_equal(b.r, 0);
        assert_non_null(b.plan);
        assert_true(
                has_decision(b.plan, "policy.deny_faults", false, "net.latency: denied by policy denylist"));
        assert_true(has_decision(b.plan, "policy.deny_faults", true, "container.pause"));
        assert_true(has_decision(b.plan, "blast_radius.max_concurrent_faults", false, NULL));
        assert_true(has_decision(b.plan, "blast_radius.max_services_pct", true, NULL));
        assert_true(has_decision(b.plan, "damage_quota.budget", true, NULL));
        assert_false(has_decision(b.plan, "blast_radius.allow", true, NULL)); /* the step was refused */
        size_t durations = 0;
        for (size_t i = 0; i < b.plan->n_decisions; i++)
                durations += !b.plan->decisions[i].allow &&
                             strcmp(b.plan->decisions[i].rule, "blast_radius.max_duration_per_fault_s") == 0;
        assert_int_equal(durations, 5);
        assert_int_equal(b.plan->n_refused, 1 + 1 + 5);
        json_t *d = plan_decisions_json(b.plan);
        json_t *first_deny = NULL, *v;
        size_t i;
        json_array_foreach(d, i, v) {
                if (!first_deny && strcmp(json_string_value(json_object_get(v, "outcome")), "deny") == 0)
                        first_deny = v;
        }
        assert_non_null(first_deny);
        assert_string_equal(
                json_string_value(json_object_get(first_deny, "remediation")),
                "remove 'net.latency' from policy.deny_faults, or drop net.latency from the drill");
        json_decref(d);
        built_done(&b);
        config_free(c);
}

/* ---- evidence: the damage history ---- */

static void sql(const char *path, const char *stmt) {
        sqlite3 *db = NULL;
        assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
        if (sqlite3_exec(db, stmt, NULL, NULL, NULL) != SQLITE_OK)
                fail_msg("%s: %s", stmt, sqlite3_errmsg(db));
        sqlite3_close(db);
}

static void add_lease(struct evidence *ev, const char *fault, const char *target, char id[LEASE_ID_MAX]) {
        char targets[64];
        struct mh_error e = { 0 };
        snprintf(targets, sizeof(targets), "[\"%s\"]", target);
        struct lease_new l = { .run_id = "r-dmg",
                               .fault_id = fault,
                               .owner_agent = "local",
                               .targets_json = targets,
                               .undo_json = "[{\"op\":\"x\"}]",
                               .verify_json = "[{\"probe\":\"y\"}]",
                               .ttl_seconds = 120 };
        if (lease_create(ev, &l, id, &e) < 0)
                fail_msg("lease_create: %s", e.msg);
}

/* "now - s seconds" as the evidence stamps it, for SQL. */
static void ago(int64_t now_ms, int64_t s, char *buf, size_t size) {
        time_t t = (time_t)(now_ms / 1000 - s);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(buf, size, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

static void test_evidence_damage(void **state) {
        char dir[] = "/tmp/mayhem-test-safety-XXXXXX", path[128], stmt[512], a[40], b[40];
        char l1[LEASE_ID_MAX], l2[LEASE_ID_MAX], l3[LEASE_ID_MAX], l4[LEASE_ID_MAX];
        struct evidence *ev = NULL;
        struct mh_error e = { 0 };
        struct evidence_damage *d = NULL;
        size_t n = 0;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t now = (int64_t)ts.tv_sec * 1000;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/mayhem.db", dir);
        assert_int_equal(evidence_open(path, &ev, &e), 0);
        struct evidence_run run = { .id = "r-dmg",
                                    .name = "dmg",
                                    .kind = "drill",
                                    .spec_json = "{}",
                                    .plan_json = "{}",
                                    .plan_fingerprint = "00",
                                    .engine = "docker" };
        assert_int_equal(evidence_run_begin(ev, &run, &e), 0);
        add_lease(ev, "container.pause", "web", l1); /* 60 s, weight 1 */
        add_lease(ev, "process.kill", "web", l2);    /* 10 s, weight 2.5 */
        add_lease(ev, "net.partition", "db", l3);    /* open since 20 s ago, weight 2 */
        add_lease(ev, "container.pause", "web", l4); /* two days ago: outside a one-day window */
        ago(now, 100, a, sizeof(a)), ago(now, 40, b, sizeof(b));
        snprintf(
                stmt, sizeof(stmt),
                "UPDATE fault_leases SET injected_at='%s', released_at='%s' WHERE id='%s'", a, b, l1);
        sql(path, stmt);
        ago(now, 30, a, sizeof(a)), ago(now, 20, b, sizeof(b));
        snprintf(
                stmt, sizeof(stmt),
                "UPDATE fault_leases SET injected_at='%s', released_at='%s' WHERE id='%s'", a, b, l2);
        sql(path, stmt);
        ago(now, 20, a, sizeof(a));
        snprintf(stmt, sizeof(stmt), "UPDATE fault_leases SET injected_at='%s' WHERE id='%s'", a, l3);
        sql(path, stmt);
        ago(now, 2 * 86400, a, sizeof(a)), ago(now, 2 * 86400 - 50, b, sizeof(b));
        snprintf(
                stmt, sizeof(stmt),
                "UPDATE fault_leases SET injected_at='%s', released_at='%s' WHERE id='%s'", a, b, l4);
        sql(path, stmt);

        assert_int_equal(evidence_damage(ev, 86400, now, &d, &n, &e), 0);
        assert_int_equal(n, 2);
        assert_string_equal(d[0].target, "db");
        assert_true(d[0].fault_s > 39.9 && d[0].fault_s < 40.1);
        assert_string_equal(d[1].target, "web");
        assert_true(d[1].fault_s > 84.9 && d[1].fault_s < 85.1); /* 60 + 10 x 2.5 */
        evidence_damage_free(d, n);
        assert_int_equal(evidence_damage(ev, 3 * 86400, now, &d, &n, &e), 0);
        assert_true(d[1].fault_s > 134.9 && d[1].fault_s < 135.1); /* + 50 */
        evidence_damage_free(d, n);
        evidence_close(ev);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                snprintf(stmt, sizeof(stmt), "%s%s", path, suffixes[i]);
                unlink(stmt);
        }
        rmdir(dir);
}

/* ---- the CLI under --dry-run, on a process of this test (no engine) ---- */

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* Sleeping, or still running into its sleep: neither stopped ('T'), a zombie nor gone. */
static bool alive_not_stopped(pid_t pid) {
        char st = proc_state_of(pid);
        return st == 'S' || st == 'R';
}

static void test_cli_dry_run_touches_nothing(void **state) {
        char dir[] = "/tmp/mayhem-test-safety-XXXXXX", drill[128], db[128], text[512];
        assert_non_null(mkdtemp(dir));
        snprintf(drill, sizeof(drill), "%s/drill.yaml", dir);
        snprintf(db, sizeof(db), "%s/mayhem.db", dir);
        pid_t sleeper = spawn_command(NULL, (const char *const[]){ "sleep", "60", NULL }),
              other = spawn_command(NULL, (const char *const[]){ "sleep", "60", NULL });
        assert_true(sleeper > 0 && other > 0);
        const char *const argv[] = { getenv("MAYHEM_BIN"), "--db", db, "--dry-run", "run", drill,
                                     "--execute",          NULL };

        snprintf(
                text, sizeof(text),
                HEAD "targets:\n  p: {runtime: process, process: {pid: %d}, faults: [{fault: proc.pause, "
                     "duration: 2s}]}\n"
                     "execution:\n  - sequential: [p]\n",
                (int)sleeper);
        write_text(drill, text);
        struct cmd_result r = run_command(NULL, argv);
        if (r.exit != 0 || !strstr(r.out, "dry-run policy.allow: allow proc.pause: admitted -> none\n") ||
            !strstr(r.out, "dry-run blast_radius.allow: allow step 1: services_pct=0.0 hosts=1 "
                           "concurrent_faults=1") ||
            !strstr(r.err, "nothing was touched"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_true(alive_not_stopped(sleeper));   /* never stopped */
        assert_int_not_equal(access(db, F_OK), 0); /* no evidence, so no run and no lease */

        /* Two lanes at once, past the drill's max_faults. */
        snprintf(
                text, sizeof(text),
                HEAD
                "config: {max_faults: 1}\ntargets:\n"
                "  p: {runtime: process, process: {pid: %d}, faults: [{fault: proc.pause, duration: 2s}]}\n"
                "  q: {runtime: process, process: {pid: %d}, faults: [{fault: process.kill, duration: "
                "2s}]}\n"
                "execution:\n  - parallel: [p, q]\n",
                (int)sleeper, (int)other);
        write_text(drill, text);
        r = run_command(NULL, argv);
        if (r.exit != 5 || !strstr(r.out, "dry-run config.max_faults: deny config.max_faults exceeded") ||
            !strstr(r.out, "dry-run policy.allow: allow process.kill: admitted") ||
            !strstr(r.err, "error: safety refused: config.max_faults exceeded") ||
            !strstr(r.err, "\n  remediation: raise config.max_faults"))
                fail_msg("exit %d\n%s%s", r.exit, r.out, r.err);
        cmd_result_done(&r);
        assert_true(alive_not_stopped(sleeper)); /* not stopped */
        assert_true(alive_not_stopped(other));   /* not killed */
        assert_int_not_equal(access(db, F_OK), 0);

        kill(sleeper, SIGKILL);
        kill(other, SIGKILL);
        waitpid(sleeper, NULL, 0);
        waitpid(other, NULL, 0);
        unlink(drill);
        rmdir(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_deny_faults),
                cmocka_unit_test(test_allow_faults),
                cmocka_unit_test(test_default_deny),
                cmocka_unit_test(test_risk_ceiling),
                cmocka_unit_test(test_critical_triple_optin),
                cmocka_unit_test(test_policy_profiles),
                cmocka_unit_test(test_max_services_pct),
                cmocka_unit_test(test_max_hosts),
                cmocka_unit_test(test_max_concurrent_faults),
                cmocka_unit_test(test_max_faults),
                cmocka_unit_test(test_max_duration_per_fault),
                cmocka_unit_test(test_forbidden_pairs),
                cmocka_unit_test(test_damage_per_fault_ceiling),
                cmocka_unit_test(test_damage_budget),
                cmocka_unit_test(test_damage_weights),
                cmocka_unit_test(test_dry_run_collects_everything),
                cmocka_unit_test(test_evidence_damage),
                cmocka_unit_test(test_cli_dry_run_touches_nothing),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
