#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence/evidence.h"
#include "plan/maniac.h"
#include "plan/plan.h"

static const char *const compose_yaml = "name: shop\n"
                                        "services:\n"
                                        "  api:\n"
                                        "    image: api\n"
                                        "    container_name: shop-api\n"
                                        "  db:\n"
                                        "    image: db\n"
                                        "    container_name: shop-db\n"
                                        "  cache:\n"
                                        "    image: cache\n"
                                        "    container_name: shop-cache\n";

/* Two containers with two faults each, one with one, all different. */
static const char *const drill_yaml = "kind: drill\n"
                                      "name: shop\n"
                                      "containers:\n"
                                      "  shop-api:\n"
                                      "    faults:\n"
                                      "      - {fault: container.pause, duration: 4s}\n"
                                      "      - {fault: cpu.throttle, duration: 6s, percent: 30}\n"
                                      "  db:\n" /* a service name: resolves to shop-db */
                                      "    faults:\n"
                                      "      - {fault: process.kill, duration: 2s}\n"
                                      "      - {fault: net.latency, duration: 500ms, delay_ms: 150}\n"
                                      "  shop-cache:\n"
                                      "    faults:\n"
                                      "      - {fault: container.restart, duration: 3s}\n"
                                      "execution:\n"
                                      "  - sequential: [shop-api, db, shop-cache]\n";

struct fixture {
        struct topology *topo;
        struct drill_spec *spec;
        struct maniac_pool *pool;
};

static int setup(void **state) {
        struct fixture *f = calloc(1, sizeof(*f));
        struct mh_error err = { 0 };
        assert_non_null(f);
        assert_int_equal(
                compose_parse("compose.yaml", compose_yaml, strlen(compose_yaml), &f->topo, &err), 0);
        assert_int_equal(drill_parse("drill.yaml", drill_yaml, strlen(drill_yaml), &f->spec, &err), 0);
        assert_int_equal(maniac_pool_from_spec(f->spec, f->topo, NULL, &f->pool, &err), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        struct fixture *f = *state;
        maniac_pool_free(f->pool);
        drill_spec_free(f->spec);
        topology_free(f->topo);
        free(f);
        return 0;
}

/* Values from an independent implementation of docs/maniac.md's algorithm
 * (splitmix64 -> xoshiro256**): the draws of a recorded seed must not
 * change between versions. */
static void test_rng_vectors(void **state) {
        (void)state;
        struct maniac_rng r;
        maniac_rng_seed(&r, 42);
        assert_true(maniac_rng_next(&r) == 0x15780b2e0c2ec716ull);
        assert_true(maniac_rng_next(&r) == 0x6104d9866d113a7eull);
        assert_true(maniac_rng_next(&r) == 0xae17533239e499a1ull);
        maniac_rng_seed(&r, 0);
        assert_true(maniac_rng_next(&r) == 0x99ec5f36cb75f2b4ull);
        maniac_rng_seed(&r, -1);
        assert_true(maniac_rng_next(&r) == 0x8f5520d52a7ead08ull);
        for (int i = 0; i < 1000; i++)
                assert_true(maniac_rng_below(&r, 3) < 3);
}

static bool same_draws(const struct maniac_draw *a, const struct maniac_draw *b, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (a[i].seq != b[i].seq || a[i].def != b[i].def || strcmp(a[i].container, b[i].container) ||
                    strcmp(a[i].params_json, b[i].params_json) || a[i].duration_ms != b[i].duration_ms ||
                    a[i].at_ms != b[i].at_ms || a[i].seed != b[i].seed || a[i].level != b[i].level)
                        return false;
        return true;
}

/* The check: --seed 42 --steps 20 twice gives the same draws, at every level. */
static void test_seed_repeats(void **state) {
        struct fixture *f = *state;
        struct maniac_draw a[20], b[20], c[20];
        struct mh_error err = { 0 };
        for (unsigned level = 1; level <= MANIAC_LEVEL_MAX; level++) {
                assert_int_equal(maniac_draw(f->pool, 42, level, 20, a, &err), 0);
                assert_int_equal(maniac_draw(f->pool, 42, level, 20, b, &err), 0);
                assert_true(same_draws(a, b, 20));
                assert_int_equal(maniac_draw(f->pool, 43, level, 20, c, &err), 0);
                assert_false(same_draws(a, c, 20)); /* another seed, another sequence */
                int64_t at = 0;
                for (size_t i = 0; i < 20; i++) {
                        assert_int_equal(a[i].seq, i + 1);
                        assert_int_equal(a[i].at_ms, at);
                        at += a[i].duration_ms;
                }
        }
}

static const struct maniac_locus *locus_of(const struct maniac_pool *p, const char *container) {
        for (size_t i = 0; i < p->n_loci; i++)
                if (strcmp(p->loci[i].container, container) == 0)
                        return &p->loci[i];
        return NULL;
}

static bool authored_on(const struct maniac_locus *l, const struct fault_def *def) {
        for (size_t i = 0; i < l->n_faults; i++)
                if (l->faults[i].def == def)
                        return true;
        return false;
}

static void test_pool_from_spec(void **state) {
        struct fixture *f = *state;
        assert_int_equal(f->pool->n_loci, 3);
        const struct maniac_locus *db = locus_of(f->pool, "shop-db");
        assert_non_null(db);
        assert_int_equal(db->n_faults, 2);
        assert_string_equal(db->faults[0].def->id, "process.kill");
        assert_string_equal(db->faults[1].params_json, "{\"delay_ms\":\"150\"}");
        assert_int_equal(db->faults[1].duration_ms, 500);
        struct maniac_pool *only = NULL;
        struct mh_error err = { 0 };
        assert_int_equal(maniac_pool_from_spec(f->spec, f->topo, "shop-cache", &only, &err), 0);
        assert_int_equal(only->n_loci, 1);
        maniac_pool_free(only);
        assert_int_equal(maniac_pool_from_spec(f->spec, f->topo, "nope", &only, &err), -ENOENT);
        assert_int_equal(err.exit, MH_EXIT_VALIDATION_ERROR);
}

/* Level 1: the locus's first fault, its authored duration, and every locus comes up. */
static void test_level1_first_fault(void **state) {
        struct fixture *f = *state;
        struct maniac_draw d[60];
        struct mh_error err = { 0 };
        bool seen[3] = { 0 };
        assert_int_equal(maniac_draw(f->pool, 7, 1, 60, d, &err), 0);
        for (size_t i = 0; i < 60; i++) {
                const struct maniac_locus *l = locus_of(f->pool, d[i].container);
                assert_non_null(l);
                assert_ptr_equal(d[i].def, l->faults[0].def);
                assert_int_equal(d[i].duration_ms, l->faults[0].duration_ms);
                seen[l - f->pool->loci] = true;
        }
        assert_true(seen[0] && seen[1] && seen[2]);
}

/* Level 2: one of the locus's own faults, and not always the first. */
static void test_level2_own_faults(void **state) {
        struct fixture *f = *state;
        struct maniac_draw d[60];
        struct mh_error err = { 0 };
        bool second = false;
        assert_int_equal(maniac_draw(f->pool, 7, 2, 60, d, &err), 0);
        for (size_t i = 0; i < 60; i++) {
                const struct maniac_locus *l = locus_of(f->pool, d[i].container);
                assert_true(authored_on(l, d[i].def));
                second = second || d[i].def != l->faults[0].def;
        }
        assert_true(second);
}

/* Level 3: any fault of the drill, so some land on a container they were not written for. */
static void test_level3_cross_pool(void **state) {
        struct fixture *f = *state;
        struct maniac_draw d[60];
        struct mh_error err = { 0 };
        size_t crossed = 0;
        assert_int_equal(maniac_draw(f->pool, 7, 3, 60, d, &err), 0);
        for (size_t i = 0; i < 60; i++) {
                const struct maniac_locus *l = locus_of(f->pool, d[i].container);
                crossed += !authored_on(l, d[i].def);
                assert_true(d[i].def->node_kinds & l->node_kinds);
        }
        assert_true(crossed > 10);
}

static int64_t authored_ms(const struct maniac_pool *p, const struct maniac_draw *d) {
        for (size_t i = 0; i < p->n_loci; i++)
                for (size_t j = 0; j < p->loci[i].n_faults; j++)
                        if (p->loci[i].faults[j].params_json == d->params_json)
                                return p->loci[i].faults[j].duration_ms;
        fail();
        return 0;
}

/* Level 4 and 5: ±10 % and ±20 % of the authored duration, never below 1 s;
 * both ends of the band are reached over enough draws. */
static void test_jitter_bands(void **state) {
        struct fixture *f = *state;
        struct maniac_draw d[500];
        struct mh_error err = { 0 };
        for (unsigned level = 4; level <= 5; level++) {
                double band = level == 4 ? 0.10 : 0.20, lo = 1, hi = 0;
                bool moved = false;
                assert_int_equal(maniac_draw(f->pool, 99, level, 500, d, &err), 0);
                for (size_t i = 0; i < 500; i++) {
                        int64_t base = authored_ms(f->pool, &d[i]);
                        assert_true(d[i].duration_ms >= MANIAC_JITTER_MIN_MS);
                        if (base < MANIAC_JITTER_MIN_MS) { /* 500 ms: clamped up to 1 s */
                                assert_int_equal(d[i].duration_ms, MANIAC_JITTER_MIN_MS);
                                continue;
                        }
                        double ratio = (double)d[i].duration_ms / (double)base;
                        assert_true(ratio >= 1 - band - 1e-9 && ratio <= 1 + band + 1e-9);
                        lo = ratio < lo ? ratio : lo;
                        hi = ratio > hi ? ratio : hi;
                        moved = moved || d[i].duration_ms != base;
                }
                assert_true(moved);
                assert_true(lo < 1 - band * 0.8 && hi > 1 + band * 0.8);
        }
}

/* A fault authored at its catalog maximum is never jittered past it. */
static void test_jitter_clamped_to_max(void **state) {
        (void)state;
        const struct fault_def *def = catalog_find("container.pause");
        assert_non_null(def);
        struct maniac_fault fault = { .def = def,
                                      .params_json = "{}",
                                      .duration_ms = def->max_duration_s * 1000 };
        struct maniac_locus locus = {
                .container = "c", .node_kinds = NK_CTR | NK_SVC, .faults = &fault, .n_faults = 1
        };
        struct maniac_pool pool = { .loci = &locus, .n_loci = 1 };
        struct maniac_draw d[100];
        struct mh_error err = { 0 };
        bool below = false;
        assert_int_equal(maniac_draw(&pool, 5, 5, 100, d, &err), 0);
        for (size_t i = 0; i < 100; i++) {
                assert_true(d[i].duration_ms <= (int64_t)def->max_duration_s * 1000);
                below = below || d[i].duration_ms < (int64_t)def->max_duration_s * 1000;
        }
        assert_true(below);
}

static void test_bounds(void **state) {
        struct fixture *f = *state;
        struct maniac_draw d[1];
        struct mh_error err = { 0 };
        assert_int_equal(maniac_draw(f->pool, 1, 0, 1, d, &err), -EINVAL);
        assert_int_equal(maniac_draw(f->pool, 1, 6, 1, d, &err), -EINVAL);
        assert_int_equal(maniac_draw(f->pool, 1, 2, 0, d, &err), -EINVAL);
        assert_int_equal(maniac_draw(f->pool, 1, 2, 501, d, &err), -EINVAL);
        assert_int_equal(err.exit, MH_EXIT_USAGE_ERROR);
}

/* The draws as a drill parse, validate and plan: one fault per draw, in draw
 * order, on the drawn container, with the drawn duration and parameters. */
static void check_plans(const struct topology *topo, const struct maniac_draw *d, size_t n) {
        _cleanup_free_ char *text = NULL;
        struct drill_spec *spec = NULL;
        struct plan *plan = NULL;
        struct mh_error err = { 0 };
        assert_int_equal(maniac_drill_text("shop", NULL, d, n, &text, &err), 0);
        int r = drill_parse("maniac", text, strlen(text), &spec, &err);
        if (r >= 0)
                r = plan_build(spec, topo, &plan, &err);
        if (r < 0)
                fail_msg("%s\n%s", err.msg, text);
        assert_int_equal(plan->n_faults, n);
        for (size_t i = 0; i < n; i++) {
                assert_string_equal(plan->faults[i].target->container->name, d[i].container);
                assert_ptr_equal(plan->faults[i].src->def, d[i].def);
                assert_int_equal(plan->faults[i].src->duration_ms, d[i].duration_ms);
        }
        assert_true(spec->config.has_maniac && spec->config.has_maniac_seed);
        assert_int_equal(spec->config.maniac_seed, d[0].seed);
        plan_free(plan);
        drill_spec_free(spec);
}

static void test_drill_text_plans(void **state) {
        struct fixture *f = *state;
        struct maniac_draw d[20];
        struct mh_error err = { 0 };
        assert_int_equal(maniac_draw(f->pool, 42, 5, 20, d, &err), 0);
        check_plans(f->topo, d, 20);
}

/* A gap between draws (a replay of recorded offsets) becomes a wait. */
static void test_drill_text_waits(void **state) {
        struct fixture *f = *state;
        struct maniac_draw d[2];
        struct mh_error err = { 0 };
        _cleanup_free_ char *text = NULL;
        assert_int_equal(maniac_draw(f->pool, 42, 1, 2, d, &err), 0);
        d[1].at_ms = d[0].duration_ms + 1500;
        assert_int_equal(maniac_drill_text("shop", NULL, d, 2, &text, &err), 0);
        assert_non_null(strstr(text, "\"wait\": \"1500ms\""));
        check_plans(f->topo, d, 2);
}

/* No drill: every container x the runnable, container-addressable catalog. */
static void test_pool_from_catalog(void **state) {
        struct fixture *f = *state;
        struct maniac_pool *p = NULL;
        struct mh_error err = { 0 };
        assert_int_equal(maniac_pool_from_catalog(f->topo, NULL, &p, &err), 0);
        assert_int_equal(p->n_loci, 3);
        const struct maniac_locus *l = &p->loci[0];
        bool pause = false;
        for (size_t i = 0; i < l->n_faults; i++) {
                const struct fault_def *def = l->faults[i].def;
                assert_int_equal(fault_status_of(def), FAULT_STATUS_RUNNABLE);
                assert_true(def->node_kinds & NK_CTR);
                for (size_t j = 0; j < def->n_params; j++)
                        assert_false(def->params[j].required && !def->params[j].has_default);
                pause = pause || strcmp(def->id, "container.pause") == 0;
                assert_true(strcmp(def->id, "load.spike") != 0); /* planned-only */
        }
        assert_true(pause);
        assert_int_equal(p->loci[2].n_faults, l->n_faults);

        struct maniac_draw d[40];
        assert_int_equal(maniac_draw(p, 42, 5, 40, d, &err), 0);
        check_plans(f->topo, d, 40);
        maniac_pool_free(p);
}

/* Parameters keep their exact value through the drill spelling. */
static void test_params_round_trip(void **state) {
        (void)state;
        static const char yaml[] =
                "kind: drill\nname: p\ncontainers:\n  c:\n    faults:\n"
                "      - {fault: net.packet_loss, percent: 12.345678901%, direction: both}\n"
                "      - {fault: net.partition, targets: [d]}\n"
                "execution:\n  - sequential: [c]\n";
        struct drill_spec *spec = NULL;
        struct mh_error err = { 0 };
        assert_int_equal(drill_parse("p.yaml", yaml, strlen(yaml), &spec, &err), 0);
        _cleanup_free_ char *a = maniac_fault_params_json(&spec->targets[0].faults[0]);
        _cleanup_free_ char *b = maniac_fault_params_json(&spec->targets[0].faults[1]);
        assert_string_equal(a, "{\"direction\":\"both\",\"percent\":\"12.345678901%\"}");
        assert_string_equal(b, "{\"targets\":[\"d\"]}");
        drill_spec_free(spec);
}

/* The draws go to maniac_draws and come back in seq order, with the seed on the run row. */
static void test_evidence_draws(void **state) {
        (void)state;
        char path[] = "/tmp/mayhem-test-maniac-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        unlink(path);
        struct evidence *ev = NULL;
        struct mh_error err = { 0 };
        assert_int_equal(evidence_open(path, &ev, &err), 0);
        struct evidence_run run = {
                .id = "r-m-000001", .name = "m", .kind = "random", .has_seed = true, .seed = -42
        };
        assert_int_equal(evidence_run_begin(ev, &run, &err), 0);
        const struct evidence_maniac_draw d[2] = {
                { .seq = 1,
                  .seed = -42,
                  .level = 3,
                  .container = "a",
                  .fault_id = "container.pause",
                  .params_json = "{}",
                  .duration_ms = 1000,
                  .at_ms = 0 },
                { .seq = 2,
                  .seed = -42,
                  .level = 3,
                  .container = "b",
                  .fault_id = "net.latency",
                  .params_json = "{\"delay_ms\":\"150\"}",
                  .duration_ms = 2500,
                  .at_ms = 1000 },
        };
        assert_int_equal(evidence_maniac_draws_record(ev, "r-m-000001", d, 2, &err), 0);
        assert_int_equal(evidence_maniac_draws_record(ev, "r-none", d, 2, &err), -ENOENT);
        json_t *j = NULL;
        assert_int_equal(evidence_maniac_draws_json(ev, "r-m-000001", &j, &err), 0);
        char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(
                text,
                "[{\"at_ms\":0,\"container\":\"a\",\"duration_ms\":1000,\"fault_id\":\"container.pause\","
                "\"level\":3,\"params\":{},\"seed\":-42,\"seq\":1},{\"at_ms\":1000,\"container\":\"b\","
                "\"duration_ms\":2500,\"fault_id\":\"net.latency\",\"level\":3,\"params\":{\"delay_ms\":"
                "\"150\"},\"seed\":-42,\"seq\":2}]");
        free(text);
        json_decref(j);
        struct evidence_run plain = { .id = "r-d-000001", .name = "d", .kind = "drill" };
        assert_int_equal(evidence_run_begin(ev, &plain, &err), 0);
        assert_int_equal(evidence_maniac_draws_json(ev, "r-d-000001", &j, &err), 0);
        assert_int_equal(json_array_size(j), 0);
        json_decref(j);
        assert_int_equal(evidence_maniac_draws_json(ev, "r-none", &j, &err), -ENOENT);
        evidence_close(ev);
        static const char *const suffixes[] = { "", "-wal", "-shm" };
        for (size_t i = 0; i < 3; i++) {
                char p[64];
                snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
                unlink(p);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rng_vectors),
                cmocka_unit_test_setup_teardown(test_seed_repeats, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pool_from_spec, setup, teardown),
                cmocka_unit_test_setup_teardown(test_level1_first_fault, setup, teardown),
                cmocka_unit_test_setup_teardown(test_level2_own_faults, setup, teardown),
                cmocka_unit_test_setup_teardown(test_level3_cross_pool, setup, teardown),
                cmocka_unit_test_setup_teardown(test_jitter_bands, setup, teardown),
                cmocka_unit_test(test_jitter_clamped_to_max),
                cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
                cmocka_unit_test_setup_teardown(test_drill_text_plans, setup, teardown),
                cmocka_unit_test_setup_teardown(test_drill_text_waits, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pool_from_catalog, setup, teardown),
                cmocka_unit_test(test_params_round_trip),
                cmocka_unit_test(test_evidence_draws),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
