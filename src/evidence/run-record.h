#pragma once

/* One run's whole record for `mayhem inspect run` and `mayhem verify`, and
 * the pure functions that read it (no SQLite in those: a unit test feeds
 * them a hand-made or broken record). */

#include <jansson.h>
#include <stdbool.h>

#include "basic/error.h"

struct evidence;

#define RUN_RECORD_ROWS_MAX 10000 /* rows read per extra table */

/* evidence_history_json()'s snapshot plus "plan_text" (runs.plan_json as
 * stored, for the fingerprint), "resilience" (runs.resilience_json, or
 * null), "slo_outcomes" and "steady_state_evaluations" (their rows; [] when
 * the table is empty or the schema predates it). -ENOENT for an unknown run,
 * -EINVAL for a run id that is empty or longer than the store allows. */
int evidence_run_record_json(struct evidence *ev, const char *run_id, json_t **ret, struct mh_error *reterr);

/* Pure: the story `inspect run` tells from a record: the run row, steps,
 * leases with undo/verify, criteria, observations per source {source,
 * count, first, last, min, max}, slo_outcomes, steady_state_evaluations,
 * resilience, events_by_kind {kind: count}. NULL on out of memory. */
json_t *run_story_json(const json_t *record);

/* Pure: the checks of `mayhem verify`, each {check, ok, detail}, in order;
 * *ret_failed counts those that failed. NULL on out of memory. */
json_t *run_verify_json(const json_t *record, size_t *ret_failed);
