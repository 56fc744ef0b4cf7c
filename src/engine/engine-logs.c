/* GET /containers/{id}/logs: the body as the engine sent it, capped; the
 * lines are split by log-stream.c. */
#include "engine-internal.h"

#include <stdlib.h>

#include "basic/clock.h"

void engine_logs_done(struct engine_logs *l) {
        free(l->body);
        *l = (struct engine_logs){ 0 };
}

static int check_query(const struct engine_logs_query *q, struct mh_error *reterr) {
        if (q->tail < 1 || q->tail > ENGINE_LOGS_TAIL_MAX || q->since_s < 0 || q->max_bytes < 1 ||
            q->timeout_ms < 1)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "engine_request",
                        "container logs: tail must be 1..%d, since, max_bytes and timeout positive",
                        ENGINE_LOGS_TAIL_MAX);
        return 0;
}

int engine_container_logs(
        struct engine *e, const char *name_or_id, const struct engine_logs_query *q, struct engine_logs *ret,
        struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        _cleanup_(http_response_done) struct http_response resp = { 0 };
        struct engine_container c;
        double t0 = monotonic_ms();

        int r = check_query(q, reterr);
        if (r >= 0)
                r = engine_inspect_timed(e, name_or_id, q->timeout_ms, &c, reterr);
        if (r >= 0)
                r = engine_path(
                        e, &path, reterr, "/containers/%s/logs?stdout=1&stderr=1&timestamps=1&tail=%lld",
                        c.id, (long long)q->tail);
        if (r >= 0 && q->since_s > 0 && strbuf_printf(&path, "&since=%lld", (long long)q->since_s) < 0)
                r = mh_error_set(
                        reterr, -E2BIG, MH_EXIT_GENERAL_FAILURE, "engine_request", "engine path too long");
        if (r >= 0)
                r = engine_request(
                        e,
                        &(struct engine_call){
                                .method = "GET",
                                .path = path.data,
                                .max_body = q->max_bytes,
                                /* what the inspect left of it */
                                .timeout_ms = MAX(1, q->timeout_ms - (int64_t)(monotonic_ms() - t0)),
                                .reply_type = JSON_NULL,
                                .raw = &resp },
                        NULL, NULL, reterr);
        if (r < 0)
                return r;
        *ret = (struct engine_logs){
                .body = resp.body, .len = resp.body_len, .truncated = resp.truncated, .tty = c.tty
        };
        resp.body = NULL;
        return 0;
}
