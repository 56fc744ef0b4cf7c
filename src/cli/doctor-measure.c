#include "doctor-measure.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "basic/macro.h"

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint16_t checksum(const void *data, size_t len) {
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

struct echo_packet {
        struct icmphdr h;
        double sent_ms;
};

static void send_echo(int fd, const struct sockaddr_in *to, uint16_t id, uint16_t seq) {
        struct echo_packet p = { .h = { .type = ICMP_ECHO,
                                        .un.echo = { .id = htons(id), .sequence = htons(seq) } },
                                 .sent_ms = now_ms() };
        p.h.checksum = checksum(&p, sizeof(p));
        (void)sendto(fd, &p, sizeof(p), MSG_DONTWAIT, (const struct sockaddr *)to, sizeof(*to));
}

/* One reply of ours read from fd: its round trip into rtt[seq] once. */
static void read_reply(int fd, uint16_t id, double *rtt, unsigned count, unsigned *received) {
        uint8_t buf[512];
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n < (ssize_t)sizeof(struct iphdr))
                return;
        size_t hl = (size_t)(buf[0] & 0x0f) * 4;
        if ((size_t)n < hl + sizeof(struct echo_packet))
                return;
        struct echo_packet p;
        memcpy(&p, buf + hl, sizeof(p));
        unsigned seq = ntohs(p.h.un.echo.sequence);
        if (p.h.type != ICMP_ECHOREPLY || ntohs(p.h.un.echo.id) != id || seq >= count || rtt[seq] >= 0)
                return;
        rtt[seq] = now_ms() - p.sent_ms;
        (*received)++;
}

static int compare_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

int doctor_echo_probe(
        const char *addr, unsigned count, unsigned interval_us, int wait_ms, struct doctor_echo *ret) {
        struct sockaddr_in to = { .sin_family = AF_INET };
        double rtt[DOCTOR_ECHO_MAX];
        unsigned received = 0, sent = 0;
        if (count == 0 || count > DOCTOR_ECHO_MAX || inet_pton(AF_INET, addr, &to.sin_addr) != 1)
                return -EINVAL;
        _cleanup_close_ int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
        if (fd < 0)
                return -errno;
        uint16_t id = (uint16_t)(getpid() ^ (unsigned)now_ms());
        for (unsigned i = 0; i < count; i++)
                rtt[i] = -1;
        double start = now_ms(), end = start + (double)count * interval_us / 1e3 + wait_ms;
        for (double t = now_ms(); t < end; t = now_ms()) {
                double next = sent < count ? start + (double)sent * interval_us / 1e3 : end;
                if (t >= next && sent < count) {
                        send_echo(fd, &to, id, (uint16_t)sent++);
                        continue;
                }
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int timeout = (int)(next - t) + 1;
                if (poll(&pfd, 1, timeout) > 0)
                        read_reply(fd, id, rtt, count, &received);
        }
        size_t n = 0;
        for (unsigned i = 0; i < count; i++)
                if (rtt[i] >= 0)
                        rtt[n++] = rtt[i];
        qsort(rtt, n, sizeof(double), compare_double);
        *ret = (struct doctor_echo){ .sent = sent, .received = received, .median_ms = n ? rtt[n / 2] : 0 };
        return 0;
}

bool doctor_http_answers(const char *addr, int port, int timeout_ms) {
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        static const char req[] = "GET / HTTP/1.0\r\n\r\n";
        char buf[16];
        if (inet_pton(AF_INET, addr, &to.sin_addr) != 1)
                return false;
        _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return false;
        double deadline = now_ms() + timeout_ms;
        if (connect(fd, (const struct sockaddr *)&to, sizeof(to)) < 0 && errno != EINPROGRESS)
                return false;
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        if (poll(&pfd, 1, timeout_ms) <= 0 || send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) < 0)
                return false;
        pfd.events = POLLIN;
        int left = (int)(deadline - now_ms());
        if (left <= 0 || poll(&pfd, 1, left) <= 0)
                return false;
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        return n >= 5 && memcmp(buf, "HTTP/", 5) == 0;
}
