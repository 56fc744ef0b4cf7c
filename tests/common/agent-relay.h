#pragma once

/* What the stand-in agents of the integration tests share: run the real
 * agent ($MAYHEM_REAL_AGENT, the same arguments) behind two pipes and hand
 * every complete line, each way, to a filter that passes it on (or not)
 * with agent_relay_write(). A filter returning false ends that direction:
 * from the controller, the agent's stdin is closed (its dead-man's switch
 * acts); from the agent, the agent is SIGKILLed. */

#include <stdbool.h>
#include <stddef.h>

typedef bool (*agent_relay_fn)(char *line, size_t len);

/* The whole program: returns main()'s exit code. */
int agent_relay_main(char **argv, agent_relay_fn to_agent, agent_relay_fn to_controller);

/* Passes a line on to the agent. */
bool agent_relay_to_agent(const char *line, size_t len);
/* Writes buf whole to fd (STDOUT_FILENO: on to the controller). */
bool agent_relay_write(int fd, const char *buf, size_t len);
