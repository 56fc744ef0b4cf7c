#pragma once

/* The resilience score of a run (mayhem-spec.md §4.3), computed from what
 * the evidence holds, so it can be recomputed from the database later:
 *
 *   score = round(100 * sum(w_i * v_i) / sum(w_i)) over the measured components
 *   fidelity   (w 0.35) ok steps / executed steps that were not bypassed
 *   recovery   (w 0.35) 1.0, -0.5 if any lease is dirty, -0.5 * dead / targeted, floor 0
 *   redundancy (w 0.30) share of faulted replica groups with a survivor (a
 *                       member not faulted and running at the run's end);
 *                       a single-member group counts 0
 *
 * A component that cannot be measured is omitted, and the reason said. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/error.h"

struct evidence;

#define RESILIENCE_EVENT    "targets.final_state" /* the run's end state of its targets */
#define RESILIENCE_NOTE_MAX 256

struct resilience_input {
        size_t steps_ok, steps_executed; /* completed / not pending, running, skipped or bypassed */
        size_t leases_dirty;
        bool end_state_known;           /* the run recorded its targets' end state */
        size_t targeted, dead, unknown; /* targeted containers; not running at the end; state unread */
        size_t groups_faulted, groups_with_survivor, groups_single;
};

struct resilience_score {
        bool has_fidelity, has_recovery, has_redundancy, has_score;
        double fidelity, recovery, redundancy;
        int score;                         /* 0..100, when has_score */
        char grade;                        /* 'A'..'F', or '-' */
        const char *label;                 /* "resilient" .. "needs attention", or "not measurable" */
        char omitted[RESILIENCE_NOTE_MAX]; /* why components are missing, "" when none is */
};

/* Pure: the score of in. */
void resilience_score(const struct resilience_input *in, struct resilience_score *ret);
/* The grade of a score: 'A' (>= 90) .. 'F' (< 45), and its word. */
char resilience_grade(int score, const char **ret_label);
/* {score, grade, label, components: {fidelity: {value, weight, ...}|null}, omitted, input}. */
json_t *resilience_score_json(const struct resilience_input *in, const struct resilience_score *s);
/* "83 (B, solid): fidelity 1.00, recovery 1.00, redundancy 0.50", and what was omitted. */
void resilience_line(const struct resilience_score *s, char *buf, size_t size);

/* From the run's rows: step statuses, dirty leases, the last RESILIENCE_EVENT
 * ({"containers": [{name, service, state, targeted}]}). -ENOENT for no such run. */
int evidence_resilience_input(
        struct evidence *ev, const char *run_id, struct resilience_input *ret, struct mh_error *reterr);
/* Pure: counts the end-state payload into in (targeted, dead, unknown, groups). */
void resilience_count_end_state(const json_t *payload, struct resilience_input *in);
/* Writes runs.resilience_json (valid JSON text). */
int evidence_resilience_store(
        struct evidence *ev, const char *run_id, const char *json_text, struct mh_error *reterr);
