#include "fs-space.h"

#include <stdio.h>

#include "basic/macro.h"

/* statfs f_type values (linux/magic.h), for the filesystems whose space
 * lives somewhere a user should be told about. */
#define MAGIC_EXT4    0xEF53
#define MAGIC_XFS     0x58465342
#define MAGIC_BTRFS   0x9123683E
#define MAGIC_TMPFS   0x01021994
#define MAGIC_OVERLAY 0x794C7630
#define MAGIC_ZFS     0x2FC12FC1
#define MAGIC_F2FS    0xF2F52010

uint64_t fs_fill_goal(const struct fs_usage *u, double percent, const char **ret_reason) {
        if (u->size == 0) {
                *ret_reason = "the filesystem reports no size";
                return 0;
        }
        uint64_t want = (uint64_t)((double)u->size * percent / 100.0), used = fs_used(u);
        if (used >= want) {
                *ret_reason = "the filesystem is already used that much";
                return 0;
        }
        return MIN(want, used + FS_FILL_CAP);
}

uint64_t fs_inode_goal(const struct fs_usage *u, double percent, const char **ret_reason) {
        if (u->files == 0) {
                *ret_reason = "the filesystem allocates inodes as it needs them (no fixed inode count to "
                              "exhaust: btrfs, tmpfs with nr_inodes=0, ...)";
                return 0;
        }
        uint64_t n = (uint64_t)((double)u->ffree * percent / 100.0);
        if (n == 0) {
                *ret_reason = "the filesystem has no free inode to use";
                return 0;
        }
        return MIN(n, FS_INODES_CAP);
}

const char *fs_kind(long type, char *buf, size_t size) {
        const char *name = NULL;
        switch ((unsigned long)type & 0xFFFFFFFFul) {
        case MAGIC_EXT4: name = "ext4"; break;
        case MAGIC_XFS: name = "xfs"; break;
        case MAGIC_BTRFS: name = "btrfs"; break;
        case MAGIC_ZFS: name = "zfs"; break;
        case MAGIC_F2FS: name = "f2fs"; break;
        case MAGIC_TMPFS: name = "tmpfs (memory, charged to the target's memory cgroup)"; break;
        case MAGIC_OVERLAY: name = "overlay (its upper dir: the host's disk)"; break;
        }
        if (name)
                snprintf(buf, size, "%s", name);
        else
                snprintf(buf, size, "fs 0x%lx", (unsigned long)type & 0xFFFFFFFFul);
        return buf;
}

const char *fs_bytes(uint64_t bytes, char *buf, size_t size) {
        static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
        if (bytes < 1024) {
                snprintf(buf, size, "%llu B", (unsigned long long)bytes);
                return buf;
        }
        double v = (double)bytes / 1024.0;
        size_t i = 0;
        while (v >= 1024.0 && i + 1 < ELEMENTSOF(unit)) {
                v /= 1024.0;
                i++;
        }
        snprintf(buf, size, "%.1f %s", v, unit[i]);
        return buf;
}
