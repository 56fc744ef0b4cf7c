#pragma once

/* A process named by pid *and* start time, so a recycled pid is never taken
 * for the process we meant. Signals go through a pidfd that was verified
 * against the start time after it was opened: from then on the fd refers to
 * that process or to nothing (kernel >= 5.3 for pidfd_open, 5.1 for
 * pidfd_send_signal). */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/error.h"
#include "basic/procfs.h"

/* Opens a pidfd for id and checks it is still the same process. -ESRCH when
 * the process is gone or the pid now belongs to another process. */
int proc_pidfd_open(const struct proc_identity *id, int *ret_fd, struct mh_error *reterr);

/* Sends sig to the process id names: -ESRCH when it is gone (or recycled). */
int proc_signal(const struct proc_identity *id, int sig, struct mh_error *reterr);

/* Waits up to wait_ms for pid, a child of ours, to exit, then SIGKILLs it;
 * reaps it either way. For a helper process told to go (a guardian, a
 * payload) that must not outlive the call. */
void proc_child_end(pid_t pid, int wait_ms);

/* Waits up to timeout_ms for the process behind pidfd to exit: 1 exited, 0 still running. */
int proc_pidfd_wait_exit(int pidfd, int timeout_ms);
