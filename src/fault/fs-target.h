#pragma once

/* The filesystem of a path in a target's mount namespace, for fs.fill and
 * fs.inode_exhaust: resolved under the namespace's root with
 * openat2(RESOLVE_IN_ROOT), so no symlink of the target's leads outside it. */

#include <stdbool.h>

#include "basic/error.h"
#include "basic/procfs.h"
#include "fault/fs-space.h"

/* In a process already in the target's mount namespace (a payload): an
 * O_DIRECTORY fd of path under "/", or -errno (-ENOTDIR when it is not a
 * directory). */
int fs_dir_open(const char *path);

/* statvfs + statfs of fd. */
int fs_usage_of(int fd, struct fs_usage *ret);

/* From the agent: the usage of the filesystem of path in the target's mount
 * namespace, read by a forked child that entered it (ns_run). */
int fs_target_usage(
        const struct proc_identity *t, const char *path, struct fs_usage *ret, struct mh_error *reterr);

/* A new regular file in dir that has no name: O_TMPFILE, or, where the
 * filesystem has none, a file created and unlinked at once. Its inode and
 * its blocks are the kernel's to free when the last fd closes. */
int fs_tmpfile(int dir);

struct fault_exec;

/* The "held N goal G" of the newest line of fx's payload (FS_HELD_FMT):
 * false when the agent holds no running payload for the lease. */
bool fs_payload_held(
        const struct fault_exec *fx, unsigned long long *ret_held, unsigned long long *ret_goal);
