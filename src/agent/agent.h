#pragma once

/* mayhem-agent: applies and undoes faults for the controller, speaking
 * newline-delimited JSON-RPC 2.0 on stdin/stdout (docs/internals/agent-rpc.md).
 * It never binds a socket. It owns every lease it injected until the
 * controller undoes it; when its stdin closes (the controller died), on
 * SIGTERM, or when a lease's TTL passes without lease.extend, it undoes the
 * faults itself: the dead-man's switch. */

#include <jansson.h>
#include <stdio.h>

#include "agent/capabilities.h"
#include "fault/fault.h"

#define AGENT_PROTOCOL     "mayhem/1"
#define AGENT_LEASE_ID_MAX 32
#define AGENT_FAULT_ID_MAX 64
#define AGENT_OPS_MAX      4
#define AGENT_ID_MAX       96

/* A lease as the agent receives it in task.execute: what to apply, to whom
 * (the live identity, captured before the fault), and how to undo and check it. */
struct agent_lease {
        char id[AGENT_LEASE_ID_MAX];
        char fault_id[AGENT_FAULT_ID_MAX];
        unsigned ttl_seconds;
        int64_t duration_ms;
        struct target_identity target;
        json_t *params; /* owned */
        enum comp_op undo[AGENT_OPS_MAX];
        size_t n_undo;
        enum verify_probe verify[AGENT_OPS_MAX];
        size_t n_verify;
        enum effect_check effect; /* _EFFECT_CHECK_MAX when the lease came from the journal */
};

/* -EINVAL with a one-line message naming the bad field. */
int agent_lease_from_json(const json_t *j, struct agent_lease *ret, char *msg, size_t size);
json_t *agent_lease_to_json(const struct agent_lease *l);
void agent_lease_done(struct agent_lease *l);

struct agent_options {
        struct agent_capabilities caps;
        const char *roles;
        char agent_id[AGENT_ID_MAX];
        int in_fd, out_fd;
        FILE *log; /* stderr: logs only, never frames */
};

/* Serves one session until EOF or SIGTERM/SIGINT, then undoes every lease it
 * still holds. Returns the process exit code. */
int agent_serve(const struct agent_options *opt);
