#include "net-resolv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "basic/procfs.h"
#include "sys/in-root.h"

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

/* One line: "nameserver" then blanks then the address, up to a blank or the end. */
static void parse_line(const char *p, const char *end, struct net_nameservers *ns) {
        static const char key[] = "nameserver";
        while (p < end && is_blank(*p))
                p++;
        if ((size_t)(end - p) <= sizeof(key) - 1 || memcmp(p, key, sizeof(key) - 1) != 0 ||
            !is_blank(p[sizeof(key) - 1]))
                return;
        p += sizeof(key) - 1;
        while (p < end && is_blank(*p))
                p++;
        size_t n = 0;
        while (p + n < end && !is_blank(p[n]))
                n++;
        char addr[INET6_ADDRSTRLEN];
        unsigned char buf[sizeof(struct in6_addr)];
        if (n == 0 || n >= sizeof(addr))
                return;
        memcpy(addr, p, n);
        addr[n] = '\0';
        if (inet_pton(AF_INET, addr, buf) == 1 || inet_pton(AF_INET6, addr, buf) == 1)
                memcpy(ns->addr[ns->n++], addr, n + 1);
}

void net_nameservers_parse(const char *text, size_t len, struct net_nameservers *ret) {
        struct net_nameservers ns = { 0 };
        const char *end = text + len;
        for (const char *p = text; p < end && ns.n < NET_NAMESERVERS_MAX;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
                const char *nul = memchr(p, '\0', (size_t)(eol - p));
                parse_line(p, nul ? nul : eol, &ns);
                p = eol + 1;
        }
        *ret = ns;
}

/* etc/resolv.conf under the target's root (sys/in-root.h). */
static int resolv_conf_open(int root) {
        return open_in_root(root, "etc/resolv.conf", O_RDONLY | O_NOCTTY | O_NONBLOCK);
}

static int read_bounded(int fd, char *buf, size_t max, size_t *ret_len) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        size_t n = 0;
        for (;;) {
                ssize_t k = read(fd, buf + n, max + 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        break;
                if ((n += (size_t)k) > max)
                        return -EFBIG;
        }
        *ret_len = n;
        return 0;
}

int net_nameservers_of(
        const struct proc_identity *id, struct net_nameservers *ret, char *detail, size_t size) {
        char path[64], buf[NET_RESOLV_MAX + 1];
        size_t len = 0;
        snprintf(path, sizeof(path), "/proc/%d/root", (int)id->pid);
        _cleanup_close_ int root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0 || proc_same(id, NULL) < 0) {
                snprintf(detail, size, "the target (pid %d) is gone", (int)id->pid);
                return -ESRCH;
        }
        _cleanup_close_ int fd = resolv_conf_open(root);
        int r = fd < 0 ? fd : read_bounded(fd, buf, NET_RESOLV_MAX, &len);
        if (r < 0) {
                snprintf(
                        detail, size, "the target's /etc/resolv.conf: %s",
                        r == -EFBIG    ? "larger than 4 KiB"
                        : r == -EINVAL ? "not a regular file"
                                       : strerror(-r));
                return r;
        }
        net_nameservers_parse(buf, len, ret);
        return 0;
}
