#include "recovery.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent/agent-client.h"
#include "catalog/catalog.h"
#include "basic/clock.h"
#include "evidence/lease.h"

#define RECOVERY_CALL_MS   60000
#define RECOVERY_VERIFY_MS 30000
#define UNDO_ATTEMPTS      3

struct recovery {
        struct evidence *ev;
        const struct recovery_options *o;
        struct recovery_result *res;
        struct agent_client *agent;
        json_t *runs; /* run id -> run row (with "stale" projected) */
};

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

static json_t *run_row(struct recovery *rc, const char *run_id) {
        json_t *row = json_object_get(rc->runs, run_id), *list = NULL;
        if (row)
                return row;
        if (evidence_runs_json(rc->ev, run_id, 1, &list, NULL) >= 0 && json_array_size(list) == 1)
                json_object_set(rc->runs, run_id, json_array_get(list, 0));
        json_decref(list);
        return json_object_get(rc->runs, run_id);
}

/* A live controller (its run shown "running", not "stale") owns its leases until their TTL passes. */
static bool owned_by_live_controller(struct recovery *rc, const json_t *lease) {
        const json_t *run = run_row(rc, str(lease, "run_id"));
        return run && strcmp(str(run, "status"), "running") == 0 &&
               !json_is_true(json_object_get(lease, "overdue"));
}

/* The janitor leaves a kept_faulted lease alone: it is in force on purpose
 * (recovery: false) until someone runs `mayhem recover execute RUN_ID`. */
static bool selected(struct recovery *rc, const json_t *lease) {
        if (rc->o->mode == RECOVERY_JANITOR)
                return !owned_by_live_controller(rc, lease) &&
                       strcmp(str(lease, "state"), lease_state_to_string(LEASE_KEPT)) != 0;
        for (size_t i = 0; i < rc->o->n_run_ids; i++)
                if (strcmp(rc->o->run_ids[i], str(lease, "run_id")) == 0)
                        return true;
        return false;
}

static json_t *names_of(const json_t *ops, const char *key) {
        json_t *a = json_array();
        size_t i;
        json_t *op;
        json_array_foreach(ops, i, op) json_array_append_new(a, json_string(str(op, key)));
        return a;
}

/* The journal's lease, as task.execute takes it: the params and network
 * context the run sent, and what apply recorded to restore (kept with the
 * runtime identity). The agent derives the undo ops and probes itself. */
static json_t *agent_lease_json(const json_t *lease) {
        const json_t *identity = json_object_get(lease, "runtime_identity"),
                     *params = json_object_get(lease, "params"), *net = json_object_get(lease, "net"),
                     *restore = json_object_get(identity, "restore");
        json_t *j = json_pack(
                "{s:s, s:s, s:I, s:I, s:O, s:o, s:o}", "id", str(lease, "id"), "fault_id",
                str(lease, "fault_id"), "ttl_seconds", (json_int_t)120, "duration_ms", (json_int_t)0,
                "target", identity, "params",
                json_is_object(params) ? json_incref((json_t *)params) : json_object(), "restore",
                json_is_object(restore) ? json_incref((json_t *)restore) : json_object());
        if (j && json_is_object(net))
                json_object_set(j, "net", (json_t *)net);
        return j;
}

static int call(
        struct recovery *rc, const json_t *lease, const char *phase, json_t **ret, struct mh_error *e) {
        json_t *params = json_pack(
                "{s:s, s:s, s:o}", "fault_id", str(lease, "fault_id"), "phase", phase, "lease",
                agent_lease_json(lease));
        return agent_client_call(rc->agent, "task.execute", params, RECOVERY_CALL_MS, ret, e);
}

static bool undo_and_verify(struct recovery *rc, const json_t *lease, char *notes, size_t size) {
        struct mh_error e = { 0 };
        int r = -EIO;
        for (int i = 0; i < UNDO_ATTEMPTS && r < 0; i++)
                r = call(rc, lease, "undo", NULL, &e);
        if (r < 0) {
                snprintf(notes, size, "undo failed: %.400s", e.msg);
                return false;
        }
        double deadline = monotonic_ms() + RECOVERY_VERIFY_MS;
        for (;;) {
                json_t *res = NULL;
                bool ok = call(rc, lease, "verify", &res, &e) >= 0 &&
                          json_is_true(json_object_get(res, "verified"));
                snprintf(notes, size, "%.400s", res ? str(res, "detail") : e.msg);
                json_decref(res);
                if (ok)
                        return true;
                if (monotonic_ms() >= deadline)
                        return false;
                sleep_ms(200);
        }
}

/* Walks the lease to releasing from wherever it stands (active goes through orphaned). */
static int to_releasing(struct recovery *rc, const char *id, enum lease_state st) {
        if (st == LEASE_ACTIVE && lease_transition(rc->ev, id, st, LEASE_ORPHANED, NULL, NULL) >= 0)
                st = LEASE_ORPHANED;
        if (st == LEASE_RELEASING)
                return 0;
        return lease_transition(rc->ev, id, st, LEASE_RELEASING, NULL, NULL);
}

static int start_agent(struct recovery *rc, const json_t *leases, struct mh_error *reterr) {
        const char *ids[256];
        char roles[256];
        size_t n = 0, i;
        bool host = false;
        json_t *l;
        json_array_foreach(leases, i, l) if (n < ELEMENTSOF(ids) && selected(rc, l)) {
                ids[n++] = str(l, "fault_id");
                host = host || strcmp(str(json_object_get(l, "runtime_identity"), "engine"), "host") == 0;
        }
        if (n == 0 || rc->agent)
                return 0;
        agent_roles_for(ids, n, host, roles, sizeof(roles));
        struct agent_client_options o = { .roles = roles, .run_id = "recovery" };
        return agent_client_start(&o, &rc->agent, reterr);
}

static void report(
        struct recovery *rc, const json_t *lease, const char *action, const char *outcome,
        const char *notes) {
        json_t *item = json_pack(
                "{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:s}", "lease", str(lease, "id"), "fault",
                str(lease, "fault_id"), "run", str(lease, "run_id"), "state", str(lease, "state"), "action",
                action, "compensate", names_of(json_object_get(lease, "undo"), "op"), "probe",
                names_of(json_object_get(lease, "verify"), "probe"), "outcome", outcome, "notes",
                notes ? notes : "");
        json_array_append_new(rc->res->leases, item);
        if (!rc->o->progress)
                return;
        const char *container = str(json_object_get(lease, "runtime_identity"), "container_name");
        char line[1024];
        if (!rc->o->execute)
                snprintf(
                        line, sizeof(line), "would recover lease %s (%s on %s, %s): compensate=%s",
                        str(lease, "id"), str(lease, "fault_id"), container, str(lease, "state"), action);
        else if (strcmp(outcome, "recovered") == 0)
                snprintf(
                        line, sizeof(line), "recovered %s lease %s (%s on %s)", str(lease, "state"),
                        str(lease, "id"), str(lease, "fault_id"), container);
        else
                snprintf(
                        line, sizeof(line), "DIRTY lease %s (%s on %s): manual action required: %.600s",
                        str(lease, "id"), str(lease, "fault_id"), container, notes);
        rc->o->progress(rc->o->progress_userdata, line);
}

static void recover_one(struct recovery *rc, const json_t *lease) {
        const char *id = str(lease, "id");
        char notes[512] = "", action[256];
        json_t *names = names_of(json_object_get(lease, "undo"), "op");
        char *ops = json_dumps(names, JSON_COMPACT);
        snprintf(action, sizeof(action), "%s", ops ? ops : "[]");
        free(ops);
        json_decref(names);
        rc->res->considered++;
        if (!rc->o->execute) {
                report(rc, lease, action, "planned", NULL);
                return;
        }
        int st = lease_state_from_string(str(lease, "state"));
        bool ok = st >= 0 && to_releasing(rc, id, (enum lease_state)st) >= 0 &&
                  undo_and_verify(rc, lease, notes, sizeof(notes));
        evidence_recovery_record(
                rc->ev, id, 1, rc->o->mechanism, ok ? "{\"ok\":true}" : "{\"ok\":false}", ok, NULL);
        if (ok) {
                struct lease_update u = { .release_mechanism = rc->o->mechanism, .set_released_at = true };
                lease_transition(rc->ev, id, LEASE_RELEASING, LEASE_RELEASED, &u, NULL);
                rc->res->recovered++;
                report(rc, lease, action, "recovered", notes);
                return;
        }
        char escalation[640];
        snprintf(escalation, sizeof(escalation), "DIRTY after %s: %s", rc->o->mechanism, notes);
        lease_transition(
                rc->ev, id, LEASE_RELEASING, LEASE_DIRTY,
                &(struct lease_update){ .escalation_notes = escalation }, NULL);
        rc->res->dirty++;
        report(rc, lease, action, "dirty", notes);
}

/* A run whose controller is gone is over: aborted, with what recovery did in the journal. */
static void close_stale_runs(struct recovery *rc) {
        const char *run_id;
        json_t *run;
        json_object_foreach(rc->runs, run_id, run) {
                if (strcmp(str(run, "status"), "stale") != 0 || !rc->o->execute)
                        continue;
                if (evidence_run_finish(
                            rc->ev, run_id, "aborted", NULL, NULL,
                            "aborted: the controller died; its leases were recovered", NULL) >= 0)
                        rc->res->runs_closed++;
        }
}

static int refuse_live_runs(struct recovery *rc, struct mh_error *reterr) {
        for (size_t i = 0; i < rc->o->n_run_ids && !rc->o->force; i++) {
                const json_t *run = run_row(rc, rc->o->run_ids[i]);
                if (!run)
                        return mh_error_set(
                                reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "validation",
                                "no run '%s' in the evidence database", rc->o->run_ids[i]);
                if (strcmp(str(run, "status"), "running") == 0)
                        return mh_error_set(
                                reterr, -EBUSY, MH_EXIT_CONFIG_ERROR, "run_alive",
                                "run %s is still running under a live controller; stop it (Ctrl-C "
                                "undoes its faults) or pass --force",
                                rc->o->run_ids[i]);
        }
        return 0;
}

int recovery_run(
        struct evidence *ev, const struct recovery_options *o, struct recovery_result *ret,
        struct mh_error *reterr) {
        struct recovery rc = { .ev = ev, .o = o, .res = ret, .runs = json_object() };
        json_t *leases = NULL;
        size_t i;
        json_t *l;
        int r;

        *ret = (struct recovery_result){ .leases = json_array() };
        if ((r = evidence_leases_json(ev, NULL, true, &leases, reterr)) < 0 ||
            (o->mode == RECOVERY_RUNS && (r = refuse_live_runs(&rc, reterr)) < 0) ||
            (o->execute && (r = start_agent(&rc, leases, reterr)) < 0))
                goto stop_agent;
        json_array_foreach(leases, i, l) {
                if (selected(&rc, l))
                        recover_one(&rc, l);
                else
                        ret->skipped++;
        }
        close_stale_runs(&rc);
stop_agent:
        agent_client_stop(rc.agent);
        json_decref(leases);
        json_decref(rc.runs);
        return r;
}

void recovery_result_done(struct recovery_result *r) {
        json_decref(r->leases);
        r->leases = NULL;
}
