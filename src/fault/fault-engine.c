#include "fault.h"

#define RESTART_TIMEOUT_S 10

int fault_apply_container_pause(struct fault_exec *fx, struct mh_error *reterr) {
        return engine_container_pause(fx->engine, fx->target.container_id, reterr);
}

int fault_apply_container_kill(struct fault_exec *fx, struct mh_error *reterr) {
        return engine_container_kill(
                fx->engine, fx->target.container_id, fault_param_str(fx, "signal", "SIGKILL"), reterr);
}

/* The effect check compares the start time with target.started_at, taken before. */
int fault_apply_container_restart(struct fault_exec *fx, struct mh_error *reterr) {
        return engine_container_restart(fx->engine, fx->target.container_id, RESTART_TIMEOUT_S, reterr);
}

int fault_apply_node_service_stop(struct fault_exec *fx, struct mh_error *reterr) {
        return engine_container_stop(fx->engine, fx->target.container_id, RESTART_TIMEOUT_S, reterr);
}
