/* `mayhem verify`'s checks over a run's record (run-record.h): pure, so a
 * unit test can hand it a record broken one way. */

#include "run-record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/sha256.h"
#include "basic/strbuf.h"

#define DETAIL_MAX 1024

struct checks {
        json_t *list;
        size_t failed;
};

static const char *s_of(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

static bool is(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static void add(struct checks *c, const char *check, bool ok, struct strbuf *detail) {
        char *text = strbuf_steal(detail);
        c->failed += !ok;
        json_array_append_new(
                c->list,
                json_pack("{s:s, s:b, s:s}", "check", check, "ok", ok, "detail", text ? text : "?"));
        free(text);
}

static void check_ended(struct checks *c, const json_t *run) {
        struct strbuf b = STRBUF_INIT(DETAIL_MAX);
        const char *status = s_of(run, "recorded_status");
        bool final = is(status, "completed") || is(status, "failed") || is(status, "aborted");
        bool ended = json_is_string(json_object_get(run, "ended_at"));
        strbuf_printf(
                &b, "status %s%s, ended_at %s", status[0] ? status : "(none)", final ? "" : " (not final)",
                ended ? s_of(run, "ended_at") : "missing");
        add(c, "run ended", final && ended, &b);
}

static void check_steps(struct checks *c, const json_t *steps) {
        struct strbuf b = STRBUF_INIT(DETAIL_MAX);
        size_t i, open = 0;
        json_t *s;
        json_array_foreach(steps, i, s) {
                const char *st = s_of(s, "status");
                if (!is(st, "pending") && !is(st, "running") &&
                    json_is_string(json_object_get(s, "ended_at")))
                        continue;
                strbuf_printf(
                        &b, "%sstep %" JSON_INTEGER_FORMAT " (%s) is %s%s", open ? "; " : "",
                        json_integer_value(json_object_get(s, "seq")), s_of(s, "id"), st,
                        json_is_string(json_object_get(s, "ended_at")) ? "" : " with no ended_at");
                open++;
        }
        if (!open)
                strbuf_printf(&b, "%zu step(s), all finished", json_array_size(steps));
        add(c, "steps finished", open == 0, &b);
}

static void check_fingerprint(struct checks *c, const json_t *record) {
        struct strbuf b = STRBUF_INIT(DETAIL_MAX);
        const char *text = json_string_value(json_object_get(record, "plan_text"));
        const char *want = s_of(json_object_get(record, "run"), "plan_fingerprint");
        char got[SHA256_HEX_SIZE] = "";
        if (text)
                sha256_hex(text, strlen(text), got);
        bool ok = text && is(got, want);
        if (!text)
                strbuf_printf(&b, "no stored plan");
        else
                strbuf_printf(
                        &b, "sha256 of the stored plan %.16s...%s runs.plan_fingerprint %.16s...", got,
                        ok ? " equals" : " DIFFERS from", want[0] ? want : "(none)");
        add(c, "plan fingerprint", ok, &b);
}

static void check_leases(struct checks *c, const json_t *leases) {
        struct strbuf b = STRBUF_INIT(DETAIL_MAX);
        size_t i, open = 0, kept = 0;
        json_t *l;
        json_array_foreach(leases, i, l) {
                const char *st = s_of(l, "state");
                if (is(st, "released") || is(st, "expired"))
                        continue;
                if (is(st, "kept_faulted")) {
                        kept++;
                        continue;
                }
                strbuf_printf(
                        &b, "%s%s (%s) is %s", open ? "; " : "", s_of(l, "id"), s_of(l, "fault_id"), st);
                open++;
        }
        if (!open)
                strbuf_printf(&b, "%zu lease(s), all released", json_array_size(leases) - kept);
        if (kept)
                strbuf_printf(
                        &b,
                        "; %zu kept faulted on purpose (recovery: false; `mayhem recover execute` "
                        "undoes them)",
                        kept);
        add(c, "leases closed", open == 0, &b);
}

static bool lease_sent(const json_t *l) {
        const char *st = s_of(l, "state");
        return json_is_string(json_object_get(l, "injected_at")) || is(st, "active") ||
               is(st, "releasing") || is(st, "dirty") || is(st, "orphaned") || is(st, "kept_faulted");
}

static bool has_invocation(const json_t *record, const char *lease) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(record, "invocations"), i, x) if (is(s_of(x, "lease_id"),
                                                                                lease)) return true;
        return false;
}

static bool has_effect(const json_t *record, const char *lease) {
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(record, "events"), i, x) {
                const json_t *p = json_object_get(x, "payload");
                if (is(s_of(x, "kind"), "fault.observed") && is(s_of(p, "lease"), lease) &&
                    json_is_boolean(json_object_get(p, "in_force")))
                        return true;
        }
        return false;
}

/* The newest recovery record of the lease, or NULL. */
static const json_t *last_recovery(const json_t *record, const char *lease) {
        const json_t *found = NULL;
        size_t i;
        json_t *x;
        json_array_foreach(json_object_get(record, "recovery_records"), i, x) if (is(s_of(x, "lease_id"),
                                                                                     lease)) found = x;
        return found;
}

static void check_fault(struct checks *c, const json_t *record, const json_t *l) {
        struct strbuf b = STRBUF_INIT(DETAIL_MAX);
        const char *id = s_of(l, "id");
        bool kept = is(s_of(l, "state"), "kept_faulted");
        const json_t *rec = last_recovery(record, id);
        bool inv = has_invocation(record, id), eff = has_effect(record, id);
        bool undo = rec && json_is_true(json_object_get(json_object_get(rec, "undo_results"), "ok"));
        bool verified = rec && json_is_true(json_object_get(rec, "verified"));
        bool ok = inv && eff && (kept || (undo && verified));
        char check[96];
        snprintf(check, sizeof(check), "fault %s", id);
        strbuf_printf(
                &b, "%s: invocation %s, effect %s, ", s_of(l, "fault_id"), inv ? "recorded" : "MISSING",
                eff ? "recorded" : "MISSING");
        if (kept)
                strbuf_printf(&b, "no undo by design (kept faulted)");
        else
                strbuf_printf(
                        &b, "undo %s, verify %s",
                        !rec   ? "MISSING"
                        : undo ? "recorded"
                               : "FAILED",
                        !rec       ? "MISSING"
                        : verified ? "passed"
                                   : "FAILED");
        add(c, check, ok, &b);
}

json_t *run_verify_json(const json_t *record, size_t *ret_failed) {
        struct checks c = { .list = json_array() };
        const json_t *leases = json_object_get(record, "leases");
        size_t i;
        json_t *l;
        if (!c.list)
                return NULL;
        check_ended(&c, json_object_get(record, "run"));
        check_steps(&c, json_object_get(record, "steps"));
        check_fingerprint(&c, record);
        check_leases(&c, leases);
        json_array_foreach(leases, i, l) if (lease_sent(l)) check_fault(&c, record, l);
        *ret_failed = c.failed;
        return c.list;
}
