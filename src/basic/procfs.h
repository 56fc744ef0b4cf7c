#pragma once

/* Processes as /proc shows them, read only: a process named by pid *and*
 * start time, so a recycled pid is never taken for the process we meant.
 * Acting on one (signals through pidfds) is sys/process.h's, in the agent;
 * the controller reads these to check on itself and for host probes. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/error.h"

struct proc_identity {
        pid_t pid;
        uint64_t start_time; /* /proc/PID/stat field 22, clock ticks since boot */
};

/* The identity of pid now; -ESRCH when there is no such process. */
int proc_identity_read(pid_t pid, struct proc_identity *ret, struct mh_error *reterr);

/* The state letter of /proc/PID/stat ('R', 'S', 'T', 'Z', ...) when the process
 * is still the one id names; -ESRCH otherwise. */
int proc_state(const struct proc_identity *id, char *ret_state, struct mh_error *reterr);

/* The live process whose /proc/PID/comm is name: -ESRCH when none, -ENOTUNIQ
 * (the message lists pids) when several, so a signal never hits the wrong one. */
int proc_find_by_name(const char *name, struct proc_identity *ret, struct mh_error *reterr);

/* For sys/process.c: the process behind id now (its state letter), or
 * -ESRCH when the pid is free or reused; and the error for a gone process. */
int proc_same(const struct proc_identity *id, char *ret_state);
int proc_gone(struct mh_error *reterr, const struct proc_identity *id);
