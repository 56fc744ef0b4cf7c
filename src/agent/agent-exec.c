#include "server-internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent/agent-journal.h"
#include "agent/rpc.h"
#include "fault/live.h"

enum phase {
        PHASE_INJECT,
        PHASE_UNDO,
        PHASE_VERIFY,
        PHASE_EFFECT,
};

static const char *const phase_names[] = { "inject", "undo", "verify", "effect" };

void agent_record_task(
        struct agent_state *s, struct task_record *ring, size_t *n, const struct task_record *t) {
        pthread_mutex_lock(&s->lock);
        ring[*n % AGENT_TASKS_KEPT] = *t;
        (*n)++;
        pthread_mutex_unlock(&s->lock);
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

/* fx->record for an inject: the agent's own record, before apply changes anything. */
static int record_restore(const struct fault_exec *fx, void *userdata, struct mh_error *reterr) {
        struct agent_state *s = userdata;
        if (!s->opt->journal)
                return 0; /* an agent without a state directory (tests, the fuzzer) */
        return agent_journal_put(s->opt->journal, fx->lease_id, fx->def, &fx->target, fx->restore, reterr);
}

/* The fault was never applied, or is kept on purpose: its record goes. */
static void drop_record(struct agent_state *s, const char *lease_id) {
        int r = s->opt->journal ? agent_journal_drop(s->opt->journal, lease_id) : 0;
        if (r < 0)
                agent_log(s, "cannot remove the record of lease %s: %s", lease_id, strerror(-r));
}

/* The lease verified back: its record says so from now on. */
static void settle_record(struct agent_state *s, const char *lease_id) {
        int r = s->opt->journal ? agent_journal_settle(s->opt->journal, lease_id) : 0;
        if (r < 0)
                agent_log(s, "cannot mark the record of lease %s settled: %s", lease_id, strerror(-r));
}

/* A failed apply, yet the controller undoes the lease anyway (it cannot
 * tell a refusal from a lost answer), and a fault whose undo needs a record
 * would refuse an undo of a lease with none: the run would end dirty.
 * - apply recorded before it failed (fault_record()): it may have changed
 *   something its rollback did not put back, so the record stays as it is
 *   and the undo runs from it (every undo is idempotent);
 * - apply failed before it recorded: by contract nothing was changed, so a
 *   settled record answers the undo "put back already". */
static void settle_unapplied(struct agent_state *s, const struct fault_exec *fx) {
        struct mh_error e = { 0 };
        struct target_identity t;
        json_t *restore = NULL;
        bool settled = false;
        if (!s->opt->journal || !fx->mech->records) {
                drop_record(s, fx->lease_id);
                return;
        }
        int r = agent_journal_get(s->opt->journal, fx->lease_id, fx->def, &t, &restore, &settled, &e);
        json_decref(restore);
        if (r >= 0)
                return;
        r = agent_journal_put(s->opt->journal, fx->lease_id, fx->def, &fx->target, fx->restore, &e);
        if (r < 0 || (r = agent_journal_settle(s->opt->journal, fx->lease_id)) < 0) {
                agent_log(s, "cannot record lease %s as never applied: %s", fx->lease_id, strerror(-r));
                drop_record(s, fx->lease_id);
        }
}

void agent_forget_record(struct agent_state *s, const char *lease_id) {
        drop_record(s, lease_id);
}

/* The held copy of lease_id (new references), so undo and the checks act on
 * the lease as the agent holds it, whatever the request says; false when
 * the agent does not hold it. */
static bool held_copy(struct agent_state *s, const char *lease_id, struct agent_lease *ret) {
        bool found = false;
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX && !found; i++)
                if (s->held[i].used && strcmp(s->held[i].lease.id, lease_id) == 0) {
                        *ret = s->held[i].lease;
                        json_incref(ret->params);
                        json_incref(ret->net);
                        json_incref(ret->restore);
                        found = true;
                }
        pthread_mutex_unlock(&s->lock);
        return found;
}

static bool agent_holds(struct agent_state *s, const char *lease_id) {
        bool found = false;
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < AGENT_HELD_MAX && !found; i++)
                found = s->held[i].used && strcmp(s->held[i].lease.id, lease_id) == 0;
        pthread_mutex_unlock(&s->lock);
        return found;
}

/* What the fault layer needs to act on a lease: the engine of the lease's
 * kind (the agent's own socket), the bound params. An rpc_code with msg when
 * the params do not fit the fault or the engine cannot be reached. */
static int fault_exec_of(
        struct agent_state *s, const struct agent_lease *l, struct fault_exec *ret, char *msg, size_t size) {
        struct mh_error err = { 0 };
        struct fault_exec fx = { .lives = s->lives,
                                 .lease_id = l->id,
                                 .duration_ms = l->duration_ms,
                                 .target = l->target,
                                 .restore = l->restore };
        if (fault_exec_bind(&fx, l->def, l->params, l->net, &err) < 0) {
                snprintf(msg, size, "lease: %s", err.msg);
                return RPC_INVALID_PARAMS;
        }
        if (!target_is_host_process(&l->target)) {
                int kind = engine_kind_from_string(l->target.engine);
                fx.engine = kind >= 0 ? agent_engine(s, (enum engine_kind)kind, msg, size) : NULL;
                if (!fx.engine) {
                        if (kind < 0)
                                snprintf(
                                        msg, size, "lease: target engine '%s' is not docker, podman or host",
                                        l->target.engine);
                        return kind < 0 ? RPC_INVALID_PARAMS : RPC_TASK_FAILED;
                }
        }
        *ret = fx;
        return 0;
}

/* The target of a lease the agent does not hold comes from the request:
 * the agent reads it again itself before acting (agent-target.c). */
static int check_target(
        struct agent_state *s, enum phase ph, struct fault_exec *fx, char *msg, size_t size) {
        return agent_target_check(s, fx->engine, ph == PHASE_INJECT, &fx->target, msg, size);
}

static void verify_once(
        const struct fault_exec *fx, const struct fault_comp *c, bool *ret_ok, char *detail, size_t size) {
        *ret_ok = true;
        for (size_t i = 0; i < fault_comp_n_verify(c) && *ret_ok; i++)
                if (fault_verify_run(fx, c->verify[i], ret_ok, detail, size) < 0)
                        *ret_ok = false;
}

void agent_compensate(struct agent_state *s, struct agent_lease *l, const char *why) {
        struct task_record t = { .state = "compensated" };
        const struct fault_comp *c = agent_lease_comp(l);
        struct mh_error err = { 0 };
        char msg[256] = "";
        bool ok = false;
        struct fault_exec fx;
        bool usable = fault_exec_of(s, l, &fx, msg, sizeof(msg)) >= 0;
        snprintf(t.lease_id, sizeof(t.lease_id), "%s", l->id);
        if (usable && fault_undo_run(&fx, c->undo, fault_comp_n_undo(c), &err) >= 0) {
                for (double until = monotonic_ms() + AGENT_VERIFY_MS; !ok && monotonic_ms() < until;) {
                        verify_once(&fx, c, &ok, t.detail, sizeof(t.detail));
                        if (!ok)
                                sleep_ms(100);
                }
        } else
                snprintf(t.detail, sizeof(t.detail), "%.250s", usable ? err.msg : msg);
        if (!ok)
                snprintf(t.state, sizeof(t.state), "dirty");
        else
                settle_record(s, l->id);
        agent_log(
                s, "[watchdog] %s lease %s (%s on %s) because %s: %s", ok ? "released" : "COULD NOT RELEASE",
                l->id, l->def->id, l->target.container_name, why, t.detail);
        agent_record_task(s, s->compensated, &s->n_compensated, &t);
}

static int check_allowed(
        struct agent_state *s, enum phase ph, const char *fault_id, char *msg, size_t size) {
        const struct agent_capabilities *c = &s->opt->caps;
        const struct fault_def *f = catalog_find(fault_id);
        if (f && (ph == PHASE_INJECT ? agent_can_inject(c, f) : agent_can_undo(c, f)))
                return 0;
        char roles[128] = "";
        agent_roles_for(&fault_id, f ? 1 : 0, false, roles, sizeof(roles));
        snprintf(
                msg, size, "agent '%s' not authorized to %s '%.64s'%s%s", s->opt->agent_id, phase_names[ph],
                fault_id, f ? ": it needs role " : " (no such fault)", roles);
        return RPC_SAFETY_REFUSED;
}

/* A lease on a plain host process needs the host role too, in every phase. */
static int check_host_allowed(
        struct agent_state *s, enum phase ph, const struct agent_lease *l, char *msg, size_t size) {
        char what[96];
        if (!target_is_host_process(&l->target))
                return 0;
        snprintf(what, sizeof(what), "%s '%.64s' on", phase_names[ph], l->def->id);
        return agent_host_allowed(s, what, msg, size);
}

static bool same_target(const struct target_identity *a, const struct target_identity *b) {
        if (a->container_id[0] || b->container_id[0])
                return strcmp(a->container_id, b->container_id) == 0;
        return a->main.pid == b->main.pid && a->main.start_time == b->main.start_time;
}

/* With s->lock held: why l may not join the held leases (held already, or
 * a held lease on the same target has a fault that conflicts with l's,
 * catalog.h), or 0. */
static int refuse_locked(struct agent_state *s, const struct agent_lease *l, char *msg, size_t size) {
        for (size_t i = 0; i < AGENT_HELD_MAX; i++) {
                const struct agent_lease *h = &s->held[i].lease;
                if (!s->held[i].used)
                        continue;
                if (strcmp(h->id, l->id) == 0) {
                        snprintf(msg, size, "lease %s is already held", l->id);
                        return RPC_INVALID_PARAMS;
                }
                if (!same_target(&h->target, &l->target) || !faults_conflict(h->def, l->def))
                        continue;
                snprintf(
                        msg, size,
                        "%s on %s conflicts with lease %s (%s) this agent holds on it (%s): nothing was "
                        "touched",
                        l->def->id, l->target.container_name, h->id, h->def->id,
                        h->def == l->def ? "the same fault" : conflict_class_to_string(h->def->conflict));
                return RPC_SAFETY_REFUSED;
        }
        return 0;
}

/* The lease joins the held ones, with its own references, before its fault
 * is applied: the check for a conflicting lease and the reservation are one
 * step, so two injects on one target cannot both pass it. */
static int reserve(
        struct agent_state *s, const struct agent_lease *l, const char *task_id, char *msg, size_t size) {
        pthread_mutex_lock(&s->lock);
        int r = refuse_locked(s, l, msg, size);
        for (size_t i = 0; i < AGENT_HELD_MAX && r == 0; i++)
                if (!s->held[i].used) {
                        struct held_lease *h = &s->held[i];
                        *h = (struct held_lease){ .used = true,
                                                  .lease = *l,
                                                  .expires_ms = monotonic_ms() + l->ttl_seconds * 1000.0 };
                        json_incref(h->lease.params);
                        json_incref(h->lease.net);
                        json_incref(h->lease.restore);
                        snprintf(h->task_id, sizeof(h->task_id), "%s", task_id);
                        r = 1;
                }
        pthread_mutex_unlock(&s->lock);
        if (r == 0) {
                snprintf(msg, size, "agent holds %d leases already; nothing was touched", AGENT_HELD_MAX);
                return RPC_TASK_FAILED;
        }
        return r < 0 ? r : 0;
}

static int inject(
        struct agent_state *s, struct fault_exec *fx, const struct agent_lease *l, struct task_record *t,
        json_t **ret, char *msg, size_t size) {
        struct mh_error err = { 0 };
        if (!fx->mech) {
                snprintf(msg, size, "%s cannot be applied by this agent version", l->def->id);
                return RPC_TASK_FAILED;
        }
        json_object_clear(fx->restore); /* what this apply records, not what a request claims */
        fx->record = record_restore;
        fx->record_userdata = s;
        int r = reserve(s, l, t->id, msg, size);
        if (r < 0)
                return r;
        if (fx->mech->apply(fx, &err) < 0) {
                release(s, l->id); /* a failed apply leaves nothing applied */
                settle_unapplied(s, fx);
                snprintf(msg, size, "%s", err.msg);
                return RPC_TASK_FAILED;
        }
        snprintf(
                t->detail, sizeof(t->detail), "applied %.60s to %.150s", l->def->id,
                l->target.container_name);
        *ret = json_pack(
                "{s:s, s:s, s:b, s:s, s:O}", "task_id", t->id, "state", "done", "ok", 1, "detail", t->detail,
                "restore", fx->restore);
        return 0;
}

/* A lease the agent's record says was put back and verified already (its
 * controller died before it heard): nothing to do, and nothing in force. */
static int settled_phase(enum phase ph, const struct task_record *t, json_t **ret) {
        static const char detail[] = "put back and verified already by an agent on this host (its record)";
        if (ph == PHASE_UNDO)
                *ret = json_pack("{s:s, s:s, s:b}", "task_id", t->id, "state", "done", "ok", 1);
        else
                *ret = json_pack(
                        "{s:s, s:b, s:s}", "task_id", t->id, ph == PHASE_VERIFY ? "verified" : "in_force",
                        ph == PHASE_VERIFY, "detail", detail);
        return 0;
}

static int run_phase(
        struct agent_state *s, enum phase ph, struct fault_exec *fx, const struct agent_lease *l,
        struct task_record *t, json_t **ret, char *msg, size_t size) {
        const struct fault_comp *c = agent_lease_comp(l);
        struct mh_error err = { 0 };
        bool ok = false;
        if (l->settled && ph != PHASE_INJECT)
                return settled_phase(ph, t, ret);
        switch (ph) {
        case PHASE_INJECT: return inject(s, fx, l, t, ret, msg, size);
        case PHASE_UNDO:
                if (fault_undo_run(fx, c->undo, fault_comp_n_undo(c), &err) < 0) {
                        snprintf(msg, size, "%s", err.msg);
                        return RPC_TASK_FAILED;
                }
                release(s, l->id);
                *ret = json_pack("{s:s, s:s, s:b}", "task_id", t->id, "state", "done", "ok", 1);
                return 0;
        case PHASE_VERIFY:
                verify_once(fx, c, &ok, t->detail, sizeof(t->detail));
                if (ok && !agent_holds(s, l->id))
                        settle_record(s, l->id);
                *ret = json_pack("{s:s, s:b, s:s}", "task_id", t->id, "verified", ok, "detail", t->detail);
                return 0;
        default: {
                int r = c->effect ? fault_effect_run(fx, c->effect, &ok, t->detail, sizeof(t->detail))
                                  : -EINVAL;
                ok = ok && r >= 0;
                *ret = json_pack(
                        "{s:s, s:b, s:b, s:s}", "task_id", t->id, "in_force", ok, "observed",
                        ok && r != FAULT_EFFECT_UNOBSERVED, "detail", t->detail);
                return 0;
        }
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

/* A lease the agent holds is acted on as held: the request may only name
 * it, and one naming another target for it is refused. */
static int lease_as_held(
        struct agent_state *s, enum phase ph, struct agent_lease *l, char *msg, size_t size) {
        struct agent_lease held;
        if (ph == PHASE_INJECT || !held_copy(s, l->id, &held))
                return 0;
        bool same = held.def == l->def && strcmp(held.target.container_id, l->target.container_id) == 0 &&
                    held.target.main.pid == l->target.main.pid &&
                    held.target.main.start_time == l->target.main.start_time;
        if (!same) {
                agent_lease_done(&held);
                snprintf(
                        msg, size,
                        "lease %s is held for %s on %s; the request names another fault or target", l->id,
                        held.def->id, held.target.container_name);
                return RPC_SAFETY_REFUSED;
        }
        agent_lease_done(l);
        *l = held;
        return 1;
}

/* A lease the agent does not hold (recovery) is undone and verified from
 * the agent's own record of it where its fault needs one; a restore the
 * request carries is never used. 1: taken from the record. */
static int lease_from_record(struct agent_state *s, struct agent_lease *l, char *msg, size_t size) {
        const struct fault_mechanism *m = fault_mechanism_of(l->def);
        json_object_clear(l->restore);
        if (!m || !m->records)
                return 0;
        struct target_identity recorded;
        json_t *restore = NULL;
        struct mh_error e = { 0 };
        int r = s->opt->journal
                        ? agent_journal_get(
                                  s->opt->journal, l->id, l->def, &recorded, &restore, &l->settled, &e)
                        : -ENOENT;
        if (r == -ENOENT)
                snprintf(
                        msg, size,
                        "this agent has no record of lease %s (%s%s): what %s changed is put back only from "
                        "the agent's own record, never from a request; check %s by hand",
                        l->id, s->opt->journal ? "state directory " : "no state directory",
                        s->opt->journal ? agent_journal_dir(s->opt->journal) : "", l->def->id,
                        l->target.container_name);
        else if (r < 0)
                snprintf(msg, size, "lease %s: %s", l->id, e.msg);
        else if (!same_target(&recorded, &l->target)) {
                snprintf(
                        msg, size, "lease %s was recorded for %s; the request names another target (%s)",
                        l->id, recorded.container_name, l->target.container_name);
                r = -EPERM;
        }
        if (r < 0) {
                json_decref(restore);
                return RPC_SAFETY_REFUSED;
        }
        json_decref(l->restore);
        l->restore = restore;
        return 1;
}

int agent_task_execute(struct agent_state *s, const json_t *params, json_t **ret, char *msg, size_t size) {
        const char *fault_id = json_string_value(json_object_get(params, "fault_id"));
        struct agent_lease l;
        struct task_record t = { 0 };
        struct fault_exec fx;
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
        if (strcmp(l.def->id, fault_id) != 0) {
                snprintf(msg, size, "lease is for %s, not %s", l.def->id, fault_id);
                agent_lease_done(&l);
                return RPC_INVALID_PARAMS;
        }
        if ((r = check_host_allowed(s, ph, &l, msg, size)) < 0) {
                agent_lease_done(&l);
                return r;
        }
        int held = lease_as_held(s, ph, &l, msg, size);
        if ((r = held) < 0 ||
            (!held && ph == PHASE_UNDO && (r = agent_keeper_stop(s, l.id, msg, size)) < 0) ||
            (!held && ph != PHASE_INJECT && (r = lease_from_record(s, &l, msg, size)) < 0) ||
            (r = fault_exec_of(s, &l, &fx, msg, size)) < 0 ||
            (!held && (r = check_target(s, ph, &fx, msg, size)) < 0)) {
                agent_lease_done(&l);
                return r;
        }
        l.target = fx.target; /* held from here on as the agent read it */
        pthread_mutex_lock(&s->lock);
        snprintf(t.id, sizeof(t.id), "t-%06u", ++s->next_task);
        pthread_mutex_unlock(&s->lock);
        snprintf(t.lease_id, sizeof(t.lease_id), "%s", l.id);
        r = run_phase(s, ph, &fx, &l, &t, ret, msg, size);
        snprintf(t.state, sizeof(t.state), "%s", r < 0 ? "failed" : "done");
        if (r < 0)
                snprintf(t.detail, sizeof(t.detail), "%s", msg);
        agent_record_task(s, s->tasks, &s->n_tasks, &t);
        agent_lease_done(&l);
        return r;
}
