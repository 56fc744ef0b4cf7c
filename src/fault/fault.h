#pragma once

/* Fault execution in the agent. Each fault's catalog entry names its
 * mechanism: one file, one const vtable (struct fault_mechanism), one line in
 * registry.c. The mechanism applies the fault and implements every undo op,
 * verify probe and effect check the catalog's compensation names for it
 * (tests/unit/test-fault.c walks registry x catalog to prove it). Undo needs
 * nothing but the lease: the fault, the target's identity, the typed params
 * and what apply recorded to restore, so a new agent (recovery) or the
 * guardian can undo a fault another process applied. */

#include <jansson.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/error.h"
#include "catalog/catalog.h"
#include "catalog/ops.h"
#include "engine/engine.h"
#include "sys/process.h"

#define FAULT_DETAIL_MAX 512
#define FAULT_PARAMS_MAX 16
#define FAULT_ADDRS_MAX  16
#define FAULT_STEPS_MAX  4

/* What a lease names: the live container and its main process, or a plain
 * host process (engine "host"). */
struct target_identity {
        char engine[16]; /* docker, podman, host */
        char container_id[ENGINE_ID_MAX];
        char container_name[256];
        char started_at[48];       /* container start, from the engine */
        struct proc_identity main; /* host pid + start time of the main process; pid 0 when not running */
        bool contained;            /* engine "host": the process runs inside a container (proc-scope.h) */
};

/* A plain host process, by pid (> 0) or by name among the processes of
 * scope (by pid, whatever it runs in). */
int target_identity_of_process(
        int64_t pid, const char *name, enum proc_scope scope, struct target_identity *ret,
        struct mh_error *reterr);
bool target_is_host_process(const struct target_identity *t);
int target_identity_resolve(
        struct engine *e, const char *container, struct target_identity *ret, struct mh_error *reterr);
json_t *target_identity_json(const struct target_identity *t);
int target_identity_from_json(const json_t *j, struct target_identity *ret, struct mh_error *reterr);

/* A lease's params bound against the fault's catalog schema: every param
 * the schema gives a value (required, or defaulted) is there, typed and in
 * range; optional ones without a default may be absent. Strings point into
 * the JSON they were bound from, which must outlive the binding. */
struct fault_params {
        const struct fault_def *def;
        struct param_value v[FAULT_PARAMS_MAX]; /* in the schema's order */
        bool set[FAULT_PARAMS_MAX];
};

/* What only the live system knows, added to a network fault's lease by the
 * runner: the delivery the impact gate chose on the agent's kernel, the
 * addresses of the fault's peer targets, and the target's own addresses. */
struct fault_net {
        bool has_delivery;
        enum net_delivery delivery;
        char peers[FAULT_ADDRS_MAX][INET6_ADDRSTRLEN];
        size_t n_peers;
        char self[FAULT_ADDRS_MAX][INET6_ADDRSTRLEN];
        size_t n_self;
};

struct fault_lives;
struct fault_mechanism;

/* One fault as its executor sees it. */
struct fault_exec {
        struct engine *engine;     /* NULL for a host process */
        struct fault_lives *lives; /* what the agent holds for leases in force (live.h) */
        const char *lease_id;      /* names what the fault creates (nft tables, qdiscs) so undo finds it */
        const struct fault_def *def;
        const struct fault_mechanism *mech;
        struct fault_params params;
        struct fault_net net;
        int64_t duration_ms;
        struct target_identity target;
        /* What apply recorded to put back (the quota, the MTU before the
         * fault): apply adds to it, undo and the checks read it. Owned by
         * the caller; an empty object when nothing was recorded. */
        json_t *restore;
        /* Writes restore where the agent keeps what it changes
         * (src/agent/agent-journal.h); apply calls it through fault_record()
         * once restore holds what undo will put back, before it changes
         * anything. NULL: nobody keeps it (tests). */
        int (*record)(const struct fault_exec *fx, void *userdata, struct mh_error *reterr);
        void *record_userdata;
};

/* For apply, between recording restore and the first change: < 0 (nothing
 * may be changed then) when the record could not be written. */
int fault_record(const struct fault_exec *fx, struct mh_error *reterr);

/* Binds params (the lease's "params") and net (its "net", may be NULL)
 * for fault def into fx: fills def, mech (NULL when no mechanism applies the
 * fault in this version), params and net, and leaves the rest. -EINVAL with
 * the reason for an unknown, missing, mistyped or out-of-range parameter, or
 * a malformed net context. */
int fault_exec_bind(
        struct fault_exec *fx, const struct fault_def *def, const json_t *params, const json_t *net,
        struct mh_error *reterr);

/* The params as bound, back to the JSON the plan writes (for the argv of a
 * guardian or a payload, which bind it again). */
json_t *fault_params_json(const struct fault_params *p);

/* The value of a parameter the schema gives a value (required, or with a
 * default); naming anything else is a programmer error (assert). */
const struct param_value *fault_param(const struct fault_exec *fx, const char *name);
/* NULL when the lease does not give this optional parameter. */
const struct param_value *fault_param_opt(const struct fault_exec *fx, const char *name);

/* ---- mechanisms ------------------------------------------------------------ */

typedef int (*fault_undo_fn)(const struct fault_exec *fx, struct mh_error *reterr);
/* One look: *ret says whether the target is back (verify) or the fault is
 * in force (effect); detail says what was seen. < 0: could not look. An
 * effect check that finds the fault in force but cannot see its effect on
 * this target (no traffic through it yet, nothing to probe) returns
 * FAULT_EFFECT_UNOBSERVED with *ret true, and detail says why; 0 with *ret
 * true means the effect itself was seen. */
#define FAULT_EFFECT_UNOBSERVED 1
typedef int (*fault_look_fn)(const struct fault_exec *fx, bool *ret, char *detail, size_t size);

struct fault_undo_op {
        const char *name; /* the catalog's name: "engine.unpause" */
        fault_undo_fn run;
};

struct fault_look {
        const char *name;
        fault_look_fn run;
};

/* The body of a payload mechanism, run in the payload process (payload.h). */
struct payload_ctx;
typedef int (*payload_body_fn)(struct payload_ctx *c, struct mh_error *reterr);

struct fault_mechanism {
        const char *name; /* what catalog entries name in .mechanism */
        /* Its undo needs what apply recorded (fault_record()), not only the
         * target: an undo or verify of a lease the agent does not hold then
         * uses the agent's own record, never a restore a request carries. */
        bool records;
        int (*apply)(struct fault_exec *fx, struct mh_error *reterr);
        /* Every undo op is idempotent: on a fault never applied, or already
         * undone, it succeeds. Unused slots have a NULL name. */
        struct fault_undo_op undo[FAULT_STEPS_MAX];
        struct fault_look verify[FAULT_STEPS_MAX];
        struct fault_look effect[FAULT_STEPS_MAX];
        /* Frees what the agent holds for a lease in force (its entry in
         * fault_lives: sockets, threads, a guardian), which ends the fault
         * where the kernel ties it to them. NULL: the mechanism holds nothing. */
        void (*release)(void *live);
        /* A payload mechanism (payload.h): the body `mayhem-agent payload`
         * runs in the target's cgroups and pid namespace, in the further
         * namespaces of payload_ns (NS_BIT()s of sys/ns.h) and with only the
         * capabilities of payload_caps (1 << CAP_* bits) left. NULL: none. */
        payload_body_fn payload;
        unsigned payload_ns;
        uint64_t payload_caps;
};

/* By the name a catalog entry gives; NULL when this version has none. */
const struct fault_mechanism *fault_mechanism_find(const char *name);
/* The mechanism of a catalog fault; NULL when it has none here. */
const struct fault_mechanism *fault_mechanism_of(const struct fault_def *f);
size_t fault_mechanism_count(void);
const struct fault_mechanism *fault_mechanism_at(size_t i);
bool fault_mechanism_has_undo(const struct fault_mechanism *m, const char *name);
bool fault_mechanism_has_verify(const struct fault_mechanism *m, const char *name);
bool fault_mechanism_has_effect(const struct fault_mechanism *m, const char *name);

/* The undo ops names, in order, through fx->mech; stops at the first failure. */
int fault_undo_run(const struct fault_exec *fx, const char *const *ops, size_t n, struct mh_error *reterr);
int fault_verify_run(const struct fault_exec *fx, const char *name, bool *ret_ok, char *detail, size_t size);
int fault_effect_run(
        const struct fault_exec *fx, const char *name, bool *ret_in_force, char *detail, size_t size);
