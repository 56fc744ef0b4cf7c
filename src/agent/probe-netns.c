#include "probe-netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "basic/procfs.h"
#include "sys/in-root.h"
#include "sys/ns.h"

#define DNS_TRY_MS_MAX 2000
#define HTTP_HEAD_READ 4096 /* bytes read for the status line */

static size_t read_small(int root, const char *path, char *buf, size_t max) {
        _cleanup_close_ int fd = open_in_root(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        size_t n = 0;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)max)
                return 0;
        while (n < max) {
                ssize_t k = read(fd, buf + n, max - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                n += (size_t)k;
        }
        buf[n] = '\0';
        return n;
}

int probe_view_read(const struct proc_identity *id, struct probe_view *ret) {
        char path[64], resolv[PROBE_FILE_MAX + 1];
        snprintf(path, sizeof(path), "/proc/%d/root", (int)id->pid);
        _cleanup_close_ int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0 || proc_same(id, NULL) < 0)
                return -ESRCH;
        ret->hosts_len = read_small(root, "etc/hosts", ret->hosts, PROBE_FILE_MAX);
        size_t n = read_small(root, "etc/resolv.conf", resolv, PROBE_FILE_MAX);
        resolv_view_parse(resolv, n, &ret->resolv);
        return 0;
}

struct netns_job {
        const struct probe_view *view;
        const struct agent_probe_req *req;
        struct probe_outcome *out;
        double start_ms, deadline_ms;
};

static int left_ms(const struct netns_job *j) {
        double left = j->deadline_ms - monotonic_ms();
        return left > 0 ? (int)left : 0;
}

static void sockaddr_of(
        int family, const uint8_t *addr, uint16_t port, struct sockaddr_storage *ss, socklen_t *len) {
        memset(ss, 0, sizeof(*ss));
        if (family == AF_INET) {
                struct sockaddr_in *in = (struct sockaddr_in *)ss;
                in->sin_family = AF_INET;
                in->sin_port = htons(port);
                memcpy(&in->sin_addr, addr, 4);
                *len = sizeof(*in);
        } else {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(port);
                memcpy(&in6->sin6_addr, addr, 16);
                *len = sizeof(*in6);
        }
}

/* One UDP question to one nameserver, bounded by wait_ms. */
static int dns_ask(
        const char *server, const char *name, uint16_t qtype, int wait_ms, struct dns_addrs *ret) {
        uint8_t q[DNS_NAME_MAX + 32], a[DNS_MSG_MAX];
        uint8_t sa[16];
        int family = inet_pton(AF_INET, server, sa) == 1 ? AF_INET : AF_INET6;
        if (family == AF_INET6 && inet_pton(AF_INET6, server, sa) != 1)
                return -EINVAL;
        uint16_t id = 0; /* unpredictable, so a datagram from inside the target cannot guess it */
        if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
                id = (uint16_t)(monotonic_ms() * 1000.0);
        int qlen = dns_query_build(name, id, qtype, q, sizeof(q));
        if (qlen < 0)
                return qlen;
        struct sockaddr_storage ss;
        socklen_t sl;
        sockaddr_of(family, sa, 53, &ss, &sl);
        _cleanup_close_ int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl) < 0 || send(fd, q, (size_t)qlen, 0) != qlen)
                return -errno;
        double until = monotonic_ms() + wait_ms;
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int left = (int)(until - monotonic_ms());
                if (left <= 0 || poll(&p, 1, left) <= 0)
                        return -ETIMEDOUT;
                ssize_t k = recv(fd, a, sizeof(a), 0);
                if (k < 0)
                        return -errno;
                int r = dns_answer_parse(a, (size_t)k, id, qtype, ret);
                if (r != -EPROTO)
                        return r; /* a stray or forged datagram is ignored; the wait goes on */
        }
}

/* The name as the container would resolve it: a literal, /etc/hosts, then DNS. */
static int resolve(struct netns_job *j, struct dns_addrs *ret, char *why, size_t size) {
        const char *host = j->req->host;
        uint8_t buf[16];
        *ret = (struct dns_addrs){ 0 };
        if (inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1) {
                ret->family[0] = strchr(host, ':') ? AF_INET6 : AF_INET;
                memcpy(ret->addr[0], buf, 16);
                ret->n = 1;
                return 0;
        }
        hosts_lookup(j->view->hosts, j->view->hosts_len, host, ret);
        if (ret->n > 0)
                return 0;
        char names[DNS_CANDIDATES_MAX][DNS_NAME_MAX + 1];
        size_t n = resolv_candidates(&j->view->resolv, host, names);
        const struct net_nameservers *ns = &j->view->resolv.ns;
        int last = -ENOENT;
        if (ns->n == 0) {
                snprintf(
                        why, size,
                        "%.100s: not in the target's /etc/hosts and its resolv.conf names no nameserver",
                        host);
                return -ENOENT;
        }
        for (size_t c = 0; c < n && left_ms(j) > 0; c++)
                for (size_t s = 0; s < ns->n && left_ms(j) > 0; s++) {
                        int wait = MIN(left_ms(j), DNS_TRY_MS_MAX);
                        int r = dns_ask(ns->addr[s], names[c], DNS_TYPE_A, wait, ret);
                        if (r >= 0 && ret->n == 0 && left_ms(j) > 0)
                                r =
                                        dns_ask(ns->addr[s], names[c], DNS_TYPE_AAAA,
                                                MIN(left_ms(j), DNS_TRY_MS_MAX), ret);
                        if (r >= 0 && ret->n > 0)
                                return 0;
                        last = r >= 0 ? -ENOENT : r;
                        if (r == -ENOENT || r >= 0)
                                break; /* an answer: this server has spoken for this name */
                }
        snprintf(
                why, size, "%.100s: %.40s from the target's nameservers (%.46s first)", host,
                last == -ETIMEDOUT ? "no answer"
                : last == -ENOENT  ? "no such name"
                                   : strerror(-last),
                ns->addr[0]);
        return last;
}

static int connect_addr(struct netns_job *j, int family, const uint8_t *addr, int *ret_fd) {
        struct sockaddr_storage ss;
        socklen_t sl;
        sockaddr_of(family, addr, j->req->port, &ss, &sl);
        _cleanup_close_ int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
                if (errno != EINPROGRESS)
                        return -errno;
                struct pollfd p = { .fd = fd, .events = POLLOUT };
                int r = poll(&p, 1, left_ms(j));
                int err = 0;
                socklen_t len = sizeof(err);
                if (r <= 0)
                        return r < 0 ? -errno : -ETIMEDOUT;
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
                        return err ? -err : -errno;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Sends a GET/HEAD and reads up to the status line; the status or -errno. */
static long http_status(struct netns_job *j, int fd) {
        const struct agent_probe_req *q = j->req;
        char req[PROBE_PATH_MAX + DNS_NAME_MAX + 128], head[HTTP_HEAD_READ + 1];
        int n = snprintf(
                req, sizeof(req),
                "%s %s HTTP/1.0\r\nHost: %s:%u\r\nUser-Agent: mayhem-probe\r\nConnection: close\r\n\r\n",
                q->method, q->path, q->host, (unsigned)q->port);
        if (n < 0 || (size_t)n >= sizeof(req) || send(fd, req, (size_t)n, MSG_NOSIGNAL) != n)
                return -EIO;
        size_t got = 0;
        while (got < HTTP_HEAD_READ && !memchr(head, '\n', got)) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int r = poll(&p, 1, left_ms(j));
                if (r <= 0)
                        return r < 0 ? -errno : -ETIMEDOUT;
                ssize_t k = recv(fd, head + got, HTTP_HEAD_READ - got, 0);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EPROTO;
                got += (size_t)k;
        }
        head[got] = '\0';
        if (strncmp(head, "HTTP/1.", 7) != 0 || got < 12 || head[8] != ' ')
                return -EPROTO;
        long status = 0;
        for (int i = 9; i < 12; i++) {
                if (head[i] < '0' || head[i] > '9')
                        return -EPROTO;
                status = status * 10 + (head[i] - '0');
        }
        return status >= 100 && status <= 599 ? status : -EPROTO;
}

static int in_netns(void *arg, struct mh_error *reterr) {
        struct netns_job *j = arg;
        struct probe_outcome *o = j->out;
        const struct agent_probe_req *q = j->req;
        struct dns_addrs a;
        int r = -ECONNREFUSED;
        _cleanup_close_ int fd = -EBADF;
        if (resolve(j, &a, o->detail, sizeof(o->detail)) < 0)
                return 0;
        for (size_t i = 0; i < a.n && fd < 0 && left_ms(j) > 0; i++)
                r = connect_addr(j, a.family[i], a.addr[i], &fd);
        if (fd < 0) {
                snprintf(
                        o->detail, sizeof(o->detail), "%.100s:%u from the target: %.60s", q->host,
                        (unsigned)q->port, strerror(r == 0 ? ETIMEDOUT : -r));
                return 0;
        }
        if (q->kind == AGENT_PROBE_TCP) {
                o->ok = true;
                o->latency_ms = monotonic_ms() - j->start_ms;
                snprintf(
                        o->detail, sizeof(o->detail), "%.100s:%u accepts connections from the target",
                        q->host, (unsigned)q->port);
                return 0;
        }
        long st = http_status(j, fd);
        o->latency_ms = monotonic_ms() - j->start_ms;
        if (st < 0) {
                snprintf(
                        o->detail, sizeof(o->detail), "http://%.80s:%u%.60s from the target: %.40s", q->host,
                        (unsigned)q->port, q->path,
                        st == -EPROTO ? "not an HTTP reply" : strerror((int)-st));
                return 0;
        }
        o->status = st;
        o->ok = st == q->expected_status;
        snprintf(
                o->detail, sizeof(o->detail), "status=%ld expected=%lld (from the target)", st,
                (long long)q->expected_status);
        return 0;
}

void probe_netns_run(
        const struct proc_identity *id, const struct probe_view *view, const struct agent_probe_req *req,
        struct probe_outcome *out) {
        struct netns_job j = { .view = view, .req = req, .out = out, .start_ms = monotonic_ms() };
        struct mh_error e = { 0 };
        j.deadline_ms = j.start_ms + (double)req->timeout_ms;
        *out = (struct probe_outcome){ 0 };
        if (ns_net_run(id, in_netns, &j, &e) < 0)
                snprintf(
                        out->detail, sizeof(out->detail), "entering the target's network namespace: %.180s",
                        e.msg);
}
