/* A placeholder until the HTML report lands: the merge replaces this file
 * only (report-html.h stays). */

#include "report-html.h"

#include <errno.h>

int report_html_write(FILE *out, const json_t *record, struct mh_error *reterr) {
        return mh_error_set(
                reterr, -ENOSYS, MH_EXIT_VALIDATION_ERROR, "report_html", "html reports are not built yet");
}
