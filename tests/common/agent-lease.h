#pragma once

/* What the runner sends an agent, for tests and benchmarks that drive
 * `mayhem-agent serve` directly: the target as the agent resolves it
 * (target.resolve) and a task.execute lease with the catalog's defaults
 * under the given params. */

#include <jansson.h>

#include "agent/agent-client.h"

/* The identity of container (engine "docker" or "podman") as the agent reads it; a new reference. */
int agent_lease_resolve(
        struct agent_client *a, const char *engine, const char *container, json_t **ret, struct mh_error *e);
/* {id, fault_id, ttl_seconds, duration_ms, target, params, net}: params on
 * top of the catalog's defaults (a JSON object text or NULL), net a JSON
 * object text or NULL. NULL when a text is not a JSON object or the fault
 * is unknown. */
json_t *agent_lease_new(
        const char *id, const char *fault_id, const json_t *identity, const char *params, const char *net);
/* task.execute of lease in phase ("inject", "undo", "verify", "effect");
 * the reply in *ret when ret is not NULL. */
int agent_lease_call(
        struct agent_client *a, const json_t *lease, const char *phase, json_t **ret, struct mh_error *e);
