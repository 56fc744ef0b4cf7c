#include "unix-http.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "basic/clock.h"
#include "basic/macro.h"
#include "config.h"
#include "http-parser.h"

#define UNIX_HTTP_HOST_MAX 256
#define UNIX_HTTP_HEAD_MAX (16u * 1024u) /* the request line and headers we send */
#define UNIX_HTTP_READ     (16u * 1024u) /* bytes asked of one recv() */

struct target {
        char host[UNIX_HTTP_HOST_MAX];
        const char *path; /* into the URL: "/v1.41/containers/json?all=1", or "" for "/" */
        size_t path_len;
};

static int request_error(const struct http_request *req, const char *why, struct mh_error *reterr) {
        char url[HTTP_SHOWN_URL_MAX];

        http_one_line(url, sizeof(url), req->url, strlen(req->url));
        return mh_error_set(
                reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "http_request", "cannot send %s %s: %s",
                req->method, url, why);
}

static bool url_byte_ok(char c) {
        return c > 0x20 && c < 0x7f;
}

/* "http://localhost/v1.41/x?y=1#frag" -> host "localhost", path "/v1.41/x?y=1". */
static int split_url(const struct http_request *req, struct target *ret, struct mh_error *reterr) {
        if (strncasecmp(req->url, "http://", 7) != 0)
                return request_error(req, "only http:// goes over a unix socket", reterr);
        const char *host = req->url + 7;
        size_t host_len = strcspn(host, "/?#");
        const char *path = host + host_len;
        size_t path_len = strcspn(path, "#");

        if (host_len == 0 || host_len >= sizeof(ret->host))
                return request_error(req, "no host name, or a host name too long", reterr);
        for (size_t i = 0; i < host_len; i++)
                if (!url_byte_ok(host[i]) || host[i] == '@')
                        return request_error(req, "a host name with a blank, control or '@'", reterr);
        for (size_t i = 0; i < path_len; i++)
                if (!url_byte_ok(path[i]))
                        return request_error(
                                req, "a blank, control or non-ASCII byte in the path (escape it)", reterr);
        memcpy(ret->host, host, host_len);
        ret->host[host_len] = '\0';
        ret->path = path;
        ret->path_len = path_len;
        return 0;
}

static int build_request(const struct http_request *req, const struct target *t, struct strbuf *out) {
        bool has_length = req->body || streq(req->method, "POST") || streq(req->method, "PUT") ||
                          streq(req->method, "PATCH");
        size_t body_len = !req->body ? 0 : req->body_len ? req->body_len : strlen(req->body);

        int r = strbuf_printf(
                out,
                "%s %s%.*s HTTP/1.1\r\nHost: %s\r\nUser-Agent: mayhem/" MAYHEM_VERSION
                "\r\nAccept: */*\r\nConnection: close\r\n",
                req->method, t->path[0] == '/' ? "" : "/", (int)t->path_len, t->path, t->host);
        if (r >= 0 && req->body)
                r = strbuf_printf(
                        out, "Content-Type: %s\r\n",
                        req->content_type ? req->content_type : "application/json");
        if (r >= 0 && has_length)
                r = strbuf_printf(out, "Content-Length: %zu\r\n", body_len);
        if (r >= 0)
                r = strbuf_puts(out, "\r\n");
        if (r >= 0 && body_len > 0) {
                out->max += body_len; /* the caller's own body: its size is its business */
                r = strbuf_append(out, req->body, body_len);
        }
        return r;
}

/* Milliseconds to the deadline for poll(), rounded up; 0 once it passed. */
static int remaining_ms(double deadline) {
        double left = deadline - monotonic_ms();

        if (left <= 0)
                return 0;
        return left >= (double)INT_MAX ? INT_MAX : (int)left + 1;
}

static int wait_for(int fd, short events, double deadline) {
        for (;;) {
                struct pollfd p = { .fd = fd, .events = events };
                int ms = remaining_ms(deadline);
                if (ms == 0)
                        return -ETIMEDOUT;
                int r = poll(&p, 1, ms);
                if (r > 0)
                        return 0; /* readable, writable or hung up: the next call says which */
                if (r < 0 && errno != EINTR)
                        return negative_errno();
        }
}

/* A blocking connect() waits while the listener's backlog is full; SO_SNDTIMEO
 * bounds that wait (unix_stream_connect() takes its timeout from there) and
 * it then fails with EAGAIN. */
static int connect_unix(const char *path, double deadline, int *ret_fd) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t n = strlen(path);
        int ms = remaining_ms(deadline);

        assert(n < sizeof(sa.sun_path));
        if (ms == 0)
                return -ETIMEDOUT;
        memcpy(sa.sun_path, path, n + 1);
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
                return negative_errno();
        while (connect(fd, (const struct sockaddr *)&sa,
                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1)) < 0) {
                if (errno == EAGAIN || errno == EINPROGRESS)
                        return -ETIMEDOUT;
                if (errno != EINTR)
                        return negative_errno();
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Sends it all, or stops early when the peer closed (it may have answered
 * already: the reply decides). */
static int send_all(int fd, const char *data, size_t len, double deadline) {
        while (len > 0) {
                ssize_t n = send(fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n >= 0) {
                        data += n;
                        len -= (size_t)n;
                        continue;
                }
                if (errno == EPIPE || errno == ECONNRESET)
                        return 0;
                if (errno == EINTR)
                        continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK)
                        return negative_errno();
                int r = wait_for(fd, POLLOUT, deadline);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Feeds the parser until it has a whole reply (1), or fails. */
static int receive(int fd, struct http_parser *p, double deadline) {
        char buf[UNIX_HTTP_READ];

        for (;;) {
                /* A peer that never pauses must not outlast the deadline either. */
                if (monotonic_ms() >= deadline)
                        return -ETIMEDOUT;
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (n > 0) {
                        int r = http_parser_feed(p, buf, (size_t)n);
                        if (r != 0)
                                return r;
                        continue;
                }
                if (n == 0)
                        return http_parser_eof(p);
                if (errno == EINTR)
                        continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK)
                        return negative_errno();
                int r = wait_for(fd, POLLIN, deadline);
                if (r < 0)
                        return r;
        }
}

static int transport_error(
        const struct http_request *req, int r, int64_t timeout, const struct http_parser *p,
        struct mh_error *reterr) {
        char url[HTTP_SHOWN_URL_MAX];

        http_one_line(url, sizeof(url), req->url, strlen(req->url));
        switch (r) {
        case -ENOMEM:
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "%s %s: out of memory", req->method, url);
        case -ETIMEDOUT:
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "http_transport",
                        "%s %s: no complete reply within %lld ms", req->method, url, (long long)timeout);
        case -EPROTO:
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "http_transport", "%s %s: %s", req->method, url,
                        p->why);
        case -ECONNRESET:
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "http_transport",
                        "%s %s: the connection was reset before the reply was complete", req->method, url);
        default:
                return mh_error_set(
                        reterr, -EIO, MH_EXIT_GENERAL_FAILURE, "http_transport", "%s %s: %s", req->method,
                        url, strerror(-r));
        }
}

int unix_http_run(const struct http_request *req, struct http_response *ret, struct mh_error *reterr) {
        _cleanup_(http_parser_done) struct http_parser parser = { 0 };
        _cleanup_(strbuf_done) struct strbuf out = STRBUF_INIT(UNIX_HTTP_HEAD_MAX);
        _cleanup_close_ int fd = -EBADF;
        int64_t timeout = req->timeout_ms > 0 ? req->timeout_ms : HTTP_TIMEOUT_DEFAULT_MS;
        double start = monotonic_ms(), deadline = start + (double)timeout;
        struct target t;
        size_t len = 0;

        assert(req && req->method && req->url && ret);
        int r = http_request_check(req, reterr);
        if (r < 0)
                return r;
        if (!req->unix_socket)
                return request_error(req, "no unix socket to send it to", reterr);
        r = split_url(req, &t, reterr);
        if (r < 0)
                return r;
        r = build_request(req, &t, &out);
        if (r == -E2BIG)
                return request_error(req, "the request head is too long", reterr);
        if (r < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "cannot build an HTTP request");

        r = connect_unix(req->unix_socket, deadline, &fd);
        if (r == -ETIMEDOUT)
                return transport_error(req, r, timeout, &parser, reterr);
        if (r < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "http_transport", "cannot connect to %s: %s",
                        req->unix_socket, strerror(-r));
        http_parser_init(&parser, req->max_body, streq(req->method, "HEAD"));
        r = send_all(fd, out.data, out.len, deadline);
        if (r >= 0)
                r = receive(fd, &parser, deadline);
        if (r < 0)
                return transport_error(req, r, timeout, &parser, reterr);

        char *body = http_parser_steal_body(&parser, &len);
        if (!body)
                return transport_error(req, -ENOMEM, timeout, &parser, reterr);
        *ret = (struct http_response){
                .status = parser.status,
                .body = body,
                .body_len = len,
                .total_ms = monotonic_ms() - start,
                .truncated = parser.truncated,
        };
        return 0;
}
