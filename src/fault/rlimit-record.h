#pragma once

/* What fd.exhaust records before it lowers anything (the lease's restore,
 * kept by the agent's journal): each process's identity, its descriptor
 * limits before the fault and the ones the fault sets. */

#include <jansson.h>
#include <stdint.h>
#include <sys/resource.h>

#include "basic/error.h"
#include "basic/procfs.h"

struct nofile_entry {
        struct proc_identity id;
        struct rlimit old, set;
};

/* Adds the entries and when the fault started (clock ticks since boot, as
 * process start times) to restore, under "nofile" and "nofile_since". */
int rlimit_record_put(
        json_t *restore, const struct nofile_entry *e, size_t n, uint64_t since, struct mh_error *reterr);

/* The entries restore holds (malloc()ed), 0 of them when it holds none;
 * -EINVAL for a record out of shape. */
int rlimit_record_get(
        const json_t *restore, struct nofile_entry **ret, size_t *ret_n, uint64_t *ret_since,
        struct mh_error *reterr);

/* Now, in clock ticks since boot (what /proc/PID/stat's start time counts). */
uint64_t rlimit_ticks_now(void);
