#include "run-internal.h"

#include <stdio.h>
#include <string.h>

#define EFFECT_WAIT_MS 5000
#define VERIFY_WAIT_MS 30000
#define POLL_MS        100
#define UNDO_ATTEMPTS  3

/* The plan's ops as the lease keeps them: [{op, args}] with the live identity
 * added, so recovery needs nothing but the lease row. */
static char *ops_json(const struct plan_fault *f, bool verify, const json_t *identity) {
        json_t *a = json_array();
        size_t n = verify ? f->comp->n_verify : f->comp->n_undo;
        for (size_t i = 0; a && i < n; i++) {
                const char *name = verify ? verify_probe_to_string(f->comp->verify[i])
                                          : comp_op_to_string(f->comp->undo[i]);
                json_array_append_new(
                        a, json_pack("{s:s, s:O}", verify ? "probe" : "op", name, "args", identity));
        }
        char *text = a ? json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(a);
        return text;
}

static void bump(struct runner *r, size_t *counter) {
        pthread_mutex_lock(&r->lock);
        (*counter)++;
        pthread_mutex_unlock(&r->lock);
}

struct lease_ctx {
        struct runner *r;
        const struct plan_fault *f;
        struct fault_exec fx;
        char lease_id[LEASE_ID_MAX];
        char detail[FAULT_DETAIL_MAX];
};

static int write_ahead(struct lease_ctx *c, const char *step_id, struct mh_error *e) {
        const struct plan_fault *f = c->f;
        json_t *identity = target_identity_json(&c->fx.target);
        char *ident = identity ? json_dumps(identity, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        char *undo = ops_json(f, false, identity), *verify = ops_json(f, true, identity);
        json_t *targets = json_pack("[s]", f->target->container->name);
        char *targets_text = targets ? json_dumps(targets, JSON_COMPACT) : NULL;
        struct lease_new l = { .run_id = c->r->run_id,
                               .fault_id = f->src->def->id,
                               .owner_agent = "local",
                               .targets_json = targets_text,
                               .undo_json = undo,
                               .verify_json = verify,
                               .runtime_identity_json = ident,
                               .ttl_seconds = f->lease_ttl_s };
        int r = ident && undo && verify && targets_text
                        ? lease_create(c->r->opt->evidence, &l, c->lease_id, e)
                        : mh_error_set(e, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (r >= 0)
                evidence_invocation(
                        c->r->opt->evidence, c->r->run_id, step_id, f->src->def->id, targets_text, "{}",
                        "local", c->lease_id, NULL);
        free(ident);
        free(undo);
        free(verify);
        free(targets_text);
        json_decref(targets);
        json_decref(identity);
        return r;
}

static bool wait_effect(struct lease_ctx *c) {
        double until = runner_now_ms() + EFFECT_WAIT_MS;
        bool in_force = false;
        do {
                if (effect_check_run(c->f->comp->effect, &c->fx, &in_force, c->detail, sizeof(c->detail)) <
                    0)
                        in_force = false;
        } while (!in_force && runner_now_ms() < until && runner_sleep(c->r, POLL_MS));
        return in_force;
}

static bool run_undo(struct lease_ctx *c, char *notes, size_t size) {
        struct mh_error e = { 0 };
        for (size_t i = 0; i < c->f->comp->n_undo; i++) {
                int r = -EIO;
                for (int attempt = 0; attempt < UNDO_ATTEMPTS && r < 0; attempt++)
                        r = comp_op_run(c->f->comp->undo[i], c->r->opt->engine, &c->fx.target, &e);
                if (r < 0) {
                        snprintf(
                                notes, size, "%s failed: %.400s", comp_op_to_string(c->f->comp->undo[i]),
                                e.msg);
                        return false;
                }
        }
        return true;
}

static bool run_verify(struct lease_ctx *c, char *notes, size_t size) {
        double until = runner_now_ms() + VERIFY_WAIT_MS;
        for (size_t i = 0; i < c->f->comp->n_verify; i++) {
                bool ok = false;
                for (;;) {
                        if (verify_probe_run(
                                    c->f->comp->verify[i], c->r->opt->engine, &c->fx.target, &ok, c->detail,
                                    sizeof(c->detail)) < 0)
                                ok = false;
                        if (ok || runner_now_ms() >= until)
                                break;
                        struct timespec ts = { .tv_nsec = POLL_MS * 1000000L };
                        nanosleep(&ts, NULL); /* not runner_sleep: verify runs even while aborting */
                }
                if (!ok) {
                        snprintf(
                                notes, size, "%s still failing after %ds: %.400s",
                                verify_probe_to_string(c->f->comp->verify[i]), VERIFY_WAIT_MS / 1000,
                                c->detail);
                        return false;
                }
        }
        return true;
}

/* releasing -> released | dirty, with a recovery record either way. */
static bool release(struct lease_ctx *c, enum lease_state from) {
        struct evidence *ev = c->r->opt->evidence;
        char notes[FAULT_DETAIL_MAX] = "";
        lease_transition(ev, c->lease_id, from, LEASE_RELEASING, NULL, NULL);
        bool ok = run_undo(c, notes, sizeof(notes)) && run_verify(c, notes, sizeof(notes));
        evidence_recovery_record(
                ev, c->lease_id, 1, "normal", ok ? "{\"ok\":true}" : "{\"ok\":false}", ok, NULL);
        if (ok) {
                struct lease_update u = { .release_mechanism = "normal", .set_released_at = true };
                lease_transition(ev, c->lease_id, LEASE_RELEASING, LEASE_RELEASED, &u, NULL);
                runner_event(
                        c->r, "fault.recovered",
                        json_pack("{s:s, s:s}", "lease", c->lease_id, "detail", c->detail));
                return true;
        }
        char escalation[FAULT_DETAIL_MAX + 64];
        snprintf(escalation, sizeof(escalation), "DIRTY: %s; run `mayhem recover` or fix by hand", notes);
        struct lease_update u = { .escalation_notes = escalation };
        lease_transition(ev, c->lease_id, LEASE_RELEASING, LEASE_DIRTY, &u, NULL);
        runner_progress(c->r, "     DIRTY LEASE %s: %s", c->lease_id, notes);
        bump(c->r, &c->r->result->leases_dirty);
        return false;
}

/* recovery: false keeps the fault in place on purpose; the lease says so. */
static void keep_faulted(struct lease_ctx *c) {
        struct evidence *ev = c->r->opt->evidence;
        struct lease_update u = { .release_mechanism = "kept_faulted", .set_released_at = true };
        lease_transition(ev, c->lease_id, LEASE_ACTIVE, LEASE_RELEASING, NULL, NULL);
        evidence_recovery_record(ev, c->lease_id, 1, "kept_faulted", "{}", false, NULL);
        lease_transition(ev, c->lease_id, LEASE_RELEASING, LEASE_RELEASED, &u, NULL);
        bump(c->r, &c->r->result->leases_kept);
}

static bool inject(struct lease_ctx *c, struct mh_error *e) {
        const struct fault_mechanism *m = fault_mechanism_find(c->f->src->def->id);
        if (m->apply(&c->fx, e) < 0)
                return false;
        json_t *identity = target_identity_json(&c->fx.target);
        char *ident = identity ? json_dumps(identity, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        struct lease_update u = { .runtime_identity_json = ident, .set_injected_at = true };
        int r = lease_transition(c->r->opt->evidence, c->lease_id, LEASE_PENDING, LEASE_ACTIVE, &u, e);
        free(ident);
        json_decref(identity);
        return r >= 0;
}

bool runner_fault(struct runner *r, const struct plan_fault *f, const char *step_id) {
        struct lease_ctx c = { .r = r, .f = f, .fx = { .engine = r->opt->engine, .fault = f->src } };
        struct mh_error e = { 0 };
        bool ok = true;

        if (target_identity_resolve(r->opt->engine, f->target->container->name, &c.fx.target, &e) < 0 ||
            write_ahead(&c, step_id, &e) < 0) {
                runner_progress(r, "  [FAIL] %s %s: %s", f->id, f->src->def->id, e.msg);
                return false;
        }
        if (!inject(&c, &e)) {
                runner_progress(
                        r, "  [FAIL] %s %s on %s: not applied: %s", f->id, f->src->def->id,
                        f->target->container->name, e.msg);
                runner_event(
                        r, "fault.failed", json_pack("{s:s, s:s}", "lease", c.lease_id, "error", e.msg));
                release(&c, LEASE_PENDING); /* undo is harmless on a fault never applied */
                return false;
        }
        bump(r, &r->result->faults_injected);
        runner_progress(
                r, "     injected %s on %s (lease %s)", f->src->def->id, f->target->container->name,
                c.lease_id);
        runner_event(
                r, "fault.injected", json_pack("{s:s, s:s}", "lease", c.lease_id, "fault", f->src->def->id));
        bool in_force = wait_effect(&c);
        char source[64];
        snprintf(source, sizeof(source), "%s.effect", f->id);
        runner_observe(r, source, OBS_VALUE_BOOLEAN, in_force, c.detail);
        runner_event(
                r, "fault.observed",
                json_pack("{s:s, s:b, s:s}", "lease", c.lease_id, "in_force", in_force, "detail", c.detail));
        if (in_force) {
                bump(r, &r->result->faults_in_force);
                runner_progress(r, "     in force: %s", c.detail);
                runner_sleep(r, (double)f->src->duration_ms);
        } else {
                runner_progress(r, "  [FAIL] %s was not in force: %s", f->src->def->id, c.detail);
                ok = false;
        }
        if (!f->src->recovery && in_force) {
                keep_faulted(&c);
                runner_progress(r, "     kept faulted (recovery: false): %s", c.lease_id);
                return ok;
        }
        if (release(&c, LEASE_ACTIVE)) {
                bump(r, &r->result->faults_released);
                runner_progress(r, "     undone and verified: %s", c.detail);
        } else
                ok = false;
        return ok;
}
