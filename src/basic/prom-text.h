#pragma once

/* The Prometheus text exposition format 0.0.4, and a series selector over
 * it. A body is hostile: it is bounded (PROM_LINES_MAX lines, PROM_LABELS_MAX
 * labels a series, names and label values of bounded length) and one
 * malformed line makes the whole body malformed, as it does for Prometheus'
 * own scraper: a value read from a body that was not understood is not
 * claimed. Lines:
 *   # HELP name text        # TYPE name counter|gauge|histogram|summary|untyped
 *   # anything else         (a comment)
 *   name[{label="value",...}] value [timestamp_ms]
 * names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*, label
 * values with the escapes \\ \" \n; values any float incl. +Inf, -Inf, NaN
 * and exponents; the timestamp an integer. */

#include <stdbool.h>
#include <stddef.h>

#define PROM_NAME_MAX        256
#define PROM_LABEL_VALUE_MAX 1024
#define PROM_LABELS_MAX      64
#define PROM_LINES_MAX       200000
#define PROM_MATCHERS_MAX    16

/* name{label="value",...}: the series whose name is name and whose labels
 * include every one given (other labels may be there too). */
struct prom_selector {
        char name[PROM_NAME_MAX];
        size_t n;
        struct {
                char name[PROM_NAME_MAX];
                char value[PROM_LABEL_VALUE_MAX];
        } m[PROM_MATCHERS_MAX];
};

/* 0, or -EINVAL with why ("at byte 5: expected '='"). */
int prom_selector_parse(const char *text, struct prom_selector *ret, char *why, size_t why_size);

/* What the series a selector picks hold: their values summed. */
struct prom_match {
        size_t series;  /* matching samples */
        double sum;     /* of their values (NaN if any is NaN) */
        size_t samples; /* all samples of the body */
};

/* 0, or -EINVAL with why ("line 3: ...") when the body is malformed or over
 * a bound. */
int prom_text_match(
        const char *body, size_t len, const struct prom_selector *sel, struct prom_match *ret, char *why,
        size_t why_size);
