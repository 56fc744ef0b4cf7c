#pragma once

/* How much memory mem.exhaust and mem.leak take, decided with no I/O from
 * what the payload read (so a unit test walks every case): percent is a
 * share of the cgroup's own limit, or of the host's MemTotal when the
 * cgroup has none; whatever is asked, the payload stays below the cap (the
 * limit minus a margin minus what the application already uses, and for an
 * unlimited cgroup the host's MemAvailable minus the margin too), so the
 * application is not OOM-killed because of it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEM_MARGIN_MIN     (UINT64_C(8) << 20) /* 8 MiB */
#define MEM_MARGIN_PERCENT 2                   /* of the limit, when that is more */

struct mem_facts {
        bool limited;   /* the cgroup has a limit of its own */
        uint64_t limit; /* bytes, when limited */
        uint64_t usage; /* the cgroup's usage before the payload took anything */
        uint64_t host_total, host_available;
};

struct mem_plan {
        uint64_t base;   /* what percent is a share of: the cgroup's limit, or the host's MemTotal */
        bool host_base;  /* base is the host's MemTotal (the cgroup has no limit) */
        uint64_t margin; /* max(8 MiB, 2% of base) */
        uint64_t want;   /* amount, or percent of base */
        uint64_t cap;    /* base - margin - usage (and host_available - margin): never above */
        uint64_t target; /* min(want, cap), whole pages; 0: no room at all */
        bool capped;     /* want was over the cap */
};

/* amount > 0 overrides percent. */
void mem_plan_compute(const struct mem_facts *f, uint64_t amount, double percent, struct mem_plan *ret);
/* One sentence for the ready line: the target (or, for a leak, that it
 * grows to the cap), what it is a share of, the cap and why. */
void mem_plan_describe(
        const struct mem_facts *f, const struct mem_plan *p, bool leak, char *buf, size_t size);
