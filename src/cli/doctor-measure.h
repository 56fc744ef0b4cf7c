#pragma once

/* What `mayhem doctor --fidelity` measures from the host, as the
 * integration tests do (tests/common/netprobe.c): echoes with a sequence
 * number and a send time, here ICMP so the throwaway container needs no
 * reflector of its own (needs root: a raw socket), TCP connects, and an
 * HTTP answer seen or not. Every call is bounded in time. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DOCTOR_ECHO_MAX     4000
#define DOCTOR_ECHO_HEADERS 28 /* an echo's IP (no options) and ICMP headers, in bytes */
#define DOCTOR_ECHO_MAX_LEN (1500 - DOCTOR_ECHO_HEADERS) /* payload bytes: a 1500-byte IP packet */

struct doctor_echo_opts {
        unsigned count, interval_us;
        int wait_ms;         /* for the last replies, after the last echo */
        unsigned len;        /* payload bytes of each echo; 0: the smallest */
        double fast_ms;      /* replies faster than this are counted in fast */
        double window_ms[2]; /* replies arriving in [from, to) ms after the first echo go in window_bytes */
};

struct doctor_echo {
        unsigned sent, received; /* received: echoes answered at least once, checksum intact */
        unsigned duplicates;     /* answers beyond the first of an echo */
        unsigned corrupted;      /* answers whose ICMP checksum does not hold */
        unsigned fast;           /* received with a round trip under fast_ms */
        double median_ms;        /* of the received ones; 0 when none */
        uint64_t window_bytes;   /* Ethernet frame bytes (IP length + 14) of the replies in the window */
};

/* ICMP echo requests to the IPv4 literal addr as o says. -errno when the
 * socket cannot be had, -EINVAL for a bad address or count. */
int doctor_echo_probe(const char *addr, const struct doctor_echo_opts *o, struct doctor_echo *ret);

enum doctor_reply {
        DOCTOR_REPLY_OTHER,     /* not an answer to one of our echoes */
        DOCTOR_REPLY_OURS,      /* an answer to echo seq, intact */
        DOCTOR_REPLY_CORRUPTED, /* an answer of ours whose ICMP checksum does not hold */
};

struct doctor_reply_info {
        unsigned seq;
        double sent_ms; /* the send time the echo carried */
        size_t ip_len;
};

/* One datagram of a raw ICMP socket (its IP header first, n bytes): an
 * echo reply with our id and a sequence number below sent. *ret is set
 * for DOCTOR_REPLY_OURS only. */
enum doctor_reply doctor_echo_reply_parse(
        const uint8_t *buf, size_t n, uint16_t id, unsigned sent, struct doctor_reply_info *ret);

/* A TCP connect to addr:port and GET / on it, within timeout_ms: 0 when
 * an HTTP status line came back, -ECONNREFUSED when a reset answered the
 * SYN, -ECONNRESET when one came once connected, -ETIMEDOUT, -EPIPE when
 * the peer closed without a byte, -EPROTO for an answer that is not HTTP,
 * other -errno. */
int doctor_tcp_outcome(const char *addr, int port, int timeout_ms);

/* count TCP connects to addr:port held open without a byte sent, as
 * nonblocking sockets into fds (unused slots -1); the caller closes them
 * with doctor_close_all. Returns how many were started. */
size_t doctor_open_idle(const char *addr, int port, int *fds, size_t count);
void doctor_close_all(int *fds, size_t count);

/* doctor_tcp_outcome() is 0. */
bool doctor_http_answers(const char *addr, int port, int timeout_ms);
