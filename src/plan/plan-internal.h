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
};

#define pb_fail(b, pos, ...) mh_error_at((b)->reterr, (b)->spec->path, (pos).line, (pos).col, __VA_ARGS__)
int pb_oom(struct plan_builder *b);
int pb_warn(struct plan_builder *b, const char *fmt, ...) _printf_(2, 3);
int pb_decide(
        struct plan_builder *b, const char *rule, const struct plan_fault *f, bool allow, const char *fmt,
        ...) _printf_(5, 6);

/* plan-gate.c: admits one fault or refuses it (validation or safety). */
int plan_gate_fault(struct plan_builder *b, struct plan_fault *f);
/* Lanes of one parallel step run at once: two on the same container or
 * process with faults that conflict (catalog.h) are refused (exit 5). */
int plan_gate_lanes(struct plan_builder *b, const struct plan_step *ps);
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
