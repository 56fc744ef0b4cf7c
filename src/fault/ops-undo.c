#include "fault.h"

#include "fault/fault-net.h"

#include <signal.h>

/* Nothing left to continue when the process is gone. */
static int undo_signal_cont(const struct fault_exec *fx, struct mh_error *reterr) {
        const struct target_identity *t = &fx->target;
        if (t->main.pid <= 0)
                return 0;
        int r = proc_signal(&t->main, SIGCONT, reterr);
        return r == -ESRCH ? 0 : r;
}

/* A removed container cannot be brought back: that is an error (dirty). */
static int undo_engine_start(const struct fault_exec *fx, struct mh_error *reterr) {
        const struct target_identity *t = &fx->target;
        struct engine_container c;
        int r = engine_container_inspect(fx->engine, t->container_id, &c, reterr);
        if (r < 0)
                return r;
        if (c.paused && (r = engine_container_unpause(fx->engine, t->container_id, reterr)) < 0 &&
            r != -EALREADY)
                return r;
        if (c.running || c.restarting)
                return 0;
        return engine_container_start(fx->engine, t->container_id, reterr);
}

/* Not paused, or removed: nothing is frozen any more. */
static int undo_engine_unpause(const struct fault_exec *fx, struct mh_error *reterr) {
        int r = engine_container_unpause(fx->engine, fx->target.container_id, reterr);
        return r == -EALREADY || r == -ENOENT ? 0 : r;
}

static int undo_crash_loop_stop(const struct fault_exec *fx, struct mh_error *reterr) {
        return crash_loop_stop(fx->target.container_id);
}

static int undo_cgroup_restore_cpu(const struct fault_exec *fx, struct mh_error *reterr) {
        return cpu_quota_restore(&fx->target, reterr);
}

static int undo_net_unshape(const struct fault_exec *fx, struct mh_error *reterr) {
        return fault_net_undo(fx, reterr);
}

static int undo_nft_table_delete(const struct fault_exec *fx, struct mh_error *reterr) {
        return fault_net_release(fx);
}

static int undo_none(const struct fault_exec *fx, struct mh_error *reterr) {
        return 0;
}

typedef int (*undo_fn)(const struct fault_exec *, struct mh_error *);

static const undo_fn undo_ops[_COMP_OP_MAX] = {
        [COMP_OP_SIGNAL_CONT] = undo_signal_cont,
        [COMP_OP_ENGINE_START] = undo_engine_start,
        [COMP_OP_ENGINE_UNPAUSE] = undo_engine_unpause,
        [COMP_OP_CRASH_LOOP_STOP] = undo_crash_loop_stop,
        [COMP_OP_CGROUP_RESTORE_CPU] = undo_cgroup_restore_cpu,
        [COMP_OP_NET_UNSHAPE] = undo_net_unshape,
        [COMP_OP_NFT_TABLE_DELETE] = undo_nft_table_delete,
        [COMP_OP_NONE] = undo_none,
};

bool comp_op_supported(enum comp_op op) {
        return op < _COMP_OP_MAX && undo_ops[op];
}

int comp_op_run(enum comp_op op, const struct fault_exec *fx, struct mh_error *reterr) {
        if (!comp_op_supported(op))
                return mh_error_fail(
                        reterr, -EOPNOTSUPP, "not_implemented",
                        "undo op %s is not implemented in this version", comp_op_to_string(op));
        bool needs_engine = op == COMP_OP_ENGINE_START || op == COMP_OP_ENGINE_UNPAUSE;
        if (needs_engine && !fx->engine)
                return mh_error_fail(
                        reterr, -EINVAL, "no_engine",
                        "undo op %s needs a container engine; %s is a host process", comp_op_to_string(op),
                        fx->target.container_name);
        return undo_ops[op](fx, reterr);
}

int comp_ops_run(const enum comp_op *ops, size_t n, const struct fault_exec *fx, struct mh_error *reterr) {
        for (size_t i = 0; i < n; i++) {
                int r = comp_op_run(ops[i], fx, reterr);
                if (r < 0) {
                        mh_error_prefix(reterr, "%s: ", comp_op_to_string(ops[i]));
                        return r;
                }
        }
        return 0;
}
