#pragma once

/* The guardian of a fault whose state the kernel does not drop with the
 * agent's sockets (a qdisc, a device set down, an MTU): a process that
 * outlives the agent (its own session, no death signal), holds a pipe from
 * it, and when the pipe closes without "release" undoes the lease itself:
 * the catalog's undo ops through the fault's mechanism, with the lease's
 * params, network context and restore record, exactly what recovery would
 * run. The agent runs itself as `EXE guard --fault ID --lease ID --pid PID
 * --start TICKS --params JSON --net JSON --restore JSON`. */

#include <stdbool.h>
#include <sys/types.h>

#include "fault/fault.h"

/* mayhem-agent sets "/proc/self/exe", tests the built agent. Unset (any
 * other program), faults that need a guardian are refused. */
void fault_guard_exe_set(const char *exe);
/* The agent's program (guardians and payloads run it); NULL when unset. */
const char *fault_guard_exe(void);
/* Runs it with argv: stdin from in, stdout to out (-1: /dev/null), stderr
 * the agent's, no signal blocked or ignored, in a session of its own when
 * new_session (a guardian outlives the agent; a payload must not). -errno. */
int fault_agent_spawn(char *const *argv, int in, int out, bool new_session, pid_t *ret_pid);

struct fault_guard;

/* Spawns the guardian of fx's lease with what fx holds now (call it after
 * apply recorded its restore state, before the first change). */
int fault_guard_start(const struct fault_exec *fx, struct fault_guard **ret, struct mh_error *reterr);
/* Tells the guardian to let go (it exits without undoing) and reaps it;
 * killed if it does not go within a second. NULL-safe; returns NULL. */
struct fault_guard *fault_guard_release(struct fault_guard *g);

/* The guardian's body: argv as after "guard". Waits for stdin to close;
 * 0 when released or when the undo ran, < 0 (reterr says why) otherwise. */
int fault_guard_run(int argc, char **argv, struct mh_error *reterr);
