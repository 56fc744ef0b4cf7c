#pragma once

/* What an agent may do (the reference's agents/capabilities.py, ADR-0017),
 * derived from the fault catalog: a role (mayhem-agent serve --roles) grants
 * the faults whose catalog entry names that role, and access to the
 * resources those faults touch. Every dispatch is checked here first; a
 * denied request is an error reply, never a partial action. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog.h"

enum agent_capability {
        CAP_FAULT_INJECT,    /* "fault_inject" */
        CAP_FAULT_UNDO,      /* "fault_undo" */
        CAP_PROBE_RUN,       /* "probe_run" */
        CAP_RESOURCE_ACCESS, /* "resource_access" */
        CAP_NETWORK_ACCESS,  /* "network_access" */
        CAP_SHELL_EXEC,      /* "shell_exec" */
        _AGENT_CAPABILITY_MAX,
};

const char *agent_capability_to_string(enum agent_capability c);
int agent_capability_from_string(const char *s);

#define AGENT_ROLES_DEFAULT "proc,fs"

struct agent_capabilities {
        unsigned caps;      /* bit (1u << enum agent_capability) */
        unsigned roles;     /* ROLE_BIT(enum agent_role) */
        unsigned resources; /* bit (1u << enum resource_kind): what the granted roles' faults touch */
};

/* From --roles "proc,container,cpu" (NULL: AGENT_ROLES_DEFAULT): role names
 * or their aliases (catalog.h, enum agent_role), comma-separated, blanks
 * around them and empty entries ignored. Every role grants fault_inject,
 * fault_undo and probe_run; resource_access when its faults touch any
 * resource of the target; network grants network_access; shell_exec is never
 * granted. -EINVAL with a one-line message for an unknown role (naming the
 * known ones) or no role at all. *ret is written only on success. */
int agent_capabilities_from_roles(
        const char *roles_csv, struct agent_capabilities *ret, char *msg, size_t msg_size);

bool agent_capabilities_has(const struct agent_capabilities *c, enum agent_capability cap);
/* The capability, the fault's role and the resource it touches: all from
 * the catalog entry, so a role can do exactly the faults the catalog gives it. */
bool agent_can_inject(const struct agent_capabilities *c, const struct fault_def *f);
bool agent_can_undo(const struct agent_capabilities *c, const struct fault_def *f);
/* The same on a given kind of target: on a plain host process the catalog
 * asks for the host role too (fault_roles_on()). */
bool agent_can_inject_on(const struct agent_capabilities *c, const struct fault_def *f, bool host_process);
bool agent_can_undo_on(const struct agent_capabilities *c, const struct fault_def *f, bool host_process);
/* Plain host processes may be resolved and acted on (ROLES_HOST_TARGET granted). */
bool agent_can_reach_host(const struct agent_capabilities *c);
bool agent_can_access(const struct agent_capabilities *c, enum resource_kind k);

/* {"roles":[...], "capabilities":[...], "allowed_faults":[...],
 * "allowed_resources":[...], "host_targets": bool}: role names (primary), capabilities in enum
 * order, the catalog's faults with a mechanism and a granted role, resource
 * kinds; a new reference, NULL on ENOMEM. */
json_t *agent_capabilities_json(const struct agent_capabilities *c);
