#pragma once

/* ICMP echoes to an IPv4 address, the answers checked as the kernel would
 * not for a raw socket: a raw ICMP socket gets every answer, its checksum
 * broken or not, so a corrupted answer is seen, not lost. Needs
 * CAP_NET_RAW; bounded in time like every probe of tests/common. */

struct icmp_echo_result {
        unsigned sent;
        unsigned intact;       /* echoes answered, once each, checksum holding */
        unsigned bad_checksum; /* answers of ours whose ICMP checksum does not hold */
};

/* count echoes to addr, one every interval_us, answers collected until
 * wait_ms after the last. -errno when the socket cannot be had. */
int icmp_echo_probe(
        const char *addr, unsigned count, unsigned interval_us, int wait_ms, struct icmp_echo_result *ret);
