/* Conflicts between leases on one target: a second lease whose fault
 * competes with an open one for the same state of the target is refused,
 * whichever run asks, in the transaction that would add it. */
#include "lease.h"

#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "evidence-internal.h"

char *lease_target_key(const char *runtime_identity_json) {
        json_t *j = runtime_identity_json ? json_loads(runtime_identity_json, 0, NULL) : NULL;
        const char *engine = json_string_value(json_object_get(j, "engine")),
                   *id = json_string_value(json_object_get(j, "container_id"));
        json_int_t pid = json_integer_value(json_object_get(j, "pid")),
                   start = json_integer_value(json_object_get(j, "pid_start_time"));
        char key[128] = "";
        if (engine && strcmp(engine, "host") == 0 && pid > 0)
                snprintf(key, sizeof(key), "process:%lld:%lld", (long long)pid, (long long)start);
        else if (id && id[0])
                snprintf(key, sizeof(key), "container:%.64s", id);
        json_decref(j);
        return key[0] ? strdup(key) : NULL;
}

bool lease_faults_conflict(const char *fault_a, const char *fault_b) {
        const struct fault_def *a = catalog_find(fault_a), *b = catalog_find(fault_b);
        return !a || !b || faults_conflict(a, b); /* an unknown fault: assume the worst */
}

int lease_conflict_check(
        struct evidence *ev, const char *op, const char *target_key, const char *fault_id,
        struct mh_error *reterr) {
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT id, run_id, fault_id, state FROM fault_leases WHERE target_key = ? AND "
                "state NOT IN ('released', 'expired') ORDER BY created_at",
                "t", target_key);
        while (r >= 0 && (r = evidence_step(ev, st, op, reterr)) == 1) {
                const char *held = (const char *)sqlite3_column_text(st, 2);
                if (!lease_faults_conflict(held, fault_id))
                        continue;
                const struct fault_def *f = catalog_find(held);
                char why[128];
                if (strcmp(held, fault_id) == 0)
                        snprintf(why, sizeof(why), "cannot be applied to it twice");
                else
                        snprintf(
                                why, sizeof(why), "competes for the same state (%s)",
                                f ? conflict_class_to_string(f->conflict) : "unknown fault");
                return mh_error_set(
                        reterr, -EBUSY, MH_EXIT_SAFETY_REFUSAL, "lease_conflict",
                        "%s is held by lease %s of run %s (%s, %s): %s %s; nothing was touched", target_key,
                        (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
                        held, (const char *)sqlite3_column_text(st, 3), fault_id, why);
        }
        return r;
}

int lease_conflicts(
        struct evidence *ev, const char *target_key, const char *fault_id, struct mh_error *reterr) {
        EVIDENCE_LOCK_SCOPE(ev);
        return lease_conflict_check(ev, "lease_conflicts", target_key, fault_id, reterr);
}
