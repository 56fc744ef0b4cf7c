#include "run-internal.h"

#include "basic/strv.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define EFFECT_WAIT_MS 5000
#define VERIFY_WAIT_MS 30000
#define POLL_MS        100
#define UNDO_ATTEMPTS  3
#define SLOW_CALL_MS   60000
#define QUICK_CALL_MS  15000

static void bump(struct runner *r, size_t *counter) {
        pthread_mutex_lock(&r->lock);
        (*counter)++;
        pthread_mutex_unlock(&r->lock);
}

struct lease_ctx {
        struct runner *r;
        const struct plan_fault *f;
        json_t *identity; /* the target as the agent resolved it */
        json_t *params;   /* the plan's typed params */
        json_t *net;      /* a network fault's delivery and addresses (run-agent.c); NULL otherwise */
        json_t *restore;  /* what the agent's apply recorded to put back */
        json_t *lease;    /* what the agent gets in task.execute */
        char lease_id[LEASE_ID_MAX];
        char detail[RUN_DETAIL_MAX];
        bool journaled; /* the write-ahead lease is in the journal */
        bool applied;   /* the agent said the fault is applied */
        bool agent_lost;
};

static char *dump(const json_t *j) {
        return j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

static json_t *names_json(const char *const *names, size_t n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, json_string(names[i]));
        return a;
}

/* The plan's ops as the journal keeps them: [{op, args}] with the live
 * identity, so recovery needs nothing but the lease row. */
static char *ops_json(const struct plan_fault *f, bool verify, const json_t *identity) {
        json_t *a = json_array();
        size_t n = verify ? fault_comp_n_verify(f->comp) : fault_comp_n_undo(f->comp);
        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(
                        a, json_pack(
                                   "{s:s, s:O}", verify ? "probe" : "op",
                                   verify ? f->comp->verify[i] : f->comp->undo[i], "args", identity));
        char *text = dump(a);
        json_decref(a);
        return text;
}

/* The lease as task.execute takes it (docs/internals/agent-rpc.md). The ops
 * are the plan's, sent so the agent can refuse a lease its own catalog
 * would undo differently; it never runs them from here. */
static json_t *agent_lease(const struct lease_ctx *c) {
        const struct plan_fault *f = c->f;
        json_t *j = json_pack(
                "{s:s, s:s, s:I, s:I, s:O, s:O, s:o, s:o, s:s}", "id", c->lease_id, "fault_id",
                f->src->def->id, "ttl_seconds", (json_int_t)f->lease_ttl_s, "duration_ms",
                (json_int_t)f->src->duration_ms, "target", c->identity, "params", c->params, "undo",
                names_json(f->comp->undo, fault_comp_n_undo(f->comp)), "verify",
                names_json(f->comp->verify, fault_comp_n_verify(f->comp)), "effect", f->comp->effect);
        if (j && c->net)
                json_object_set(j, "net", c->net);
        if (j && c->restore)
                json_object_set(j, "restore", c->restore);
        return j;
}

static int write_ahead(struct lease_ctx *c, const char *step_id, struct mh_error *e) {
        const struct plan_fault *f = c->f;
        json_t *targets = json_pack("[s]", f->target->label);
        char *ident = dump(c->identity), *undo = ops_json(f, false, c->identity),
             *verify = ops_json(f, true, c->identity);
        char *targets_text = dump(targets), *params_text = dump(c->params), *net_text = dump(c->net),
             *key = lease_target_key(ident);
        struct lease_new l = { .run_id = c->r->run_id,
                               .fault_id = f->src->def->id,
                               .owner_agent = agent_client_id(c->r->agent),
                               .targets_json = targets_text,
                               .undo_json = undo,
                               .verify_json = verify,
                               .runtime_identity_json = ident,
                               .params_json = params_text,
                               .net_json = net_text,
                               .target_key = key,
                               .ttl_seconds = f->lease_ttl_s };
        int r = ident && undo && verify && targets_text && params_text && (net_text || !c->net)
                        ? lease_create(c->r->opt->evidence, &l, c->lease_id, e)
                        : mh_error_set(e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        c->journaled = r >= 0;
        if (r < 0 && e->exit != MH_EXIT_SAFETY_REFUSAL && e->code != -ENOMEM)
                runner_evidence_failed(c->r, "the write-ahead lease", e);
        if (r >= 0 && (r = evidence_invocation(
                               c->r->opt->evidence, c->r->run_id, step_id, f->src->def->id, targets_text,
                               params_text, agent_client_id(c->r->agent), c->lease_id, e)) < 0)
                runner_evidence_failed(c->r, "the fault's invocation", e);
        free(ident), free(undo), free(verify), free(targets_text), free(params_text), free(net_text),
                free(key);
        json_decref(targets);
        return r;
}

/* task.execute for this lease; a lost agent is remembered for the journal. */
static int phase(struct lease_ctx *c, const char *name, int timeout_ms, json_t **ret, struct mh_error *e) {
        json_t *params = json_pack(
                "{s:s, s:s, s:O}", "fault_id", c->f->src->def->id, "phase", name, "lease", c->lease);
        json_t *result = NULL;
        int r = agent_client_call(c->r->agent, "task.execute", params, timeout_ms, &result, e);
        if (r == -EPIPE || r == -ETIMEDOUT)
                c->agent_lost = !agent_client_alive(c->r->agent) || c->agent_lost;
        if (r >= 0 && ret)
                *ret = result;
        else
                json_decref(result);
        return r;
}

/* One look through the agent: effect ("in_force") or verify ("verified").
 * An effect look also says whether the agent saw the effect itself
 * ("observed", into *ret_observed when not NULL). */
static bool look(struct lease_ctx *c, const char *name, const char *key, bool *ret_observed) {
        struct mh_error e = { 0 };
        json_t *res = NULL;
        if (ret_observed)
                *ret_observed = false;
        if (phase(c, name, QUICK_CALL_MS, &res, &e) < 0) {
                str_copy(c->detail, sizeof(c->detail), e.msg);
                return false;
        }
        str_copy(c->detail, sizeof(c->detail), json_string_value(json_object_get(res, "detail")));
        bool yes = json_is_true(json_object_get(res, key));
        if (ret_observed)
                *ret_observed = yes && json_is_true(json_object_get(res, "observed"));
        json_decref(res);
        return yes;
}

static bool wait_effect(struct lease_ctx *c, bool *ret_observed) {
        double until = monotonic_ms() + EFFECT_WAIT_MS;
        bool in_force = false;
        while (!(in_force = look(c, "effect", "in_force", ret_observed)) && !c->agent_lost &&
               monotonic_ms() < until && runner_sleep(c->r, POLL_MS))
                ;
        return in_force;
}

/* A fault whose effect was not observable when it came into force (no
 * traffic through it yet) is looked at once more at the end of its hold,
 * when the target has had the duration to send some. */
static bool observed_after_hold(struct lease_ctx *c) {
        char before[RUN_DETAIL_MAX];
        bool observed = false;
        str_copy(before, sizeof(before), c->detail);
        if (c->agent_lost || !look(c, "effect", "in_force", &observed) || !observed) {
                runner_progress(c->r, "     still not observable at the end of the hold: %s", c->detail);
                str_copy(c->detail, sizeof(c->detail), before);
                return false;
        }
        runner_progress(c->r, "     observed at the end of the hold: %s", c->detail);
        return true;
}

static bool run_undo(struct lease_ctx *c, char *notes, size_t size) {
        struct mh_error e = { 0 };
        int r = -EIO;
        for (int attempt = 0; attempt < UNDO_ATTEMPTS && r < 0 && !c->agent_lost; attempt++)
                r = phase(c, "undo", SLOW_CALL_MS, NULL, &e);
        if (r < 0)
                snprintf(notes, size, "%.500s", e.msg);
        return r >= 0;
}

static bool run_verify(struct lease_ctx *c, char *notes, size_t size) {
        double until = monotonic_ms() + VERIFY_WAIT_MS;
        while (!look(c, "verify", "verified", NULL)) {
                if (c->agent_lost || monotonic_ms() >= until) {
                        snprintf(
                                notes, size, "verify still failing after %ds: %.400s", VERIFY_WAIT_MS / 1000,
                                c->detail);
                        return false;
                }
                sleep_ms(POLL_MS); /* verify runs while aborting too */
        }
        return true;
}

/* A journal write that fails is never dropped (runner_evidence_failed). */
static void transition(
        struct lease_ctx *c, enum lease_state from, enum lease_state to, const struct lease_update *u) {
        struct mh_error e = { 0 };
        if (lease_transition(c->r->opt->evidence, c->lease_id, from, to, u, &e) < 0)
                runner_evidence_failed(c->r, "a lease transition", &e);
}

static void record_recovery(struct lease_ctx *c, const char *mechanism, bool ok) {
        struct mh_error e = { 0 };
        if (evidence_recovery_record(
                    c->r->opt->evidence, c->lease_id, 1, mechanism, ok ? "{\"ok\":true}" : "{\"ok\":false}",
                    ok, &e) < 0)
                runner_evidence_failed(c->r, "a recovery record", &e);
}

/* The agent died: what it held is for `recover`. A pending lease stays
 * pending: the agent may have applied the fault before it died, so it is
 * never expired here (only an abort before the mechanism ran may do that). */
static void mark_orphaned(struct lease_ctx *c, enum lease_state from) {
        struct evidence *ev = c->r->opt->evidence;
        if (from != LEASE_PENDING && lease_transition(ev, c->lease_id, from, LEASE_ORPHANED, NULL, NULL) < 0)
                transition(
                        c, LEASE_RELEASING, LEASE_DIRTY,
                        &(struct lease_update){ .escalation_notes = "agent lost during undo; run `mayhem "
                                                                    "recover execute`" });
        bump(c->r, &c->r->result->leases_orphaned);
        runner_abort(c->r, "the agent is gone; run `mayhem recover execute %s`", c->r->run_id);
}

/* releasing -> released | dirty, with a recovery record either way. */
static bool release(struct lease_ctx *c, enum lease_state from) {
        char notes[RUN_DETAIL_MAX] = "";
        c->agent_lost = c->agent_lost || !agent_client_alive(c->r->agent);
        if (c->agent_lost) {
                mark_orphaned(c, from);
                return false;
        }
        /* With the journal failing, the target first: a locked store would
         * hold the undo for its busy timeout. */
        bool journal_after = runner_evidence_lost(c->r);
        if (!journal_after)
                transition(c, from, LEASE_RELEASING, NULL);
        runner_window_mark(c->r, c->f, WINDOW_MARK_UNDOING);
        bool ok = run_undo(c, notes, sizeof(notes)) && run_verify(c, notes, sizeof(notes));
        if (ok)
                runner_window_mark(c->r, c->f, WINDOW_MARK_UNDONE);
        if (journal_after)
                transition(c, from, LEASE_RELEASING, NULL);
        if (c->agent_lost) {
                mark_orphaned(c, LEASE_RELEASING);
                return false;
        }
        record_recovery(c, "normal", ok);
        if (ok) {
                struct lease_update u = { .release_mechanism = "normal", .set_released_at = true };
                transition(c, LEASE_RELEASING, LEASE_RELEASED, &u);
                runner_event(
                        c->r, EVENT_FAULT_RECOVERED,
                        json_pack("{s:s, s:s}", "lease", c->lease_id, "detail", c->detail));
                return true;
        }
        char escalation[RUN_DETAIL_MAX + 64];
        snprintf(escalation, sizeof(escalation), "DIRTY: %s; run `mayhem recover` or fix by hand", notes);
        transition(
                c, LEASE_RELEASING, LEASE_DIRTY, &(struct lease_update){ .escalation_notes = escalation });
        runner_progress(c->r, "     DIRTY LEASE %s: %s", c->lease_id, notes);
        bump(c->r, &c->r->result->leases_dirty);
        return false;
}

static void remember_kept(struct lease_ctx *c) {
        struct runner *r = c->r;
        json_t *k = json_pack(
                "{s:I, s:s, s:O}", "fault", (json_int_t)(c->f - r->plan->faults), "lease_id", c->lease_id,
                "lease", c->lease);
        pthread_mutex_lock(&r->lock);
        if (!r->kept)
                r->kept = json_array();
        json_array_append_new(r->kept, k);
        r->result->leases_kept++;
        pthread_mutex_unlock(&r->lock);
}

/* recovery: false keeps the fault in force on purpose: the agent is told to
 * keep it past the run (lease.keep: let go where the kernel or the engine
 * holds it, held by the agent as a keeper where it needs a live process),
 * then the fault is looked at once more. Only a fault seen in force is
 * kept: its lease stays open as kept_faulted, for `mayhem recover execute`.
 * One the agent could not keep, or no longer in force, is undone now. */
static bool keep_faulted(struct lease_ctx *c) {
        json_t *res = NULL;
        struct mh_error e = { 0 };
        int r = agent_client_call(
                c->r->agent, "lease.keep", json_pack("{s:s}", "lease_id", c->lease_id), QUICK_CALL_MS, &res,
                &e);
        if (r >= 0 && json_is_true(json_object_get(res, "keeper")))
                agent_client_expect_keeper(c->r->agent);
        json_decref(res);
        if (r < 0)
                snprintf(c->detail, sizeof(c->detail), "%.400s", e.msg);
        else if (!look(c, "effect", "in_force", NULL))
                r = -ENOENT;
        if (r < 0) {
                runner_progress(
                        c->r, "     not kept (recovery: false): %s: %s", c->lease_id,
                        r == -ENOENT ? "no longer in force" : c->detail);
                return false;
        }
        transition(c, LEASE_ACTIVE, LEASE_KEPT, NULL);
        record_recovery(c, "kept_faulted", false);
        remember_kept(c);
        runner_event(
                c->r, EVENT_FAULT_OBSERVED,
                json_pack(
                        "{s:s, s:b, s:b, s:s}", "lease", c->lease_id, "in_force", 1, "kept", 1, "detail",
                        c->detail));
        return true;
}

/* What the agent recorded to restore goes into the journal with the
 * identity, and into the lease for undo and recovery. */
static bool inject(struct lease_ctx *c, struct mh_error *e) {
        json_t *res = NULL;
        bump(c->r, &c->r->result->faults_attempted);
        runner_window_mark(c->r, c->f, WINDOW_MARK_SENT);
        if (phase(c, "inject", SLOW_CALL_MS, &res, e) < 0)
                return false;
        c->applied = true;
        runner_window_mark(c->r, c->f, WINDOW_MARK_HELD);
        const json_t *restore = json_object_get(res, "restore");
        c->restore = json_is_object(restore) ? json_incref((json_t *)restore) : json_object();
        json_decref(res);
        json_t *identity = json_deep_copy(c->identity);
        if (identity)
                json_object_set(identity, "restore", c->restore);
        char *ident = dump(identity);
        struct lease_update u = { .runtime_identity_json = ident, .set_injected_at = true };
        int r = ident ? lease_transition(
                                c->r->opt->evidence, c->lease_id, LEASE_PENDING, LEASE_ACTIVE, &u, e)
                      : mh_error_set(e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (r < 0 && ident)
                runner_evidence_failed(c->r, "the fault's activation", e);
        free(ident);
        json_decref(identity);
        json_decref(c->lease);
        c->lease = agent_lease(c);
        return r >= 0;
}

/* Holds the fault for its duration, renewing the lease (journal and agent)
 * every third of its TTL so the agent's watchdog never fires while we live. */
static void hold(struct lease_ctx *c) {
        double until = monotonic_ms() + (double)c->f->src->duration_ms,
               slice = c->f->lease_ttl_s * 1000.0 / 3;
        while (monotonic_ms() < until && runner_sleep(c->r, MIN(slice, until - monotonic_ms()))) {
                if (monotonic_ms() >= until)
                        break;
                json_t *res = NULL;
                agent_client_call(
                        c->r->agent, "lease.extend",
                        json_pack(
                                "{s:s, s:I}", "lease_id", c->lease_id, "ttl_seconds",
                                (json_int_t)c->f->lease_ttl_s),
                        QUICK_CALL_MS, &res, NULL);
                json_decref(res);
                struct mh_error e = { 0 };
                if (lease_extend(c->r->opt->evidence, c->lease_id, c->f->lease_ttl_s, &e) < 0)
                        runner_evidence_failed(c->r, "a lease extension", &e);
        }
}

static bool held_and_released(struct lease_ctx *c) {
        struct runner *r = c->r;
        const struct plan_fault *f = c->f;
        bool observed = false, in_force = wait_effect(c, &observed), ok = in_force;
        char source[64];
        snprintf(source, sizeof(source), "%s.effect", f->id);
        runner_observe(r, source, OBS_VALUE_BOOLEAN, in_force, c->detail);
        runner_event(
                r, EVENT_FAULT_OBSERVED,
                json_pack(
                        "{s:s, s:b, s:b, s:s}", "lease", c->lease_id, "in_force", in_force, "observed",
                        observed, "detail", c->detail));
        if (in_force) {
                bump(r, &r->result->faults_in_force);
                if (observed)
                        runner_progress(r, "     in force: %s", c->detail);
                else
                        runner_progress(r, "     in force: not observable (%s)", c->detail);
                runner_fault_phase(r, f, RUN_FAULT_HOLDING);
                hold(c);
                observed = observed || observed_after_hold(c);
                bump(r, observed ? &r->result->faults_proven : &r->result->faults_unobserved);
        } else
                runner_progress(r, "  [FAIL] %s was not in force: %s", f->src->def->id, c->detail);
        if (!f->src->recovery && in_force && !c->agent_lost && !runner_stopping(r) && keep_faulted(c)) {
                runner_progress(
                        r,
                        "     kept faulted (recovery: false), still in force: %s; undo it with `mayhem "
                        "recover execute %s`",
                        c->detail, r->run_id);
                return ok;
        }
        runner_fault_phase(r, f, RUN_FAULT_UNDOING);
        if (!release(c, LEASE_ACTIVE))
                return false;
        bump(r, &r->result->faults_released);
        runner_progress(r, "     undone and verified: %s", c->detail);
        return ok;
}

static void ctx_done(struct lease_ctx *c) {
        json_decref(c->lease);
        json_decref(c->params);
        json_decref(c->identity);
        json_decref(c->net);
        json_decref(c->restore);
}

void runner_kept_recheck(struct runner *r) {
        size_t i;
        json_t *k;
        json_array_foreach(r->kept, i, k) {
                struct lease_ctx c = {
                        .r = r,
                        .f = &r->plan->faults[json_integer_value(json_object_get(k, "fault"))],
                        .lease = json_incref(json_object_get(k, "lease"))
                };
                str_copy(c.lease_id, sizeof(c.lease_id), json_string_value(json_object_get(k, "lease_id")));
                if (!agent_client_alive(r->agent) || look(&c, "effect", "in_force", NULL)) {
                        ctx_done(&c);
                        continue;
                }
                runner_progress(
                        r,
                        "  %s %s kept (recovery: false) is no longer in force at the run's end: %s; undoing "
                        "it",
                        c.f->id, c.f->src->def->id, c.detail);
                pthread_mutex_lock(&r->lock);
                r->result->leases_kept--;
                pthread_mutex_unlock(&r->lock);
                if (release(&c, LEASE_KEPT))
                        bump(r, &r->result->faults_released);
                ctx_done(&c);
        }
}

static void set_outcome(struct runner *r, const struct plan_fault *f, enum fault_outcome o) {
        pthread_mutex_lock(&r->lock);
        r->outcome[f - r->plan->faults] = o;
        pthread_mutex_unlock(&r->lock);
}

/* A fault the run does not inject on purpose: no lease, no invocation, an
 * event and a line saying why (the reference's "[bypass] <step>: bypass due
 * to <reason>"). */
static bool not_injected(struct runner *r, const struct plan_fault *f) {
        const char *why = r->bypass[f - r->plan->faults];
        bool skipped = !run_target_in_scope(r->opt, f->target);
        if (!skipped && !why)
                return false;
        if (skipped)
                runner_progress(
                        r, "  [skip] %s %s on %s: outside --ctr", f->id, f->src->def->id, f->target->label);
        else
                runner_progress(
                        r, "  [bypass] %s %s on %s: bypass due to %s", f->id, f->src->def->id,
                        f->target->label, why);
        runner_event(
                r, EVENT_STEP_SKIPPED,
                json_pack(
                        "{s:s, s:s, s:s, s:s}", "fault", f->id, "fault_id", f->src->def->id, "status",
                        skipped ? "skipped" : "bypassed", "reason", skipped ? "outside --ctr" : why));
        bump(r, skipped ? &r->result->faults_skipped : &r->result->faults_bypassed);
        set_outcome(r, f, skipped ? FAULT_OUTCOME_SKIPPED : FAULT_OUTCOME_BYPASSED);
        return true;
}

bool runner_fault(struct runner *r, const struct plan_fault *f, const char *step_id) {
        struct lease_ctx c = { .r = r, .f = f };
        struct mh_error e = { 0 };
        bool ok;

        if (not_injected(r, f))
                return true;

        c.params = plan_fault_params_json(f->src);
        if (!c.params || runner_resolve(r, f->target, &c.identity, &e) < 0 ||
            runner_lease_net(r, f, &c.net, &e) < 0 || write_ahead(&c, step_id, &e) < 0 ||
            (runner_stopping(r) &&
             mh_error_set(&e, -ECANCELED, MH_EXIT_GENERAL_FAILURE, "stopped", "the run is stopping") < 0)) {
                if (!c.params)
                        mh_error_set(&e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
                if (e.exit == MH_EXIT_SAFETY_REFUSAL)
                        runner_refused(r, "%s %s: %s", f->id, f->src->def->id, e.msg);
                runner_progress(r, "  [FAIL] %s %s: %s", f->id, f->src->def->id, e.msg);
                if (c.journaled) /* nothing was applied: the lease ends here */
                        lease_transition(
                                r->opt->evidence, c.lease_id, LEASE_PENDING, LEASE_EXPIRED, NULL, NULL);
                /* Stopped before it began (another lane's failure, a signal): cut short, not failed. */
                set_outcome(r, f, e.code == -ECANCELED ? FAULT_OUTCOME_NONE : FAULT_OUTCOME_FAILED);
                ctx_done(&c);
                return false;
        }
        c.lease = agent_lease(&c);
        runner_fault_phase(r, f, RUN_FAULT_INJECTING);
        if (!inject(&c, &e)) {
                bool lost = !agent_client_alive(r->agent);
                runner_progress(
                        r, "  [FAIL] %s %s on %s: %s: %s", f->id, f->src->def->id, f->target->label,
                        lost        ? "may be applied (the agent died before it answered)"
                        : c.applied ? "applied but not journalled (undoing it)"
                                    : "not applied",
                        e.msg);
                runner_event(
                        r, EVENT_FAULT_FAILED, json_pack("{s:s, s:s}", "lease", c.lease_id, "error", e.msg));
                release(&c, LEASE_PENDING); /* undo is harmless on a fault never applied */
                set_outcome(r, f, c.applied || lost ? FAULT_OUTCOME_FAILED : FAULT_OUTCOME_NOT_APPLIED);
                ok = false;
        } else {
                bump(r, &r->result->faults_injected);
                runner_progress(
                        r, "     injected %s on %s (lease %s)", f->src->def->id, f->target->label,
                        c.lease_id);
                runner_event(
                        r, EVENT_FAULT_INJECTED,
                        json_pack("{s:s, s:s}", "lease", c.lease_id, "fault", f->src->def->id));
                ok = held_and_released(&c);
                set_outcome(r, f, ok ? FAULT_OUTCOME_OK : FAULT_OUTCOME_FAILED);
        }
        runner_fault_phase(r, f, RUN_FAULT_ENDED);
        ctx_done(&c);
        return ok;
}
