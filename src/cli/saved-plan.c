#include "saved-plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "env-fingerprint.h"
#include "evidence/evidence.h"
#include "json-diff.h"

static const char *const beside_plan[] = { "plan_id", "fingerprint", "decisions",
                                           "kernel",  "inputs",      "environment" };

json_t *saved_plan_body_of(const json_t *doc) {
        json_t *body = json_deep_copy(doc), *f;
        size_t i;
        for (size_t k = 0; body && k < sizeof(beside_plan) / sizeof(beside_plan[0]); k++)
                json_object_del(body, beside_plan[k]);
        json_array_foreach(json_object_get(body, "faults"), i, f) {
                json_object_del(f, "delivery");
                json_object_del(f, "delivery_refused");
        }
        return body;
}

static int not_a_plan(const char *origin, const char *why, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "validation",
                "%s: %s; save one with `mayhem prepare plan SPEC -c COMPOSE > FILE`", origin, why);
}

/* Fills what both kinds of saved plan share, from a plan document and its inputs. */
static int fill(struct saved_plan *p, const json_t *plan, const json_t *inputs, struct mh_error *reterr) {
        const char *format = json_string_value(json_object_get(plan, "format"));
        if (!format || strcmp(format, PLAN_FORMAT) != 0)
                return not_a_plan(
                        p->origin, "not a mayhem plan (no \"format\": \"" PLAN_FORMAT "\")", reterr);
        p->drill = json_string_value(json_object_get(inputs, "drill"));
        p->compose = json_string_value(json_object_get(inputs, "compose"));
        if (!p->fingerprint || !p->drill)
                return not_a_plan(
                        p->origin,
                        "it does not say its fingerprint and the drill it was planned from (\"inputs\": "
                        "{\"drill\"}); plans saved before this version cannot be run again",
                        reterr);
        if (!(p->body = saved_plan_body_of(plan)))
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        return 0;
}

int saved_plan_read_json(const char *path, json_t **ret, struct mh_error *reterr) {
        json_error_t jerr;
        _cleanup_free_ char *data = NULL;
        size_t len = 0;
        int r = read_file_bounded(path, SAVED_PLAN_FILE_MAX, &data, &len, reterr);
        if (r < 0)
                return r;
        json_t *doc = json_loadb(data, len, 0, &jerr);
        if (!doc)
                return mh_error_at(
                        reterr, path, (unsigned)jerr.line, (unsigned)jerr.column, "%s", jerr.text);
        if (!json_is_object(doc)) {
                json_decref(doc);
                return not_a_plan(path, "not a JSON object", reterr);
        }
        *ret = doc;
        return 0;
}

int saved_plan_from_file(const char *path, struct saved_plan *ret, struct mh_error *reterr) {
        struct saved_plan p = { 0 };
        int r = saved_plan_read_json(path, &p.root, reterr);
        if (r < 0)
                return r;
        snprintf(p.origin, sizeof(p.origin), "%s", path);
        p.fingerprint = json_string_value(json_object_get(p.root, "fingerprint"));
        p.environment = json_object_get(p.root, "environment");
        if ((r = fill(&p, p.root, json_object_get(p.root, "inputs"), reterr)) < 0) {
                saved_plan_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

int saved_plan_from_run(
        const char *db_path, const char *run_id, struct saved_plan *ret, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        struct saved_plan p = { 0 };
        int r = evidence_open(db_path, &ev, reterr);
        if (r < 0 || (r = evidence_history_json(ev, run_id, &p.root, reterr)) < 0) {
                if (r == -ENOENT)
                        mh_error_reclass(reterr, MH_EXIT_VALIDATION_ERROR, "validation");
                return r;
        }
        const json_t *run = json_object_get(p.root, "run"), *spec = json_object_get(run, "spec");
        snprintf(p.origin, sizeof(p.origin), "run %s", run_id);
        p.fingerprint = json_string_value(json_object_get(run, "plan_fingerprint"));
        p.environment = json_object_get(spec, "environment");
        if (!json_is_object(json_object_get(run, "plan")))
                r = not_a_plan(p.origin, "the run recorded no plan", reterr);
        else
                r = fill(&p, json_object_get(run, "plan"), spec, reterr);
        if (r < 0) {
                saved_plan_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

void saved_plan_done(struct saved_plan *p) {
        json_decref(p->body);
        json_decref(p->root);
        *p = (struct saved_plan){ 0 };
}

static int refuse(struct mh_error *reterr, const char *rule, const char *msg) {
        return mh_error_set(
                reterr, -EPERM, MH_EXIT_SAFETY_REFUSAL, "safety_refusal",
                "safety refused: %.900s; nothing was touched [%s]", msg, rule);
}

int saved_plan_check(
        const struct saved_plan *p, const struct plan *now, const json_t *env_now, struct mh_error *reterr) {
        char changes[600], msg[MH_ERROR_MSG_MAX];
        if (p->environment && env_facts_changes(p->environment, env_now, changes, sizeof(changes)) > 0) {
                snprintf(
                        msg, sizeof(msg), "the environment %.300s was planned for is not this one: %.600s",
                        p->origin, changes);
                return refuse(reterr, "environment.fingerprint", msg);
        }
        if (strcmp(p->fingerprint, now->fingerprint) == 0)
                return 0;
        json_t *body = NULL, *diff = NULL;
        char paths[600] = "";
        if (plan_body_json(now, &body) >= 0 && (diff = json_diff(p->body, body)))
                json_diff_paths(diff, 8, paths, sizeof(paths));
        json_decref(diff);
        json_decref(body);
        snprintf(
                msg, sizeof(msg),
                "the plan %.300s holds no longer matches its drill and compose file (fingerprint %.12s, "
                "now %.12s; changed: %.500s)",
                p->origin, p->fingerprint, now->fingerprint, paths[0] ? paths : "nothing in the body");
        return refuse(reterr, "plan.fingerprint", msg);
}
