#include "fault.h"

#include <string.h>

/* Every fault this version can apply, one line each. Undo is not listed: it
 * is the planner's undo ops, run by comp_op_run() (test-fault checks that every
 * op a registered fault needs is supported). */
#define FAULT_MECHANISMS(X)                                                                                 \
        X("container.kill", fault_apply_container_kill)                                                     \
        X("container.pause", fault_apply_container_pause)                                                   \
        X("container.restart", fault_apply_container_restart)                                               \
        X("cpu.throttle", fault_apply_cpu_throttle)                                                         \
        X("node.service_stop", fault_apply_node_service_stop)                                               \
        X("process.crash_loop", fault_apply_crash_loop)                                                     \
        X("proc.pause", fault_apply_proc_pause)                                                             \
        X("process.kill", fault_apply_process_kill)                                                         \
        X("process.stop", fault_apply_process_stop)

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
