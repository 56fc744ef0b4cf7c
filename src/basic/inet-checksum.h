#pragma once

/* The Internet checksum (RFC 1071) of len bytes, in network byte order:
 * what goes into an ICMP header, and 0 over a packet whose checksum holds. */

#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>

static inline uint16_t inet_checksum(const void *data, size_t len) {
        const uint8_t *p = data;
        uint32_t sum = 0;
        for (size_t i = 0; i + 1 < len; i += 2)
                sum += (uint32_t)(p[i] << 8 | p[i + 1]);
        if (len & 1)
                sum += (uint32_t)(p[len - 1] << 8);
        while (sum >> 16)
                sum = (sum & 0xffff) + (sum >> 16);
        return htons((uint16_t)~sum);
}
