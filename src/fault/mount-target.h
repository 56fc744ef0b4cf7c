#pragma once

/* fs.read_only's reach into a target's mount namespace (fault-mount.c):
 * each op runs in a forked child that entered the namespace (ns_run(),
 * setns(CLONE_NEWNS) cannot be done by a thread of the agent), resolves its
 * path under that namespace's root with openat2(RESOLVE_IN_ROOT) so no
 * symlink of the target's leads outside it, and reports back. A mount is
 * named by its id (statx STX_MNT_ID, Linux >= 5.8) and checked before it is
 * touched, so an op never acts on a mount it was not meant for. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/procfs.h"
#include "sys/mountinfo.h"

struct mount_probe {
        uint64_t id;    /* the top mount at path */
        bool read_only; /* writes to path fail already (statvfs ST_RDONLY) */
        bool is_root;   /* path is the root of the namespace */
};

int mount_target_probe(
        const struct proc_identity *t, const char *path, struct mount_probe *ret, struct mh_error *reterr);

/* Sets (ro) or clears the per-mount read-only flag of the top mount at path
 * when it is mount id: -ESTALE when it is another; -EBUSY (the kernel's)
 * when a file on it is open for writing. */
int mount_target_flag(
        const struct proc_identity *t, const char *path, uint64_t id, bool ro, struct mh_error *reterr);

/* A detached, recursive clone of the mounts at path (OPEN_TREE_CLONE),
 * private, its top read-only (submounts keep their flags): its fd, open in
 * the agent, and its mount id. Closing the fd unattached leaves nothing. */
int mount_target_clone_ro(
        const struct proc_identity *t, const char *path, int *ret_fd, uint64_t *ret_id,
        struct mh_error *reterr);

/* Moves the clone tree_fd onto path (move_mount), over what is there. */
int mount_target_attach(
        const struct proc_identity *t, const char *path, int tree_fd, struct mh_error *reterr);

/* Unmounts (MNT_DETACH) the top mount at point when it is mount id:
 * -ESTALE when it is another, which is then left alone. */
int mount_target_detach(
        const struct proc_identity *t, const char *point, uint64_t id, struct mh_error *reterr);

/* Tries a write at path in the target: a new file in a directory (removed
 * at once), or a regular file opened for writing (not truncated). 0 when it
 * ran, with 0 or the write's -errno in *ret_result. */
int mount_target_write(
        const struct proc_identity *t, const char *path, int *ret_result, struct mh_error *reterr);

/* The target's mount with this id, from /proc/PID/mountinfo read while the
 * pid is still the target's: 1 found, 0 gone (with the process, or
 * unmounted), -errno when it could not be read. */
int mount_target_find(const struct proc_identity *t, uint64_t id, struct mountinfo_entry *ret);
