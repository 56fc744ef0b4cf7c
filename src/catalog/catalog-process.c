/* Processes and containers: clock, container, node, proc and process faults. Sorted by id. */
#include "catalog-entries.h"

static const char *const signal_choices[] = {
        "SIGKILL", "SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2", NULL,
};
/* A plain host process that was stopped or killed comes back only through
 * its supervisor (systemd, a shell loop): nothing of ours to undo ("none"),
 * and the verify probe says whether it did come back. */
static const struct fault_comp host_process_gone = COMP("none", "process.running", "process.gone");

const struct fault_def catalog_process[] = {
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
                .role = AGENT_ROLE_PROC,
                .resource = RESOURCE_PROCESS,
                .conflict = CONFLICT_CLOCK,
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
                .role = AGENT_ROLE_CONTAINER,
                .resource = RESOURCE_CONTAINER,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "engine.kill",
                .comp = C_RESTART("container.exited"),
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
                .role = AGENT_ROLE_CONTAINER,
                .resource = RESOURCE_CONTAINER,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "engine.pause",
                .comp = C_PAUSE,
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
                .role = AGENT_ROLE_CONTAINER,
                .resource = RESOURCE_CONTAINER,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "engine.restart",
                .comp = C_RESTART("container.restarted"),
                .effect = "the Engine API restarts the container: its processes stop, start again, and drop "
                          "every "
                          "open connection",
                .undo = "Engine API start of the container if it is not running after the restart",
                .verify = "the engine reports the container running",
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
                .role = AGENT_ROLE_CONTAINER,
                .resource = RESOURCE_CONTAINER,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "engine.stop",
                .comp = C_RESTART("container.exited"),
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
                .role = AGENT_ROLE_PROC,
                .resource = RESOURCE_PROCESS,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "signal.stop",
                .comp = C_SIGNAL_STOP,
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
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_PROC,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_DESCRIPTORS,
                .mechanism = "payload.children",
                .comp = C_PIDS,
                PARAMS(
                        P_INT("children", 256, 1, 4096,
                              "most children to hold; fewer when the cgroup's pids.max is reached first")),
                .effect = "a payload forked into the target's cgroup and pid namespace forks children that "
                          "block on a pipe until pids.current reaches pids.max (or children are held), so "
                          "the target's next fork fails with EAGAIN; refused when pids.max is max",
                .undo = PAYLOAD_UNDO ", and its children with it (PR_SET_PDEATHSIG, argv scan)",
                .verify = PAYLOAD_VERIFY,
        },
        {
                .id = "process.crash_loop",
                .category = FAULT_CATEGORY_PROCESS,
                .risk = RISK_HIGH,
                .max_duration_s = 120,
                .node_kinds = NK_SVC | NK_CTR,
                .needs = NEED_ENGINE,
                .reversibility = REVERSIBILITY_RECONCILED,
                .role = AGENT_ROLE_CONTAINER,
                .resource = RESOURCE_CONTAINER,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "crash-loop",
                .comp = C_CRASH_LOOP,
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
                .role = AGENT_ROLE_PROC,
                .resource = RESOURCE_PROCESS,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "signal.kill",
                .comp = C_RESTART("process.gone"),
                .host_comp = &host_process_gone,
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
                .role = AGENT_ROLE_CONTAINER,
                .resource = RESOURCE_CONTAINER,
                .conflict = CONFLICT_RUN_STATE,
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
                .role = AGENT_ROLE_PROC,
                .resource = RESOURCE_PROCESS,
                .conflict = CONFLICT_RUN_STATE,
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
                .role = AGENT_ROLE_PROC,
                .resource = RESOURCE_PROCESS,
                .conflict = CONFLICT_RUN_STATE,
                .mechanism = "signal.term",
                .comp = C_RESTART("process.gone"),
                .host_comp = &host_process_gone,
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
                .needs = NEED_CGROUP,
                .reversibility = REVERSIBILITY_REVERSIBLE,
                .role = AGENT_ROLE_PROC,
                .resource = RESOURCE_CGROUP,
                .conflict = CONFLICT_DESCRIPTORS,
                .mechanism = "payload.threads",
                .comp = C_PIDS,
                PARAMS(
                        P_INT("threads", 512, 1, 65536,
                              "most threads to hold; fewer when the cgroup's pids.max is reached first")),
                .effect = "a payload forked into the target's cgroup holds threads (32 KiB stacks, blocked "
                          "on a pipe) until pids.current reaches pids.max (or threads are held), so the "
                          "target's next pthread_create or fork fails with EAGAIN; refused when pids.max "
                          "is max",
                .undo = PAYLOAD_UNDO ", and its threads with it",
                .verify = PAYLOAD_VERIFY,
        },
};

const size_t catalog_process_count = sizeof(catalog_process) / sizeof(catalog_process[0]);
