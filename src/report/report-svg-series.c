/* The timeline's sample rows: one point per observation, a chart for a
 * series of values and a row of marks for pass/fail and status codes. A
 * failed sample is a cross: a boolean of 0, or a sample of "X.latency_ms" /
 * "X.status" whose probe X failed (its boolean written just before). */

#include "report-svg.h"

#include "basic/macro.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static double sample_time(const json_t *obs, const struct report_span *span) {
        return report_time_parse(html_str(obs, "timestamp")) - span->t0;
}

static double sample_value(const json_t *obs) {
        return html_num(json_object_get(obs, "data"), "value");
}

static bool kind_is_marks(const char *kind) {
        return kind && (strcmp(kind, "boolean") == 0 || strcmp(kind, "status") == 0);
}

static struct svg_source *find(struct svg_source *s, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(s[i].name, name) == 0)
                        return &s[i];
        return NULL;
}

size_t svg_sources(const json_t *record, struct svg_source *into, size_t max, size_t *ret_more) {
        size_t n = 0, more = 0, i;
        const json_t *obs;
        json_array_foreach(json_object_get(record, "observations"), i, obs) {
                const char *name = html_str(obs, "source");
                if (!name)
                        continue;
                struct svg_source *s = find(into, n, name);
                if (!s && n == max) {
                        more++; /* counts samples of the sources left out */
                        continue;
                }
                if (!s) {
                        s = &into[n++];
                        *s = (struct svg_source){
                                .name = name, .kind = html_str(obs, "kind"), .lo = 0, .hi = 0
                        };
                        s->chart = !kind_is_marks(s->kind);
                }
                double v = sample_value(obs), t = report_time_parse(html_str(obs, "timestamp"));
                s->samples++;
                if (!isfinite(v) || !isfinite(t)) {
                        s->unplotted++;
                        continue;
                }
                s->lo = MIN(s->lo, v);
                s->hi = MAX(s->hi, v);
        }
        *ret_more = more;
        return n;
}

double svg_sources_height(const struct svg_source *s, size_t n) {
        double h = 0;
        for (size_t i = 0; i < n; i++)
                h += s[i].chart ? SVG_CHART_HEIGHT : SVG_BAND_HEIGHT;
        return h;
}

/* The name of the probe whose boolean says whether name's sample failed. */
static size_t prefix_len(const char *name) {
        const char *dot = strrchr(name, '.');
        return dot ? (size_t)(dot - name) : 0;
}

static bool is_pair(const json_t *obs, const char *name, size_t len) {
        const char *src = html_str(obs, "source"), *kind = html_str(obs, "kind");
        return len && src && kind && strcmp(kind, "boolean") == 0 && strncmp(src, name, len) == 0 &&
               src[len] == '\0';
}

static void sample_title(
        FILE *out, const struct svg_source *s, double t, double v, const char *detail, bool failed) {
        fputs("<title>", out);
        html_escape(out, s->name, SIZE_MAX);
        fprintf(out, " +%.3f s: %.6g%s", t, v, failed ? " (failed)" : "");
        if (detail && *detail) {
                fputs(" \xE2\x80\x94 ", out);
                html_escape(out, detail, 300);
        }
        fputs("</title>", out);
}

static void sample_write(
        FILE *out, const struct svg_source *s, double x, double y, double t, double v, const char *detail,
        bool failed) {
        fputs(failed ? "<path class=\"sample failed\" data-source=\""
                     : "<circle class=\"sample\" data-source=\"",
              out);
        html_escape(out, s->name, SIZE_MAX);
        if (failed)
                fprintf(out, "\" data-t=\"%.3f\" d=\"M%.1f %.1fl6 6m0-6l-6 6\">", t, x - 3, y - 3);
        else
                fprintf(out, "\" data-t=\"%.3f\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\">", t, x, y);
        sample_title(out, s, t, v, detail, failed);
        fputs(failed ? "</path>\n" : "</circle>\n", out);
}

static double value_y(const struct svg_source *s, double top, double v) {
        if (!s->chart)
                return top + SVG_BAND_HEIGHT / 2.0;
        double range = s->hi - s->lo > 0 ? s->hi - s->lo : 1;
        return top + SVG_CHART_HEIGHT - 6 - (v - s->lo) / range * (SVG_CHART_HEIGHT - 14);
}

static void row_label(FILE *out, const struct svg_source *s, double top) {
        char note[160];
        double h = s->chart ? SVG_CHART_HEIGHT : SVG_BAND_HEIGHT;
        snprintf(
                note, sizeof(note), "%zu samples, %zu not plotted (not a finite number)", s->samples,
                s->unplotted);
        fprintf(out, "<rect class=\"row %s\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"/>\n",
                s->chart ? "chart" : "marks", SVG_GUTTER, top, SVG_PLOT_WIDTH, h);
        svg_label(out, top + (s->chart ? 14 : h / 2), s->name, note);
        if (s->chart)
                fprintf(out,
                        "<text class=\"scale\" x=\"%d\" y=\"%.1f\">%.4g</text>"
                        "<text class=\"scale\" x=\"%d\" y=\"%.1f\">%.4g</text>\n",
                        SVG_GUTTER - 6, top + 12, s->hi, SVG_GUTTER - 6, top + h - 4, s->lo);
}

static void row_write(
        FILE *out, const json_t *record, const struct report_span *span, const struct svg_source *s,
        double top) {
        size_t i, len = prefix_len(s->name);
        const json_t *obs, *pair = NULL;
        row_label(out, s, top);
        json_array_foreach(json_object_get(record, "observations"), i, obs) {
                if (is_pair(obs, s->name, len))
                        pair = obs;
                const char *name = html_str(obs, "source");
                if (!name || strcmp(name, s->name) != 0)
                        continue;
                double t = sample_time(obs, span), v = sample_value(obs);
                if (!isfinite(t) || !isfinite(v))
                        continue;
                bool failed = kind_is_marks(s->kind) && strcmp(s->kind, "boolean") == 0
                                      ? v == 0
                                      : pair && sample_value(pair) == 0;
                const char *detail = html_str(json_object_get(obs, "data"), "detail");
                if ((!detail || !*detail) && pair)
                        detail = html_str(json_object_get(pair, "data"), "detail");
                sample_write(out, s, svg_x(span, t), value_y(s, top, v), t, v, detail, failed);
        }
}

void svg_sources_write(
        FILE *out, const json_t *record, const struct report_span *span, const struct svg_source *s,
        size_t n, double y) {
        for (size_t i = 0; i < n; i++) {
                row_write(out, record, span, &s[i], y);
                y += s[i].chart ? SVG_CHART_HEIGHT : SVG_BAND_HEIGHT;
        }
}
