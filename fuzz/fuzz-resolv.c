/* Feeds arbitrary bytes to what the agent reads from a target: its
 * /etc/resolv.conf (net_nameservers_parse(), src/fault/net-resolv.h), and
 * the same bytes as a name for the DNS query it sends
 * (net_probe_dns_query()). The file belongs to the target: hostile.
 *
 * Checks: at most NET_NAMESERVERS_MAX nameservers, each a NUL-terminated
 * IPv4 or IPv6 literal that appears in the input; parsing is deterministic.
 * A query is built only for a DNS name (labels of 1..63 of [A-Za-z0-9_-],
 * 253 bytes in all), fits its buffer and ends with type A, class IN. */

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fault/net-probe.h"
#include "fault/net-resolv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void nameservers(const char *text, size_t size) {
        struct net_nameservers a, b;
        unsigned char buf[sizeof(struct in6_addr)];
        net_nameservers_parse(text, size, &a);
        net_nameservers_parse(text, size, &b);
        assert(a.n <= NET_NAMESERVERS_MAX && a.n == b.n);
        for (size_t i = 0; i < a.n; i++) {
                size_t len = strnlen(a.addr[i], sizeof(a.addr[i]));
                assert(len > 0 && len < sizeof(a.addr[i]));
                assert(strcmp(a.addr[i], b.addr[i]) == 0);
                assert(inet_pton(AF_INET, a.addr[i], buf) == 1 || inet_pton(AF_INET6, a.addr[i], buf) == 1);
                assert(memmem(text, size, a.addr[i], len) != NULL);
        }
}

static void query(const uint8_t *data, size_t size) {
        char name[300];
        uint8_t q[300];
        size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
        memcpy(name, data, n);
        name[n] = '\0';
        int r = net_probe_dns_query(name, 0x6d68, q, sizeof(q));
        assert(r == -EINVAL || r == -ENOBUFS || (r >= 12 + 1 + 4 && (size_t)r <= sizeof(q)));
        if (r > 0) {
                assert(q[0] == 0x6d && q[1] == 0x68);
                assert(q[r - 4] == 0 && q[r - 3] == 1 && q[r - 2] == 0 && q[r - 1] == 1);
                assert(strlen(name) <= 253);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        nameservers((const char *)data, size);
        query(data, size);
        return 0;
}
