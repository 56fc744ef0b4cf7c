#pragma once

/* Probes the effect checks of network faults send from inside the target's
 * network namespace: call them on an ns_net_run() thread, where the sockets
 * they open belong to the target's netns. Each is one packet exchange,
 * bounded by timeout_ms. A probe sent with mark NET_PROBE_MARK
 * (net-recipe.h) passes the lease's egress drop rules: the control that
 * shows the other side answers without the fault. */

#include <stdint.h>

enum net_probe_outcome {
        NET_PROBE_ANSWERED, /* a DNS reply with our id; a TCP connect accepted or refused */
        NET_PROBE_TIMEOUT,  /* nothing came back within timeout_ms */
        NET_PROBE_REFUSED,  /* DNS: ICMP port unreachable */
        NET_PROBE_ERROR,    /* could not send, or the network said no (err) */
        _NET_PROBE_OUTCOME_MAX,
};

struct net_probe_result {
        enum net_probe_outcome outcome;
        double ms; /* from the send to the answer (or to giving up) */
        int err;   /* NET_PROBE_ERROR: -errno */
};

/* One DNS query (type A, class IN, recursion desired) for name to
 * server:53 over UDP, from local_port (0: any). -EINVAL for a server that
 * is not an address literal or a name that is not a DNS name (labels of
 * 1..63 letters, digits, '-' or '_', 253 bytes in all). */
int net_probe_dns(
        const char *server, const char *name, uint32_t mark, uint16_t local_port, int timeout_ms,
        struct net_probe_result *ret);

/* One TCP connect to addr:port: accepted or refused (RST) is an answer. */
int net_probe_connect(
        const char *addr, uint16_t port, uint32_t mark, int timeout_ms, struct net_probe_result *ret);

/* The query net_probe_dns() sends, into buf: its length, or -EINVAL
 * (bad name) / -ENOBUFS. No I/O; for the unit tests. */
int net_probe_dns_query(const char *name, uint16_t id, uint8_t *buf, size_t size);
