/* The timeline: an SVG of the run, x the seconds since its start. Names go in
 * the left gutter, one per row, and details in <title> tooltips, so nothing
 * overlaps however many samples and faults there are. */

#include "report-svg.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "basic/macro.h"

double svg_x(const struct report_span *span, double t) {
        double f = t / span->end;
        return SVG_GUTTER + SVG_PLOT_WIDTH * (f < 0 ? 0 : f > 1 ? 1 : f);
}

void svg_label(FILE *out, double y, const char *name, const char *note) {
        fprintf(out, "<text class=\"label\" x=\"6\" y=\"%.1f\"><title>", y + 4);
        html_escape(out, name, SIZE_MAX);
        if (note) {
                fputs(": ", out);
                html_escape(out, note, SIZE_MAX);
        }
        fputs("</title>", out);
        size_t len = name ? strlen(name) : 0;
        if (len <= SVG_LABEL_MAX)
                html_escape(out, name, SIZE_MAX);
        else {
                /* head…tail: names that differ at their end (service-01, service-02) stay apart */
                const char *tail = name + len - SVG_LABEL_MAX / 2;
                while (tail > name && (*(const unsigned char *)tail & 0xC0) == 0x80)
                        tail--;                                /* not into the middle of a UTF-8 sequence */
                html_escape(out, name, SVG_LABEL_MAX / 2 - 1); /* writes the … */
                html_escape(out, tail, SIZE_MAX);
        }
        fputs("</text>\n", out);
}

/* A tick every 1, 2 or 5 times a power of ten seconds, at least 80 px apart. */
static double tick_step(double end) {
        static const double mantissa[] = { 1, 2, 5 };
        double p = pow(10, floor(log10(end)) - 3);
        for (int decade = 0; decade < 8; decade++, p *= 10)
                for (size_t m = 0; m < ELEMENTSOF(mantissa); m++)
                        if (SVG_PLOT_WIDTH * mantissa[m] * p / end >= 80)
                                return mantissa[m] * p;
        return end;
}

static void axis_write(FILE *out, const struct report_span *span, double height) {
        double step = tick_step(span->end);
        fprintf(out, "<g class=\"axis\">\n");
        for (int i = 0; i * step <= span->end + 1e-9 && i < 1000; i++) {
                double x = svg_x(span, i * step);
                fprintf(out,
                        "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"tick\" x=\"%.1f\" y=\"16\">%gs</text>\n",
                        x, SVG_AXIS_HEIGHT - 4, x, height, x, i * step);
        }
        fputs("</g>\n", out);
}

/* Each step as a thin bar in its row and a dashed marker down the chart at its start. */
static void steps_write(
        FILE *out, const json_t *record, const struct report_span *span, double y, double height) {
        size_t i;
        const json_t *st;
        svg_label(out, y + SVG_BAND_HEIGHT / 2.0, "steps", NULL);
        json_array_foreach(json_object_get(record, "steps"), i, st) {
                double a = report_time_parse(html_str(st, "started_at")) - span->t0;
                double b = report_time_parse(html_str(st, "ended_at")) - span->t0;
                if (!isfinite(a))
                        continue;
                double xa = svg_x(span, a), xb = svg_x(span, isfinite(b) ? b : span->end);
                fprintf(out,
                        "<line class=\"step-marker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<rect class=\"step%s\" data-step=\"%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                        "height=\"6\">"
                        "<title>",
                        xa, y, xa, height, i % 2 ? " odd" : "", i, xa, y + 6, MAX(xb - xa - 1, 1.0));
                html_escape(out, html_str(json_object_get(st, "action"), "step"), 300);
                fprintf(out, " +%.3f s", a);
                if (isfinite(b))
                        fprintf(out, " to +%.3f s", b);
                fputs(": ", out);
                html_escape(out, html_str(st, "status"), 64);
                fputs("</title></rect>\n", out);
        }
}

/* The targets of the leases, in the order first seen. */
static size_t targets_of(const json_t *record, const char **into, size_t max, size_t *ret_more) {
        size_t n = 0, more = 0, i, j;
        const json_t *l, *t;
        json_array_foreach(json_object_get(record, "leases"), i, l)
                json_array_foreach(json_object_get(l, "targets"), j, t) {
                const char *name = json_string_value(t);
                size_t k = 0;
                while (name && k < n && strcmp(into[k], name) != 0)
                        k++;
                if (!name || k < n)
                        continue;
                if (n < max)
                        into[n++] = name;
                else
                        more++;
        }
        *ret_more = more;
        return n;
}

static bool lease_has_target(const json_t *lease, const char *target) {
        size_t i;
        const json_t *t;
        json_array_foreach(
                json_object_get(lease, "targets"), i,
                t) if (json_string_value(t) && strcmp(json_string_value(t), target) == 0) return true;
        return false;
}

static void window_write(
        FILE *out, const json_t *lease, const char *target, const struct report_span *span, double y) {
        double a = report_time_parse(html_str(lease, "injected_at")) - span->t0;
        double b = report_time_parse(html_str(lease, "released_at")) - span->t0;
        if (!isfinite(a))
                return; /* never injected: no window (the faults table says so) */
        bool held = !isfinite(b);
        double xa = svg_x(span, a), xb = svg_x(span, held ? span->end : b);
        fprintf(out, "<rect class=\"fault-window%s\" data-fault=\"", held ? " held" : "");
        html_escape(out, html_str(lease, "id"), SIZE_MAX);
        fputs("\" data-target=\"", out);
        html_escape(out, target, SIZE_MAX);
        fprintf(out, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>", xa, y + 2,
                MAX(xb - xa, 2.0), SVG_BAND_HEIGHT - 4);
        html_escape(out, html_str(lease, "fault_id"), 200);
        fputs(" on ", out);
        html_escape(out, target, 300);
        fprintf(out, " (lease ");
        html_escape(out, html_str(lease, "id"), 100);
        fprintf(out, "): injected +%.3f s, ", a);
        if (held)
                fputs("still held at the end of the record", out);
        else
                fprintf(out, "released +%.3f s", b);
        fputs("</title></rect>\n", out);
        if (held)
                fprintf(out, "<path class=\"held-mark\" d=\"M%.1f %.1fl-7 -5v10z\"/>\n", xb,
                        y + SVG_BAND_HEIGHT / 2.0);
}

static void bands_write(
        FILE *out, const json_t *record, const struct report_span *span, const char **targets, size_t n,
        double y) {
        for (size_t k = 0; k < n; k++, y += SVG_BAND_HEIGHT) {
                size_t i;
                const json_t *l;
                fprintf(out, "<rect class=\"row band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>\n",
                        SVG_GUTTER, y, SVG_PLOT_WIDTH, SVG_BAND_HEIGHT);
                svg_label(out, y + SVG_BAND_HEIGHT / 2.0, targets[k], "fault windows");
                json_array_foreach(
                        json_object_get(record, "leases"), i, l) if (lease_has_target(l, targets[k]))
                        window_write(out, l, targets[k], span, y);
        }
}

/* Each injected fault's window, faint, across the sample rows, so a reader
 * sees which samples fell inside it (not a fault-window: the bands hold those). */
static void shades_write(
        FILE *out, const json_t *record, const struct report_span *span, double y, double height) {
        size_t i;
        const json_t *l;
        json_array_foreach(json_object_get(record, "leases"), i, l) {
                double a = report_time_parse(html_str(l, "injected_at")) - span->t0;
                double b = report_time_parse(html_str(l, "released_at")) - span->t0;
                if (!isfinite(a))
                        continue;
                double xa = svg_x(span, a), xb = svg_x(span, isfinite(b) ? b : span->end);
                fprintf(out,
                        "<rect class=\"fault-shade\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                        "height=\"%.1f\"/>\n",
                        xa, y, MAX(xb - xa, 2.0), height - y);
        }
}

void report_svg_write(FILE *out, const json_t *record, const struct report_span *span) {
        const char *targets[SVG_ROWS_MAX];
        struct svg_source sources[SVG_ROWS_MAX];
        size_t more_targets, more_samples;
        size_t n_targets = targets_of(record, targets, SVG_ROWS_MAX, &more_targets);
        size_t n_sources = svg_sources(record, sources, SVG_ROWS_MAX, &more_samples);
        double y_steps = SVG_AXIS_HEIGHT, y_bands = y_steps + SVG_BAND_HEIGHT + 4;
        double y_sources = y_bands + (double)n_targets * SVG_BAND_HEIGHT + 6;
        double height = y_sources + svg_sources_height(sources, n_sources) + 4;

        fprintf(out,
                "<svg class=\"timeline\" width=\"%d\" height=\"%.0f\" "
                "viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"timeline of the run\">\n",
                SVG_WIDTH, height, SVG_WIDTH, height);
        axis_write(out, span, height);
        steps_write(out, record, span, y_steps, height);
        bands_write(out, record, span, targets, n_targets, y_bands);
        svg_sources_write(out, record, span, sources, n_sources, y_sources);
        shades_write(out, record, span, y_sources, height - 4);
        fputs("</svg>\n", out);
        if (more_targets || more_samples)
                fprintf(out,
                        "<p class=\"note\">Not drawn (more than %d rows): %zu targets, %zu samples of "
                        "further "
                        "sources.</p>\n",
                        SVG_ROWS_MAX, more_targets, more_samples);
}
