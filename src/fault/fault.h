#pragma once

/* Fault execution from the host, in-process for now (the agent will call the
 * same functions). A fault is applied by its mechanism (the registry below);
 * it is undone by running the undo ops the planner wrote into its lease, so
 * that recovery needs nothing but the lease: the ops and the identity. */

#include <jansson.h>
#include <stdbool.h>

#include "basic/error.h"
#include "catalog/catalog.h"
#include "catalog/ops.h"
#include "engine/engine.h"
#include "sys/process.h"

#define FAULT_DETAIL_MAX 512

/* What a lease names: the live container and its main process. */
struct target_identity {
        char engine[16];
        char socket[256];
        char container_id[ENGINE_ID_MAX];
        char container_name[256];
        char started_at[48];       /* container start, from the engine */
        struct proc_identity main; /* host pid + start time of the main process; pid 0 when not running */
        int64_t cpu_quota,
                cpu_period; /* the cgroup's CPU quota before the fault (-1 unlimited); period 0 = unknown */
};

/* A plain host process, by pid (> 0) or by name: engine "host", no container. */
int target_identity_of_process(
        int64_t pid, const char *name, struct target_identity *ret, struct mh_error *reterr);
bool target_is_host_process(const struct target_identity *t);
int target_identity_resolve(
        struct engine *e, const char *container, struct target_identity *ret, struct mh_error *reterr);
json_t *target_identity_json(const struct target_identity *t);
int target_identity_from_json(const json_t *j, struct target_identity *ret, struct mh_error *reterr);

/* One fault as its executor sees it: everything comes from the lease, so the
 * agent can apply, check and undo it with no drill at hand. */
struct fault_exec {
        struct engine *engine;
        const char *lease_id; /* names what the fault creates (nft tables, qdiscs) so undo finds it */
        const char *fault_id;
        const json_t *params; /* the plan's typed params, {"signal": "SIGKILL", "percent": 50.0, ...} */
        int64_t duration_ms;
        struct target_identity target;
};

const char *fault_param_str(const struct fault_exec *fx, const char *name, const char *def);
double fault_param_num(const struct fault_exec *fx, const char *name, double def);

struct fault_mechanism {
        const char *fault_id;
        int (*apply)(struct fault_exec *fx, struct mh_error *reterr);
};

/* NULL when this version cannot apply the fault yet. */
const struct fault_mechanism *fault_mechanism_find(const char *fault_id);
size_t fault_mechanism_count(void);
const struct fault_mechanism *fault_mechanism_at(size_t i);

/* Undo ops are idempotent: on a fault never applied, or already undone, they succeed. */
bool comp_op_supported(enum comp_op op);
int comp_op_run(enum comp_op op, const struct fault_exec *fx, struct mh_error *reterr);
/* Every undo op of a lease, in order; stops at the first failure. */
int comp_ops_run(const enum comp_op *ops, size_t n, const struct fault_exec *fx, struct mh_error *reterr);

/* One look; *ret_ok tells whether the target is back. detail says what was seen. */
bool verify_probe_supported(enum verify_probe v);
int verify_probe_run(
        enum verify_probe v, const struct fault_exec *fx, bool *ret_ok, char *detail, size_t size);

/* One look at whether the fault is in force. */
bool effect_check_supported(enum effect_check c);
int effect_check_run(
        enum effect_check c, const struct fault_exec *fx, bool *ret_in_force, char *detail, size_t size);

/* fault-signal.c and fault-engine.c: the appliers. */
int fault_apply_proc_pause(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_process_stop(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_process_kill(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_container_pause(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_container_kill(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_container_restart(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_node_service_stop(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_cpu_throttle(struct fault_exec *fx, struct mh_error *reterr);
int fault_apply_crash_loop(struct fault_exec *fx, struct mh_error *reterr);

/* fault-crash-loop.c: the kill/start cadence runs in a thread until stopped. */
int crash_loop_stop(const char *container_id);
/* fault-cpu.c: the quota a throttle to percent of the previous allowance sets
 * (all host CPUs when it was unlimited); the kernel's minimum is 1 ms. */
int64_t cpu_throttle_quota(const struct target_identity *before, double percent, long host_cpus);
int cpu_quota_restore(const struct target_identity *t, struct mh_error *reterr);
