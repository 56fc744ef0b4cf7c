#include "engine-internal.h"

#include <stdio.h>
#include <string.h>

#include "basic/parse-number.h"

#define PORT_DIGITS_MAX 5
#define WHERE_MAX       256 /* a field's path in messages; longer ones are cut */

int engine_parse_labels(
        const struct ejson *j, const json_t *obj, const char *objname, struct engine_container *c) {
        int r = ejson_string(
                j, obj, objname, "com.docker.compose.project", false, c->compose_project,
                sizeof(c->compose_project));
        if (r < 0)
                return r;
        return ejson_string(
                j, obj, objname, "com.docker.compose.service", false, c->compose_service,
                sizeof(c->compose_service));
}

int engine_parse_networks(
        const struct ejson *j, const json_t *obj, const char *objname, struct engine_container *c) {
        const char *name;
        json_t *v;

        json_object_foreach((json_t *)obj, name, v) {
                struct engine_network *n;
                char where[WHERE_MAX];
                int r;

                if (c->n_networks == ENGINE_NETWORKS_MAX) {
                        c->more_networks = true;
                        return 0;
                }
                n = &c->networks[c->n_networks];
                if (!json_is_object(v))
                        return ejson_fail(j, objname, name, "expected object, got %s", ejson_type_name(v));
                if (strlen(name) >= sizeof(n->name))
                        return ejson_fail(
                                j, objname, name, "network name longer than %zu", sizeof(n->name) - 1);
                snprintf(where, sizeof(where), "%s.%s", objname, name);
                r = ejson_string(j, v, where, "IPAddress", false, n->ip, sizeof(n->ip));
                if (r < 0)
                        return r;
                memcpy(n->name, name, strlen(name) + 1);
                c->n_networks++;
        }
        return 0;
}

int engine_parse_port_key(
        const struct ejson *j, const char *objname, const char *key, uint16_t *ret_port, char *proto,
        size_t proto_size) {
        const char *slash = strchr(key, '/');
        size_t n = slash ? (size_t)(slash - key) : 0;
        char digits[PORT_DIGITS_MAX + 1];
        int64_t v;

        if (n == 0 || n > PORT_DIGITS_MAX || !slash[1] || strlen(slash + 1) >= proto_size)
                return ejson_fail(j, objname, key, "expected PORT/PROTOCOL");
        memcpy(digits, key, n);
        digits[n] = '\0';
        if (parse_int64(digits, &v) < 0 || v < 1 || v > UINT16_MAX)
                return ejson_fail(j, objname, key, "not a port number");
        *ret_port = (uint16_t)v;
        memcpy(proto, slash + 1, strlen(slash + 1) + 1);
        return 0;
}

void engine_add_port(
        struct engine_container *c, uint16_t container_port, const char *proto, const char *host_ip,
        uint16_t host_port) {
        if (c->n_ports == ENGINE_PORTS_MAX) {
                c->more_ports = true;
                return;
        }
        struct engine_port *p = &c->ports[c->n_ports++];
        p->container_port = container_port;
        p->host_port = host_port;
        snprintf(p->protocol, sizeof(p->protocol), "%s", proto);
        snprintf(p->host_ip, sizeof(p->host_ip), "%s", host_ip);
}

void engine_status_normalize(struct engine_container *c) {
        /* Podman's own state names, where its compat API lets them through (it maps
         * some, not all, and not the same ones in inspect and list): "configured" and
         * "initialized" are dockerd's "created" (the OCI container may exist, its
         * process does not); "stopped" is "exited" before Podman's cleanup ran. */
        if (streq(c->status, "configured") || streq(c->status, "initialized"))
                snprintf(c->status, sizeof(c->status), "created");
        else if (streq(c->status, "stopped"))
                snprintf(c->status, sizeof(c->status), "exited");
}

void engine_flags_from_status(struct engine_container *c) {
        /* As inspect reports them: a paused or restarting container is also running,
         * and so is one Podman is stopping (dockerd says "running" until it is gone). */
        c->paused = streq(c->status, "paused");
        c->restarting = streq(c->status, "restarting");
        c->running =
                c->paused || c->restarting || streq(c->status, "running") || streq(c->status, "stopping");
}

int engine_set_identity(
        const struct ejson *j, const char *objname, const char *name, struct engine_container *c) {
        const char *bare = name[0] == '/' ? name + 1 : name;

        /* Both go back into URLs later: they must pass the same check as a user's name. */
        if (!engine_name_valid(c->id, ENGINE_ID_MAX - 1))
                return ejson_fail(j, objname, "Id", "'%s' is not a container id", c->id);
        if (!engine_name_valid(bare, ENGINE_NAME_MAX - 1))
                return ejson_fail(j, objname, "Name", "'%s' is not a container name", bare);
        memcpy(c->name, bare, strlen(bare) + 1);
        return 0;
}
