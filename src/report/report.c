/* The formats and the one writer the CLI calls (report.h). */

#include "report.h"

#include <errno.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "report-html.h"

static const char *const report_format_table[_REPORT_FORMAT_MAX] = {
        [REPORT_JSON] = "json",
        [REPORT_JUNIT] = "junit",
        [REPORT_HTML] = "html",
        [REPORT_MD] = "md",
};
DEFINE_STRING_TABLE_LOOKUP(report_format, enum report_format)

static int render(enum report_format f, const json_t *doc, struct strbuf *b) {
        switch (f) {
        case REPORT_JUNIT: return report_junit_render(doc, b);
        case REPORT_MD: return report_md_render(doc, b);
        default: {
                _cleanup_free_ char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
                int r = text ? strbuf_puts(b, text) : -ENOMEM;
                return r < 0 ? r : strbuf_putc(b, '\n');
        }
        }
}

int report_write(FILE *out, enum report_format f, const json_t *record, struct mh_error *reterr) {
        if (f == REPORT_HTML)
                return report_html_write(out, record, reterr);
        json_t *doc = report_doc_json(record);
        struct strbuf b = STRBUF_INIT(REPORT_MAX);
        int r = doc ? render(f, doc, &b) : -ENOMEM;
        json_decref(doc);
        if (r < 0) {
                strbuf_done(&b);
                return mh_error_set(
                        reterr, r, MH_EXIT_GENERAL_FAILURE, "report", "%s report: cannot build it: %s",
                        report_format_to_string(f), strerror(-r));
        }
        size_t len = b.len, n = len ? fwrite(b.data, 1, len, out) : 0;
        strbuf_done(&b);
        if (n != len || fflush(out) != 0)
                return mh_error_set(
                        reterr, -EIO, MH_EXIT_CONFIG_ERROR, "report", "%s report: cannot write it: %s",
                        report_format_to_string(f), strerror(errno ? errno : EIO));
        return 0;
}
