/* Targets as the agent resolves them: containers through the engine socket
 * of its own configuration (never a path from a request), host processes
 * from its own /proc. */
#include "server-internal.h"

#include <stdio.h>
#include <string.h>

#include "agent/rpc.h"

int agent_options_engine_socket(struct agent_options *opt, const char *value, char *msg, size_t size) {
        enum engine_kind kind = ENGINE_DOCKER;
        const char *path = value, *colon = strchr(value, ':');
        if (colon && value[0] != '/') {
                char name[16];
                int k;
                snprintf(
                        name, sizeof(name), "%.*s", (int)MIN((size_t)(colon - value), sizeof(name) - 1),
                        value);
                if ((k = engine_kind_from_string(name)) < 0) {
                        snprintf(
                                msg, size,
                                "--engine-socket %.100s: the kind before ':' must be docker or podman",
                                value);
                        return -EINVAL;
                }
                kind = (enum engine_kind)k;
                path = colon + 1;
        }
        if (!path[0] || strlen(path) >= AGENT_SOCKET_MAX) {
                snprintf(
                        msg, size, "--engine-socket %.100s: the path must be 1..%d bytes", value,
                        AGENT_SOCKET_MAX - 1);
                return -EINVAL;
        }
        memcpy(opt->engine_socket[kind], path, strlen(path) + 1);
        return 0;
}

struct engine *agent_engine(struct agent_state *s, enum engine_kind kind, char *msg, size_t size) {
        struct mh_error err = { 0 };
        struct engine *e;
        if ((unsigned)kind >= _ENGINE_KIND_MAX)
                return NULL;
        pthread_mutex_lock(&s->lock);
        if (!s->engines[kind]) {
                const char *path = s->opt->engine_socket[kind];
                if (engine_open(kind, path[0] ? path : NULL, &s->engines[kind], &err) < 0)
                        snprintf(msg, size, "%s", err.msg);
        }
        e = s->engines[kind];
        pthread_mutex_unlock(&s->lock);
        return e;
}

/* {"engine": "docker"|"podman", "container": NAME} or {"engine": "host", "pid": N | "name": NAME}. */
static int resolve(
        struct agent_state *s, const json_t *t, struct target_identity *ret, char *msg, size_t size) {
        const char *engine = json_string_value(json_object_get(t, "engine"));
        struct mh_error err = { 0 };
        int kind, r;
        if (engine && strcmp(engine, "host") == 0) {
                json_int_t pid = json_integer_value(json_object_get(t, "pid"));
                const char *name = json_string_value(json_object_get(t, "name"));
                if ((pid <= 0 || pid > INT32_MAX) && (!name || !*name)) {
                        snprintf(msg, size, "target.resolve: a host target needs a pid or a name");
                        return RPC_INVALID_PARAMS;
                }
                r = target_identity_of_process(pid > 0 ? pid : 0, name, ret, &err);
        } else {
                const char *container = json_string_value(json_object_get(t, "container"));
                if (!engine || (kind = engine_kind_from_string(engine)) < 0 || !container || !*container) {
                        snprintf(
                                msg, size,
                                "target.resolve: the target needs engine docker|podman|host and a "
                                "container");
                        return RPC_INVALID_PARAMS;
                }
                struct engine *e = agent_engine(s, (enum engine_kind)kind, msg, size);
                if (!e)
                        return RPC_TASK_FAILED;
                r = target_identity_resolve(e, container, ret, &err);
        }
        if (r < 0) {
                snprintf(msg, size, "%s", err.msg);
                return r == -ENOENT || r == -ESRCH ? RPC_TARGET_MISSING : RPC_TASK_FAILED;
        }
        return 0;
}

int agent_target_resolve(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        struct target_identity t;
        int r = resolve(s, json_object_get(params, "target"), &t, msg, size);
        if (r < 0)
                return r;
        *ret = json_pack("{s:o}", "identity", target_identity_json(&t));
        return 0;
}
