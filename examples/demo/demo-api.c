/* demo-api: the service of the demo stack (examples/demo/compose.yaml).
 *
 * A deliberately small HTTP/1.1 server: one thread, one poll loop, a fixed
 * table of connections, every read bounded in size (request line and headers
 * up to 8 KiB) and in time (5 s), every connection closed after one answer.
 * It runs as PID 1 of a FROM-scratch image, where the kernel drops signals
 * that have no handler, so SIGTERM and SIGINT are handled here: a `docker
 * stop` ends it at once with status 0.
 *
 *   GET /        200 {"service":"demo-api","uptime_s":N,"requests":N}
 *   GET /health  200 ok
 *   anything else 404 (405 for another method on a known path)
 *
 * `demo-api --health` is the image's healthcheck (there is no shell or curl
 * in the image): GET http://127.0.0.1:PORT/health, exit 0 on 200, else 1.
 *
 * Built by tools/build-images: gcc -std=gnu11 -static -O2, libc only. */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#pragma GCC poison system popen sprintf vsprintf strcpy strcat gets atoi atol atoll

#define DEFAULT_PORT      8080
#define PORT_ENV          "DEMO_API_PORT"
#define MAX_CONNS         128
#define REQUEST_MAX       8192 /* request line + headers */
#define RESPONSE_MAX      512
#define READ_TIMEOUT_MS   5000 /* a whole request must arrive within this */
#define WRITE_TIMEOUT_MS  2000
#define LINGER_TIMEOUT_MS 1000 /* draining what the client still sends after our answer */
#define HEALTH_TIMEOUT_MS 900  /* under the compose healthcheck timeout of 1 s */
#define ACCEPT_BACKOFF_MS 100  /* after EMFILE/ENFILE */
#define LISTEN_BACKLOG    128

enum conn_state {
        CONN_FREE,
        CONN_READING,
        CONN_WRITING,
        CONN_DRAINING,
        CONN_STATE_MAX,
};

struct conn {
        int fd;
        enum conn_state state;
        int64_t deadline_ms;
        char peer[INET6_ADDRSTRLEN];
        size_t in_len;
        char in[REQUEST_MAX];
        size_t out_len;
        size_t out_off;
        char out[RESPONSE_MAX];
};

struct request {
        const char *method;
        size_t method_len;
        const char *path;
        size_t path_len;
};

static volatile sig_atomic_t stop_signal;
static struct conn conns[MAX_CONNS];
static size_t n_conns;
static uint64_t n_requests;
static int64_t start_ms;

static void on_stop_signal(int sig) {
        stop_signal = sig;
}

static int64_t now_ms(void) {
        struct timespec ts;

        /* CLOCK_MONOTONIC cannot fail with a valid pointer. */
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Parses a TCP port (1..65535) with every strtol failure checked. Returns 0 or -EINVAL. */
static int parse_port(const char *s, uint16_t *ret_port) {
        char *end = NULL;
        long v;

        if (!s || *s == '\0')
                return -EINVAL;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || !end || *end != '\0' || v < 1 || v > 65535)
                return -EINVAL;
        *ret_port = (uint16_t)v;
        return 0;
}

static bool token_eq(const char *p, size_t len, const char *lit) {
        return strlen(lit) == len && memcmp(p, lit, len) == 0;
}

/* Splits "METHOD SP TARGET SP HTTP/1.x" out of the first line of buf. The path
 * loses its query and fragment. Returns 0, or -EBADMSG when the line is not
 * HTTP/1.x; ret_req points into buf. */
static int parse_request_line(const char *buf, size_t len, struct request *ret_req) {
        const char *eol = memchr(buf, '\n', len);
        const char *sp1, *sp2, *p;
        size_t line_len, version_len;

        if (!eol)
                return -EBADMSG;
        line_len = (size_t)(eol - buf);
        if (line_len > 0 && buf[line_len - 1] == '\r')
                line_len--;

        sp1 = memchr(buf, ' ', line_len);
        if (!sp1 || sp1 == buf)
                return -EBADMSG;
        for (p = buf; p < sp1; p++)
                if (*p < 'A' || *p > 'Z')
                        return -EBADMSG;

        sp2 = memchr(sp1 + 1, ' ', line_len - (size_t)(sp1 + 1 - buf));
        if (!sp2 || sp2 == sp1 + 1 || sp1[1] != '/')
                return -EBADMSG;

        version_len = line_len - (size_t)(sp2 + 1 - buf);
        if (version_len != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 || sp2[8] < '0' || sp2[8] > '9')
                return -EBADMSG;

        for (p = sp1 + 1; p < sp2; p++)
                if (*p == '?' || *p == '#')
                        break;

        *ret_req = (struct request){
                .method = buf,
                .method_len = (size_t)(sp1 - buf),
                .path = sp1 + 1,
                .path_len = (size_t)(p - (sp1 + 1)),
        };
        return 0;
}

/* Writes a complete response into c->out. HEAD gets the headers of GET. */
static void conn_respond(
        struct conn *c, int status, const char *reason, const char *content_type, const char *body,
        bool with_body, const char *extra_headers) {
        size_t body_len = strlen(body);
        int n;

        n = snprintf(
                c->out, sizeof(c->out),
                "HTTP/1.1 %d %s\r\n"
                "Content-Type: %s\r\n"
                "Content-Length: %zu\r\n"
                "Cache-Control: no-store\r\n"
                "Connection: close\r\n"
                "%s"
                "\r\n"
                "%s",
                status, reason, content_type, body_len, extra_headers, with_body ? body : "");
        /* Every body and header here is ours and short; truncation would be a bug. */
        if (n < 0 || (size_t)n >= sizeof(c->out))
                n = snprintf(
                        c->out, sizeof(c->out),
                        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: "
                        "close\r\n\r\n");
        c->out_len = n < 0 ? 0 : (size_t)n;
        c->out_off = 0;
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line on stderr (unbuffered, so `docker logs` sees it at once). */
static void log_line(const char *fmt, ...) {
        char line[512];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t)n > sizeof(line) - 2)
                n = (int)sizeof(line) - 2;
        line[n++] = '\n';
        (void)!write(STDERR_FILENO, line, (size_t)n);
}

static void conn_route(struct conn *c) {
        struct request req;
        bool get, head;
        int status;

        if (parse_request_line(c->in, c->in_len, &req) < 0) {
                conn_respond(c, 400, "Bad Request", "text/plain", "bad request\n", true, "");
                log_line("demo-api: %s bad request", c->peer);
                return;
        }

        n_requests++;
        get = token_eq(req.method, req.method_len, "GET");
        head = token_eq(req.method, req.method_len, "HEAD");

        if (token_eq(req.path, req.path_len, "/health")) {
                if (get || head) {
                        conn_respond(c, 200, "OK", "text/plain", "ok\n", get, "");
                        return; /* not logged: the healthcheck asks every 2 s */
                }
                status = 405;
        } else if (token_eq(req.path, req.path_len, "/")) {
                if (get || head) {
                        char body[160];
                        int n = snprintf(
                                body, sizeof(body),
                                "{\"service\":\"demo-api\",\"uptime_s\":%" PRId64 ",\"requests\":%" PRIu64
                                "}\n",
                                (now_ms() - start_ms) / 1000, n_requests);
                        if (n < 0 || (size_t)n >= sizeof(body))
                                body[0] = '\0';
                        conn_respond(c, 200, "OK", "application/json", body, get, "");
                        status = 200;
                } else
                        status = 405;
        } else
                status = 404;

        if (status == 405)
                conn_respond(
                        c, 405, "Method Not Allowed", "text/plain", "method not allowed\n", true,
                        "Allow: GET, HEAD\r\n");
        else if (status == 404)
                conn_respond(c, 404, "Not Found", "text/plain", "not found\n", get || !head, "");

        log_line(
                "demo-api: %s %.*s %.*s %d", c->peer, (int)req.method_len, req.method, (int)req.path_len,
                req.path, status);
}

static void conn_close(struct conn *c) {
        if (c->state == CONN_FREE)
                return;
        (void)close(c->fd);
        c->fd = -1;
        c->state = CONN_FREE;
        n_conns--;
}

/* Sends what is left of c->out. Once all is sent, half-closes and drains, so
 * that unread bytes from the client do not turn our close into a reset that
 * could discard the answer before the client read it. */
static void conn_write(struct conn *c) {
        while (c->out_off < c->out_len) {
                ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                return;
                        conn_close(c);
                        return;
                }
                c->out_off += (size_t)n;
        }
        (void)shutdown(c->fd, SHUT_WR);
        c->state = CONN_DRAINING;
        c->deadline_ms = now_ms() + LINGER_TIMEOUT_MS;
}

static void conn_start_writing(struct conn *c) {
        c->state = CONN_WRITING;
        c->deadline_ms = now_ms() + WRITE_TIMEOUT_MS;
        conn_write(c);
}

static bool request_complete(const struct conn *c) {
        return memmem(c->in, c->in_len, "\r\n\r\n", 4) || memmem(c->in, c->in_len, "\n\n", 2);
}

static void conn_read(struct conn *c) {
        for (;;) {
                ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno != EAGAIN && errno != EWOULDBLOCK)
                                conn_close(c);
                        return;
                }
                if (n == 0) { /* the client gave up before a whole request */
                        conn_close(c);
                        return;
                }
                c->in_len += (size_t)n;
                if (request_complete(c)) {
                        conn_route(c);
                        conn_start_writing(c);
                        return;
                }
                if (c->in_len == sizeof(c->in)) {
                        conn_respond(
                                c, 431, "Request Header Fields Too Large", "text/plain",
                                "request header fields too large\n", true, "");
                        log_line("demo-api: %s request headers over %d bytes", c->peer, REQUEST_MAX);
                        conn_start_writing(c);
                        return;
                }
        }
}

static void conn_drain(struct conn *c) {
        char scratch[1024];

        for (;;) {
                ssize_t n = recv(c->fd, scratch, sizeof(scratch), 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        return;
                if (n <= 0) {
                        conn_close(c);
                        return;
                }
        }
}

static void conn_expire(struct conn *c) {
        if (c->state == CONN_READING) {
                /* A slow or silent client: say so once, briefly, and move on. */
                conn_respond(c, 408, "Request Timeout", "text/plain", "request timeout\n", true, "");
                c->state = CONN_WRITING;
                c->deadline_ms = now_ms() + LINGER_TIMEOUT_MS;
                conn_write(c);
                return;
        }
        conn_close(c);
}

static void accept_all(int lfd, int64_t *accept_resume_ms) {
        while (n_conns < MAX_CONNS) {
                struct sockaddr_storage sa;
                socklen_t sa_len = sizeof(sa);
                struct conn *c = NULL;
                int fd;

                fd = accept4(lfd, (struct sockaddr *)&sa, &sa_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd < 0) {
                        if (errno == EINTR || errno == ECONNABORTED)
                                continue;
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                                log_line("demo-api: accept: %s; pausing", strerror(errno));
                                *accept_resume_ms = now_ms() + ACCEPT_BACKOFF_MS;
                        }
                        return;
                }
                for (size_t i = 0; i < MAX_CONNS; i++)
                        if (conns[i].state == CONN_FREE) {
                                c = &conns[i];
                                break;
                        }
                if (!c) { /* cannot happen while n_conns < MAX_CONNS */
                        (void)close(fd);
                        return;
                }
                c->fd = fd;
                c->state = CONN_READING;
                c->deadline_ms = now_ms() + READ_TIMEOUT_MS;
                c->in_len = 0;
                c->out_len = c->out_off = 0;
                c->peer[0] = '\0';
                if (sa.ss_family == AF_INET)
                        (void)inet_ntop(
                                AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, c->peer, sizeof(c->peer));
                else if (sa.ss_family == AF_INET6)
                        (void)inet_ntop(
                                AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, c->peer,
                                sizeof(c->peer));
                n_conns++;
        }
}

/* Returns a listening, non-blocking socket on 0.0.0.0:port, or -errno. */
static int listen_on(uint16_t port) {
        struct sockaddr_in sa = {
                .sin_family = AF_INET,
                .sin_port = htons(port),
                .sin_addr.s_addr = htonl(INADDR_ANY),
        };
        int one = 1, fd, r;

        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
            bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
                r = -errno;
                (void)close(fd);
                return r;
        }
        return fd;
}

static int serve(uint16_t port) {
        static struct pollfd pfds[MAX_CONNS + 1];
        static struct conn *pconn[MAX_CONNS + 1];
        struct sigaction sa = { .sa_handler = on_stop_signal };
        sigset_t stop_set, wait_mask;
        int64_t accept_resume_ms = 0;
        int lfd;

        /* The stop signals stay blocked except inside ppoll(), so one that
         * arrives between two polls is not lost until the next event. */
        sigemptyset(&stop_set);
        sigaddset(&stop_set, SIGTERM);
        sigaddset(&stop_set, SIGINT);
        if (sigprocmask(SIG_BLOCK, &stop_set, &wait_mask) < 0)
                return -errno;
        sigdelset(&wait_mask, SIGTERM);
        sigdelset(&wait_mask, SIGINT);
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
                return -errno;
        signal(SIGPIPE, SIG_IGN);

        lfd = listen_on(port);
        if (lfd < 0) {
                log_line("demo-api: cannot listen on 0.0.0.0:%u: %s", (unsigned)port, strerror(-lfd));
                return lfd;
        }
        for (size_t i = 0; i < MAX_CONNS; i++)
                conns[i] = (struct conn){ .fd = -1, .state = CONN_FREE };
        start_ms = now_ms();
        log_line("demo-api: listening on 0.0.0.0:%u", (unsigned)port);

        while (!stop_signal) {
                int64_t now = now_ms(), next = INT64_MAX;
                struct timespec ts, *tsp = NULL;
                size_t n = 0;
                bool listening;
                int r;

                listening = n_conns < MAX_CONNS && now >= accept_resume_ms;
                if (listening)
                        pfds[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
                else if (n_conns < MAX_CONNS)
                        next = accept_resume_ms;
                for (size_t i = 0; i < MAX_CONNS; i++) {
                        struct conn *c = &conns[i];
                        if (c->state == CONN_FREE)
                                continue;
                        pconn[n] = c;
                        pfds[n++] = (struct pollfd){
                                .fd = c->fd,
                                .events = c->state == CONN_WRITING ? POLLOUT : POLLIN,
                        };
                        if (c->deadline_ms < next)
                                next = c->deadline_ms;
                }
                if (next != INT64_MAX) {
                        int64_t wait = next > now ? next - now : 0;
                        ts = (struct timespec){ .tv_sec = wait / 1000, .tv_nsec = (wait % 1000) * 1000000 };
                        tsp = &ts;
                }

                r = ppoll(pfds, n, tsp, &wait_mask);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        log_line("demo-api: poll: %s", strerror(-r));
                        (void)close(lfd);
                        return r;
                }

                for (size_t k = listening ? 1 : 0; k < n; k++) {
                        struct conn *c = pconn[k];
                        if (pfds[k].revents == 0)
                                continue;
                        switch (c->state) {
                        case CONN_READING: conn_read(c); break;
                        case CONN_WRITING: conn_write(c); break;
                        case CONN_DRAINING: conn_drain(c); break;
                        case CONN_FREE:
                        case CONN_STATE_MAX: break;
                        }
                }
                now = now_ms();
                for (size_t i = 0; i < MAX_CONNS; i++)
                        if (conns[i].state != CONN_FREE && conns[i].deadline_ms <= now)
                                conn_expire(&conns[i]);
                if (listening && (pfds[0].revents & POLLIN))
                        accept_all(lfd, &accept_resume_ms);
        }

        log_line(
                "demo-api: %s, stopping after %" PRIu64 " request(s)",
                stop_signal == SIGINT ? "SIGINT" : "SIGTERM", n_requests);
        for (size_t i = 0; i < MAX_CONNS; i++)
                conn_close(&conns[i]);
        (void)close(lfd);
        return 0;
}

/* Waits until fd is ready for events or the deadline passes. Returns 0, or -ETIMEDOUT / -errno. */
static int wait_fd(int fd, short events, int64_t deadline_ms) {
        for (;;) {
                int64_t left = deadline_ms - now_ms();
                struct pollfd p = { .fd = fd, .events = events };
                int r;

                if (left <= 0)
                        return -ETIMEDOUT;
                r = poll(&p, 1, (int)left);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r > 0)
                        return 0;
        }
}

/* GET http://127.0.0.1:port/health within HEALTH_TIMEOUT_MS. Returns 0 on a
 * 200 answer, -EPROTO on another answer, -ETIMEDOUT or -errno otherwise. */
static int health_check(uint16_t port) {
        static const char req[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        struct sockaddr_in sa = {
                .sin_family = AF_INET,
                .sin_port = htons(port),
                .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
        };
        int64_t deadline = now_ms() + HEALTH_TIMEOUT_MS;
        char buf[64];
        size_t off = 0, got = 0;
        socklen_t len = sizeof(int);
        int fd, err = 0, r;

        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
                if (errno != EINPROGRESS) {
                        r = -errno;
                        goto close_fd;
                }
                r = wait_fd(fd, POLLOUT, deadline);
                if (r < 0)
                        goto close_fd;
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0) {
                        r = err != 0 ? -err : -errno;
                        goto close_fd;
                }
        }
        while (off < sizeof(req) - 1) {
                ssize_t n = send(fd, req + off, sizeof(req) - 1 - off, MSG_NOSIGNAL);
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                        r = wait_fd(fd, POLLOUT, deadline);
                        if (r < 0)
                                goto close_fd;
                        continue;
                }
                if (n < 0) {
                        r = -errno;
                        goto close_fd;
                }
                off += (size_t)n;
        }
        /* The status line is all we need: "HTTP/1.1 200 ". */
        while (got < 13) {
                ssize_t n = recv(fd, buf + got, sizeof(buf) - got, 0);
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                        r = wait_fd(fd, POLLIN, deadline);
                        if (r < 0)
                                goto close_fd;
                        continue;
                }
                if (n < 0) {
                        r = -errno;
                        goto close_fd;
                }
                if (n == 0)
                        break;
                got += (size_t)n;
        }
        r = got >= 13 && memcmp(buf, "HTTP/1.", 7) == 0 && memcmp(buf + 8, " 200 ", 5) == 0 ? 0 : -EPROTO;
close_fd:
        (void)close(fd);
        return r;
}

static void usage(FILE *f) {
        fprintf(f,
                "usage: demo-api [--port PORT] [--health]\n"
                "  Serves GET / and GET /health on 0.0.0.0:PORT (default %d, or $%s).\n"
                "  --health  GET http://127.0.0.1:PORT/health; exit 0 on 200, else 1.\n",
                DEFAULT_PORT, PORT_ENV);
}

int main(int argc, char **argv) {
        uint16_t port = DEFAULT_PORT;
        bool health = false;
        const char *env = getenv(PORT_ENV);
        int r;

        if (env && *env && parse_port(env, &port) < 0) {
                fprintf(stderr, "demo-api: %s: not a port: '%s'\n", PORT_ENV, env);
                return 2;
        }
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--health") == 0)
                        health = true;
                else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
                        if (parse_port(argv[++i], &port) < 0) {
                                fprintf(stderr, "demo-api: --port: not a port: '%s'\n", argv[i]);
                                return 2;
                        }
                } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                        usage(stdout);
                        return 0;
                } else {
                        usage(stderr);
                        return 2;
                }
        }

        if (health) {
                r = health_check(port);
                if (r < 0) {
                        fprintf(stderr, "demo-api: health: %s\n",
                                r == -EPROTO ? "answer was not 200" : strerror(-r));
                        return 1;
                }
                return 0;
        }
        return serve(port) < 0 ? 1 : 0;
}
