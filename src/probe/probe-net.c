#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/macro.h"
#include "http-client.h"

#define HTTP_PROBE_BODY_MAX (64u * 1024u)

void probe_http(const struct drill_probe *p, struct probe_result *ret) {
        struct http_request req = { .method = p->method,
                                    .url = p->url,
                                    .timeout_ms = p->timeout_ms,
                                    .max_body = HTTP_PROBE_BODY_MAX };
        struct http_response resp = { 0 };
        struct mh_error e = { 0 };

        if (http_request_run(&req, &resp, &e) < 0) {
                probe_set_detail(ret, e.msg);
                return;
        }
        ret->status = resp.status;
        ret->latency_ms = resp.total_ms;
        ret->ok = resp.status == p->expected_status;
        snprintf(
                ret->detail, sizeof(ret->detail), "status=%ld expected=%" PRId64, resp.status,
                p->expected_status);
        http_response_done(&resp);
}

/* Non-blocking connect bounded by the deadline. */
static int connect_one(const struct addrinfo *ai, double deadline_ms) {
        _cleanup_close_ int fd =
                socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
                return negative_errno();
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
                return 0;
        if (errno != EINPROGRESS)
                return negative_errno();
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        int left = (int)(deadline_ms - monotonic_ms());
        int r = poll(&pfd, 1, left > 0 ? left : 0);
        if (r < 0)
                return negative_errno();
        if (r == 0)
                return -ETIMEDOUT;
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                return negative_errno();
        return err ? -err : 0;
}

void probe_tcp(const struct drill_probe *p, struct probe_result *ret) {
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC }, *res = NULL;
        char port[16];
        double deadline = monotonic_ms() + (double)p->timeout_ms;
        int r = -ENOENT;

        snprintf(port, sizeof(port), "%" PRId64, p->port);
        int g = getaddrinfo(p->host, port, &hints, &res);
        if (g != 0) {
                snprintf(ret->detail, sizeof(ret->detail), "%s: %s", p->host, gai_strerror(g));
                return;
        }
        for (const struct addrinfo *ai = res; ai && r < 0 && monotonic_ms() < deadline; ai = ai->ai_next)
                r = connect_one(ai, deadline);
        freeaddrinfo(res);
        ret->ok = r == 0;
        snprintf(
                ret->detail, sizeof(ret->detail), "%s:%" PRId64 " %s", p->host, p->port,
                r == 0 ? "accepts connections" : strerror(-r));
}
