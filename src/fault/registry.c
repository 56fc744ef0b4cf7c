#include "fault.h"

#include "fault/fault-net.h"

#include <string.h>

/* Every fault this version can apply, one line each. Undo is not listed: it
 * is the planner's undo ops, run by comp_op_run() (test-fault checks that every
 * op a registered fault needs is supported). */
#define FAULT_MECHANISMS(X)                                                                                 \
        X("db.query_error", fault_apply_net)                                                                \
        X("db.slow_query", fault_apply_net)                                                                 \
        X("container.kill", fault_apply_container_kill)                                                     \
        X("container.pause", fault_apply_container_pause)                                                   \
        X("container.restart", fault_apply_container_restart)                                               \
        X("cpu.throttle", fault_apply_cpu_throttle)                                                         \
        X("dependency.block", fault_apply_net)                                                              \
        X("dependency.connection_refuse", fault_apply_net)                                                  \
        X("dependency.flap", fault_apply_net)                                                               \
        X("dependency.timeout", fault_apply_net)                                                            \
        X("dns.timeout", fault_apply_net)                                                                   \
        X("net.bandwidth", fault_apply_net)                                                                 \
        X("net.connection_refuse", fault_apply_net)                                                         \
        X("net.connection_reset", fault_apply_net)                                                          \
        X("net.corrupt", fault_apply_net)                                                                   \
        X("net.duplicate", fault_apply_net)                                                                 \
        X("net.latency", fault_apply_net)                                                                   \
        X("net.packet_loss", fault_apply_net)                                                               \
        X("net.partition", fault_apply_net)                                                                 \
        X("net.reorder", fault_apply_net)                                                                   \
        X("node.service_stop", fault_apply_node_service_stop)                                               \
        X("process.crash_loop", fault_apply_crash_loop)                                                     \
        X("proc.pause", fault_apply_proc_pause)                                                             \
        X("process.kill", fault_apply_process_kill)                                                         \
        X("process.stop", fault_apply_process_stop)                                                         \
        X("tls.handshake_failure", fault_apply_net)

#define AS_ENTRY(id, fn) { .fault_id = id, .apply = fn },
static const struct fault_mechanism mechanisms[] = { FAULT_MECHANISMS(AS_ENTRY) };

const struct fault_mechanism *fault_mechanism_find(const char *fault_id) {
        for (size_t i = 0; i < ELEMENTSOF(mechanisms); i++)
                if (strcmp(mechanisms[i].fault_id, fault_id) == 0)
                        return &mechanisms[i];
        return NULL;
}

size_t fault_mechanism_count(void) {
        return ELEMENTSOF(mechanisms);
}

const struct fault_mechanism *fault_mechanism_at(size_t i) {
        return i < ELEMENTSOF(mechanisms) ? &mechanisms[i] : NULL;
}
