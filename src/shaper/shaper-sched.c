#include "shaper/shaper-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_INITIAL 256u
#define WORD_BITS    64u

static void bit_set(uint64_t *bits, uint64_t seq) {
        uint64_t i = seq % SHAPER_SPAN;
        bits[i / WORD_BITS] |= 1ull << (i % WORD_BITS);
}

static void bit_clear(uint64_t *bits, uint64_t seq) {
        uint64_t i = seq % SHAPER_SPAN;
        bits[i / WORD_BITS] &= ~(1ull << (i % WORD_BITS));
}

static bool bit_test(const uint64_t *bits, uint64_t seq) {
        uint64_t i = seq % SHAPER_SPAN;
        return bits[i / WORD_BITS] & (1ull << (i % WORD_BITS));
}

int shaper_sched_init(struct shaper_sched *s, size_t limit, uint64_t limit_bytes) {
        *s = (struct shaper_sched){ 0 };
        s->open = calloc(SHAPER_SPAN / WORD_BITS, sizeof(uint64_t));
        if (!s->open)
                return -ENOMEM;
        shaper_sched_set_limits(s, limit, limit_bytes);
        return 0;
}

void shaper_sched_done(struct shaper_sched *s) {
        free(s->heap);
        free(s->open);
        *s = (struct shaper_sched){ 0 };
}

void shaper_sched_set_limits(struct shaper_sched *s, size_t limit, uint64_t limit_bytes) {
        s->limit = limit == 0 || limit > SHAPER_LIMIT_MAX ? SHAPER_LIMIT_MAX : limit;
        s->limit_bytes = limit_bytes == 0 ? SHAPER_LIMIT_BYTES_DEFAULT : limit_bytes;
}

/* (due, seq): seq breaks ties so equal due times leave in arrival order. */
static bool before(const struct shaper_held *a, const struct shaper_held *b) {
        return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void sift_up(struct shaper_held *h, size_t i) {
        struct shaper_held x = h[i];
        while (i > 0) {
                size_t parent = (i - 1) / 2;
                if (!before(&x, &h[parent]))
                        break;
                h[i] = h[parent];
                i = parent;
        }
        h[i] = x;
}

static void sift_down(struct shaper_held *h, size_t n, size_t i) {
        struct shaper_held x = h[i];
        for (;;) {
                size_t c = 2 * i + 1;
                if (c >= n)
                        break;
                if (c + 1 < n && before(&h[c + 1], &h[c]))
                        c++;
                if (!before(&h[c], &x))
                        break;
                h[i] = h[c];
                i = c;
        }
        h[i] = x;
}

int shaper_sched_push(struct shaper_sched *s, uint32_t id, uint32_t len, uint64_t due_ns) {
        if (s->n >= s->limit || s->bytes + len > s->limit_bytes || s->next_seq - s->oldest >= SHAPER_SPAN)
                return -ENOBUFS;
        if (s->n == s->cap) {
                size_t cap = s->cap ? MIN(2 * s->cap, (size_t)SHAPER_LIMIT_MAX) : HEAP_INITIAL;
                struct shaper_held *h = reallocarray(s->heap, cap, sizeof(*h));
                if (!h)
                        return -ENOMEM;
                s->heap = h;
                s->cap = cap;
        }
        uint64_t seq = s->next_seq++;
        bit_set(s->open, seq);
        s->heap[s->n] = (struct shaper_held){ .due_ns = due_ns, .seq = seq, .id = id, .len = len };
        sift_up(s->heap, s->n++);
        s->bytes += len;
        return 0;
}

bool shaper_sched_next_due(const struct shaper_sched *s, uint64_t *ret_due_ns) {
        if (s->n == 0)
                return false;
        *ret_due_ns = s->heap[0].due_ns;
        return true;
}

static struct shaper_held pop(struct shaper_sched *s) {
        struct shaper_held top = s->heap[0];
        s->heap[0] = s->heap[--s->n];
        if (s->n > 0)
                sift_down(s->heap, s->n, 0);
        s->bytes -= top.len;
        bit_clear(s->open, top.seq);
        return top;
}

void shaper_sched_take(
        struct shaper_sched *s, uint64_t now_ns, bool all, struct shaper_held *out, size_t max,
        struct shaper_release *ret) {
        size_t n = 0;

        while (n < max && s->n > 0 && (all || s->heap[0].due_ns <= now_ns))
                out[n++] = pop(s);
        /* Every seq before oldest is closed, and its verdict was sent in an
         * earlier round or comes in this one. */
        while (s->oldest < s->next_seq && !bit_test(s->open, s->oldest))
                s->oldest++;

        /* Partition: packets older than every held one first (in place,
         * keeping the rest in due order for lateness bookkeeping only). */
        size_t batch_n = 0;
        uint64_t batch_seq = 0;
        uint32_t batch_id = 0;
        for (size_t i = 0; i < n; i++) {
                if (out[i].seq >= s->oldest)
                        continue;
                if (batch_n == 0 || out[i].seq > batch_seq) {
                        batch_seq = out[i].seq;
                        batch_id = out[i].id;
                }
                struct shaper_held x = out[i];
                memmove(&out[batch_n + 1], &out[batch_n], (i - batch_n) * sizeof(*out));
                out[batch_n++] = x;
        }
        *ret = (struct shaper_release){ .n = n, .batch_n = batch_n, .batch_id = batch_id };
}
