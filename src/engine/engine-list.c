/* GET /containers/json, optionally filtered by compose project. The list
 * reply is shaped differently from inspect (Names array, State string,
 * Ports array with integers), so it has its own field readers. */

#include "engine-internal.h"

#include <stdio.h>
#include <string.h>

#define WHERE_MAX 64

static int list_path(
        const struct engine *e, const char *project, bool all, struct strbuf *path,
        struct mh_error *reterr) {
        _cleanup_(json_decrefp) json_t *filters = NULL;
        _cleanup_free_ char *dumped = NULL;
        char label[160];

        int r = engine_path(e, path, reterr, "/containers/json?all=%d", all ? 1 : 0);
        if (r < 0 || !project)
                return r;
        snprintf(label, sizeof(label), "com.docker.compose.project=%s", project);
        filters = json_pack("{s:[s]}", "label", label);
        dumped = filters ? json_dumps(filters, JSON_COMPACT) : NULL;
        r = dumped ? strbuf_puts(path, "&filters=") : -ENOMEM;
        if (r >= 0)
                r = http_url_escape(path, dumped);
        if (r < 0)
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "engine_request",
                        "cannot build the list filter: %s", strerror(-r));
        return 0;
}

static int parse_identity(
        const struct ejson *j, const json_t *v, const char *where, struct engine_container *c) {
        char name[ENGINE_NAME_MAX + 1];
        json_t *names;

        int r = ejson_string(j, v, where, "Id", true, c->id, sizeof(c->id));
        if (r >= 0)
                r = ejson_get(j, v, where, "Names", JSON_ARRAY, true, &names);
        if (r < 0)
                return r;
        json_t *first = json_array_get(names, 0);
        if (!json_is_string(first) || json_string_length(first) >= sizeof(name))
                return ejson_fail(j, where, "Names", "expected a non-empty array of container names");
        memcpy(name, json_string_value(first), json_string_length(first) + 1);
        return engine_set_identity(j, where, name, c);
}

static int parse_state(
        const struct ejson *j, const json_t *v, const char *where, struct engine_container *c) {
        json_t *labels = NULL;

        int r = ejson_string(j, v, where, "Image", true, c->image, sizeof(c->image));
        if (r >= 0)
                r = ejson_string(j, v, where, "State", true, c->status, sizeof(c->status));
        if (r >= 0)
                r = ejson_get(j, v, where, "Labels", JSON_OBJECT, false, &labels);
        if (r >= 0 && labels)
                r = engine_parse_labels(j, labels, where, c);
        engine_status_normalize(c);
        engine_flags_from_status(c);
        return r;
}

/* {"IP": "0.0.0.0", "PrivatePort": 80, "PublicPort": 8080, "Type": "tcp"} */
static int parse_port(
        const struct ejson *j, const json_t *p, const char *where, struct engine_container *c) {
        char type[sizeof(c->ports[0].protocol)] = "", ip[sizeof(c->ports[0].host_ip)] = "";
        int64_t private_port = 0, public_port = 0;

        if (!json_is_object(p))
                return ejson_fail(j, where, NULL, "expected object, got %s", ejson_type_name(p));
        int r = ejson_int(j, p, where, "PrivatePort", true, 1, UINT16_MAX, &private_port);
        if (r >= 0)
                r = ejson_string(j, p, where, "Type", true, type, sizeof(type));
        if (r >= 0)
                r = ejson_int(j, p, where, "PublicPort", false, 0, UINT16_MAX, &public_port);
        if (r >= 0)
                r = ejson_string(j, p, where, "IP", false, ip, sizeof(ip));
        if (r >= 0)
                engine_add_port(c, (uint16_t)private_port, type, ip, (uint16_t)public_port);
        return r;
}

static int parse_ports(
        const struct ejson *j, const json_t *v, const char *where, struct engine_container *c) {
        char at[WHERE_MAX];
        json_t *ports = NULL, *p;
        size_t i;

        int r = ejson_get(j, v, where, "Ports", JSON_ARRAY, false, &ports);
        if (r < 0)
                return r;
        json_array_foreach(ports, i, p) {
                snprintf(at, sizeof(at), "%s.Ports[%zu]", where, i);
                r = parse_port(j, p, at, c);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int parse_networks(
        const struct ejson *j, const json_t *v, const char *where, struct engine_container *c) {
        json_t *ns = NULL, *networks = NULL;
        char at[WHERE_MAX];

        snprintf(at, sizeof(at), "%s.NetworkSettings", where);
        int r = ejson_get(j, v, where, "NetworkSettings", JSON_OBJECT, false, &ns);
        if (r >= 0 && ns)
                r = ejson_get(j, ns, at, "Networks", JSON_OBJECT, false, &networks);
        snprintf(at, sizeof(at), "%s.NetworkSettings.Networks", where);
        if (r >= 0 && networks)
                r = engine_parse_networks(j, networks, at, c);
        return r;
}

static int (*const parsers[])(
        const struct ejson *, const json_t *, const char *, struct engine_container *) = {
        parse_identity,
        parse_state,
        parse_ports,
        parse_networks,
};

static int parse_list(const struct ejson *j, const json_t *root, struct engine_container *list) {
        json_t *v;
        size_t i;

        json_array_foreach(root, i, v) {
                char where[WHERE_MAX];
                snprintf(where, sizeof(where), "[%zu]", i);
                if (!json_is_object(v))
                        return ejson_fail(j, where, NULL, "expected object, got %s", ejson_type_name(v));
                for (size_t k = 0; k < ELEMENTSOF(parsers); k++) {
                        int r = parsers[k](j, v, where, &list[i]);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int engine_container_list(
        struct engine *e, const char *compose_project, bool all, struct engine_container **ret,
        size_t *ret_n, struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        _cleanup_(json_decrefp) json_t *root = NULL;
        _cleanup_free_ struct engine_container *list = NULL;
        struct engine_call call = { .method = "GET",
                                    .max_body = ENGINE_LIST_REPLY_MAX,
                                    .reply_type = JSON_ARRAY };

        int r = compose_project ? engine_check_project(compose_project, reterr) : 0;
        if (r >= 0)
                r = list_path(e, compose_project, all, &path, reterr);
        call.path = path.data;
        if (r >= 0)
                r = engine_request(e, &call, NULL, &root, reterr);
        if (r < 0)
                return r;
        size_t n = json_array_size(root);
        if (n > ENGINE_LIST_MAX)
                return mh_error_set(
                        reterr, -E2BIG, MH_EXIT_GENERAL_FAILURE, "engine_too_many",
                        "the engine lists %zu containers; mayhem handles at most %d", n, ENGINE_LIST_MAX);
        list = n ? calloc(n, sizeof(*list)) : NULL;
        if (n && !list)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        r = parse_list(&(struct ejson){ .what = path.data, .reterr = reterr }, root, list);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}
