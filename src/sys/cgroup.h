#pragma once

/* cgroup v1 and v2 (shared/STYLE.md: both exist in the wild; this machine's
 * Docker runs cgroupfs on v1 controllers with a v2 hierarchy mounted beside
 * them, no controller on it). Mount points come from /proc/self/mountinfo,
 * never from a guessed /sys/fs/cgroup/<x>; knobs are written relative to
 * directory fds opened once. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/error.h"
#include "sys/process.h"

#define CGROUP_PATH_MAX 512

/* Where a process is, as /proc/PID/cgroup says (paths relative to the root of
 * each hierarchy, as seen from our cgroup namespace; "" = not in that
 * hierarchy / controller not mounted as v1). */
struct cgroup_info {
        bool v2;                       /* a "0::" line: the unified hierarchy */
        bool v1;                       /* at least one v1 controller line */
        char unified[CGROUP_PATH_MAX]; /* path from the "0::" line */
        char v1_cpu[CGROUP_PATH_MAX];  /* from the line whose controllers include "cpu" */
        char v1_cpuacct[CGROUP_PATH_MAX];
        char v1_memory[CGROUP_PATH_MAX];
        char v1_freezer[CGROUP_PATH_MAX];
        char v1_pids[CGROUP_PATH_MAX];
        char v1_blkio[CGROUP_PATH_MAX];
};

/* The cgroups of the process id names (its start time checked after the
 * read). -ESRCH when it is gone; -ENAMETOOLONG for a path over CGROUP_PATH_MAX. */
int cgroup_of_process(const struct proc_identity *id, struct cgroup_info *ret, struct mh_error *reterr);

/* Moves pid (normally a child of ours, e.g. a payload) into the same cgroups as
 * target: the unified directory's cgroup.procs when target has a "0::" line
 * and cgroup2 is mounted, and cgroup.procs of every v1 hierarchy of target's
 * that is mounted (cpu, memory, freezer, pids, blkio, devices, cpuset, named
 * ones: all of them, so limits and accounting follow). When one write fails,
 * pid is moved back where it was as far as possible and the error names the
 * hierarchy. */
int cgroup_join(const struct proc_identity *target, pid_t pid, struct mh_error *reterr);

/* The CPU quota of target's cgroup: cpu.cfs_quota_us / cpu.cfs_period_us when
 * the cpu controller is a v1 hierarchy, else cpu.max of the unified directory
 * ("max 100000" or "50000 100000"). *ret_quota_us = -1 means unlimited.
 * -ENOENT when the cpu controller is not available for target's cgroup (v2 root
 * or controller not enabled). */
int cgroup_cpu_quota(
        const struct proc_identity *target, int64_t *ret_quota_us, int64_t *ret_period_us,
        struct mh_error *reterr);

/* Opens target's cgroup directory for controller ("cpu", "cpuacct",
 * "memory", "freezer", "pids", "blkio"): the v1 hierarchy of that controller
 * when one is mounted and target has a line for it (*ret_v2 false), else the
 * unified group (*ret_v2 true; whether it offers the controller's knobs is
 * the caller's to check). ret_path (may be NULL) gets the cgroup's path.
 * -ENOENT when neither exists. Readers of one controller's knobs live in
 * their own files (cgroup-cpu.c, cgroup-memory.c, ...) on top of this. */
int cgroup_controller_dir_open(
        const struct proc_identity *target, const char *controller, int *ret_fd, bool *ret_v2,
        char *ret_path, size_t path_size, struct mh_error *reterr);
/* The first line of knob name in a cgroup directory (its newline cut). */
int cgroup_knob_read(int dirfd, const char *name, char *buf, size_t size);

/* Parsers, exported for tests and for text read inside a container. */

/* The text of /proc/PID/cgroup -> ret. -EINVAL on a malformed line. */
int cgroup_info_parse(const char *text, struct cgroup_info *ret);

/* Looks up, in the text of a /proc/PID/mountinfo, the mount of the v1
 * hierarchy whose controllers include every entry of the comma-separated
 * controllers ("cpu", "cpu,cpuacct", "name=systemd"), or the cgroup2 mount
 * when controllers is NULL or "". ret_dir gets the mount point (octal escapes
 * undone), ret_root the mount's root inside the hierarchy ("/" unless a
 * subtree is mounted). -ENOENT when there is no such mount. */
int cgroup_mount_parse(
        const char *mountinfo, const char *controllers, char *ret_dir, size_t dir_size, char *ret_root,
        size_t root_size);

/* Sets the target's CPU quota: v1 cpu.cfs_period_us then cpu.cfs_quota_us, v2
 * cpu.max; quota -1 means unlimited. Written to the cgroup directly, so the
 * previous value (unlimited included) can be put back exactly. */
int cgroup_set_cpu_quota(
        const struct proc_identity *target, int64_t quota_us, int64_t period_us, struct mh_error *reterr);

/* The processes (thread group ids) of target's own cgroup: cgroup.procs of the
 * first hierarchy in which target is below the root (unified, else v1 pids,
 * freezer, cpu, memory), at most max of them. -ENOENT when target is in the
 * root cgroup of every hierarchy (its processes cannot be told from the
 * host's), -E2BIG for more than max. */
int cgroup_procs(
        const struct proc_identity *target, pid_t *ret_pids, size_t max, size_t *ret_n,
        struct mh_error *reterr);
