#pragma once

/* The controller's end of the agent protocol: starts `mayhem-agent serve` as a
 * local child (its own session, so a terminal's Ctrl-C reaches only the
 * controller) or through the OpenSSH client, and calls it from any thread.
 * Closing the client closes the agent's stdin: the agent undoes whatever it
 * still holds and exits. */

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "basic/error.h"

#define AGENT_SSH_ARGS_MAX 16

struct agent_client;

struct agent_client_options {
        const char *agent_path; /* NULL: $MAYHEM_AGENT, beside this binary, the build tree, then $PATH */
        const char *ssh_target; /* NULL: local; "user@host" or "ssh://user@host[:port]" */
        const char *ssh_args[AGENT_SSH_ARGS_MAX]; /* extra ssh options (-i KEY, -o ...), NULL-terminated */
        const char *remote_agent; /* the agent's path on the remote host; NULL: "mayhem-agent" */
        const char *roles;        /* "proc,container" (agent_roles_for(), catalog.h) */
        /* --engine-socket for the agent, "docker:/var/run/docker.sock"; NULL:
         * the agent's defaults (always for a remote agent: its host's sockets). */
        const char *engine_socket;
        const char *run_id; /* correlation context of every call */
        /* Called once, from the client's reader thread, when the agent's output
         * closes (it died, or was killed): the caller stops waiting on it. */
        void (*on_lost)(void *userdata);
        void *userdata;
};

int agent_client_start(
        const struct agent_client_options *o, struct agent_client **ret, struct mh_error *reterr);
/* Adds run_id and agent_id to params (stolen) and waits for the reply. A
 * protocol error reply is -EPROTO (-EPERM, exit class 5, for a safety
 * refusal or a host process the agent never touches, -ENOENT for a target
 * that does not exist, exit class 3, -ESTALE for one that is not the
 * target the lease names any more) with the
 * agent's message; a dead agent is -EPIPE (exit class 8). ret_result may be NULL. */
int agent_client_call(
        struct agent_client *c, const char *method, json_t *params, int timeout_ms, json_t **ret_result,
        struct mh_error *reterr);
bool agent_client_alive(struct agent_client *c);
pid_t agent_client_pid(const struct agent_client *c);
const char *agent_client_id(const struct agent_client *c);
/* The agent said it keeps faults in force past the run (lease.keep, "keeper"):
 * agent_client_stop() then leaves it running once its output has closed. */
void agent_client_expect_keeper(struct agent_client *c);
/* Closes the agent's stdin and waits (bounded) for it to finish and exit. */
struct agent_client *agent_client_stop(struct agent_client *c);
DEFINE_FREEP(struct agent_client, agent_client_stop)
