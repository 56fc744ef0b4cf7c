#include "fault.h"

#include <string.h>

#define RESTART_TIMEOUT_S 10

int fault_apply_container_pause(struct fault_exec *fx, struct mh_error *reterr) {
        return engine_container_pause(fx->engine, fx->target.container_id, reterr);
}

int fault_apply_container_kill(struct fault_exec *fx, struct mh_error *reterr) {
        const struct drill_param *sig = drill_fault_param(fx->fault, "signal");
        return engine_container_kill(
                fx->engine, fx->target.container_id, sig && sig->value.s ? sig->value.s : "SIGKILL", reterr);
}

int fault_apply_container_restart(struct fault_exec *fx, struct mh_error *reterr) {
        memcpy(fx->started_at_before, fx->target.started_at, sizeof(fx->started_at_before));
        return engine_container_restart(fx->engine, fx->target.container_id, RESTART_TIMEOUT_S, reterr);
}
