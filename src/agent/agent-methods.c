#include "server-internal.h"

#include "agent/agent-kernel.h"

#include <stdio.h>
#include <string.h>

#include "agent/rpc.h"
#include "config.h"

static json_t *roles_json(const char *roles) {
        json_t *a = json_array();
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", roles ? roles : "");
        for (char *save = NULL, *r = strtok_r(buf, ",", &save); a && r; r = strtok_r(NULL, ",", &save))
                json_array_append_new(a, json_string(r));
        return a;
}

static int m_handshake(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        *ret = json_pack(
                "{s:s, s:s, s:s, s:o}", "agent_id", s->opt->agent_id, "protocol", AGENT_PROTOCOL,
                "agent_version", MAYHEM_VERSION, "roles", roles_json(s->opt->roles));
        return 0;
}

static int m_capabilities(
        struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        json_t *faults = json_array();
        for (size_t i = 0; faults && i < fault_mechanism_count(); i++) {
                const char *id = fault_mechanism_at(i)->fault_id;
                if (agent_can_inject(&s->opt->caps, id))
                        json_array_append_new(faults, json_string(id));
        }
        struct kernel_features k = { .known = false };
        if (agent_can_access(&s->opt->caps, "netns"))
                kernel_features_detect(&k, NULL); /* probed once; later calls are free */
        *ret = json_pack(
                "{s:o, s:o, s:o, s:o}", "roles", roles_json(s->opt->roles), "faults", faults, "capabilities",
                agent_capabilities_json(&s->opt->caps), "kernel", agent_kernel_features_json(&k));
        return 0;
}

static size_t held_count(struct agent_state *s) {
        size_t n = 0;
        for (size_t i = 0; i < AGENT_HELD_MAX; i++)
                n += s->held[i].used;
        return n;
}

static int m_ping(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        pthread_mutex_lock(&s->lock);
        *ret = json_pack(
                "{s:b, s:i, s:I}", "pong", 1, "inflight", s->inflight, "owned_leases",
                (json_int_t)held_count(s));
        pthread_mutex_unlock(&s->lock);
        return 0;
}

static json_t *ring_json(const struct task_record *ring, size_t n) {
        json_t *a = json_array();
        size_t first = n > AGENT_TASKS_KEPT ? n - AGENT_TASKS_KEPT : 0;
        for (size_t i = first; a && i < n; i++) {
                const struct task_record *t = &ring[i % AGENT_TASKS_KEPT];
                json_array_append_new(
                        a, json_pack(
                                   "{s:s, s:s, s:s, s:s}", "task_id", t->id, "lease_id", t->lease_id,
                                   "state", t->state, "detail", t->detail));
        }
        return a;
}

static int m_status(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        json_t *watchdog = json_array();
        double now = monotonic_ms();
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; watchdog && i < AGENT_HELD_MAX; i++)
                if (s->held[i].used)
                        json_array_append_new(
                                watchdog,
                                json_pack(
                                        "{s:s, s:s, s:f, s:s}", "lease_id", s->held[i].lease.id, "state",
                                        "active", "expires_in_s", (s->held[i].expires_ms - now) / 1000,
                                        "task_id", s->held[i].task_id));
        *ret = json_pack(
                "{s:o, s:o, s:o}", "tasks", ring_json(s->tasks, s->n_tasks), "watchdog", watchdog,
                "compensated", ring_json(s->compensated, s->n_compensated));
        pthread_mutex_unlock(&s->lock);
        return 0;
}

/* Tasks run to completion; a cancel can only report what became of one. */
static int m_cancel(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        const char *id = json_string_value(json_object_get(params, "task_id")), *state = "unknown";
        if (!id) {
                snprintf(msg, size, "task.cancel needs a string task_id");
                return RPC_INVALID_PARAMS;
        }
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < MIN(s->n_tasks, (size_t)AGENT_TASKS_KEPT); i++)
                if (strcmp(s->tasks[i].id, id) == 0)
                        state = s->tasks[i].state;
        *ret = json_pack("{s:s, s:s}", "task_id", id, "state", state);
        pthread_mutex_unlock(&s->lock);
        return 0;
}

static int m_extend(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        const char *id = json_string_value(json_object_get(params, "lease_id"));
        json_int_t ttl = json_integer_value(json_object_get(params, "ttl_seconds"));
        if (!id || ttl <= 0 || ttl > 7 * 24 * 3600) {
                snprintf(msg, size, "lease.extend needs a string lease_id and ttl_seconds 1..604800");
                return RPC_INVALID_PARAMS;
        }
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX && !*ret; i++)
                if (s->held[i].used && strcmp(s->held[i].lease.id, id) == 0) {
                        s->held[i].expires_ms = monotonic_ms() + (double)ttl * 1000;
                        *ret = json_pack("{s:s, s:I}", "lease_id", id, "expires_in_s", ttl);
                }
        pthread_mutex_unlock(&s->lock);
        if (*ret)
                return 0;
        snprintf(msg, size, "no lease %s is held by this agent", id);
        return RPC_INVALID_PARAMS;
}

/* recovery: false: the controller keeps the fault on purpose; the agent lets go. */
static int m_forget(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        const char *id = json_string_value(json_object_get(params, "lease_id"));
        bool found = false;
        if (!id) {
                snprintf(msg, size, "lease.forget needs a string lease_id");
                return RPC_INVALID_PARAMS;
        }
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX; i++)
                if (s->held[i].used && strcmp(s->held[i].lease.id, id) == 0) {
                        s->held[i].used = false;
                        agent_lease_done(&s->held[i].lease);
                        found = true;
                }
        pthread_mutex_unlock(&s->lock);
        *ret = json_pack("{s:s, s:b}", "lease_id", id, "forgotten", found);
        return 0;
}

static const struct {
        const char *name;
        agent_method fn;
        bool slow;
} methods[] = {
        { "handshake", m_handshake, false }, { "capabilities.query", m_capabilities, false },
        { "health.ping", m_ping, false },    { "task.status", m_status, false },
        { "task.cancel", m_cancel, false },  { "lease.extend", m_extend, false },
        { "lease.forget", m_forget, false }, { "task.execute", agent_task_execute, true },
};

agent_method agent_method_find(const char *name, bool *ret_slow) {
        for (size_t i = 0; i < ELEMENTSOF(methods); i++)
                if (strcmp(methods[i].name, name) == 0) {
                        *ret_slow = methods[i].slow;
                        return methods[i].fn;
                }
        return NULL;
}
