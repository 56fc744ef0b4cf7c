#pragma once

/* What fs.fill and fs.inode_exhaust aim at (fault-fs-fill.c,
 * fault-inode-exhaust.c), decided with no I/O from one statvfs of the
 * filesystem, so a unit test can walk every case. The meaning is the
 * reference's: fs.fill raises the used share of the filesystem's size to
 * percent, adding at most FS_FILL_CAP bytes; fs.inode_exhaust uses percent of
 * the inodes that were free, at most FS_INODES_CAP. "Used" is what a writer
 * without the root reserve sees: f_blocks - f_bavail (the ext4 reserve
 * counts as used), f_files - f_ffree. */

#include <stddef.h>
#include <stdint.h>

#define FS_FILL_CAP   (1ull << 30)
#define FS_INODES_CAP 200000ull

/* One look at a filesystem, in bytes and inodes. */
struct fs_usage {
        uint64_t size;  /* f_blocks * f_frsize */
        uint64_t avail; /* f_bavail * f_frsize */
        uint64_t files; /* f_files; 0: the filesystem has no fixed inode count */
        uint64_t ffree; /* f_ffree */
        uint64_t block; /* f_frsize */
        long type;      /* statfs f_type */
};

static inline uint64_t fs_used(const struct fs_usage *u) {
        return u->size > u->avail ? u->size - u->avail : 0;
}

static inline uint64_t fs_inodes_used(const struct fs_usage *u) {
        return u->files > u->ffree ? u->files - u->ffree : 0;
}

/* The used bytes fs.fill fills to: percent of the size, or the used bytes
 * now plus FS_FILL_CAP when that is less. 0 with *ret_reason set when there
 * is nothing to fill (already at or above percent, an empty filesystem). */
uint64_t fs_fill_goal(const struct fs_usage *u, double percent, const char **ret_reason);

/* The inodes fs.inode_exhaust creates: percent of the free ones, at most
 * FS_INODES_CAP. 0 with *ret_reason set when it cannot (no fixed inode
 * count: btrfs, tmpfs with nr_inodes=0; no free inode). */
uint64_t fs_inode_goal(const struct fs_usage *u, double percent, const char **ret_reason);

/* What the filesystem is, for the ready and effect details: "ext4",
 * "overlay (its upper dir: the host's disk)", "tmpfs (memory, charged to the
 * target's memory cgroup)", or "fs 0x..." for one not named here. */
const char *fs_kind(long type, char *buf, size_t size);

/* bytes as "9.8 GiB", "64.0 MiB", "512 B". */
const char *fs_bytes(uint64_t bytes, char *buf, size_t size);

/* The payload's ready and progress lines start "held N goal G" (bytes or
 * inodes), which the agent's effect check reads back. */
#define FS_HELD_FMT  "held %llu goal %llu"
#define FS_HELD_SCAN "held %llu goal %llu"
