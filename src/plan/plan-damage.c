#include "plan-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The damage quota (reference §5.3, 1.0): a fault in force charges its
 * target duration_s x fault_damage_weight() (catalog.h). A step may not
 * charge one target more than per_fault_ceiling_s, and no target may reach
 * more than budget_s inside window_s, counting what past runs charged it
 * (opt->damage, read from the evidence by the CLI for that window) and what
 * the earlier steps of this plan charge it. */

double plan_damage_history(const struct plan_options *opt, const char *label) {
        double sum = 0;
        for (size_t i = 0; opt && i < opt->n_damage; i++)
                if (opt->damage[i].target && strcmp(opt->damage[i].target, label) == 0)
                        sum += opt->damage[i].fault_s;
        return sum;
}

static double fault_charge(const struct plan_fault *f) {
        return (double)f->src->duration_ms / 1000.0 * fault_damage_weight(f->src->def);
}

/* Charges are kept per container or process, not per drill target: two
 * targets of a drill (a maniac's draws, say) may name the same container.
 * The index of the first target with t's label stands for all of them. */
static size_t same_target_index(const struct plan *pl, size_t t) {
        for (size_t i = 0; i < t; i++)
                if (strcmp(pl->targets[i].label, pl->targets[t].label) == 0)
                        return i;
        return t;
}

/* The step's charge on each target (by index), and the first fault it has there. */
static void step_charges(
        const struct plan *pl, const struct plan_step *ps, double *charge, const struct plan_fault **first) {
        for (size_t i = 0; i < ps->n_lanes; i++) {
                const struct plan_lane *l = &ps->lanes[i];
                size_t t = same_target_index(pl, (size_t)(l->target - pl->targets));
                for (size_t k = 0; k < l->n_faults; k++) {
                        const struct plan_fault *f = &pl->faults[l->first_fault + k];
                        charge[t] += fault_charge(f);
                        if (!first[t])
                                first[t] = f;
                }
        }
}

static int gate_ceiling(
        struct plan_builder *b, const struct plan_step *ps, const struct plan_fault *f, double charge) {
        const struct config_damage_quota *q = &b->config->blast_radius.damage_quota;
        struct pb_verdict v = { .rule = "damage_quota.per_fault_ceiling",
                                .allow = charge <= q->per_fault_ceiling_s };
        snprintf(
                v.reason, sizeof(v.reason),
                "damage quota: step %zu charges %s %g fault-s, %s per_fault_ceiling_s %g",
                (size_t)(ps - b->plan->steps) + 1, f->target->label, charge, v.allow ? "within" : "above",
                q->per_fault_ceiling_s);
        snprintf(
                v.remedy, sizeof(v.remedy),
                "shorten the step's faults on %s, or raise blast_radius.damage_quota.per_fault_ceiling_s",
                f->target->label);
        return pb_gate(b, f, ps->src->pos, &v);
}

static int gate_budget(
        struct plan_builder *b, const struct plan_step *ps, const struct plan_fault *f, double before,
        double charge) {
        const struct config_damage_quota *q = &b->config->blast_radius.damage_quota;
        double after = before + charge;
        struct pb_verdict v = { .rule = "damage_quota.budget", .allow = after <= q->budget_s };
        /* Allowed: what is left after this step; refused: what is left to spend. */
        double remain = MAX(q->budget_s - (v.allow ? after : before), 0.0);
        snprintf(
                v.reason, sizeof(v.reason),
                "damage quota: %s would reach %g fault-s of %g in %g s; %g remain%s", f->target->label,
                after, q->budget_s, q->window_s, remain, v.allow ? " after it" : "");
        snprintf(
                v.remedy, sizeof(v.remedy),
                "wait until earlier runs' faults on %s leave the %g s window, shorten the drill's faults, "
                "or "
                "raise blast_radius.damage_quota.budget_s",
                f->target->label, q->window_s);
        return pb_gate(b, f, ps->src->pos, &v);
}

int plan_damage_step(struct plan_builder *b, const struct plan_step *ps, struct plan_blast_stats *st) {
        const struct plan *pl = b->plan;
        size_t n = pl->n_targets;
        _cleanup_free_ double *charge = calloc(n ? n : 1, sizeof(*charge));
        _cleanup_free_ const struct plan_fault **first = calloc(n ? n : 1, sizeof(*first));
        int denied = 0;

        if (!charge || !first)
                return pb_oom(b);
        step_charges(pl, ps, charge, first);
        for (size_t t = 0; t < n; t++) {
                if (!first[t])
                        continue;
                double before = plan_damage_history(b->opt, pl->targets[t].label) + b->charged[t];
                int r = gate_ceiling(b, ps, first[t], charge[t]);
                if (r < 0)
                        return r;
                denied |= r;
                if ((r = gate_budget(b, ps, first[t], before, charge[t])) < 0)
                        return r;
                denied |= r;
                b->charged[t] += charge[t];
                st->damage_step_s = MAX(st->damage_step_s, charge[t]);
        }
        for (size_t t = 0; t < n; t++) {
                if (same_target_index(pl, t) != t)
                        continue; /* counted with the first target of its label */
                double total = plan_damage_history(b->opt, pl->targets[t].label) + b->charged[t];
                st->damage_total_s += b->charged[t];
                st->damage_worst_s = MAX(st->damage_worst_s, total);
        }
        st->damage_headroom_s = b->config->blast_radius.damage_quota.budget_s - st->damage_worst_s;
        return denied;
}
