/* The exec API: POST /containers/{id}/exec, POST /exec/{id}/start (detached),
 * GET /exec/{id}/json until it stops running. */
#include "engine-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/clock.h"

#define EXEC_POLL_MS 20

static int exec_create(
        struct engine *e, const char *id, const char *const *argv, size_t n, char ret_id[ENGINE_ID_MAX],
        struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        json_t *cmd = json_array(), *reply = NULL;
        for (size_t i = 0; cmd && i < n; i++)
                json_array_append_new(cmd, json_string(argv[i]));
        json_t *req = json_pack(
                "{s:o, s:b, s:b, s:b}", "Cmd", cmd, "AttachStdin", 0, "AttachStdout", 0, "AttachStderr", 0);
        char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
        json_decref(req);
        int r = body ? engine_path(e, &path, reterr, "/containers/%s/exec", id)
                     : mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (r >= 0) {
                struct engine_call call = {
                        .method = "POST", .path = path.data, .reply_type = JSON_OBJECT, .body = body
                };
                r = engine_request(e, &call, NULL, &reply, reterr);
        }
        free(body);
        const char *exec_id = json_string_value(json_object_get(reply, "Id"));
        if (r >= 0 && (!exec_id || !engine_name_valid(exec_id, ENGINE_ID_MAX - 1)))
                r = mh_error_set(
                        reterr, -EPROTO, MH_EXIT_GENERAL_FAILURE, "engine_bad_reply",
                        "the engine's exec create reply has no valid Id");
        if (r >= 0)
                snprintf(ret_id, ENGINE_ID_MAX, "%s", exec_id);
        json_decref(reply);
        return r;
}

static int exec_start(struct engine *e, const char *exec_id, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        int r = engine_path(e, &path, reterr, "/exec/%s/start", exec_id);
        if (r < 0)
                return r;
        struct engine_call call = {
                .method = "POST", .path = path.data, .reply_type = JSON_NULL, .body = "{\"Detach\":true}"
        };
        return engine_request(e, &call, NULL, NULL, reterr);
}

/* 1 while it runs, 0 when it exited (*ret_code), or -errno. */
static int exec_state(struct engine *e, const char *exec_id, int *ret_code, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        json_t *reply = NULL;
        int r = engine_path(e, &path, reterr, "/exec/%s/json", exec_id);
        if (r >= 0) {
                struct engine_call call = { .method = "GET", .path = path.data, .reply_type = JSON_OBJECT };
                r = engine_request(e, &call, NULL, &reply, reterr);
        }
        if (r >= 0) {
                const json_t *code = json_object_get(reply, "ExitCode");
                r = json_is_true(json_object_get(reply, "Running")) || !json_is_integer(code) ? 1 : 0;
                if (r == 0)
                        *ret_code = (int)json_integer_value(code);
        }
        json_decref(reply);
        return r;
}

int engine_container_exec(
        struct engine *e, const char *id, const char *const *argv, size_t n, int64_t timeout_ms,
        int *ret_exit_code, struct mh_error *reterr) {
        char exec_id[ENGINE_ID_MAX];
        double until = monotonic_ms() + (double)timeout_ms;
        int r = engine_check_name(id, reterr), code = -1;
        if (r < 0)
                return r;
        if (n == 0 || n > ENGINE_EXEC_ARGV_MAX)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "engine_exec_argv",
                        "exec needs 1..%d arguments, got %zu", ENGINE_EXEC_ARGV_MAX, n);
        if ((r = exec_create(e, id, argv, n, exec_id, reterr)) < 0 ||
            (r = exec_start(e, exec_id, reterr)) < 0)
                return r;
        while ((r = exec_state(e, exec_id, &code, reterr)) == 1 && monotonic_ms() < until)
                sleep_ms(EXEC_POLL_MS);
        if (r == 1)
                return mh_error_set(
                        reterr, -ETIMEDOUT, MH_EXIT_GENERAL_FAILURE, "engine_exec_timeout",
                        "%s did not exit within %lld ms", argv[0], (long long)timeout_ms);
        if (r < 0)
                return r;
        *ret_exit_code = code;
        return 0;
}
