#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "fault/live.h"
#include "fault/mem-plan.h"
#include "fault/payload.h"
#include "sys/cgroup-memory.h"

/* mem.exhaust and mem.leak: one body, two schedules. The payload (already in
 * the target's cgroups, so every page it touches is charged to the target's
 * memory cgroup) maps anonymous memory and writes random bytes over every
 * page (xorshift64 from a getrandom seed: neither the zero page, KSM nor
 * zswap can fold it), up to the target of mem-plan.h. Neither trusts its
 * arithmetic: mem.exhaust writes in steps measured on the cgroup's usage
 * until the cgroup grew by the target, and mem.leak grows what it holds
 * (its resident memory) by rate_mb MiB each second up to the cap, then
 * holds; so the payload's own runtime, whatever the build, is inside the
 * figure and never pushes the cgroup past its cap. Both give pages back when the application's own
 * growth brings the cgroup within half the margin of its limit. Every line
 * the payload sends ends with "[base=B target=T oom=K leak=R holding=H]":
 * the agent's effect checks read the figures there and measure the rest. */

#define PAGE           4096u
#define MIB            (1024.0 * 1024.0)
#define SETTLE_TOL     (UINT64_C(256) << 10) /* the memcg's per-CPU charge batches blur usage by about this */
#define SETTLE_MAX     8
#define TICK_MS        50
#define CHUNK          (UINT64_C(64) << 20)
#define READY_BY_MS    10000 /* PAYLOAD_READY_MS is 15 s */
#define GUARD_TICKS    5
#define EXHAUST_TOL    2.0  /* percent of the target */
#define LEAK_TOL       10.0 /* percent of the rate, over one LEAK_WINDOW_MS */
#define LEAK_WINDOW_MS 1000

struct hold {
        uint8_t *mem;
        size_t reserved, filled;
        uint64_t rng;
        int fd; /* the target's memory cgroup */
        bool v2;
        struct mem_facts facts;
        struct mem_plan plan;
        uint64_t oom0;
        int64_t leak;       /* bytes per second; 0 for mem.exhaust */
        uint64_t resident0; /* resident_peak() before the first page was written */
        bool holding;
};

static void fill_random(uint8_t *p, size_t len, uint64_t *state) {
        uint64_t x = *state;
        for (size_t i = 0; i + 8 <= len; i += 8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                memcpy(p + i, &x, 8);
        }
        *state = x;
}

static void grow(struct hold *h, uint64_t bytes) {
        size_t n = (size_t)(bytes + PAGE - 1) / PAGE * PAGE;
        if (n > h->reserved - h->filled)
                n = h->reserved - h->filled;
        fill_random(h->mem + h->filled, n, &h->rng);
        h->filled += n;
}

/* The pages are the kernel's again at once (MADV_DONTNEED on private anonymous memory). */
static void shrink(struct hold *h, uint64_t bytes) {
        size_t n = (size_t)(bytes + PAGE - 1) / PAGE * PAGE;
        if (n > h->filled)
                n = h->filled;
        madvise(h->mem + h->filled - n, n, MADV_DONTNEED);
        h->filled -= n;
}

static uint64_t usage_now(const struct hold *h) {
        uint64_t u = 0;
        (void)cgroup_memory_usage_at(h->fd, h->v2, &u);
        return u;
}

static uint64_t grown(const struct hold *h) {
        uint64_t u = usage_now(h);
        return u > h->facts.usage ? u - h->facts.usage : 0;
}

static int facts_read(const struct payload_ctx *c, struct hold *h, struct mh_error *reterr) {
        int r = cgroup_memory_open(&c->fx->target.main, &h->fd, &h->v2, reterr);
        if (r < 0)
                return r;
        if ((r = cgroup_memory_limit_at(h->fd, h->v2, &h->facts.limited, &h->facts.limit)) < 0 ||
            (r = cgroup_memory_usage_at(h->fd, h->v2, &h->facts.usage)) < 0 ||
            (r = host_memory_read(&h->facts.host_total, &h->facts.host_available)) < 0)
                return mh_error_fail(
                        reterr, r, "payload", "cannot read the memory cgroup: %s", strerror(-r));
        if (cgroup_memory_oom_kills_at(h->fd, h->v2, &h->oom0) < 0)
                h->oom0 = 0;
        return 0;
}

static int reserve(struct payload_ctx *c, struct hold *h, struct mh_error *reterr) {
        char why[PAYLOAD_LINE_MAX];
        uint64_t amount = 0;
        const struct param_value *a = fault_param_opt(c->fx, "amount");
        if (a)
                amount = a->u;
        mem_plan_compute(&h->facts, amount, h->leak ? 100.0 : fault_param(c->fx, "percent")->f, &h->plan);
        if (h->plan.target == 0) {
                mem_plan_describe(&h->facts, &h->plan, h->leak != 0, why, sizeof(why));
                return mh_error_fail(
                        reterr, -ENOSPC, "payload", "no room for memory below the cap: %s", why);
        }
        h->reserved = (size_t)h->plan.cap / PAGE * PAGE;
        h->mem =
                mmap(NULL, h->reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
        if (h->mem == MAP_FAILED) {
                h->mem = NULL;
                return mh_error_fail(
                        reterr, negative_errno(), "payload", "mmap %zu bytes: %s", h->reserved,
                        strerror(errno));
        }
        /* 4 KiB pages, also where THP is "always": the target is met page by page. */
        madvise(h->mem, h->reserved, MADV_NOHUGEPAGE);
        if (getrandom(&h->rng, sizeof(h->rng), 0) != sizeof(h->rng) || h->rng == 0)
                h->rng = (uint64_t)getpid() * 0x9e3779b97f4a7c15u | 1;
        return 0;
}

/* The cgroup grew by the target, within SETTLE_TOL: our own page tables and
 * stack are charged there too, so the payload counts what the kernel counts. */
static void settle(struct hold *h) {
        for (int i = 0; i < SETTLE_MAX; i++) {
                uint64_t g = grown(h), t = h->plan.target;
                if (g + SETTLE_TOL < t && h->filled < h->reserved)
                        grow(h, t - g);
                else if (g > t + SETTLE_TOL && h->filled > 0)
                        shrink(h, g - t);
                else
                        return;
        }
}

/* The application grew: give back what brings the cgroup within half the
 * margin of its limit (an unlimited cgroup has only the host to fear). */
static bool give_back(struct hold *h) {
        uint64_t line = h->plan.base - h->plan.margin / 2, u = usage_now(h);
        if (!h->facts.limited || u <= line)
                return false;
        shrink(h, u - (h->plan.base - h->plan.margin));
        return true;
}

static void tokens(const struct hold *h, char *buf, size_t size) {
        snprintf(
                buf, size,
                "[base=%" PRIu64 " target=%" PRIu64 " oom=%" PRIu64 " leak=%" PRId64 " holding=%d]",
                h->facts.usage, h->leak ? h->plan.cap : h->plan.target, h->oom0, h->leak, h->holding);
}

static void say_ready(struct payload_ctx *c, const struct hold *h, bool filling) {
        char why[PAYLOAD_LINE_MAX / 2], tok[128];
        mem_plan_describe(&h->facts, &h->plan, h->leak != 0, why, sizeof(why));
        tokens(h, tok, sizeof(tok));
        if (h->leak)
                payload_ready(
                        c, "leaking %.0f MiB/s up to %.1f MiB: %s %s", (double)h->leak / MIB,
                        (double)h->plan.cap / MIB, why, tok);
        else
                payload_ready(
                        c, "%.1f MiB resident%s (cgroup +%.1f MiB): %s %s", (double)h->filled / MIB,
                        filling ? " so far, still filling" : "", (double)grown(h) / MIB, why, tok);
}

static void say_progress(struct payload_ctx *c, const struct hold *h, const char *what) {
        char tok[128];
        tokens(h, tok, sizeof(tok));
        payload_progress(
                c, "%s: %.1f MiB resident, cgroup +%.1f MiB %s", what, (double)h->filled / MIB,
                (double)grown(h) / MIB, tok);
}

/* The high-water mark of the payload's resident memory: for a body that only
 * grows, what it holds now, its runtime's own pages included. */
static uint64_t resident_peak(void) {
        struct rusage u;
        return getrusage(RUSAGE_SELF, &u) == 0 ? (uint64_t)u.ru_maxrss << 10 : 0;
}

/* mem.leak: rate bytes more every second, measured on what the payload holds
 * (not on what it wrote: a runtime's overhead would make the leak faster),
 * until the cap or the guard line. */
static void leak_tick(struct payload_ctx *c, struct hold *h, double started) {
        double want = (monotonic_ms() - started) / 1000.0 * (double)h->leak;
        uint64_t peak = resident_peak(), have = peak > h->resident0 ? peak - h->resident0 : 0;
        if (want > (double)have)
                grow(h, (uint64_t)want - have);
        if (h->filled >= h->reserved || grown(h) >= h->plan.cap || give_back(h)) {
                h->holding = true;
                say_progress(c, h, "holding at the cap");
        }
}

/* Writes the target in chunks, measuring the cgroup after each: what the
 * payload's own runtime adds as it writes (page tables, a sanitizer's shadow
 * of every page) counts toward the target, so a fill near the cap never
 * takes the cgroup over it. Each step writes at most 7/8 of what is left,
 * which no runtime's overhead turns into more than what is left. A kernel
 * slow to hand out pages (a VM's first touch of its memory runs at a few
 * hundred MiB/s) gets the ready line early, "still filling", before the
 * agent's start call times out; the effect check then sees the shortfall
 * until it is filled. False when told to stop meanwhile. */
static bool fill(struct payload_ctx *c, struct hold *h, double started) {
        uint64_t g;
        while ((g = grown(h)) + SETTLE_TOL < h->plan.target && h->filled < h->reserved) {
                uint64_t left = h->plan.target - g, step = left - left / 8;
                grow(h, step < CHUNK ? step : CHUNK);
                if (payload_stopped(c, 0))
                        return false;
                if (!c->ready_sent && monotonic_ms() - started > READY_BY_MS)
                        say_ready(c, h, true);
        }
        settle(h);
        if (c->ready_sent)
                say_progress(c, h, "filled");
        return true;
}

static int run(struct payload_ctx *c, struct hold *h) {
        double started = monotonic_ms();
        h->resident0 = resident_peak();
        if (h->leak)
                grow(h, (uint64_t)h->leak * TICK_MS / 1000);
        else if (!fill(c, h, started))
                return 0;
        say_ready(c, h, false);
        for (unsigned tick = 1; !payload_stopped(c, TICK_MS); tick++) {
                if (h->leak && !h->holding)
                        leak_tick(c, h, started);
                else if (tick % GUARD_TICKS == 0 && give_back(h))
                        say_progress(c, h, "gave pages back: the application grew");
                if (h->leak && !h->holding && tick % (1000 / TICK_MS) == 0)
                        say_progress(c, h, "leaking");
        }
        return 0;
}

static int body(struct payload_ctx *c, int64_t leak, struct mh_error *reterr) {
        struct hold h = { .fd = -EBADF, .leak = leak };
        int r = facts_read(c, &h, reterr);
        if (r >= 0)
                r = reserve(c, &h, reterr);
        if (r >= 0)
                r = run(c, &h);
        if (h.mem)
                munmap(h.mem, h.reserved);
        if (h.fd >= 0)
                close(h.fd);
        return r;
}

static int body_exhaust(struct payload_ctx *c, struct mh_error *reterr) {
        return body(c, 0, reterr);
}

static int body_leak(struct payload_ctx *c, struct mh_error *reterr) {
        return body(c, fault_param(c->fx, "rate_mb")->i << 20, reterr);
}

/* ---- in the agent: the effect, measured on the cgroup ----------------------- */

struct seen {
        uint64_t base, target, oom0;
        int64_t leak;
        int holding;
};

static void last_line(void *live, void *arg) {
        char *line = arg;
        if (!payload_last(live, line, PAYLOAD_LINE_MAX))
                line[0] = '\0';
}

/* The figures of the held payload's newest line; false when it does not run. */
static bool held(const struct fault_exec *fx, struct seen *ret) {
        char line[PAYLOAD_LINE_MAX] = "";
        if (!fault_live_with(fx->lives, fx->lease_id, last_line, line))
                return false;
        const char *t = strstr(line, "[base=");
        return t &&
               sscanf(t, "[base=%" SCNu64 " target=%" SCNu64 " oom=%" SCNu64 " leak=%" SCNd64 " holding=%d]",
                      &ret->base, &ret->target, &ret->oom0, &ret->leak, &ret->holding) == 5;
}

static int measure(const struct fault_exec *fx, struct cgroup_memory *m, char *detail, size_t size) {
        struct mh_error e = { 0 };
        int r = cgroup_memory_read(&fx->target.main, m, &e);
        if (r < 0)
                snprintf(detail, size, "%s", e.msg);
        return r;
}

static void oom_note(const struct cgroup_memory *m, const struct seen *s, char *buf, size_t size) {
        if (m->oom_kills > s->oom0)
                snprintf(
                        buf, size, "; the kernel OOM-killed %" PRIu64 " process(es) in the cgroup since",
                        m->oom_kills - s->oom0);
        else
                snprintf(buf, size, "; no OOM kill in the cgroup");
}

/* The cgroup's usage grew by the target (within EXHAUST_TOL percent). */
static int look_resident(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct seen s;
        struct cgroup_memory m;
        char oom[96];
        *ret = false;
        if (!held(fx, &s)) {
                snprintf(detail, size, "the payload is not running");
                return 0;
        }
        int r = measure(fx, &m, detail, size);
        if (r < 0)
                return r;
        double grew = (double)m.usage - (double)s.base,
               err = (grew - (double)s.target) / (double)s.target * 100;
        oom_note(&m, &s, oom, sizeof(oom));
        *ret = err <= EXHAUST_TOL && err >= -EXHAUST_TOL;
        snprintf(
                detail, size,
                "cgroup usage %.1f MiB = %.1f MiB before %+.1f MiB; target +%.1f MiB (%+.2f%%)%s",
                (double)m.usage / MIB, (double)s.base / MIB, grew / MIB, (double)s.target / MIB, err, oom);
        return 0;
}

static int holding_at_cap(
        const struct cgroup_memory *m, const struct seen *s, bool *ret, char *detail, size_t size) {
        char oom[96];
        double grew = (double)m->usage - (double)s->base;
        oom_note(m, s, oom, sizeof(oom));
        *ret = grew >= (double)s->target * (1 - EXHAUST_TOL / 100);
        snprintf(
                detail, size,
                "holding at the cap: cgroup usage %.1f MiB = %.1f MiB before %+.1f MiB; cap +%.1f MiB%s",
                (double)m->usage / MIB, (double)s->base / MIB, grew / MIB, (double)s->target / MIB, oom);
        return 0;
}

/* Growing at rate_mb MiB/s over LEAK_WINDOW_MS, or holding at the cap. */
static int look_growing(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct seen s;
        struct cgroup_memory a, b;
        char oom[96];
        *ret = false;
        if (!held(fx, &s)) {
                snprintf(detail, size, "the payload is not running");
                return 0;
        }
        int r = measure(fx, &a, detail, size);
        if (r < 0 || s.holding)
                return r < 0 ? r : holding_at_cap(&a, &s, ret, detail, size);
        double t0 = monotonic_ms();
        sleep_ms(LEAK_WINDOW_MS);
        if ((r = measure(fx, &b, detail, size)) < 0)
                return r;
        double dt = (monotonic_ms() - t0) / 1000.0;
        if (!held(fx, &s)) {
                snprintf(detail, size, "the payload stopped while its growth was measured");
                return 0;
        }
        if (s.holding) /* it reached the cap within the window */
                return holding_at_cap(&b, &s, ret, detail, size);
        double rate = ((double)b.usage - (double)a.usage) / dt,
               err = (rate - (double)s.leak) / (double)s.leak * 100;
        oom_note(&b, &s, oom, sizeof(oom));
        *ret = err <= LEAK_TOL && err >= -LEAK_TOL;
        snprintf(
                detail, size,
                "cgroup usage grew %.2f MiB/s over %.0f ms (asked %.0f MiB/s, %+.1f%%), now %.1f MiB%s",
                rate / MIB, dt * 1000, (double)s.leak / MIB, err, (double)b.usage / MIB, oom);
        return 0;
}

const struct fault_mechanism fault_payload_mem = {
        .name = "payload.mem",
        .apply = fault_payload_apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "mem.resident", look_resident } },
        .payload = body_exhaust,
};

const struct fault_mechanism fault_payload_leak = {
        .name = "payload.leak",
        .apply = fault_payload_apply,
        PAYLOAD_UNDO_VERIFY,
        .effect = { { "mem.growing", look_growing } },
        .payload = body_leak,
};
