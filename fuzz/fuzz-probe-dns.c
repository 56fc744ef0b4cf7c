/* Feeds arbitrary bytes to what probe.run reads from a target and its
 * resolver (src/agent/probe-dns.h): a DNS answer (as if to our query for
 * "ck14-web", type A), its /etc/hosts and its /etc/resolv.conf. All hostile.
 *
 * Checks: at most DNS_ADDRS_MAX addresses, each AF_INET or AF_INET6; a
 * failed parse leaves the result untouched; at most DNS_SEARCH_MAX search
 * domains, each a valid DNS name; ndots within 0..DNS_NDOTS_MAX; every
 * candidate name a valid DNS name; parsing is deterministic. */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "agent/probe-dns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void addrs_ok(const struct dns_addrs *a) {
        assert(a->n <= DNS_ADDRS_MAX);
        for (size_t i = 0; i < a->n; i++)
                assert(a->family[i] == AF_INET || a->family[i] == AF_INET6);
}

static void answer(const uint8_t *data, size_t size) {
        struct dns_addrs a = { 0 }, b = { 0 };
        uint16_t id = size >= 2 ? (uint16_t)((data[0] << 8) | data[1]) : 0;
        int r = dns_answer_parse(data, size, id, DNS_TYPE_A, &a);
        int s = dns_answer_parse(data, size, id, DNS_TYPE_A, &b);
        assert(r == s && a.n == b.n);
        if (r < 0)
                assert(a.n == 0);
        addrs_ok(&a);
}

static void files(const char *text, size_t size) {
        struct dns_addrs a;
        struct resolv_view v;
        char names[DNS_CANDIDATES_MAX][DNS_NAME_MAX + 1];
        hosts_lookup(text, size, "ck14-web", &a);
        addrs_ok(&a);
        resolv_view_parse(text, size, &v);
        assert(v.n_search <= DNS_SEARCH_MAX && v.ndots >= 0 && v.ndots <= DNS_NDOTS_MAX);
        for (size_t i = 0; i < v.n_search; i++)
                assert(dns_name_valid(v.search[i]));
        size_t n = resolv_candidates(&v, "ck14-web", names);
        assert(n >= 1 && n <= DNS_CANDIDATES_MAX);
        for (size_t i = 0; i < n; i++)
                assert(dns_name_valid(names[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        answer(data, size);
        files((const char *)data, size);
        return 0;
}
