#include "shaper-child.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/netns-pair.h"

/* For the child to open its queue and start, or to apply an update: ms
 * normally, far longer for a sanitizer's child on a loaded machine. */
#define READY_MS NETNS_READY_MS

struct child_args {
        uint16_t queue;
        struct shaper_config config;
        int cmd[2];
};

static void print_stats(int out, int r, uint64_t held, const struct shaper_stats *st) {
        dprintf(out,
                "stopped %d held %" PRIu64 " seen %" PRIu64 " released %" PRIu64 " immediate %" PRIu64
                " overflow %" PRIu64 " flushed %" PRIu64 " errors %" PRIu64 " overruns %" PRIu64
                " late_p50 %.0f late_p99 %.0f late_max %.0f held_max %" PRIu64 " msgs %" PRIu64
                " sends %" PRIu64 "\n",
                r, held, st->seen, st->released, st->immediate, st->overflow, st->flushed, st->errors,
                st->rx_overruns, st->late_p50_us, st->late_p99_us, st->late_max_us, st->held_max,
                st->verdict_msgs, st->verdict_sends);
}

static ssize_t read_cmd(int fd, void *buf, size_t size) {
        ssize_t n;
        while ((n = read(fd, buf, size)) < 0 && errno == EINTR)
                ;
        return n;
}

static int child_main(void *arg, int out) {
        struct child_args *a = arg;
        struct mh_error e = { 0 };
        struct shaper *s = NULL;
        struct shaper_stats st;
        int fd, r;
        char ch;

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(a->cmd[1]);
        r = shaper_queue_open(a->queue, &fd, &e);
        if (r >= 0)
                r = shaper_start(fd, a->queue, &a->config, &s, &e);
        if (r < 0) {
                dprintf(out, "error %d %s\n", r, e.msg);
                return 1;
        }
        dprintf(out, "ready\n");
        while (read_cmd(a->cmd[0], &ch, 1) == 1 && ch == 'u') {
                struct shaper_config c;
                if (read_cmd(a->cmd[0], &c, sizeof(c)) != (ssize_t)sizeof(c))
                        break;
                dprintf(out, "updated %d\n", shaper_update(s, &c, NULL));
        }
        shaper_stats(s, &st);
        uint64_t held = st.held;
        r = shaper_stop(s);
        shaper_stats(s, &st);
        print_stats(out, r, held, &st);
        shaper_free(s);
        return r < 0 ? 2 : 0;
}

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void read_line(int fd, char *buf, size_t size, int timeout_ms) {
        size_t len = 0;
        double end = now_ms() + timeout_ms;
        while (len + 1 < size) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int left = (int)(end - now_ms());
                if (left <= 0 || poll(&p, 1, left) <= 0 || read(fd, buf + len, 1) != 1)
                        break;
                if (buf[len++] == '\n')
                        break;
        }
        buf[len] = '\0';
}

int shaper_child_start(
        struct shaper_child *c, const char *netns, uint16_t queue, const struct shaper_config *config,
        char *err, size_t err_size) {
        struct child_args a = { .queue = queue, .config = *config };

        *c = SHAPER_CHILD_NULL;
        if (pipe2(a.cmd, O_CLOEXEC) < 0)
                return -1;
        c->pid = netns_fork(netns, child_main, &a, &c->out_fd);
        close(a.cmd[0]);
        c->cmd_fd = a.cmd[1];
        if (c->pid < 0) {
                shaper_child_kill(c);
                return -1;
        }
        read_line(c->out_fd, err, err_size, READY_MS);
        if (strcmp(err, "ready\n") != 0) {
                if (err[0] == '\0')
                        snprintf(err, err_size, "no \"ready\" from the shaper child within %d ms", READY_MS);
                shaper_child_kill(c);
                return -1;
        }
        return 0;
}

int shaper_child_update(struct shaper_child *c, const struct shaper_config *config) {
        char buf[1 + sizeof(*config)], line[64];
        buf[0] = 'u';
        memcpy(buf + 1, config, sizeof(*config));
        /* One write below PIPE_BUF: the child reads it whole. */
        if (c->pid < 0 || write(c->cmd_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
                return -1;
        read_line(c->out_fd, line, sizeof(line), READY_MS);
        if (strcmp(line, "updated 0\n") != 0) {
                fprintf(stderr, "shaper child: update answered '%s' (within %d ms)\n", line, READY_MS);
                return -1;
        }
        return 0;
}

int shaper_child_stop(struct shaper_child *c, char *out, size_t size) {
        if (c->pid < 0 || write(c->cmd_fd, "s", 1) != 1) {
                shaper_child_kill(c);
                return -1;
        }
        close(c->cmd_fd);
        int code = netns_collect(c->pid, c->out_fd, out, size);
        *c = SHAPER_CHILD_NULL;
        return code;
}

void shaper_child_kill(struct shaper_child *c) {
        if (c->pid > 0) {
                kill(c->pid, SIGKILL);
                while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        if (c->cmd_fd >= 0)
                close(c->cmd_fd);
        if (c->out_fd >= 0)
                close(c->out_fd);
        *c = SHAPER_CHILD_NULL;
}

static const char *value_of(const char *line, const char *key) {
        size_t n = strlen(key);
        for (const char *p = line; p && *p; p = strchr(p + 1, ' ')) {
                const char *k = *p == ' ' ? p + 1 : p;
                if (strncmp(k, key, n) == 0 && k[n] == ' ')
                        return k + n + 1;
        }
        return NULL;
}

uint64_t shaper_child_stat(const char *line, const char *key) {
        const char *v = value_of(line, key);
        return v ? strtoull(v, NULL, 10) : UINT64_MAX;
}

double shaper_child_statf(const char *line, const char *key) {
        const char *v = value_of(line, key);
        return v ? strtod(v, NULL) : -1;
}
