/* Throwaway containers (mayhem doctor --fidelity): POST /containers/create
 * and DELETE /containers/{id}. Only what a measurement target needs: an
 * image, a name and a label that marks it ours. */

#include "engine-internal.h"

#include <stdio.h>
#include <stdlib.h>

int engine_container_create(
        struct engine *e, const char *image, const char *name, const char *label, int64_t nano_cpus,
        char ret_id[ENGINE_ID_MAX], struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        json_t *reply = NULL;
        int r = engine_check_name(name, reterr);
        json_t *req = json_pack(
                "{s:s, s:{s:s}, s:{s:I}}", "Image", image, "Labels", label, "1", "HostConfig", "NanoCpus",
                (json_int_t)nano_cpus);
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

int engine_container_cpu_usage(struct engine *e, const char *id, uint64_t *ret_ns, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        json_t *reply = NULL;
        int r = engine_check_name(id, reterr);
        if (r >= 0)
                r = engine_path(e, &path, reterr, "/containers/%s/stats?stream=false&one-shot=true", id);
        if (r < 0)
                return r;
        struct engine_call call = { .method = "GET", .path = path.data, .reply_type = JSON_OBJECT };
        if ((r = engine_request(e, &call, NULL, &reply, reterr)) < 0)
                return r;
        json_t *total = json_object_get(
                json_object_get(json_object_get(reply, "cpu_stats"), "cpu_usage"), "total_usage");
        if (!json_is_integer(total))
                r = mh_error_set(
                        reterr, -EPROTO, MH_EXIT_GENERAL_FAILURE, "engine_bad_reply",
                        "the engine's stats reply has no cpu_stats.cpu_usage.total_usage");
        else
                *ret_ns = (uint64_t)json_integer_value(total);
        json_decref(reply);
        return r;
}
