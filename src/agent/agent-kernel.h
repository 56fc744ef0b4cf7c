#pragma once

/* The agent's kernel features (sys/kernel-features.h) as capabilities.query
 * reports them under "kernel"; the controller reads them back with
 * impact_kernel_from_json() (plan/impact.h), through the same list of names. */

#include <jansson.h>

#include "sys/kernel-features.h"

json_t *agent_kernel_features_json(const struct kernel_features *k);
