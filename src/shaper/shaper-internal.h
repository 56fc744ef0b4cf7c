#pragma once

/* The shaper's parts that need no socket, for shaper.c and the unit tests:
 * the schedule of held packets (shaper-sched.c), the decision of when a packet
 * is due (shaper-plan.c) and the lateness histogram (shaper-hist.c). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shaper/shaper.h"

/* ---- schedule ---------------------------------------------------------- */

/* Held packets are numbered in arrival order (seq). A seq is "open" while its
 * packet is held. Bit seq % SHAPER_SPAN of a bitmap says so; the span from
 * the oldest open seq to the newest may not exceed it (a packet that would
 * stretch it further counts as overflow, like one beyond the limit). */
#define SHAPER_SPAN (4u * SHAPER_LIMIT_MAX)

struct shaper_held {
        uint64_t due_ns;
        uint64_t seq;
        uint32_t id; /* the kernel's packet id */
        uint32_t len;
};

struct shaper_sched {
        struct shaper_held *heap; /* min-heap on (due_ns, seq) */
        size_t n, cap;
        size_t limit;
        uint64_t bytes, limit_bytes;
        uint64_t next_seq; /* given to the next held packet */
        uint64_t oldest;   /* smallest open seq; next_seq when none */
        uint64_t *open;    /* SHAPER_SPAN bits */
};

/* limit 0 or limit_bytes 0 pick the defaults of struct shaper_config. */
int shaper_sched_init(struct shaper_sched *s, size_t limit, uint64_t limit_bytes);
void shaper_sched_done(struct shaper_sched *s);
/* New bounds for packets pushed from now on (what is held stays). */
void shaper_sched_set_limits(struct shaper_sched *s, size_t limit, uint64_t limit_bytes);

/* Holds packet id until due_ns. -ENOBUFS beyond a bound, -ENOMEM when the
 * heap cannot grow: the caller accepts the packet at once. */
int shaper_sched_push(struct shaper_sched *s, uint32_t id, uint32_t len, uint64_t due_ns);
/* False when nothing is held. */
bool shaper_sched_next_due(const struct shaper_sched *s, uint64_t *ret_due_ns);

/* What to tell the kernel about a set of packets taken off the schedule:
 * the kernel's batch verdict accepts every queued packet with an id up to
 * batch_id, so it may cover exactly the taken packets older than every packet
 * still held (batch_n of them; ids grow with seq). The others (jitter and
 * reorder overtake) need one verdict each: out[batch_n..n) after the call. */
struct shaper_release {
        size_t n;
        size_t batch_n;
        uint32_t batch_id;
};

/* Takes up to max packets due at or before now_ns (all held ones when all is
 * set), in (due, seq) order, into out, closes their seqs and sorts out so
 * that the batch-covered packets come first. */
void shaper_sched_take(
        struct shaper_sched *s, uint64_t now_ns, bool all, struct shaper_held *out, size_t max,
        struct shaper_release *ret);

/* ---- plan: when is a packet due ----------------------------------------- */

struct shaper_plan {
        uint64_t rng;    /* splitmix64 state */
        uint64_t tat_ns; /* the token bucket's theoretical arrival time */
        uint64_t rate_bps;
};

void shaper_plan_init(struct shaper_plan *p, uint64_t seed);
/* Due time of a packet of len bytes read at now_ns under config c (validated).
 * A result <= now_ns means accept at once. *ret_reordered tells whether the
 * packet was picked for the reorder share. */
uint64_t shaper_plan_due(
        struct shaper_plan *p, const struct shaper_config *c, uint64_t now_ns, uint32_t len,
        bool *ret_reordered);
/* Uniform in [0, 1). */
double shaper_plan_uniform(struct shaper_plan *p);

/* ---- lateness histogram (µs) ------------------------------------------- */

/* Exact below 1024 µs, then 64 buckets per power of two (< 1.6 % error). */
#define SHAPER_HIST_LINEAR  1024u
#define SHAPER_HIST_SUB     64u
#define SHAPER_HIST_BUCKETS (SHAPER_HIST_LINEAR + 54u * SHAPER_HIST_SUB)

struct shaper_hist {
        uint64_t count[SHAPER_HIST_BUCKETS];
        uint64_t n;
        uint64_t max_us;
};

void shaper_hist_add(struct shaper_hist *h, uint64_t us);
/* The value at percentile p (0..100): a bucket's lower bound; 0 when empty. */
double shaper_hist_percentile(const struct shaper_hist *h, double p);

/* ---- netlink messages (shaper-netlink.c) ---------------------------------- */

/* Verdicts are gathered here and sent many to a send(); a verdict message is
 * 32 bytes, so one buffer carries up to 2048 of them. */
#define SHAPER_VBUF_SIZE 65536u

struct shaper_vbuf {
        char buf[SHAPER_VBUF_SIZE];
        size_t len;
        uint16_t queue_num;
        uint64_t msgs, sends; /* sent so far */
};

/* Adds an NF_ACCEPT verdict for id (batch: for every queued id up to it),
 * sending what is gathered first when the buffer is full. 0 or -errno. */
int shaper_vbuf_accept(struct shaper_vbuf *v, int fd, uint32_t id, bool batch);
/* Sends what is gathered (nothing to do when empty). 0 or -errno. */
int shaper_vbuf_flush(struct shaper_vbuf *v, int fd);

/* send() of one whole message (EINTR retried). 0 or -errno. */
int shaper_send_all(int fd, const void *buf, size_t len);
/* Asks the kernel, with an ACK carrying seq, to hold at most maxlen packets
 * of the queue (0 with fail-open: let every new packet pass). 0 or -errno. */
int shaper_queue_send_maxlen(int fd, uint16_t queue_num, uint32_t maxlen, uint32_t seq);

enum shaper_msg_kind {
        SHAPER_MSG_PACKET, /* id, len */
        SHAPER_MSG_ACK,    /* seq */
        SHAPER_MSG_ERROR,  /* seq, error (negative errno) */
        SHAPER_MSG_BAD,    /* a packet message we could not parse */
        SHAPER_MSG_OTHER,
};

struct shaper_msg {
        enum shaper_msg_kind kind;
        uint32_t id, len, seq;
        int error;
};

/* Calls cb for each netlink message in buf (what one recv() returned); stops
 * at and returns cb's first negative result, else 0. */
int shaper_msg_walk(
        const void *buf, size_t len, int (*cb)(const struct shaper_msg *m, void *data), void *data);
