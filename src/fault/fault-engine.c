#include "fault-internal.h"

#include <stdio.h>
#include <string.h>

/* Container faults through the Engine API of the agent's own engine socket:
 * pause (undo unpause), kill with a signal, restart, stop (undo start). */

#define RESTART_TIMEOUT_S 10

static int need_engine(const struct fault_exec *fx, struct mh_error *reterr) {
        return fx->engine ? 0
                          : mh_error_fail(
                                    reterr, -EINVAL, "no_engine",
                                    "%s needs a container engine; %s is a host process",
                                    fx->def ? fx->def->id : "this fault", fx->target.container_name);
}

static int apply_pause(struct fault_exec *fx, struct mh_error *reterr) {
        int r = need_engine(fx, reterr);
        return r < 0 ? r : engine_container_pause(fx->engine, fx->target.container_id, reterr);
}

static int apply_kill(struct fault_exec *fx, struct mh_error *reterr) {
        int r = need_engine(fx, reterr);
        return r < 0 ? r
                     : engine_container_kill(
                               fx->engine, fx->target.container_id, fault_param(fx, "signal")->s, reterr);
}

/* The effect check compares the start time with target.started_at, taken before. */
static int apply_restart(struct fault_exec *fx, struct mh_error *reterr) {
        int r = need_engine(fx, reterr);
        return r < 0 ? r
                     : engine_container_restart(
                               fx->engine, fx->target.container_id, RESTART_TIMEOUT_S, reterr);
}

static int apply_stop(struct fault_exec *fx, struct mh_error *reterr) {
        int r = need_engine(fx, reterr);
        return r < 0 ? r
                     : engine_container_stop(fx->engine, fx->target.container_id, RESTART_TIMEOUT_S, reterr);
}

/* A removed container cannot be brought back: that is an error (dirty). */
int fault_engine_start(const struct fault_exec *fx, struct mh_error *reterr) {
        struct engine_container c;
        int r = need_engine(fx, reterr);
        if (r < 0 || (r = engine_container_inspect(fx->engine, fx->target.container_id, &c, reterr)) < 0)
                return r;
        if (c.paused && (r = engine_container_unpause(fx->engine, fx->target.container_id, reterr)) < 0 &&
            r != -EALREADY)
                return r;
        if (c.running || c.restarting)
                return 0;
        return engine_container_start(fx->engine, fx->target.container_id, reterr);
}

/* Not paused, or removed: nothing is frozen any more. */
static int undo_unpause(const struct fault_exec *fx, struct mh_error *reterr) {
        int r = need_engine(fx, reterr);
        if (r < 0)
                return r;
        r = engine_container_unpause(fx->engine, fx->target.container_id, reterr);
        return r == -EALREADY || r == -ENOENT ? 0 : r;
}

static int look(const struct fault_exec *fx, struct engine_container *c, char *detail, size_t size) {
        struct mh_error err = { 0 };
        int r = need_engine(fx, &err);
        if (r >= 0)
                r = engine_container_inspect(fx->engine, fx->target.container_id, c, &err);
        if (r < 0)
                snprintf(detail, size, "%s", err.msg);
        else
                snprintf(detail, size, "container %s is %s", c->name, c->paused ? "paused" : c->status);
        return r;
}

int fault_container_running(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct engine_container c;
        int r = look(fx, &c, detail, size);
        *ret = r >= 0 && c.running && !c.paused && !c.restarting;
        return r < 0 ? r : 0;
}

static int look_paused(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct engine_container c;
        int r = look(fx, &c, detail, size);
        *ret = r >= 0 && c.paused;
        return r < 0 ? r : 0;
}

static int look_exited(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct engine_container c;
        int r = look(fx, &c, detail, size);
        *ret = r >= 0 && !c.running && !c.restarting;
        return r < 0 ? r : 0;
}

int fault_container_restarted(const struct fault_exec *fx, bool *ret, char *detail, size_t size) {
        struct engine_container c;
        int r = look(fx, &c, detail, size);
        if (r < 0)
                return r;
        *ret = c.running && strcmp(c.started_at, fx->target.started_at) != 0;
        snprintf(
                detail, size, "container %s %s (started %s, before %s)", c.name,
                *ret ? "restarted" : "did not restart", c.started_at, fx->target.started_at);
        return 0;
}

#define RUNNING_AGAIN                                                                                       \
        {                                                                                                   \
                { "container.running", fault_container_running }                                            \
        }

const struct fault_mechanism fault_engine_pause = {
        .name = "engine.pause",
        .apply = apply_pause,
        .undo = { { "engine.unpause", undo_unpause } },
        .verify = RUNNING_AGAIN,
        .effect = { { "container.paused", look_paused } },
};

const struct fault_mechanism fault_engine_kill = {
        .name = "engine.kill",
        .apply = apply_kill,
        .undo = { { "engine.start", fault_engine_start } },
        .verify = RUNNING_AGAIN,
        .effect = { { "container.exited", look_exited } },
};

const struct fault_mechanism fault_engine_restart = {
        .name = "engine.restart",
        .apply = apply_restart,
        .undo = { { "engine.start", fault_engine_start } },
        .verify = RUNNING_AGAIN,
        .effect = { { "container.restarted", fault_container_restarted } },
};

const struct fault_mechanism fault_engine_stop = {
        .name = "engine.stop",
        .apply = apply_stop,
        .undo = { { "engine.start", fault_engine_start } },
        .verify = RUNNING_AGAIN,
        .effect = { { "container.exited", look_exited } },
};
