#include "doctor-measure.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
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

#include "basic/inet-checksum.h"
#include "basic/macro.h"

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* An echo's payload starts with its send time; the rest is padding. */
struct echo_packet {
        struct icmphdr h;
        double sent_ms;
        uint8_t pad[DOCTOR_ECHO_MAX_LEN];
};

struct echo_run {
        const struct doctor_echo_opts *o;
        uint16_t id;
        double start_ms;
        double *rtt; /* per sequence number, -1 until answered */
        struct doctor_echo *out;
};

static size_t payload_len(const struct doctor_echo_opts *o) {
        size_t min = sizeof(double), len = o->len < min ? min : o->len;
        return len > DOCTOR_ECHO_MAX_LEN ? DOCTOR_ECHO_MAX_LEN : len;
}

static void send_echo(int fd, const struct sockaddr_in *to, const struct echo_run *run, uint16_t seq) {
        struct echo_packet p = { .h = { .type = ICMP_ECHO,
                                        .un.echo = { .id = htons(run->id), .sequence = htons(seq) } },
                                 .sent_ms = now_ms() };
        size_t len = sizeof(p.h) + payload_len(run->o);
        p.h.checksum = inet_checksum(&p, len);
        (void)sendto(fd, &p, len, MSG_DONTWAIT, (const struct sockaddr *)to, sizeof(*to));
}

enum doctor_reply doctor_echo_reply_parse(
        const uint8_t *buf, size_t n, uint16_t id, unsigned sent, struct doctor_reply_info *ret) {
        if (n < sizeof(struct iphdr))
                return DOCTOR_REPLY_OTHER;
        size_t hl = (size_t)(buf[0] & 0x0f) * 4, ip_len = (size_t)(buf[2] << 8 | buf[3]);
        if (hl < sizeof(struct iphdr) || n < hl + sizeof(struct icmphdr) + sizeof(double) || ip_len != n)
                return DOCTOR_REPLY_OTHER;
        struct icmphdr h;
        double sent_ms;
        memcpy(&h, buf + hl, sizeof(h));
        memcpy(&sent_ms, buf + hl + sizeof(h), sizeof(sent_ms));
        unsigned seq = ntohs(h.un.echo.sequence);
        if (h.type != ICMP_ECHOREPLY || ntohs(h.un.echo.id) != id || seq >= sent)
                return DOCTOR_REPLY_OTHER;
        if (inet_checksum(buf + hl, n - hl) != 0)
                return DOCTOR_REPLY_CORRUPTED;
        if (!isfinite(sent_ms)) /* intact, yet not what we sent: someone else's */
                return DOCTOR_REPLY_OTHER;
        *ret = (struct doctor_reply_info){ .seq = seq, .sent_ms = sent_ms, .ip_len = ip_len };
        return DOCTOR_REPLY_OURS;
}

/* One datagram from fd: an answer of ours counted (first, duplicate, or
 * with a broken checksum), anything else left alone. */
static void read_reply(int fd, struct echo_run *run) {
        uint8_t buf[sizeof(struct iphdr) + 40 + sizeof(struct echo_packet)];
        struct doctor_reply_info r;
        ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        double t = now_ms();
        enum doctor_reply kind = n > 0 ? doctor_echo_reply_parse(buf, (size_t)n, run->id, run->out->sent, &r)
                                       : DOCTOR_REPLY_OTHER;
        if (kind == DOCTOR_REPLY_CORRUPTED)
                run->out->corrupted++;
        if (kind != DOCTOR_REPLY_OURS || t < r.sent_ms)
                return;
        double since = t - run->start_ms;
        if (since >= run->o->window_ms[0] && since < run->o->window_ms[1])
                run->out->window_bytes += r.ip_len + 14;
        if (run->rtt[r.seq] >= 0) {
                run->out->duplicates++;
                return;
        }
        run->rtt[r.seq] = t - r.sent_ms;
        run->out->received++;
        run->out->fast += run->rtt[r.seq] < run->o->fast_ms;
}

static int compare_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static double median_of(double *rtt, unsigned count) {
        size_t n = 0;
        for (unsigned i = 0; i < count; i++)
                if (rtt[i] >= 0)
                        rtt[n++] = rtt[i];
        qsort(rtt, n, sizeof(double), compare_double);
        return n ? rtt[n / 2] : 0;
}

int doctor_echo_probe(const char *addr, const struct doctor_echo_opts *o, struct doctor_echo *ret) {
        struct sockaddr_in to = { .sin_family = AF_INET };
        double rtt[DOCTOR_ECHO_MAX];
        struct doctor_echo out = { 0 };
        if (o->count == 0 || o->count > DOCTOR_ECHO_MAX || inet_pton(AF_INET, addr, &to.sin_addr) != 1)
                return -EINVAL;
        _cleanup_close_ int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
        if (fd < 0)
                return -errno;
        int rcvbuf = 4 << 20;
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
        struct echo_run run = {
                .o = o, .id = (uint16_t)(getpid() ^ (unsigned)now_ms()), .rtt = rtt, .out = &out
        };
        for (unsigned i = 0; i < o->count; i++)
                rtt[i] = -1;
        run.start_ms = now_ms();
        double end = run.start_ms + (double)o->count * o->interval_us / 1e3 + o->wait_ms;
        for (double t = now_ms(); t < end; t = now_ms()) {
                double next =
                        out.sent < o->count ? run.start_ms + (double)out.sent * o->interval_us / 1e3 : end;
                if (t >= next && out.sent < o->count) {
                        send_echo(fd, &to, &run, (uint16_t)out.sent++);
                        continue;
                }
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                if (poll(&pfd, 1, (int)(next - t) + 1) > 0)
                        read_reply(fd, &run);
        }
        out.median_ms = median_of(rtt, o->count);
        *ret = out;
        return 0;
}

int doctor_tcp_outcome(const char *addr, int port, int timeout_ms) {
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        static const char req[] = "GET / HTTP/1.0\r\n\r\n";
        double deadline = now_ms() + timeout_ms;
        int err = 0;
        socklen_t len = sizeof(err);
        char buf[16];
        if (inet_pton(AF_INET, addr, &to.sin_addr) != 1)
                return -EINVAL;
        _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *)&to, sizeof(to)) < 0 && errno != EINPROGRESS)
                return -errno;
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        if (poll(&pfd, 1, timeout_ms) <= 0)
                return -ETIMEDOUT;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
                return err ? -err : -errno;
        if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) < 0)
                return -errno;
        pfd.events = POLLIN;
        int left = (int)(deadline - now_ms());
        if (left <= 0 || poll(&pfd, 1, left) <= 0)
                return -ETIMEDOUT;
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n < 0)
                return -errno;
        return n == 0 ? -EPIPE : n >= 5 && memcmp(buf, "HTTP/", 5) == 0 ? 0 : -EPROTO;
}

size_t doctor_open_idle(const char *addr, int port, int *fds, size_t count) {
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        size_t started = 0;
        for (size_t i = 0; i < count; i++)
                fds[i] = -1;
        if (inet_pton(AF_INET, addr, &to.sin_addr) != 1)
                return 0;
        for (size_t i = 0; i < count; i++) {
                int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                if (fd < 0)
                        break;
                if (connect(fd, (const struct sockaddr *)&to, sizeof(to)) < 0 && errno != EINPROGRESS) {
                        close(fd);
                        continue;
                }
                fds[i] = fd;
                started++;
        }
        return started;
}

void doctor_close_all(int *fds, size_t count) {
        for (size_t i = 0; i < count; i++) {
                closep(&fds[i]);
                fds[i] = -1;
        }
}

bool doctor_http_answers(const char *addr, int port, int timeout_ms) {
        return doctor_tcp_outcome(addr, port, timeout_ms) == 0;
}
