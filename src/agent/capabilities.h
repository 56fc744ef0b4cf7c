#pragma once

/* What an agent may do (the reference's agents/capabilities.py, ADR-0017).
 * Every dispatch is checked here first; a denied request is an error reply,
 * never a partial action. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

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
#define AGENT_ROLES_MAX     16

/* All strings are static (from the role table); the struct owns nothing. */
struct agent_capabilities {
        unsigned caps; /* bit (1u << enum agent_capability) */
        /* Fault ids or prefixes: an entry ending in '.' matches every id that
         * starts with it, any other entry only that exact id. Empty: all. */
        const char *allowed_faults[64];
        size_t n_allowed_faults;
        const char *allowed_resources[16]; /* resource kinds, exact; empty: all */
        size_t n_allowed_resources;
        const char *roles[AGENT_ROLES_MAX]; /* the role names given, without repeats */
        size_t n_roles;
};

/* From --roles "proc,container,cpu" (NULL: AGENT_ROLES_DEFAULT). Names are
 * comma-separated, blanks around them and empty entries ignored:
 *   proc|process     proc., process.                          resources: process
 *   container|node   container., node., process.crash_loop    resources: container
 *   cpu              cpu.                                     resources: cgroup
 *   memory|mem       mem.                                     resources: cgroup
 *   fs|storage       fs., fd.                                 resources: mount
 *   network|net      net., dependency., dns., tls., http., db.  resources: netns;
 *                    also grants network_access
 *   load             load., net.load
 *   fuzz             fuzz.
 * Every role grants fault_inject, fault_undo, probe_run and resource_access;
 * shell_exec is never granted. When the roles together name no resource
 * kind (only load and fuzz given), resource_access is left out, since an
 * empty resource list would mean "all". Returns 0, or -EINVAL with a one-line message for an unknown
 * role (naming the known ones) or no role at all. *ret is written only on
 * success. */
int agent_capabilities_from_roles(
        const char *roles_csv, struct agent_capabilities *ret, char *msg, size_t msg_size);

bool agent_capabilities_has(const struct agent_capabilities *c, enum agent_capability cap);
/* The capability bit, then the allowlist (see struct agent_capabilities). */
bool agent_can_inject(const struct agent_capabilities *c, const char *fault_id);
bool agent_can_undo(const struct agent_capabilities *c, const char *fault_id);
bool agent_can_access(const struct agent_capabilities *c, const char *resource_kind);

/* {"capabilities":[...], "allowed_faults":[...], "allowed_resources":[...]},
 * capabilities in enum order; a new reference, NULL on ENOMEM. */
json_t *agent_capabilities_json(const struct agent_capabilities *c);
