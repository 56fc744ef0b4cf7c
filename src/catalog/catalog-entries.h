#pragma once

/* What the catalog's entry files (catalog-FAMILY.c) share: the parameter
 * shorthands, the sentences and the compensation templates. */

#include "catalog-internal.h"

/* One entry per fault id. Names, defaults and ranges follow the reference
 * (shared/reference/mayhem-spec.md §8.1) unless shared/DESIGN.md says
 * otherwise; where we deviate, the comment says why. Each family file
 * keeps its entries in id order; catalog.c indexes them all by id, and
 * tests/unit/test-catalog.c checks that no id is there twice.
 *
 * needs: the reference's required_caps, plus what our mechanism needs where
 * the reference listed none (net_admin for anything that installs a qdisc,
 * an nftables table, a proxy redirect or a DNS responder; cgroup_control
 * for payloads that join the target's cgroup). node_kinds: the reference's,
 * plus container wherever a service is container-based, so a container
 * target resolves to the same fault. */

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define TIB (UINT64_C(1) << 40)

#define P_DIRECTION                                                                                         \
        P_ENUM("direction", "egress", direction_choices, "which traffic: egress, ingress or both")
#define P_PROTOCOL           P_ENUM("protocol", "tcp", protocol_choices, "transport protocol: tcp or udp")
#define P_PORT(d)            P_INT("port", d, 1, 65535, "destination port")
#define P_PORT_REQ           P_INT_REQ("port", 1, 65535, "destination port")
#define P_DOMAIN             P_DNS_OPT("domain", "name (and its subdomains) to affect; every name when absent")
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
#define REFUSED(why, alt) .refusal = "not implemented in this version: " why, .alternative = alt

/* Compensation templates (catalog.h, struct fault_comp); each family shares one. */
#define COMP(u, v, e)                                                                                       \
        { .undo = { u }, .verify = { v }, .effect = e }
#define C_SIGNAL_STOP COMP("signal.cont", "process.not_stopped", "process.stopped")
#define C_PAUSE       COMP("engine.unpause", "container.running", "container.paused")
/* Terminating the main process is reconciled: the engine (or we) start the container again. */
#define C_RESTART(eff) COMP("engine.start", "container.running", eff)
#define C_CRASH_LOOP   COMP(P2("crash_loop.stop", "engine.start"), "container.running", "container.restarted")
#define C_CPU          COMP("cgroup.restore_cpu", "cgroup.cpu_restored", "cgroup.cpu_limited")
#define C_NOFILE       COMP("rlimit.restore_nofile", "rlimit.nofile_restored", "rlimit.nofile_lowered")
#define C_PAYLOAD      COMP("payload.kill", "payload.gone", "payload.running")
#define C_CPU_SATURATE COMP("payload.kill", "payload.gone", "cpu.busy")
/* Held threads or children: the effect is the pids cgroup measured full. */
#define C_PIDS COMP("payload.kill", "payload.gone", "pids.exhausted")
/* Paced I/O: the effect is the payload's storage I/O measured by the kernel. */
#define C_IO COMP("payload.kill", "payload.gone", "io.moving")
#define C_PAYLOAD_FILES                                                                                     \
        COMP(P2("payload.kill", "files.remove"), P2("payload.gone", "files.gone"), "payload.running")
#define C_PAYLOAD_FILL   COMP("payload.kill", "payload.gone", "fs.filled")
#define C_PAYLOAD_INODES COMP("payload.kill", "payload.gone", "fs.inodes_used")
#define C_NFT            COMP("nft.table_delete", "net.clean", "nft.rules_present")
/* The same rules, with an effect the agent can observe from the target's netns. */
#define C_NFT_DNS       COMP("nft.table_delete", "net.clean", "dns.unanswered")
#define C_NFT_PARTITION COMP("nft.table_delete", "net.clean", "net.unreachable")
#define C_SHAPED        COMP(P2("net.unshape", "nft.table_delete"), "net.clean", "net.shaped")
#define C_PROXY         COMP(P2("proxy.stop", "nft.table_delete"), P2("proxy.gone", "net.clean"), "proxy.listening")
#define C_DNS           COMP(P2("dns.stop", "nft.table_delete"), P2("dns.gone", "net.clean"), "dns.answering")
#define C_MOUNT         COMP("mount.remount_rw", "mount.writable", "mount.read_only")
#define C_LOADGEN       COMP("loadgen.stop", "loadgen.gone", "loadgen.running")
#define P2(a, b)        a, b
