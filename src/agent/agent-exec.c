#include "server-internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent/rpc.h"

enum phase {
        PHASE_INJECT,
        PHASE_UNDO,
        PHASE_VERIFY,
        PHASE_EFFECT,
};

static const char *const phase_names[] = { "inject", "undo", "verify", "effect" };

/* The resource kind a fault touches, for the capability check (the kinds
 * src/agent/capabilities.c grants per role). */
static const char *resource_of(const char *fault_id) {
        static const struct {
                const char *prefix, *kind;
        } kinds[] = {
                { "process.crash_loop", "container" },
                { "proc.", "process" },
                { "process.", "process" },
                { "fd.", "process" },
                { "cpu.", "cgroup" },
                { "mem.", "cgroup" },
                { "fs.", "mount" },
                { "net.", "netns" },
                { "dependency.", "netns" },
                { "dns.", "netns" },
                { "tls.", "netns" },
                { "http.", "netns" },
                { "db.", "netns" },
        };
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
                if (strncmp(fault_id, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
                        return kinds[i].kind;
        return "container";
}

struct engine *agent_engine_for(
        struct agent_state *s, const struct target_identity *t, char *msg, size_t size) {
        struct engine *e = NULL;
        struct mh_error err = { 0 };
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < s->n_engines && !e; i++)
                if (strcmp(s->engines[i].socket, t->socket) == 0)
                        e = s->engines[i].engine;
        if (!e && s->n_engines < AGENT_ENGINES_MAX) {
                enum engine_kind kind = strcmp(t->engine, "podman") == 0 ? ENGINE_PODMAN : ENGINE_DOCKER;
                if (engine_open(kind, t->socket[0] ? t->socket : NULL, &e, &err) >= 0) {
                        snprintf(
                                s->engines[s->n_engines].socket, sizeof(s->engines[0].socket), "%s",
                                t->socket);
                        s->engines[s->n_engines++].engine = e;
                } else
                        snprintf(msg, size, "%s", err.msg);
        }
        pthread_mutex_unlock(&s->lock);
        return e;
}

void agent_record_task(
        struct agent_state *s, struct task_record *ring, size_t *n, const struct task_record *t) {
        pthread_mutex_lock(&s->lock);
        ring[*n % AGENT_TASKS_KEPT] = *t;
        (*n)++;
        pthread_mutex_unlock(&s->lock);
}

static int hold(struct agent_state *s, const struct agent_lease *l, const char *task_id) {
        int r = -ENOSPC;
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX && r < 0; i++)
                if (!s->held[i].used) {
                        s->held[i] = (struct held_lease){ .used = true,
                                                          .lease = *l,
                                                          .expires_ms =
                                                                  monotonic_ms() + l->ttl_seconds * 1000.0 };
                        s->held[i].lease.params = json_incref(l->params);
                        snprintf(s->held[i].task_id, sizeof(s->held[i].task_id), "%s", task_id);
                        r = 0;
                }
        pthread_mutex_unlock(&s->lock);
        return r;
}

static void release(struct agent_state *s, const char *lease_id) {
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX; i++)
                if (s->held[i].used && strcmp(s->held[i].lease.id, lease_id) == 0) {
                        s->held[i].used = false;
                        agent_lease_done(&s->held[i].lease);
                }
        pthread_mutex_unlock(&s->lock);
}

static bool is_held(struct agent_state *s, const char *lease_id) {
        bool held = false;
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX && !held; i++)
                held = s->held[i].used && strcmp(s->held[i].lease.id, lease_id) == 0;
        pthread_mutex_unlock(&s->lock);
        return held;
}

/* What the fault layer needs to act on a lease; false (msg says why) when
 * the lease's engine cannot be reached. */
static bool fault_exec_of(
        struct agent_state *s, const struct agent_lease *l, struct fault_exec *ret, char *msg, size_t size) {
        bool host = target_is_host_process(&l->target);
        *ret = (struct fault_exec){ .engine = host ? NULL : agent_engine_for(s, &l->target, msg, size),
                                    .lease_id = l->id,
                                    .fault_id = l->fault_id,
                                    .params = l->params,
                                    .duration_ms = l->duration_ms,
                                    .target = l->target };
        return host || ret->engine;
}

static int verify_once(
        const struct agent_lease *l, const struct fault_exec *fx, bool *ret_ok, char *detail, size_t size) {
        *ret_ok = true;
        for (size_t i = 0; i < l->n_verify && *ret_ok; i++)
                if (verify_probe_run(l->verify[i], fx, ret_ok, detail, size) < 0)
                        *ret_ok = false;
        return 0;
}

void agent_compensate(struct agent_state *s, struct agent_lease *l, const char *why) {
        struct task_record t = { .state = "compensated" };
        struct mh_error err = { 0 };
        char msg[256] = "";
        bool ok = false;
        struct fault_exec fx;
        bool reachable = fault_exec_of(s, l, &fx, msg, sizeof(msg));
        snprintf(t.lease_id, sizeof(t.lease_id), "%s", l->id);
        if (reachable && comp_ops_run(l->undo, l->n_undo, &fx, &err) >= 0) {
                for (double until = monotonic_ms() + AGENT_VERIFY_MS; !ok && monotonic_ms() < until;) {
                        verify_once(l, &fx, &ok, t.detail, sizeof(t.detail));
                        if (!ok)
                                sleep_ms(100);
                }
        } else
                snprintf(t.detail, sizeof(t.detail), "%.250s", reachable ? err.msg : msg);
        if (!ok)
                snprintf(t.state, sizeof(t.state), "dirty");
        agent_log(
                s, "[watchdog] %s lease %s (%s on %s) because %s: %s", ok ? "released" : "COULD NOT RELEASE",
                l->id, l->fault_id, l->target.container_name, why, t.detail);
        agent_record_task(s, s->compensated, &s->n_compensated, &t);
}

static int check_allowed(
        struct agent_state *s, enum phase ph, const char *fault_id, char *msg, size_t size) {
        const struct agent_capabilities *c = &s->opt->caps;
        bool ok = ph == PHASE_INJECT ? agent_can_inject(c, fault_id) : agent_can_undo(c, fault_id);
        if (ok && agent_can_access(c, resource_of(fault_id)))
                return 0;
        snprintf(
                msg, size, "agent '%s' not authorized to %s '%s' (roles: %s)", s->opt->agent_id,
                phase_names[ph], fault_id, s->opt->roles);
        return RPC_SAFETY_REFUSED;
}

static int inject(
        struct agent_state *s, struct fault_exec *fx, const struct agent_lease *l, struct task_record *t,
        json_t **ret, char *msg, size_t size) {
        const struct fault_mechanism *m = fault_mechanism_find(l->fault_id);
        struct mh_error err = { 0 };
        if (!m) {
                snprintf(msg, size, "%s cannot be applied by this agent version", l->fault_id);
                return RPC_TASK_FAILED;
        }
        if (is_held(s, l->id)) {
                snprintf(msg, size, "lease %s is already held", l->id);
                return RPC_INVALID_PARAMS;
        }
        if (m->apply(fx, &err) < 0) {
                snprintf(msg, size, "%s", err.msg);
                return RPC_TASK_FAILED;
        }
        if (hold(s, l, t->id) < 0) { /* cannot watch it: do not leave it applied */
                comp_ops_run(l->undo, l->n_undo, fx, NULL);
                snprintf(msg, size, "agent holds %d leases already; fault undone", AGENT_HELD_MAX);
                return RPC_TASK_FAILED;
        }
        snprintf(
                t->detail, sizeof(t->detail), "applied %.60s to %.150s", l->fault_id,
                l->target.container_name);
        *ret = json_pack(
                "{s:s, s:s, s:b, s:s}", "task_id", t->id, "state", "done", "ok", 1, "detail", t->detail);
        return 0;
}

static int run_phase(
        struct agent_state *s, enum phase ph, struct fault_exec *fx, const struct agent_lease *l,
        struct task_record *t, json_t **ret, char *msg, size_t size) {
        struct mh_error err = { 0 };
        bool ok = false;
        switch (ph) {
        case PHASE_INJECT: return inject(s, fx, l, t, ret, msg, size);
        case PHASE_UNDO:
                if (comp_ops_run(l->undo, l->n_undo, fx, &err) < 0) {
                        snprintf(msg, size, "%s", err.msg);
                        return RPC_TASK_FAILED;
                }
                release(s, l->id);
                *ret = json_pack("{s:s, s:s, s:b}", "task_id", t->id, "state", "done", "ok", 1);
                return 0;
        case PHASE_VERIFY:
                verify_once(l, fx, &ok, t->detail, sizeof(t->detail));
                *ret = json_pack("{s:s, s:b, s:s}", "task_id", t->id, "verified", ok, "detail", t->detail);
                return 0;
        default:
                if (effect_check_run(l->effect, fx, &ok, t->detail, sizeof(t->detail)) < 0)
                        ok = false;
                *ret = json_pack("{s:s, s:b, s:s}", "task_id", t->id, "in_force", ok, "detail", t->detail);
                return 0;
        }
}

static int parse_phase(const json_t *params, enum phase *ret) {
        const char *p = json_string_value(json_object_get(params, "phase"));
        for (size_t i = 0; p && i < ELEMENTSOF(phase_names); i++)
                if (strcmp(p, phase_names[i]) == 0) {
                        *ret = (enum phase)i;
                        return 0;
                }
        return -EINVAL;
}

int agent_task_execute(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        const char *fault_id = json_string_value(json_object_get(params, "fault_id"));
        struct agent_lease l;
        struct task_record t = { 0 };
        enum phase ph;
        int r;

        if (!fault_id || parse_phase(params, &ph) < 0) {
                snprintf(msg, size, "task.execute needs fault_id and phase inject|undo|verify|effect");
                return RPC_INVALID_PARAMS;
        }
        if ((r = check_allowed(s, ph, fault_id, msg, size)) < 0)
                return r;
        if (agent_lease_from_json(json_object_get(params, "lease"), &l, msg, size) < 0)
                return RPC_INVALID_PARAMS;
        if (strcmp(l.fault_id, fault_id) != 0) {
                snprintf(msg, size, "lease is for %s, not %s", l.fault_id, fault_id);
                agent_lease_done(&l);
                return RPC_INVALID_PARAMS;
        }
        struct fault_exec fx;
        bool reachable = fault_exec_of(s, &l, &fx, msg, size);
        pthread_mutex_lock(&s->lock);
        snprintf(t.id, sizeof(t.id), "t-%06u", ++s->next_task);
        pthread_mutex_unlock(&s->lock);
        snprintf(t.lease_id, sizeof(t.lease_id), "%s", l.id);
        r = reachable ? run_phase(s, ph, &fx, &l, &t, ret, msg, size) : RPC_TASK_FAILED;
        snprintf(t.state, sizeof(t.state), "%s", r < 0 ? "failed" : "done");
        if (r < 0)
                snprintf(t.detail, sizeof(t.detail), "%s", msg);
        agent_record_task(s, s->tasks, &s->n_tasks, &t);
        agent_lease_done(&l);
        return r;
}
