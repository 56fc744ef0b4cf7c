#pragma once

#include "cli.h"
#include "drill/drill.h"
#include "plan/plan.h"
#include "topology/topology.h"

/* What `prepare` and `run` start from: the drill, the compose topology (-c,
 * else compose.yaml & co. in the working directory, else in the drill's
 * directory), the plan, gated for host targets on this machine or behind a
 * remote agent (plan.h). */
struct cli_inputs {
        struct drill_spec *spec;
        struct topology *topology;
        struct plan *plan;
};

int cli_inputs_load(
        const char *spec_path, const char *compose_path, enum plan_host host, struct cli_inputs *in,
        struct mh_error *reterr);
void cli_inputs_done(struct cli_inputs *in);
/* "validated plan r-x-0a1b2c: N step(s), fingerprint F; each run of it gets its own id, ..." */
void cli_inputs_print_validated(const struct cli_ctx *ctx, const struct cli_inputs *in);
void cli_inputs_warn(const struct cli_ctx *ctx, const struct cli_inputs *in);
