#pragma once

/* Compensation templates, decided at plan time (reference
 * controller/compensation.py): for every executable fault, the undo ops that
 * put the target back, the verify probes that prove it, and the effect check
 * that proves the fault was in force while held. A fault without a template
 * never leaves the planner (plan_uncompensated_fault).
 *
 * Ops are names of work the executor does from the host; the concrete
 * identity they act on (container id, pid + start time, netns inode, table
 * name) is written into the lease at injection time. Every undo op is
 * idempotent and harmless on a fault that was never applied. */

#include <stdbool.h>
#include <stddef.h>

#include "catalog/ops.h"

#define COMP_OPS_MAX 3

struct comp_template {
        const char *fault_id;
        enum comp_op undo[COMP_OPS_MAX];
        size_t n_undo;
        enum verify_probe verify[COMP_OPS_MAX];
        size_t n_verify;
        enum effect_check effect;
};

/* NULL when the fault has no compensation template. */
const struct comp_template *comp_template_find(const char *fault_id);
/* The template for a fault on a plain host process (process.kill/stop differ: no engine restarts it). */
const struct comp_template *comp_template_find_for(const char *fault_id, bool host_process);
size_t comp_template_count(void);
const struct comp_template *comp_template_at(size_t i);
