/* Throwaway images (mayhem doctor --fidelity): POST /build of a tar
 * context, GET /images/{name}/json, DELETE /images/{name}. Docker and
 * Podman both answer a build with a stream of JSON objects, one of which
 * says "error" when it failed; the image is then looked up rather than
 * the stream believed. */

#include "engine-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUILD_TIMEOUT_MS 120000
#define BUILD_REPLY_MAX  (1u << 20)

void engine_build_stream_error(const char *body, size_t len, char *buf, size_t size) {
        size_t at = 0;
        buf[0] = '\0';
        while (at < len) {
                json_error_t jerr;
                json_t *msg = json_loadb(body + at, len - at, JSON_DISABLE_EOF_CHECK, &jerr);
                if (!msg)
                        return; /* not JSON past here: the image lookup decides */
                const char *error = json_string_value(json_object_get(msg, "error"));
                if (error)
                        http_one_line(buf, size, error, strlen(error));
                json_decref(msg);
                if (error || jerr.position <= 0)
                        return;
                at += (size_t)jerr.position;
        }
}

/* GET or DELETE of /images/{name}:latest{suffix}, the reply ignored. */
static int image_call(
        struct engine *e, const char *method, const char *name, const char *suffix,
        struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        int r = engine_check_name(name, reterr);
        if (r >= 0)
                r = engine_path(e, &path, reterr, "/images/%s:latest%s", name, suffix);
        if (r < 0)
                return r;
        struct engine_call call = { .method = method, .path = path.data, .reply_type = JSON_NULL };
        return engine_request(e, &call, NULL, NULL, reterr);
}

int engine_image_present(struct engine *e, const char *name, struct mh_error *reterr) {
        return image_call(e, "GET", name, "/json", reterr);
}

static int build_path(
        struct engine *e, const char *name, const char *label, struct strbuf *path,
        struct mh_error *reterr) {
        json_t *labels = json_pack("{s:s}", label, "1");
        char *dumped = labels ? json_dumps(labels, JSON_COMPACT) : NULL;
        json_decref(labels);
        int r = dumped ? engine_path(e, path, reterr, "/build?t=%s:latest&rm=1&forcerm=1&labels=", name)
                       : mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (r >= 0 && http_url_escape(path, dumped) < 0)
                r = mh_error_set(
                        reterr, -E2BIG, MH_EXIT_GENERAL_FAILURE, "engine_request", "image label too long");
        free(dumped);
        return r;
}

int engine_image_build(
        struct engine *e, const char *name, const char *label, const char *tar, size_t tar_len,
        struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        _cleanup_(http_response_done) struct http_response resp = { 0 };
        int r = engine_check_name(name, reterr);
        if (r >= 0)
                r = build_path(e, name, label, &path, reterr);
        if (r < 0)
                return r;
        struct engine_call call = { .method = "POST",
                                    .path = path.data,
                                    .max_body = BUILD_REPLY_MAX,
                                    .timeout_ms = BUILD_TIMEOUT_MS,
                                    .reply_type = JSON_NULL,
                                    .raw = &resp,
                                    .body = tar,
                                    .body_len = tar_len,
                                    .content_type = "application/x-tar" };
        if ((r = engine_request(e, &call, NULL, NULL, reterr)) < 0)
                return r;
        char error[ENGINE_MSG_MAX];
        engine_build_stream_error(resp.body, resp.body_len, error, sizeof(error));
        if (error[0])
                return mh_error_set(
                        reterr, -EIO, MH_EXIT_GENERAL_FAILURE, "engine_build", "building image %s: %s", name,
                        error);
        r = engine_image_present(e, name, reterr);
        if (r == -ENOENT)
                return mh_error_set(
                        reterr, -EIO, MH_EXIT_GENERAL_FAILURE, "engine_build",
                        "building image %s: the engine reported no error, but there is no such image", name);
        return r;
}

int engine_image_remove(struct engine *e, const char *name, struct mh_error *reterr) {
        return image_call(e, "DELETE", name, "?force=1", reterr);
}
