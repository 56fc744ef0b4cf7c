#include "agent.h"

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

/* ["engine.unpause", ...] -> enums, through the given from_string. */
static int names(
        const json_t *a, const char *key, int (*from)(const char *), int *ret, size_t *ret_n, char *msg,
        size_t size) {
        size_t i;
        json_t *v;
        if (!json_is_array(a) || json_array_size(a) > AGENT_OPS_MAX)
                return bad(msg, size, key);
        json_array_foreach(a, i, v) {
                int x = from(json_string_value(v));
                if (x < 0) {
                        snprintf(msg, size, "lease: %s[%zu] is not a known name", key, i);
                        return -EINVAL;
                }
                ret[i] = x;
        }
        *ret_n = json_array_size(a);
        return 0;
}

static int undo_from(const char *s) {
        return comp_op_from_string(s);
}

static int verify_from(const char *s) {
        return verify_probe_from_string(s);
}

int agent_lease_from_json(const json_t *j, struct agent_lease *ret, char *msg, size_t size) {
        struct agent_lease l = { 0 };
        struct mh_error e = { 0 };
        int undo[AGENT_OPS_MAX], verify[AGENT_OPS_MAX], r;
        json_int_t ttl = json_integer_value(json_object_get(j, "ttl_seconds"));

        if (!json_is_object(j))
                return bad(msg, size, "must be an object");
        if ((r = copy_str(j, "id", l.id, sizeof(l.id), msg, size)) < 0 ||
            (r = copy_str(j, "fault_id", l.fault_id, sizeof(l.fault_id), msg, size)) < 0)
                return r;
        if (ttl <= 0 || ttl > 7 * 24 * 3600)
                return bad(msg, size, "ttl_seconds must be 1..604800");
        if (target_identity_from_json(json_object_get(j, "target"), &l.target, &e) < 0) {
                snprintf(msg, size, "lease: %s", e.msg);
                return -EINVAL;
        }
        /* Optional: recovery replays a lease from the journal, which keeps no effect check. */
        const char *effect_name = json_string_value(json_object_get(j, "effect"));
        int effect = effect_name ? effect_check_from_string(effect_name) : _EFFECT_CHECK_MAX;
        if (effect < 0)
                return bad(msg, size, "'effect' is not a known effect check");
        if ((r = names(json_object_get(j, "undo"), "undo", undo_from, undo, &l.n_undo, msg, size)) < 0 ||
            (r =
                     names(json_object_get(j, "verify"), "verify", verify_from, verify, &l.n_verify, msg,
                           size)) < 0)
                return r;
        for (size_t i = 0; i < l.n_undo; i++)
                l.undo[i] = (enum comp_op)undo[i];
        for (size_t i = 0; i < l.n_verify; i++)
                l.verify[i] = (enum verify_probe)verify[i];
        l.effect = (enum effect_check)effect;
        l.ttl_seconds = (unsigned)ttl;
        l.duration_ms = json_integer_value(json_object_get(j, "duration_ms"));
        l.params = json_object_get(j, "params");
        l.params = json_is_object(l.params) ? json_incref(l.params) : json_object();
        *ret = l;
        return 0;
}

json_t *agent_lease_to_json(const struct agent_lease *l) {
        json_t *undo = json_array(), *verify = json_array();
        for (size_t i = 0; undo && i < l->n_undo; i++)
                json_array_append_new(undo, json_string(comp_op_to_string(l->undo[i])));
        for (size_t i = 0; verify && i < l->n_verify; i++)
                json_array_append_new(verify, json_string(verify_probe_to_string(l->verify[i])));
        json_t *j = json_pack(
                "{s:s, s:s, s:I, s:I, s:o, s:O, s:o, s:o}", "id", l->id, "fault_id", l->fault_id,
                "ttl_seconds", (json_int_t)l->ttl_seconds, "duration_ms", (json_int_t)l->duration_ms,
                "target", target_identity_json(&l->target), "params", l->params ? l->params : json_null(),
                "undo", undo, "verify", verify);
        if (j && l->effect < _EFFECT_CHECK_MAX)
                json_object_set_new(j, "effect", json_string(effect_check_to_string(l->effect)));
        return j;
}

void agent_lease_done(struct agent_lease *l) {
        json_decref(l->params);
        l->params = NULL;
}
