#include "topology.h"

/* json_pack() with "o" takes the reference even when it fails, so every
 * builder below either returns a new value or NULL with nothing leaked. */

/* Appends v, taking it; on failure drops the whole array and leaves *a NULL. */
static void append(json_t **a, json_t *v) {
        if (json_array_append_new(*a, v) < 0) {
                json_decref(*a);
                *a = NULL;
        }
}

static json_t *string_array(char *const *items, size_t n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                append(&a, json_string(items[i]));
        return a;
}

static json_t *duration_or_null(int64_t v) {
        return v < 0 ? json_null() : json_integer(v);
}

static json_t *healthcheck_json(const struct topo_healthcheck *h) {
        if (!h->present)
                return json_null();
        return json_pack(
                "{s:b, s:o, s:o, s:o, s:o, s:o}", "disabled", h->disabled, "test",
                string_array(h->test, h->n_test), "interval_ms", duration_or_null(h->interval_ms),
                "timeout_ms", duration_or_null(h->timeout_ms), "start_period_ms",
                duration_or_null(h->start_period_ms), "retries", duration_or_null(h->retries));
}

static json_t *ports_json(const struct topo_service *svc) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < svc->n_ports; i++) {
                const struct topo_port *p = &svc->ports[i];
                json_t *o = json_pack(
                        "{s:i, s:i, s:s?, s:s}", "container_port", (int)p->container_port, "host_port",
                        (int)p->host_port, "host_ip", p->host_ip, "protocol", p->protocol);
                append(&a, o);
        }
        return a;
}

static json_t *container_names(const struct topology *t, const struct topo_service *svc) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < svc->replicas; i++)
                append(&a, json_string(t->containers[svc->first_container + i].name));
        return a;
}

static json_t *service_json(const struct topology *t, const struct topo_service *svc) {
        return json_pack(
                "{s:s, s:s?, s:s?, s:s?, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i}", "name", svc->name,
                "image", svc->image, "container_name", svc->container_name, "network_mode",
                svc->network_mode, "replicas", (json_int_t)svc->replicas, "containers",
                container_names(t, svc), "ports", ports_json(svc), "networks",
                string_array(svc->networks, svc->n_networks), "depends_on",
                string_array(svc->depends_on, svc->n_depends_on), "cap_add",
                string_array(svc->cap_add, svc->n_cap_add), "healthcheck",
                healthcheck_json(&svc->healthcheck), "line", (int)svc->line, "col", (int)svc->col);
}

static json_t *services_json(const struct topology *t) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < t->n_services; i++)
                append(&a, service_json(t, &t->services[i]));
        return a;
}

static json_t *containers_json(const struct topology *t) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < t->n_containers; i++) {
                const struct topo_container *c = &t->containers[i];
                json_t *o = json_pack(
                        "{s:s, s:s, s:i}", "name", c->name, "service", t->services[c->service].name,
                        "replica", (int)c->replica);
                append(&a, o);
        }
        return a;
}

static json_t *edges_json(const struct topology *t) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < t->n_services; i++) {
                const struct topo_service *svc = &t->services[i];
                for (size_t j = 0; a && j < svc->n_depends_on; j++) {
                        json_t *o = json_pack(
                                "{s:s, s:s, s:s}", "from", svc->name, "to", svc->depends_on[j], "condition",
                                topo_condition_to_string(svc->depends_on_condition[j]));
                        append(&a, o);
                }
        }
        return a;
}

static json_t *inactive_json(const struct topology *t) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < t->n_inactive; i++)
                append(&a, json_pack(
                                   "{s:s, s:s}", "name", t->inactive[i].name, "profiles",
                                   t->inactive[i].profiles));
        return a;
}

int topology_to_json(const struct topology *t, json_t **ret) {
        json_t *o = json_pack(
                "{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "project", t->project, "source", t->source_path,
                "services", services_json(t), "containers", containers_json(t), "networks",
                string_array(t->networks, t->n_networks), "edges", edges_json(t), "inactive_services",
                inactive_json(t), "warnings", string_array((char *const *)t->warnings, t->n_warnings));
        if (!o)
                return -ENOMEM;
        *ret = o;
        return 0;
}
