#pragma once

/* mayhem-agent: applies and undoes faults for the controller, speaking
 * newline-delimited JSON-RPC 2.0 on stdin/stdout (docs/internals/agent-rpc.md).
 * It never binds a socket. It resolves targets itself, through the engine
 * sockets of its own configuration, and derives every fault's undo, verify
 * and effect from the catalog: a request names a fault, a target and typed
 * params, never what to run. It owns every lease it injected until the
 * controller undoes it; when its stdin closes (the controller died), on
 * SIGTERM, or when a lease's TTL passes without lease.extend, it undoes the
 * faults itself: the dead-man's switch. */

#include <stdio.h>

#include "agent/agent-journal.h"
#include "agent/capabilities.h"
#include "engine/engine.h"

#define AGENT_PROTOCOL   "mayhem/1"
#define AGENT_ID_MAX     96
#define AGENT_SOCKET_MAX 108

struct agent_options {
        struct agent_capabilities caps;
        char agent_id[AGENT_ID_MAX];
        /* Per engine kind, the socket of --engine-socket [docker:|podman:]PATH;
         * "" for the engine's default (DOCKER_HOST, /var/run/docker.sock,
         * /run/podman/podman.sock). */
        char engine_socket[_ENGINE_KIND_MAX][AGENT_SOCKET_MAX];
        int in_fd, out_fd;
        FILE *log; /* stderr: logs only, never frames */
        /* Where the agent keeps what it changes (agent-journal.h); NULL:
         * nowhere, and a fault whose undo needs a record is undone only
         * while this agent holds it (tests, the fuzzer). */
        struct agent_journal *journal;
};

/* --engine-socket's value into opt: -EINVAL with msg for an empty or
 * over-long path, or a kind prefix that is neither docker nor podman. */
int agent_options_engine_socket(struct agent_options *opt, const char *value, char *msg, size_t size);

/* Serves one session until EOF or SIGTERM/SIGINT, then undoes every lease it
 * still holds. Returns the process exit code. */
int agent_serve(const struct agent_options *opt);
