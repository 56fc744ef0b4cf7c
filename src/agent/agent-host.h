#pragma once

/* The agent's host facts (sys/host-facts.h) as capabilities.query reports
 * them under "host", for `mayhem doctor`:
 * {euid, caps_known, cap_eff (hex text), cgroup: {v2, v2_controllers[],
 * v1[]}, time_ns, htb (null: could not probe)}. */

#include <jansson.h>

#include "sys/host-facts.h"

json_t *agent_host_facts_json(const struct host_facts *h);
