#include "netprobe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x6d687072u /* "mhpr" */

struct probe_hdr {
        uint32_t magic, seq;
        uint64_t sent_ns;
};

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int ms_left(uint64_t deadline) {
        uint64_t now = now_ns();
        return now >= deadline ? 0 : (int)((deadline - now) / 1000000u) + 1;
}

static int ready_fd = -1;

void netprobe_ready_fd(int fd) {
        ready_fd = fd;
}

/* The server's socket is bound (and listening): say so, once. */
static void announce_ready(void) {
        if (ready_fd < 0)
                return;
        dprintf(ready_fd, "ready\n");
        ready_fd = -1;
}

/* Room for a whole blast (SO_RCVBUFFORCE: root only, else the default stays). */
static void big_rcvbuf(int fd) {
        int size = 16 << 20;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
}

/* addr:port into sa; the family follows the literal. */
static int sockaddr_of(const char *addr, int port, struct sockaddr_storage *sa, socklen_t *len) {
        memset(sa, 0, sizeof(*sa));
        struct sockaddr_in *in = (struct sockaddr_in *)sa;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
        if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
                in->sin_family = AF_INET;
                in->sin_port = htons((uint16_t)port);
                *len = sizeof(*in);
                return 0;
        }
        if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons((uint16_t)port);
                *len = sizeof(*in6);
                return 0;
        }
        return -EINVAL;
}

/* A socket bound to [::]:port that takes IPv4 too. */
static int bound(int type, int port) {
        int fd = socket(AF_INET6, type | SOCK_CLOEXEC, 0), zero = 0, one = 1;
        struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
        if (fd < 0)
                return -errno;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        return fd;
}

int udp_reflector(int port, int idle_ms, int max_ms) {
        int fd = bound(SOCK_DGRAM, port), echoed = 0;
        if (fd < 0)
                return fd;
        big_rcvbuf(fd);
        announce_ready();
        uint64_t end = now_ns() + (uint64_t)max_ms * 1000000u;
        char buf[2048];
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int wait = ms_left(end);
                if (wait == 0 || poll(&p, 1, wait < idle_ms ? wait : idle_ms) <= 0)
                        break;
                struct sockaddr_storage from;
                socklen_t len = sizeof(from);
                ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);
                if (n > 0 && sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, len) == n)
                        echoed++;
        }
        close(fd);
        return echoed;
}

/* Seen-bitmap bookkeeping shared by the probe and the sink. */
struct seq_seen {
        unsigned char *seen;
        long max_seq;
        unsigned unique, duplicates, reordered;
};

static void seq_note(struct seq_seen *s, uint32_t seq) {
        if (seq >= NETPROBE_MAX_SEQ)
                return;
        if (s->seen[seq]) {
                s->duplicates++;
                return;
        }
        s->seen[seq] = 1;
        s->unique++;
        if ((long)seq < s->max_seq)
                s->reordered++;
        else
                s->max_seq = seq;
}

static void send_probe(int fd, const struct sockaddr_storage *to, socklen_t len, uint32_t seq, size_t size) {
        char buf[2048] = { 0 };
        struct probe_hdr h = { .magic = MAGIC, .seq = seq, .sent_ns = now_ns() };
        memcpy(buf, &h, sizeof(h));
        sendto(fd, buf, size < sizeof(h) ? sizeof(h) : size, 0, (const struct sockaddr *)to, len);
}

static void drain_echoes(int fd, uint64_t until, struct seq_seen *s, struct udp_rtt_result *r) {
        struct probe_hdr h;
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, ms_left(until)) <= 0)
                        return;
                if (recv(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != MAGIC)
                        continue;
                unsigned before = s->duplicates;
                seq_note(s, h.seq);
                if (s->duplicates == before)
                        r->rtt_ms[r->received++] = (double)(now_ns() - h.sent_ns) / 1e6;
        }
}

int udp_rtt_probe(
        const char *addr, int port, unsigned count, unsigned interval_us, int wait_ms,
        struct udp_rtt_result *ret) {
        struct sockaddr_storage to;
        socklen_t len;
        memset(ret, 0, sizeof(*ret));
        if (count > NETPROBE_MAX_SEQ || sockaddr_of(addr, port, &to, &len) < 0)
                return -EINVAL;
        int fd = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct seq_seen s = { .seen = calloc(NETPROBE_MAX_SEQ, 1), .max_seq = -1 };
        ret->rtt_ms = calloc(count ? count : 1, sizeof(double));
        if (fd < 0 || !s.seen || !ret->rtt_ms) {
                free(s.seen);
                if (fd >= 0)
                        close(fd);
                return -ENOMEM;
        }
        big_rcvbuf(fd);
        for (unsigned i = 0; i < count; i++) {
                send_probe(fd, &to, len, i, sizeof(struct probe_hdr));
                ret->sent++;
                drain_echoes(fd, now_ns() + (uint64_t)interval_us * 1000u, &s, ret);
        }
        drain_echoes(fd, now_ns() + (uint64_t)wait_ms * 1000000u, &s, ret);
        ret->duplicates = s.duplicates;
        ret->reordered = s.reordered;
        free(s.seen);
        close(fd);
        return 0;
}

void udp_rtt_result_done(struct udp_rtt_result *r) {
        free(r->rtt_ms);
        r->rtt_ms = NULL;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

double percentile(double *v, size_t n, double p) {
        if (n == 0)
                return 0;
        qsort(v, n, sizeof(*v), cmp_double);
        size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
        return v[i < n ? i : n - 1];
}

int udp_sink(int port, int idle_ms, int max_ms, struct udp_sink_result *ret) {
        memset(ret, 0, sizeof(*ret));
        int fd = bound(SOCK_DGRAM, port);
        if (fd < 0)
                return fd;
        big_rcvbuf(fd);
        announce_ready();
        struct seq_seen s = { .seen = calloc(NETPROBE_MAX_SEQ, 1), .max_seq = -1 };
        uint64_t end = now_ns() + (uint64_t)max_ms * 1000000u, first = 0, last = 0;
        char buf[2048];
        while (s.seen) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int wait = ms_left(end);
                if (ret->received && wait > idle_ms)
                        wait = idle_ms;
                if (wait == 0 || poll(&p, 1, wait) <= 0)
                        break;
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                struct probe_hdr h;
                if (n < (ssize_t)sizeof(h))
                        continue;
                memcpy(&h, buf, sizeof(h));
                if (h.magic != MAGIC)
                        continue;
                last = now_ns();
                if (!first)
                        first = last;
                ret->received++;
                seq_note(&s, h.seq);
        }
        ret->span_ms = (double)(last - first) / 1e6;
        ret->unique = s.unique;
        ret->duplicates = s.duplicates;
        ret->reordered = s.reordered;
        free(s.seen);
        close(fd);
        return 0;
}

int udp_blast(const char *addr, int port, unsigned count, unsigned pps, size_t size) {
        struct sockaddr_storage to;
        socklen_t len;
        if (count > NETPROBE_MAX_SEQ || pps == 0 || sockaddr_of(addr, port, &to, &len) < 0)
                return -EINVAL;
        int fd = socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        uint64_t start = now_ns(), gap = 1000000000ull / pps;
        for (unsigned i = 0; i < count; i++) {
                uint64_t due = start + gap * i;
                struct timespec ts = { .tv_sec = (time_t)(due / 1000000000ull),
                                       .tv_nsec = (long)(due % 1000000000ull) };
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                        ;
                send_probe(fd, &to, len, i, size);
        }
        close(fd);
        return 0;
}

static int wait_connected(int fd, int timeout_ms) {
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int err = 0;
        socklen_t len = sizeof(err);
        if (poll(&p, 1, timeout_ms) <= 0)
                return -ETIMEDOUT;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        return -err;
}

/* After connecting: a byte out, then whatever the peer does within timeout_ms. */
static int exchange(int fd, int timeout_ms) {
        char c = 'x';
        if (send(fd, &c, 1, MSG_NOSIGNAL) < 0)
                return -errno;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, timeout_ms) <= 0)
                return 0;
        return recv(fd, &c, 1, 0) < 0 ? -errno : 0;
}

int tcp_connect_outcome(const char *addr, int port, int timeout_ms) {
        struct sockaddr_storage to;
        socklen_t len;
        if (sockaddr_of(addr, port, &to, &len) < 0)
                return -EINVAL;
        int fd = socket(to.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        int r = connect(fd, (struct sockaddr *)&to, len) < 0 ? -errno : 0;
        if (r == -EINPROGRESS)
                r = wait_connected(fd, timeout_ms);
        if (r == 0)
                r = exchange(fd, timeout_ms);
        close(fd);
        return r;
}

long tcp_server(int port, bool echo, int max_ms) {
        int lfd = bound(SOCK_STREAM, port);
        if (lfd < 0)
                return lfd;
        listen(lfd, 16);
        announce_ready();
        uint64_t end = now_ns() + (uint64_t)max_ms * 1000000u;
        struct pollfd p[17] = { { .fd = lfd, .events = POLLIN } };
        size_t n = 1;
        long total = 0;
        char buf[65536];
        while (ms_left(end) > 0 && poll(p, n, ms_left(end)) > 0) {
                for (size_t i = n; i-- > 1;) {
                        if (!p[i].revents)
                                continue;
                        ssize_t got = recv(p[i].fd, buf, sizeof(buf), 0);
                        if (got <= 0) {
                                close(p[i].fd);
                                p[i] = p[--n];
                                continue;
                        }
                        total += got;
                        if (echo)
                                send(p[i].fd, buf, (size_t)got, MSG_NOSIGNAL);
                }
                if ((p[0].revents & POLLIN) && n < 17) {
                        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                        if (c >= 0)
                                p[n++] = (struct pollfd){ .fd = c, .events = POLLIN };
                }
        }
        for (size_t i = 0; i < n; i++)
                close(p[i].fd);
        return total;
}

/* A TCP connection to addr:port made within NETPROBE_CONNECT_MS (blocking
 * once made), or -errno: -ETIMEDOUT when the handshake did not finish. */
static int tcp_connected(const char *addr, int port) {
        struct sockaddr_storage to;
        socklen_t len;
        if (sockaddr_of(addr, port, &to, &len) < 0)
                return -EINVAL;
        int fd = socket(to.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        int r = connect(fd, (struct sockaddr *)&to, len) < 0 ? -errno : 0;
        if (r == -EINPROGRESS)
                r = wait_connected(fd, NETPROBE_CONNECT_MS);
        if (r == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
                r = -errno;
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}

double tcp_send_for(const char *addr, int port, int ms) {
        int fd = tcp_connected(addr, port);
        if (fd < 0)
                return fd;
        static char buf[65536];
        uint64_t start = now_ns(), end = start + (uint64_t)ms * 1000000u, last = start;
        double bytes = 0;
        while (now_ns() < end) {
                ssize_t n = send(fd, buf, sizeof(buf), MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n > 0) {
                        bytes += (double)n;
                        last = now_ns();
                } else {
                        struct pollfd p = { .fd = fd, .events = POLLOUT };
                        poll(&p, 1, ms_left(end));
                }
        }
        close(fd);
        return last > start ? bytes * 8 / ((double)(last - start) / 1e9) : 0;
}

/* The steady rate fd receives at, in bits per second: bytes from the first
 * read at least 0.5 s after the first byte (the clock starts there; that
 * read's bytes came before it) to the last read before 2.5 s after it, over
 * the time between the two, as measured, not assumed (without a token
 * bucket's initial burst or socket buffers draining at the end); for at most
 * max_ms. 0 when the window never opened. */
static double steady_rate(int fd, int max_ms) {
        char buf[65536];
        uint64_t end = now_ns() + (uint64_t)max_ms * 1000000u, first = 0, from = 0, last = 0, counted = 0;
        while (ms_left(end) > 0) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, 100) != 1)
                        continue;
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                if (n <= 0)
                        break;
                uint64_t now = now_ns();
                if (!first)
                        first = now;
                if (now >= first + 2500000000u)
                        break;
                if (now < first + 500000000u)
                        continue;
                if (!from) {
                        from = now;
                        continue;
                }
                counted += (uint64_t)n;
                last = now;
        }
        return last > from ? (double)counted * 8 / ((double)(last - from) / 1e9) : 0;
}

double tcp_sink_rate(int port, int max_ms) {
        int lfd = bound(SOCK_STREAM, port);
        if (lfd < 0)
                return lfd;
        listen(lfd, 4);
        announce_ready();
        struct pollfd p = { .fd = lfd, .events = POLLIN };
        int c = poll(&p, 1, max_ms) == 1 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
        close(lfd);
        if (c < 0)
                return -ETIMEDOUT;
        double bps = steady_rate(c, max_ms);
        close(c);
        return bps;
}

int tcp_receive(int port, int max_ms, struct tcp_receive_result *ret) {
        memset(ret, 0, sizeof(*ret));
        int lfd = bound(SOCK_STREAM, port);
        if (lfd < 0)
                return lfd;
        if (listen(lfd, 4) < 0) {
                int e = -errno;
                close(lfd);
                return e;
        }
        announce_ready();
        uint64_t end = now_ns() + (uint64_t)max_ms * 1000000u, first = 0, last = 0;
        struct pollfd p = { .fd = lfd, .events = POLLIN };
        int c = poll(&p, 1, ms_left(end)) == 1 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
        close(lfd);
        if (c < 0)
                return -ETIMEDOUT;
        char buf[65536];
        long timed = 0;
        while (ms_left(end) > 0) {
                p = (struct pollfd){ .fd = c, .events = POLLIN };
                if (poll(&p, 1, ms_left(end)) != 1)
                        break;
                ssize_t n = recv(c, buf, sizeof(buf), 0);
                if (n <= 0)
                        break;
                last = now_ns();
                if (first)
                        timed += n;
                else
                        first = last;
                ret->bytes += n;
        }
        close(c);
        ret->ms = (double)(last - first) / 1e6;
        ret->bps = ret->ms > 0 ? (double)timed * 8 / (ret->ms / 1e3) : 0;
        return 0;
}

double tcp_fetch_rate(const char *addr, int port, int max_ms) {
        int fd = tcp_connected(addr, port);
        if (fd < 0)
                return fd;
        double bps = steady_rate(fd, max_ms);
        close(fd);
        return bps;
}

int tcp_source(int port, int max_ms) {
        int lfd = bound(SOCK_STREAM, port), served = 0;
        if (lfd < 0)
                return lfd;
        listen(lfd, 4);
        announce_ready();
        static char zeros[65536];
        uint64_t end = now_ns() + (uint64_t)max_ms * 1000000u;
        while (ms_left(end) > 0) {
                struct pollfd p = { .fd = lfd, .events = POLLIN };
                if (poll(&p, 1, ms_left(end)) != 1)
                        break;
                int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        continue;
                served++;
                uint64_t stop = now_ns() + 10000000000u; /* one peer at a time, 10 s at most */
                while (now_ns() < stop && send(c, zeros, sizeof(zeros), MSG_NOSIGNAL) > 0)
                        ;
                close(c);
        }
        close(lfd);
        return served;
}

void binomial_interval_99(unsigned n, double p, double *ret_lo, double *ret_hi) {
        double sd = sqrt(n * p * (1 - p));
        *ret_lo = n * p - 2.576 * sd;
        *ret_hi = n * p + 2.576 * sd;
}
