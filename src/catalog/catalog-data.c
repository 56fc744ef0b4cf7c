#include "catalog-internal.h"

/* One entry per fault id. Names, defaults and ranges follow the reference
 * (shared/reference/mayhem-spec.md §8.1) unless shared/DESIGN.md says
 * otherwise; where we deviate, the comment says why. Keep sorted by id
 * (strcmp order); tests/unit/test-catalog.c checks it.
 *
 * needs: the reference's required_caps, plus what our mechanism needs where
 * the reference listed none (net_admin for anything that installs a qdisc,
 * an nftables table, a proxy redirect or a DNS responder; cgroup_control
 * for payloads that join the target's cgroup). node_kinds: the reference's,
 * plus container wherever a service is container-based, so a container
 * target resolves to the same fault. */

static const char *const direction_choices[] = { "egress", "ingress", "both", NULL };
static const char *const protocol_choices[] = { "tcp", "udp", NULL };
static const char *const tcp_only_choices[] = { "tcp", NULL };
static const char *const scope_protocol_choices[] = { "any", "tcp", "udp", NULL };
static const char *const signal_choices[] = {
        "SIGKILL", "SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2", NULL,
};
static const char *const mem_mode_choices[] = { "allocate", NULL };
static const char *const io_op_choices[] = { "read", "write", "both", NULL };
static const char *const fd_mode_choices[] = { "exhaust", "leak", NULL };
static const char *const db_error_choices[] = { "deadlock", "lock_timeout", "serialization_failure", NULL };
static const char *const slow_query_mode_choices[] = { "latency", "timeout", NULL };

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define TIB (UINT64_C(1) << 40)

#define P_DIRECTION                                                                                         \
        P_ENUM("direction", "egress", direction_choices, "which traffic: egress, ingress or both")
#define P_PROTOCOL           P_ENUM("protocol", "tcp", protocol_choices, "transport protocol: tcp or udp")
#define P_PORT(d)            P_INT("port", d, 1, 65535, "destination port")
#define P_PORT_REQ           P_INT_REQ("port", 1, 65535, "destination port")
#define P_DOMAIN             P_STR_OPT("domain", "name (and its subdomains) to affect; every name when absent")
#define P_PROBABILITY(d, lo) P_PCT("probability", d, lo, 100, "share of requests affected, percent")
/* Narrow a network fault to traffic to or from one port, and to one protocol. */
#define P_SCOPE                                                                                             \
        P_INT_OPT("port", 1, 65535, "only traffic to or from this port (every port when absent)"),          \
                P_ENUM("protocol", "any", scope_protocol_choices,                                           \
                       "only this transport protocol: tcp, udp or any")

/* The sentences every fault of one mechanism shares. */
#define PAYLOAD_UNDO   "SIGKILL the payload through its pidfd (PR_SET_PDEATHSIG also ends it with the agent)"
#define PAYLOAD_VERIFY "no payload pid of ours remains in the target's cgroup.procs"
#define QDISC_UNDO     "delete our qdisc and IFB device, or stop the NFQUEUE shaper and drop its nftables table"
#define NET_VERIFY     "no qdisc, IFB device or nftables table of ours remains in the target's netns"
#define NFT_UNDO       "delete our owner nftables table (the kernel also deletes it if the agent dies)"
#define NFT_VERIFY     "no nftables table of ours remains in the target's netns"
#define PROXY_UNDO     "delete the nftables redirect table and SIGKILL the proxy through its pidfd"
#define PROXY_VERIFY   "no nftables table or proxy process of ours remains in the target's netns"
#define DNS_UNDO       "delete the nftables redirect of port 53 and SIGKILL the responder through its pidfd"
#define DNS_VERIFY     "no nftables table or responder of ours remains in the target's netns"

/* Catalog-only: refused at plan time, before anything is touched. */
#define REFUSED(why, alt)                                                                                   \
        .mechanism = MECHANISM_NONE, .refusal = "not implemented in this version: " why, .alternative = alt

const struct fault_def catalog_faults[] = {
        {
                .id = "app.response_5xx",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("the proxy's canned status is offered as http.error_injection, not a second id",
                        "use http.error_injection with status 503"),
        },
        {
                /* No mechanism in this lane: the planner refuses it whenever the
                 * target shares the host kernel (every container does), because
                 * stepping the clock there moves the host's clock. It is not
                 * catalog-only since a target with its own kernel can take it. */
                .id = "clock.skew",
                .category = FAULT_CATEGORY_CLOCK,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_HOST | NK_CTR | NK_SVC,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NONE,
                PARAMS(P_INT_REQ("offset_ms", -86400000, 86400000, "signed clock step in milliseconds")),
                .effect = "the target's own kernel clock is stepped by offset_ms; the planner refuses the "
                          "fault "
                          "when the target shares the host kernel, so the host clock is never moved",
                .undo = "step the target's clock back by offset_ms",
                .verify = "the target's clock agrees with the controller's within the probe's tolerance",
        },
        {
                .id = "container.kill",
                .category = FAULT_CATEGORY_CONTAINER,
                .risk = RISK_MEDIUM,
                .max_duration_s = 60,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_ENGINE,
                PARAMS(P_ENUM(
                        "signal", "SIGKILL", signal_choices, "signal the engine delivers to the container")),
                .effect = "the Engine API kill delivers signal to the container's init process and the "
                          "container "
                          "exits",
                .undo = "Engine API start of the container",
                .verify = "the engine reports the container running",
        },
        {
                .id = "container.pause",
                .category = FAULT_CATEGORY_CONTAINER,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_ENGINE,
                .effect = "every process of the container is frozen (cgroup freezer); connections hang",
                .undo = "engine unpause",
                .verify = "engine reports the container running and not paused",
        },
        {
                .id = "container.restart",
                .category = FAULT_CATEGORY_CONTAINER,
                .risk = RISK_MEDIUM,
                .max_duration_s = 60,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_ENGINE,
                .effect = "the Engine API restarts the container: its processes stop, start again, and drop "
                          "every "
                          "open connection",
                .undo = "Engine API start of the container if it is not running after the restart",
                .verify = "the engine reports the container running",
        },
        {
                .id = "cpu.burst",
                .category = FAULT_CATEGORY_CPU,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs cgroup v2 cpu.max.burst (Linux 5.14) with its previous value journalled",
                        "use cpu.throttle to cap the CPU instead"),
        },
        {
                .id = "cpu.saturate",
                .category = FAULT_CATEGORY_CPU,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_PCT("percent", 80, 1, 100, "share of the target's CPU allowance to keep busy")),
                .effect = "burner threads forked into the target's cgroup and namespaces keep percent of "
                          "its CPU "
                          "allowance busy",
                .undo = PAYLOAD_UNDO,
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "cpu.throttle",
                .category = FAULT_CATEGORY_CPU,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_ENGINE | NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_CGROUP,
                PARAMS(P_PCT(
                        "percent", 50, 1, 100, "CPU quota as a share of the target's current allowance")),
                .effect = "the target's CPU quota is cut to percent of its allowance (Engine API update of "
                          "the "
                          "CPU limit, or cpu.max / cpu.cfs_quota_us in its cgroup)",
                .undo = "write back the quota read and journalled before the fault, not a default",
                .verify = "the engine's CPU limit or the cgroup quota equals the journalled previous value",
        },
        {
                /* connections: the reference requires it; DESIGN gives 32, so a
                 * drill may leave it out. host: the reference requires it; absent
                 * here means the target itself. */
                .id = "db.connection_exhaust",
                .category = FAULT_CATEGORY_DATABASE,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_EXT | NK_SVC | NK_CTR,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_INT("connections", 32, 1, 256, "idle connections to hold open"),
                       P_STR_OPT("host", "database host; the target itself when absent"), P_PORT(3306)),
                .effect = "a socket holder forked into the target's netns opens connections idle TCP "
                          "connections "
                          "to host:port and keeps them, using up the server's connection slots",
                .undo = "SIGKILL the holder through its pidfd; the kernel closes its sockets",
                .verify = "the holder is gone and sock_diag shows no connection of ours to host:port",
        },
        {
                .id = "db.query_error",
                .category = FAULT_CATEGORY_DATABASE,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_EXT | NK_SVC | NK_CTR,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PROBABILITY(100, 1),
                       P_ENUM("error", "deadlock", db_error_choices,
                              "database error the drill expects to see"),
                       P_INT("timeout_ms", 5000, 100, 120000,
                             "client timeout the drill expects, milliseconds"),
                       P_PORT(3306)),
                .effect =
                        "an nftables numgen rule in an owner table resets probability of the connections to "
                        "port, so queries fail with a connection error (error and timeout_ms are recorded, "
                        "the "
                        "wire carries no SQL error code)",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                .id = "db.slow_query",
                .category = FAULT_CATEGORY_DATABASE,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_EXT | NK_SVC | NK_CTR,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_PORT(3306),
                       P_MS_ALIAS(
                               "delay_ms", 1000, 1, 60000, "seconds",
                               "added delay per packet, milliseconds"),
                       P_ENUM("mode", "latency", slow_query_mode_choices,
                              "latency: answers arrive late; timeout: held past the client timeout")),
                .effect = "traffic on the database port is delayed delay_ms (mode timeout: held past the "
                          "client's timeout) by netem on a port filter or the NFQUEUE shaper",
                .undo = QDISC_UNDO,
                .verify = NET_VERIFY,
        },
        {
                .id = "dependency.block",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PORT_REQ, P_PROTOCOL),
                .effect =
                        "an nftables owner table drops protocol traffic to port, so connects hang until the "
                        "client times out",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                .id = "dependency.circuit_open",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_EXT | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs canned 503 answers with Retry-After in the transparent proxy",
                        "use http.error_injection with status 503"),
        },
        {
                /* port: the reference requires it; DESIGN gives 80. */
                .id = "dependency.connection_refuse",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PORT(80), P_PROTOCOL),
                .effect = "an nftables owner table rejects traffic to port (TCP reset, ICMP port "
                          "unreachable for "
                          "UDP), so clients see connection refused",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                .id = "dependency.flap",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PORT_REQ, P_DUR("interval", 10000, 100, 300000, "length of one on/off period"),
                       P_PCT("failure_probability", 50, 0, 100,
                             "share of periods in which traffic is dropped"),
                       P_PROTOCOL),
                .effect =
                        "a drop rule for protocol traffic to port in an nftables owner table is switched on "
                        "for failure_probability of the intervals and off for the rest",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                .id = "dependency.malformed_response",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs response-body rewriting in the transparent proxy",
                        "use http.error_injection to make the dependency answer with an error"),
        },
        {
                .id = "dependency.rate_limit",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PROXY,
                PARAMS(P_INT_REQ("rate", 1, 1000, "requests per second let through"),
                       P_INT("burst", 200, 1, 1000, "token bucket size, requests"),
                       P_INT("code", 429, 100, 599, "HTTP status for requests over the limit"), P_PORT(80)),
                .effect =
                        "an nftables redirect sends port through our transparent proxy, whose token bucket "
                        "(rate per second, burst) lets requests through and answers the rest with code",
                .undo = PROXY_UNDO,
                .verify = PROXY_VERIFY,
        },
        {
                .id = "dependency.response_truncate",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_EXT | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs response-body truncation in the transparent proxy",
                        "use net.connection_reset on the dependency's port"),
        },
        {
                /* delay_ms: the reference requires it; DESIGN gives 500. */
                .id = "dependency.timeout",
                .category = FAULT_CATEGORY_DEPENDENCY,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_PORT_REQ, P_INT("delay_ms", 500, 1, 30000, "added delay per packet, milliseconds"),
                       P_PROTOCOL),
                .effect =
                        "protocol traffic to port is held delay_ms (netem on a port filter, or the NFQUEUE "
                        "shaper), so the dependency answers late",
                .undo = QDISC_UNDO,
                .verify = NET_VERIFY,
        },
        {
                .id = "dns.nxdomain",
                .category = FAULT_CATEGORY_DNS,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_DNS,
                PARAMS(P_DOMAIN),
                .effect = "an nftables redirect of port 53 sends the target's queries to our DNS responder "
                          "in its "
                          "netns, which answers NXDOMAIN for domain and forwards other names",
                .undo = DNS_UNDO,
                .verify = DNS_VERIFY,
        },
        {
                .id = "dns.resolve_delay",
                .category = FAULT_CATEGORY_DNS,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_DNS,
                PARAMS(P_DOMAIN, P_MS_ALIAS(
                                         "delay_ms", 1000, 1, 30000, "seconds",
                                         "added resolution delay, milliseconds")),
                .effect = "our DNS responder in the target's netns (nftables redirect of port 53) forwards "
                          "queries "
                          "for domain to the original resolver and returns the answer delay_ms late",
                .undo = DNS_UNDO,
                .verify = DNS_VERIFY,
        },
        {
                .id = "dns.servfail",
                .category = FAULT_CATEGORY_DNS,
                .risk = RISK_MEDIUM,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_DNS,
                PARAMS(P_DOMAIN, P_PROBABILITY(100, 1)),
                .effect = "our DNS responder in the target's netns (nftables redirect of port 53) answers "
                          "probability of the queries for domain with SERVFAIL and forwards the rest",
                .undo = DNS_UNDO,
                .verify = DNS_VERIFY,
        },
        {
                .id = "dns.timeout",
                .category = FAULT_CATEGORY_DNS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PROBABILITY(80, 1)),
                .effect = "an nftables owner table in the target's netns drops probability of its DNS "
                          "queries (UDP and TCP port 53), so its resolver times out",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                .id = "fd.exhaust",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_INT("limit", 64, 1, 1048576, "descriptors to hold open"),
                       P_ENUM("mode", "exhaust", fd_mode_choices,
                              "exhaust: open all at once; leak: a few at a time")),
                .effect = "a descriptor holder forked into the target's namespaces and cgroup opens limit "
                          "descriptors (at once, or gradually in mode leak) and keeps them open",
                .undo = "SIGKILL the holder through its pidfd; the kernel closes its descriptors",
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "fs.corrupt",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a journalled backup of the overwritten byte range in the target's mount "
                        "namespace",
                        "use fs.read_only to make the path fail writes instead"),
        },
        {
                .id = "fs.fill",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_PCT("percent", 45, 1, 99, "share of the free space to fill"),
                       P_STR("path", "/tmp", "directory in the target's filesystem to fill")),
                .effect =
                        "a payload in the target's mount namespace writes files under path until percent of "
                        "the free space (at most 1 GiB) is used",
                .undo = "unlink the files we created, whose names are journalled",
                .verify = "none of our files remain under path in the target's mount namespace",
        },
        {
                .id = "fs.inode_exhaust",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_PCT("percent", 50, 1, 99, "share of the free inodes to use"),
                       P_STR("path", "/tmp",
                             "directory in the target's filesystem to fill with empty files")),
                .effect = "a payload in the target's mount namespace creates empty files under path until "
                          "percent of the free inodes (at most 200000) are used",
                .undo = "remove our directory of empty files under path",
                .verify = "our directory is gone from path in the target's mount namespace",
        },
        {
                .id = "fs.io_stress",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_INT("workers", 1, 1, 8, "parallel I/O workers"),
                       P_BYTES("io_bytes", 64 * MIB, MIB, GIB, "bytes each worker moves per pass"),
                       P_INT_OPT("read_mb_s", 1, 512, "read pace per worker, MiB/s; unpaced when absent"),
                       P_INT_OPT("write_mb_s", 1, 512, "write pace per worker, MiB/s; unpaced when absent"),
                       P_BYTES("block_size", 64 * KIB, 4 * KIB, 16 * MIB, "size of one read or write"),
                       P_ENUM("op", "both", io_op_choices, "read, write or both"),
                       P_DUR_OPT(
                               "seconds", 1000, 120000,
                               "how long the workers run; the fault's duration when absent")),
                .effect = "workers paced read/write workers forked into the target's mount namespace and "
                          "cgroup "
                          "move io_bytes in block_size blocks at up to read_mb_s / write_mb_s",
                .undo = "SIGKILL the workers through their pidfds and unlink their scratch files",
                .verify = "no worker pid remains in the target's cgroup.procs and no scratch file remains",
        },
        {
                .id = "fs.permission_failure",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a chmod in the target's mount namespace with the previous mode journalled",
                        "use fs.read_only on the path"),
        },
        {
                .id = "fs.quota",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs project quotas on the filesystem backing the target",
                        "use fs.fill to run the filesystem short of space"),
        },
        {
                .id = "fs.read_only",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_HOST,
                .needs = NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_MOUNT,
                PARAMS(P_STR("path", "/", "path whose mount is made read-only")),
                .effect =
                        "the mount holding path in the target's mount namespace is remounted read-only, so "
                        "writes fail with EROFS",
                .undo = "remount it in the target's mount namespace with the flags read before the fault",
                .verify = "the target's /proc/PID/mountinfo shows the mount with its journalled flags",
        },
        {
                .id = "fs.write_delay",
                .category = FAULT_CATEGORY_FILESYSTEM,
                .risk = RISK_MEDIUM,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_FS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a FUSE overlay or the io.latency cgroup controller to delay writes",
                        "use fs.io_stress to slow the target's disk"),
        },
        {
                .id = "fuzz.protocol_abuse",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_HIGH,
                .max_duration_s = 180,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_DUR("seconds", 8000, 1000, 180000, "how long to send malformed requests"),
                       P_INT_OPT(
                               "port", 1, 65535,
                               "service port; the service's published HTTP port when absent")),
                .effect = "a payload sends malformed HTTP (bad framing, oversized headers, truncated "
                          "bodies) to "
                          "the service port for seconds",
                .undo = "SIGKILL the payload through its pidfd; the kernel closes its connections",
                .verify = "the payload is gone and the service answers a well-formed request",
        },
        {
                /* probability: the reference defaults to 0.0, which injects
                 * nothing; a fault that does nothing by default is a survey, so
                 * we default to 100. */
                .id = "http.error_injection",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PROXY,
                PARAMS(P_INT("status", 500, 100, 599, "HTTP status of the canned answer"),
                       P_PROBABILITY(100, 0), P_PORT(80)),
                .effect = "an nftables redirect sends port through our transparent proxy in the target's "
                          "netns, "
                          "which answers probability of the requests with a canned status response",
                .undo = PROXY_UNDO,
                .verify = PROXY_VERIFY,
        },
        {
                .id = "http.header_inject",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_EXT | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs header rewriting in the transparent proxy",
                        "use http.error_injection to change the response status"),
        },
        {
                .id = "http.latency",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PROXY,
                PARAMS(P_INT("delay_ms", 100, 1, 30000, "added delay per request, milliseconds"),
                       P_PROBABILITY(100, 1), P_PORT(80)),
                .effect = "an nftables redirect sends port through our transparent proxy in the target's "
                          "netns, "
                          "which holds probability of the requests delay_ms before forwarding them",
                .undo = PROXY_UNDO,
                .verify = PROXY_VERIFY,
        },
        {
                .id = "http.response_truncate",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_EXT | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs response-body truncation in the transparent proxy",
                        "use net.connection_reset on the service port"),
        },
        {
                .id = "http.stream_stall",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_EXT | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs mid-body stalls in the transparent proxy",
                        "use http.latency with a long delay_ms"),
        },
        {
                .id = "http.upstream_timeout",
                .category = FAULT_CATEGORY_HTTP,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs per-upstream stalls in the transparent proxy",
                        "use http.latency with a long delay_ms"),
        },
        {
                .id = "load.spike",
                .category = FAULT_CATEGORY_LOAD,
                .risk = RISK_LOW,
                .max_duration_s = 900,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_LOADGEN,
                PARAMS(P_DUR("seconds", 8000, 1000, 900000, "how long the spike lasts"),
                       P_INT("rps", 60, 1, 100000, "requests per second")),
                .effect = "the built-in HTTP load generator, forked into the target's netns, sends rps "
                          "requests "
                          "per second to the service for seconds",
                .undo = "SIGKILL the generator through its pidfd if it has not finished",
                .verify = "the generator is gone and holds no connection to the target",
        },
        {
                .id = "mem.exhaust",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_PCT("percent", 60, 1, 99, "share of the memory limit to allocate"),
                       P_BYTES_OPT("amount", MIB, TIB, "bytes to allocate; overrides percent"),
                       P_ENUM("mode", "allocate", mem_mode_choices, "how memory is taken: allocate")),
                .effect =
                        "a balloon forked into the target's memory cgroup allocates and touches amount (or "
                        "percent of the limit), capped below memory.max so the target is not OOM-killed",
                .undo = "SIGKILL the balloon through its pidfd; the kernel frees its pages",
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "mem.freeze",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs memory.high pinning in the target's cgroup with the previous value "
                        "journalled",
                        "use mem.exhaust with a high percent, or container.pause"),
        },
        {
                .id = "mem.leak",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PAYLOAD,
                PARAMS(P_INT("rate_mb", 8, 1, 512, "MiB allocated per second")),
                .effect = "a payload forked into the target's memory cgroup allocates and touches rate_mb "
                          "MiB more "
                          "every second, stopping below memory.max",
                .undo = "SIGKILL the payload through its pidfd; the kernel frees its pages",
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "mem.swap_pressure",
                .category = FAULT_CATEGORY_MEMORY,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE | NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs memory.swap.max tuning in the target's cgroup and swap on the host",
                        "use mem.exhaust to press on the memory limit"),
        },
        {
                .id = "net.bandwidth",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_TBF,
                PARAMS(P_RATE_REQ("rate", 8, 100e9, "bandwidth cap, e.g. 10mbit"),
                       P_BYTES("burst", 10 * KIB, KIB, 64 * MIB, "tbf bucket size"), P_DIRECTION, P_SCOPE),
                .effect = "a tbf qdisc on the target's interface (ingress through an IFB device) caps its "
                          "traffic "
                          "at rate with a burst-byte bucket",
                .undo = "delete our tbf qdisc and IFB device",
                .verify = NET_VERIFY,
        },
        {
                .id = "net.congestion",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC | NK_SVC,
                .needs = NEED_ENGINE | NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a queueing model of a shared congested link",
                        "use net.bandwidth with a low rate together with net.latency"),
        },
        {
                .id = "net.conn_exhaust",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a socket-holder payload for ephemeral ports and the accept queue",
                        "use db.connection_exhaust against the service's port"),
        },
        {
                /* port: the reference requires it; DESIGN gives 80, so a drill
                 * against a web service can leave it out. */
                .id = "net.connection_refuse",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PORT(80), P_PROTOCOL),
                .effect = "an nftables owner table in the target's netns rejects connections to port (TCP "
                          "reset, "
                          "ICMP port unreachable for UDP), so clients see connection refused",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                /* port: the reference requires it; DESIGN gives 80, so a drill
                 * against a web service can leave it out. protocol: tcp only,
                 * since a reset only exists in TCP. */
                .id = "net.connection_reset",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PORT(80), P_ENUM("protocol", "tcp", tcp_only_choices, "transport protocol: tcp")),
                .effect = "an nftables owner table in the target's netns answers TCP packets to port with a "
                          "reset, so clients see ECONNRESET",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                .id = "net.corrupt",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC | NK_SVC,
                .needs = NEED_ENGINE | NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_PCT("percent", 1.0, 0.01, 100, "share of packets corrupted"), P_DIRECTION, P_SCOPE),
                .effect = "netem corrupt (or the NFQUEUE shaper) flips a random bit in percent of the "
                          "target's "
                          "packets, so their checksums fail",
                .undo = QDISC_UNDO,
                .verify = NET_VERIFY,
        },
        {
                .id = "net.duplicate",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_PCT("percent", 10, 0.01, 100, "share of packets sent twice"), P_DIRECTION, P_SCOPE),
                .effect = "netem duplicate (or the NFQUEUE shaper) sends percent of the target's packets "
                          "twice",
                .undo = QDISC_UNDO,
                .verify = NET_VERIFY,
        },
        {
                .id = "net.interface_down",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs link down in the target's netns, which also cuts our probes' path to it",
                        "use net.partition to cut the target off"),
        },
        {
                .id = "net.latency",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_MS_ALIAS(
                               "delay_ms", 100, 1, 60000, "seconds", "added one-way delay in milliseconds"),
                       P_INT("jitter_ms", 0, 0, 60000, "random variation of the delay, milliseconds"),
                       P_DIRECTION, P_SCOPE),
                .effect = "packets leaving (or entering) the target are held delay_ms ± jitter_ms",
                .undo = "delete our qdisc / stop the shaper and drop its nftables table",
                .verify = "no qdisc, IFB device or nftables table of ours remains in the target's netns",
        },
        {
                .id = "net.load",
                .category = FAULT_CATEGORY_LOAD,
                .risk = RISK_MEDIUM,
                .max_duration_s = 600,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_LOADGEN,
                PARAMS(P_INT("users", 1, 1, 10000, "concurrent virtual users"),
                       P_STR_OPT(
                               "url", "URL to load; derived from the service's published port when absent"),
                       P_STR_OPT("script", "k6 script, path relative to the drill file"),
                       P_STR_OPT("script_content", "k6 script given inline")),
                .effect = "the built-in load generator on the host (k6 when a script is given and k6 is "
                          "installed) runs users virtual users against url",
                .undo = "SIGKILL the generator through its pidfd",
                .verify = "the generator is gone and holds no connection to the target",
        },
        {
                .id = "net.mtu_mismatch",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs an rtnetlink MTU change in the target's netns with the previous MTU "
                        "journalled",
                        "use net.packet_loss to lose the oversized packets"),
        },
        {
                .id = "net.packet_loss",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_PCT("percent", 10, 0.01, 100, "share of packets dropped"), P_DIRECTION, P_SCOPE),
                .effect = "netem loss (or an nftables numgen drop rule in an owner table) drops percent of "
                          "the "
                          "target's packets",
                .undo = QDISC_UNDO,
                .verify = NET_VERIFY,
        },
        {
                .id = "net.partition",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_ENUM(
                        "direction", "both", direction_choices, "which traffic: egress, ingress or both")),
                .effect = "an nftables owner table in the target's netns drops all traffic to and from its "
                          "peers "
                          "(every address but loopback when no peers are named)",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
        {
                .id = "net.reorder",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_SVC | NK_CTR | NK_POD,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NET_SHAPE,
                PARAMS(P_PCT("percent", 30, 0.01, 100, "share of packets sent ahead of the delayed ones"),
                       P_INT("delay_ms", 50, 1, 60000, "delay of the packets that are held, milliseconds"),
                       P_DIRECTION, P_SCOPE),
                .effect = "netem reorder (or the NFQUEUE shaper) sends percent of the target's packets at "
                          "once and "
                          "holds the rest delay_ms, so they arrive out of order",
                .undo = QDISC_UNDO,
                .verify = NET_VERIFY,
        },
        {
                .id = "net.tcp_half_open",
                .category = FAULT_CATEGORY_NETWORK,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a conntrack-aware drop of one direction of established flows",
                        "use dependency.block on the port for a silent drop"),
        },
        {
                /* DESIGN lists the service only; container added so a
                 * container target of a compose service matches. */
                .id = "node.service_stop",
                .category = FAULT_CATEGORY_CONTAINER,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_ENGINE,
                .effect = "the Engine API stops every container of the service",
                .undo = "Engine API start of the containers that were stopped",
                .verify = "the engine reports each of them running",
        },
        {
                .id = "proc.pause",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_LOW,
                .max_duration_s = 600,
                .node_kinds = NK_PROC | NK_SVC | NK_CTR,
                .needs = NEED_PROCESS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_SIGNAL,
                .effect =
                        "the target's processes are stopped with SIGSTOP through pidfds (or frozen with the "
                        "cgroup freezer); they keep their sockets but answer nothing",
                .undo = "SIGCONT through the same pidfds, or thaw the cgroup",
                .verify =
                        "no process of the target is in state T in /proc/PID/stat and the cgroup is thawed",
        },
        {
                .id = "process.child_exhaust",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a fork-holder payload in the target's pid namespace bounded by pids.max",
                        "use fd.exhaust to exhaust a per-process limit"),
        },
        {
                .id = "process.crash_loop",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_RECONCILED,
                .mechanism = MECHANISM_ENGINE,
                PARAMS(P_INT("restarts", 10, 1, 1000, "how many stop/start cycles"),
                       P_DUR("interval", 2000, 100, 3600000, "time between cycles")),
                .effect = "the Engine API stops and starts the container every interval, restarts times",
                .undo = "end the cadence and Engine API start of the container if it is stopped",
                .verify = "the engine reports the container running and its health probe passes",
        },
        {
                .id = "process.kill",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 60,
                .node_kinds = NK_PROC | NK_SVC | NK_CTR,
                .needs = NEED_PROCESS,
                .reversibility = REVERSIBILITY_RECONCILED,
                .mechanism = MECHANISM_SIGNAL,
                .effect = "SIGKILL through a pidfd taken with a start-time check ends the target's process "
                          "at once",
                .undo = "start the service again through its engine or host unit (a new process, not the "
                        "same one)",
                .verify = "a new process of the target is running and its health probe passes",
        },
        {
                .id = "process.restart_delay",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_CTR | NK_PROC,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_RECONCILED,
                REFUSED("needs a hook in the engine's restart path to hold each start",
                        "use process.crash_loop with interval set to the delay"),
        },
        {
                .id = "process.startup_delay",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_SVC | NK_CTR,
                .needs = NEED_PROCESS,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs the process held at exec before it runs (ptrace or a wrapper entrypoint)",
                        "use proc.pause right after a container.restart"),
        },
        {
                .id = "process.stop",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_MEDIUM,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_SVC | NK_CTR,
                .needs = NEED_PROCESS,
                .reversibility = REVERSIBILITY_RECONCILED,
                .mechanism = MECHANISM_SIGNAL,
                .effect =
                        "SIGTERM through a pidfd taken with a start-time check asks the target's process to "
                        "shut down",
                .undo = "start the service again through its engine or host unit (a new process, not the "
                        "same one)",
                .verify = "a new process of the target is running and its health probe passes",
        },
        {
                .id = "process.thread_exhaust",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 300,
                .node_kinds = NK_PROC | NK_CTR | NK_SVC,
                .needs = 0,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                REFUSED("needs a thread-holder payload in the target's cgroup bounded by pids.max",
                        "use fd.exhaust to exhaust a per-process limit"),
        },
        {
                .id = "tls.certificate_expired",
                .category = FAULT_CATEGORY_TLS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_PROXY,
                PARAMS(P_PORT(443)),
                .effect = "an nftables redirect sends port to our transparent proxy, which terminates TLS "
                          "with an "
                          "expired certificate, so clients that verify certificates fail the handshake",
                .undo = PROXY_UNDO,
                .verify = PROXY_VERIFY,
        },
        {
                .id = "tls.handshake_failure",
                .category = FAULT_CATEGORY_TLS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR | NK_EXT,
                .needs = NEED_NET_ADMIN,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .mechanism = MECHANISM_NFT,
                PARAMS(P_PORT(443)),
                .effect = "an nftables owner table answers TCP packets to port with a reset, so TLS "
                          "handshakes "
                          "never complete",
                .undo = NFT_UNDO,
                .verify = NFT_VERIFY,
        },
};

const size_t catalog_faults_count = sizeof(catalog_faults) / sizeof(catalog_faults[0]);
