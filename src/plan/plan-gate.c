#include "plan-internal.h"

#include <stdio.h>
#include <string.h>

#include "basic/strv.h"

int pb_gate(
        struct plan_builder *b, const struct plan_fault *f, struct srcpos pos, const struct pb_verdict *v) {
        bool dry = b->opt->dry_run;
        if (v->allow)
                return dry ? pb_decide(b, v->rule, f, true, "", "%s", v->reason) : 0;
        int r = pb_decide(b, v->rule, f, false, v->remedy, "%s", v->reason);
        if (r < 0)
                return r;
        if (dry) {
                b->plan->n_refused++;
                return 1;
        }
        r = pb_fail(b, pos, "safety refused: %s [%s]", v->reason, v->rule);
        mh_error_reclass(b->reterr, MH_EXIT_SAFETY_REFUSAL, "safety_refusal");
        if (v->remedy[0])
                mh_error_remedy(b->reterr, "%s", v->remedy);
        return r;
}

static int refuse_at(
        struct plan_builder *b, struct plan_fault *f, struct srcpos pos, const char *rule,
        const char *reason, const char *remedy) {
        struct pb_verdict v = { .rule = rule, .allow = false };
        snprintf(v.reason, sizeof(v.reason), "%s", reason);
        snprintf(v.remedy, sizeof(v.remedy), "%s", remedy);
        return pb_gate(b, f, pos, &v);
}

static int refuse(
        struct plan_builder *b, struct plan_fault *f, const char *rule, const char *reason,
        const char *remedy) {
        return refuse_at(b, f, f->src->pos, rule, reason, remedy);
}

/* Refused where the drill names the process (plan-host.c). */
static int gate_host_target(struct plan_builder *b, struct plan_fault *f) {
        const char *rule = NULL;
        char reason[512];
        if (!plan_host_refusal(b, f->target->src, &rule, reason, sizeof(reason)))
                return 0;
        return refuse_at(
                b, f, f->target->src->process_pos, rule, reason,
                "target another process: a drill never targets this one");
}

static int gate_node_kind(struct plan_builder *b, struct plan_fault *f) {
        const struct fault_def *def = f->src->def;
        const char *names[_NODE_KIND_MAX];
        char kinds[256];
        if (def->node_kinds & f->target->node_kinds)
                return 0;
        strv_join(kinds, sizeof(kinds), names, node_kind_names(def->node_kinds, names), 0);
        return pb_fail(
                b, f->src->pos, "%s does not apply to target '%s' (it applies to: %s)", def->id,
                f->target->label, kinds);
}

/* The reference moved the whole host clock with `date -s`. A container shares
 * the host kernel's clock, so there is no safe way to skew only the target. */
static int gate_host_clock(struct plan_builder *b, struct plan_fault *f) {
        char reason[512];
        if (strcmp(f->src->def->id, "clock.skew") != 0)
                return 0;
        snprintf(
                reason, sizeof(reason),
                "clock.skew on '%s': the container shares the host kernel's clock, so skewing it would move "
                "the host's clock for every process",
                f->target->label);
        return refuse(
                b, f, "safety.host_clock", reason,
                "drop clock.skew from the drill, or target a process in its own VM/kernel");
}

static int gate_compensation(struct plan_builder *b, struct plan_fault *f) {
        f->comp = fault_comp_for(f->src->def, f->target->src->runtime == TARGET_RUNTIME_PROCESS);
        if (f->comp->effect && fault_comp_n_undo(f->comp) && fault_comp_n_verify(f->comp))
                return 0;
        int r = pb_fail(
                b, f->src->pos,
                "%s has no compensation template; the planner refuses to emit an uncompensatable injection",
                f->src->def->id);
        mh_error_reclass(b->reterr, MH_EXIT_VALIDATION_ERROR, "plan_uncompensated_fault");
        return r;
}

/* Validation stops the plan even under --dry-run; a safety gate that
 * denies under --dry-run (1) lets the rest be evaluated, and the fault is
 * then not admitted. */
int plan_gate_fault(struct plan_builder *b, struct plan_fault *f) {
        static int (*const safety[])(struct plan_builder *, struct plan_fault *) = {
                gate_host_target,
                gate_host_clock,
                plan_policy_admit,
        };
        int r, denied = 0;
        if ((r = gate_node_kind(b, f)) < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(safety); i++) {
                if ((r = safety[i](b, f)) < 0)
                        return r;
                denied |= r;
        }
        if ((r = plan_support_fault(b, f)) < 0 || (r = gate_compensation(b, f)) < 0)
                return r;
        if (denied)
                return 0;
        return pb_decide(b, "policy.allow", f, true, "", "%s: admitted", f->src->def->id);
}

static bool same_target(const struct plan_target *a, const struct plan_target *b) {
        if (a->container || b->container)
                return a->container == b->container;
        return strcmp(a->label, b->label) == 0; /* the same pid or process name */
}

/* A fault of lane a against every fault of lane b. */
static int gate_lane_pair(struct plan_builder *b, const struct plan_lane *x, const struct plan_lane *y) {
        struct plan *pl = b->plan;
        char reason[512];
        for (size_t i = 0; i < x->n_faults; i++)
                for (size_t j = 0; j < y->n_faults; j++) {
                        const struct plan_fault *f = &pl->faults[x->first_fault + i],
                                                *g = &pl->faults[y->first_fault + j];
                        if (!faults_conflict(f->src->def, g->src->def))
                                continue;
                        snprintf(
                                reason, sizeof(reason),
                                "%s on '%s' runs at the same time as %s on '%s', the same %s, and %s (%s)",
                                g->src->def->id, g->target->src->name, f->src->def->id, f->target->src->name,
                                g->target->container ? "container" : "process",
                                f->src->def == g->src->def ? "a fault cannot be applied to it twice"
                                                           : "they compete for the same state",
                                conflict_class_to_string(g->src->def->conflict));
                        return refuse(
                                b, (struct plan_fault *)g, "policy.conflicting_lanes", reason,
                                "run the two faults in different steps, or on different targets");
                }
        return 0;
}

int plan_gate_lanes(struct plan_builder *b, const struct plan_step *ps) {
        int r = 0;
        if (ps->src->kind != STEP_PARALLEL)
                return 0;
        for (size_t i = 0; i < ps->n_lanes && r >= 0; i++)
                for (size_t j = i + 1; j < ps->n_lanes && r >= 0; j++)
                        if (same_target(ps->lanes[i].target, ps->lanes[j].target))
                                r = gate_lane_pair(b, &ps->lanes[i], &ps->lanes[j]);
        return r;
}
