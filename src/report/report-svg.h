#pragma once

/* The timeline's geometry, shared by the frame (report-svg.c) and the
 * sample rows (report-svg-series.c). */

#include "report-html-internal.h"

#define SVG_WIDTH        1360
#define SVG_GUTTER       230 /* names go here, never over the plot */
#define SVG_PLOT_WIDTH   (SVG_WIDTH - SVG_GUTTER - 20)
#define SVG_AXIS_HEIGHT  26
#define SVG_BAND_HEIGHT  18  /* a target's fault windows; a row of status marks */
#define SVG_CHART_HEIGHT 90  /* a series of values (latency, metric, count) */
#define SVG_LABEL_MAX    32  /* bytes of a name shown in the gutter; the whole name in its <title> */
#define SVG_ROWS_MAX     200 /* target bands, and source rows, drawn; the rest are counted */

struct svg_source {
        const char *name, *kind;
        size_t samples, unplotted; /* unplotted: values that are not finite numbers */
        double lo, hi;             /* the finite values' range */
        bool chart;                /* a chart of values, or a row of marks */
};

/* x of t seconds after the run's start, clamped to the plot. */
double svg_x(const struct report_span *span, double t);
/* The name in the gutter at y (its middle), with title as the tooltip. */
void svg_label(FILE *out, double y, const char *name, const char *note);

/* The sources of the record's observations, in the order first seen; at
 * most max. *ret_more counts those left out. */
size_t svg_sources(const json_t *record, struct svg_source *into, size_t max, size_t *ret_more);
/* Height of the rows of n sources. */
double svg_sources_height(const struct svg_source *s, size_t n);
/* Draws the rows of the sources from y down. */
void svg_sources_write(
        FILE *out, const json_t *record, const struct report_span *span, const struct svg_source *s,
        size_t n, double y);
