#include "netns-pair.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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
        snprintf(p->a, sizeof(p->a), "%s-a", prefix);
        snprintf(p->b, sizeof(p->b), "%s-b", prefix);
        snprintf(p->dev_a, sizeof(p->dev_a), "%.10s-va", prefix);
        snprintf(p->dev_b, sizeof(p->dev_b), "%.10s-vb", prefix);
        snprintf(p->addr_a, sizeof(p->addr_a), "10.%d.0.1", subnet);
        snprintf(p->addr_b, sizeof(p->addr_b), "10.%d.0.2", subnet);
        snprintf(p->addr6_a, sizeof(p->addr6_a), "fd00:%x::1", subnet);
        snprintf(p->addr6_b, sizeof(p->addr6_b), "fd00:%x::2", subnet);
        quietly_delete(p->a);
        quietly_delete(p->b);
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

pid_t netns_fork(const char *name, int (*fn)(void *arg, int out_fd), void *arg, int *ret_read_fd) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -1;
        pid_t pid = fork();
        if (pid == 0) {
                close(fds[0]);
                int r = netns_enter(name);
                if (r < 0) {
                        fprintf(stderr, "cannot enter netns %s: %s\n", name, strerror(-r));
                        _exit(126);
                }
                _exit(fn(arg, fds[1]));
        }
        close(fds[1]);
        if (pid < 0) {
                close(fds[0]);
                return -1;
        }
        *ret_read_fd = fds[0];
        return pid;
}

int netns_collect(pid_t pid, int read_fd, char *buf, size_t size) {
        size_t len = 0;
        ssize_t n;
        while (size > 1 && len < size - 1 && (n = read(read_fd, buf + len, size - 1 - len)) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        break;
                len += (size_t)n;
        }
        if (size)
                buf[len] = '\0';
        close(read_fd);
        int status = 0;
        if (waitpid(pid, &status, 0) != pid)
                return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
