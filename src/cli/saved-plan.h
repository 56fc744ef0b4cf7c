#pragma once

/* A plan saved earlier, to run again: the document `mayhem prepare plan`
 * prints (`run --from-plan FILE`), or the plan an earlier run recorded
 * (`run --plan-id RUN_ID`). Either names the drill and compose file it was
 * planned from and the environment it was planned for; the run re-plans
 * from them and refuses when the environment or the plan changed. */

#include <jansson.h>

#include "basic/error.h"
#include "plan/plan.h"

#define SAVED_PLAN_FILE_MAX (64u * 1024u * 1024u)

struct saved_plan {
        json_t *root;              /* owns everything below */
        json_t *body;              /* the fingerprinted part (a new reference) */
        const char *fingerprint;   /* the plan's sha256 */
        const char *drill;         /* the drill it was planned from (absolute) */
        const char *compose;       /* its compose file, or NULL */
        const json_t *environment; /* env_facts_json() when planned, or NULL */
        char origin[600];          /* "plan.json", "run r-x-0a1b2c": for messages */
};

/* A JSON object from a file of at most SAVED_PLAN_FILE_MAX bytes (exit 4
 * with FILE:LINE:COL when it is not one). */
int saved_plan_read_json(const char *path, json_t **ret, struct mh_error *reterr);
/* A `prepare plan` document: exit 4 naming the file when it is not one. */
int saved_plan_from_file(const char *path, struct saved_plan *ret, struct mh_error *reterr);
/* The plan run_id recorded (runs.plan_json, its spec_json's inputs): exit 4
 * for an unknown run or one recorded without its inputs. */
int saved_plan_from_run(
        const char *db_path, const char *run_id, struct saved_plan *ret, struct mh_error *reterr);
void saved_plan_done(struct saved_plan *p);

/* The plan body of any plan document: without plan_id, fingerprint and
 * what `prepare plan` adds beside the plan (kernel, inputs, environment,
 * each fault's delivery). A new reference. */
json_t *saved_plan_body_of(const json_t *doc);

/* Refuses with exit 5, before anything is touched, a saved plan whose
 * environment (rule environment.fingerprint: which facts changed) or plan
 * (rule plan.fingerprint: which paths changed) is not the one now. */
int saved_plan_check(
        const struct saved_plan *p, const struct plan *now, const json_t *env_now, struct mh_error *reterr);
