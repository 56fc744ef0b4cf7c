#include "agent-lease.h"

#include "common/fault-params.h"

#define CALL_MS 15000

int agent_lease_resolve(
        struct agent_client *a, const char *engine, const char *container, json_t **ret,
        struct mh_error *e) {
        json_t *res = NULL;
        int r = agent_client_call(
                a, "target.resolve",
                json_pack("{s:{s:s, s:s}}", "target", "engine", engine, "container", container), CALL_MS,
                &res, e);
        json_t *identity = json_object_get(res, "identity");
        if (r >= 0 && !identity)
                r = mh_error_set(
                        e, -EPROTO, MH_EXIT_AGENT_ERROR, "agent_error", "target.resolve: no identity");
        if (r >= 0)
                *ret = json_incref(identity);
        json_decref(res);
        return r;
}

json_t *agent_lease_new(
        const char *id, const char *fault_id, const json_t *identity, const char *params, const char *net) {
        json_t *p = fault_params_defaults(catalog_find(fault_id), params),
               *n = net ? json_loads(net, 0, NULL) : NULL;
        json_t *j =
                p && (!net || json_is_object(n))
                        ? json_pack(
                                  "{s:s, s:s, s:i, s:i, s:O, s:O}", "id", id, "fault_id", fault_id,
                                  "ttl_seconds", 60, "duration_ms", 10000, "target", identity, "params", p)
                        : NULL;
        if (j && n)
                json_object_set(j, "net", n);
        json_decref(p);
        json_decref(n);
        return j;
}

int agent_lease_call(
        struct agent_client *a, const json_t *lease, const char *phase, json_t **ret, struct mh_error *e) {
        const char *fault_id = json_string_value(json_object_get(lease, "fault_id"));
        json_t *params = json_pack(
                "{s:s, s:s, s:O}", "fault_id", fault_id ? fault_id : "", "phase", phase, "lease", lease);
        int r = agent_client_call(a, "task.execute", params, CALL_MS, ret, e);
        if (r < 0)
                mh_error_prefix(e, "%s %s: ", fault_id ? fault_id : "?", phase);
        return r;
}
