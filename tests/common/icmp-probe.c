#include "icmp-probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "basic/inet-checksum.h"

#define ECHO_MAX  10000u
#define ECHO_DATA 32 /* payload bytes: a pattern the corruption flips */

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void send_echo(int fd, const struct sockaddr_in *to, uint16_t id, uint16_t seq) {
        uint8_t pkt[sizeof(struct icmphdr) + ECHO_DATA];
        struct icmphdr h = { .type = ICMP_ECHO, .un.echo = { .id = htons(id), .sequence = htons(seq) } };
        memcpy(pkt, &h, sizeof(h));
        memset(pkt + sizeof(h), 0x5a, ECHO_DATA);
        h.checksum = inet_checksum(pkt, sizeof(pkt));
        memcpy(pkt, &h, sizeof(h));
        (void)sendto(fd, pkt, sizeof(pkt), MSG_DONTWAIT, (const struct sockaddr *)to, sizeof(*to));
}

static void read_answer(int fd, uint16_t id, bool *seen, struct icmp_echo_result *r) {
        uint8_t buf[512];
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n < 20)
                return;
        size_t hl = (size_t)(buf[0] & 0x0f) * 4;
        if ((size_t)n < hl + sizeof(struct icmphdr))
                return;
        struct icmphdr h;
        memcpy(&h, buf + hl, sizeof(h));
        unsigned seq = ntohs(h.un.echo.sequence);
        if (h.type != ICMP_ECHOREPLY || ntohs(h.un.echo.id) != id || seq >= r->sent)
                return;
        if (inet_checksum(buf + hl, (size_t)n - hl) != 0)
                r->bad_checksum++;
        else if (!seen[seq]) {
                seen[seq] = true;
                r->intact++;
        }
}

int icmp_echo_probe(
        const char *addr, unsigned count, unsigned interval_us, int wait_ms, struct icmp_echo_result *ret) {
        struct sockaddr_in to = { .sin_family = AF_INET };
        struct icmp_echo_result r = { 0 };
        if (count == 0 || count > ECHO_MAX || inet_pton(AF_INET, addr, &to.sin_addr) != 1)
                return -EINVAL;
        int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
        if (fd < 0)
                return -errno;
        /* Room for every answer (root only): a prober descheduled on a loaded
         * machine must not drop answers at its own socket and count them lost. */
        int rcvbuf = 16 << 20;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
        bool *seen = calloc(count, sizeof(bool));
        if (!seen) {
                close(fd);
                return -ENOMEM;
        }
        uint16_t id = (uint16_t)(getpid() ^ (unsigned)now_ms());
        double start = now_ms(), end = start + (double)count * interval_us / 1e3 + wait_ms;
        for (double t = now_ms(); t < end; t = now_ms()) {
                double next = r.sent < count ? start + (double)r.sent * interval_us / 1e3 : end;
                if (t >= next && r.sent < count) {
                        send_echo(fd, &to, id, (uint16_t)r.sent++);
                        continue;
                }
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, (int)(next - t) + 1) > 0)
                        read_answer(fd, id, seen, &r);
        }
        free(seen);
        close(fd);
        *ret = r;
        return 0;
}
