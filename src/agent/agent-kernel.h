#pragma once

/* The agent's kernel features (sys/kernel-features.h) as capabilities.query
 * reports them under "kernel", so the controller's impact gate decides how
 * network faults are delivered on the kernel that will run them. */

#include <jansson.h>

#include "sys/kernel-features.h"

json_t *agent_kernel_features_json(const struct kernel_features *k);
/* Anything missing or malformed reads as "not known". */
void agent_kernel_features_from_json(const json_t *j, struct kernel_features *ret);
