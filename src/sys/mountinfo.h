#pragma once

/* /proc/PID/mountinfo, parsed without I/O (the text belongs to the target's
 * mount namespace: outside input, fuzz/fuzz-mountinfo.c). One line per
 * mount: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE
 * SOURCE SUPER_OPTIONS"; paths have ' ', '\t', '\n' and '\\' escaped as
 * three octal digits. */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mountinfo_entry {
        uint64_t id, parent;
        char point[PATH_MAX]; /* unescaped; relative to the reading task's root */
        bool read_only;       /* "ro" among the per-mount options (field 6) */
        bool shared;          /* a "shared:N" optional field: mounts under it propagate to its peers */
};

/* Finds the mount with this id in text (len bytes, need not be
 * NUL-terminated): 1 found (*ret filled), 0 not there. A malformed line
 * is skipped, never taken for a mount. */
int mountinfo_find(const char *text, size_t len, uint64_t id, struct mountinfo_entry *ret);

/* Parses one line (without its newline): 0, or -EINVAL when it is no
 * mountinfo line (too few fields, a number that is none, a mount point
 * longer than PATH_MAX - 1 or with a bad escape). */
int mountinfo_parse_line(const char *line, size_t len, struct mountinfo_entry *ret);
