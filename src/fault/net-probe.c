#include "net-probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"

#define DNS_HEADER    12
#define DNS_NAME_MAX  253
#define DNS_LABEL_MAX 63

static bool label_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
               c == '_';
}

/* The name as DNS labels ("." alone is the root), or -EINVAL. */
static int put_name(const char *name, uint8_t *buf, size_t size) {
        size_t n = strnlen(name, DNS_NAME_MAX + 1), at = 0;
        if (n > DNS_NAME_MAX || n == 0)
                return -EINVAL;
        for (const char *p = strcmp(name, ".") == 0 ? name + 1 : name; *p;) {
                size_t l = 0;
                while (p[l] && p[l] != '.')
                        if (!label_char(p[l++]))
                                return -EINVAL;
                if (l == 0 || l > DNS_LABEL_MAX || at + 1 + l >= size)
                        return l == 0 || l > DNS_LABEL_MAX ? -EINVAL : -ENOBUFS;
                buf[at++] = (uint8_t)l;
                memcpy(buf + at, p, l);
                at += l;
                p += l + (p[l] == '.');
        }
        if (at + 1 > size)
                return -ENOBUFS;
        buf[at++] = 0;
        return (int)at;
}

int net_probe_dns_query(const char *name, uint16_t id, uint8_t *buf, size_t size) {
        if (size < DNS_HEADER + 4)
                return -ENOBUFS;
        memset(buf, 0, DNS_HEADER);
        buf[0] = (uint8_t)(id >> 8), buf[1] = (uint8_t)id;
        buf[2] = 0x01; /* RD */
        buf[5] = 1;    /* QDCOUNT */
        int n = put_name(name, buf + DNS_HEADER, size - DNS_HEADER - 4);
        if (n < 0)
                return n;
        uint8_t *q = buf + DNS_HEADER + n;
        q[0] = 0, q[1] = 1, q[2] = 0, q[3] = 1; /* A, IN */
        return DNS_HEADER + n + 4;
}

static int sockaddr_of(const char *addr, uint16_t port, struct sockaddr_storage *ss, socklen_t *len) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        memset(ss, 0, sizeof(*ss));
        if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
                in->sin_family = AF_INET, in->sin_port = htons(port), *len = sizeof(*in);
                return AF_INET;
        }
        if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6, in6->sin6_port = htons(port), *len = sizeof(*in6);
                return AF_INET6;
        }
        return -EINVAL;
}

/* The wildcard address of af, port local. */
static int bind_local(int fd, int af, uint16_t local) {
        struct sockaddr_storage ss = { 0 };
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        if (af == AF_INET)
                in->sin_family = AF_INET, in->sin_port = htons(local);
        else
                in6->sin6_family = AF_INET6, in6->sin6_port = htons(local);
        socklen_t len = af == AF_INET ? sizeof(*in) : sizeof(*in6);
        return bind(fd, (struct sockaddr *)&ss, len) < 0 ? negative_errno() : 0;
}

/* A socket of type to addr:port with mark, from local (0: any), connect()
 * started (non-blocking). */
static int open_to(const char *addr, uint16_t port, int type, uint32_t mark, uint16_t local, int *ret_fd) {
        struct sockaddr_storage ss;
        socklen_t len;
        int af = sockaddr_of(addr, port, &ss, &len);
        if (af < 0)
                return af;
        _cleanup_close_ int fd = socket(af, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        if (mark && setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) < 0)
                return negative_errno();
        int r = local ? bind_local(fd, af, local) : 0;
        if (r < 0)
                return r;
        if (connect(fd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS)
                return negative_errno();
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Waits for events on fd until the deadline: > 0 ready, 0 timed out. */
static int wait_for(int fd, short events, double deadline) {
        for (;;) {
                double left = deadline - monotonic_ms();
                if (left <= 0)
                        return 0;
                struct pollfd p = { .fd = fd, .events = events };
                int r = poll(&p, 1, (int)left + 1);
                if (r < 0 && errno == EINTR)
                        continue;
                return r < 0 ? negative_errno() : r;
        }
}

static void finish(struct net_probe_result *ret, enum net_probe_outcome o, double start, int err) {
        *ret = (struct net_probe_result){ .outcome = o, .ms = monotonic_ms() - start, .err = err };
}

/* Reads until a reply to our id comes, or the deadline: 1, 0, or -errno. */
static int dns_reply(int fd, uint16_t id, double deadline) {
        uint8_t buf[512];
        for (;;) {
                int r = wait_for(fd, POLLIN, deadline);
                if (r <= 0)
                        return r;
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (n < 0)
                        return negative_errno();
                if (n >= DNS_HEADER && buf[0] == (uint8_t)(id >> 8) && buf[1] == (uint8_t)id &&
                    (buf[2] & 0x80))
                        return 1;
        }
}

int net_probe_dns(
        const char *server, const char *name, uint32_t mark, uint16_t local_port, int timeout_ms,
        struct net_probe_result *ret) {
        static _Atomic uint16_t next_id = 0x6d68;
        uint8_t q[DNS_HEADER + DNS_NAME_MAX + 8];
        uint16_t id = next_id++;
        int n = net_probe_dns_query(name, id, q, sizeof(q));
        if (n < 0)
                return n;
        _cleanup_close_ int fd = -EBADF;
        double start = monotonic_ms();
        int r = open_to(server, 53, SOCK_DGRAM, mark, local_port, &fd);
        if (r == -EINVAL)
                return r;
        if (r >= 0 && send(fd, q, (size_t)n, 0) < 0)
                r = negative_errno();
        if (r >= 0)
                r = dns_reply(fd, id, start + timeout_ms);
        if (r == -ECONNREFUSED)
                finish(ret, NET_PROBE_REFUSED, start, r);
        else
                finish(ret,
                       r > 0    ? NET_PROBE_ANSWERED
                       : r == 0 ? NET_PROBE_TIMEOUT
                                : NET_PROBE_ERROR,
                       start, r);
        return 0;
}

static int so_error(int fd) {
        int err = 0;
        socklen_t len = sizeof(err);
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 ? negative_errno() : -err;
}

int net_probe_connect(
        const char *addr, uint16_t port, uint32_t mark, int timeout_ms, struct net_probe_result *ret) {
        _cleanup_close_ int fd = -EBADF;
        double start = monotonic_ms();
        int r = open_to(addr, port, SOCK_STREAM, mark, 0, &fd);
        if (r == -EINVAL)
                return r;
        if (r >= 0 && (r = wait_for(fd, POLLOUT, start + timeout_ms)) == 0) {
                finish(ret, NET_PROBE_TIMEOUT, start, 0);
                return 0;
        }
        if (r > 0)
                r = so_error(fd);
        finish(ret, r == 0 || r == -ECONNREFUSED ? NET_PROBE_ANSWERED : NET_PROBE_ERROR, start, r);
        return 0;
}
