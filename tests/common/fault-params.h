#pragma once

/* A fault's params as the planner writes them into a lease: every catalog
 * default, then the given ones on top (a JSON object text, or NULL). For
 * tests and benchmarks that drive the fault layer or the agent without a
 * drill; a new reference, NULL when overrides is not a JSON object. */

#include <jansson.h>

#include "catalog/catalog.h"

json_t *fault_params_defaults(const struct fault_def *def, const char *overrides);

/* A test case's text that holds a fault's params and, for brevity, its net
 * context (delivery, peers, self) as one JSON object: split into the params
 * as the planner writes them (fault_params_defaults()) and the net context.
 * New references; -EINVAL when text is not a JSON object. */
int fault_case_split(const struct fault_def *def, const char *text, json_t **ret_params, json_t **ret_net);
