#include "server-internal.h"

#include "agent/agent-host.h"
#include "agent/agent-kernel.h"

#include <stdio.h>
#include <string.h>

#include "agent/rpc.h"
#include "config.h"

static json_t *roles_json(const struct agent_capabilities *c) {
        json_t *a = json_array();
        for (int r = 0; a && r < _AGENT_ROLE_MAX; r++)
                if (c->roles & ROLE_BIT(r))
                        json_array_append_new(a, json_string(agent_role_to_string(r)));
        return a;
}

static int m_handshake(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        *ret = json_pack(
                "{s:s, s:s, s:s, s:o}", "agent_id", s->opt->agent_id, "protocol", AGENT_PROTOCOL,
                "agent_version", MAYHEM_VERSION, "roles", roles_json(&s->opt->caps));
        return 0;
}

/* Faults this agent cannot apply on the engine the controller names, with
 * why: a rootless engine's containers live in the user's cgroups, which the
 * agent cannot rewrite. */
static json_t *unavailable_json(struct agent_state *s, const json_t *params) {
        const char *engine = json_string_value(json_object_get(params, "engine"));
        int kind = engine ? engine_kind_from_string(engine) : -1;
        char msg[256] = "";
        struct engine *e = kind >= 0 ? agent_engine(s, (enum engine_kind)kind, msg, sizeof(msg)) : NULL;
        json_t *o = json_object();
        for (size_t i = 0; o && e && engine_is_rootless(e) && i < catalog_size(); i++)
                if (catalog_at(i)->resource == RESOURCE_CGROUP)
                        json_object_set_new(
                                o, catalog_at(i)->id,
                                json_string("the engine runs rootless, so its containers' cgroups "
                                            "cannot be changed from here"));
        return o;
}

/* What this agent can apply: a mechanism of this version, a granted role. */
static json_t *faults_json(struct agent_state *s) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < catalog_size(); i++) {
                const struct fault_def *f = catalog_at(i);
                if (fault_mechanism_of(f) && agent_can_inject(&s->opt->caps, f))
                        json_array_append_new(a, json_string(f->id));
        }
        return a;
}

static int m_capabilities(
        struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        struct kernel_features k = { .known = false };
        if (agent_can_access(&s->opt->caps, RESOURCE_NETNS))
                kernel_features_detect(&k, NULL); /* probed once; later calls are free */
        *ret = json_pack(
                "{s:o, s:o, s:o, s:o, s:o}", "roles", roles_json(&s->opt->caps), "faults", faults_json(s),
                "unavailable", unavailable_json(s, params), "capabilities",
                agent_capabilities_json(&s->opt->caps), "kernel", agent_kernel_features_json(&k));
        if (*ret && json_is_true(json_object_get(params, "host"))) { /* mayhem doctor asks */
                struct host_facts h;
                host_facts_detect(&h);
                json_object_set_new(*ret, "host", agent_host_facts_json(&h));
        }
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
        if (found)
                agent_forget_record(s, id);
        *ret = json_pack("{s:s, s:b}", "lease_id", id, "forgotten", found);
        return 0;
}

static const struct {
        const char *name;
        agent_method fn;
        bool slow;
} methods[] = {
        { "handshake", m_handshake, false },
        { "capabilities.query", m_capabilities, false },
        { "health.ping", m_ping, false },
        { "task.status", m_status, false },
        { "task.cancel", m_cancel, false },
        { "lease.extend", m_extend, false },
        { "lease.forget", m_forget, false },
        { "lease.keep", agent_lease_keep, false },
        { "task.execute", agent_task_execute, true },
        { "target.resolve", agent_target_resolve, true },
        { "probe.run", agent_probe_run, true },
};

agent_method agent_method_find(const char *name, bool *ret_slow) {
        for (size_t i = 0; i < ELEMENTSOF(methods); i++)
                if (strcmp(methods[i].name, name) == 0) {
                        *ret_slow = methods[i].slow;
                        return methods[i].fn;
                }
        return NULL;
}
