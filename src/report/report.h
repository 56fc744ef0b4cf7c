#pragma once

/* Reports of one run for people and the tools they already use: a
 * versioned JSON document (docs/report-format.md, docs/report-schema.json),
 * JUnit XML, Markdown, and HTML (report-html.h). Everything is built from
 * the run's record (evidence/run-record.h) by pure functions: no SQLite,
 * no clock, so a unit test feeds them a hand-made record. */

#include <jansson.h>
#include <stdio.h>

#include "basic/error.h"
#include "basic/strbuf.h"

#define REPORT_SCHEMA "mayhem.report/1"
#define REPORT_MAX    (64u * 1024u * 1024u) /* bytes of one rendered report */

enum report_format {
        REPORT_JSON,
        REPORT_JUNIT,
        REPORT_HTML,
        REPORT_MD,
        _REPORT_FORMAT_MAX,
};

const char *report_format_to_string(enum report_format f);
int report_format_from_string(const char *s); /* -EINVAL for no format */

/* Pure: the REPORT_SCHEMA document of a record. NULL on out of memory. */
json_t *report_doc_json(const json_t *record);

/* Pure: the document as JUnit XML / Markdown, appended to out. -E2BIG past
 * out's limit, -ENOMEM. */
int report_junit_render(const json_t *doc, struct strbuf *out);
int report_md_render(const json_t *doc, struct strbuf *out);

/* The report of record in format f to out. Exit 3 when out cannot be
 * written; the html writer's own errors as it sets them. */
int report_write(FILE *out, enum report_format f, const json_t *record, struct mh_error *reterr);
