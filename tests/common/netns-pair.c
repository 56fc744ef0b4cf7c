#include "netns-pair.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run-command.h"

static int ip(const char *const *argv) {
        struct cmd_result r = run_command(NULL, argv);
        int code = r.exit;
        if (code != 0) {
                fprintf(stderr, "netns-pair:");
                for (size_t i = 0; argv[i]; i++)
                        fprintf(stderr, " %s", argv[i]);
                fprintf(stderr, ": exit %d: %s", code, r.err);
        }
        cmd_result_done(&r);
        return code == 0 ? 0 : -1;
}

#define IP(...) ip((const char *const[]){ "ip", __VA_ARGS__, NULL })

static int quietly_delete(const char *name) {
        struct cmd_result r = run_command(NULL, (const char *const[]){ "ip", "netns", "del", name, NULL });
        cmd_result_done(&r);
        return 0;
}

/* The pid in name when it is PREFIX-PID-a or PREFIX-PID-b, else 0. */
static pid_t pid_of_name(const char *name, const char *prefix) {
        size_t n = strlen(prefix);
        long pid = 0;
        if (strncmp(name, prefix, n) != 0 || name[n] != '-')
                return 0;
        const char *p = name + n + 1, *digits = p;
        for (; *p >= '0' && *p <= '9' && p - digits < 10; p++)
                pid = pid * 10 + (*p - '0');
        if (p == digits || (strcmp(p, "-a") != 0 && strcmp(p, "-b") != 0) || pid <= 0 || pid > INT32_MAX)
                return 0;
        return (pid_t)pid;
}

/* Deletes the pairs of this prefix whose run is over: the process named in
 * them is gone. A live run's pair (another checkout, another build) stays. */
static void sweep_dead_runs(const char *prefix) {
        DIR *d = opendir("/run/netns");
        if (!d)
                return;
        for (struct dirent *de; (de = readdir(d));) {
                pid_t pid = pid_of_name(de->d_name, prefix);
                if (pid > 0 && pid != getpid() && kill(pid, 0) < 0 && errno == ESRCH)
                        quietly_delete(de->d_name);
        }
        closedir(d);
}

static int side_up(const char *ns, const char *dev, const char *addr, const char *addr6) {
        char cidr[24], cidr6[48];
        snprintf(cidr, sizeof(cidr), "%s/24", addr);
        snprintf(cidr6, sizeof(cidr6), "%s/64", addr6);
        if (IP("-n", ns, "addr", "add", cidr, "dev", dev) < 0 ||
            IP("-n", ns, "addr", "add", cidr6, "dev", dev, "nodad") < 0 ||
            IP("-n", ns, "link", "set", dev, "up") < 0 || IP("-n", ns, "link", "set", "lo", "up") < 0)
                return -1;
        return 0;
}

int netns_pair_create(struct netns_pair *p, const char *prefix, int subnet) {
        memset(p, 0, sizeof(*p));
        snprintf(p->a, sizeof(p->a), "%s-%d-a", prefix, (int)getpid());
        snprintf(p->b, sizeof(p->b), "%s-%d-b", prefix, (int)getpid());
        snprintf(p->dev_a, sizeof(p->dev_a), "%.10s-va", prefix);
        snprintf(p->dev_b, sizeof(p->dev_b), "%.10s-vb", prefix);
        snprintf(p->addr_a, sizeof(p->addr_a), "10.%d.0.1", subnet);
        snprintf(p->addr_b, sizeof(p->addr_b), "10.%d.0.2", subnet);
        snprintf(p->addr6_a, sizeof(p->addr6_a), "fd00:%x::1", subnet);
        snprintf(p->addr6_b, sizeof(p->addr6_b), "fd00:%x::2", subnet);
        sweep_dead_runs(prefix);
        /* The veth ends are made inside the pair's namespaces (never in this
         * one), so their short fixed names collide with no other run. */
        if (IP("netns", "add", p->a) < 0 || IP("netns", "add", p->b) < 0 ||
            IP("link", "add", p->dev_a, "netns", p->a, "type", "veth", "peer", "name", p->dev_b, "netns",
               p->b) < 0 ||
            side_up(p->a, p->dev_a, p->addr_a, p->addr6_a) < 0 ||
            side_up(p->b, p->dev_b, p->addr_b, p->addr6_b) < 0) {
                netns_pair_destroy(p);
                return -1;
        }
        return 0;
}

void netns_pair_destroy(struct netns_pair *p) {
        if (p->a[0])
                quietly_delete(p->a);
        if (p->b[0])
                quietly_delete(p->b);
}

int netns_enter(const char *name) {
        char path[96];
        snprintf(path, sizeof(path), "/run/netns/%s", name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = setns(fd, CLONE_NEWNET) < 0 ? -errno : 0;
        close(fd);
        return r;
}

static void kill_reap(pid_t pid) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

/* The child's word that it is in the namespace: one byte on entered_fd, or
 * end-of-file when it could not enter (and exits 126). */
static int wait_entered(int entered_fd) {
        char c;
        struct pollfd p = { .fd = entered_fd, .events = POLLIN };
        int n;
        while ((n = poll(&p, 1, NETNS_READY_MS)) < 0 && errno == EINTR)
                ;
        if (n <= 0)
                return -1;
        while ((n = (int)read(entered_fd, &c, 1)) < 0 && errno == EINTR)
                ;
        return n == 1 ? 0 : -1;
}

pid_t netns_fork(const char *name, int (*fn)(void *arg, int out_fd), void *arg, int *ret_read_fd) {
        int fds[2], entered[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -1;
        if (pipe2(entered, O_CLOEXEC) < 0) {
                close(fds[0]);
                close(fds[1]);
                return -1;
        }
        pid_t pid = fork();
        if (pid == 0) {
                close(fds[0]);
                close(entered[0]);
                int r = netns_enter(name);
                if (r < 0) {
                        fprintf(stderr, "cannot enter netns %s: %s\n", name, strerror(-r));
                        _exit(126);
                }
                if (write(entered[1], "", 1) != 1)
                        _exit(126);
                close(entered[1]);
                _exit(fn(arg, fds[1]));
        }
        close(fds[1]);
        close(entered[1]);
        /* Returned only once the child is in the namespace: a caller that
         * reads the child's /proc/PID/ns/net right away sees name's, not ours. */
        int r = pid < 0 ? -1 : wait_entered(entered[0]);
        close(entered[0]);
        if (r < 0) {
                if (pid > 0)
                        kill_reap(pid);
                close(fds[0]);
                return -1;
        }
        *ret_read_fd = fds[0];
        return pid;
}

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int netns_wait_ready(int read_fd, int timeout_ms, const char *what) {
        static const char want[] = "ready\n";
        char got[128];
        size_t len = 0;
        double end = now_ms() + timeout_ms;
        int r = -ETIMEDOUT;
        while (len + 1 < sizeof(got)) {
                struct pollfd p = { .fd = read_fd, .events = POLLIN };
                int left = (int)(end - now_ms()) + 1, n = left > 0 ? poll(&p, 1, left) : 0;
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                /* One byte at a time: what follows the line is the result. */
                ssize_t k = read(read_fd, got + len, 1);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        r = -EPIPE;
                        break;
                }
                if (got[len] != want[len]) {
                        /* Something else: the rest of it, if already there, for the message. */
                        len++;
                        struct pollfd more = { .fd = read_fd, .events = POLLIN };
                        if (poll(&more, 1, 0) == 1 &&
                            (k = read(read_fd, got + len, sizeof(got) - 1 - len)) > 0)
                                len += (size_t)k;
                        r = -EPIPE;
                        break;
                }
                if (++len == sizeof(want) - 1)
                        return 0;
        }
        got[len] = '\0';
        if (r == -ETIMEDOUT)
                fprintf(stderr, "%s: no \"ready\" line within %d ms (got '%s')\n", what, timeout_ms, got);
        else
                fprintf(stderr, "%s: ended or wrote '%s' instead of \"ready\"\n", what, got);
        return r;
}

pid_t netns_fork_server(const char *name, int (*fn)(void *arg, int out_fd), void *arg, int *ret_read_fd) {
        char what[96];
        int fd;
        pid_t pid = netns_fork(name, fn, arg, &fd);
        if (pid < 0) {
                fprintf(stderr, "netns-pair: cannot fork a server into %s: %s\n", name, strerror(errno));
                return -1;
        }
        snprintf(what, sizeof(what), "netns-pair: server pid %d in %s", (int)pid, name);
        if (netns_wait_ready(fd, NETNS_READY_MS, what) < 0) {
                kill_reap(pid);
                close(fd);
                return -1;
        }
        *ret_read_fd = fd;
        return pid;
}

int netns_collect(pid_t pid, int read_fd, char *buf, size_t size) {
        size_t len = 0;
        double end = now_ms() + NETNS_COLLECT_MS;
        bool hung = false;
        while (size > 1 && len < size - 1) {
                struct pollfd p = { .fd = read_fd, .events = POLLIN };
                int left = (int)(end - now_ms()) + 1, n = left > 0 ? poll(&p, 1, left) : 0;
                if (n < 0 && errno == EINTR)
                        continue;
                if (n == 0)
                        hung = true;
                if (n <= 0)
                        break;
                ssize_t k = read(read_fd, buf + len, size - 1 - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                len += (size_t)k;
        }
        if (size)
                buf[len] = '\0';
        close(read_fd);
        int status = 0;
        pid_t got = -1;
        /* It closed its end: it is ending. Still bounded, as a child may close
         * its output and go on. */
        while (!hung && (got = waitpid(pid, &status, WNOHANG)) == 0) {
                if (now_ms() >= end) {
                        hung = true;
                        break;
                }
                nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
        }
        if (hung) {
                fprintf(stderr, "netns-pair: child %d did not end within %d ms: killed\n", (int)pid,
                        NETNS_COLLECT_MS);
                kill_reap(pid);
                return -1;
        }
        if (got != pid)
                return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
