/* The HTML report: one self-contained page, no script and nothing fetched
 * (inline CSS and SVG only), so it opens from a CI artifact or a mail with
 * JavaScript off. */

#include "report-html.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report-html-internal.h"

static const char style[] =
        "body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#1b1f24;background:#fff}"
        "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 6px}"
        ".meta{color:#57606a}.verdict{display:inline-block;padding:2px "
        "10px;border-radius:4px;font-weight:bold}"
        ".verdict.pass{background:#dafbe1;color:#116329}.verdict.fail{background:#ffebe9;color:#a40e26}"
        ".verdict.other{background:#fff8c5;color:#7d4e00}"
        "table{border-collapse:collapse;margin:4px 0}th,td{border:1px solid #d0d7de;padding:3px 6px;"
        "text-align:left;vertical-align:top;max-width:420px;overflow-wrap:anywhere}th{background:#f6f8fa}"
        "td.pass{color:#116329;font-weight:bold}td.fail{color:#a40e26;font-weight:bold}"
        "code,pre{font:12px ui-monospace,monospace}pre.plan{background:#f6f8fa;padding:8px;overflow:auto;"
        "max-height:480px;white-space:pre-wrap;overflow-wrap:anywhere}.none{color:#57606a}"
        ".timeline{display:block;border:1px solid #d0d7de;background:#fff}"
        ".timeline text{font:11px ui-monospace,monospace;fill:#1b1f24}"
        ".timeline text.tick{text-anchor:middle;fill:#57606a}.timeline "
        "text.scale{text-anchor:end;fill:#57606a}"
        ".timeline .grid{stroke:#eaeef2}.timeline .row.band{fill:#f6f8fa}.timeline .row.marks{fill:#fbfcfd}"
        ".timeline .row.chart{fill:#fff;stroke:#eaeef2}"
        ".timeline .fault-window{fill:#fd8c73;fill-opacity:.55;stroke:#cf222e;stroke-width:.5}"
        ".timeline .fault-window.held{fill:#cf222e;fill-opacity:.35;stroke-dasharray:3 2}"
        ".timeline .held-mark{fill:#a40e26}"
        ".timeline .step{fill:#8c959f}.timeline .step.odd{fill:#57606a}"
        ".timeline .fault-shade{fill:#cf222e;fill-opacity:.07;pointer-events:none}"
        ".timeline .step-marker{stroke:#8c959f;stroke-dasharray:2 3;stroke-width:.7}"
        ".timeline circle.sample{fill:#0969da}.timeline "
        "path.sample.failed{stroke:#cf222e;stroke-width:1.6;fill:none}"
        ".legend span{margin-right:14px}.note{color:#7d4e00}";

static const char *verdict_class(const char *verdict) {
        if (verdict && strcmp(verdict, "pass") == 0)
                return "pass";
        if (verdict && strcmp(verdict, "fail") == 0)
                return "fail";
        return "other";
}

static void header_write(FILE *out, const json_t *run, const struct report_span *span) {
        const char *name = html_str(run, "experiment_name"), *verdict = html_str(run, "verdict");
        fputs("<title>mayhem run ", out);
        html_escape(out, html_str(run, "id"), 200);
        fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
        html_escape(out, name ? name : "(unnamed drill)", 500);
        fprintf(out, "</h1>\n<p><span class=\"verdict %s\">verdict: ", verdict_class(verdict));
        html_escape(out, verdict ? verdict : "none recorded", 64);
        fputs("</span> status: ", out);
        html_escape(out, html_str(run, "status"), 64);
        fputs("</p>\n<p class=\"meta\">run ", out);
        html_escape(out, html_str(run, "id"), 200);
        fputs(" \xC2\xB7 started ", out);
        html_escape(out, html_str(run, "started_at"), 64);
        fputs(" \xC2\xB7 ended ", out);
        html_escape(out, html_str(run, "ended_at") ? html_str(run, "ended_at") : "not recorded", 64);
        fputs(" \xC2\xB7 engine ", out);
        html_escape(out, html_str(run, "engine"), 64);
        fprintf(out, " \xC2\xB7 timeline %.3f s \xC2\xB7 plan ", span->end);
        html_escape(out, html_str(run, "plan_fingerprint"), 16);
        fputs("</p>\n", out);
}

static void legend_write(FILE *out) {
        fputs("<h2>Timeline</h2>\n<p class=\"legend\"><span>x: seconds since the run started</span>"
              "<span>red bands: fault windows (injected to released; dashed with \xE2\x96\xB6: still held "
              "at the end)</span><span>blue dots: samples</span><span>red crosses: failed samples</span>"
              "<span>dashed grey lines: step starts</span><span>hover for details</span></p>\n",
              out);
}

int report_html_write(FILE *out, const json_t *record, struct mh_error *reterr) {
        const json_t *run = json_object_get(record, "run");
        if (!json_is_object(record) || !json_is_object(run))
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "report",
                        "HTML report: the record is not a run's record (no \"run\" object)");
        struct report_span span = report_span_of(record);
        fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
        header_write(out, run, &span);
        legend_write(out);
        report_svg_write(out, record, &span);
        report_tables_write(out, record, &span);
        fputs("</body>\n</html>\n", out);
        if (fflush(out) != 0 || ferror(out))
                return mh_error_set(
                        reterr, -EIO, MH_EXIT_GENERAL_FAILURE, "report",
                        "HTML report: cannot write the page: %s", strerror(errno ? errno : EIO));
        return 0;
}
