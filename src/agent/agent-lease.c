#include "server-internal.h"

#include <stdio.h>
#include <string.h>

static int bad(char *msg, size_t size, const char *what) {
        snprintf(msg, size, "lease: %s", what);
        return -EINVAL;
}

static int copy_str(const json_t *j, const char *key, char *dst, size_t size, char *msg, size_t msg_size) {
        const char *s = json_string_value(json_object_get(j, key));
        if (!s || !*s || strlen(s) >= size) {
                snprintf(
                        msg, msg_size, "lease: '%s' must be a non-empty string shorter than %zu bytes", key,
                        size);
                return -EINVAL;
        }
        memcpy(dst, s, strlen(s) + 1);
        return 0;
}

const struct fault_comp *agent_lease_comp(const struct agent_lease *l) {
        return fault_comp_for(l->def, target_is_host_process(&l->target));
}

/* A list the request gives must be the catalog's, name for name. */
static bool same_names(const json_t *a, const char *const *names, size_t n) {
        if (json_array_size(a) != n)
                return false;
        for (size_t i = 0; i < n; i++) {
                const char *s = json_string_value(json_array_get(a, i));
                if (!s || strcmp(s, names[i]) != 0)
                        return false;
        }
        return true;
}

static int compare_ops(const json_t *j, const struct agent_lease *l, char *msg, size_t size) {
        const struct fault_comp *c = agent_lease_comp(l);
        const json_t *undo = json_object_get(j, "undo"), *verify = json_object_get(j, "verify"),
                     *effect = json_object_get(j, "effect");
        const char *e = json_string_value(effect);
        if ((undo && !same_names(undo, c->undo, fault_comp_n_undo(c))) ||
            (verify && !same_names(verify, c->verify, fault_comp_n_verify(c))) ||
            (effect && (!e || !c->effect || strcmp(e, c->effect) != 0))) {
                snprintf(
                        msg, size,
                        "lease: its undo, verify or effect differ from what %s uses on this target; the "
                        "agent "
                        "derives them from the catalog and never runs a list it is sent",
                        l->def->id);
                return -EINVAL;
        }
        return 0;
}

static json_t *object_or_null(const json_t *j, const char *key, bool *ret_bad) {
        json_t *v = json_object_get(j, key);
        *ret_bad = v && !json_is_object(v) && !json_is_null(v);
        return json_is_object(v) ? json_incref(v) : NULL;
}

int agent_lease_from_json(const json_t *j, struct agent_lease *ret, char *msg, size_t size) {
        struct agent_lease l = { 0 };
        struct mh_error e = { 0 };
        char fault_id[64];
        json_int_t ttl = json_integer_value(json_object_get(j, "ttl_seconds"));
        bool bad_params, bad_net, bad_restore;
        int r;

        if (!json_is_object(j))
                return bad(msg, size, "must be an object");
        if ((r = copy_str(j, "id", l.id, sizeof(l.id), msg, size)) < 0 ||
            (r = copy_str(j, "fault_id", fault_id, sizeof(fault_id), msg, size)) < 0)
                return r;
        if (!(l.def = catalog_find(fault_id)))
                return bad(msg, size, "fault_id names no fault of the catalog");
        if (ttl <= 0 || ttl > 7 * 24 * 3600)
                return bad(msg, size, "ttl_seconds must be 1..604800");
        if (target_identity_from_json(json_object_get(j, "target"), &l.target, &e) < 0) {
                snprintf(msg, size, "lease: %s", e.msg);
                return -EINVAL;
        }
        if ((r = compare_ops(j, &l, msg, size)) < 0)
                return r;
        l.ttl_seconds = (unsigned)ttl;
        l.duration_ms = json_integer_value(json_object_get(j, "duration_ms"));
        l.params = object_or_null(j, "params", &bad_params);
        l.net = object_or_null(j, "net", &bad_net);
        l.restore = object_or_null(j, "restore", &bad_restore);
        if (!l.params)
                l.params = json_object();
        if (!l.restore)
                l.restore = json_object();
        if (bad_params || bad_net || bad_restore || !l.params || !l.restore) {
                agent_lease_done(&l);
                return bad(msg, size, "params, net and restore must be objects");
        }
        *ret = l;
        return 0;
}

void agent_lease_done(struct agent_lease *l) {
        json_decref(l->params);
        json_decref(l->net);
        json_decref(l->restore);
        l->params = l->net = l->restore = NULL;
}
