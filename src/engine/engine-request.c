#include "engine-internal.h"

#include <stdio.h>
#include <string.h>

#define ENGINE_URL_MAX (ENGINE_PATH_MAX + 32)

int engine_path(const struct engine *e, struct strbuf *path, struct mh_error *reterr, const char *fmt, ...) {
        va_list ap;

        int r = strbuf_printf(path, "/v%s", e->api_version);
        if (r >= 0) {
                va_start(ap, fmt);
                r = strbuf_vprintf(path, fmt, ap);
                va_end(ap);
        }
        if (r < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "engine_request",
                        "engine request path longer than %d bytes", ENGINE_PATH_MAX);
        return 0;
}

/* How to start the engine, for the one-line "cannot reach" message. */
static void start_hint(const struct engine *e, int r, char *buf, size_t size) {
        const char *slash = strrchr(e->socket, '/');
        int dir_len = slash && slash != e->socket ? (int)(slash - e->socket) : 1;

        if (e->kind == ENGINE_DOCKER && (r == -EACCES || r == -EPERM))
                snprintf(
                        buf, size,
                        "run as root or as a member of the docker group, or set "
                        "DOCKER_HOST=unix:///path/to/docker.sock");
        else if (e->kind == ENGINE_DOCKER)
                snprintf(
                        buf, size,
                        "start it (sudo systemctl start docker, or dockerd &) or set "
                        "DOCKER_HOST=unix:///path/to/docker.sock");
        else if (r == -EACCES || r == -EPERM)
                snprintf(buf, size, "run as root, or use your own rootless socket");
        else
                snprintf(
                        buf, size, "start it (mkdir -p %.*s && podman system service --time=0 unix://%s &)",
                        dir_len, e->socket, e->socket);
}

static int transport_error(
        const struct engine *e, const struct engine_call *call, int r, struct mh_error *reterr) {
        char hint[HTTP_UNIX_SOCKET_PATH_MAX * 3];

        if (r == -ENOMEM)
                return r;
        if (r == -ETIMEDOUT)
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "engine_timeout",
                        "the %s engine at %s did not answer %s %s in time", engine_kind_display(e->kind),
                        e->socket, call->method, call->path);
        if (r == -EPROTO || r == -ECONNRESET) {
                mh_error_prefix(reterr, "the %s engine at %s: ", engine_kind_display(e->kind), e->socket);
                mh_error_reclass(reterr, MH_EXIT_GENERAL_FAILURE, "engine_bad_reply");
                return r;
        }
        start_hint(e, r, hint, sizeof(hint));
        mh_error_set(
                reterr, r, MH_EXIT_CONFIG_ERROR, "engine_unreachable",
                "cannot reach the %s engine at %s: %s; %s", engine_kind_display(e->kind), e->socket,
                strerror(-r), hint);
        if (r == -ENOENT) {
                if (reterr)
                        reterr->code = -ECONNREFUSED;
                return -ECONNREFUSED;
        }
        return r;
}

static int status_errno(long status) {
        switch (status) {
        case 400: return -EINVAL;
        case 401:
        case 403: return -EACCES;
        case 404: return -ENOENT;
        case 409: return -EBUSY;
        default: return -EIO;
        }
}

/* Podman's name for "not in a state for that" (libpod's ErrCtrStateInvalid),
 * sent with HTTP 500 where dockerd sends 409: pausing a paused container,
 * unpausing a running one, killing an exited one. */
#define PODMAN_CAUSE_STATE "container state improper"

/* {"message": "..."} as Docker and Podman send it, else the body as text.
 * Podman adds {"cause": "...", "response": 500}; ret_state_improper says
 * whether the cause is PODMAN_CAUSE_STATE. */
static void reply_message(
        const struct http_response *resp, char *buf, size_t size, bool *ret_state_improper) {
        _cleanup_(json_decrefp) json_t *root = json_loadb(resp->body, resp->body_len, 0, NULL);
        json_t *m = json_is_object(root) ? json_object_get(root, "message") : NULL;
        json_t *cause = json_is_object(root) ? json_object_get(root, "cause") : NULL;

        if (json_is_string(m))
                http_one_line(buf, size, json_string_value(m), json_string_length(m));
        else
                http_one_line(buf, size, resp->body, resp->body_len);
        if (!buf[0])
                snprintf(buf, size, "no message");
        *ret_state_improper = json_is_string(cause) && streq(json_string_value(cause), PODMAN_CAUSE_STATE);
}

static int check_status(
        const struct engine_call *call, const struct http_response *resp, struct mh_error *reterr) {
        char msg[ENGINE_MSG_MAX];
        bool state_improper;
        int code;

        if (resp->status >= 200 && resp->status < 300)
                return 0;
        if (resp->status == call->alt_status && call->alt_code == 0)
                return 0;
        reply_message(resp, msg, sizeof(msg), &state_improper);
        if (resp->status == call->alt_status)
                code = call->alt_code;
        else if (resp->status == 500 && state_improper)
                code = status_errno(409); /* Podman: what dockerd says with 409 */
        else if (resp->status >= 400)
                code = status_errno(resp->status);
        else
                code = -EPROTO;
        return mh_error_set(
                reterr, code, MH_EXIT_GENERAL_FAILURE,
                resp->status == 404 ? "engine_not_found" : "engine_error", "%s %s: %s (HTTP %ld)",
                call->method, call->path, msg, resp->status);
}

static int parse_reply(
        const struct engine_call *call, const struct http_response *resp, json_t **ret,
        struct mh_error *reterr) {
        struct ejson j = { .what = call->path, .reterr = reterr };
        json_error_t jerr;

        size_t flags = JSON_REJECT_DUPLICATES | (call->numbers_as_reals ? JSON_DECODE_INT_AS_REAL : 0);
        json_t *root = json_loadb(resp->body, resp->body_len, flags, &jerr);
        if (!root)
                return ejson_fail(&j, NULL, NULL, "not JSON: %s at byte %d", jerr.text, jerr.position);
        if (json_typeof(root) != call->reply_type) {
                const char *got = ejson_type_name(root);
                json_decref(root);
                return ejson_fail(
                        &j, NULL, NULL, "expected %s, got %s",
                        call->reply_type == JSON_ARRAY ? "array" : "object", got);
        }
        *ret = root;
        return 0;
}

int engine_request(
        const struct engine *e, const struct engine_call *call, long *ret_status, json_t **ret_json,
        struct mh_error *reterr) {
        _cleanup_(http_response_done) struct http_response resp = { 0 };
        _cleanup_(strbuf_done) struct strbuf url = STRBUF_INIT(ENGINE_URL_MAX);
        size_t max = call->max_body ? call->max_body : ENGINE_REPLY_MAX;
        json_t *json = NULL;

        if (strbuf_printf(&url, "http://localhost%s", call->path) < 0)
                return mh_error_set(
                        reterr, -E2BIG, MH_EXIT_GENERAL_FAILURE, "engine_request",
                        "engine request URL too long");
        struct http_request req = {
                .method = call->method,
                .url = url.data,
                .unix_socket = e->socket,
                .body = call->body,
                .body_len = call->body_len,
                .content_type = call->content_type,
                .timeout_ms = call->timeout_ms ? call->timeout_ms : ENGINE_TIMEOUT_MS,
                .max_body = max,
        };
        int r = unix_http_run(&req, &resp, reterr);
        if (r < 0)
                return transport_error(e, call, r, reterr);
        if (resp.truncated && !(call->raw && resp.status / 100 == 2))
                return mh_error_set(
                        reterr, -EFBIG, MH_EXIT_GENERAL_FAILURE, "engine_bad_reply",
                        "the reply to %s %s exceeds %zu bytes (HTTP %ld)", call->method, call->path, max,
                        resp.status);
        r = check_status(call, &resp, reterr);
        if (r < 0)
                return r;
        if (call->raw && resp.status / 100 == 2) {
                *call->raw = resp;
                resp = (struct http_response){ 0 };
        } else if (call->reply_type != JSON_NULL && resp.status / 100 == 2) {
                r = parse_reply(call, &resp, &json, reterr);
                if (r < 0)
                        return r;
        }
        if (ret_status)
                *ret_status = resp.status;
        if (ret_json)
                *ret_json = json;
        else
                json_decref(json);
        return 0;
}
