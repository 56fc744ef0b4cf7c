#include "plan-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The blast-radius budgets of one fault step, in the reference's order
 * (§5.3): services, hosts, concurrent faults (and the drill's own
 * config.max_faults), duration per fault, forbidden pairs, then the damage
 * quota (plan-damage.c). Each is counted for what runs: a parallel step's
 * lanes at once, a lane's faults one after another. */

static const struct plan_fault *lane_fault(const struct plan *pl, const struct plan_lane *l, size_t k) {
        return &pl->faults[l->first_fault + k];
}

static const struct plan_fault *step_first_fault(const struct plan *pl, const struct plan_step *ps) {
        for (size_t i = 0; i < ps->n_lanes; i++)
                if (ps->lanes[i].n_faults)
                        return lane_fault(pl, &ps->lanes[i], 0);
        return NULL;
}

size_t plan_step_concurrency(const struct plan *pl, const struct plan_step *ps) {
        size_t n = 0;
        (void)pl;
        for (size_t i = 0; i < ps->n_lanes; i++)
                n += ps->lanes[i].n_faults > 0;
        return ps->src->kind == STEP_PARALLEL ? n : MIN(n, (size_t)1);
}

/* Targets' services and every service that depends on them, over all
 * services of the compose file. A step on host processes only hits none. */
static int services_hit(const struct plan_builder *b, const struct plan_step *ps, size_t *ret_hit) {
        const struct topology *t = b->topo;
        size_t n = t ? t->n_services : 0, hit = 0;
        if (!n) {
                *ret_hit = 0;
                return 0;
        }
        _cleanup_free_ bool *mark = calloc(n, sizeof(*mark));
        _cleanup_free_ size_t *deps = calloc(n, sizeof(*deps));
        if (!mark || !deps)
                return -ENOMEM;
        for (size_t i = 0; i < ps->n_lanes; i++) {
                const struct plan_target *pt = ps->lanes[i].target;
                if (!ps->lanes[i].n_faults || !pt->container)
                        continue;
                mark[pt->container->service] = true;
                size_t nd = topology_dependents(t, pt->container->service, deps, n);
                for (size_t j = 0; j < nd && j < n; j++)
                        mark[deps[j]] = true;
        }
        for (size_t i = 0; i < n; i++)
                hit += mark[i];
        *ret_hit = hit;
        return 0;
}

static size_t step_index(const struct plan *pl, const struct plan_step *ps) {
        return (size_t)(ps - pl->steps) + 1;
}

static int gate_services(
        struct plan_builder *b, const struct plan_step *ps, const struct plan_fault *f,
        struct plan_blast_stats *st) {
        const struct config_blast_radius *br = &b->config->blast_radius;
        size_t hit = 0, total = b->topo ? b->topo->n_services : 0;
        struct pb_verdict v = { .rule = "blast_radius.max_services_pct" };
        if (services_hit(b, ps, &hit) < 0)
                return pb_oom(b);
        st->services_pct = total ? 100.0 * (double)hit / (double)total : 0;
        /* One service is the least a fault hits: a stack of one service is not over budget. */
        v.allow = st->services_pct <= br->max_services_pct || hit <= 1;
        snprintf(
                v.reason, sizeof(v.reason),
                "blast radius: step %zu hits %zu of %zu service(s) with their dependents (%.1f%%), %s "
                "max_services_pct %g%s",
                step_index(b->plan, ps), hit, total, st->services_pct,
                st->services_pct <= br->max_services_pct ? "within" : "above", br->max_services_pct,
                v.allow && st->services_pct > br->max_services_pct ? " (one service is always allowed)"
                                                                   : "");
        snprintf(
                v.remedy, sizeof(v.remedy),
                "split the step so fewer services are hit at once, or raise blast_radius.max_services_pct");
        return pb_gate(b, f, ps->src->pos, &v);
}

/* Every target runs behind the one agent of the run (local, or --agent). */
static int gate_hosts(
        struct plan_builder *b, const struct plan_step *ps, const struct plan_fault *f,
        struct plan_blast_stats *st) {
        int64_t max = b->config->blast_radius.max_hosts;
        struct pb_verdict v = { .rule = "blast_radius.max_hosts" };
        st->hosts = 1;
        v.allow = (int64_t)st->hosts <= max;
        snprintf(
                v.reason, sizeof(v.reason), "blast radius: step %zu hits %zu host(s), %s max_hosts %lld",
                step_index(b->plan, ps), st->hosts, v.allow ? "within" : "above", (long long)max);
        snprintf(v.remedy, sizeof(v.remedy), "raise blast_radius.max_hosts");
        return pb_gate(b, f, ps->src->pos, &v);
}

static int gate_concurrent(
        struct plan_builder *b, const struct plan_step *ps, const struct plan_fault *f,
        struct plan_blast_stats *st) {
        int64_t max = b->config->blast_radius.max_concurrent_faults;
        struct pb_verdict v = { .rule = "blast_radius.max_concurrent_faults" };
        st->concurrent = plan_step_concurrency(b->plan, ps);
        v.allow = (int64_t)st->concurrent <= max;
        snprintf(
                v.reason, sizeof(v.reason),
                v.allow ? "blast radius: step %zu holds %zu fault(s) in force at once, within "
                          "max_concurrent_faults %lld"
                        : "blast radius: max_concurrent_faults exceeded: step %zu holds %zu faults in force "
                          "at once, the limit is %lld",
                step_index(b->plan, ps), st->concurrent, (long long)max);
        snprintf(
                v.remedy, sizeof(v.remedy),
                "split the parallel step, or raise blast_radius.max_concurrent_faults");
        return pb_gate(b, f, ps->src->pos, &v);
}

/* The drill's own bound, enforced when written (0: unbounded). */
static int gate_max_faults(
        struct plan_builder *b, const struct plan_step *ps, const struct plan_fault *f,
        const struct plan_blast_stats *st) {
        const struct drill_config *c = &b->spec->config;
        struct pb_verdict v = { .rule = "config.max_faults" };
        if (!c->max_faults_pos.line)
                return 0;
        v.allow = c->max_faults == 0 || (int64_t)st->concurrent <= c->max_faults;
        snprintf(
                v.reason, sizeof(v.reason),
                "config.max_faults %s: step %zu holds %zu fault(s) in force at once, the drill allows "
                "%lld%s",
                v.allow ? "kept" : "exceeded", step_index(b->plan, ps), st->concurrent,
                (long long)c->max_faults, c->max_faults ? "" : " (0: unbounded)");
        snprintf(
                v.remedy, sizeof(v.remedy),
                "raise config.max_faults in the drill (0: unbounded), or split the step");
        return pb_gate(b, f, v.allow ? ps->src->pos : c->max_faults_pos, &v);
}

static int gate_durations(struct plan_builder *b, const struct plan_step *ps, struct plan_blast_stats *st) {
        double max = b->config->blast_radius.max_duration_per_fault_s;
        int denied = 0;
        for (size_t i = 0; i < ps->n_lanes; i++)
                for (size_t k = 0; k < ps->lanes[i].n_faults; k++) {
                        const struct plan_fault *f = lane_fault(b->plan, &ps->lanes[i], k);
                        double d = (double)f->src->duration_ms / 1000.0;
                        struct pb_verdict v = { .rule = "blast_radius.max_duration_per_fault_s" };
                        st->duration_s = MAX(st->duration_s, d);
                        v.allow = d <= max;
                        if (v.allow && !b->opt->dry_run)
                                continue;
                        snprintf(
                                v.reason, sizeof(v.reason),
                                "blast radius: %s on '%s' lasts %gs, %s max_duration_per_fault_s %g",
                                f->src->def->id, f->target->label, d, v.allow ? "within" : "above", max);
                        snprintf(
                                v.remedy, sizeof(v.remedy),
                                "shorten the fault's duration to %gs or less, or raise "
                                "blast_radius.max_duration_per_fault_s",
                                max);
                        int r = pb_gate(
                                b, f, f->src->duration_pos.line ? f->src->duration_pos : f->src->pos, &v);
                        if (r < 0)
                                return r;
                        denied |= r;
                }
        return denied;
}

/* f and g make a forbidden pair, either way round. */
static const struct config_fault_pair *forbidden(
        const struct config_blast_radius *br, const struct plan_fault *f, const struct plan_fault *g) {
        const char *x = f->src->def->id, *y = g->src->def->id;
        for (size_t i = 0; i < br->n_forbidden_fault_pairs; i++) {
                const struct config_fault_pair *p = &br->forbidden_fault_pairs[i];
                if ((plan_fault_pattern_matches(p->a, x) && plan_fault_pattern_matches(p->b, y)) ||
                    (plan_fault_pattern_matches(p->a, y) && plan_fault_pattern_matches(p->b, x)))
                        return p;
        }
        return NULL;
}

/* g against every fault that runs before it in the plan: every pair of the
 * plan is checked once, however many faults there are (docs/safety.md). */
static int gate_pairs_of(
        struct plan_builder *b, const struct plan_step *upto, size_t upto_lane, size_t upto_k,
        const struct plan_fault *g) {
        const struct plan *pl = b->plan;
        for (const struct plan_step *ps = pl->steps; ps <= upto; ps++)
                for (size_t i = 0; i < ps->n_lanes; i++)
                        for (size_t k = 0; k < ps->lanes[i].n_faults; k++) {
                                if (ps == upto && (i > upto_lane || (i == upto_lane && k >= upto_k)))
                                        return 0;
                                const struct plan_fault *f = lane_fault(pl, &ps->lanes[i], k);
                                const struct config_fault_pair *p =
                                        forbidden(&b->config->blast_radius, f, g);
                                if (!p)
                                        continue;
                                struct pb_verdict v = { .rule = "blast_radius.forbidden_fault_pairs" };
                                snprintf(
                                        v.reason, sizeof(v.reason),
                                        "blast radius: %s on '%s' and %s on '%s' are a forbidden pair (%s, "
                                        "%s)",
                                        f->src->def->id, f->target->label, g->src->def->id, g->target->label,
                                        p->a, p->b);
                                snprintf(
                                        v.remedy, sizeof(v.remedy),
                                        "drop one of the two from the drill, or remove the pair from "
                                        "blast_radius.forbidden_fault_pairs");
                                return pb_gate(b, g, g->src->pos, &v);
                        }
        return 0;
}

static int gate_pairs(struct plan_builder *b, const struct plan_step *ps) {
        int denied = 0;
        for (size_t i = 0; i < ps->n_lanes; i++)
                for (size_t k = 0; k < ps->lanes[i].n_faults; k++) {
                        int r = gate_pairs_of(b, ps, i, k, lane_fault(b->plan, &ps->lanes[i], k));
                        if (r < 0)
                                return r;
                        denied |= r;
                }
        return denied;
}

static int record_allow(
        struct plan_builder *b, const struct plan_step *ps, const struct plan_fault *f,
        const struct plan_blast_stats *st) {
        return pb_decide(
                b, "blast_radius.allow", f, true, "",
                "step %zu: services_pct=%.1f hosts=%zu concurrent_faults=%zu duration_per_fault=%gs "
                "damage_step_s=%g damage_total_s=%g damage_worst_target_s=%g damage_headroom_s=%g",
                step_index(b->plan, ps), st->services_pct, st->hosts, st->concurrent, st->duration_s,
                st->damage_step_s, st->damage_total_s, st->damage_worst_s, st->damage_headroom_s);
}

int plan_blast_step(struct plan_builder *b, const struct plan_step *ps) {
        const struct plan_fault *f = step_first_fault(b->plan, ps);
        struct plan_blast_stats st = { 0 };
        int r, denied = 0;
        if (!f)
                return 0;
        if ((r = gate_services(b, ps, f, &st)) < 0)
                return r;
        denied |= r;
        if ((r = gate_hosts(b, ps, f, &st)) < 0)
                return r;
        denied |= r;
        if ((r = gate_concurrent(b, ps, f, &st)) < 0)
                return r;
        denied |= r;
        if ((r = gate_max_faults(b, ps, f, &st)) < 0)
                return r;
        denied |= r;
        if ((r = gate_durations(b, ps, &st)) < 0)
                return r;
        denied |= r;
        if ((r = gate_pairs(b, ps)) < 0)
                return r;
        denied |= r;
        if ((r = plan_damage_step(b, ps, &st)) < 0)
                return r;
        denied |= r;
        return denied ? 0 : record_allow(b, ps, f, &st);
}
