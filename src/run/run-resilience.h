#pragma once

#include "run-internal.h"

/* At the run's end: records each faulted container's engine state, and its
 * compose service's other containers', as a targets.final_state event; then
 * computes the resilience score from the evidence (evidence/resilience.h),
 * stores it in runs.resilience_json and keeps it in the run's result for the
 * summary and the JSON. A failed evidence write fails the run as every other
 * one does; a score that could not be computed is said so, not invented. */
void runner_resilience(struct runner *r);
