#pragma once

/* The memory controller of a target's cgroup, v1 and v2 (sys/cgroup.h says
 * why both): its limit, its usage and how often the kernel OOM-killed in it.
 * Read through one directory fd (cgroup_memory_open), so a payload that
 * polls its own effect opens the cgroup once. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/error.h"
#include "sys/process.h"

/* v1 prints "no limit" as PAGE_COUNTER_MAX pages (9223372036854771712 with
 * 4 KiB pages); anything from here up is unlimited. */
#define CGROUP_MEMORY_UNLIMITED_FROM (UINT64_C(1) << 62)

struct cgroup_memory {
        bool v2;
        bool limited;       /* false: no limit of its own (memory.max "max") */
        uint64_t limit;     /* bytes, when limited */
        uint64_t usage;     /* memory.usage_in_bytes (v1) / memory.current (v2) */
        uint64_t oom_kills; /* "oom_kill" of memory.oom_control (v1) / memory.events (v2) */
};

/* The memory cgroup directory of target: the v1 memory hierarchy, else the
 * unified group when it offers memory.current. -ENOENT (the message says
 * which) when target's cgroup has no memory controller. */
int cgroup_memory_open(
        const struct proc_identity *target, int *ret_fd, bool *ret_v2, struct mh_error *reterr);
/* Bytes charged to the cgroup now (pages, page cache and kernel memory). */
int cgroup_memory_usage_at(int dirfd, bool v2, uint64_t *ret);
/* The limit: *ret_limited false (and *ret 0) when there is none. */
int cgroup_memory_limit_at(int dirfd, bool v2, bool *ret_limited, uint64_t *ret);
/* How many processes the kernel's OOM killer killed in the cgroup (kernel
 * >= 4.13 for v1's oom_kill line). -ENOENT when the kernel does not say. */
int cgroup_memory_oom_kills_at(int dirfd, bool v2, uint64_t *ret);
/* All of the above at once. */
int cgroup_memory_read(
        const struct proc_identity *target, struct cgroup_memory *ret, struct mh_error *reterr);

/* The host's /proc/meminfo MemTotal and MemAvailable, in bytes. */
int host_memory_read(uint64_t *ret_total, uint64_t *ret_available);

/* Parsers, exported for tests: the value of "KEY VALUE" lines (memory.events,
 * memory.oom_control, memory.stat), and of "Key:   N kB" lines (meminfo, in
 * bytes). -ENOENT when key is not there, -EINVAL for a malformed value. */
int cgroup_keyed_value_parse(const char *text, const char *key, uint64_t *ret);
int meminfo_value_parse(const char *text, const char *key, uint64_t *ret);
/* A limit's text ("max", "268435456", v1's huge number) -> limited/bytes. */
int cgroup_memory_limit_parse(const char *text, bool *ret_limited, uint64_t *ret);
