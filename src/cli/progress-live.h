#pragma once

/* The run's progress for a person: on a terminal, the plain step lines
 * scroll above a live block of one line per fault in flight (its target,
 * phase and the time left in its hold) and the last probe's result,
 * redrawn twice a second; elsewhere the plain lines alone, time-stamped. */

#include <stdbool.h>
#include <stdio.h>

#include "run/run.h"

struct progress_live;

/* live: draw the block (the stream is a terminal); NULL when out of memory. */
struct progress_live *progress_live_new(FILE *out, bool live);
/* Erases the block and stops the redraws. NULL is fine. */
void progress_live_free(struct progress_live *p);

/* The run_options callbacks; userdata is the struct progress_live. */
void progress_live_line(void *userdata, const char *line);
void progress_live_fault(void *userdata, const struct run_fault_status *s);
void progress_live_probe(void *userdata, const struct run_probe_status *s);
