#pragma once

/* http and tcp probes run on a thread inside a target's network namespace
 * (sys/ns.h ns_net_run), with the target's DNS view: its /etc/hosts, then
 * the nameservers / search / ndots of its /etc/resolv.conf, queried from
 * inside the namespace (Docker's embedded DNS on 127.0.0.11 answers there).
 * A probe only connects and reads: it never writes to the target. */

#include "probe-dns.h"
#include "probe-request.h"
#include "sys/process.h"

#define PROBE_FILE_MAX 4096 /* hosts and resolv.conf bytes read */

struct probe_view {
        char hosts[PROBE_FILE_MAX + 1];
        size_t hosts_len;
        struct resolv_view resolv;
};

struct probe_outcome {
        bool ok;
        double latency_ms;
        long status;
        char detail[256];
};

/* The target's /etc/hosts and /etc/resolv.conf read through its root with
 * open_in_root (no symlink leaves it); a missing or oversized file is an
 * empty one. -ESRCH when the process is gone or its pid was reused. */
int probe_view_read(const struct proc_identity *id, struct probe_view *ret);

/* Runs req inside id's network namespace; out says what it measured. */
void probe_netns_run(
        const struct proc_identity *id, const struct probe_view *view, const struct agent_probe_req *req,
        struct probe_outcome *out);
