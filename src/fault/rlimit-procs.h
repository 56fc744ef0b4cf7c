#pragma once

/* Which processes fd.exhaust lowers the descriptor limit of, and which
 * processes forked during the fault inherited it (fault-rlimit.c). */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fault/fault.h"

/* A target with more processes than this is refused. */
#define RLIMIT_PIDS_MAX 4096
/* Room rlimit_candidate_pids() needs (every process of a host). */
#define RLIMIT_CANDIDATES_MAX (1u << 16)

/* The processes of the target now: every process of a container's own
 * cgroup (cgroup.procs); for a host process, the process and its
 * descendants (parent links in /proc). */
int rlimit_target_pids(const struct target_identity *t, pid_t *ret, size_t *ret_n, struct mh_error *reterr);

/* Where undo looks for processes forked during the fault: the container's
 * cgroup again; for a host process, every process (those whose parent chain
 * leads to a recorded one are taken). */
/* ret has room for RLIMIT_CANDIDATES_MAX. */
int rlimit_candidate_pids(
        const struct target_identity *t, pid_t *ret, size_t *ret_n, struct mh_error *reterr);

/* The nearest ancestor of pid (parent, its parent, ...) that is one of ids
 * (pid and start time); false when the chain reaches pid 1 or a gone
 * process first. */
bool rlimit_ancestor_of(pid_t pid, const struct proc_identity *ids, size_t n, size_t *ret_index);
