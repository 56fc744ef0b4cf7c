#pragma once

/* The pids controller of a target's cgroup: pids.current and pids.max, the
 * same names on cgroup v1 (the pids hierarchy) and v2 (the unified group,
 * when the controller is enabled there). Only the target's own group is
 * read: a lower pids.max of an ancestor also limits it and is not seen. */

#include <stdint.h>

#include "basic/error.h"
#include "sys/process.h"

#define CGROUP_PIDS_UNLIMITED INT64_C(-1)

struct cgroup_pids {
        int64_t current; /* tasks (threads included) charged to the group */
        int64_t max;     /* CGROUP_PIDS_UNLIMITED for "max" */
};

/* The text of pids.max ("max" or a count) -> *ret. -EINVAL otherwise. */
int cgroup_pids_max_parse(const char *text, int64_t *ret);

/* The pids knobs of target's cgroup. -ENOENT (with reterr) when its cgroup
 * has no pids controller (none mounted as v1, not enabled on v2, or the
 * root group), -ESRCH when target is gone. */
int cgroup_pids_read(const struct proc_identity *target, struct cgroup_pids *ret, struct mh_error *reterr);
