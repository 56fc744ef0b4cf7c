/* The state-changing calls: POST /containers/{id}/{kill,stop,start,restart,pause,unpause}. */

#include "engine-internal.h"

#include <stdio.h>

#define STOP_TIMEOUT_MAX_S 3600
#define KILL_WAIT_S        10 /* dockerd waits for a SIGKILLed container to exit before answering */

struct action {
        const char *verb;  /* "pause" */
        const char *query; /* "", "?t=10", "?signal=SIGKILL" */
        int wait_s;        /* how long the engine may take on top of the usual timeout */
        long alt_status;   /* see struct engine_call */
        int alt_code;
};

static int container_post(
        struct engine *e, const char *id, const struct action *a, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);

        int r = engine_check_name(id, reterr);
        if (r >= 0)
                r = engine_path(e, &path, reterr, "/containers/%s/%s%s", id, a->verb, a->query);
        if (r < 0)
                return r;
        struct engine_call call = {
                .method = "POST",
                .path = path.data,
                .timeout_ms = ENGINE_TIMEOUT_MS + (int64_t)a->wait_s * 1000,
                .reply_type = JSON_NULL,
                .alt_status = a->alt_status,
                .alt_code = a->alt_code,
        };
        return engine_request(e, &call, NULL, NULL, reterr);
}

static int timed_post(
        struct engine *e, const char *id, const char *verb, int timeout_s, long alt_status,
        struct mh_error *reterr) {
        char query[32];

        if (timeout_s < 0 || timeout_s > STOP_TIMEOUT_MAX_S)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "engine_invalid_timeout",
                        "%s timeout %d s is outside 0..%d", verb, timeout_s, STOP_TIMEOUT_MAX_S);
        snprintf(query, sizeof(query), "?t=%d", timeout_s);
        return container_post(
                e, id,
                &(struct action){
                        .verb = verb, .query = query, .wait_s = timeout_s, .alt_status = alt_status },
                reterr);
}

int engine_container_kill(struct engine *e, const char *id, const char *signal, struct mh_error *reterr) {
        char sig[ENGINE_SIGNAL_MAX], query[ENGINE_SIGNAL_MAX + 16];

        int r = engine_signal_canonical(signal, sig, reterr);
        if (r < 0)
                return r;
        snprintf(query, sizeof(query), "?signal=%s", sig);
        return container_post(
                e, id, &(struct action){ .verb = "kill", .query = query, .wait_s = KILL_WAIT_S }, reterr);
}

int engine_container_stop(struct engine *e, const char *id, int timeout_s, struct mh_error *reterr) {
        return timed_post(e, id, "stop", timeout_s, 304, reterr);
}

int engine_container_restart(struct engine *e, const char *id, int timeout_s, struct mh_error *reterr) {
        return timed_post(e, id, "restart", timeout_s, 0, reterr);
}

int engine_container_start(struct engine *e, const char *id, struct mh_error *reterr) {
        return container_post(
                e, id, &(struct action){ .verb = "start", .query = "", .alt_status = 304 }, reterr);
}

int engine_container_pause(struct engine *e, const char *id, struct mh_error *reterr) {
        return container_post(e, id, &(struct action){ .verb = "pause", .query = "" }, reterr);
}

int engine_container_unpause(struct engine *e, const char *id, struct mh_error *reterr) {
        struct engine_container c;

        int r = container_post(
                e, id,
                &(struct action){ .verb = "unpause", .query = "", .alt_status = 409, .alt_code = -EALREADY },
                reterr);
        /* dockerd 20.10 (older engines in general) answers "is not paused" with HTTP 500, and
         * Podman with HTTP 500 "container state improper" (-EBUSY here): the container's state
         * decides, not the wording of the message. */
        if ((r == -EIO || r == -EBUSY) && engine_container_inspect(e, id, &c, NULL) >= 0 && !c.paused)
                r = -EALREADY;
        if (r == -EALREADY && reterr) {
                reterr->code = r;
                mh_error_reclass(reterr, MH_EXIT_GENERAL_FAILURE, "engine_not_paused");
        }
        return r;
}
