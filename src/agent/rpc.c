#include "rpc.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "rpc-frame.h"

static const char *const notification_methods[] = { "event.emit", "log.emit" };
static const char *const correlation_keys[] = { "run_id", "agent_id" };

bool rpc_method_is_notification(const char *method) {
        if (!method)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(notification_methods); i++)
                if (streq(method, notification_methods[i]))
                        return true;
        return false;
}

/* Writes a one-line message: control characters, which jansson's error text
 * may quote from the input, become spaces. Returns code. */
_printf_(4, 5) static int fail(char *msg, size_t size, int code, const char *fmt, ...) {
        va_list ap;

        if (!msg || size == 0)
                return code;
        va_start(ap, fmt);
        (void)vsnprintf(msg, size, fmt, ap);
        va_end(ap);
        for (char *p = msg; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = ' ';
        return code;
}

int rpc_request_parse(
        const char *line, size_t len, struct rpc_request *ret, json_t **ret_error_id, char *msg,
        size_t msg_size) {
        _cleanup_(json_decrefp) json_t *root = NULL;
        json_t *id = NULL, *v, *params;
        const char *method;
        json_error_t jerr;
        int code;

        assert(line || len == 0);
        assert(ret);

        root = json_loadb(line ? line : "", len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
        if (!root) {
                code = fail(msg, msg_size, RPC_PARSE_ERROR, "bad json: %s", jerr.text);
                goto error;
        }
        if (!json_is_object(root)) {
                code = fail(msg, msg_size, RPC_INVALID_REQUEST, "request must be a JSON object");
                goto error;
        }

        v = json_object_get(root, "id");
        if (v && !json_is_string(v) && !json_is_integer(v)) {
                code = fail(msg, msg_size, RPC_INVALID_REQUEST, "id must be a string or an integer");
                goto error;
        }
        id = v;

        v = json_object_get(root, "jsonrpc");
        if (!json_is_string(v) || !streq(json_string_value(v), "2.0")) {
                code = fail(msg, msg_size, RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
                goto error;
        }

        v = json_object_get(root, "method");
        if (!json_is_string(v)) {
                code = fail(msg, msg_size, RPC_INVALID_REQUEST, "method must be a string");
                goto error;
        }
        method = json_string_value(v);

        params = json_object_get(root, "params");
        if (json_is_array(params)) {
                code = fail(msg, msg_size, RPC_INVALID_PARAMS, "params must be an object, not an array");
                goto error;
        }
        if (params && !json_is_object(params)) {
                code = fail(msg, msg_size, RPC_INVALID_REQUEST, "params must be an object");
                goto error;
        }

        if (!id && !rpc_method_is_notification(method)) {
                code = fail(msg, msg_size, RPC_INVALID_REQUEST, "missing id");
                goto error;
        }

        if (!rpc_method_is_notification(method))
                for (size_t i = 0; i < ELEMENTSOF(correlation_keys); i++) {
                        const char *s = json_string_value(json_object_get(params, correlation_keys[i]));
                        if (!s || s[0] == '\0') {
                                code =
                                        fail(msg, msg_size, RPC_INVALID_PARAMS,
                                             "params missing correlation context: %s", correlation_keys[i]);
                                goto error;
                        }
                }

        if (!params) {
                /* set_new() steals the new object even when it fails. */
                if (json_object_set_new(root, "params", json_object()) < 0) {
                        code = fail(msg, msg_size, RPC_INTERNAL_ERROR, "out of memory");
                        goto error;
                }
                params = json_object_get(root, "params");
        }

        if (ret_error_id)
                *ret_error_id = NULL;
        *ret = (struct rpc_request){
                .id = id,
                .method = method,
                .params = params,
                .root = TAKE_PTR(root),
        };
        return 0;

error:
        if (ret_error_id)
                *ret_error_id = id ? json_incref(id) : json_null();
        return code;
}

void rpc_request_done(struct rpc_request *r) {
        if (!r)
                return;
        json_decref(r->root);
        *r = (struct rpc_request){ 0 };
}

/* Takes obj; one compact line with its "\n", or NULL. */
static char *dump_line(json_t *obj) {
        char *s, *t;
        size_t n;

        if (!obj)
                return NULL;
        s = json_dumps(obj, JSON_COMPACT);
        json_decref(obj);
        if (!s)
                return NULL;
        n = strlen(s);
        t = realloc(s, n + 2);
        if (!t) {
                free(s);
                return NULL;
        }
        t[n] = '\n';
        t[n + 1] = '\0';
        return t;
}

/* A new envelope {"jsonrpc":"2.0","id":id}, the id left out when null. */
static json_t *envelope(const json_t *id) {
        _cleanup_(json_decrefp) json_t *o = json_object();

        if (!o || json_object_set_new(o, "jsonrpc", json_string("2.0")) < 0)
                return NULL;
        if (id && !json_is_null(id) && json_object_set_new(o, "id", json_deep_copy(id)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* Sets key to value (stolen) unless value is NULL or null. */
static int set_nonnull(json_t *o, const char *key, json_t *value) {
        if (!value || json_is_null(value)) {
                json_decref(value);
                return 0;
        }
        return json_object_set_new(o, key, value);
}

char *rpc_result_line(const json_t *id, json_t *result) {
        _cleanup_(json_decrefp) json_t *owned = result;
        _cleanup_(json_decrefp) json_t *o = envelope(id);

        if (!o || set_nonnull(o, "result", TAKE_PTR(owned)) < 0)
                return NULL;
        return dump_line(TAKE_PTR(o));
}

/* The length of the valid UTF-8 sequence at p, or 0. */
static size_t utf8_sequence(const char *p, size_t avail) {
        unsigned c = (unsigned char)*p;
        size_t n = c < 0x80                 ? 1
                   : c >= 0xC2 && c <= 0xDF ? 2
                   : c >= 0xE0 && c <= 0xEF ? 3
                   : c >= 0xF0 && c <= 0xF4 ? 4
                                            : 0;

        return n > 0 && n <= avail && utf8_valid(p, n) ? n : 0;
}

/* A JSON string of s with each byte that is not part of valid UTF-8 turned
 * into '?', so a message quoting bad input can still be sent. */
static json_t *string_sanitized(const char *s) {
        _cleanup_free_ char *copy = NULL;
        size_t n = strlen(s);

        if (utf8_valid(s, n))
                return json_stringn(s, n);
        copy = malloc(n + 1);
        if (!copy)
                return NULL;
        for (size_t i = 0; i < n;) {
                size_t k = utf8_sequence(s + i, n - i);

                if (k > 0) {
                        memcpy(copy + i, s + i, k);
                        i += k;
                } else {
                        copy[i++] = '?';
                }
        }
        copy[n] = '\0';
        return json_stringn(copy, n);
}

char *rpc_error_line(const json_t *id, int code, const char *message, json_t *data) {
        _cleanup_(json_decrefp) json_t *owned = data;
        _cleanup_(json_decrefp) json_t *o = envelope(id);
        _cleanup_(json_decrefp) json_t *err = json_object();

        if (!o || !err)
                return NULL;
        if (json_object_set_new(err, "code", json_integer(code)) < 0 ||
            json_object_set_new(err, "message", string_sanitized(message ? message : "")) < 0 ||
            set_nonnull(err, "data", TAKE_PTR(owned)) < 0 ||
            json_object_set_new(o, "error", TAKE_PTR(err)) < 0)
                return NULL;
        return dump_line(TAKE_PTR(o));
}

char *rpc_request_line(json_int_t id, const char *method, json_t *params) {
        _cleanup_(json_decrefp) json_t *owned = params;
        _cleanup_(json_decrefp) json_t *o = json_object();

        assert(method);
        if (!o || json_object_set_new(o, "jsonrpc", json_string("2.0")) < 0 ||
            json_object_set_new(o, "id", json_integer(id)) < 0 ||
            json_object_set_new(o, "method", json_string(method)) < 0 ||
            set_nonnull(o, "params", TAKE_PTR(owned)) < 0)
                return NULL;
        return dump_line(TAKE_PTR(o));
}

int rpc_response_parse(
        const char *line, size_t len, json_int_t *ret_id, json_t **ret_result, int *ret_code, char *msg,
        size_t msg_size) {
        _cleanup_(json_decrefp) json_t *root = NULL;
        json_t *v, *result, *error;
        json_int_t id = -1, code;
        json_error_t jerr;

        assert(line || len == 0);
        assert(ret_id && ret_result && ret_code);

        root = json_loadb(line ? line : "", len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
        if (!root)
                return fail(msg, msg_size, -EBADMSG, "bad json: %s", jerr.text);
        if (!json_is_object(root))
                return fail(msg, msg_size, -EBADMSG, "response must be a JSON object");
        if (json_object_get(root, "method"))
                return fail(msg, msg_size, -ENOMSG, "not a response: the frame has a method");

        v = json_object_get(root, "jsonrpc");
        if (!json_is_string(v) || !streq(json_string_value(v), "2.0"))
                return fail(msg, msg_size, -EBADMSG, "jsonrpc must be \"2.0\"");

        v = json_object_get(root, "id");
        if (json_is_integer(v))
                id = json_integer_value(v);
        else if (v && !json_is_null(v))
                return fail(msg, msg_size, -EBADMSG, "response id must be an integer");

        result = json_object_get(root, "result");
        error = json_object_get(root, "error");
        if (json_is_null(error))
                error = NULL;
        if (result && error)
                return fail(msg, msg_size, -EBADMSG, "response has both result and error");

        if (error) {
                const char *m;

                if (!json_is_object(error))
                        return fail(msg, msg_size, -EBADMSG, "response error must be an object");
                v = json_object_get(error, "code");
                if (!json_is_integer(v))
                        return fail(msg, msg_size, -EBADMSG, "response error code must be an integer");
                code = json_integer_value(v);
                if (code == 0 || code < INT_MIN || code > INT_MAX)
                        return fail(
                                msg, msg_size, -EBADMSG, "response error code %lld is out of range",
                                (long long)code);
                m = json_string_value(json_object_get(error, "message"));
                if (!m)
                        return fail(msg, msg_size, -EBADMSG, "response error message must be a string");
                (void)fail(msg, msg_size, 0, "%s", m);
                *ret_id = id;
                *ret_result = NULL;
                *ret_code = (int)code;
                return 0;
        }

        *ret_id = id;
        *ret_result = result ? json_incref(result) : json_null();
        *ret_code = 0;
        return 0;
}
