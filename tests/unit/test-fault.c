/* The fault layer against the catalog: registry x catalog x compensation.
 * Every fault whose catalog entry names a mechanism of this version has one
 * in the registry, and that mechanism implements every undo op, verify
 * probe and effect check the fault's compensation names (on a container
 * and on a host process); no mechanism implements an op no fault uses, or
 * sits in the registry unused. Then every apply and every undo runs once on
 * a target with nothing to act on (no engine, no process): each fails or
 * succeeds with a reason, touches nothing, and never crashes (ASan watches). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/fault-params.h"
#include "fault/fault.h"
#include "fault/live.h"

/* The faults this version applies: the network family and the process,
 * container and CPU faults (README, "What works today"). */
#define FAULTS_THAT_RUN 38

static const struct fault_comp *comps_of(const struct fault_def *f, size_t i) {
        return i == 0 ? &f->comp : f->host_comp;
}

static void check_implements(
        const struct fault_def *f, const struct fault_mechanism *m, const struct fault_comp *c) {
        for (size_t k = 0; k < fault_comp_n_undo(c); k++)
                if (!fault_mechanism_has_undo(m, c->undo[k]))
                        fail_msg("%s: mechanism %s has no undo op %s", f->id, m->name, c->undo[k]);
        for (size_t k = 0; k < fault_comp_n_verify(c); k++)
                if (!fault_mechanism_has_verify(m, c->verify[k]))
                        fail_msg("%s: mechanism %s has no verify probe %s", f->id, m->name, c->verify[k]);
        if (!fault_mechanism_has_effect(m, c->effect))
                fail_msg("%s: mechanism %s has no effect check %s", f->id, m->name, c->effect);
}

static void test_every_op_is_implemented(void **state) {
        size_t running = 0;
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                const struct fault_mechanism *m = fault_mechanism_of(f);
                if (!m)
                        continue;
                running++;
                assert_non_null(m->apply);
                for (size_t c = 0; c < 2; c++)
                        if (comps_of(f, c))
                                check_implements(f, m, comps_of(f, c));
        }
        assert_int_equal(running, FAULTS_THAT_RUN);
}

static bool named(const char *const *names, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(names[i], name) == 0)
                        return true;
        return false;
}

/* Whether a fault of m's names op among its undo ops (kind 0), verify
 * probes (1) or effect (2). */
static bool used(const struct fault_mechanism *m, int kind, const char *op) {
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                for (size_t c = 0; c < 2 && fault_mechanism_of(f) == m; c++) {
                        const struct fault_comp *fc = comps_of(f, c);
                        if (fc && ((kind == 0 && named(fc->undo, fault_comp_n_undo(fc), op)) ||
                                   (kind == 1 && named(fc->verify, fault_comp_n_verify(fc), op)) ||
                                   (kind == 2 && fc->effect && strcmp(fc->effect, op) == 0)))
                                return true;
                }
        }
        return false;
}

static void test_no_mechanism_or_op_unused(void **state) {
        for (size_t i = 0; i < fault_mechanism_count(); i++) {
                const struct fault_mechanism *m = fault_mechanism_at(i);
                bool serves = false;
                for (size_t k = 0; k < catalog_size() && !serves; k++)
                        serves = fault_mechanism_of(catalog_at(k)) == m;
                if (!serves)
                        fail_msg("mechanism %s serves no catalog fault", m->name);
                assert_ptr_equal(fault_mechanism_find(m->name), m);
                for (size_t k = 0; k < FAULT_STEPS_MAX; k++) {
                        if (m->undo[k].name && !used(m, 0, m->undo[k].name))
                                fail_msg(
                                        "%s: undo op %s is named by none of its faults", m->name,
                                        m->undo[k].name);
                        if (m->verify[k].name && !used(m, 1, m->verify[k].name))
                                fail_msg(
                                        "%s: verify probe %s is named by none of its faults", m->name,
                                        m->verify[k].name);
                        if (m->effect[k].name && !used(m, 2, m->effect[k].name))
                                fail_msg(
                                        "%s: effect check %s is named by none of its faults", m->name,
                                        m->effect[k].name);
                }
        }
        assert_null(fault_mechanism_find("no-such-mechanism"));
        assert_null(fault_mechanism_find(NULL));
}

/* The catalog's defaults, and the smallest valid value of each required param. */
static json_t *params_for(const struct fault_def *f) {
        json_t *p = fault_params_defaults(f, NULL);
        for (size_t i = 0; p && i < f->n_params; i++) {
                const struct param_spec *s = &f->params[i];
                if (!s->required)
                        continue;
                json_object_set_new(
                        p, s->name,
                        s->type == PARAM_STRING ? json_string("x")
                        : s->type == PARAM_FLOAT || s->type == PARAM_PERCENT
                                ? json_real(s->min)
                                : json_integer((json_int_t)s->min));
        }
        return p;
}

static void walk(const struct fault_def *f, struct fault_lives *lives) {
        json_t *params = params_for(f), *restore = json_object(),
               *net = json_pack("{s:s}", "delivery", "nft");
        struct fault_exec fx = { .lives = lives, .lease_id = "l-00000000000000f0", .restore = restore };
        struct mh_error e = { 0 };
        const struct fault_comp *c = fault_comp_for(f, true);
        char detail[FAULT_DETAIL_MAX];
        bool yes;
        if (fault_exec_bind(&fx, f, params, net, &e) < 0)
                fail_msg("%s: %s", f->id, e.msg);
        snprintf(fx.target.engine, sizeof(fx.target.engine), "host");
        snprintf(fx.target.container_name, sizeof(fx.target.container_name), "nothing-here");
        /* No process, no engine: apply refuses, with a reason. */
        if (fx.mech->apply(&fx, &e) >= 0)
                fail_msg("%s: applied to a target that does not exist", f->id);
        if (!e.msg[0])
                fail_msg("%s: apply failed without a reason", f->id);
        /* Undo of a fault never applied: done, or refused with a reason. */
        memset(&e, 0, sizeof(e));
        if (fault_undo_run(&fx, c->undo, fault_comp_n_undo(c), &e) < 0 && !e.msg[0])
                fail_msg("%s: undo failed without a reason", f->id);
        for (size_t k = 0; k < fault_comp_n_verify(c); k++)
                fault_verify_run(&fx, c->verify[k], &yes, detail, sizeof(detail));
        /* In force only where "gone" is the fault (process.kill, process.stop). */
        if (fault_effect_run(&fx, c->effect, &yes, detail, sizeof(detail)) >= 0 && yes &&
            strcmp(c->effect, "process.gone") != 0)
                fail_msg("%s: in force on a target that does not exist: %s", f->id, detail);
        assert_int_equal(fault_lives_count(lives), 0);
        json_decref(params);
        json_decref(restore);
        json_decref(net);
}

/* The catalog's "runnable" (what the controller, which links no src/fault/,
 * validates against) is exactly what this registry injects: a fault is
 * runnable if and only if a mechanism here applies it, and every mechanism
 * here is one the catalog calls runnable. */
static void test_runnable_is_the_registry(void **state) {
        size_t runnable = 0;
        for (size_t i = 0; i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                bool in_registry = fault_mechanism_of(f) != NULL,
                     says_runnable = fault_status_of(f) == FAULT_STATUS_RUNNABLE;
                if (in_registry != says_runnable)
                        fail_msg(
                                "%s: the catalog says %s, the registry %s its mechanism %s", f->id,
                                fault_status_to_string(fault_status_of(f)), in_registry ? "has" : "lacks",
                                f->mechanism ? f->mechanism : "(none)");
                runnable += says_runnable;
        }
        for (size_t i = 0; i < fault_mechanism_count(); i++)
                if (!catalog_mechanism_runnable(fault_mechanism_at(i)->name))
                        fail_msg(
                                "mechanism %s is in the registry, not in the catalog's runnable list",
                                fault_mechanism_at(i)->name);
        assert_int_equal(runnable, catalog_count_status(FAULT_STATUS_RUNNABLE));
}

static void test_every_apply_and_undo_walks(void **state) {
        struct fault_lives *lives = fault_lives_new();
        assert_non_null(lives);
        for (size_t i = 0; i < catalog_size(); i++)
                if (fault_mechanism_of(catalog_at(i)))
                        walk(catalog_at(i), lives);
        assert_null(fault_lives_free(lives));
}

static void test_unknown_ops_refused(void **state) {
        const struct fault_def *f = catalog_find("proc.pause");
        struct fault_exec fx = { 0 };
        struct mh_error e = { 0 };
        char detail[128];
        bool yes = true;
        const char *const ops[] = { "signal.cont", "rm.rf" };
        json_t *none = json_object();
        assert_int_equal(fault_exec_bind(&fx, f, none, NULL, &e), 0);
        json_decref(none);
        assert_int_equal(fault_undo_run(&fx, ops, 2, &e), -EOPNOTSUPP);
        assert_non_null(strstr(e.msg, "rm.rf: proc.pause: no undo op rm.rf"));
        assert_int_equal(
                fault_verify_run(&fx, "container.running", &yes, detail, sizeof(detail)), -EOPNOTSUPP);
        assert_false(yes);
        assert_int_equal(fault_effect_run(&fx, "net.shaped", &yes, detail, sizeof(detail)), -EOPNOTSUPP);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_op_is_implemented),
                cmocka_unit_test(test_no_mechanism_or_op_unused),
                cmocka_unit_test(test_runnable_is_the_registry),
                cmocka_unit_test(test_every_apply_and_undo_walks),
                cmocka_unit_test(test_unknown_ops_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
