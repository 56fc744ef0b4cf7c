#pragma once

/* Shared by the files of the HTML report: escaping, times, record access. */

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* Writes s HTML-escaped (& < > " ' as entities; invalid UTF-8 and control
 * characters other than tab and newline as U+FFFD), at most max bytes of s
 * (SIZE_MAX: all), then "…" when it was cut. NULL writes nothing. */
void html_escape(FILE *out, const char *s, size_t max);
/* The JSON value j, compact, escaped; "null" for NULL. */
void html_json(FILE *out, const json_t *j);
/* A string member of o, or NULL when absent or not a string. */
const char *html_str(const json_t *o, const char *key);
/* A number member of o (integer or real), or NAN. */
double html_num(const json_t *o, const char *key);

/* Seconds since the epoch of an evidence timestamp "YYYY-MM-DDTHH:MM:SS[.mmm]Z",
 * or NAN when s is not one. */
double report_time_parse(const char *s);

/* The stretch of time the timeline covers. */
struct report_span {
        double t0;  /* the run's start, epoch seconds */
        double end; /* seconds after t0 the timeline covers (> 0) */
};

/* The run's span: started_at to ended_at, widened to every timestamp the
 * record holds; a run with no ended_at ends at its last record. */
struct report_span report_span_of(const json_t *record);

/* The SVG timeline (report-svg.c). */
void report_svg_write(FILE *out, const json_t *record, const struct report_span *span);
/* The tables below the timeline (report-html-tables.c). */
void report_tables_write(FILE *out, const json_t *record, const struct report_span *span);
