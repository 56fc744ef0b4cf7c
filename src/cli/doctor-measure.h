#pragma once

/* What `mayhem doctor --fidelity` measures from the host, as the
 * integration tests do (tests/common/netprobe.c): echoes with a sequence
 * number and a send time, here ICMP so the throwaway container needs no
 * reflector of its own (needs root: a raw socket), and an HTTP answer seen
 * or not. Every call is bounded in time. */

#include <stdbool.h>
#include <stddef.h>

#define DOCTOR_ECHO_MAX 4000

struct doctor_echo {
        unsigned sent, received;
        double median_ms; /* of the received ones; 0 when none */
};

/* count ICMP echo requests to the IPv4 literal addr, one every interval_us,
 * then wait_ms for the last replies. -errno when the socket cannot be had. */
int doctor_echo_probe(
        const char *addr, unsigned count, unsigned interval_us, int wait_ms, struct doctor_echo *ret);

/* GET / on addr:port: true when a status line came back within timeout_ms. */
bool doctor_http_answers(const char *addr, int port, int timeout_ms);
