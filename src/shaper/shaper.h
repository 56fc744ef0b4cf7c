#pragma once

/* The NFQUEUE userspace shaper: delay, jitter, reorder and a rate limit for
 * kernels without sch_netem (shared/DESIGN.md). Packets reach a queue through
 * an NFQUEUE rule with bypass that someone else installs; the shaper holds
 * their ids and accepts each one when it is due. The kernel keeps the packets;
 * we only keep ids, due times and lengths.
 *
 * Dead-man's switch: the queue belongs to the netlink socket. When the socket
 * closes (shaper_stop(), or the process dies), the kernel destroys the queue
 * and the rule's bypass lets new traffic through at once. Packets held at
 * that moment are dropped by the kernel on a crash; shaper_stop() accepts them
 * all first, so a clean stop loses nothing.
 *
 * libnetfilter_queue (nfq_*) and libmnl (mnl_*) appear in src/shaper/ only. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/error.h"

#define SHAPER_DELAY_MAX_MS        60000u
#define SHAPER_LIMIT_MAX           65536u        /* held packets */
#define SHAPER_LIMIT_BYTES_DEFAULT (64ull << 20) /* held bytes (IP length) */
#define SHAPER_LIMIT_BYTES_MAX     (1024ull << 20)
#define SHAPER_RATE_MIN_BPS        8000ull         /* 1 kB/s */
#define SHAPER_RATE_MAX_BPS        100000000000ull /* 100 Gbit/s */
#define SHAPER_BURST_DEFAULT       10000u          /* the catalog's net.bandwidth burst (10k) */
#define SHAPER_BURST_MAX           (64u << 20)

/* How jitter spreads the delay. Uniform is netem's default (no distribution
 * table): delay_ms + U[-jitter_ms, +jitter_ms). Normal uses jitter_ms as the
 * standard deviation. Either is cut at 0. */
enum shaper_jitter_dist {
        SHAPER_JITTER_UNIFORM,
        SHAPER_JITTER_NORMAL,
        _SHAPER_JITTER_DIST_MAX,
};

const char *shaper_jitter_dist_to_string(enum shaper_jitter_dist d);
int shaper_jitter_dist_from_string(const char *s);

/* What happens to each packet, decided when the shaper reads it:
 *   1. rate_bps (0: off): a token bucket of burst_bytes (0: SHAPER_BURST_DEFAULT)
 *      gives the earliest time the packet may leave (a GCRA shaper);
 *   2. reorder_percent of the packets are "reordered": they leave then plus
 *      delay_ms ± jitter; the others are held reorder_delay_ms longer. With
 *      delay_ms 0 this is netem's `delay D reorder P%` for D = reorder_delay_ms:
 *      that share goes at once, the rest is held, so the share overtakes;
 *   3. without jitter and reorder, equal delays keep arrival order (FIFO).
 * A packet due at once is accepted at once. A change (shaper_update) applies to
 * packets read after it; held ones keep their due times.
 * limit_packets (0: SHAPER_LIMIT_MAX) and limit_bytes (0: SHAPER_LIMIT_BYTES_DEFAULT)
 * bound what is held: a packet beyond either is accepted at once and counted
 * in overflow. The kernel's own queue is bounded too (see shaper_queue_open()). */
struct shaper_config {
        uint32_t delay_ms;
        uint32_t jitter_ms;
        enum shaper_jitter_dist jitter_dist;
        uint32_t reorder_percent;
        uint32_t reorder_delay_ms;
        uint64_t rate_bps;
        uint32_t burst_bytes;
        uint32_t limit_packets;
        uint64_t limit_bytes;
};

/* -EINVAL with the reason for a value out of range or a combination that
 * means nothing (reorder_percent without reorder_delay_ms). */
int shaper_config_validate(const struct shaper_config *c, struct mh_error *reterr);

/* Copy range asked of the kernel: enough for the IPv6 + TCP headers. The
 * shaper never changes a payload (verdicts carry none), so a full copy would
 * only cost socket buffer; the headers give each packet's length (with
 * NFQA_CAP_LEN) for rate_bps and limit_bytes, which meta-only mode does not. */
#define SHAPER_COPY_RANGE 128u
/* The kernel holds at most this many packets of the queue (held ones plus
 * those not read yet); beyond it, NFQA_CFG_F_FAIL_OPEN accepts them. */
#define SHAPER_QUEUE_MAXLEN (2u * SHAPER_LIMIT_MAX)

/* Opens a NETLINK_NETFILTER socket in the *current* network namespace and
 * binds NFQUEUE queue_num to it: copy SHAPER_COPY_RANGE bytes, fail-open (a
 * full queue or socket buffer accepts rather than drops), GSO packets whole
 * (no segmentation, no checksum work: we do not touch payloads), queue maxlen
 * SHAPER_QUEUE_MAXLEN. The agent calls it inside the target's netns (on an
 * ns_net_run() thread) and hands the fd to shaper_start(). *ret_fd is
 * O_CLOEXEC. The socket binds to a port id of its own (sys/netlink-port.h).
 *
 * Packets wait in the socket buffer until shaper_start(); close the fd to let
 * them go (the kernel drops those, and bypasses new ones). The few that can
 * arrive between the bind and the kernel's ACK of it are accepted at once.
 * -EBUSY when another socket holds the queue (the kernel says EPERM for that
 * too; holding CAP_NET_ADMIN tells the two apart); -EPERM without
 * CAP_NET_ADMIN; -EOPNOTSUPP when the kernel lacks fail-open (Linux < 3.6). */
int shaper_queue_open(uint16_t queue_num, int *ret_fd, struct mh_error *reterr);

struct shaper;

struct shaper_stats {
        uint64_t seen;          /* packet messages read from the queue */
        uint64_t held;          /* held right now */
        uint64_t held_bytes;    /* their IP length */
        uint64_t held_max;      /* most held at once */
        uint64_t released;      /* accepted when due */
        uint64_t immediate;     /* accepted at once: due at once (reorder share, no delay) */
        uint64_t overflow;      /* accepted at once because a bound was reached */
        uint64_t flushed;       /* accepted by shaper_stop(): the held ones and those read while stopping */
        uint64_t rx_overruns;   /* times the socket buffer overflowed (the kernel accepted those) */
        uint64_t errors;        /* error replies to our verdicts, messages we could not parse */
        uint64_t verdict_msgs;  /* verdict messages sent (a batch counts once) */
        uint64_t verdict_sends; /* send() calls carrying them */
        uint64_t late_samples;  /* released packets measured below */
        double late_p50_us;     /* when the verdict was sent minus when it was due */
        double late_p99_us;
        double late_max_us;
};

/* Starts a shaper thread over fd, a socket from shaper_queue_open() bound to
 * queue_num; the shaper owns fd from now on (also on failure: it is closed).
 * The thread blocks all signals. -EINVAL (config), -ENOMEM, or pthread_create's
 * error. */
int shaper_start(
        int fd, uint16_t queue_num, const struct shaper_config *config, struct shaper **ret,
        struct mh_error *reterr);

/* Changes the config on the fly (validated first; packets read from now on). */
int shaper_update(struct shaper *s, const struct shaper_config *config, struct mh_error *reterr);

/* A snapshot; callable from any thread, before and after shaper_stop(). */
void shaper_stats(struct shaper *s, struct shaper_stats *ret);

/* Releases every held packet at once (accepts them), after telling the kernel
 * to stop queueing (maxlen 0: with fail-open, new packets pass) and reading
 * what was already queued, so nothing is dropped; then ends the thread and
 * closes the socket. Idempotent and callable from any thread (a second caller
 * waits for the first). Returns 0, or the thread's first fatal error (a
 * negative errno: the socket failed; the kernel then dropped what was held). */
int shaper_stop(struct shaper *s);

/* Stops (if running) and frees; NULL is fine. Returns NULL. */
struct shaper *shaper_free(struct shaper *s);
DEFINE_FREEP(struct shaper, shaper_free)
