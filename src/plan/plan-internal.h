#pragma once

#include "plan.h"

struct plan_builder {
        struct plan *plan;
        const struct drill_spec *spec;
        const struct topology *topo;
        struct mh_error *reterr;
        enum plan_host host;
        const struct plan_options *opt;
        size_t decisions_cap, warnings_cap;
        const struct mayhem_config *config; /* opt->config, or the built-in defaults */
        struct mayhem_config *own_config;   /* those defaults, when opt->config is NULL */
        struct config_policy policy;        /* the config's policy with the --policy profile over it */
        double *charged;         /* damage this plan charges each target so far, by target index */
        bool first_refusal_kept; /* dry-run: reterr holds the first refusal */
};

/* One rule's outcome before it is recorded. */
struct pb_verdict {
        const char *rule;
        bool allow;
        char reason[512];
        char remedy[256];
};

#define pb_fail(b, pos, ...) mh_error_at((b)->reterr, (b)->spec->path, (pos).line, (pos).col, __VA_ARGS__)
int pb_oom(struct plan_builder *b);
int pb_warn(struct plan_builder *b, const char *fmt, ...) _printf_(2, 3);
int pb_decide(
        struct plan_builder *b, const char *rule, const struct plan_fault *f, bool allow, const char *remedy,
        const char *fmt, ...) _printf_(6, 7);
/* Records a safety rule's outcome for f. A denial is a refusal at pos (exit
 * 5: "safety refused: REASON [RULE]", remediation REMEDY), or under --dry-run
 * one more denied decision and 1, so every gate is still evaluated. An
 * allow is recorded under --dry-run only (0). */
int pb_gate(
        struct plan_builder *b, const struct plan_fault *f, struct srcpos pos, const struct pb_verdict *v);

/* plan-gate.c: admits one fault or refuses it (validation or safety). */
int plan_gate_fault(struct plan_builder *b, struct plan_fault *f);
/* Lanes of one parallel step run at once: two on the same container or
 * process with faults that conflict (catalog.h) are refused (exit 5). */
int plan_gate_lanes(struct plan_builder *b, const struct plan_step *ps);
/* plan-policy.c: fault admission in the reference's order (§5.2). */
int plan_policy_setup(struct plan_builder *b);
/* A fault id, or a prefix "net." / "net.*", as the policy lists and
 * forbidden_fault_pairs spell them. */
bool plan_fault_pattern_matches(const char *pattern, const char *id);
/* The rules for def under policy pol (no I/O): fills v[0..] and returns how
 * many, each allow or deny; PLAN_POLICY_RULES at most. */
#define PLAN_POLICY_RULES 4
size_t plan_policy_verdicts(
        const struct config_policy *pol, enum risk drill_ceiling, bool cli_allow_critical,
        const struct fault_def *def, struct pb_verdict v[PLAN_POLICY_RULES]);
/* Records them for f: <0 a refusal, 0 admitted, 1 denied under --dry-run. */
int plan_policy_admit(struct plan_builder *b, struct plan_fault *f);
/* plan-blast.c: the blast-radius budgets of one fault step (§5.3), then the
 * damage quota (plan-damage.c) and blast_radius.allow with the figures. */
struct plan_blast_stats {
        double services_pct;
        size_t hosts, concurrent;
        double duration_s; /* the longest fault of the step */
        double damage_step_s, damage_total_s, damage_worst_s, damage_headroom_s;
};
int plan_blast_step(struct plan_builder *b, const struct plan_step *ps);
/* The most faults of ps in force at one time: one per lane of a parallel
 * step (a lane's faults run one after another), one for a sequential step. */
size_t plan_step_concurrency(const struct plan *pl, const struct plan_step *ps);
/* plan-damage.c: charges ps to its targets and checks
 * damage_quota.per_fault_ceiling and damage_quota.budget. */
int plan_damage_step(struct plan_builder *b, const struct plan_step *ps, struct plan_blast_stats *st);
/* The fault-seconds of history opt->damage holds for label. */
double plan_damage_history(const struct plan_options *opt, const char *label);
/* plan-host.c: 1 with the gate's rule and a one-line reason when t is a host
 * process a drill never targets (init, a kernel thread, the controller's own
 * process tree, mayhem's programs), else 0. Reads /proc. */
int plan_host_refusal(
        const struct plan_builder *b, const struct drill_target *t, const char **ret_rule, char *reason,
        size_t size);
/* plan-support.c: what this build cannot run, refused here (exit 4,
 * "not_implemented" where the build lacks it): a planned-only fault, a
 * fault held as long as config.timeout; checks with another execution than
 * host, logs sources, steps whose holds and waits outlast config.timeout. */
int plan_support_fault(struct plan_builder *b, const struct plan_fault *f);
int plan_support_steps(struct plan_builder *b);
/* plan-warn.c: things worth saying that do not stop the plan. */
int plan_collect_warnings(struct plan_builder *b);
