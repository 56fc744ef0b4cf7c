#pragma once

/* A fault's params as the planner writes them into a lease: every catalog
 * default, then the given ones on top (a JSON object text, or NULL). For
 * tests and benchmarks that drive the fault layer or the agent without a
 * drill; a new reference, NULL when overrides is not a JSON object. */

#include <jansson.h>

#include "catalog/catalog.h"

json_t *fault_params_defaults(const struct fault_def *def, const char *overrides);
