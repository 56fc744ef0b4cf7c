#include "fault/mem-plan.h"

#include <stdio.h>

#define PAGE 4096u
#define MIB  (1024.0 * 1024.0)

static uint64_t minus(uint64_t a, uint64_t b) {
        return a > b ? a - b : 0;
}

void mem_plan_compute(const struct mem_facts *f, uint64_t amount, double percent, struct mem_plan *ret) {
        struct mem_plan p = { .host_base = !f->limited };
        p.base = f->limited ? f->limit : f->host_total;
        p.margin = p.base / 100 * MEM_MARGIN_PERCENT;
        if (p.margin < MEM_MARGIN_MIN)
                p.margin = MEM_MARGIN_MIN;
        p.want = amount > 0 ? amount : (uint64_t)((double)p.base * percent / 100.0);
        p.cap = minus(minus(p.base, p.margin), f->usage);
        if (!f->limited && minus(f->host_available, p.margin) < p.cap)
                p.cap = minus(f->host_available, p.margin);
        p.capped = p.want > p.cap;
        p.target = (p.capped ? p.cap : p.want) / PAGE * PAGE;
        *ret = p;
}

void mem_plan_describe(
        const struct mem_facts *f, const struct mem_plan *p, bool leak, char *buf, size_t size) {
        char share[96], target[64];
        if (p->host_base)
                snprintf(
                        share, sizeof(share), "the host's MemTotal %.1f MiB (the cgroup has no limit)",
                        (double)p->base / MIB);
        else
                snprintf(share, sizeof(share), "the cgroup's limit %.1f MiB", (double)p->base / MIB);
        if (leak)
                snprintf(target, sizeof(target), "up to the cap");
        else
                snprintf(
                        target, sizeof(target), "target %.1f MiB%s", (double)p->target / MIB,
                        p->capped ? " (capped: asked for more)" : "");
        snprintf(
                buf, size, "%s; base %s; cap %.1f MiB = base - margin %.1f MiB - the app's %.1f MiB%s",
                target, share, (double)p->cap / MIB, (double)p->margin / MIB, (double)f->usage / MIB,
                p->host_base ? ", and below the host's MemAvailable - margin" : "");
}
