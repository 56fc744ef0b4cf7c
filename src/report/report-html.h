#pragma once

#include <jansson.h>
#include <stdio.h>

#include "basic/error.h"

/* One self-contained HTML file of the run in record (evidence/run-record.h)
 * written to out. */
int report_html_write(FILE *out, const json_t *record, struct mh_error *reterr);
