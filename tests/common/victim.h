#pragma once

/* For the integration tests that drive `mayhem-agent serve` against a real
 * container of their own (the victim) and measure the fault from outside:
 * the docker CLI, the container's main pid, the agent, a lease's call, and
 * the payload processes left on the host. Failures end the test (cmocka). */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "agent/agent-client.h"
#include "engine/engine.h"

/* argv ran and exited 0; otherwise what it printed on stderr is passed on. */
bool victim_run(const char *const *argv);
/* The main pid of container name; 0 when it is not running. */
pid_t victim_main_pid(struct engine *e, const char *name);
/* `mayhem-agent serve --roles ROLES` (MAYHEM_AGENT_BIN), or the test fails. */
struct agent_client *victim_agent(const char *roles, const char *run_id);
/* A lease of fault on container (target.resolve through a), with params
 * over the catalog's defaults (a JSON object text or NULL); or the test fails. */
json_t *victim_lease(
        struct agent_client *a, const char *container, const char *fault, const char *lease_id,
        const char *params);
/* task.execute of lease in phase, or the test fails; the reply in *ret when ret is not NULL. */
void victim_call(struct agent_client *a, const json_t *lease, const char *phase, json_t **ret);
/* The host's `mayhem-agent payload` processes whose command line matches
 * the extended regular expression pattern after "payload " (pgrep -f), at
 * most max; their count. */
size_t victim_payloads(const char *pattern, pid_t *ret, size_t max);
