#include "compensation.h"

#include <string.h>

#include "basic/macro.h"

#define OPS(...)    { __VA_ARGS__ }, sizeof((enum comp_op[]){ __VA_ARGS__ }) / sizeof(enum comp_op)
#define PROBES(...) { __VA_ARGS__ }, sizeof((enum verify_probe[]){ __VA_ARGS__ }) / sizeof(enum verify_probe)
#define T(id, undo, verify, effect)                                                                         \
        { id, undo, verify, effect }

/* The families share shapes; each line still names its fault so a reader
 * (and the registry test) sees every id. clock.skew has no template: the
 * planner refuses it before compensation is considered. */
#define PAYLOAD(id) T(id, OPS(COMP_OP_PAYLOAD_KILL), PROBES(VERIFY_PAYLOAD_GONE), EFFECT_PAYLOAD_RUNNING)
#define PAYLOAD_FILES(id)                                                                                   \
        T(id, OPS(COMP_OP_PAYLOAD_KILL, COMP_OP_FILES_REMOVE),                                              \
          PROBES(VERIFY_PAYLOAD_GONE, VERIFY_FILES_GONE), EFFECT_PAYLOAD_RUNNING)
#define SHAPED(id)                                                                                          \
        T(id, OPS(COMP_OP_NET_UNSHAPE, COMP_OP_NFT_TABLE_DELETE), PROBES(VERIFY_NET_CLEAN),                 \
          EFFECT_NET_SHAPED)
#define NFT(id) T(id, OPS(COMP_OP_NFT_TABLE_DELETE), PROBES(VERIFY_NET_CLEAN), EFFECT_NFT_RULES_PRESENT)
#define PROXY(id)                                                                                           \
        T(id, OPS(COMP_OP_PROXY_STOP, COMP_OP_NFT_TABLE_DELETE),                                            \
          PROBES(VERIFY_PROXY_GONE, VERIFY_NET_CLEAN), EFFECT_PROXY_LISTENING)
#define DNS(id)                                                                                             \
        T(id, OPS(COMP_OP_DNS_STOP, COMP_OP_NFT_TABLE_DELETE), PROBES(VERIFY_DNS_GONE, VERIFY_NET_CLEAN),   \
          EFFECT_DNS_ANSWERING)
#define LOADGEN(id)      T(id, OPS(COMP_OP_LOADGEN_STOP), PROBES(VERIFY_LOADGEN_GONE), EFFECT_LOADGEN_RUNNING)
#define RESTART(id, eff) T(id, OPS(COMP_OP_ENGINE_START), PROBES(VERIFY_CONTAINER_RUNNING), eff)

static const struct comp_template templates[] = {
        T("container.pause", OPS(COMP_OP_ENGINE_UNPAUSE), PROBES(VERIFY_CONTAINER_RUNNING),
          EFFECT_CONTAINER_PAUSED),
        RESTART("container.kill", EFFECT_CONTAINER_EXITED),
        RESTART("container.restart", EFFECT_CONTAINER_RESTARTED),
        RESTART("node.service_stop", EFFECT_CONTAINER_EXITED),
        T("cpu.throttle", OPS(COMP_OP_CGROUP_RESTORE_CPU), PROBES(VERIFY_CPU_RESTORED), EFFECT_CPU_LIMITED),
        PAYLOAD("cpu.saturate"),
        PAYLOAD("db.connection_exhaust"),
        NFT("db.query_error"),
        SHAPED("db.slow_query"),
        NFT("dependency.block"),
        NFT("dependency.connection_refuse"),
        NFT("dependency.flap"),
        PROXY("dependency.rate_limit"),
        SHAPED("dependency.timeout"),
        DNS("dns.nxdomain"),
        DNS("dns.resolve_delay"),
        DNS("dns.servfail"),
        NFT("dns.timeout"),
        PAYLOAD("fd.exhaust"),
        PAYLOAD_FILES("fs.fill"),
        PAYLOAD_FILES("fs.inode_exhaust"),
        PAYLOAD_FILES("fs.io_stress"),
        T("fs.read_only", OPS(COMP_OP_MOUNT_REMOUNT_RW), PROBES(VERIFY_MOUNT_WRITABLE),
          EFFECT_MOUNT_READ_ONLY),
        PAYLOAD("fuzz.protocol_abuse"),
        PROXY("http.error_injection"),
        PROXY("http.latency"),
        LOADGEN("load.spike"),
        PAYLOAD("mem.exhaust"),
        PAYLOAD("mem.leak"),
        SHAPED("net.bandwidth"),
        NFT("net.connection_refuse"),
        NFT("net.connection_reset"),
        SHAPED("net.corrupt"),
        SHAPED("net.duplicate"),
        SHAPED("net.latency"),
        LOADGEN("net.load"),
        SHAPED("net.packet_loss"),
        NFT("net.partition"),
        SHAPED("net.reorder"),
        T("proc.pause", OPS(COMP_OP_SIGNAL_CONT), PROBES(VERIFY_PROCESS_NOT_STOPPED),
          EFFECT_PROCESS_STOPPED),
        T("process.crash_loop", OPS(COMP_OP_CRASH_LOOP_STOP, COMP_OP_ENGINE_START),
          PROBES(VERIFY_CONTAINER_RUNNING), EFFECT_CONTAINER_RESTARTED),
        /* Terminating the main process is reconciled: the engine (or we) start the container again. */
        RESTART("process.kill", EFFECT_PROCESS_GONE),
        RESTART("process.stop", EFFECT_PROCESS_GONE),
        PROXY("tls.certificate_expired"),
        NFT("tls.handshake_failure"),
};

/* A plain host process that was stopped or killed comes back only through its
 * supervisor (systemd, a shell loop): nothing of ours to undo, and the verify
 * probe says whether it did come back. */
static const struct comp_template host_process_templates[] = {
        T("process.kill", OPS(COMP_OP_NONE), PROBES(VERIFY_PROCESS_RUNNING), EFFECT_PROCESS_GONE),
        T("process.stop", OPS(COMP_OP_NONE), PROBES(VERIFY_PROCESS_RUNNING), EFFECT_PROCESS_GONE),
};

const struct comp_template *comp_template_find_for(const char *fault_id, bool host_process) {
        for (size_t i = 0; host_process && i < ELEMENTSOF(host_process_templates); i++)
                if (strcmp(host_process_templates[i].fault_id, fault_id) == 0)
                        return &host_process_templates[i];
        return comp_template_find(fault_id);
}

const struct comp_template *comp_template_find(const char *fault_id) {
        for (size_t i = 0; i < ELEMENTSOF(templates); i++)
                if (strcmp(templates[i].fault_id, fault_id) == 0)
                        return &templates[i];
        return NULL;
}

size_t comp_template_count(void) {
        return ELEMENTSOF(templates);
}

const struct comp_template *comp_template_at(size_t i) {
        return i < ELEMENTSOF(templates) ? &templates[i] : NULL;
}
