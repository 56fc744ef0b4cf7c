/* Stands in for mayhem-agent (test-host sets $MAYHEM_AGENT to it): runs the
 * real agent ($MAYHEM_REAL_AGENT, same arguments) behind two pipes and relays
 * lines both ways until the agent answers a task.execute inject. Then it
 * SIGKILLs the agent and exits without passing the answer on: the fault is
 * applied and the controller never hears so, as when an agent dies between
 * the mutation and its reply. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/agent-relay.h"

/* The numeric JSON-RPC id of a frame (ids in params are strings), or -1. */
static long frame_id(const char *line) {
        for (const char *p = strstr(line, "\"id\":"); p; p = strstr(p + 1, "\"id\":")) {
                char *end;
                long id = strtol(p + 5, &end, 10);
                if (end != p + 5)
                        return id;
        }
        return -1;
}

static long inject_id = -1;

static bool to_agent(char *line, size_t len) {
        if (strstr(line, "\"phase\":\"inject\""))
                inject_id = frame_id(line);
        return agent_relay_to_agent(line, len);
}

static bool to_controller(char *line, size_t len) {
        if (inject_id >= 0 && frame_id(line) == inject_id)
                return false; /* the answer to the inject: lost with the agent */
        return agent_relay_write(STDOUT_FILENO, line, len);
}

int main(int argc, char **argv) {
        (void)argc;
        return agent_relay_main(argv, to_agent, to_controller);
}
