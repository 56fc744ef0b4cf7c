#pragma once

/* The CPU a cgroup may use and the CPU it used: the readers behind
 * cpu.saturate (its payload's closed loop and the agent's effect check).
 * v1 (cpu and cpuacct hierarchies) and v2 (cpu.max, cpu.stat). */

#include <stdbool.h>
#include <stdint.h>

#include "sys/cgroup.h"

/* Target's CPU allowance in CPUs: cfs quota / period (v1
 * cpu.cfs_quota_us / cpu.cfs_period_us, v2 cpu.max) when one is set
 * (*ret_limited true), else the CPUs the target may run on (its affinity
 * mask, which a cpuset narrows; the host's online CPUs otherwise). Never
 * more than those CPUs: a quota of 4 CPUs on a 2-CPU host allows 2. */
int cgroup_cpu_allowance(
        const struct proc_identity *target, double *ret_cpus, bool *ret_limited, struct mh_error *reterr);

/* Opens the directory whose usage counter charges target's CPU time: the
 * v1 cpuacct hierarchy (cpuacct.usage), else the unified group (cpu.stat
 * usage_usec, there without the cpu controller too). */
int cgroup_cpu_usage_open(
        const struct proc_identity *target, int *ret_fd, bool *ret_v2, struct mh_error *reterr);
/* The counter of a directory cgroup_cpu_usage_open() gave, in nanoseconds. */
int cgroup_cpu_usage_read(int dirfd, bool v2, uint64_t *ret_ns);

/* The usage_usec line of cpu.stat text. -ENOENT when there is none. */
int cgroup_cpu_stat_usage_parse(const char *text, uint64_t *ret_usec);
