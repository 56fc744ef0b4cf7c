#pragma once

/* The HTML report of one run: a single self-contained page (inline CSS and
 * SVG, no script, nothing fetched) with the run's timeline and its verdict,
 * criteria, SLOs, steady state, resilience, faults, decisions and plan. */

#include <jansson.h>
#include <stdio.h>

#include "basic/error.h"

/* Writes the page for record (what evidence_run_record_json() returns) to
 * out. Every string of the record is HTML-escaped (invalid UTF-8 and control
 * characters become U+FFFD); a value that is not a finite number is not
 * plotted. -EINVAL when record is not an object with a "run" object, -EIO
 * when a write to out failed (exit 1 either way). docs/report-html.md lists
 * the page's classes and data- attributes. */
int report_html_write(FILE *out, const json_t *record, struct mh_error *reterr);
