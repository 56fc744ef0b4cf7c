#pragma once

/* Measuring network faults from the outside: UDP datagrams with a sequence
 * number and a send time, a reflector that echoes them, a sink that counts
 * them (loss, duplicates, reordering), TCP connect outcomes and throughput.
 * Every call is bounded in time. Addresses are IPv4 or IPv6 literals. Each
 * runs in the caller's network namespace (fork into one with netns_fork()). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETPROBE_MAX_SEQ 100000u

/* The servers below (udp_reflector, udp_sink, tcp_server, tcp_receive,
 * tcp_sink_rate, tcp_source) write "ready\n" to fd once their socket is
 * bound (and listening), so that a client started after that line (see
 * netns_fork_server()) is never refused and loses no datagram to a port
 * nobody holds yet. Once: the first server after the call announces, and fd
 * is forgotten. For a forked child that runs one server; -1, the default,
 * announces nothing. */
void netprobe_ready_fd(int fd);

/* Every receiving socket here asks for a 16 MB buffer (root only): a
 * receiver descheduled on a loaded machine, or slowed by a sanitizer, must
 * not drop datagrams at its own socket and blame the network. */

/* Echoes datagrams back to their sender until idle_ms pass without one or
 * max_ms in all. Returns how many it echoed, or -errno. */
int udp_reflector(int port, int idle_ms, int max_ms);

struct udp_rtt_result {
        unsigned sent, received, duplicates, reordered;
        double *rtt_ms; /* received ones in arrival order; malloc()ed, n = received */
};

/* Sends count datagrams to addr:port every interval_us and collects the echoes
 * until wait_ms after the last send. */
int udp_rtt_probe(
        const char *addr, int port, unsigned count, unsigned interval_us, int wait_ms,
        struct udp_rtt_result *ret);
void udp_rtt_result_done(struct udp_rtt_result *r);

/* Percentile p (0..100) of n values (sorted in place). */
double percentile(double *v, size_t n, double p);

struct udp_sink_result {
        unsigned received, unique, duplicates, reordered;
        double span_ms; /* from the first datagram received to the last */
};

/* Counts datagrams on port until idle_ms without one (after the first) or
 * max_ms in all. */
int udp_sink(int port, int idle_ms, int max_ms, struct udp_sink_result *ret);
/* Sends count datagrams of size bytes (>= 16) at pps per second. */
int udp_blast(const char *addr, int port, unsigned count, unsigned pps, size_t size);

/* Accepts one connection on port and reads it until the peer closes or
 * max_ms (from the call) pass. bps is the rate data arrived at, timed at the
 * receiver from the first read to the last (the first read's bytes, there
 * before the clock started, left out): what passed a shaper, whenever the
 * sender started, and not what its socket buffers took. 0, or -errno
 * (-ETIMEDOUT when nobody connected). */
struct tcp_receive_result {
        long bytes; /* all of them */
        double ms, bps;
};
int tcp_receive(int port, int max_ms, struct tcp_receive_result *ret);

/* Connects to addr:port within timeout_ms and, once connected, sends a byte
 * and waits up to timeout_ms for the peer: 0 when the connection works (data
 * or an orderly close came back, or nothing within the time), -ECONNREFUSED,
 * -ECONNRESET, -ETIMEDOUT (connect did not finish), or another -errno. */
int tcp_connect_outcome(const char *addr, int port, int timeout_ms);

/* Accepts connections on port and reads (and echoes, when echo) what they
 * send until max_ms. Returns the bytes read, or -errno. */
long tcp_server(int port, bool echo, int max_ms);
/* Sends as fast as it can to addr:port for ms milliseconds; returns the
 * goodput in bits per second measured from the first to the last byte the
 * kernel accepted, or a negative errno. Use the receiver's rate for rates
 * below the socket buffers: tcp_receive(). The connection is made within
 * NETPROBE_CONNECT_MS (as tcp_fetch_rate()'s), or -ETIMEDOUT. */
#define NETPROBE_CONNECT_MS 10000
double tcp_send_for(const char *addr, int port, int ms);

/* Steady TCP rates (bits per second), counted by the receiver from its first
 * read at least 0.5 s after the first byte to its last read before 2.5 s
 * (timed, not assumed to be 2 s): a sink that accepts one connection on port,
 * or a fetch from a tcp_source() at addr:port. Negative errno on failure. */
double tcp_sink_rate(int port, int max_ms);
double tcp_fetch_rate(const char *addr, int port, int max_ms);
/* Accepts connections on port one at a time and sends zeros to each until it
 * closes (10 s at most), until max_ms; returns how many it served. */
int tcp_source(int port, int max_ms);

/* The 99 % interval of a binomial count of n draws with probability p
 * (normal approximation: fine for n p (1 - p) >= 10). */
void binomial_interval_99(unsigned n, double p, double *ret_lo, double *ret_hi);
