#pragma once

/* A container's DNS view for the agent's probes, with no I/O: its
 * /etc/hosts, its /etc/resolv.conf (nameservers, search, ndots) and a
 * small A/AAAA query/answer codec (RFC 1035), so that a name resolves the
 * way the container would without glibc loading NSS modules from the
 * target's image. Every input is the target's and hostile: bounded lengths
 * and counts, compression pointers followed a bounded number of times. */

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "fault/net-resolv.h"

#define DNS_NAME_MAX       253  /* text form, no trailing dot */
#define DNS_MSG_MAX        1232 /* what we accept over UDP (the EDNS-safe size) */
#define DNS_ADDRS_MAX      8
#define DNS_SEARCH_MAX     6  /* glibc's MAXDNSRCH */
#define DNS_NDOTS_MAX      15 /* glibc caps ndots at 15 */
#define DNS_TYPE_A         1
#define DNS_TYPE_AAAA      28
#define DNS_CANDIDATES_MAX (DNS_SEARCH_MAX + 1)

struct dns_addrs {
        size_t n;
        int family[DNS_ADDRS_MAX]; /* AF_INET or AF_INET6 */
        uint8_t addr[DNS_ADDRS_MAX][16];
};

struct resolv_view {
        struct net_nameservers ns;
        size_t n_search;
        char search[DNS_SEARCH_MAX][DNS_NAME_MAX + 1];
        int ndots; /* 1 when not written, as glibc */
};

/* A host name as DNS carries it: 1..253 bytes of labels 1..63 of letters,
 * digits, '-' and '_', separated by single dots; one trailing dot allowed. */
bool dns_name_valid(const char *name);

/* The "nameserver", "search" (and "domain") and "options ndots:N" of a
 * resolv.conf text (len bytes); the last search/domain line wins, as glibc. */
void resolv_view_parse(const char *text, size_t len, struct resolv_view *ret);

/* The names to ask, in glibc's order: the name as written first when it
 * has at least ndots dots (or ends in a dot), then with each search domain,
 * then as written when it had fewer dots. How many were written to ret. */
size_t resolv_candidates(
        const struct resolv_view *v, const char *name, char ret[DNS_CANDIDATES_MAX][DNS_NAME_MAX + 1]);

/* The addresses /etc/hosts (text, len bytes) gives name (case-insensitive,
 * canonical name or alias); 0 with ret->n == 0 when it names none. */
void hosts_lookup(const char *text, size_t len, const char *name, struct dns_addrs *ret);

/* A recursive query for name of qtype with id: its length, or -EINVAL for a bad name / small buffer. */
int dns_query_build(const char *name, uint16_t id, uint16_t qtype, uint8_t *buf, size_t size);

/* The A/AAAA records of an answer to our query (id, qtype) appended to
 * ret (up to DNS_ADDRS_MAX). 0 (possibly none added: NODATA), -ENOENT for
 * NXDOMAIN, -EAGAIN for SERVFAIL/REFUSED, -EPROTO for anything malformed or
 * not an answer to that query; ret is changed only on success. */
int dns_answer_parse(const uint8_t *msg, size_t len, uint16_t id, uint16_t qtype, struct dns_addrs *ret);
