#include "evidence/evidence.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "evidence-internal.h"

/* The damage quota's history (plan-damage.c charges the plan itself). A
 * lease's seconds in force come from its own stamps, so a run that crashed
 * with a fault still in force keeps charging its target until the janitor
 * releases it. */

struct damage_acc {
        struct evidence_damage *v;
        size_t n, cap;
};

static int acc_add(struct damage_acc *a, const char *target, double fault_s) {
        for (size_t i = 0; i < a->n; i++)
                if (strcmp(a->v[i].target, target) == 0) {
                        a->v[i].fault_s += fault_s;
                        return 0;
                }
        if (a->n == a->cap) {
                size_t cap = a->cap ? a->cap * 2 : 8;
                struct evidence_damage *v = reallocarray(a->v, cap, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                a->v = v;
                a->cap = cap;
        }
        if (!(a->v[a->n].target = strdup(target)))
                return -ENOMEM;
        a->v[a->n++].fault_s = fault_s;
        return 0;
}

/* Every target a lease names is charged its whole time in force. */
static int charge_lease(
        struct damage_acc *a, const char *fault_id, const char *targets_json, double seconds) {
        json_t *t = targets_json ? json_loads(targets_json, 0, NULL) : NULL;
        double cost = MAX(seconds, 0.0) * fault_damage_weight(fault_id ? catalog_find(fault_id) : NULL);
        size_t i;
        json_t *v;
        int r = 0;
        json_array_foreach(t, i, v) {
                if (json_is_string(v) && (r = acc_add(a, json_string_value(v), cost)) < 0)
                        break;
        }
        json_decref(t);
        return r;
}

static int by_target(const void *x, const void *y) {
        return strcmp(
                ((const struct evidence_damage *)x)->target, ((const struct evidence_damage *)y)->target);
}

int evidence_damage(
        struct evidence *ev, double window_s, int64_t now_ms, struct evidence_damage **ret, size_t *ret_n,
        struct mh_error *reterr) {
        static const char op[] = "reading the damage quota's history";
        _cleanup_(sqlite3_finalizep) sqlite3_stmt *st = NULL;
        struct damage_acc a = { 0 };
        char now[EVIDENCE_TIMESTAMP_MAX], since[EVIDENCE_TIMESTAMP_MAX];
        EVIDENCE_LOCK_SCOPE(ev);

        evidence_format_time(now_ms, now);
        evidence_format_time(now_ms - (int64_t)(window_s * 1000.0), since);
        int r = evidence_prepare(
                ev, op, &st, reterr,
                "SELECT fault_id, targets_json, (julianday(COALESCE(released_at, ?1)) - "
                "julianday(injected_at)) "
                "* 86400.0 FROM fault_leases WHERE injected_at IS NOT NULL AND injected_at >= ?2",
                "tt", now, since);
        while (r >= 0 && (r = evidence_step(ev, st, op, reterr)) == 1)
                if ((r = charge_lease(
                             &a, (const char *)sqlite3_column_text(st, 0),
                             (const char *)sqlite3_column_text(st, 1), sqlite3_column_double(st, 2))) < 0)
                        r = mh_error_set(reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", op);
        if (r < 0) {
                evidence_damage_free(a.v, a.n);
                return r;
        }
        if (a.n)
                qsort(a.v, a.n, sizeof(*a.v), by_target);
        *ret = a.v;
        *ret_n = a.n;
        return 0;
}

void evidence_damage_free(struct evidence_damage *d, size_t n) {
        for (size_t i = 0; d && i < n; i++)
                free(d[i].target);
        free(d);
}
