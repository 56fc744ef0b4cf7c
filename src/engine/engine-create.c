/* Throwaway containers (mayhem doctor --fidelity): POST /containers/create
 * and DELETE /containers/{id}. Only what a measurement target needs: an
 * image, a name and a label that marks it ours. */

#include "engine-internal.h"

#include <stdio.h>
#include <stdlib.h>

int engine_container_create(
        struct engine *e, const char *image, const char *name, const char *label,
        const struct engine_limits *limits, char ret_id[ENGINE_ID_MAX], struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        json_t *reply = NULL;
        int r = engine_check_name(name, reterr);
        json_t *req = json_pack(
                "{s:s, s:{s:s}, s:{s:I, s:I}}", "Image", image, "Labels", label, "1", "HostConfig",
                "NanoCpus", (json_int_t)limits->nano_cpus, "Memory", (json_int_t)limits->memory_bytes);
        char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
        json_decref(req);
        if (r >= 0 && !body)
                r = mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (r >= 0)
                r = engine_path(e, &path, reterr, "/containers/create?name=%s", name);
        if (r >= 0) {
                struct engine_call call = {
                        .method = "POST", .path = path.data, .reply_type = JSON_OBJECT, .body = body
                };
                r = engine_request(e, &call, NULL, &reply, reterr);
        }
        free(body);
        const char *id = json_string_value(json_object_get(reply, "Id"));
        if (r >= 0 && (!id || !engine_name_valid(id, ENGINE_ID_MAX - 1)))
                r = mh_error_set(
                        reterr, -EPROTO, MH_EXIT_GENERAL_FAILURE, "engine_bad_reply",
                        "the engine's container create reply has no valid Id");
        if (r >= 0)
                snprintf(ret_id, ENGINE_ID_MAX, "%s", id);
        json_decref(reply);
        return r;
}

int engine_container_remove(struct engine *e, const char *id, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        int r = engine_check_name(id, reterr);
        if (r >= 0)
                r = engine_path(e, &path, reterr, "/containers/%s?force=1&v=1", id);
        if (r < 0)
                return r;
        struct engine_call call = { .method = "DELETE", .path = path.data, .reply_type = JSON_NULL };
        return engine_request(e, &call, NULL, NULL, reterr);
}

/* A counter of the stats reply (parsed as a real): a whole number from 0
 * to 2^64. */
static int stats_counter(
        json_t *reply, const char *section, const char *sub, const char *key, uint64_t *ret,
        struct mh_error *reterr) {
        json_t *v = json_object_get(json_object_get(reply, section), sub);
        if (key)
                v = json_object_get(v, key);
        double d = json_real_value(v);
        if (!json_is_real(v) || !(d >= 0 && d < 18446744073709551616.0) || d != (double)(uint64_t)d)
                return mh_error_set(
                        reterr, -EPROTO, MH_EXIT_GENERAL_FAILURE, "engine_bad_reply",
                        "the engine's stats reply has no %s.%s%s%s", section, sub, key ? "." : "",
                        key ? key : "");
        *ret = (uint64_t)d;
        return 0;
}

int engine_container_stats(
        struct engine *e, const char *id, struct engine_stats *ret, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        json_t *reply = NULL;
        struct engine_stats s;
        int r = engine_check_name(id, reterr);
        if (r >= 0)
                r = engine_path(e, &path, reterr, "/containers/%s/stats?stream=false&one-shot=true", id);
        if (r < 0)
                return r;
        struct engine_call call = {
                .method = "GET", .path = path.data, .reply_type = JSON_OBJECT, .numbers_as_reals = true
        };
        if ((r = engine_request(e, &call, NULL, &reply, reterr)) >= 0 &&
            (r = stats_counter(reply, "cpu_stats", "cpu_usage", "total_usage", &s.cpu_ns, reterr)) >= 0 &&
            (r = stats_counter(reply, "memory_stats", "usage", NULL, &s.memory_bytes, reterr)) >= 0)
                *ret = s;
        json_decref(reply);
        return r;
}
