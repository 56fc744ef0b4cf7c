/* GET /containers/{id}/json -> struct engine_container. Every field read is
 * type-checked; the ones every engine version we speak sends are required. */

#include "engine-internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "basic/parse-number.h"

#define PORTS_KEY "NetworkSettings.Ports"
#define WHERE_MAX 256

static int parse_identity(const struct ejson *j, const json_t *root, struct engine_container *c) {
        char name[ENGINE_NAME_MAX + 1]; /* with the engine's leading '/' */

        int r = ejson_string(j, root, NULL, "Id", true, c->id, sizeof(c->id));
        if (r >= 0)
                r = ejson_string(j, root, NULL, "Name", true, name, sizeof(name));
        if (r >= 0)
                r = engine_set_identity(j, NULL, name, c);
        return r;
}

static int parse_state(const struct ejson *j, const json_t *root, struct engine_container *c) {
        int64_t pid = 0, exit_code = 0;
        json_t *s;

        int r = ejson_get(j, root, NULL, "State", JSON_OBJECT, true, &s);
        if (r >= 0)
                r = ejson_string(j, s, "State", "Status", true, c->status, sizeof(c->status));
        if (r >= 0)
                r = ejson_bool(j, s, "State", "Running", true, &c->running);
        if (r >= 0)
                r = ejson_bool(j, s, "State", "Paused", true, &c->paused);
        if (r >= 0)
                r = ejson_bool(j, s, "State", "Restarting", true, &c->restarting);
        if (r >= 0)
                r = ejson_int(j, s, "State", "Pid", true, 0, INT_MAX, &pid);
        if (r >= 0)
                r = ejson_int(j, s, "State", "ExitCode", true, INT_MIN, INT_MAX, &exit_code);
        if (r >= 0)
                r = ejson_string(j, s, "State", "StartedAt", true, c->started_at, sizeof(c->started_at));
        if (r >= 0)
                r = ejson_string(j, s, "State", "FinishedAt", true, c->finished_at, sizeof(c->finished_at));
        c->pid = (int)pid;
        c->exit_code = (int)exit_code;
        engine_status_normalize(c);
        return r;
}

static int parse_config(const struct ejson *j, const json_t *root, struct engine_container *c) {
        json_t *config, *labels = NULL;

        int r = ejson_get(j, root, NULL, "Config", JSON_OBJECT, true, &config);
        if (r >= 0)
                r = ejson_string(j, config, "Config", "Image", true, c->image, sizeof(c->image));
        if (r >= 0)
                r = ejson_get(j, config, "Config", "Labels", JSON_OBJECT, false, &labels);
        if (r >= 0 && labels)
                r = engine_parse_labels(j, labels, "Config.Labels", c);
        if (r >= 0)
                r = ejson_bool(j, config, "Config", "Tty", false, &c->tty);
        return r;
}

static int parse_host_config(const struct ejson *j, const json_t *root, struct engine_container *c) {
        json_t *hc, *policy = NULL;

        int r = ejson_get(j, root, NULL, "HostConfig", JSON_OBJECT, true, &hc);
        if (r >= 0)
                r = ejson_int(j, hc, "HostConfig", "NanoCpus", false, 0, INT64_MAX, &c->nano_cpus);
        if (r >= 0)
                r = ejson_int(j, hc, "HostConfig", "CpuQuota", false, -1, INT64_MAX, &c->cpu_quota);
        if (r >= 0)
                r = ejson_int(j, hc, "HostConfig", "CpuPeriod", false, 0, INT64_MAX, &c->cpu_period);
        if (r >= 0)
                r = ejson_int(j, hc, "HostConfig", "CpuShares", false, 0, INT64_MAX, &c->cpu_shares);
        if (r >= 0)
                r = ejson_string(
                        j, hc, "HostConfig", "CgroupParent", false, c->cgroup_parent,
                        sizeof(c->cgroup_parent));
        if (r >= 0)
                r = ejson_get(j, hc, "HostConfig", "RestartPolicy", JSON_OBJECT, false, &policy);
        if (r >= 0 && policy)
                r = ejson_string(
                        j, policy, "HostConfig.RestartPolicy", "Name", false, c->restart_policy,
                        sizeof(c->restart_policy));
        return r;
}

/* One of {"HostIp": "0.0.0.0", "HostPort": "8080"}; HostPort is a string here. */
static int parse_binding(
        const struct ejson *j, const json_t *b, const char *where, uint16_t port, const char *proto,
        struct engine_container *c) {
        char ip[sizeof(c->ports[0].host_ip)] = "", host_port[8] = "";
        int64_t hp = 0;

        if (!json_is_object(b))
                return ejson_fail(j, where, NULL, "expected object, got %s", ejson_type_name(b));
        int r = ejson_string(j, b, where, "HostIp", false, ip, sizeof(ip));
        if (r >= 0)
                r = ejson_string(j, b, where, "HostPort", false, host_port, sizeof(host_port));
        if (r < 0)
                return r;
        if (host_port[0] && (parse_int64(host_port, &hp) < 0 || hp < 0 || hp > UINT16_MAX))
                return ejson_fail(j, where, "HostPort", "'%s' is not a port number", host_port);
        engine_add_port(c, port, proto, ip, (uint16_t)hp);
        return 0;
}

/* {"80/tcp": [bindings...] or null (exposed, not published)} */
static int parse_ports(const struct ejson *j, const json_t *ports, struct engine_container *c) {
        const char *key;
        json_t *bindings;

        json_object_foreach((json_t *)ports, key, bindings) {
                char proto[sizeof(c->ports[0].protocol)], where[WHERE_MAX];
                uint16_t port;
                size_t i;
                json_t *b;

                int r = engine_parse_port_key(j, PORTS_KEY, key, &port, proto, sizeof(proto));
                if (r < 0)
                        return r;
                if (!json_is_null(bindings) && !json_is_array(bindings))
                        return ejson_fail(
                                j, PORTS_KEY, key, "expected array or null, got %s",
                                ejson_type_name(bindings));
                if (json_array_size(bindings) == 0)
                        engine_add_port(c, port, proto, "", 0);
                json_array_foreach(bindings, i, b) {
                        snprintf(where, sizeof(where), PORTS_KEY ".%s[%zu]", key, i);
                        r = parse_binding(j, b, where, port, proto, c);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int parse_network_settings(const struct ejson *j, const json_t *root, struct engine_container *c) {
        json_t *ns, *networks = NULL, *ports = NULL;

        int r = ejson_get(j, root, NULL, "NetworkSettings", JSON_OBJECT, true, &ns);
        if (r >= 0)
                r = ejson_get(j, ns, "NetworkSettings", "Networks", JSON_OBJECT, false, &networks);
        if (r >= 0 && networks)
                r = engine_parse_networks(j, networks, "NetworkSettings.Networks", c);
        if (r >= 0)
                r = ejson_get(j, ns, "NetworkSettings", "Ports", JSON_OBJECT, false, &ports);
        if (r >= 0 && ports)
                r = parse_ports(j, ports, c);
        return r;
}

static int (*const parsers[])(const struct ejson *, const json_t *, struct engine_container *) = {
        parse_identity, parse_state, parse_config, parse_host_config, parse_network_settings,
};

int engine_inspect_timed(
        struct engine *e, const char *name_or_id, int64_t timeout_ms, struct engine_container *ret,
        struct mh_error *reterr) {
        _cleanup_(strbuf_done) struct strbuf path = STRBUF_INIT(ENGINE_PATH_MAX);
        _cleanup_(json_decrefp) json_t *root = NULL;
        struct engine_container c = { 0 };

        int r = engine_check_name(name_or_id, reterr);
        if (r >= 0)
                r = engine_path(e, &path, reterr, "/containers/%s/json", name_or_id);
        if (r >= 0)
                r = engine_request(
                        e,
                        &(struct engine_call){ .method = "GET",
                                               .path = path.data,
                                               .timeout_ms = timeout_ms,
                                               .reply_type = JSON_OBJECT },
                        NULL, &root, reterr);
        struct ejson j = { .what = path.data, .reterr = reterr };
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(parsers); i++)
                r = parsers[i](&j, root, &c);
        if (r < 0)
                return r;
        *ret = c;
        return 0;
}

int engine_container_inspect(
        struct engine *e, const char *name_or_id, struct engine_container *ret, struct mh_error *reterr) {
        return engine_inspect_timed(e, name_or_id, 0, ret, reterr);
}
