#pragma once

#include "cli.h"
#include "config/mayhem-config.h"
#include "drill/drill.h"
#include "plan/plan.h"
#include "topology/topology.h"

/* What `prepare` and `run` start from: the configuration (cli-config.h),
 * the drill, the compose topology (-c, else compose.yaml & co. in the
 * working directory, else in the drill's directory), the plan, gated for
 * host targets on this machine or behind a remote agent (plan.h), under the
 * config's policy with --policy over it, --allow-critical, and the damage
 * quota's history read from the evidence (--db; none when it does not exist). */
struct cli_inputs {
        const struct mayhem_config *config; /* ctx->config, loaded once (cli-config.h) */
        struct drill_spec *spec;
        struct topology *topology;
        struct plan *plan;
};

/* 0 with everything loaded. Under --dry-run it prints one line per safety
 * decision on stdout ("dry-run RULE: OUTCOME REASON -> REMEDIATION") and
 * returns CLI_INPUTS_DRY_RUN (the command then ends with exit 0 and touches
 * nothing), or a safety refusal (exit 5) when any decision denied. */
#define CLI_INPUTS_DRY_RUN 1
int cli_inputs_load(
        struct cli_ctx *ctx, const char *spec_path, const char *compose_path, enum plan_host host,
        struct cli_inputs *in, struct mh_error *reterr);
void cli_inputs_done(struct cli_inputs *in);
/* --dry-run: one line per decision, `dry-run <rule>: <outcome> <reason> ->
 * <remediation>`; then the count on stderr and the verdict: CLI_INPUTS_DRY_RUN
 * when every decision allows, else exit 5 with the first denial. */
void cli_print_decisions(const struct cli_ctx *ctx, const struct plan *pl);
int cli_dry_run_verdict(const struct cli_ctx *ctx, const struct plan *pl, struct mh_error *reterr);
/* plan_build_with() with ctx->config, the root flags (--policy,
 * --allow-critical, --skip-gate, --dry-run) and the damage history of the
 * evidence at ctx->db_path (none when it does not exist; not created). */
int cli_build_plan(
        struct cli_ctx *ctx, enum plan_host host, const struct drill_spec *spec, const struct topology *topo,
        struct plan **ret, struct mh_error *reterr);
/* "validated plan r-x-0a1b2c: N step(s), fingerprint F; each run of it gets its own id, ..." */
void cli_inputs_print_validated(const struct cli_ctx *ctx, const struct cli_inputs *in);
void cli_inputs_warn(const struct cli_ctx *ctx, const struct cli_inputs *in);
