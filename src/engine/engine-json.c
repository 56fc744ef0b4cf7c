#include "engine-internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *ejson_type_name(const json_t *v) {
        switch (json_typeof(v)) {
        case JSON_OBJECT: return "object";
        case JSON_ARRAY: return "array";
        case JSON_STRING: return "string";
        case JSON_INTEGER: return "integer";
        case JSON_REAL: return "real";
        case JSON_TRUE:
        case JSON_FALSE: return "boolean";
        default: return "null";
        }
}

int ejson_fail(const struct ejson *j, const char *objname, const char *key, const char *fmt, ...) {
        char detail[MH_ERROR_MSG_MAX / 2], msg[MH_ERROR_MSG_MAX], line[MH_ERROR_MSG_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
        snprintf(
                msg, sizeof(msg), "malformed engine reply to %s: %s%s%s%s%s", j->what,
                objname ? objname : "", objname && key ? "." : "", key ? key : "",
                objname || key ? ": " : "", detail);
        /* Keys and values come from the engine: keep the message on one line. */
        http_one_line(line, sizeof(line), msg, sizeof(msg));
        return mh_error_set(j->reterr, -EPROTO, MH_EXIT_GENERAL_FAILURE, "engine_bad_reply", "%s", line);
}

static bool type_matches(const json_t *v, json_type type) {
        if (type == JSON_TRUE || type == JSON_FALSE)
                return json_is_boolean(v);
        return json_typeof(v) == type;
}

static const char *want_name(json_type type) {
        switch (type) {
        case JSON_OBJECT: return "object";
        case JSON_ARRAY: return "array";
        case JSON_STRING: return "string";
        case JSON_INTEGER: return "integer";
        case JSON_REAL: return "real";
        default: return "boolean";
        }
}

int ejson_get(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, json_type type,
        bool required, json_t **ret) {
        json_t *v = json_object_get(obj, key);

        if (!v || json_is_null(v)) {
                if (required)
                        return ejson_fail(j, objname, key, "missing or null");
                *ret = NULL;
                return 0;
        }
        if (!type_matches(v, type))
                return ejson_fail(
                        j, objname, key, "expected %s, got %s", want_name(type), ejson_type_name(v));
        *ret = v;
        return 0;
}

int ejson_string(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, bool required,
        char *buf, size_t size) {
        json_t *v;

        int r = ejson_get(j, obj, objname, key, JSON_STRING, required, &v);
        if (r < 0 || !v)
                return r;
        size_t len = json_string_length(v);
        if (len >= size)
                return ejson_fail(
                        j, objname, key, "%zu bytes, more than the %zu this field holds", len, size - 1);
        memcpy(buf, json_string_value(v), len + 1);
        return 0;
}

int ejson_int(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, bool required,
        int64_t min, int64_t max, int64_t *ret) {
        json_t *v;

        int r = ejson_get(j, obj, objname, key, JSON_INTEGER, required, &v);
        if (r < 0 || !v)
                return r;
        json_int_t i = json_integer_value(v);
        if (i < min || i > max)
                return ejson_fail(j, objname, key, "%lld is out of range", (long long)i);
        *ret = (int64_t)i;
        return 0;
}

int ejson_bool(
        const struct ejson *j, const json_t *obj, const char *objname, const char *key, bool required,
        bool *ret) {
        json_t *v;

        int r = ejson_get(j, obj, objname, key, JSON_TRUE, required, &v);
        if (r < 0 || !v)
                return r;
        *ret = json_is_true(v);
        return 0;
}
